"""What the hostile corpus costs sympy's exact column: each function's child process
(hograd_serving/exact_child.py) run as the server runs it, to order 30, with its CPU time and
peak memory as the kernel counts them, and why it stopped.

    python benchmarks/hostile_exact.py [--json]

The families are the tests' (tests/serving/test_sympy_column.py): constant powers folded
through a variable that cancels, exp of a multiple of a log, nested abs, relu and max-like
kinks; plus the presets for comparison.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hograd_serving.sympy_column import CHAIN_SECONDS, MEMORY_BYTES  # noqa: E402
from tests.serving.test_sympy_column import FOLDED_POWERS, NESTED_KINKS  # noqa: E402

PRESETS = ["x**3", "sin(x)*exp(-x^2)", "tanh(x)", "1/(1+x^2)", "x**x"]


def measure(text: str, order: int = 30) -> dict:
    """One child, to ``order``: its wall time, orders and why it stopped."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    start = time.perf_counter()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "hograd_serving.exact_child",
            f"{CHAIN_SECONDS:g}",
            str(MEMORY_BYTES),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=ROOT,
        env=env,
        text=True,
    )
    try:
        out, _ = proc.communicate(json.dumps({"text": text, "order": order}), CHAIN_SECONDS)
        killed = False
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
        killed = True
    wall = time.perf_counter() - start
    records = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    stopped = "time" if killed else next((r["stopped"] for r in records if "stopped" in r), None)
    return {
        "function": text,
        "orders": sum("k" in r for r in records),
        "stopped": stopped,
        "wall_s": round(wall, 2),
    }


def measure_children(text: str) -> dict:
    """:func:`measure`, with the child's CPU time (RUSAGE_CHILDREN before and after: the child
    is reaped by then) and the peak RSS of the largest child so far (the kernel keeps only
    that maximum)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    row = measure(text)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    row["cpu_s"] = round((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), 2)
    row["peak_mb"] = round(after.ru_maxrss / 1024, 1)  # the largest child so far
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = [measure_children(text) for text in FOLDED_POWERS + NESTED_KINKS + PRESETS]
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    print(f"{'function':52} {'orders':>6} {'stopped':>8} {'wall s':>7} {'cpu s':>6} {'peak MB':>8}")
    for r in rows:
        print(
            f"{r['function'][:52]:52} {r['orders']:>6} {r['stopped'] or '-':>8} "
            f"{r['wall_s']:>7} {r['cpu_s']:>6} {r['peak_mb']:>8}"
        )


if __name__ == "__main__":
    main()
