"""The view a lecturer shares with the class: stored per class, counted by a serial, deleted with
the class; and the version-1 database (before ``classroom_shared``) brought to version 2.

The database is read back with plain SQL (sqlite3 or psycopg), not with the module under test."""

from __future__ import annotations

from random import Random

import pytest
import sqlalchemy as sa

from hograd_labs.classroom import compute as cc
from tests.english import raises
from tests.labs.conftest import Db

NOW = 1_800_000_000.0


@pytest.fixture()
def db(plain_db: Db) -> tuple[sa.Engine, Db]:
    """SQLite and PostgreSQL (tests/labs/conftest.py), with the tables made."""
    cc.create_schema(plain_db.engine)
    return plain_db.engine, plain_db


def test_the_last_share_is_the_classs_view(db: tuple[sa.Engine, Db]) -> None:
    engine, raw = db
    code, other = (
        cc.open_class(engine, NOW, rng=Random(1)),
        cc.open_class(engine, NOW, rng=Random(2)),
    )
    assert cc.shared_view(engine, code) is None
    assert cc.share(engine, code, "hvp?hvp.fn=x%5E2", NOW) == 1
    assert cc.share(engine, code, "graph", NOW + 1) == 2
    assert cc.share(engine, code, "graph", NOW + 2) == 3  # the same view again: students move
    assert cc.share(engine, other, "why?why.tab=pinn", NOW) == 1
    assert cc.shared_view(engine, code) == cc.Shared("graph", 3)
    assert cc.shared_view(engine, other) == cc.Shared("why?why.tab=pinn", 1)
    assert raw.rows("SELECT code, link, serial FROM classroom_shared ORDER BY serial") == [
        (other, "why?why.tab=pinn", 1),
        (code, "graph", 3),
    ]
    cc.delete_class(engine, code)
    assert raw.rows("SELECT code FROM classroom_shared") == [(other,)]


@pytest.mark.parametrize("link", ["", "x" * (cc.MAX_LINK + 1), None])
def test_a_link_out_of_bounds_is_refused(db: tuple[sa.Engine, Db], link: object) -> None:
    engine, raw = db
    code = cc.open_class(engine, NOW, rng=Random(3))
    with raises(cc.ClassroomError, match=str(cc.MAX_LINK)):
        cc.share(engine, code, link, NOW)  # type: ignore[arg-type]
    assert raw.rows("SELECT count(*) FROM classroom_shared") == [(0,)]


def test_a_version_1_database_gets_the_shared_table(db: tuple[sa.Engine, Db]) -> None:
    engine, raw = db
    code = cc.open_class(engine, NOW, rng=Random(4))
    ada = cc.join(engine, code, "ada", NOW)
    cc.record_check(engine, ada, 1, "12", True, "lesson.check.right", (), NOW)
    raw.execute("DROP TABLE classroom_shared")
    raw.execute("DROP TABLE classroom_seats")
    raw.execute("UPDATE hograd_schema SET version = 1")  # what version 1 of the app made
    cc.create_schema(engine)
    assert raw.rows("SELECT part, version FROM hograd_schema") == [("classroom", cc.SCHEMA_VERSION)]
    assert cc.share(engine, code, "hvp", NOW) == 1
    assert cc.done_steps(engine, ada) == {1}  # what version 1 recorded is all there


def test_a_version_2_database_gets_seats_and_keeps_its_students(db: tuple[sa.Engine, Db]) -> None:
    """Version 2 (before seats): the table is made, what was recorded stays, a student who
    joined then has no seat to come back to (they join again), a new one has."""
    engine, raw = db
    code = cc.open_class(engine, NOW, rng=Random(5))
    raw.execute("DROP TABLE classroom_seats")
    raw.execute("UPDATE hograd_schema SET version = 2")
    raw.execute(
        f"INSERT INTO classroom_students (code, nickname, joined) VALUES ('{code}', 'ada', {NOW})"
    )  # joined under version 2
    cc.create_schema(engine)
    assert raw.rows("SELECT part, version FROM hograd_schema") == [("classroom", cc.SCHEMA_VERSION)]
    [(ada_id,)] = raw.rows("SELECT id FROM classroom_students")
    assert cc.summary(engine, code).joined == 1
    bob = cc.join(engine, code, "bob", NOW)
    assert cc.resume(engine, code, bob.seat, NOW) == bob
    assert raw.rows("SELECT student FROM classroom_seats") == [(bob.id,)]
    assert ada_id != bob.id


def test_a_newer_database_is_refused_and_left_alone(db: tuple[sa.Engine, Db]) -> None:
    engine, raw = db
    raw.execute("DROP TABLE classroom_shared")
    raw.execute("UPDATE hograd_schema SET version = 99")
    with raises(cc.ClassroomError, match="99"):
        cc.create_schema(engine)
    names = raw.tables()
    assert "classroom_shared" not in names  # nothing made in a database this app cannot read


def test_replicas_starting_together_make_the_tables_once(plain_db: Db) -> None:
    """Eight processes' first calls at once on an empty database: each one ends with the
    tables and one version row (on PostgreSQL the advisory lock orders them)."""
    from concurrent.futures import ThreadPoolExecutor

    engines = [sa.create_engine(plain_db.engine.url) for _ in range(8)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(cc.create_schema, engines))
    assert plain_db.rows("SELECT part, version FROM hograd_schema") == [
        ("classroom", cc.SCHEMA_VERSION)
    ]
    assert {"classroom_shared", "classroom_checks", "classroom_seats"} <= plain_db.tables()
    for engine in engines:
        engine.dispose()
