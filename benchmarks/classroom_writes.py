"""A class of N simulated students checking at once: each joins and makes two Checks from one
of 16 threads (a server's sessions), on SQLite and, when a throwaway cluster can start
(tests/postgres.py), on PostgreSQL. Prints the rows lost and doubled (counted with plain SQL
against the Checks made) and the database writes per second (joins and Checks, wall time).

    python -m benchmarks.classroom_writes --students 200
"""

from __future__ import annotations

import argparse
import sqlite3
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from random import Random

import sqlalchemy as sa

from hograd_labs.classroom import compute as cc

NOW = 1_800_000_000.0


def run(engine: sa.Engine, count: int, count_rows) -> dict:
    cc.create_schema(engine)
    code = cc.open_class(engine, NOW, rng=Random(0))

    def student(i: int) -> int:
        me = cc.join(engine, code, f"s{i}", NOW)
        cc.record_check(engine, me, 1, "8", False, "lesson.trap.value", (("value", "8"),), NOW)
        cc.record_check(engine, me, 1, "12", True, "lesson.check.right", (), NOW)
        return 2

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=16) as pool:
        made = sum(pool.map(student, range(count)))
    seconds = time.perf_counter() - start
    stored = count_rows("SELECT count(*) FROM classroom_checks")
    distinct = count_rows(
        "SELECT count(*) FROM (SELECT DISTINCT student, answer FROM classroom_checks) AS d"
    )
    return {
        "students": count,
        "checks": made,
        "lost": made - distinct,
        "doubled": stored - distinct,
        "writes_per_s": round((made + count) / seconds),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--students", type=int, default=200)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "class.sqlite"
        engine = sa.create_engine(f"sqlite:///{path}", connect_args={"timeout": 60})

        def rows(sql: str) -> int:
            with sqlite3.connect(path) as con:
                return con.execute(sql).fetchone()[0]

        print("sqlite", run(engine, args.students, rows))
    from tests.postgres import available, cluster, fresh_database

    if available() is not None:
        print("postgresql: skipped,", available())
        return
    import psycopg

    with cluster() as server:
        url = fresh_database(server, "bench")
        engine = sa.create_engine(url, pool_size=16)

        def pg_rows(sql: str) -> int:
            with psycopg.connect(url.replace("+psycopg", "")) as con:
                return con.execute(sql).fetchone()[0]

        print("postgresql", run(engine, args.students, pg_rows))
        engine.dispose()


if __name__ == "__main__":
    main()
