"""A class on two replicas behind haproxy, sharing one PostgreSQL (a throwaway cluster,
tests/postgres.py): students (Streamlit's websocket protocol, benchmarks/st_client.py) land on
both replicas (X-Hograd-Replica), join and Check.

First PostgreSQL stops and starts again while 30 students answer (benchmarks/class_load.py's
class, issue 45): no Check is lost or stored twice, no student leaves the class, every Check
the page reports recorded is in the database when it says so, and each student ends seated,
with every Check recorded and step 1 done. Then every Check is one row, and the counts (the lecturer's
dashboard, a client on r2 with the teacher's key, and compute.summary) equal the ones the
students made; replica r1 is killed mid-class: nothing recorded is lost, its students reconnect
to r2 from the same address (their seat in it), sit down again as themselves without being
asked for a nickname, and every later Check is recorded once too; Check pressed again on the
answer recorded before the death, from the new session, is not recorded a second time.

The oracle is the list of Checks the tests made; the rows are counted with psycopg. The
module's deployment is shared; the test that kills r1 is the last."""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
import sqlalchemy as sa

from hograd_labs.classroom import compute as cc
from tests.postgres import cluster, fresh_database

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "deploy"))

from replicas import Replicas  # noqa: E402

from benchmarks import class_load  # noqa: E402
from benchmarks.st_client import StreamlitClient  # noqa: E402

pytestmark = pytest.mark.skipif(
    shutil.which("haproxy") is None and not os.environ.get("CI"),
    reason="haproxy is not installed (make test installs it)",
)
STUDENTS = 6
KEY = "replicas-test-teacher-key-0123456789"
CLASS = 30  # the students answering through the restart


@pytest.fixture(scope="module")
def deployment() -> Iterator[tuple[str, Replicas]]:
    """One PostgreSQL cluster (its database's URL) and two replicas behind haproxy using it."""
    with cluster() as server:
        url = fresh_database(server, "replicas")
        env = {"HOGRAD_CLASSROOM_URL": url, "HOGRAD_TEACHER_KEY": KEY}
        with Replicas(2, env=env, replica_header=True) as group:
            yield url, group


@pytest.fixture
def engine(deployment: tuple[str, Replicas]) -> Iterator[sa.Engine]:
    """The class database, for compute's own reads; disposed after the test, failed or not
    (its open connections would otherwise be collected, and warned of, in a later test)."""
    made = sa.create_engine(deployment[0])
    yield made
    made.dispose()


def _rows(url: str, sql: str, params: tuple = ()) -> list[tuple]:
    import psycopg

    with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://")) as con:
        return [tuple(r) for r in con.execute(sql, params).fetchall()]


def _join(url: str, code: str, name: str) -> StreamlitClient:
    client = StreamlitClient(url, timeout=120)
    assert client.open("lesson", f"class={code}&lang=en").status == "ok", client.exceptions
    client.set_value("classroom.nickname", name)
    client.click("classroom.join")
    assert client.rerun().status == "ok" and not client.exceptions, client.exceptions
    assert "lesson.ans.grad" in client.keys(), client.text()  # noqa: SIM118 (a method)
    return client


def _joined(teacher: StreamlitClient) -> str:
    """The dashboard's "Students joined" number."""
    return next(p.body for t, p in teacher.elements.values() if t == "metric")


def _check(client: StreamlitClient, value: str) -> None:
    client.set_value("lesson.ans.grad", value)
    client.click("lesson.check.grad")
    assert client.rerun().status == "ok" and not client.exceptions, client.exceptions


def test_a_postgresql_restart_during_30_students_answers(
    deployment: tuple[str, Replicas], engine: sa.Engine
) -> None:
    """PostgreSQL stops (``pg_ctl stop -m fast``) once every student joined and a third of
    the Checks are recorded, and starts again once 5 Checks were made while it was down
    (events, not seconds: Checks certainly meet the blip). Every student keeps answering
    (8, 13, then 12, right) and waits until the page reports their Checks recorded; then the
    lecturer reveals the answer and shares a view, and every student's page shows both."""
    url, group = deployment
    out, people = class_load.lesson(
        group.url, url, CLASS, think=2.0, seed=45, key=KEY, restart_after=CLASS, hold=5
    )
    blip = out["restart"]
    assert "restart_failed" not in blip and blip["restart_waited_for_its_event"], f"{out}"
    # in the middle: a student with a Check after the one in flight when it stopped
    assert blip["acked_before_restart"] >= CLASS and blip["left_when_down"] > CLASS, f"{out}"
    assert blip["refused_while_down"] >= 1, f"{out}"  # Checks met the blip
    assert out["failed"] == 0, f"{out}"
    assert out["checks"] == CLASS * len(class_load.ANSWERS)
    assert (out["lost"], out["doubled"]) == (0, 0), f"{out}"
    assert (out["removed"], out["joined_twice"]) == (0, 0), f"{out}"
    assert out["said_recorded_not_stored"] == 0, f"{out}"
    assert out["said_none"] == 0 and out["unacknowledged"] == 0, f"{out}"
    # after the blip, the lecturer's Reveal reached every page, and so did the Share of the
    # HVP page (each student's page opened it): followers on both replicas
    assert "reveal_failed" not in out and "share_failed" not in out, f"{out}"
    assert (out["revealed"], out["followed"]) == (CLASS, CLASS), f"{out}"
    seated = {
        "in_class": True,
        "offline": False,
        "waiting": False,
        "recorded": True,
        "asked_nickname": False,
        "step_1_done": True,
        "link_kept": True,
    }
    for p in people:
        assert p.made == list(class_load.ANSWERS) and p.final == seated, (p.name, p.final)
    code = out["code"]
    rows = _rows(
        url,
        "SELECT s.nickname, s.id, c.answer, c.correct FROM classroom_checks c "
        "JOIN classroom_students s ON s.id = c.student WHERE s.code = %s ORDER BY c.id",
        (code,),
    )
    for p in people:  # each Check once, in order, under the one student the seat finds
        mine = [(i, a, ok) for name, i, a, ok in rows if name == p.name]
        assert [(a, ok) for _, a, ok in mine] == [("8", False), ("13", False), ("12", True)]
        student = cc.resume(engine, code, p.seat, time.time())
        assert student is not None and {i for i, _, _ in mine} == {student.id}
        assert student.nickname == p.name and cc.done_steps(engine, student) == {1}
    counts = cc.summary(engine, code)
    assert counts.joined == CLASS
    assert (counts.steps[0].tried, counts.steps[0].right) == (CLASS, CLASS)
    assert out["dashboard_last"] == [CLASS, CLASS]  # the lecturer's dashboard came back


def test_a_class_on_two_replicas_and_one_postgresql(
    deployment: tuple[str, Replicas], engine: sa.Engine
) -> None:
    url, group = deployment
    # the lecturer, on r2 (a browser whose cookie names it), which stays up
    teacher = StreamlitClient(group.url, timeout=120, cookies={"HOGRAD_REPLICA": "r2"})
    assert teacher.open("lesson", f"key={KEY}&lang=en").status == "ok"
    teacher.click("classroom.open")
    assert teacher.rerun().status == "ok" and not teacher.exceptions
    [link] = [c for c in teacher.codes if "class=" in c]
    code = parse_qs(urlparse(link).query)["class"][0]
    students = [_join(group.url, code, f"s{i}") for i in range(STUDENTS)]
    where = [s.cookie("HOGRAD_REPLICA") for s in students]
    for s, replica in zip(students, where, strict=True):
        assert set(s.replicas_seen) == {replica}  # every answer from its replica
    made = []  # (nickname, value) of every Check
    for i, s in enumerate(students):
        for value in ("8", "12") if i % 2 else ("12",):
            _check(s, value)
            made.append((f"s{i}", value))
    rows = _rows(
        url,
        "SELECT s.nickname, c.answer FROM classroom_checks c "
        "JOIN classroom_students s ON s.id = c.student WHERE s.code = %s ORDER BY c.id",
        (code,),
    )
    assert sorted(rows) == sorted(made)  # one row per Check: none lost, none doubled
    counts = cc.summary(engine, code)
    assert teacher.rerun().status == "ok"  # the lecturer's dashboard, on its replica
    assert _joined(teacher) == str(STUDENTS)
    assert counts.joined == STUDENTS
    assert (counts.steps[0].tried, counts.steps[0].right) == (STUDENTS, STUDENTS)

    assert where.count("r1") >= 2 and where.count("r2") >= 2
    group.kill("r1")  # mid-class
    kept = _rows(url, "SELECT answer FROM classroom_checks WHERE code = %s", (code,))
    assert sorted(kept) == sorted((v,) for _, v in made)  # all still there
    for i, (s, replica) in enumerate(zip(students, where, strict=True)):
        if replica == "r1":  # Streamlit's reconnect: a new session on r2, same address
            address = s.query_string
            assert "seat=" in address
            s.close()
            s.forget_session()
            assert s.open("lesson", address).status == "ok", s.exceptions
            assert not s.exceptions and s.cookie("HOGRAD_REPLICA") == "r2"
            assert "classroom.nickname" not in s.keys()  # noqa: SIM118 (a method); seated again
            assert f"s{i}" in s.text()  # as the same student
        _check(s, "12")  # Check again on the answer already recorded: the same attempt
        _check(s, "13")
        made.append((f"s{i}", "13"))
    total = _rows(url, "SELECT count(*) FROM classroom_checks WHERE code = %s", (code,))
    assert total == [(len(made),)]
    rows = _rows(
        url,
        "SELECT s.nickname, c.answer FROM classroom_checks c "
        "JOIN classroom_students s ON s.id = c.student WHERE s.code = %s ORDER BY c.id",
        (code,),
    )
    assert sorted(rows) == sorted(made)  # each Check under the student who made it
    assert cc.summary(engine, code).joined == STUDENTS  # nobody joined twice
    assert teacher.rerun().status == "ok"  # the lecturer's dashboard, after the death
    assert set(teacher.replicas_seen) == {"r2"}
    assert _joined(teacher) == str(STUDENTS)
    teacher.close()
    for s in students:
        s.close()
