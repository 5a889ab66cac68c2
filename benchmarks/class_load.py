"""A class of N students on R replicas behind haproxy and one PostgreSQL, over Streamlit's own
websocket protocol (benchmarks/st_client.py): what a lecture hall does to the class features.

The lecturer opens a class (with the server's teacher key) and keeps the lesson page open, its
dashboard refreshing as the browser's timer does (the fragment's ``run_every``, polled at its
own interval). N students open the class link at random moments in the first seconds, join with
a nickname and Check step 1 three times with a think time in between (8, f(2): a known slip;
13, too high; then 12, right). Measured:

* ``check_ms``: a Check as the student sees it, from the click to the end of its script run
  (p50, p95, max over every Check);
* ``dashboard_staleness_s``: for every student's first Check and every right answer, how long
  after the student saw their Check recorded the lecturer's dashboard counted it (the end of
  the first refresh whose count includes it; p50, p95, max);
* ``checks_per_s``: Checks recorded per second over the class's busiest 10 s (each is one
  row written; a join writes two more);
* ``lost`` / ``doubled``: the Checks made against the rows PostgreSQL holds (read with psycopg,
  not through the app);
* ``reveal_s``: once every student has answered, the lecturer clicks Reveal; for each student,
  from the click to the end of the first run of their page that shows the answer (p50, p95,
  max; ``revealed``: how many saw it);
* ``follow_s``: then every student switches "Follow the lecturer" on, and the lecturer opens
  ``--share`` (the HVP page) and clicks Share; for each student, from the click to the end of
  the run that opened the shared page (``followed``: how many moved).

Every student's page fires its own timers as a browser does (the fragments' ``run_every``: the
look for a revealed answer twice a second, the follower's look once a second, the retry of a
waiting Check), between Checks too, so the Checks are measured under the class's own polling.

With ``--restart-after K`` PostgreSQL is restarted (``pg_ctl restart -m fast``, as issue 45's
reporter did) once every student has joined and K Checks are reported recorded, while the
others are still answering; ``--hold H`` instead stops it (``pg_ctl stop -m fast``) and starts
it again only once H Checks were made while it was down (events, not seconds: the blip is
certainly felt by Checks). The students then start answering once all have joined (however
slowly the joins go, the restart meets them answering), and after the last Check each student
waits until the page reports every Check recorded.
Counted besides:

* ``removed``: students whose page left the class (the link lost ``class=`` or their
  ``seat=``, the nickname asked again, or the page shows no class) or who were joined twice;
* ``said_recorded_not_stored``: Checks the page reported recorded ("Your Check on step 1 is
  recorded in the class") that PostgreSQL did not hold at that moment (read right then: only
  the student's own session, driven by this client, writes their Checks);
* ``said_waiting_stored``: Checks the page reported not yet recorded ("Not yet recorded: ...")
  that PostgreSQL already held (an answer to COMMIT lost); harmless when the retry is
  idempotent, a false "not recorded" otherwise; ``said_waiting`` counts every such report;
* ``unacknowledged``: Checks made that the page never reported recorded;
* ``waiting_until_recorded_s``: for each Check reported not yet recorded, how long until the
  page reported it recorded (p50, p95, max).

Usage::

    python -m benchmarks.class_load --students 100 --replicas 2   # the issue's class (~3 min)
    python -m benchmarks.class_load --students 20 --replicas 1 --json
    python -m benchmarks.class_load --students 30 --replicas 2 --restart-after 30

Needs haproxy and PostgreSQL's server binaries (``make debian`` installs both). Prints figures,
asserts nothing: the tests (tests/deploy/test_classroom_replicas.py) check the behaviour.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import re
import statistics
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "deploy"))

import replicas  # noqa: E402
from replicas import Replicas  # noqa: E402

from benchmarks.st_client import StreamlitClient  # noqa: E402
from hograd_ui.i18n import catalogue, tr  # noqa: E402
from tests.postgres import cluster, fresh_database, restart, start, stop  # noqa: E402

KEY = "class-load-benchmark-teacher-key-0123456789"
ANSWERS = ("8", "13", "12")  # a known slip, too high, right
#: seconds a student waits, at most, for the page to report their Checks recorded, and the
#: ceiling of every other wait for an event (a busy host: generous)
CEILING = 300.0


def _shown(key: str) -> re.Pattern[str]:
    """The English text of ``key`` with each ``{placeholder}`` matching any text."""
    parts = re.split(r"\{[a-z_]+\}", catalogue("en")[key])
    return re.compile("(.+?)".join(map(re.escape, parts)) + r"\Z", re.S)


UNRECORDED = _shown("classroom.unrecorded")  # "Not yet recorded: {n} Check(s) ..."
REVEALED = _shown("classroom.revealed")  # "The lecturer revealed the answer. {answer}"
OFFLINE = _shown("classroom.offline")  # "The class database does not answer just now. ..."


@dataclass
class Student:
    name: str
    checks_ms: list[float] = field(default_factory=list)
    done: list[float] = field(default_factory=list)  # when each Check's run ended (monotonic)
    replica: str = ""
    failed: str = ""
    seat: str = ""  # the seat the join put in the link
    made: list[str] = field(default_factory=list)  # the answers Checked (runs that ended)
    said: list[str] = field(default_factory=list)  # per Check: "recorded", "waiting", "none"
    acked: int = 0  # the first ``acked`` Checks the page has reported recorded
    said_recorded_not_stored: list[str] = field(default_factory=list)
    said_waiting_stored: list[str] = field(default_factory=list)
    removed: str = ""  # the first sign that the student left the class, if any
    unrecorded_since: dict[int, float] = field(default_factory=dict)  # Check -> when said so
    unrecorded_s: list[float] = field(default_factory=list)  # "not yet recorded" -> recorded
    final: dict[str, bool] = field(default_factory=dict)  # the page at the end (:func:`_final`)
    reveal_s: float | None = None  # Reveal clicked -> the answer on this student's page
    follow_s: float | None = None  # Share clicked -> this student's page on the shared view
    polls: int = 0  # the page's timers fired (fragment runs)
    moves: set[str] = field(default_factory=set)  # the steps of :class:`Moves` done with


class _Events:
    """Counts that threads add to and wait on, under one condition (``changed``)."""

    changed: threading.Condition

    def add(self, **counts: int) -> None:
        with self.changed:
            for name, n in counts.items():
                setattr(self, name, getattr(self, name) + n)
            self.changed.notify_all()

    def wait_for(self, predicate: Callable[[Any], bool], seconds: float) -> bool:
        with self.changed:
            return self.changed.wait_for(lambda: predicate(self), timeout=seconds)


@dataclass
class Moves(_Events):
    """The lecture after the answers, as events (one lock): every student has answered, the
    lecturer reveals step 1; every student has seen it (or failed) and follows, the lecturer
    shares ``page``."""

    students: int
    page: str = "hvp"
    answered: int = 0  # students done answering (or failed before)
    seen: int = 0  # students who saw the reveal (or gave up, or failed)
    following: int = 0  # students whose follow is on (or failed)
    moved: int = 0  # students on the shared page (or gave up, or failed)
    revealed_at: float | None = None  # monotonic: when the lecturer clicked Reveal
    shared_at: float | None = None  # when the lecturer clicked Share
    changed: threading.Condition = field(default_factory=threading.Condition)

    def mark(self, name: str) -> None:
        """``name`` (revealed_at, shared_at) happened now."""
        with self.changed:
            setattr(self, name, time.monotonic())
            self.changed.notify_all()


@dataclass
class Tally(_Events):
    """What the students have done so far, for the restart's events (one lock)."""

    students: int
    joined: int = 0  # joined, or failed before joining
    acked: int = 0  # Checks reported recorded
    left: int = 0  # Checks still to be made
    refused: int = 0  # Checks made while PostgreSQL was stopped (``hold``)
    down: bool = False
    changed: threading.Condition = field(default_factory=threading.Condition)


def _percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"p50": float("nan"), "p95": float("nan"), "max": float("nan")}
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {
        "p50": round(statistics.median(ordered), 2),
        "p95": round(p95, 2),
        "max": round(ordered[-1], 2),
    }


def _table_counts(client: StreamlitClient) -> tuple[int, int] | None:
    """The dashboard table's sums of "tried" and "right" (columns 2 and 3), or None."""
    import pyarrow.ipc as ipc

    for etype, proto in client.elements.values():
        if etype == "table":
            frame = ipc.open_stream(io.BytesIO(proto.arrow_data.data)).read_all()
            columns = frame.columns
            return sum(columns[1].to_pylist()), sum(columns[2].to_pylist())
    return None


def _rows(url: str, sql: str, params: tuple = (), connect_timeout: int = 10) -> list[tuple]:
    import psycopg

    plain = url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(plain, connect_timeout=connect_timeout) as con:
        return [tuple(r) for r in con.execute(sql, params).fetchall()]


_MINE = (
    "SELECT c.answer FROM classroom_checks c JOIN classroom_students s ON s.id = c.student "
    "WHERE s.code = %s AND s.nickname = %s"
)


#: the dashboard's sums: students with a Check, students with a right one (one step here)
_COUNTS = (
    "SELECT count(DISTINCT student), count(DISTINCT CASE WHEN correct THEN student END) "
    "FROM classroom_checks WHERE code = %s"
)


def _stored_now(db: str, code: str, name: str) -> list[str]:
    """The answers PostgreSQL holds for the student ``name`` now; waits for it to answer."""
    import psycopg

    deadline = time.monotonic() + CEILING
    while True:
        try:
            return [r[0] for r in _rows(db, _MINE, (code, name))]
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def _page(client: StreamlitClient, code: str) -> dict[str, bool]:
    """What the student's page says about the class now."""
    warnings = client.warnings
    shown = client.text().splitlines()
    nav = next((w for w in client.widgets.values() if w.key == "lesson.nav"), None)
    return {
        "in_class": tr("classroom.in", "en", code=code) in shown,
        "offline": any(OFFLINE.match(w) for w in warnings),
        "waiting": any(UNRECORDED.match(w) for w in warnings),
        "recorded": tr("classroom.recorded", "en", n=1) in shown,
        "asked_nickname": "classroom.nickname" in client.keys(),  # noqa: SIM118 (a method)
        "step_1_done": nav is not None and "1 ✓" in nav.options,
    }


def _look(me: Student, client: StreamlitClient, code: str, db: str, tally: Tally) -> str:
    """Read the student's page after a run: note a removal, and the Checks it reports
    recorded (checked against PostgreSQL at once). Returns what it says of the Checks:
    "recorded", "waiting" (not yet recorded, or the database does not answer) or "none"."""
    page = _page(client, code)
    link = parse_qs(client.query_string)
    if not me.removed:
        if link.get("class") != [code]:
            me.removed = f"the link lost class= ({client.query_string!r})"
        elif link.get("seat") != [me.seat]:
            me.removed = f"the link lost its seat ({client.query_string!r})"
        elif page["asked_nickname"]:
            me.removed = "the page asks for a nickname again"
        elif not (page["in_class"] or page["offline"]):
            me.removed = "the page shows no class"
    if page["waiting"] or page["offline"]:
        return "waiting"
    if not page["recorded"]:
        return "none"
    if me.acked < len(me.made):  # every Check so far is reported recorded: is it?
        stored = _stored_now(db, code, me.name)
        me.said_recorded_not_stored += [a for a in me.made[me.acked :] if a not in stored]
        now = time.monotonic()
        me.unrecorded_s += [
            now - me.unrecorded_since.pop(i)
            for i in range(me.acked, len(me.made))
            if i in me.unrecorded_since
        ]
        tally.add(acked=len(me.made) - me.acked)
        me.acked = len(me.made)
    return "recorded"


class _Timers:
    """The browser's timers of one page (``st.fragment(run_every=...)``): each fires its
    fragment every interval; a full run sets them anew (StreamlitClient.auto_reruns)."""

    def __init__(self, client: StreamlitClient, me: Student) -> None:
        self.client, self.me = client, me
        self.due: dict[str, float] = {}

    def run_until(self, end: float, after: Callable[[], object]) -> None:
        """Fire the timers that fall due before ``end`` (monotonic), ``after`` each run."""
        while True:
            now = time.monotonic()
            every = self.client.auto_reruns
            self.due = {f: self.due.get(f, now + s) for f, s in every.items()}
            fid = min(self.due, key=self.due.__getitem__, default=None)
            if fid is None or self.due[fid] >= end:
                time.sleep(max(0.0, end - now))
                return
            time.sleep(max(0.0, self.due[fid] - now))
            result = self.client.poll(fid)
            self.me.polls += 1
            if result.status != "ok" or self.client.exceptions:
                raise RuntimeError(f"timer: {self.client.exceptions}")
            if fid in every:  # a full run may have dropped it
                self.due[fid] = time.monotonic() + every[fid]
            after()


def _student(
    url: str,
    code: str,
    me: Student,
    start: float,
    think: float,
    seed: int,
    tally: Tally | None = None,
    db: str = "",
    moves: Moves | None = None,
) -> None:
    """One student; the page's timers fire while the student thinks. With ``tally`` (a class
    with a restart) the student stays until every Check is reported recorded; with ``moves``,
    then for the reveal and the share (:func:`_after`)."""
    rng = random.Random(seed)
    joined = False
    try:
        time.sleep(rng.uniform(0, 5))  # the class arrives over a few seconds
        client = StreamlitClient(url, timeout=120)
        with client:
            if client.open("lesson", f"class={code}&lang=en").status != "ok":
                raise RuntimeError("open")
            client.set_value("classroom.nickname", me.name)
            client.click("classroom.join")
            if client.rerun().status != "ok" or client.exceptions:
                raise RuntimeError(f"join: {client.exceptions}")
            me.replica = client.cookie("HOGRAD_REPLICA") or ""
            me.seat = (parse_qs(client.query_string).get("seat") or [""])[0]
            if not me.seat or "lesson.ans.grad" not in client.keys():  # noqa: SIM118 (a method)
                raise RuntimeError(f"join: not seated: {client.text()[:200]}")
            if tally is not None:  # the lecturer starts step 1 once the class has joined
                tally.add(joined=1)
                joined = True
                tally.wait_for(lambda t: t.joined >= t.students, CEILING)
            timers = _Timers(client, me)

            def look() -> str:
                return _look(me, client, code, db, tally) if tally is not None else ""

            for value in ANSWERS:
                timers.run_until(time.monotonic() + think * rng.uniform(0.5, 1.5), look)
                client.set_value("lesson.ans.grad", value)
                client.click("lesson.check.grad")
                result = client.rerun()
                if result.status != "ok" or client.exceptions:
                    raise RuntimeError(f"check: {client.exceptions}")
                me.checks_ms.append(result.seconds * 1000)
                me.done.append(time.monotonic() - start)
                me.made.append(value)
                if tally is None:
                    continue
                tally.add(left=-1)
                said = look()
                me.said.append(said)
                if said != "recorded":
                    me.unrecorded_since[len(me.made) - 1] = time.monotonic()
                    tally.add(refused=int(tally.down))
                    _stored_then(me, value, code, db)
            if tally is not None:
                deadline = time.monotonic() + CEILING
                while me.acked < len(me.made) and not me.removed and client.auto_reruns:
                    if time.monotonic() > deadline:
                        break
                    timers.run_until(time.monotonic() + 1.0, look)
                me.final = _page(client, code)
                link = parse_qs(client.query_string)
                me.final["link_kept"] = link.get("class") == [code] and link.get("seat") == [
                    me.seat
                ]
            if moves is not None:
                _done(me, moves, "answered")
                _after(me, client, timers, moves)
    except Exception as err:  # reported, counted as a failed student
        me.failed = f"{type(err).__name__}: {err}"[:200]
    finally:
        if tally is not None:
            tally.add(joined=0 if joined else 1, left=-(len(ANSWERS) - len(me.made)))
        for step in ("answered", "seen", "following", "moved") if moves is not None else ():
            _done(me, moves, step)  # a failed student is done with every step


def _done(me: Student, moves: Moves, step: str) -> None:
    """``me`` is done with ``step`` of ``moves`` (once)."""
    if step not in me.moves:
        me.moves.add(step)
        moves.add(**{step: 1})


def _until(timers: _Timers, event: Callable[[], bool], seconds: float) -> float | None:
    """Fire the page's timers until ``event()`` holds after a run; when (monotonic), or None
    after ``seconds``."""
    deadline = time.monotonic() + seconds
    seen: list[float] = []

    def after() -> None:
        if not seen and event():
            seen.append(time.monotonic())

    while not seen and time.monotonic() < deadline:
        if not timers.client.auto_reruns:  # no timer left: nothing would ever change
            return None
        timers.run_until(min(deadline, time.monotonic() + 0.5), after)
    return seen[0] if seen else None


def _after(me: Student, client: StreamlitClient, timers: _Timers, moves: Moves) -> None:
    """After the Checks: fire the page's timers until it shows the revealed answer (the
    lecturer reveals once every student answered) and note when; switch follow on; fire them
    until the shared page opened and note when. Each step is counted in ``moves`` as done,
    seen or not."""
    seen = _until(timers, lambda: any(REVEALED.match(i) for i in client.infos), CEILING)
    if seen is not None and moves.revealed_at is not None:
        me.reveal_s = seen - moves.revealed_at
    _done(me, moves, "seen")
    client.set_value("classroom.follow", True)
    if client.rerun().status != "ok" or client.exceptions:
        raise RuntimeError(f"follow: {client.exceptions}")
    _done(me, moves, "following")
    target = client.pages[moves.page]
    seen = _until(timers, lambda: client.page_script_hash == target, CEILING)
    if seen is not None and moves.shared_at is not None:
        me.follow_s = seen - moves.shared_at
    _done(me, moves, "moved")


def _stored_then(me: Student, answer: str, code: str, db: str) -> None:
    """The page said this Check is not yet recorded: does PostgreSQL hold it already? One
    try (a stopped server refuses at once; then it is not known, and not counted)."""
    import psycopg

    try:
        stored = [r[0] for r in _rows(db, _MINE, (code, me.name), connect_timeout=2)]
    except psycopg.OperationalError:
        return
    if answer in stored:  # a student's three answers differ
        me.said_waiting_stored.append(answer)


def _restart(db: str, tally: Tally, after: int, hold: int, start_: float, out: dict) -> None:
    """PostgreSQL restarted once every student joined and ``after`` Checks are recorded:
    ``pg_ctl restart -m fast``, or with ``hold`` stopped until ``hold`` Checks were made."""
    try:
        ready = tally.wait_for(lambda t: t.joined >= t.students and t.acked >= after, CEILING)
        out["restart_at_s"] = round(time.monotonic() - start_, 2)
        out["acked_before_restart"] = tally.acked
        out["left_at_restart"] = tally.left
        out["restart_waited_for_its_event"] = ready
        began = time.monotonic()
        if hold:
            with tally.changed:  # a Check not recorded from now on counts
                tally.down = True
            stop(db)
            # a student with two Checks left has at most one in flight: the other meets
            # the stopped server when this is more than the students
            out["left_when_down"] = tally.left
            out["hold_reached"] = tally.wait_for(
                lambda t: t.refused >= hold or t.left <= 0, CEILING
            )
            out["refused_while_down"] = tally.refused
            with tally.changed:
                tally.down = False
            start(db)
        else:
            restart(db)
        out["down_s"] = round(time.monotonic() - began, 2)
    except Exception as err:  # reported with the figures
        out["restart_failed"] = f"{type(err).__name__}: {err}"[:300]


def _reveal_and_share(teacher: StreamlitClient, moves: Moves) -> dict:
    """The lecturer's part of :class:`Moves`: Reveal once every student answered, Share of
    ``moves.page`` once every student follows. What went wrong, if anything."""
    out: dict = {}
    moves.wait_for(lambda m: m.answered >= m.students, CEILING)
    teacher.click("classroom.reveal")
    moves.mark("revealed_at")
    if teacher.rerun().status != "ok" or teacher.exceptions:
        out["reveal_failed"] = str(teacher.exceptions)[:300]
    moves.wait_for(lambda m: m.seen >= m.students and m.following >= m.students, CEILING)
    if teacher.navigate(moves.page).status != "ok" or teacher.exceptions:
        out["share_failed"] = str(teacher.exceptions)[:300]
    teacher.click("classroom.share")
    moves.mark("shared_at")
    if teacher.rerun().status != "ok" or teacher.exceptions:
        out["share_failed"] = str(teacher.exceptions)[:300]
    moves.wait_for(lambda m: m.moved >= m.students, CEILING)
    return out


def _staleness(events: list[float], polls: list[tuple[float, int]]) -> list[float]:
    """For the k-th event (sorted), the end of the first poll counting at least k, minus it."""
    out = []
    for k, at in enumerate(sorted(events), start=1):
        seen = next((end for end, count in polls if count >= k), None)
        if seen is not None:
            out.append(max(0.0, seen - at))
    return out


def lesson(
    url: str,
    db: str,
    students: int,
    think: float,
    seed: int,
    *,
    key: str = KEY,
    restart_after: int | None = None,
    hold: int = 0,
    share: str | None = "hvp",
) -> tuple[dict, list[Student]]:
    """One class on the running deployment at ``url`` (teacher key ``key``) whose database
    is ``db``: the figures, and each student as the class left them.

    Args:
        restart_after: restart PostgreSQL once every student joined and this many Checks are
            reported recorded (None: no restart).
        hold: with a restart, stop PostgreSQL and start it again once this many Checks were
            made while it was down (0: ``pg_ctl restart -m fast`` in one go).
        share: once every student answered, the lecturer reveals step 1, the students switch
            follow on, and the lecturer shares this page (None: neither).
    """
    teacher = StreamlitClient(url, timeout=120)
    assert teacher.open("lesson", f"key={key}&lang=en").status == "ok"
    teacher.click("classroom.open")
    assert teacher.rerun().status == "ok" and not teacher.exceptions, teacher.exceptions
    [link] = [c for c in teacher.codes if "class=" in c]
    code = parse_qs(urlparse(link).query)["class"][0]
    [(fragment, every)] = list(teacher.auto_reruns.items())
    people = [Student(f"s{i}") for i in range(students)]
    tally = None if restart_after is None else Tally(students, left=students * len(ANSWERS))
    moves = Moves(students) if share is None else Moves(students, page=share)
    start_ = time.monotonic()
    blip: dict = {}
    threads = [
        threading.Thread(
            target=_student,
            args=(url, code, p, start_, think, seed + i, tally, db, moves),
            daemon=True,
        )
        for i, p in enumerate(people)
    ]
    others = []  # the restart's thread
    if tally is not None:
        others.append(
            threading.Thread(
                target=_restart,
                args=(db, tally, restart_after, hold, start_, blip),
                daemon=True,
            )
        )
    for th in threads + others:
        th.start()
    polls: list[tuple[float, int, int]] = []  # (end, tried, right)
    poll_ms = []
    stored_counts = None  # (tried, right) as PostgreSQL holds them, once every student is done
    while time.monotonic() - start_ <= 600:
        time.sleep(every)  # the browser's timer
        result = teacher.poll(fragment)
        poll_ms.append(result.seconds * 1000)
        counts = _table_counts(teacher)
        if counts is not None:
            polls.append((time.monotonic() - start_, *counts))
        answered = moves.answered >= students and not any(th.is_alive() for th in others)
        if stored_counts is None and answered:
            stored_counts = _rows(db, _COUNTS, (code,))[0]
        if stored_counts and polls and all(map(int.__ge__, polls[-1][1:], stored_counts)):
            break  # the dashboard counts every Check stored
    moved = _reveal_and_share(teacher, moves) if share is not None else {}
    for th in threads + others:
        th.join(timeout=120)
    teacher.close()
    made = sorted((p.name, ANSWERS[i]) for p in people for i in range(len(p.done)))
    rows = _rows(
        db,
        "SELECT s.nickname, c.answer FROM classroom_checks c "
        "JOIN classroom_students s ON s.id = c.student WHERE s.code = %s",
        (code,),
    )
    stored = sorted(rows)
    names = [
        r[0] for r in _rows(db, "SELECT nickname FROM classroom_students WHERE code = %s", (code,))
    ]
    written = [t for p in people for t in p.done]
    busiest = max((sum(1 for t in written if s <= t < s + 10) for s in written), default=0)
    first = [p.done[0] for p in people if p.done]
    right = [p.done[-1] for p in people if len(p.done) == len(ANSWERS)]
    stale = _staleness(first, [(e, tried) for e, tried, _ in polls])
    stale += _staleness(right, [(e, r) for e, _, r in polls])
    joined = len([p for p in people if p.done])
    out = {
        "code": code,
        "students": students,
        "replicas": None,
        "think_s": think,
        "failed": sum(1 for p in people if p.failed),
        "failures": sorted({p.failed for p in people if p.failed})[:5],
        "by_replica": {
            r: sum(1 for p in people if p.replica == r) for r in sorted({p.replica for p in people})
        },
        "checks": len(made),
        "check_ms": _percentiles([m for p in people for m in p.checks_ms]),
        "dashboard_every_s": every,
        "dashboard_poll_ms": _percentiles(poll_ms),
        "dashboard_staleness_s": _percentiles(stale),
        "dashboard_last": list(polls[-1][1:]) if polls else None,
        "checks_per_s": round(busiest / 10, 1),
        "joined": joined,
        "polls": sum(p.polls for p in people),
        "lost": len([x for x in made if x not in stored]),
        "doubled": len(stored) - len(set(stored)),
    }
    if share is not None:
        reveals = [p.reveal_s for p in people if p.reveal_s is not None]
        follows = [p.follow_s for p in people if p.follow_s is not None]
        out |= moved | {
            "revealed": len(reveals),
            "reveal_s": _percentiles(reveals),
            "share_page": share,
            "followed": len(follows),
            "follow_s": _percentiles(follows),
        }
    if tally is not None:
        twice = (
            len(names)
            - len(set(names))
            + sum(1 for n in names if n not in {p.name for p in people})
        )
        out |= {
            "restart": blip,
            "removed": sum(1 for p in people if p.removed),
            "removals": sorted({p.removed for p in people if p.removed})[:5],
            "joined_twice": twice,
            "said_waiting": sum(p.said.count("waiting") for p in people),
            "said_none": sum(p.said.count("none") for p in people),
            "said_recorded_not_stored": sum(len(p.said_recorded_not_stored) for p in people),
            "said_waiting_stored": sum(len(p.said_waiting_stored) for p in people),
            "waiting_until_recorded_s": _percentiles([s for p in people for s in p.unrecorded_s]),
            "unacknowledged": sum(len(p.made) - p.acked for p in people),
        }
    return out, people


def _cpu_seconds(groups: list[int]) -> float:
    """User and system CPU seconds of every process in the process groups ``groups`` so far
    (Linux's /proc; 0 elsewhere)."""
    tick, total = os.sysconf("SC_CLK_TCK"), 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # gone meanwhile
        if int(fields[2]) in groups:  # the fields after the name: state, ppid, pgrp, ...
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / tick


def run(
    students: int,
    replicas: int,
    think: float,
    seed: int,
    restart_after: int | None = None,
    hold: int = 0,
    share: str | None = "hvp",
) -> dict:
    with cluster() as server:
        url = fresh_database(server, "class_load")
        env = {"HOGRAD_CLASSROOM_URL": url, "HOGRAD_TEACHER_KEY": KEY}
        with Replicas(replicas, env=env, replica_header=True, warm=True) as group:
            groups = [r.process.pid for r in group.replicas]
            cpu, mine, began = _cpu_seconds(groups), time.process_time(), time.monotonic()
            out, _ = lesson(
                group.url,
                url,
                students,
                think,
                seed,
                restart_after=restart_after,
                hold=hold,
                share=share,
            )
            wall = time.monotonic() - began
            return out | {
                "replicas": replicas,
                "wall_s": round(wall, 1),
                # CPU seconds per second of the class: the replicas' processes, and this
                # client's (the students' protocol clients, on the same cores)
                "replicas_cores": round((_cpu_seconds(groups) - cpu) / wall, 2),
                "client_cores": round((time.process_time() - mine) / wall, 2),
            }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--students", type=int, default=100)
    ap.add_argument("--replicas", type=int, default=2)
    ap.add_argument("--think", type=float, default=3.0, help="mean seconds between Checks")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json", action="store_true", help="one JSON object on stdout")
    ap.add_argument(
        "--restart-after",
        type=int,
        default=None,
        metavar="K",
        help="restart PostgreSQL (pg_ctl restart -m fast) once all joined and K Checks are in",
    )
    ap.add_argument(
        "--hold",
        type=int,
        default=0,
        metavar="H",
        help="with --restart-after: stop PostgreSQL, start it once H Checks were made meanwhile",
    )
    ap.add_argument(
        "--share",
        default="hvp",
        help="the page the lecturer shares after the reveal (its URL path; 'none': no reveal, no share)",
    )
    ap.add_argument(
        "--start-seconds",
        type=float,
        default=600.0,
        help="how long the replicas may take to start and warm up (a busy host)",
    )
    args = ap.parse_args()
    replicas.START_SECONDS = args.start_seconds
    share = None if args.share == "none" else args.share
    out = run(
        args.students, args.replicas, args.think, args.seed, args.restart_after, args.hold, share
    )
    print(json.dumps(out) if args.json else json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
