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
  not through the app).

Usage::

    python -m benchmarks.class_load --students 100 --replicas 2   # the issue's class (~3 min)
    python -m benchmarks.class_load --students 20 --replicas 1 --json

Needs haproxy and PostgreSQL's server binaries (``make debian`` installs both). Prints figures,
asserts nothing: the tests (tests/deploy/test_classroom_replicas.py) check the behaviour.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import statistics
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, urlparse

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "deploy"))

import replicas  # noqa: E402
from replicas import Replicas  # noqa: E402

from benchmarks.st_client import StreamlitClient  # noqa: E402
from tests.postgres import cluster, fresh_database  # noqa: E402

KEY = "class-load-benchmark-teacher-key-0123456789"
ANSWERS = ("8", "13", "12")  # a known slip, too high, right


@dataclass
class Student:
    name: str
    checks_ms: list[float] = field(default_factory=list)
    done: list[float] = field(default_factory=list)  # when each Check's run ended (monotonic)
    replica: str = ""
    failed: str = ""


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


def _student(url: str, code: str, me: Student, start: float, think: float, seed: int) -> None:
    rng = random.Random(seed)
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
            for value in ANSWERS:
                time.sleep(think * rng.uniform(0.5, 1.5))
                client.set_value("lesson.ans.grad", value)
                client.click("lesson.check.grad")
                result = client.rerun()
                if result.status != "ok" or client.exceptions:
                    raise RuntimeError(f"check: {client.exceptions}")
                me.checks_ms.append(result.seconds * 1000)
                me.done.append(time.monotonic() - start)
    except Exception as err:  # reported, counted as a failed student
        me.failed = f"{type(err).__name__}: {err}"[:200]


def _rows(url: str, sql: str) -> list[tuple]:
    import psycopg

    with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://")) as con:
        return [tuple(r) for r in con.execute(sql).fetchall()]


def _staleness(events: list[float], polls: list[tuple[float, int]]) -> list[float]:
    """For the k-th event (sorted), the end of the first poll counting at least k, minus it."""
    out = []
    for k, at in enumerate(sorted(events), start=1):
        seen = next((end for end, count in polls if count >= k), None)
        if seen is not None:
            out.append(max(0.0, seen - at))
    return out


def run(students: int, replicas: int, think: float, seed: int) -> dict:
    with cluster() as server:
        url = fresh_database(server, "class_load")
        env = {"HOGRAD_CLASSROOM_URL": url, "HOGRAD_TEACHER_KEY": KEY}
        with Replicas(replicas, env=env, replica_header=True, warm=True) as group:
            teacher = StreamlitClient(group.url, timeout=120)
            assert teacher.open("lesson", f"key={KEY}&lang=en").status == "ok"
            teacher.click("classroom.open")
            assert teacher.rerun().status == "ok" and not teacher.exceptions, teacher.exceptions
            [link] = [c for c in teacher.codes if "class=" in c]
            code = parse_qs(urlparse(link).query)["class"][0]
            [(fragment, every)] = list(teacher.auto_reruns.items())
            people = [Student(f"s{i}") for i in range(students)]
            start = time.monotonic()
            threads = [
                threading.Thread(
                    target=_student, args=(group.url, code, p, start, think, seed + i), daemon=True
                )
                for i, p in enumerate(people)
            ]
            for th in threads:
                th.start()
            polls: list[tuple[float, int, int]] = []  # (end, tried, right)
            poll_ms = []
            while any(th.is_alive() for th in threads) or not polls or polls[-1][1] < students:
                time.sleep(every)  # the browser's timer
                result = teacher.poll(fragment)
                poll_ms.append(result.seconds * 1000)
                counts = _table_counts(teacher)
                if counts is not None:
                    polls.append((time.monotonic() - start, *counts))
                if time.monotonic() - start > 600:
                    break
                if (
                    not any(th.is_alive() for th in threads)
                    and polls[-1][1] >= sum(1 for p in people if p.done)
                    and polls[-1][2] >= sum(1 for p in people if len(p.done) == len(ANSWERS))
                ):
                    break
            for th in threads:
                th.join(timeout=120)
            teacher.close()
            made = sorted((p.name, ANSWERS[i]) for p in people for i in range(len(p.done)))
            stored = sorted(
                _rows(
                    url,
                    "SELECT s.nickname, c.answer FROM classroom_checks c "
                    "JOIN classroom_students s ON s.id = c.student",
                )
            )
            written = [t for p in people for t in p.done]
            busiest = max((sum(1 for t in written if s <= t < s + 10) for s in written), default=0)
            first = [p.done[0] for p in people if p.done]
            right = [p.done[-1] for p in people if len(p.done) == len(ANSWERS)]
            stale = _staleness(first, [(e, tried) for e, tried, _ in polls])
            stale += _staleness(right, [(e, r) for e, _, r in polls])
            joined = len([p for p in people if p.done])
            return {
                "students": students,
                "replicas": replicas,
                "think_s": think,
                "failed": sum(1 for p in people if p.failed),
                "failures": sorted({p.failed for p in people if p.failed})[:5],
                "by_replica": {
                    r: sum(1 for p in people if p.replica == r)
                    for r in sorted({p.replica for p in people})
                },
                "checks": len(made),
                "check_ms": _percentiles([m for p in people for m in p.checks_ms]),
                "dashboard_every_s": every,
                "dashboard_poll_ms": _percentiles(poll_ms),
                "dashboard_staleness_s": _percentiles(stale),
                "checks_per_s": round(busiest / 10, 1),
                "joined": joined,
                "lost": len([x for x in made if x not in stored]),
                "doubled": len(stored) - len(set(stored)),
            }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--students", type=int, default=100)
    ap.add_argument("--replicas", type=int, default=2)
    ap.add_argument("--think", type=float, default=3.0, help="mean seconds between Checks")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json", action="store_true", help="one JSON object on stdout")
    ap.add_argument(
        "--start-seconds",
        type=float,
        default=600.0,
        help="how long the replicas may take to start and warm up (a busy host)",
    )
    args = ap.parse_args()
    replicas.START_SECONDS = args.start_seconds
    out = run(args.students, args.replicas, args.think, args.seed)
    print(json.dumps(out) if args.json else json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
