"""The class database on a temporary SQLite file: schema and its version, codes, nicknames
(hostile ones as bound parameters), repeated names, Checks and the dashboard's counts counted
again by hand from the rows, export, deletion and retention.

The oracle for every count is the list of Checks the test itself made, counted in Python; the
database's own content is read back with plain SQL (sqlite3 or psycopg), not with the module under test.
"""

from __future__ import annotations

import csv
import io
from random import Random

import pytest
import sqlalchemy as sa

from hograd_labs.classroom import compute as cc
from tests.english import raises
from tests.labs.conftest import Db

NOW = 1_800_000_000.0

HOSTILE = [
    "Robert'); DROP TABLE classroom_students;--",
    "' OR '1'='1",
    '"; DELETE FROM x; --',
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "**bold** [a](http://x)",
    "$x^2$",
    '=HYPERLINK("http://x")',
    "+1-2",
    "@SUM(A1)",
    "\x00nul",
    "a\u202eb",
    "\u200b\u200bz",
    "é" * 300,
    "中文名字",
    "🙂" * 5,
    "  spaced   out  ",
    "\\",
    "%",
    "_",
    "null",
    "None",
]


@pytest.fixture()
def db(plain_db: Db) -> tuple[sa.Engine, Db]:
    """SQLite and PostgreSQL (tests/labs/conftest.py), with the tables made."""
    cc.create_schema(plain_db.engine)
    return plain_db.engine, plain_db


def test_tables_are_made_once_with_their_version(db: tuple[sa.Engine, Db]) -> None:
    engine, raw = db
    cc.create_schema(engine)  # a second start (another replica) changes nothing
    assert raw.rows("SELECT part, version FROM hograd_schema") == [("classroom", cc.SCHEMA_VERSION)]
    names = raw.tables()
    assert {"classroom_classes", "classroom_students", "classroom_checks"} <= names


def test_another_schema_version_is_refused(db: tuple[sa.Engine, Db]) -> None:
    engine, raw = db
    raw.execute("UPDATE hograd_schema SET version = 99")
    with raises(cc.ClassroomError, match="99"):
        cc.create_schema(engine)


@pytest.mark.parametrize(
    ("typed", "code"),
    [
        ("ab2 cd3", "AB2CD3"),
        ("AB2-CD3", "AB2CD3"),
        ("ab2.cd3", "AB2CD3"),
        ("\uff41\uff42\uff12\u3000\uff43\uff44\uff13", "AB2CD3"),  # full-width, as an IME types
        ("oo11il", "001111"),  # O is 0; I and L are 1
        ("OOOOOO", "000000"),
    ],
)
def test_a_typed_code_forgives_case_spaces_and_look_alikes(typed: str, code: str) -> None:
    assert cc.read_code(typed) == code
    assert set(code) <= set(cc.CODE_ALPHABET)


def test_a_code_never_holds_a_letter_read_as_a_digit() -> None:
    codes = {cc.new_code(Random(i)) for i in range(2000)}
    assert not set("".join(codes)) & set("OIL")
    assert {"0", "1"} <= set("".join(codes))  # the digits they are read as do occur


def test_codes_are_read_however_typed() -> None:
    code = cc.new_code(Random(1))
    assert len(code) == cc.CODE_LENGTH and set(code) <= set(cc.CODE_ALPHABET)
    assert cc.read_code(f" {code.lower()[:3]}-{code[3:]} ") == code
    for bad in [
        "",
        "ABC",
        "ABCDEFG",
        "ABCDE!",
        "ABCDE?",
        "ÀBCDEF",
        "ABC DE",
        "<b>x</b>",
        "' OR 1=1",
        "A" * 10_000,
        None,
        123,
        "ＡＢＣ",
    ]:
        with pytest.raises(cc.ClassroomError) as err:
            cc.read_code(bad)
        assert err.value.params == {"length": cc.CODE_LENGTH}  # the text is not repeated


def test_nicknames_are_cleaned_and_bounded() -> None:
    assert cc.clean_nickname("  Ada \t Lovelace ") == "Ada Lovelace"
    assert cc.clean_nickname("a\u202eb") == "ab"  # a right-to-left override is a format char
    assert cc.clean_nickname("e\u0301") == "é"  # NFC
    assert len(cc.clean_nickname("x" * 10_000)) == cc.MAX_NICKNAME
    for empty in ["", "   ", "\u200b", "\x00\x01", "\n\t", None, 5]:
        with pytest.raises(cc.ClassroomError):
            cc.clean_nickname(empty)


def test_hostile_nicknames_are_stored_as_text(db: tuple[sa.Engine, Db]) -> None:
    engine, raw = db
    code = cc.open_class(engine, NOW, rng=Random(2))
    joined = [cc.join(engine, code, name, NOW) for name in HOSTILE]
    stored = dict(raw.rows("SELECT id, nickname FROM classroom_students"))
    for name, student in zip(HOSTILE, joined, strict=True):
        assert stored[student.id] == student.nickname == cc.clean_nickname(name)
    assert len(stored) == len(HOSTILE)  # every table still there, nothing deleted
    assert raw.rows("SELECT count(*) FROM classroom_classes") == [(1,)]


def test_a_repeated_nickname_gets_a_suffix(db: tuple[sa.Engine, Db]) -> None:
    engine, _ = db
    code = cc.open_class(engine, NOW, rng=Random(3))
    names = [cc.join(engine, code, "Ada", NOW).nickname for _ in range(4)]
    assert names == ["Ada", "Ada 2", "Ada 3", "Ada 4"]
    long = "L" * cc.MAX_NICKNAME
    assert cc.join(engine, code, long, NOW).nickname == long
    second = cc.join(engine, code, long, NOW).nickname
    assert second == "L" * (cc.MAX_NICKNAME - 2) + " 2" and len(second) == cc.MAX_NICKNAME
    other = cc.open_class(engine, NOW, rng=Random(4))
    assert cc.join(engine, other, "Ada", NOW).nickname == "Ada"  # names are per class


def test_joining_needs_a_class_that_is_open(db: tuple[sa.Engine, Db]) -> None:
    engine, _ = db
    with pytest.raises(cc.ClassroomError):
        cc.join(engine, "ABCDEF", "Ada", NOW)
    code = cc.open_class(engine, NOW, days=1, rng=Random(5))
    cc.join(engine, code, "Ada", NOW + cc.DAY - 1)
    with pytest.raises(cc.ClassroomError):
        cc.join(engine, code, "Bo", NOW + cc.DAY)
    for days in [0, -1, cc.MAX_DAYS + 1, 2.5, "30", True]:
        with pytest.raises(cc.ClassroomError):
            cc.open_class(engine, NOW, days=days)  # type: ignore[arg-type]


def test_a_seat_sits_the_same_student_down_again(db: tuple[sa.Engine, Db]) -> None:
    """A fresh session (another replica, a reload) with the seat from the student's link is
    the same student: same id, nickname and record; any other text, another class, a deleted
    or expired class is no seat. The database keeps only the seat's hash."""
    engine, raw = db
    code = cc.open_class(engine, NOW, days=1, rng=Random(7))
    other = cc.open_class(engine, NOW, rng=Random(8))
    ada, bo = cc.join(engine, code, "Ada", NOW), cc.join(engine, code, "Ada", NOW)
    assert len(ada.seat) == cc.SEAT_LENGTH and ada.seat != bo.seat
    cc.record_check(engine, ada, 2, "12", True, "lesson.check.right", (), NOW)
    back = cc.resume(engine, code, ada.seat, NOW + 60)
    assert back == ada and cc.done_steps(engine, back) == {2}
    assert cc.resume(engine, code, bo.seat, NOW) == bo and bo.nickname == "Ada 2"
    stored = [t for (t,) in raw.rows("SELECT token FROM classroom_seats")]
    assert ada.seat not in stored and len(stored) == 2  # only hashes
    assert cc.summary(engine, code).joined == 2  # coming back is not joining again
    tampered = ada.seat[:-1] + ("A" if ada.seat[-1] != "A" else "B")
    for text in [tampered, "", "x" * 10_000, ada.seat + "=", "' OR '1'='1", None, 7, *stored]:
        assert cc.resume(engine, code, text, NOW) is None
    assert cc.resume(engine, other, ada.seat, NOW) is None  # a seat is in one class only
    assert cc.resume(engine, code, ada.seat, NOW + cc.DAY) is None  # the class has expired
    cc.delete_class(engine, code)
    assert raw.rows("SELECT count(*) FROM classroom_seats") == [(0,)]


def _class_with_checks(engine: sa.Engine) -> tuple[str, list[tuple[str, int, bool, str, str]]]:
    """Five students, their Checks: (nickname, step, right, verdict key, value)."""
    code = cc.open_class(engine, NOW, rng=Random(6))
    made = [
        ("ann", 1, False, "lesson.trap.value", "8"),
        ("ann", 1, True, "lesson.check.right", ""),
        ("bo", 1, False, "lesson.trap.value", "8"),
        ("bo", 1, False, "lesson.check.low", "10"),
        ("bo", 1, False, "lesson.trap.value", "8"),  # the same slip again, after another
        ("cy", 1, False, "lesson.check.high", "13"),
        ("cy", 3, False, "lesson.trap.third", "6"),
        ("di", 1, True, "lesson.check.right", ""),
        ("di", 3, True, "lesson.check.right", ""),
    ]
    who = {n: cc.join(engine, code, n, NOW) for n in ["ann", "bo", "cy", "di", "ed"]}
    for i, (name, step, right, key, value) in enumerate(made):
        params = (("value", value),) if value else ()
        cc.record_check(engine, who[name], step, value or "12", right, key, params, NOW + i)
    return code, made


def test_the_dashboard_counts_students_not_clicks(db: tuple[sa.Engine, Db]) -> None:
    engine, _ = db
    code, made = _class_with_checks(engine)
    got = cc.summary(engine, code)
    assert got.joined == 5
    for counts in got.steps:
        mine = [m for m in made if m[1] == counts.step]
        assert counts.tried == len({m[0] for m in mine})
        assert counts.right == len({m[0] for m in mine if m[2]})
        slips = {}
        for name, _, right, key, value in mine:
            if not right:
                slips.setdefault((key, value), set()).add(name)
        assert {(s.verdict, dict(s.params).get("value", "")): s.students for s in counts.slips} == {
            k: len(v) for k, v in slips.items()
        }
    assert [c.step for c in got.steps] == [1, 3]
    first = got.steps[0].slips[0]
    assert (first.verdict, first.params, first.students) == (
        "lesson.trap.value",
        (("value", "8"),),
        2,
    )


def test_progress_is_the_servers_record(db: tuple[sa.Engine, Db]) -> None:
    engine, _ = db
    code, _ = _class_with_checks(engine)
    students = {s.nickname: s for s in _students(engine, code)}
    assert cc.done_steps(engine, students["ann"]) == {1}
    assert cc.done_steps(engine, students["di"]) == {1, 3}
    assert cc.done_steps(engine, students["cy"]) == frozenset()


def _students(engine: sa.Engine, code: str) -> list[cc.Student]:
    with engine.connect() as c:
        rows = c.execute(
            sa.text("SELECT id, code, nickname FROM classroom_students WHERE code = :c"),
            {"c": code},
        ).all()
    return [cc.Student(*r) for r in rows]


def test_the_students_unreadable_text_is_not_kept(db: tuple[sa.Engine, Db]) -> None:
    engine, raw = db
    code = cc.open_class(engine, NOW, rng=Random(7))
    ada = cc.join(engine, code, "ada", NOW)
    params = (("part", "<b>secret typed text</b>"), ("value", "8"), ("most", "9"))
    cc.record_check(engine, ada, 1, "x" * 1000, False, "lesson.answer.bad", params, NOW)
    [(answer, shown)] = raw.rows("SELECT answer, params FROM classroom_checks")
    assert len(answer) == cc.MAX_ANSWER and shown == '{"value": "8"}'


def test_reveal_export_and_delete(db: tuple[sa.Engine, Db]) -> None:
    engine, raw = db
    code, made = _class_with_checks(engine)
    cc.reveal(engine, code, 3)
    cc.reveal(engine, code, 3)
    assert cc.find_class(engine, code, NOW).revealed == {3}
    ev = cc.join(engine, code, "=cmd|' /C calc'!A0", NOW)
    cc.record_check(engine, ev, 2, "-1", False, "lesson.check.ran", (), NOW + 99)
    table = list(csv.reader(io.StringIO(cc.export_csv(engine, code))))
    assert table[0][:3] == ["nickname", "step", "answer"]
    assert [(r[0], int(r[1]), r[3] == "1") for r in table[1:-1]] == [
        (n, s, r) for n, s, r, _, _ in made
    ]
    assert table[-1][0] == "'=cmd|' /C calc'!A0" and table[-1][2] == "'-1"  # no formula
    other = cc.open_class(engine, NOW, rng=Random(8))
    cc.join(engine, other, "stays", NOW)
    cc.delete_class(engine, code)
    assert cc.find_class(engine, code, NOW) is None
    for table_name in ("classroom_checks", "classroom_students", "classroom_reveals"):
        assert raw.rows(f"SELECT count(*) FROM {table_name} WHERE code = '{code}'") == [(0,)]
    assert raw.rows("SELECT nickname FROM classroom_students") == [("stays",)]


def test_nothing_is_kept_past_its_days(db: tuple[sa.Engine, Db]) -> None:
    engine, raw = db
    short = cc.open_class(engine, NOW, days=1, rng=Random(9))
    usual = cc.open_class(engine, NOW, rng=Random(10))  # 30 days
    for code in (short, usual):
        s = cc.join(engine, code, "ada", NOW)
        cc.record_check(engine, s, 1, "12", True, "lesson.check.right", (), NOW)
    assert cc.purge(engine, NOW + cc.DAY - 1) == 0
    assert cc.purge(engine, NOW + cc.DAY) == 1
    assert cc.find_class(engine, short, NOW) is None and cc.find_class(engine, usual, NOW)
    assert raw.rows("SELECT DISTINCT code FROM classroom_checks") == [(usual,)]
    assert cc.purge(engine, NOW + cc.RETENTION_DAYS * cc.DAY) == 1
    assert raw.rows("SELECT count(*) FROM classroom_students") == [(0,)]
