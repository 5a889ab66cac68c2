"""Replicas behind haproxy, measured on this machine (loopback only): capacity with 2 replicas
against 1, a class through the proxy, a replica killed during a class, memory per replica.

    python benchmarks/replicas.py              # the full run (about 8 minutes)
    python benchmarks/replicas.py --json

Phases, each on replicas started for it (deploy/replicas.py), with the load benchmark's
simulated students (benchmarks/load.py, Streamlit's own websocket protocol):

- capacity: students with no think time (the replicas saturated) for ``--capacity-seconds``,
  served by 1 replica and by 2, alternating for ``--rounds`` rounds (1, 2, 2, 1, 1, 2, ...)
  on the same two warm replicas behind the proxy: for "1", every student arrives holding the
  affinity cookie of r1 (``load.py --replica r1``) and r2 idles; for "2", the proxy spreads them.
  A first ``--capacity-warmup`` seconds of the same load, not measured, fill both replicas'
  caches, so neither half of a round starts colder than the other.
  Reruns per second, and the ratio 2 / 1 per round: the two halves of a round are measured
  seconds apart, so a machine whose speed drifts (a shared host) moves both alike;
- class: ``--class-size`` students thinking 2 s on average (``--class-mix``), through the
  proxy to 2 replicas:
  rerun percentiles, failed sessions, and whether every response of every connection came
  from the replica its cookie names (checked on each response's X-Hograd-Replica header);
- failover: the same class, with replica r1 killed halfway: its students reconnect (as
  Streamlit's front end does) and go on on r2; failed sessions counted; and what r2's own
  students saw before and after the kill (``survivors``: failures, reconnects, p50 and p95);
- memory: each replica's process tree (the server, and the short-lived processes the flag lab
  and anomaly mode start) after the first visitor, and at its peak during the class.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "deploy")]

from replicas import Replicas  # noqa: E402

from benchmarks import load as lb  # noqa: E402
from benchmarks.st_client import StreamlitClient  # noqa: E402


def _tree_sum(pid: int, read: Any) -> float:
    """``read(process)`` summed over a process and its descendants alive now (a process that
    ends meanwhile counts 0)."""
    try:
        proc = psutil.Process(pid)
        procs = [proc, *proc.children(recursive=True)]
    except psutil.Error:
        return 0.0
    total = 0.0
    for p in procs:
        with contextlib.suppress(psutil.Error):
            total += read(p)
    return total


def tree_mb(pid: int) -> float:
    """RSS of a process and all its descendants, MB (shared pages counted in each)."""
    return _tree_sum(pid, lambda p: p.memory_info().rss) / 2**20


def tree_cpu_s(pid: int) -> float:
    """User and system CPU seconds of a process and its descendants alive now."""
    return _tree_sum(pid, lambda p: sum(p.cpu_times()[:2]))


def cpu_shares(pids: dict[str, int], work: Any) -> tuple[Any, dict[str, float]]:
    """Run ``work()``; return its result and each named process tree's CPU over it, in % of
    one core (a replica alone can use more than one: its threads and the kernel's work)."""
    before = {name: tree_cpu_s(pid) for name, pid in pids.items()}
    t0 = time.perf_counter()
    out = work()
    wall = time.perf_counter() - t0
    return out, {
        name: round(100.0 * (tree_cpu_s(pid) - before[name]) / wall, 1)
        for name, pid in pids.items()
    }


class Peaks(threading.Thread):
    """Samples each replica's process tree every half second; keeps the peak of each."""

    def __init__(self, group: Replicas) -> None:
        super().__init__(daemon=True)
        self.group, self.peak = group, {r.name: 0.0 for r in group.replicas}
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.wait(0.5):
            for r in self.group.replicas:
                self.peak[r.name] = max(self.peak[r.name], tree_mb(r.process.pid))

    def stop(self) -> dict[str, float]:
        self._stop_event.set()
        self.join(timeout=5)
        return {k: round(v, 1) for k, v in self.peak.items()}


def warm(group: Replicas, timeout: float) -> dict[str, float]:
    """Open the page on every replica (new browsers go round robin); the first screen's seconds
    on each fresh replica."""
    firsts: dict[str, float] = {}
    for _ in range(4 * len(group.replicas)):
        with StreamlitClient(group.url, timeout=timeout) as c:
            run = c.open("derivatives")
            name = c.cookie(lb.AFFINITY_COOKIE) or "?"
            firsts.setdefault(name, run.seconds)
        if len(firsts) == len(group.replicas):
            break
    return firsts


def load_args(
    sessions: int,
    seconds: float,
    think: float,
    reconnect: bool,
    mix: str = "full",
    replica: str | None = None,
) -> argparse.Namespace:
    args = lb.parse_args(
        [
            "--sessions",
            str(sessions),
            "--seconds",
            str(seconds),
            "--think",
            str(think),
            "--browsers",
            "0",
            "--storm",
            "0",
            "--soak",
            "0",
            "--idle",
            "0",
            "--timeout",
            "60",
            "--mix",
            mix,
        ]
        + (["--reconnect"] if reconnect else [])
        + (["--replica", replica] if replica else [])
    )
    return args


def students(group: Replicas, args: argparse.Namespace, kill_at: float | None = None) -> dict:
    """The load benchmark's load phase against the proxy; replica r1 killed after ``kill_at``
    seconds when given."""
    server = lb.Server(group.url)  # measures the process listening there: the proxy
    killed_at: list[float] = []

    def kill() -> None:
        killed_at.append(time.perf_counter())
        group.kill("r1")

    if kill_at is not None:
        threading.Timer(kill_at, kill).start()
    record = lb.Record()
    out = lb.load(server, group.url, ["derivatives"], args, record)
    keep = (
        "reruns",
        "reruns_per_s",
        "steady_reruns_per_s",
        "p50_ms",
        "p95_ms",
        "p99_ms",
        "failed",
        "failures",
        "reruns_over_2s",
        "affinity_connections",
        "affinity_held",
        "reconnects",
        "busy",
        "loadgen_cpu_pct",
        "machine_cpu_pct",
    )
    result = {k: out[k] for k in keep}
    if killed_at:  # the students r2 held from the start: before and after r1 went
        result["survivors"] = lb.survivors(record, killed_at[0], "r2")
    return result


def run(a: argparse.Namespace) -> dict[str, Any]:
    env: dict[str, str] = {}
    result: dict[str, Any] = {
        "class_mix": a.class_mix,
        "cores": psutil.cpu_count(),
        "capacity": [],
    }
    if a.rounds:
        with Replicas(2, env=env, replica_header=True) as group:
            warm(group, 120)
            if a.capacity_warmup:  # both replicas compute and cache what the students ask
                students(
                    group,
                    load_args(a.capacity_sessions, a.capacity_warmup, 0, False, a.capacity_mix),
                )
            for i in range(a.rounds):  # 1, 2, 2, 1, 1, 2, ...: neither goes first every time
                rate: dict[int, float] = {}
                cpu: dict[int, dict[str, float]] = {}  # % of a core, by process tree
                for n in (1, 2) if i % 2 == 0 else (2, 1):
                    args = load_args(
                        a.capacity_sessions,
                        a.capacity_seconds,
                        0,
                        False,
                        a.capacity_mix,
                        replica="r1" if n == 1 else None,
                    )
                    pids = {r.name: r.process.pid for r in group.replicas}
                    out, cpu[n] = cpu_shares(
                        {**pids, "proxy": group.proxy.pid}, lambda args=args: students(group, args)
                    )
                    cpu[n]["load_generator"] = out["loadgen_cpu_pct"]
                    rate[n] = out["steady_reruns_per_s"]
                    shares = ", ".join(f"{k} {v}" for k, v in cpu[n].items())
                    lb.log(
                        f"capacity, {n} replica(s): {rate[n]} reruns/s once all students "
                        f"are in ({out['reruns_per_s']} over the phase), p50 {out['p50_ms']} "
                        f"ms; % of a core: {shares}"
                    )
                result["capacity"].append(
                    {
                        "one": rate[1],
                        "two": rate[2],
                        "ratio": rate[2] / rate[1],
                        "cpu_one": cpu[1],
                        "cpu_two": cpu[2],
                    }
                )
    ratios = [r["ratio"] for r in result["capacity"]]
    if ratios:  # --rounds 0: the class only
        result["capacity_ratio_median"] = round(statistics.median(ratios), 2)
        result["capacity_ratio_range"] = [round(min(ratios), 2), round(max(ratios), 2)]
        # the mean rate with 2 over the mean rate with 1: every phase counted
        result["capacity_ratio_of_means"] = round(
            statistics.fmean(r["two"] for r in result["capacity"])
            / statistics.fmean(r["one"] for r in result["capacity"]),
            2,
        )

    if a.skip_class:
        return result
    started = time.perf_counter()
    with Replicas(2, env=env, replica_header=True) as group:
        result["replicas_up_s"] = round(time.perf_counter() - started, 1)
        result["first_screen_s"] = warm(group, 120)
        result["start_mb"] = {r.name: round(tree_mb(r.process.pid), 1) for r in group.replicas}
        peaks = Peaks(group)
        peaks.start()
        result["class"] = students(
            group, load_args(a.class_size, a.seconds, 2.0, False, a.class_mix)
        )
        result["peak_mb"] = peaks.stop()
        lb.log(f"class of {a.class_size}: {result['class']}")
    if a.skip_failover:
        return result
    with Replicas(2, env=env, replica_header=True) as group:
        warm(group, 120)
        result["failover"] = students(
            group,
            load_args(a.class_size, a.seconds, 2.0, True, a.class_mix),
            kill_at=a.seconds / 2,
        )
        lb.log(f"failover: {result['failover']}")
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=4, help="capacity rounds (default 4; 0: none)")
    ap.add_argument("--capacity-sessions", type=int, default=16)
    ap.add_argument("--capacity-seconds", type=float, default=25)
    ap.add_argument(
        "--capacity-warmup",
        type=float,
        default=20,
        help="seconds of load on both "
        "replicas before the capacity rounds, not measured (default 20; 0: none)",
    )
    ap.add_argument(
        "--capacity-mix",
        choices=("full", "light"),
        default="light",
        help="what "
        "the saturating students do (default light: the simulated clients, on the "
        "same 2 cores, then take less of them)",
    )
    ap.add_argument("--skip-class", action="store_true", help="capacity only")
    ap.add_argument("--class-size", type=int, default=100)
    ap.add_argument(
        "--class-mix",
        choices=("full", "light"),
        default="full",
        help="what the class does (default full: any order, either method, new functions)",
    )
    ap.add_argument("--skip-failover", action="store_true", help="no failover phase")
    ap.add_argument("--seconds", type=float, default=60, help="class length (default 60 s)")
    ap.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    a = ap.parse_args(argv)
    result = run(a)
    print(json.dumps(result, indent=None if a.json else 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
