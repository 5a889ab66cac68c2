"""N students open the same page at the same moment on one server: what a class's followers do
when the lecturer shares a view (each follower's page switches to it within the same second).

Each of N protocol clients (benchmarks/st_client.py) first opens ``--from`` (the lesson), then
all are released together to switch to ``--page``, then back, ``--rounds`` times. For each
switch to the page: the server's CPU seconds over the burst per opening (``/proc``, through
psutil), and the 50th and 95th percentile of the time from a client's switch to the end of its
run. The openings queue for the server's one interpreter, so the 95th percentile is about N
times the CPU of one opening.

    python -m benchmarks.open_burst --students 30 --page hvp --json
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from anywhere

from benchmarks.load import Server  # noqa: E402
from benchmarks.st_client import StreamlitClient  # noqa: E402


def _cpu(pid: int) -> float:
    times = psutil.Process(pid).cpu_times()
    return times.user + times.system


def burst(clients: list[StreamlitClient], page: str, pid: int) -> dict[str, float]:
    """Release every client at once to switch to ``page``; the server's CPU per opening and
    the clients' times to the end of their runs."""
    seconds: list[float] = [0.0] * len(clients)
    go = threading.Event()

    def one(i: int) -> None:
        go.wait()
        start = time.monotonic()
        clients[i].navigate(page)
        seconds[i] = time.monotonic() - start

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(clients))]
    for thread in threads:
        thread.start()
    before = _cpu(pid)
    go.set()
    for thread in threads:
        thread.join()
    used = _cpu(pid) - before
    seconds.sort()
    n = len(seconds)
    return {
        "cpu_ms_per_open": round(1000 * used / n, 1),
        "p50_s": round(seconds[n // 2], 2),
        "p95_s": round(seconds[max(0, -(-95 * n // 100) - 1)], 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--page", default="hvp", help="the page every student opens")
    parser.add_argument("--from", dest="start", default="lesson", help="where they are before")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = parser.parse_args(argv)
    server = Server(None)
    try:
        clients = [StreamlitClient(server.url) for _ in range(args.students)]
        for client in clients:
            client.open(args.start)
        StreamlitClient(server.url).open(args.page)  # computed once: the views are cached
        rounds = []
        for _ in range(args.rounds):
            rounds.append(burst(clients, args.page, server.pid))
            burst(clients, args.start, server.pid)
        for client in clients:
            client.close()
    finally:
        server.stop()
    out = {"students": args.students, "page": args.page, "rounds": rounds}
    if args.json:
        print(json.dumps(out))
    else:
        for r in rounds:
            print(
                f"{args.page}: {r['cpu_ms_per_open']} ms of CPU per opening, "
                f"p50 {r['p50_s']} s, p95 {r['p95_s']} s"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
