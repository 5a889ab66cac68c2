"""Pause ("eyes on the projector"): stored per class in the class database, read with the
shared view in one look, gone with the class; a version-4 database (before the pause) brought
to version 5 with its classes running. SQLite and PostgreSQL (tests/labs/conftest.py).

The database is read back with plain SQL (sqlite3 or psycopg), not with the module under test."""

from __future__ import annotations

from random import Random

import pytest
import sqlalchemy as sa

from hograd_labs.classroom import compute as cc
from tests.labs.conftest import Db

NOW = 1_800_000_000.0


@pytest.fixture()
def db(plain_db: Db) -> tuple[sa.Engine, Db]:
    cc.create_schema(plain_db.engine)
    return plain_db.engine, plain_db


def _paused(raw: Db) -> dict[str, float | None]:
    return dict(raw.rows("SELECT code, paused FROM classroom_classes"))


def test_pause_and_resume_one_class_of_two(db: tuple[sa.Engine, Db]) -> None:
    engine, raw = db
    code = cc.open_class(engine, NOW, rng=Random(1))
    other = cc.open_class(engine, NOW, rng=Random(2))
    assert cc.live(engine, code, NOW) == cc.Live(None, False)
    assert _paused(raw) == {code: None, other: None}

    cc.set_paused(engine, code, True, NOW + 5)
    assert _paused(raw) == {code: NOW + 5, other: None}
    assert cc.find_class(engine, code, NOW + 6).paused
    assert not cc.find_class(engine, other, NOW + 6).paused
    assert cc.live(engine, code, NOW + 6) == cc.Live(None, True)  # paused before any share

    cc.set_paused(engine, code, True, NOW + 9)  # pressed twice: paused since the first time
    assert _paused(raw)[code] == NOW + 5

    cc.set_paused(engine, code, False, NOW + 20)
    assert _paused(raw) == {code: None, other: None}
    assert cc.live(engine, code, NOW + 21) == cc.Live(None, False)


def test_the_live_look_has_the_shared_view_and_the_pause(db: tuple[sa.Engine, Db]) -> None:
    engine, raw = db
    code = cc.open_class(engine, NOW, rng=Random(3))
    cc.share(engine, code, "hvp?hvp.fn=x", NOW)
    cc.share(engine, code, "graph", NOW + 1)
    cc.set_paused(engine, code, True, NOW + 2)
    assert cc.live(engine, code, NOW + 3) == cc.Live(cc.Shared("graph", 2), True)
    # what plain SQL says is what the look says
    assert raw.rows(
        f"SELECT s.link, s.serial, c.paused IS NOT NULL FROM classroom_classes c"
        f" JOIN classroom_shared s ON s.code = c.code WHERE c.code = '{code}'"
    ) == [("graph", 2, True)]
    cc.share(engine, code, "why?why.tab=pinn", NOW + 4)  # a share while paused: followers move
    assert cc.live(engine, code, NOW + 5) == cc.Live(cc.Shared("why?why.tab=pinn", 3), True)


def test_no_live_look_at_a_deleted_or_expired_class(db: tuple[sa.Engine, Db]) -> None:
    engine, raw = db
    code = cc.open_class(engine, NOW, days=1, rng=Random(4))
    cc.set_paused(engine, code, True, NOW)
    assert cc.live(engine, code, NOW + cc.DAY + 1) is None  # its day is over
    assert cc.live(engine, "ZZZZZZ", NOW) is None
    cc.delete_class(engine, code)
    assert cc.live(engine, code, NOW) is None
    assert raw.rows("SELECT count(*) FROM classroom_classes") == [(0,)]
    cc.set_paused(engine, code, True, NOW)  # the lecturer's click after the delete: no row made
    assert raw.rows("SELECT count(*) FROM classroom_classes") == [(0,)]


def test_a_version_4_database_gets_the_pause_and_keeps_its_class(
    db: tuple[sa.Engine, Db],
) -> None:
    engine, raw = db
    code = cc.open_class(engine, NOW, rng=Random(5), lang="zh")
    ada = cc.join(engine, code, "ada", NOW)
    cc.record_check(engine, ada, 1, "12", True, "lesson.check.right", (), NOW)
    cc.share(engine, code, "graph", NOW)
    raw.execute("ALTER TABLE classroom_classes DROP COLUMN paused")  # what version 4 made
    raw.execute("UPDATE hograd_schema SET version = 4")
    cc.create_schema(engine)
    engine.dispose()  # a fresh pool: the columns as the database has them now
    assert raw.rows("SELECT part, version FROM hograd_schema") == [("classroom", cc.SCHEMA_VERSION)]
    assert cc.SCHEMA_VERSION == 5
    info = cc.find_class(engine, code, NOW)
    assert info is not None and not info.paused and info.lang == "zh"
    assert cc.done_steps(engine, ada) == {1}
    cc.set_paused(engine, code, True, NOW + 1)
    assert cc.live(engine, code, NOW + 2) == cc.Live(cc.Shared("graph", 1), True)
    assert _paused(raw) == {code: NOW + 1}


def test_who_is_stuck(db: tuple[sa.Engine, Db]) -> None:
    """Stuck: two or more wrong Checks on a step and none right there, counted against the
    rows themselves (plain SQL below), per student and step."""
    engine, raw = db
    code = cc.open_class(engine, NOW, rng=Random(6))
    other = cc.open_class(engine, NOW, rng=Random(7))
    ada, bo, cy = (cc.join(engine, code, name, NOW) for name in ("ada", "bo", "cy"))
    elsewhere = cc.join(engine, other, "dee", NOW)
    wrong = lambda who, step, at: cc.record_check(  # a new wrong answer each time
        engine, who, step, str(at), False, "lesson.check.low", (("value", str(at)),), NOW + at
    )
    right = lambda who, step, at: cc.record_check(
        engine, who, step, "12", True, "lesson.check.right", (), NOW + at
    )
    for at in (1, 2, 3):
        wrong(ada, 1, at)  # three wrong, never right: stuck on step 1
    wrong(bo, 1, 4)
    wrong(bo, 1, 5)
    right(bo, 1, 6)  # right in the end: not stuck
    wrong(bo, 2, 7)
    wrong(bo, 2, 8)  # stuck on step 2, the latest
    wrong(cy, 1, 9)  # one wrong try: not yet
    for at in (1, 2):
        wrong(elsewhere, 1, at)  # another class
    assert cc.stuck(engine, code) == (
        cc.Stuck("ada", 1, 3, NOW + 3),
        cc.Stuck("bo", 2, 2, NOW + 8),
    )
    assert [s.nickname for s in cc.stuck(engine, code, least=1)] == ["ada", "bo", "cy"]
    oracle = raw.rows(
        "SELECT s.nickname, c.step, count(*) FROM classroom_checks c"
        " JOIN classroom_students s ON s.id = c.student"
        f" WHERE c.code = '{code}' AND NOT c.correct"
        " AND NOT EXISTS (SELECT 1 FROM classroom_checks r WHERE r.student = c.student"
        " AND r.step = c.step AND r.correct) GROUP BY s.nickname, c.step"
        " HAVING count(*) >= 2 ORDER BY s.nickname"
    )
    assert sorted((s.nickname, s.step, s.wrong) for s in cc.stuck(engine, code)) == oracle
    cc.reset_step(engine, code, 1)  # the lecturer clears step 1: nobody is stuck there
    assert cc.stuck(engine, code) == (cc.Stuck("bo", 2, 2, NOW + 8),)
