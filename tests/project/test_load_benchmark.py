"""benchmarks/load.py: the real browsers it starts are put at the lowest priority; the server
under test and its own child processes are not; the per-rerun CPU
and page-fault split reads real counts; affinity is judged by the cookies each proxy gives."""

from __future__ import annotations

import json
import mmap
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchmarks.load import Server, _per_rerun, affinity_held

ROOT = Path(__file__).resolve().parents[2]

# Run in a process of its own: _renice_children lowers every child of the calling process,
# and the test suite's own children (the flag lab's fresh processes, say) must not be.
SCRIPT = """
import json, subprocess, sys, time
import psutil
from benchmarks.load import _renice_children

sleeper = [sys.executable, "-c", "import time; time.sleep(60)"]
# a "server" with a child of its own, as the app's flag lab starts one
server = subprocess.Popen([sys.executable, "-c",
    f"import subprocess, time; subprocess.Popen({sleeper!r}); time.sleep(60)"])
browser = subprocess.Popen(sleeper)
deadline = time.monotonic() + 30
while not psutil.Process(server.pid).children() and time.monotonic() < deadline:
    time.sleep(0.05)  # the server's child starts a moment later
(helper,) = psutil.Process(server.pid).children()
_renice_children(server.pid)
print(json.dumps({"server": psutil.Process(server.pid).nice(), "helper": helper.nice(),
                  "browser": psutil.Process(browser.pid).nice()}))
for proc in psutil.Process().children(recursive=True):
    proc.kill()
"""


def test_only_the_browsers_lose_priority() -> None:
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=True,
    )
    nice = json.loads(out.stdout.strip().splitlines()[-1])
    ours = os.getpriority(os.PRIO_PROCESS, 0)
    assert nice == {"server": ours, "helper": ours, "browser": 19}


SHARED = """
import json, os, sys, time
import psutil
from benchmarks.load import Server

buf = bytearray(os.urandom(64 * 2**20))  # 64 MB of private pages, touched
ready_r, ready_w = os.pipe()
pid = os.fork()
if pid == 0:  # the child shares every page of buf with its parent (copy-on-write)
    os.write(ready_w, b"x")
    time.sleep(60)
    os._exit(0)
os.read(ready_r, 1)
server = Server.__new__(Server)
server.pid = os.getpid()
rss = server.rss_mb() + server.helpers_rss_mb()
pss = server.tree_pss_mb()
os.kill(pid, 9)
os.waitpid(pid, 0)
print(json.dumps({"rss": rss, "pss": pss, "own": psutil.Process().memory_info().rss / 2**20}))
"""


def test_the_tree_pss_counts_a_shared_page_once() -> None:
    out = subprocess.run(
        [sys.executable, "-c", SHARED],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert out.returncode == 0, out.stderr
    m = json.loads(out.stdout)
    # summed RSS counts the 64 MB in both processes; the PSS sum counts them once
    assert m["rss"] - m["pss"] > 0.8 * 64
    assert m["pss"] >= 64 and m["pss"] <= m["own"] + 16


def test_the_split_counts_the_page_faults_of_fresh_memory() -> None:
    """The per-rerun kernel figures rest on the minor-fault count read from /proc: touching
    every page of fresh memory must add at least one fault per page."""
    if not Path("/proc/self/stat").exists():
        pytest.skip("no /proc here")
    server = Server.__new__(Server)
    server.pid = os.getpid()
    size = 16 * 2**20
    before = server.cpu_split()
    with mmap.mmap(-1, size) as fresh:
        fresh.madvise(mmap.MADV_NOHUGEPAGE)  # one fault per 4 KB page, not per 2 MB
        for offset in range(0, size, mmap.PAGESIZE):
            fresh[offset] = 1
        after = server.cpu_split()
    assert before is not None and after is not None
    assert after[2] - before[2] >= size // mmap.PAGESIZE
    split = _per_rerun(before, after, 2)
    assert split["server_faults_per_rerun"] >= size // mmap.PAGESIZE // 2
    assert split["server_user_ms_per_rerun"] >= 0 and split["server_kernel_ms_per_rerun"] >= 0
    assert _per_rerun(before, after, 0)["server_faults_per_rerun"] is None


def test_the_steady_rate_counts_reruns_after_the_ramp() -> None:
    from benchmarks.load import _steady_rate

    done = [0.5, 1.0, 2.0, 2.5, 3.0, 9.0]
    assert _steady_rate(done, 2.0, 4.0) == 1.5  # 2.0, 2.5, 3.0 in 2 s
    assert _steady_rate(done, 4.0, 4.0) is None


def test_replica_takes_a_replica_name_only() -> None:
    from benchmarks.load import parse_args

    assert parse_args(["--replica", "r2"]).replica == "r2"
    assert parse_args([]).replica is None
    for bad in ("x1", "r", "r1; a", "r-1"):
        with pytest.raises(SystemExit):
            parse_args(["--replica", bad])


def test_cpu_shares_count_a_tree_s_children_and_nothing_of_the_idle() -> None:
    """A sleeping parent whose child spins, beside a sleeping process: the parent's tree gets
    the child's CPU, the sleeper none. The work waits for a count of CPU, not for a time."""
    import psutil

    from benchmarks.replicas import cpu_shares, tree_cpu_s

    spin = [sys.executable, "-c", "while True: pass"]
    parent = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import subprocess, time; subprocess.Popen({spin!r}); time.sleep(120)",
        ]
    )
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        while not psutil.Process(parent.pid).children():
            time.sleep(0.05)  # the spinner starts a moment later
        (child,) = psutil.Process(parent.pid).children()
        start = tree_cpu_s(child.pid)

        def work() -> str:
            while tree_cpu_s(child.pid) - start < 0.3:  # the child has spun for 0.3 s of CPU
                time.sleep(0.02)
            return "done"

        out, shares = cpu_shares({"tree": parent.pid, "idle": sleeper.pid}, work)
    finally:
        for proc in psutil.Process(parent.pid).children(recursive=True):
            proc.kill()
        for proc in (parent, sleeper):
            proc.kill()
            proc.wait()
    assert out == "done"
    assert shares["tree"] > 0 and shares["idle"] < shares["tree"]
    assert shares["idle"] < 5  # a process asleep in time.sleep uses no CPU to speak of
    assert shares["tree"] <= 105  # one spinning thread: at most one core


def test_survivors_are_the_students_who_opened_on_the_replica_that_lived() -> None:
    from benchmarks.load import Record, survivors

    r = Record()
    r.first_replica.update({1: "r2", 2: "r2", 3: "r1", 4: "r1"})
    r.reconnected.add(3)  # r1's student, moved to r2 after the kill
    r.failed_sessions.add(4)  # r1's student who gave up
    # (end, seconds, replica, session); the kill at t = 10
    r.on_replica += [(t, sec, "r2", 1) for t, sec in [(1, 0.1), (5, 0.2), (12, 0.4), (15, 0.8)]]
    r.on_replica += [(t, sec, "r2", 2) for t, sec in [(3, 0.3), (11, 0.6)]]
    r.on_replica += [(2, 0.05, "r1", 3), (13, 5.0, "r2", 3)]  # not a survivor: not counted
    s = survivors(r, 10, "r2")
    assert s["sessions"] == 2 and s["failed"] == 0 and s["reconnected"] == 0
    assert s["reruns_elsewhere"] == 0
    assert s["before"] == {"reruns": 3, "p50_ms": 200.0, "p95_ms": 300.0}
    assert s["after"] == {"reruns": 3, "p50_ms": 600.0, "p95_ms": 800.0}
    # seen from r1's side: one moved, one failed
    s1 = survivors(r, 10, "r1")
    assert (s1["sessions"], s1["failed"], s1["reconnected"]) == (2, 1, 1)
    assert s1["reruns_elsewhere"] == 1  # session 3's rerun on r2


@pytest.mark.parametrize(
    ("cookie", "seen", "held"),
    [
        ("r1", ["r1", "r1", "r1"], True),  # make serve: the cookie names the replica
        ("r1", ["r2"], False),  # answered by another replica than the cookie names
        ("r1", ["r1", "r2"], False),
        ("ec90e411dfce6fae", ["app2", "app2"], True),  # compose: haproxy's dynamic cookie
        ("ec90e411dfce6fae", ["app1", "app2"], False),
        (None, ["app1"], False),  # no cookie: nothing keeps the session there
        ("r1", [], False),
    ],
)
def test_affinity_is_held_only_on_one_replica_with_a_cookie(
    cookie: str | None, seen: list[str], held: bool
) -> None:
    assert affinity_held(cookie, seen) is held
