"""Worst CPU time and memory, per page that computes exact values, that issue 45's hostile
corpus reaches in the server process (this one, running the pages under AppTest) and in the
exact maths' child process (each page's request to it, run alone).

    python benchmarks/exact_hostile.py [N]     # the first N inputs of the corpus (default 7)

The server forks its children from a zygote, so they are not this process's children and
RUSAGE_CHILDREN never sees them: each page's request (the derivatives page's column to order
30, the backward lab's at x = 2, the HVP page's LaTeX) is sent here to a child of its own,
started as the server starts it (hograd_serving.exact's time and memory limits), and its CPU
time and peak memory are the kernel's for that one child (``os.wait4``).
"""

import json
import os
import resource
import subprocess
import sys
import time

sys.path.insert(0, ".")
from hograd_serving.exact import MEMORY_BYTES, SECONDS
from tests.app.test_links import open_link
from tests.serving.test_exact import HOSTILE as ALL_HOSTILE  # issue 45's corpus, one list

HOSTILE = ALL_HOSTILE[: int(sys.argv[1]) if len(sys.argv) > 1 else len(ALL_HOSTILE)]
PAGES = ("derivatives", "backward", "hvp")


def two_variables(f: str) -> str:
    """The corpus's function as the HVP page takes it: y in place of one x, plus y²."""
    return f.replace("x^24", "y^24").replace("(x+6)", "(y+6)") + "+y^2"


def link(page: str, f: str) -> tuple[str, dict]:
    """The page's file and the link's settings that give it ``f``."""
    if page == "backward":
        return "pages/backward.py", {"backward.f": f, "backward.b": "g", "backward.points": "25"}
    if page == "derivatives":
        return "pages/derivatives.py", {"deriv.fn": f, "deriv.x0": "2"}
    return "pages/hvp.py", {"hvp.fn": two_variables(f)}


def request(page: str, f: str) -> dict:
    """What the page asks of the exact child for ``f``."""
    if page == "backward":
        return {"kind": "backward", "f": f, "b": "g", "points": [2.0]}
    if page == "derivatives":
        return {"text": f, "order": 30}
    return {"kind": "latex", "text": two_variables(f), "variables": ["x", "y"]}


#: Runs the command in its argv in a child of its own and writes that child's CPU seconds and
#: peak RSS (KB) on its last line of stderr. A child forked from this process would count this
#: process's size (torch and Streamlit loaded) as its peak; one forked from this small
#: launcher counts only its own.
LAUNCH = """import os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.executable, [sys.executable, *sys.argv[1:]])
_, status, used = os.wait4(pid, 0)
sys.stderr.write(f"\\n{used.ru_utime + used.ru_stime} {used.ru_maxrss}\\n")
sys.exit(os.waitstatus_to_exitcode(status))
"""


def child(asked: dict) -> tuple[float, float, str]:
    """One child for ``asked``: its CPU seconds, its peak memory (MB) and how it ended."""
    command = [sys.executable, "-S", "-c", LAUNCH, "-m", "hograd_serving.exact_child"]
    done = subprocess.run(
        [*command, f"{SECONDS:g}", str(MEMORY_BYTES)],
        input=json.dumps(asked),
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": ".", "OMP_NUM_THREADS": "1"},
        check=False,
    )  # to its end: its own CPU limit stops it
    cpu, kb = done.stderr.strip().splitlines()[-1].split()
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    ended = next((line["stopped"] for line in lines if "stopped" in line), "done")
    return float(cpu), int(kb) / 1024, ended


def server_usage() -> tuple[float, float]:
    s = resource.getrusage(resource.RUSAGE_SELF)
    return s.ru_utime + s.ru_stime, s.ru_maxrss / 1024


open_link("pages/derivatives.py", {})  # imports and warm caches first
rows = []
for f in HOSTILE:
    for page in PAGES:
        path, settings = link(page, f)
        before = server_usage()
        at = open_link(path, settings)
        if page == "derivatives":  # its exact column answers in the background: poll as it does
            for _ in range(40):
                if not any("still working" in i.value for i in at.info):
                    break
                time.sleep(0.5)
                at.run()
        after = server_usage()
        cpu, peak, ended = child(request(page, f))
        rows.append((page, f, after[0] - before[0], after[1], cpu, peak, ended))
        print(
            f"{page:12} {f[:40]:40} server CPU {after[0] - before[0]:.2f} s"
            f" (RSS {after[1]:.0f} MB) exc={bool(at.exception)};"
            f" child CPU {cpu:.2f} s, peak {peak:.0f} MB, {ended}",
            flush=True,
        )
for page in PAGES:
    r = [x for x in rows if x[0] == page]
    print(
        page,
        f"server CPU s {min(x[2] for x in r):.2f}-{max(x[2] for x in r):.2f}",
        f"server RSS MB {max(x[3] for x in r):.0f}",
        f"child CPU s {min(x[4] for x in r):.2f}-{max(x[4] for x in r):.2f}",
        f"child peak MB {min(x[5] for x in r):.0f}-{max(x[5] for x in r):.0f}",
        f"ended {sorted({x[6] for x in r})}",
    )
