"""The lesson's progress as a link carries it (``?step=3&done=1,2``) and the teacher's key: what
is read, what is ignored and named, and that only the server's key matches."""

from __future__ import annotations

import pytest

from hograd_labs.lesson.compute import STEPS
from hograd_ui.parts.lesson_link import MAX_KEY, Progress, key_matches, read_progress

TOTAL = len(STEPS)  # 7: "8" below is one past the last step


def test_the_lesson_has_seven_steps() -> None:
    assert TOTAL == 7  # the values below are chosen around it


# ---- progress in a link ---------------------------------------------------------------------


def test_a_good_link_is_read_whole() -> None:
    assert read_progress(None, None, TOTAL) == Progress()
    assert read_progress("3", "2,1,2", TOTAL) == Progress(3, (1, 2), ())
    assert read_progress("7", "", TOTAL) == Progress(7, (), ())


@pytest.mark.parametrize(
    ("step", "done", "ignored"),
    [
        ("0", None, ("step",)),
        ("8", None, ("step",)),
        ("-1", None, ("step",)),
        ("3.5", None, ("step",)),
        ("abc", None, ("step",)),
        ("", None, ("step",)),
        ("３", None, ("step",)),
        ("1" * 5000, None, ("step",)),
        ("<script>alert(1)</script>", None, ("step",)),
        (None, "1,x", ("done",)),
        (None, "1,,2", ("done",)),
        (None, "1,99", ("done",)),
        (None, "1," * 50, ("done",)),
        ("?", "?", ("step", "done")),
    ],
)
def test_a_bad_value_is_ignored_and_named(
    step: str | None, done: str | None, ignored: tuple[str, ...]
) -> None:
    assert read_progress(step, done, TOTAL) == Progress(ignored=ignored)


# ---- the teacher's key ----------------------------------------------------------------------

KEY = "k3y-Of-the_server.0123456789"
HOSTILE = [
    "",
    " ",
    KEY[:-1],
    KEY + "x",
    KEY.upper(),
    " " + KEY,
    KEY + "\n",
    KEY + "\x00",
    "\ud800",
    "é" * 10,
    "' OR 1=1 --",
    "<script>alert(1)</script>",
    "1",
    "true",
    "k" * (MAX_KEY + 1),
    KEY * 100,
]


def test_only_the_servers_key_matches() -> None:
    assert key_matches(KEY, KEY)
    assert key_matches("é 中文 \u2212", "é 中文 \u2212")  # any text the server chose
    for given in HOSTILE:
        assert not key_matches(given, KEY), repr(given)
        assert not key_matches(given, None)  # no server key: nothing opens


@pytest.mark.parametrize("server", [None, "", "   ", "\t\n"])
def test_a_server_without_a_key_opens_nothing(server: str | None) -> None:
    for given in [None, "", "   ", "\t\n", "1"]:
        assert not key_matches(given, server)
