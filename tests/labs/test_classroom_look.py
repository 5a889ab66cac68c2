"""A student's page looks at its class twice a second (a revealed answer, a shared view, a
pause): cached.look shares one answer of the database among the sessions of a process for
LOOK_AGE seconds, and never hides a write.

The oracle is the database's own count of statements (SQLAlchemy's cursor event) and a write
made beside the module (another replica's, straight into the database); time is the test's
clock, so nothing here races a timer."""

from __future__ import annotations

from pathlib import Path
from random import Random

import pytest
import sqlalchemy as sa

from hograd_labs.classroom import cached
from hograd_labs.classroom import compute as cc

NOW = 1_800_000_000.0


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """(engine, code, statements, clock): a class in a fresh SQLite file that cached.call
    uses, the SELECTs run so far, and the look's clock (advance it by hand)."""
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'classroom.sqlite'}")
    cc.create_schema(engine)
    code = cc.open_class(engine, NOW, rng=Random(3))
    selects: list[str] = []

    @sa.event.listens_for(engine, "before_cursor_execute")
    def count(conn, cursor, statement, *rest) -> None:
        if statement.lstrip().upper().startswith("SELECT"):
            selects.append(statement)

    clock = [100.0]
    monkeypatch.setattr(cached, "engine", lambda: engine)
    monkeypatch.setattr(cached.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(cached.time, "time", lambda: NOW + clock[0])
    monkeypatch.setattr(cached, "_LOOKED", {})
    return engine, code, selects, clock


def test_looks_within_the_age_ask_the_database_once(db) -> None:
    engine, code, selects, clock = db
    first = cached.look(cc.live, code)
    asked = len(selects)
    assert asked >= 1
    for _ in range(50):  # fifty students of this replica within the same quarter second
        assert cached.look(cc.live, code) == first
    assert len(selects) == asked
    clock[0] += 1.5 * cached.LOOK_AGE  # old enough: asked again
    cached.look(cc.live, code)
    assert len(selects) == 2 * asked


def test_another_replicas_write_is_seen_once_the_answer_is_old(db) -> None:
    engine, code, selects, clock = db
    assert 1 not in cached.look(cc.find_class, code).revealed
    cc.reveal(engine, code, 1)  # the lecturer on another replica: not through this process
    clock[0] += cached.LOOK_AGE / 2
    assert 1 not in cached.look(cc.find_class, code).revealed  # at most LOOK_AGE late
    clock[0] += cached.LOOK_AGE
    assert 1 in cached.look(cc.find_class, code).revealed


@pytest.mark.parametrize(
    "write",
    [
        lambda code: cached.call(cc.reveal, code, 1),
        lambda code: cached.call(cc.set_paused, code, True, NOW),
        lambda code: cached.call(cc.share, code, "hvp?hvp.fn=x", NOW),
    ],
    ids=["reveal", "pause", "share"],
)
def test_a_write_of_this_process_is_seen_by_the_next_look_at_once(db, write) -> None:
    engine, code, selects, clock = db
    before = (cached.look(cc.find_class, code), cached.look(cc.live, code))
    write(code)  # the clock stands still: only the write can make the next look fresh
    after = (cached.look(cc.find_class, code), cached.look(cc.live, code))
    assert after != before
    assert after == (cc.find_class(engine, code, NOW + clock[0]), cc.live(engine, code, NOW))


def test_a_failed_look_is_not_kept(db, monkeypatch: pytest.MonkeyPatch) -> None:
    engine, code, selects, clock = db
    broken = sa.create_engine("sqlite:////nonexistent/folder/classroom.sqlite")
    monkeypatch.setattr(cached, "engine", lambda: broken)
    with pytest.raises(cc.ClassroomError):
        cached.look(cc.live, code)
    monkeypatch.setattr(cached, "engine", lambda: engine)
    assert cached.look(cc.live, code) == cc.live(engine, code, NOW)  # asked again at once


def test_only_reads_are_shared(db) -> None:
    engine, code, selects, clock = db
    with pytest.raises(AssertionError, match="writes"):
        cached.look(cc.reveal, code)  # type: ignore[arg-type]


def test_the_same_code_in_another_database_is_another_class(db, tmp_path, monkeypatch) -> None:
    engine, code, selects, clock = db
    assert 1 not in cached.look(cc.find_class, code).revealed
    other = sa.create_engine(f"sqlite:///{tmp_path / 'other.sqlite'}")
    cc.create_schema(other)
    assert cc.open_class(other, NOW, rng=Random(3)) == code  # the same seed, the same code
    cc.reveal(other, code, 1)
    monkeypatch.setattr(cached, "engine", lambda: other)  # a later test's database, at once
    assert 1 in cached.look(cc.find_class, code).revealed
