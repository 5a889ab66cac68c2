"""The lecturer's own screen (issue 48): ``/lesson?board=CODE`` in the teacher's version is the
class's live dashboard alone (joined, tried and right per step, slips, who is stuck) with the
pause, and nothing of the lesson; any other session gets a refusal and none of the data, and
the class database is not asked (a class code is no secret: students have it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hograd_labs.classroom import page as room
from hograd_ui.i18n import tr
from tests.app.test_classroom_page import KEY, join, open_class
from tests.app.test_lesson_page import answer, check, open_lesson, texts


@pytest.fixture()
def database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "classroom.sqlite"
    monkeypatch.setenv("HOGRAD_CLASSROOM_URL", f"sqlite:///{path}")
    monkeypatch.setenv("HOGRAD_TEACHER_KEY", KEY)
    return path


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_board_is_the_dashboard_alone_for_the_teacher(database: Path, lang: str) -> None:
    teacher, code = open_class(lang)
    ann, bo = join(code, "ann", lang), join(code, "<b>bo</b>", lang)
    answer(ann, 1, right=False)
    ann.text_input(key="lesson.ans.grad").input("13").run()
    check(ann, "grad")  # two wrong answers, none right: stuck on step 1
    answer(bo, 1, right=False)
    answer(bo, 1, right=True)
    link = [b for b in teacher.get("link_button") if f"board={code}" in b.proto.url]
    assert [b.proto.url for b in link] == [f"lesson?board={code}&lang={lang}"]  # the lecturer's

    board = open_lesson(lang, key=KEY, board=code)  # the second tab: the same teacher
    assert [t.value for t in board.title] == [tr("classroom.board.title", lang)]
    assert tr("classroom.board.lead", lang, code=code) in texts(board.caption)
    assert [m.value for m in board.metric] == ["2"]
    table = board.table[0].value
    assert [str(v) for v in table[tr("classroom.tried", lang)]][:2] == ["2", "0"]
    assert [str(v) for v in table[tr("classroom.right", lang)]][:2] == ["1", "0"]
    assert tr("classroom.stuck", lang) in texts(board.subheader)
    assert "ann" in texts(board.text) and "<b>bo</b>" not in texts(board.text)
    assert tr("classroom.stuck.row", lang, n=1, wrong=2) in texts(board.caption)
    assert not board.get("progress")  # nothing of the lesson: its steps' headings neither
    assert [h.value for h in board.header] == [tr("classroom.slips", lang)]
    assert "lesson.nav" not in [w.key for w in board.get("button_group")]

    board.button(key="classroom.board.pause").click().run()  # the pause, from the laptop
    assert board.button(key="classroom.board.pause").label == tr("classroom.resume", lang)
    teacher.run()  # the projector's tab says so, and resumes
    assert teacher.button(key="classroom.pause").label == tr("classroom.resume", lang)


@pytest.mark.parametrize("params", [{}, {"class": "joined"}, {"key": KEY + "x"}])
def test_without_the_key_the_board_is_refused(database: Path, params: dict[str, str]) -> None:
    """A stranger, a student of the class, a wrong key: the refusal, no number of the class."""
    teacher, code = open_class()
    ann = join(code, "ann")
    answer(ann, 1, right=False)
    answer(ann, 1, right=False)
    if params.get("class"):
        params = {"class": code}
    other = open_lesson("en", board=code, **params)
    assert tr("classroom.board.refused", "en") in [e.value for e in other.error]
    assert not other.metric and not other.table and not other.get("plotly_chart")
    assert "ann" not in texts(other.text)
    assert "classroom.board.pause" not in [b.key for b in other.button]
    assert not other.get("progress")  # nor the lesson


def test_a_board_of_no_class_says_so(database: Path) -> None:
    open_class()
    board = open_lesson("en", key=KEY, board="ZZZZZZ")
    assert tr("classroom.error.no_class", "en") in [w.value for w in board.warning]
    assert not board.metric
    board = open_lesson("en", key=KEY, board="not a code!")
    assert tr("classroom.error.code", "en", length=6) in [w.value for w in board.warning]
    assert room.BOARD == "board"
