"""The class under AppTest: the lecturer (with the server's key) opens a class, students join it
from its link with nicknames (hostile ones too), Check is recorded, the dashboard counts, the
lecturer reveals an answer, a link's done= marks nothing done in a class, export and delete.

Counts are checked against the Checks these tests made; what the database holds is read back
with sqlite3, not through the app."""

from __future__ import annotations

import csv
import io
import sqlite3
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from hograd_labs.classroom import page as room
from hograd_ui.i18n import tr
from tests.app.test_lesson_page import answer, open_lesson, texts

KEY = "classroom-test-key-0123456789abcdef"


@pytest.fixture()
def database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "classroom.sqlite"
    monkeypatch.setenv("HOGRAD_CLASSROOM_URL", f"sqlite:///{path}")
    monkeypatch.setenv("HOGRAD_TEACHER_KEY", KEY)
    return path


def _rows(path: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(path) as con:
        return con.execute(sql).fetchall()


def open_class(lang: str = "en") -> tuple[AppTest, str]:
    teacher = open_lesson(lang, key=KEY)
    teacher.button(key="classroom.open").click().run()
    assert not teacher.exception
    code = teacher.session_state[room.CODE]
    assert tr("classroom.code", lang, code=code) in texts(teacher.markdown)
    assert any(f"class={code}" in c.value and KEY not in c.value for c in teacher.code)
    return teacher, code


def join(code: str, nickname: str, lang: str = "en", **params: str) -> AppTest:
    student = open_lesson(lang, **{"class": code, **params})
    assert tr("classroom.join.title", lang, code=code) in [h.value for h in student.header]
    assert not student.get("progress")  # the lesson waits for a nickname
    student.text_input(key="classroom.nickname").input(nickname)
    student.button(key="classroom.join").click().run()
    assert not student.exception, [e.value for e in student.exception]
    return student


def dashboard(teacher: AppTest) -> dict[str, list[str]]:
    teacher.run()
    assert not teacher.exception
    table = teacher.table[0].value
    return {column: [str(v) for v in table[column]] for column in table.columns}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_class_records_checks_and_counts_students(database: Path, lang: str) -> None:
    teacher, code = open_class(lang)
    ann = join(code, "ann", lang)
    answer(ann, 1, right=False)  # 10, below f'(2) = 12
    ann.text_input(key="lesson.ans.grad").input("8").run()  # f(2) = 8: a known slip
    ann.button(key="lesson.check.grad").click().run()
    answer(ann, 1, right=True)
    bo = join(code, "bo", lang)
    bo.text_input(key="lesson.ans.grad").input("8").run()
    bo.button(key="lesson.check.grad").click().run()
    join(code, "cy", lang)  # joined, never tried
    counts = dashboard(teacher)
    tried, right = tr("classroom.tried", lang), tr("classroom.right", lang)
    assert counts[tried][0] == "2" and counts[right][0] == "1"
    assert counts[tried][1:] == ["0"] * 6
    assert [m.value for m in teacher.metric] == ["3"]
    slip = tr("classroom.slip", lang, n=1, text=tr("lesson.trap.value", lang, value="8"))
    assert tr("classroom.slip.count", lang, text=slip, students=2) in texts(teacher.caption)
    # the server's rows, read without the app
    rows = _rows(
        database,
        "SELECT s.nickname, c.step, c.answer, c.correct, c.verdict "
        "FROM classroom_checks c JOIN classroom_students s ON s.id = c.student "
        "ORDER BY c.id",
    )
    assert rows == [
        ("ann", 1, "10", 0, "lesson.check.low"),
        ("ann", 1, "8", 0, "lesson.trap.value"),
        ("ann", 1, "12", 1, "lesson.check.right"),
        ("bo", 1, "8", 0, "lesson.trap.value"),
    ]


#: as typed into the box, which takes 24 characters (longer ones: tests/labs)
HOSTILE = [
    "<img src=x onerror=1>",
    "**b** [x](javascript:1)",
    "'; DROP TABLE x; --",
    "$\\frac{1}{0}$",
    "=1+1",
    "\u202eevil",
    "a" * 24,
    "中文 名字",
    ":material/home:",
]


def test_hostile_nicknames_are_text_and_repeats_get_a_suffix(database: Path) -> None:
    _, code = open_class()
    for name in HOSTILE:
        student = join(code, name, "en")
        shown = student.session_state[room.STUDENT].nickname
        assert shown in [x.value for x in student.text]  # as st.text, the only place
        assert not any(shown in m for m in texts(student.markdown) + texts(student.caption))
    again = join(code, HOSTILE[0], "en")
    assert again.session_state[room.STUDENT].nickname == HOSTILE[0] + " 2"
    stored = [r[0] for r in _rows(database, "SELECT nickname FROM classroom_students")]
    assert len(stored) == len(HOSTILE) + 1 and "'; DROP TABLE x; --" in stored


@pytest.mark.parametrize("nickname", ["", "   ", "\u200b\u200b"])
def test_an_empty_nickname_is_refused_with_a_message(database: Path, nickname: str) -> None:
    _, code = open_class()
    student = join(code, nickname)
    message = tr("classroom.error.nickname", most=24)
    assert message in texts(student.error)
    assert room.STUDENT not in student.session_state


@pytest.mark.parametrize(
    "code", ["nope", "<b>ABCDEF</b>", "ABCDE!", "' OR 1=1 --", "x" * 5000, "ZZZZZZ"]
)
def test_a_bad_class_code_says_so_and_leaves_the_lesson_open(database: Path, code: str) -> None:
    at = open_lesson(**{"class": code})
    warned = texts(at.warning)
    assert (
        tr("classroom.error.code", length=6) in warned or tr("classroom.error.no_class") in warned
    )
    assert at.get("progress")  # the lesson itself is there
    assert "class" not in at.query_params
    assert not any(code in w for w in warned)


def test_in_a_class_done_in_the_link_marks_nothing(database: Path) -> None:
    _, code = open_class()
    student = join(code, "ann", done="1,2,3,4,5,6,7", step="3")
    progress = [p.proto.text for p in student.get("progress")]
    assert progress == [tr("lesson.progress", done=0, total=7)]
    assert "done" not in student.query_params and student.query_params["class"] == code
    answer(student, 3, right=True)
    assert [p.proto.text for p in student.get("progress")] == [
        tr("lesson.progress", done=1, total=7)
    ]


def test_reveal_export_delete(database: Path) -> None:
    teacher, code = open_class()
    student = join(code, '=HYPERLINK("x")')
    revealed = tr(
        "classroom.revealed",
        answer=tr("lesson.teacher.answer_number", value="12", tolerance="0.01"),
    )
    assert revealed not in texts(student.info)
    answer(student, 1, right=False)
    teacher.button(key="classroom.reveal").click().run()
    assert teacher.button(key="classroom.reveal").disabled
    student.run()
    assert revealed in texts(student.info)
    teacher.run()
    data = teacher.get("download_button")[0]
    assert data is not None
    table = list(csv.reader(io.StringIO(_export(database, code))))
    assert table[1][0] == '\'=HYPERLINK("x")'
    teacher.button(key="classroom.delete").click().run()
    assert room.CODE not in teacher.session_state
    assert _rows(database, "SELECT count(*) FROM classroom_students") == [(0,)]
    gone = open_lesson(**{"class": code})
    assert tr("classroom.error.no_class") in texts(gone.warning)


def _export(path: Path, code: str) -> str:
    import sqlalchemy as sa

    from hograd_labs.classroom.compute import export_csv

    return export_csv(sa.create_engine(f"sqlite:///{path}"), code)


def test_a_student_with_a_wrong_key_is_not_the_teacher(database: Path) -> None:
    _, code = open_class()
    student = open_lesson(**{"class": code, "key": KEY[:-1]})
    assert tr("lesson.teacher.refused") in texts(student.info)
    assert tr("classroom.title") not in [e.label for e in student.expander]
    assert not {"key", "teacher"} & set(student.query_params)
    student.text_input(key="classroom.nickname").input("ann")
    student.button(key="classroom.join").click().run()
    assert tr("classroom.title") not in [e.label for e in student.expander]
    assert tr("lesson.teacher.on") not in texts(student.warning)


TYPED = ["", "nope", "<b>AB</b>", "' OR 1=1 --", "ABCDE!", "x" * 20, "$$", "\u202eABCDEF"]


def test_a_code_typed_from_the_board(database: Path) -> None:
    _, code = open_class()
    at = open_lesson()
    for text in TYPED:
        at.text_input(key="classroom.typed").input(text)
        at.button(key="classroom.typed_go").click().run()
        assert not at.exception
        assert tr("classroom.error.code", length=6) in texts(at.error), repr(text)
        assert "class" not in at.query_params
        assert not text or all(text not in e for e in texts(at.error))
    at.text_input(key="classroom.typed").input(f"{code[:3].lower()} {code[3:]}")
    at.button(key="classroom.typed_go").click().run()
    assert tr("classroom.join.title", code=code) in [h.value for h in at.header]
    assert at.query_params["class"] == code


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_fresh_session_with_the_seat_is_the_same_student(database: Path, lang: str) -> None:
    """A reload or a reconnect to another replica is a fresh session from the same address:
    the seat in it sits the student down again (same nickname, the server's progress), not
    a second join. The seat never enters the link the share box shows; a seat that is no
    seat of this class asks for a nickname and says why."""
    _, code = open_class(lang)
    ann = join(code, "ann", lang)
    seat = ann.query_params["seat"]
    assert seat == ann.session_state[room.STUDENT].seat
    assert not any(seat in c.value for c in ann.code)  # the share box's link has no seat
    assert tr("classroom.seat_note", lang) in texts(ann.caption)
    answer(ann, 1, right=True)
    again = open_lesson(lang, **{"class": code, "seat": seat})
    assert not again.exception
    assert "classroom.nickname" not in [w.key for w in again.text_input]  # not asked again
    assert "ann" in [x.value for x in again.text]
    assert [p.proto.text for p in again.get("progress")] == [
        tr("lesson.progress", lang, done=1, total=7)
    ]
    assert _rows(database, "SELECT count(*) FROM classroom_students") == [(1,)]
    for bad in [seat[:-1] + ("A" if seat[-1] != "A" else "B"), "<b>x</b>", "x" * 5000]:
        other = open_lesson(lang, **{"class": code, "seat": bad})
        assert tr("classroom.join.title", lang, code=code) in [h.value for h in other.header]
        assert tr("classroom.seat_gone", lang) in texts(other.info)
        assert "seat" not in other.query_params


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_look_alike_and_suffix_names_and_the_browser_bound(database: Path, lang: str) -> None:
    """Issue 45: "Аda" (Cyrillic А) beside "Ada" gets a suffix; a typed "Ada 2" is refused
    with a message naming the fix; a session (a browser without the id cookie) joins a class
    at most three times."""
    from hograd_labs.classroom import compute as cc

    _, code = open_class(lang)
    join(code, "Ada", lang)
    cyrillic = join(code, "\u0410da", lang)
    assert cyrillic.session_state[room.STUDENT].nickname == "\u0410da 2"
    typed = join(code, "Ada 2", lang)
    assert tr("classroom.error.nickname_suffix", lang, name="Ada") in texts(typed.error)
    assert room.STUDENT not in typed.session_state
    at = open_lesson(lang, **{"class": code})
    for i in range(cc.MAX_PER_BROWSER + 1):
        if i:
            at.button(key="classroom.leave").click().run()
            at.query_params["class"] = code
            at.session_state["progress.class"] = code
            at.run()
        at.text_input(key="classroom.nickname").input(f"b{i}")
        at.button(key="classroom.join").click().run()
    message = tr("classroom.error.browser", lang, most=cc.MAX_PER_BROWSER)
    assert message in texts(at.error)
    assert _rows(database, "SELECT count(*) FROM classroom_students") == [(2 + 3,)]


def _qr_alt(teacher: AppTest) -> list[str]:
    return [img.alt for image in teacher.get("image") for img in image.proto.imgs]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_link_carries_the_public_url_and_no_language(
    database: Path, monkeypatch: pytest.MonkeyPatch, lang: str
) -> None:
    """Issue 48: with HOGRAD_PUBLIC_URL set, the link and its QR code carry it, without
    ``lang``; the QR code's alt text is the link it encodes."""
    monkeypatch.setenv("HOGRAD_PUBLIC_URL", "https://hograd.example.edu/")
    teacher, code = open_class(lang)
    link = f"https://hograd.example.edu/lesson?class={code}"
    assert link in [c.value for c in teacher.code]
    assert _qr_alt(teacher) == [link]
    assert not any(k.startswith("classroom.address") for k in [w.value for w in teacher.warning])


def test_a_loopback_address_is_said_plainly(
    database: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No public URL, a loopback browser address (AppTest has none: loopback, as localhost):
    the panel says so, and the link carries this machine's local-network address."""
    from hograd_labs.classroom import address

    monkeypatch.delenv("HOGRAD_PUBLIC_URL", raising=False)
    monkeypatch.setattr(address, "lan_ip", lambda: "192.168.1.20")
    teacher, code = open_class()
    [link] = [c.value for c in teacher.code if "class=" in c.value]
    assert link.startswith("http://192.168.1.20") and link.endswith(f"/lesson?class={code}")
    notes = [w.value for w in teacher.warning]
    assert any("192.168.1.20" in n and "HOGRAD_PUBLIC_URL" in n for n in notes), notes
    assert _qr_alt(teacher) == [link]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_lecturer_resets_a_steps_answers(database: Path, lang: str) -> None:
    """Issue 48: Reset deletes the open step's Checks and its reveal, nothing else; a
    student's progress (the class's record) loses that step on their next run."""
    teacher, code = open_class(lang)
    ann = join(code, "ann", lang)
    answer(ann, 1, right=True)
    answer(ann, 1, right=False)
    teacher.button(key="classroom.reveal").click().run()
    other, _ = open_class(lang)  # another class's Checks stay
    bo = join(other.session_state[room.CODE], "bo", lang)
    answer(bo, 1, right=True)
    teacher.button(key="classroom.reset").click().run()
    assert not teacher.exception
    done = tr("classroom.reset.done", lang, n=1, checks=2)
    assert done in texts(teacher.caption)
    teacher.run()  # a later run (a run cut short after drawing it, too) says it again
    assert done in texts(teacher.caption)
    assert _rows(database, f"SELECT count(*) FROM classroom_checks WHERE code = '{code}'") == [(0,)]
    assert _rows(database, "SELECT count(*) FROM classroom_checks") == [(1,)]
    assert _rows(database, "SELECT count(*) FROM classroom_reveals") == [(0,)]
    assert not teacher.button(key="classroom.reveal").disabled
    teacher.button(key="classroom.reveal").click().run()  # the next action replaces it
    assert done not in texts(teacher.caption)
    ann.run()
    assert ann.get("progress")[0].proto.text == tr("lesson.progress", lang, done=0, total=7)
    assert _rows(database, "SELECT count(*) FROM classroom_students") == [(2,)]
