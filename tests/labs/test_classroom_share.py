"""The view a lecturer shares with the class: stored per class, counted by a serial, deleted with
the class; and the version-1 database (before ``classroom_shared``) brought to version 2.

The database is read back with plain SQL (sqlite3), not with the module under test."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from random import Random

import pytest
import sqlalchemy as sa

from hograd_labs.classroom import compute as cc

NOW = 1_800_000_000.0


@pytest.fixture()
def db(tmp_path: Path) -> tuple[sa.Engine, Path]:
    path = tmp_path / "classroom.sqlite"
    engine = sa.create_engine(f"sqlite:///{path}")
    cc.create_schema(engine)
    return engine, path


def _rows(path: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(path) as con:
        return con.execute(sql).fetchall()


def test_the_last_share_is_the_classs_view(db: tuple[sa.Engine, Path]) -> None:
    engine, path = db
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
    assert _rows(path, "SELECT code, link, serial FROM classroom_shared ORDER BY serial") == [
        (other, "why?why.tab=pinn", 1), (code, "graph", 3)
    ]  # fmt: skip
    cc.delete_class(engine, code)
    assert _rows(path, "SELECT code FROM classroom_shared") == [(other,)]


@pytest.mark.parametrize("link", ["", "x" * (cc.MAX_LINK + 1), None])
def test_a_link_out_of_bounds_is_refused(db: tuple[sa.Engine, Path], link: object) -> None:
    engine, path = db
    code = cc.open_class(engine, NOW, rng=Random(3))
    with pytest.raises(cc.ClassroomError, match=str(cc.MAX_LINK)):
        cc.share(engine, code, link, NOW)  # type: ignore[arg-type]
    assert _rows(path, "SELECT count(*) FROM classroom_shared") == [(0,)]


def test_a_version_1_database_gets_the_shared_table(db: tuple[sa.Engine, Path]) -> None:
    engine, path = db
    code = cc.open_class(engine, NOW, rng=Random(4))
    ada = cc.join(engine, code, "ada", NOW)
    cc.record_check(engine, ada, 1, "12", True, "lesson.check.right", (), NOW)
    with sqlite3.connect(path) as con:  # what version 1 of the app made
        con.execute("DROP TABLE classroom_shared")
        con.execute("UPDATE hograd_schema SET version = 1")
    cc.create_schema(engine)
    assert _rows(path, "SELECT part, version FROM hograd_schema") == [("classroom", 2)]
    assert cc.share(engine, code, "hvp", NOW) == 1
    assert cc.done_steps(engine, ada) == {1}  # what version 1 recorded is all there


def test_a_newer_database_is_refused_and_left_alone(db: tuple[sa.Engine, Path]) -> None:
    engine, path = db
    with sqlite3.connect(path) as con:
        con.execute("DROP TABLE classroom_shared")
        con.execute("UPDATE hograd_schema SET version = 3")
    with pytest.raises(cc.ClassroomError, match="3"):
        cc.create_schema(engine)
    names = {r[0] for r in _rows(path, "SELECT name FROM sqlite_master WHERE type='table'")}
    assert "classroom_shared" not in names  # nothing made in a database this app cannot read
