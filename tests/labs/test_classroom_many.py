"""A class of 100 simulated students at once, on one SQLite file and on PostgreSQL
(tests/labs/conftest.py), from 16 threads as a server's sessions would write: every join gets its own nickname (all chose the same one), every Check is
kept, and the dashboard's counts equal the ones the simulation itself drew."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from random import Random

import pytest

from hograd_labs.classroom import compute as cc
from tests.labs.conftest import Db

NOW = 1_800_000_000.0
STUDENTS = 100


def test_a_hundred_students_at_once(plain_db: Db, monkeypatch: pytest.MonkeyPatch) -> None:
    engine = plain_db.engine
    looks = []  # each look for a free name: on PostgreSQL joins take turns, so one per student
    free_name = cc._free_name
    monkeypatch.setattr(cc, "_free_name", lambda *a: looks.append(1) or free_name(*a))
    cc.create_schema(engine)
    code = cc.open_class(engine, NOW, rng=Random(0))
    rng = Random(38)
    # what each student will do on step 1: a slip first or not, then right or not
    plans = [(rng.random() < 0.5, rng.random() < 0.7) for _ in range(STUDENTS)]

    def student(plan: tuple[bool, bool]) -> str:
        slip, right = plan
        me = cc.join(engine, code, "Ada", NOW)
        if slip:
            cc.record_check(engine, me, 1, "8", False, "lesson.trap.value", (("value", "8"),), NOW)
        if right:
            cc.record_check(engine, me, 1, "12", True, "lesson.check.right", (), NOW)
        return me.nickname

    with ThreadPoolExecutor(max_workers=16) as pool:
        names = list(pool.map(student, plans))
    assert len(set(names)) == STUDENTS
    assert set(names) == {"Ada"} | {f"Ada {n}" for n in range(2, STUDENTS + 1)}
    if engine.dialect.name == "postgresql":
        assert len(looks) == STUDENTS  # no join lost a race and looked again
    got = cc.summary(engine, code)
    assert got.joined == STUDENTS
    [step] = got.steps
    assert step.tried == sum(1 for slip, right in plans if slip or right)
    assert step.right == sum(1 for _, right in plans if right)
    assert [(s.verdict, s.students) for s in step.slips] == [
        ("lesson.trap.value", sum(1 for slip, _ in plans if slip))
    ]
    # every Check is one row: none lost, none written twice (counted with plain SQL)
    made = sum(slip + right for slip, right in plans)
    assert plain_db.rows("SELECT count(*) FROM classroom_checks") == [(made,)]
