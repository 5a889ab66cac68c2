"""The backward lab's exact part runs where it can be stopped (issue 45, findings 1 and 7):
the poisoned links finish with the rest of the page, a child that is stopped leaves a note and
the other columns, and another session keeps being served while such a link runs."""

from __future__ import annotations

import threading

import pytest

from hograd_serving import exact
from tests.app.test_links import open_link
from tests.serving.test_exact import _sleeper  # a child that never answers

PAGE = "pages/backward.py"

#: The links of the issue and variants of them (grid points from -2 to 2 hold x = 2).
POISONED = [
    {"backward.f": "(x+1)^(x^(x^24))", "backward.b": "g"},
    {"backward.f": "(x+1)^(x+2)^(x+3)^(x+4)^(x+5)^(x+6)", "backward.b": "g"},
    {"backward.f": "x^x^x^x^x^x^x^x^x^x", "backward.points": "25"},
    {"backward.f": "(x+2)^(x^30)", "backward.b": "g*x"},
]


@pytest.mark.parametrize("link", POISONED, ids=lambda q: q["backward.f"])
def test_a_poisoned_link_finishes_with_the_rest_of_the_page(link: dict[str, str]) -> None:
    """No exception, no hang: the run ends, the Function's script is
    there, the table of derivatives drawn, and sympy's part is either in (f's formula printed by sympy; NaN where a value
    overflows) or stopped with the note."""
    at = open_link(PAGE, link)
    assert not at.exception
    assert "class MyFunc" in "".join(c.value for c in at.code)
    assert len(at.header) + len(at.subheader) >= 3  # the formulas, the table, the code
    stopped = [i.value for i in at.info if "The exact column stopped" in i.value]
    assert stopped or at.latex  # sympy's formulas, or why there are none


@pytest.mark.parametrize(
    ("lang", "says"), [("en", "The exact column stopped"), ("zh", "精确列已停止")]
)
def test_a_stopped_child_leaves_a_note_and_the_other_columns(
    monkeypatch: pytest.MonkeyPatch, lang: str, says: str
) -> None:
    """A child that never answers is killed at its deadline: the page says so, in the
    student's language, and still shows the custom backward's and autograd's columns."""
    monkeypatch.setattr(exact, "RUNS", exact.ExactRuns(seconds=1.0, launch=_sleeper))
    f = f"sin(x)+{len(lang)}*x"  # a function no other test has cached
    at = open_link(PAGE, {"backward.f": f, "backward.b": f"(cos(x)+{len(lang)})*g"}, lang)
    assert not at.exception
    notes = [i.value for i in at.info if says in i.value]
    assert len(notes) == 1
    assert any("gradcheck" in s.value for s in at.success)  # the checks ran without sympy


def test_another_session_is_served_while_a_poisoned_link_runs() -> None:
    """One thread opens the poisoned lab's computation; another computes light requests. The
    light thread must get through its requests while the poisoned one is under way, and the
    poisoned one must end (on main it held the interpreter for minutes)."""
    from hograd_core import derivatives, parse
    from hograd_labs.backward.cached import exact_part
    from hograd_labs.backward.compute import lab, with_exact

    done = threading.Event()
    light = []

    def poisoned() -> None:
        try:
            points = [-2.0, -1.0, 0.0, 1.0, 2.0]
            ran = lab("(x+1)^(x^(x^24))", "g", points)
            with_exact(ran, exact_part("(x+1)^(x^(x^24))", "g", points))
        finally:
            done.set()

    thread = threading.Thread(target=poisoned, daemon=True)
    thread.start()
    fn = parse("sin(x)*x")
    while not done.is_set() and len(light) < 10_000:
        light.append(derivatives(fn, [0.5], 2).values[1, 0])
    assert done.wait(120), "the poisoned lab did not end"
    assert len(light) >= 20, len(light)  # the other student's requests went on meanwhile
