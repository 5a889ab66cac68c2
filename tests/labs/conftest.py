"""The class database's tests run on SQLite and, when a throwaway cluster can start here
(tests/postgres.py), on PostgreSQL: ``db`` gives an engine on a fresh database and a reader of
plain SQL that does not go through SQLAlchemy (sqlite3 or psycopg)."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from tests.postgres import cluster, fresh_database

Rows = Callable[[str], list[tuple]]


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    with cluster() as url:
        yield url


class Db:
    """An engine on a fresh database, and plain SQL on the same database."""

    def __init__(self, engine: sa.Engine, rows: Rows, tables: Callable[[], set[str]]) -> None:
        self.engine, self.rows, self.tables = engine, rows, tables

    def execute(self, sql: str) -> None:
        """A statement that returns no rows, committed."""
        self.rows(sql)


def _sqlite(path: Path) -> Db:
    def rows(sql: str) -> list[tuple]:
        with sqlite3.connect(path) as con:
            return con.execute(sql).fetchall()  # a statement without rows: []

    tables = lambda: {r[0] for r in rows("SELECT name FROM sqlite_master WHERE type='table'")}
    # SQLite waits for another thread's write, as the app's engine does (cached.py)
    engine = sa.create_engine(f"sqlite:///{path}", connect_args={"timeout": 60})
    return Db(engine, rows, tables)


def _postgres(url: str) -> Db:
    import psycopg

    plain = url.replace("postgresql+psycopg://", "postgresql://")

    def rows(sql: str) -> list[tuple]:
        with psycopg.connect(plain, autocommit=True) as con:
            cur = con.execute(sql)
            return [tuple(r) for r in cur.fetchall()] if cur.description else []

    tables = lambda: {
        r[0]
        for r in rows(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
        )
    }
    return Db(sa.create_engine(url), rows, tables)


@pytest.fixture(params=["sqlite", "postgresql"])
def plain_db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Db]:
    """A fresh, empty class database (no tables yet) on either engine."""
    if request.param == "sqlite":
        db = _sqlite(tmp_path / "classroom.sqlite")
    else:
        name = "t_" + re.sub(r"[^a-z0-9]+", "_", request.node.name.lower())[:50]
        db = _postgres(fresh_database(request.getfixturevalue("postgres_url"), name))
    yield db
    db.engine.dispose()
