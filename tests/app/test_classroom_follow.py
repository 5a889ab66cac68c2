"""Follow the lecturer under AppTest: the lecturer (with the server's key and a class open) shares
the view of the HVP page; a student of the class with "follow" on is taken there on their next
run, with the lecturer's settings and their own language and class; a student with "follow"
off stays; the stored link carries no key; a tampered stored link is not opened.

The shared row is read back with sqlite3, not through the app."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from urllib.parse import parse_qs

import pytest
from streamlit.testing.v1 import AppTest

from hograd_labs.classroom import follow
from hograd_labs.classroom import page as room
from hograd_ui.i18n import tr
from tests.app.conftest import APP
from tests.app.test_classroom_page import KEY, join, open_class
from tests.app.test_lesson_page import texts
from tests.apptest import APP_TEST_CEILING

FN = "x**4 + y**2"  # not the HVP page's first preset: only the shared link sets it


@pytest.fixture()
def database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "classroom.sqlite"
    monkeypatch.setenv("HOGRAD_CLASSROOM_URL", f"sqlite:///{path}")
    monkeypatch.setenv("HOGRAD_TEACHER_KEY", KEY)
    return path


def _shared(path: Path) -> list[tuple]:
    with sqlite3.connect(path) as con:
        return con.execute("SELECT code, link, serial FROM classroom_shared").fetchall()


def _on_hvp(teacher: AppTest) -> AppTest:
    """The lecturer's browser on the HVP page with a typed function, a radius and a tab: the
    bound widgets' values are in the address bar, which AppTest stands for with its query
    parameters (a browser writes them; tests/e2e/test_classroom_follow_browser.py)."""
    teacher.query_params["hvp.fn"] = FN
    teacher.query_params["hvp.radius"] = "2.5"
    teacher.switch_page("pages/hvp.py").run()
    teacher.session_state["hvp.tab"] = "hessian"  # as the tab's click does (lazy_tabs)
    teacher.run()
    assert not teacher.exception, [e.value for e in teacher.exception]
    assert teacher.text_input(key="hvp.fn").value == FN
    return teacher


def _all(query: object, name: str) -> list[str]:
    """A query parameter's values as a list (AppTest keeps one value bare)."""
    value = query[name]
    return [value] if isinstance(value, str) else list(value)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_following_student_opens_the_shared_view(database: Path, lang: str) -> None:
    teacher, code = open_class()
    ann = join(code, "ann", lang)  # on the lesson page, in the class
    bo = join(code, "bo", lang)
    ann.toggle(key=follow.FOLLOW).set_value(True).run()
    assert tr("classroom.follow.none", lang) in texts(ann.caption)  # nothing shared yet
    assert not ann.get("text_input") or "hvp.fn" not in [w.key for w in ann.text_input]

    _on_hvp(teacher).button(key="classroom.share").click().run()
    assert tr("classroom.shared", "en", n=1) in texts(teacher.caption)
    [(got_code, link, serial)] = _shared(database)
    page, _, query = link.partition("?")
    assert (got_code, page, serial) == (code, "hvp", 1)
    assert parse_qs(query) == {"hvp.fn": [FN], "hvp.radius": ["2.5"], "hvp.tab": ["hessian"]}
    assert KEY not in link and "lang" not in link and "class" not in link

    ann.run()  # the follow fragment's next look
    assert not ann.exception, [e.value for e in ann.exception]
    assert ann.text_input(key="hvp.fn").value == FN
    assert ann.slider(key="hvp.radius").value == 2.5
    assert ann.session_state["hvp.tab"] == "hessian"
    assert ann.session_state["lang"] == lang and ann.session_state[room.STUDENT].nickname == "ann"
    assert tr("classroom.follow.on", lang) in texts(ann.caption)

    bo.run()  # not following: stays on the lesson
    assert not bo.exception
    assert "hvp.fn" not in [w.key for w in bo.text_input]
    assert bo.get("progress")  # the lesson's progress bar


def test_following_moves_again_only_on_a_new_share(database: Path) -> None:
    teacher, code = open_class()
    ann = join(code, "ann")
    ann.toggle(key=follow.FOLLOW).set_value(True).run()
    _on_hvp(teacher).button(key="classroom.share").click().run()
    ann.run()
    assert ann.text_input(key="hvp.fn").value == FN
    ann.switch_page("pages/hvp.py")  # the browser's address bar now (AppTest keeps its own)
    ann.text_input(key="hvp.fn").input("x*y").run()  # the student explores on their own
    ann.run()
    assert ann.text_input(key="hvp.fn").value == "x*y"  # no new share: nothing moves
    teacher.button(key="classroom.share").click().run()  # the same view, shared again
    ann.run()  # the first switch, to the home page, whose run draws no page
    assert not ann.get("text_input") and ann.session_state[follow.PENDING][0]
    ann.run()  # the second (in a browser, the hop fragment's rerun 0.3 s later)
    assert follow.PENDING not in ann.session_state
    assert ann.text_input(key="hvp.fn").value == FN
    ann.toggle(key=follow.FOLLOW).set_value(False).run()  # off: stays where they are
    ann.text_input(key="hvp.fn").input("x*y").run()
    teacher.button(key="classroom.share").click().run()
    ann.run()
    assert ann.text_input(key="hvp.fn").value == "x*y"
    assert _shared(database)[0][2] == 3


def test_a_followers_address_opened_afresh_follows_on_from_where_it_is(database: Path) -> None:
    """The page loaded again (by hand, or by hograd_serving/recover.js after Streamlit's front
    end broke) is a fresh session of the same address: it follows still, stays on the shared
    view it shows (no hop through the home page), and moves on the next share."""
    teacher, code = open_class()
    ann = join(code, "ann", "zh")
    assert follow.FOLLOW_PARAM not in ann.query_params
    ann.toggle(key=follow.FOLLOW).set_value(True).run()
    assert _all(ann.query_params, follow.FOLLOW_PARAM) == ["1"]
    _on_hvp(teacher).button(key="classroom.share").click().run()
    ann.run()
    assert ann.text_input(key="hvp.fn").value == FN
    address = {name: _all(ann.query_params, name) for name in ann.query_params}
    assert address[follow.FOLLOW_PARAM] == ["1"] and address["class"] == [code]

    again = AppTest.from_file(APP, default_timeout=APP_TEST_CEILING)
    for name, values in address.items():
        again.query_params[name] = values
    again.switch_page("pages/hvp.py").run()  # the browser's address: the HVP page
    assert not again.exception, [e.value for e in again.exception]
    assert again.toggle(key=follow.FOLLOW).value is True
    assert again.session_state["progress.seat"] == address["seat"][0]  # still in the seat
    assert again.text_input(key="hvp.fn").value == FN
    assert follow.PENDING not in again.session_state and follow.SWITCH not in again.session_state
    assert tr("classroom.follow.on", "zh") in texts(again.caption)

    teacher.text_input(key="hvp.fn").input("x*y").run()
    teacher.button(key="classroom.share").click().run()
    again.run()  # the first switch, home
    again.run()  # the second, to the view
    assert again.text_input(key="hvp.fn").value == "x*y"
    again.toggle(key=follow.FOLLOW).set_value(False).run()
    assert follow.FOLLOW_PARAM not in again.query_params  # off: out of the address


@pytest.mark.parametrize(
    "link",
    [
        "hvp?key=" + KEY,
        "hvp?lang=zh",
        "https://evil.example/hvp",
        "../hvp",
        "hvp?class=ABCDEF",
        "nope?hvp.fn=x",
        "hvp?hvp.fn=" + "x" * 500,
    ],
)
def test_a_stored_link_is_read_again_and_a_bad_one_not_opened(database: Path, link: str) -> None:
    teacher, code = open_class()
    ann = join(code, "ann")
    ann.toggle(key=follow.FOLLOW).set_value(True).run()
    with sqlite3.connect(database) as con:  # as if the database were written by someone else
        con.execute("INSERT INTO classroom_shared VALUES (?, ?, 1, 0)", (code, link))
    ann.run()
    assert not ann.exception, [e.value for e in ann.exception]
    assert tr("classroom.follow.bad", "en") in [w.value for w in ann.warning]
    assert ann.get("progress")  # still on the lesson


def test_a_page_seen_before_opens_with_the_shared_settings(database: Path) -> None:
    """A choice (the open tab) is read from a link once a session; a student who saw the HVP
    page before still gets the lecturer's tab, and the settings the link leaves out go back to
    their defaults (the page's settings in the session are forgotten first)."""
    teacher, code = open_class()
    ann = join(code, "ann")
    ann.switch_page("pages/hvp.py").run()  # the student looks around first
    assert ann.session_state["hvp.tab"] != "hessian"
    ann.slider(key="hvp.radius").set_value(4.0).run()
    ann.switch_page("pages/lesson.py").run()
    ann.toggle(key=follow.FOLLOW).set_value(True).run()
    teacher.query_params["hvp.fn"] = FN
    teacher.switch_page("pages/hvp.py").run()
    teacher.session_state["hvp.tab"] = "hessian"
    teacher.run()
    teacher.button(key="classroom.share").click().run()
    ann.run()
    assert not ann.exception, [e.value for e in ann.exception]
    assert ann.session_state["hvp.tab"] == "hessian"
    assert ann.text_input(key="hvp.fn").value == FN
    assert ann.slider(key="hvp.radius").value != 4.0  # not in the link: the default


def test_in_presentation_mode_the_share_button_is_above_the_page(database: Path) -> None:
    """Presentation mode hides the sidebar: the lecturer who projects still shares."""
    teacher, code = open_class()
    teacher.toggle(key="links.present").set_value(True).run()
    assert [b.key for b in teacher.main.button if b.key == "classroom.share"] == ["classroom.share"]
    assert "classroom.share" not in [b.key for b in teacher.sidebar.button]
    teacher.button(key="classroom.share").click().run()
    assert _shared(database)[0][:2] == (code, "lesson")


def _paused(path: Path) -> list[tuple]:
    with sqlite3.connect(path) as con:
        return con.execute("SELECT code, paused IS NOT NULL FROM classroom_classes").fetchall()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_pause_shows_followers_the_shared_view_only(database: Path, lang: str) -> None:
    """Issue 48: "eyes on the projector". Paused, a follower's page is the shared view with
    the pause's notice and the CSS that hides the rest; a student who does not follow is not
    paused; resumed, the notice and the CSS are gone."""
    teacher, code = open_class()
    ann = join(code, "ann", lang)
    bo = join(code, "bo", lang)
    ann.toggle(key=follow.FOLLOW).set_value(True).run()
    _on_hvp(teacher).button(key="classroom.share").click().run()
    ann.run()
    assert ann.text_input(key="hvp.fn").value == FN
    assert teacher.button(key="classroom.pause").label == tr("classroom.pause", "en")

    teacher.button(key="classroom.pause").click().run()
    assert _paused(database) == [(code, 1)]
    assert teacher.button(key="classroom.pause").label == tr("classroom.resume", "en")
    assert tr("classroom.paused.teacher", "en") in texts(teacher.caption)
    ann.switch_page("pages/graph.py").run()  # the student left the view before the pause
    ann.run()  # the follow fragment's look: back on the shared view
    ann.run()
    assert not ann.exception, [e.value for e in ann.exception]
    assert ann.text_input(key="hvp.fn").value == FN
    assert [i.value for i in ann.main.info if i.value == tr("classroom.paused", lang)]
    assert any(follow.PAUSE_CSS in h.proto.body for h in ann.get("html"))
    ann.switch_page("pages/hvp.py")  # the browser's address bar now (AppTest keeps its own)
    bo.run()
    assert not [i for i in bo.info if "classroom" in str(i.value)]
    assert tr("classroom.paused", lang) not in [i.value for i in bo.info]
    assert not any(follow.PAUSE_CSS in h.proto.body for h in bo.get("html"))

    teacher.button(key="classroom.pause").click().run()  # resume
    assert _paused(database) == [(code, 0)]
    ann.run()
    assert tr("classroom.paused", lang) not in [i.value for i in ann.info]
    assert not any(follow.PAUSE_CSS in h.proto.body for h in ann.get("html"))
    assert ann.text_input(key="hvp.fn").value == FN  # the view stays where it was


def test_paused_before_any_share_a_follower_sees_the_notice_only(database: Path) -> None:
    teacher, code = open_class()
    ann = join(code, "ann")
    ann.toggle(key=follow.FOLLOW).set_value(True).run()
    assert ann.get("progress")  # the lesson
    teacher.toggle(key="links.present").set_value(True).run()  # projected: above the page
    assert "classroom.pause" in [b.key for b in teacher.main.button]
    teacher.button(key="classroom.pause").click().run()
    ann.run()
    assert not ann.exception, [e.value for e in ann.exception]
    assert [i.value for i in ann.main.info] == [tr("classroom.paused.none", "en")]
    assert not ann.get("progress") and not ann.main.button  # no page drawn under it
    teacher.button(key="classroom.pause").click().run()
    ann.run()
    assert ann.get("progress")
