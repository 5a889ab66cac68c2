"""The rehearsed lecture (issue 48) on the deployment a lecture hall uses: two replicas behind
haproxy (deploy/replicas.py, session affinity by the proxy's cookie) sharing one PostgreSQL 15
(a throwaway cluster, tests/postgres.py). The walk is tests/e2e/rehearsal.py's, the one
tests/e2e/test_lecture_browser.py runs on one server with SQLite: open a class, project, share
three views, pause, resume, answers, the lecturer's own screen, reveal, reset, export, delete,
with what every student sees asserted after each action. Here the database also goes down
while half the class answers the first step (``pg_ctl stop``, then ``start`` once each of
them was told): nobody leaves the class, each of those Checks is said "not yet recorded" and is
stored once the database is back, once (issue 45's database blip, in real browsers).

The class is the issue's: 5 phones (390x844) and 3 laptops, in Chinese (the one-server walk is
in English); ``HOGRAD_REHEARSAL_*`` (rehearsal.from_env) change it. New browsers go round robin,
so students land on both replicas: each action of the lecturer on one reaches students on the
other through the database alone, and the test checks from each student's affinity cookie that
both replicas had students. Under CI=true a missing PostgreSQL or haproxy fails the test.

Screenshots: tests/artifacts/lecture_replicas_*.png.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from tests.e2e.rehearsal import Hall, from_env, rehearse
from tests.postgres import cluster, fresh_database, start, stop

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "deploy"))

from replicas import Replicas  # noqa: E402

pytestmark = pytest.mark.skipif(
    shutil.which("haproxy") is None and not os.environ.get("CI"),
    reason="haproxy is not installed (make test installs it)",
)
KEY = "lecture-replicas-teacher-key-0123456789"


def replica_of(context) -> str:
    """The replica the proxy placed this browser on (its HOGRAD_REPLICA cookie: r1 or r2)."""
    return {c["name"]: c["value"] for c in context.cookies()}["HOGRAD_REPLICA"]


def test_a_rehearsed_lecture_on_two_replicas_and_postgresql(browser, tmp_path: Path) -> None:
    lecture = from_env(lang="zh", phones=5, laptops=3)
    logs = tmp_path / "logs"  # the replicas' logs, kept for a failure's reader
    logs.mkdir()
    with cluster() as server:
        env = {
            "HOGRAD_CLASSROOM_URL": fresh_database(server, "lecture"),
            "HOGRAD_TEACHER_KEY": KEY,
        }
        with (
            Replicas(2, env=env, replica_header=True, log_dir=logs) as group,
            Hall(browser, group.url, lang=lecture.lang, key=KEY, tag="lecture_replicas") as hall,
        ):
            # PostgreSQL is stopped while half the class answers, then started again
            students = rehearse(hall, lecture, outage=(lambda: stop(server), lambda: start(server)))
            where = {name: replica_of(page.context) for page, name in students}
            assert set(where.values()) == {"r1", "r2"}, where
