"""Checks across storage errors: a Check is stored once however often it is sent again (its
id), also when the error came after the database had stored it (the answer to COMMIT lost);
and a PostgreSQL restart in the middle of 30 students' answers loses no Check and removes no
student.

The oracle is the list of Checks the test made, counted in Python; the database is read back
with plain SQL (sqlite3 or psycopg), not with the module under test."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from random import Random

import sqlalchemy as sa

from hograd_labs.classroom import compute as cc
from tests.english import raises
from tests.labs.conftest import Db
from tests.postgres import restart

NOW = 1_800_000_000.0


class _LostAnswer:
    """A sqlite3 connection whose COMMIT stores, then fails as a dropped connection would
    (``lose`` times), so the caller cannot tell whether the Check was stored."""

    lose = 0

    def __init__(self, con: sqlite3.Connection) -> None:
        self._con = con

    def commit(self) -> None:
        self._con.commit()
        if _LostAnswer.lose:
            _LostAnswer.lose -= 1
            raise sqlite3.OperationalError("disk I/O error after COMMIT")

    def __getattr__(self, name: str) -> object:
        return getattr(self._con, name)


def test_a_check_whose_commit_answer_is_lost_is_stored_once(tmp_path: Path) -> None:
    path = tmp_path / "classroom.sqlite"
    engine = sa.create_engine(
        "sqlite://", creator=lambda: _LostAnswer(sqlite3.connect(path, timeout=60))
    )
    cc.create_schema(engine)
    code = cc.open_class(engine, NOW, rng=Random(1))
    ada = cc.join(engine, code, "ada", NOW)
    waiting = (
        cc.Pending(
            cc.check_id(), code, ada.id, ada.seat, 1, "12", True, "lesson.check.right", (), NOW
        ),
        cc.Pending(cc.check_id(), code, 0, ada.seat, 2, "-1", False, "lesson.check.low", (), NOW),
    )
    _LostAnswer.lose = 1
    left = cc.record_pending(engine, waiting, NOW)  # the first is stored; its answer lost
    assert left == waiting
    left = cc.record_pending(engine, left, NOW)  # sent again, with the same ids
    assert left == ()
    with sqlite3.connect(path) as con:
        rows = con.execute("SELECT student, step, answer, cid FROM classroom_checks").fetchall()
    assert sorted(rows) == sorted(
        [(ada.id, 1, "12", waiting[0].cid), (ada.id, 2, "-1", waiting[1].cid)]
    )
    engine.dispose()


def test_a_check_id_is_what_the_app_makes(tmp_path: Path) -> None:
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'c.sqlite'}")
    cc.create_schema(engine)
    code = cc.open_class(engine, NOW, rng=Random(2))
    ada = cc.join(engine, code, "ada", NOW)
    for bad in ["x", "'; DROP TABLE classroom_checks; --", "G" * 32, 7]:
        with raises(cc.ClassroomError, match="32"):
            cc.record_check(engine, ada, 1, "1", True, "k", (), NOW, cid=bad)  # type: ignore[arg-type]
    engine.dispose()


def test_a_version_3_database_gets_check_ids(plain_db: Db) -> None:
    """Version 3 (before Check ids): the column and its index are added, old rows stay."""
    engine, raw = plain_db.engine, plain_db
    cc.create_schema(engine)
    code = cc.open_class(engine, NOW, rng=Random(3))
    ada = cc.join(engine, code, "ada", NOW)
    cc.record_check(engine, ada, 1, "12", True, "lesson.check.right", (), NOW)
    raw.execute("DROP INDEX ix_classroom_checks_cid")
    raw.execute("ALTER TABLE classroom_checks DROP COLUMN cid")
    raw.execute("UPDATE hograd_schema SET version = 3")
    cc.create_schema(engine)
    assert raw.rows("SELECT version FROM hograd_schema") == [(cc.SCHEMA_VERSION,)]
    item = cc.Pending(cc.check_id(), code, ada.id, ada.seat, 2, "1", False, "k", (), NOW)
    assert cc.record_pending(engine, (item, item), NOW) == ()
    assert raw.rows("SELECT step, cid FROM classroom_checks ORDER BY id") == [
        (1, None),
        (2, item.cid),
    ]


STUDENTS, CHECKS = 30, 12  # each student's Checks, one every few milliseconds


def test_a_postgresql_restart_during_answers_loses_no_check(postgres_url: str) -> None:
    """30 students answer at once, each as the page does (a Check joins the student's waiting
    list, the list is sent; what the database refused waits for the next Check or the next
    try); ``pg_ctl restart -m fast`` once a third of the Checks are in. Afterwards every
    Check the students made is in the database exactly once, and every seat finds its
    student."""
    from tests.postgres import fresh_database

    url = fresh_database(postgres_url, "t_restart_during_answers")
    engine = sa.create_engine(url)
    cc.create_schema(engine)
    code = cc.open_class(engine, NOW, rng=Random(4))
    seated = [cc.join(engine, code, f"s{i}", NOW) for i in range(STUDENTS)]
    made: list[str] = []
    refused = [0]  # sends that left Checks waiting: the restart must have been felt
    errors: list[BaseException] = []
    third, restarted = threading.Event(), threading.Event()
    lock = threading.Lock()

    def student(me: cc.Student) -> None:
        waiting: tuple[cc.Pending, ...] = ()
        try:
            for n in range(CHECKS):
                item = cc.Pending(
                    cc.check_id(), code, me.id, me.seat, n % 7 + 1, str(n), n % 2 == 0, "k", (), NOW
                )
                with lock:
                    made.append(item.cid)
                    if len(made) >= STUDENTS * CHECKS // 3:
                        third.set()
                waiting = cc.record_pending(engine, (*waiting, item), NOW)
                refused[0] += bool(waiting)
                if n == CHECKS // 2:
                    restarted.wait(120)  # half of them answered; the rest after the restart
            for _ in range(240):  # the retry fragment's tries, every half second
                if not waiting:
                    break
                waiting = cc.record_pending(engine, waiting, NOW)
                threading.Event().wait(0.5)
            assert waiting == ()
        except BaseException as err:  # reported below
            errors.append(err)

    threads = [threading.Thread(target=student, args=(me,)) for me in seated]
    for th in threads:
        th.start()
    assert third.wait(120)
    restart(url)
    restarted.set()
    for th in threads:
        th.join(300)
    assert not errors, errors[:3]
    assert refused[0] >= 1  # the restart cut connections in use or pooled
    with engine.connect() as c:
        stored = c.execute(sa.text("SELECT cid FROM classroom_checks")).scalars().all()
    assert len(stored) == len(made) == STUDENTS * CHECKS
    assert sorted(stored) == sorted(made)  # each once
    for me in seated:
        assert cc.resume(engine, code, me.seat, NOW) == me
    engine.dispose()


def test_the_same_answer_checked_again_is_one_attempt_until_a_reset(plain_db: Db) -> None:
    """A Check that says what the student's last recorded Check of the step says is not stored
    again (a double tap); a changed answer, the earlier answer again after another one,
    another student's or another step's Check, and the same answer after the lecturer's reset
    are. Counted against the Checks made, read back with plain SQL."""
    engine, raw = plain_db.engine, plain_db
    cc.create_schema(engine)
    code = cc.open_class(engine, NOW, rng=Random(4))
    ada, bo = (cc.join(engine, code, name, NOW) for name in ("ada", "bo"))

    def check(who: cc.Student, step: int, answer: str) -> None:
        right, key = (True, "lesson.check.right") if answer == "12" else (False, "k")
        params = () if right else (("value", answer),)
        cc.record_check(engine, who, step, answer, right, key, params, NOW, cid=cc.check_id())

    for who, step, answer in [
        (ada, 1, "8"),
        (ada, 1, "8"),  # Check pressed again: the same attempt
        (ada, 1, "12"),
        (ada, 1, "8"),  # back to an earlier answer: a new attempt
        (ada, 1, "8"),
        (bo, 1, "8"),
        (ada, 2, "8"),
        (ada, 2, "8"),
    ]:
        check(who, step, answer)
    stored = "SELECT student, step, answer FROM classroom_checks ORDER BY id"
    made = [(ada.id, 1, "8"), (ada.id, 1, "12"), (ada.id, 1, "8"), (bo.id, 1, "8")]
    assert raw.rows(stored) == [*made, (ada.id, 2, "8")]

    assert cc.reset_step(engine, code, 1) == len(made)
    check(ada, 1, "8")  # the same answer as before the reset: recorded afresh
    check(ada, 1, "8")
    assert raw.rows(stored) == [(ada.id, 2, "8"), (ada.id, 1, "8")]


def test_one_check_sent_at_once_from_two_places_is_stored_once(plain_db: Db) -> None:
    """The same Check from 8 threads at once (8 ids, as two replicas that each got the click
    would send it), 20 times over with another answer each time: one row each time (without
    the student's row lock, PostgreSQL stored 2-8 rows in 31 of 40 such rounds); 8 different
    answers at once: 8 rows."""
    engine, raw = plain_db.engine, plain_db
    cc.create_schema(engine)
    code = cc.open_class(engine, NOW, rng=Random(5))
    ada = cc.join(engine, code, "ada", NOW)
    errors: list[BaseException] = []

    def together(answers: list[str]) -> None:
        start = threading.Barrier(len(answers))

        def send(answer: str) -> None:
            try:
                start.wait()
                cc.record_check(engine, ada, 1, answer, False, "k", (), NOW, cid=cc.check_id())
            except BaseException as err:  # reported below
                errors.append(err)

        threads = [threading.Thread(target=send, args=(a,)) for a in answers]
        for th in threads:
            th.start()
        for th in threads:
            th.join()

    rounds = [f"r{n}" for n in range(20)]
    for answer in rounds:
        together([answer] * 8)
    assert errors == []
    assert sorted(raw.rows("SELECT answer FROM classroom_checks")) == sorted((a,) for a in rounds)
    together([str(n) for n in range(10, 18)])
    assert errors == []
    assert sorted(raw.rows("SELECT answer FROM classroom_checks")) == sorted(
        [*((a,) for a in rounds), *((str(n),) for n in range(10, 18))]
    )
