"""The lesson's progress lives in every page's link (issue 35, finding 5): a student who finished
steps and went on to another page keeps them when the browser reconnects to another replica (a
fresh session that starts from the URL), after a restart, or from a shared link.

Each test finishes steps in one session, goes to another page the way the sidebar does (the
page change drops the query string; what the page's run writes is what the address bar then
shows), and starts a NEW session from that page's URL alone.
"""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from hograd_ui.i18n import tr
from tests.app.conftest import APP
from tests.app.test_lesson_page import TOTAL, answer, open_lesson, step_of
from tests.apptest import APP_TEST_CEILING

PAGE = "pages/lesson.py"
OTHERS = ["pages/derivatives.py", "pages/graph.py", "pages/hvp.py", "pages/why.py", "pages/home.py"]


def go(at: AppTest, page: str) -> AppTest:
    """Open ``page`` as the sidebar does: a page change starts from an empty query string."""
    at.query_params.clear()
    at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def fresh_session(url: dict[str, object], page: str) -> AppTest:
    """A new session (another replica, a restarted server) opened on ``page`` with ``url``."""
    at = AppTest.from_file(APP, default_timeout=APP_TEST_CEILING)
    for name, value in url.items():
        at.query_params[name] = value
    at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def progress_text(at: AppTest) -> list[str]:
    return [p.proto.text for p in at.get("progress")]


def finish(at: AppTest, numbers: list[int]) -> None:
    """Answer the steps ``numbers`` right, moving on with Next as a student does."""
    for number in numbers:
        while at.session_state["progress.step"] < number:
            at.button(key="lesson.next").click().run()
        answer(at, number, right=True)
    at.button(key="lesson.next").click().run()


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("other", OTHERS)
def test_a_fresh_session_on_another_pages_link_keeps_the_progress(other: str, lang: str) -> None:
    at = open_lesson(lang)
    finish(at, [1, 2, 3])
    assert at.session_state["progress.done"] == {1, 2, 3}
    go(at, other)
    url = dict(at.query_params)
    assert url["done"] == "1,2,3" and url["step"] == "4"
    again = fresh_session(url, other)  # the reconnect: only the URL survives
    assert again.session_state["progress.done"] == {1, 2, 3}
    go(again, PAGE)
    assert tr("lesson.progress", lang, done=3, total=TOTAL) in progress_text(again)
    assert step_of(again) == tr("lesson.growth.title", lang)  # step 4, where the student was
    assert not again.info or not any("lesson" in i.value for i in again.info)  # nothing ignored


def test_progress_made_after_a_reconnect_joins_what_the_link_had() -> None:
    at = open_lesson()
    finish(at, [1])
    go(at, "pages/derivatives.py")
    again = go(fresh_session(dict(at.query_params), "pages/derivatives.py"), PAGE)
    finish(again, [3])
    go(again, "pages/hvp.py")
    assert again.query_params["done"] == "1,3"
    third = go(fresh_session(dict(again.query_params), "pages/hvp.py"), PAGE)
    assert tr("lesson.progress", done=2, total=TOTAL) in progress_text(third)


def test_the_teachers_version_stays_in_the_session_not_in_the_link(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The key opens the teacher's version for the session; no page's link carries it, so
    a link copied from any page opens the student's version."""
    monkeypatch.setenv("HOGRAD_TEACHER_KEY", "the-server-key-0123456789")
    at = open_lesson(key="the-server-key-0123456789")
    go(at, "pages/graph.py")
    assert not {"key", "teacher"} & set(at.query_params)
    back = go(at, PAGE)
    assert tr("lesson.teacher.on") in [w.value for w in back.warning]
    again = go(fresh_session(dict(at.query_params), "pages/graph.py"), PAGE)
    assert tr("lesson.teacher.on") not in [w.value for w in again.warning]


def test_no_progress_no_parameters() -> None:
    """A student who never opened the lesson has clean links on every page."""
    at = AppTest.from_file(APP, default_timeout=APP_TEST_CEILING)
    at.run()
    for page in OTHERS:
        go(at, page)
        assert not {"step", "done", "key", "teacher"} & set(at.query_params), page


def test_a_bad_progress_link_on_another_page_is_dropped_and_said_on_the_lesson() -> None:
    at = fresh_session({"lang": "en", "done": "1,banana", "step": "3"}, "pages/derivatives.py")
    assert "done" not in at.query_params and at.query_params["step"] == "3"
    assert not any(tr("links.ignored.title", "en") in w.value for w in at.warning)
    go(at, PAGE)
    says = tr("lesson.url.ignored", names="done", total=TOTAL)
    assert says in [i.value for i in at.info]
    assert tr("lesson.progress", done=0, total=TOTAL) in progress_text(at)
