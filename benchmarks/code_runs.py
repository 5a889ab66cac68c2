"""Seconds from asking to the last record for the code page's runs, each in its own child
(hograd_serving/code_child.py): the x³ preset and the HVP preset, N times each, in this process
(as the server asks). The first run of a process includes starting the resident process that
forks the children, when there is one; it is reported apart.

    python benchmarks/code_runs.py [N]     # default 5
"""

import os
import sys
import time

sys.path.insert(0, ".")
from hograd_labs.code.presets import PRESETS
from hograd_serving.code_child import run_program_child

N = int(sys.argv[1]) if len(sys.argv) > 1 else 5


def timed(name: str) -> float:
    start = time.perf_counter()
    run = run_program_child(PRESETS[name])
    assert run.stopped is None, run
    return time.perf_counter() - start


print(f"load average {os.getloadavg()[0]:.1f}")
print(f"first run (x3): {timed('x3'):.2f} s")
for name in ("x3", "hvp"):
    seconds = sorted(timed(name) for _ in range(N))
    print(f"{name}: {seconds[0]:.2f}-{seconds[-1]:.2f} s over {N} runs")
print(f"load average {os.getloadavg()[0]:.1f}")
