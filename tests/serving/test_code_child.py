"""A learner's program in its own process: the records come back as the runner made them,
and a run past its CPU time or memory is stopped without touching the server's process."""

from __future__ import annotations

import os
import signal
import time

import psutil
import torch

from hograd_core.program import line_from, run_program
from hograd_serving import code_child, zygote
from hograd_serving.code_child import run_program_child
from tests.program_corpus import SEED_X3


def test_the_child_returns_the_same_records() -> None:
    run = run_program_child(SEED_X3)
    assert run.stopped is None and run.torch == torch.__version__
    lines = [line_from(line) for line in run.lines]
    assert lines == run_program(SEED_X3)  # graphs, variables and outputs, through JSON


#: A program that only a time limit stops, on any host. 30,000 norms of a million elements
#: with p = 2.5 (a power per element, computed, not read: 5-8 ms each on one core here, so
#: 150-240 s of CPU) take about 120,000 of the 200,000 steps the runner allows (12 per outer
#: turn, counted with run_program and small step budgets), so the step budget never stops it
#: and the page's 10 s of CPU is passed more than ten times over. Its
#: first form, 95,000 dot products (0.11 ms each here), reached the step budget in about as
#: long as the time limit: which limit stopped it was a race (the code page's browser test
#: saw "200,000 statements" instead of the time limit).
LONG = (
    "import torch\nx = torch.ones(1000000)\n"
    "for i in range(10000):\n    for j in range(3):\n        s = torch.norm(x, p=2.5)\n"
)


def test_a_long_run_is_stopped_by_its_cpu_time() -> None:
    text = LONG.replace("x = ", "print('started')\nx = ")  # LONG: far past this run's second
    run = run_program_child(text, cpu_seconds=1)
    assert run.stopped == "time"
    assert [line["output"] for line in run.lines] == ["", "started\n", ""]


def test_memory_past_the_limit_fails_in_the_child() -> None:
    text = (
        "import torch\nxs = []\nfor i in range(40):\n"
        "    xs.append(torch.ones(1000000, dtype=torch.float64))\nprint(len(xs))\n"
    )
    run = run_program_child(text, memory=96 * 2**20)
    last = run.lines[-1] if run.lines else None
    failed = run.stopped == "memory" or (last is not None and "allocate" in last["error"]["text"])
    assert failed, run


# ---- children forked by the zygote that imported torch once (hograd_serving/zygote.py) ----


def _zygote_process() -> psutil.Process:
    found = zygote._ZYGOTES[code_child.CHILD]
    assert found._process is not None and found._process.poll() is None
    return psutil.Process(found._process.pid)


def _limits(pid: int) -> dict[str, int | None]:
    """The soft limits of ``pid`` that the child sets itself (None: unlimited)."""
    with open(f"/proc/{pid}/limits") as limits:
        rows = {line[:26].strip(): line[26:].split()[0] for line in limits.readlines()[1:]}
    return {
        name: None if rows[name] == "unlimited" else int(rows[name])
        for name in ("Max cpu time", "Max address space")
    }


def test_runs_are_forked_by_one_zygote_that_imported_torch() -> None:
    first = run_program_child(SEED_X3)
    process = _zygote_process()
    second = run_program_child(SEED_X3)
    assert first == second and first.stopped is None
    assert _zygote_process().pid == process.pid  # the same zygote forked both
    assert process.ppid() == os.getpid()
    assert process.cmdline()[-3:-1] == ["hograd_serving.code_child", "--zygote"]
    assert process.children() == []  # each child has ended and been reaped


def test_a_forked_child_sets_its_own_limits_and_ends_when_killed() -> None:
    """The limits come after the fork, in the child: CPU seconds counted from its own start,
    memory beyond the zygote's size. Killed, its exit status says so, and the zygote goes on."""
    run_program_child(SEED_X3)  # the zygote is running
    size = _zygote_process().memory_info().vms
    child = code_child.launch(7, 100 * 2**20)
    assert isinstance(child, zygote.Forked)
    assert psutil.Process(child.pid).ppid() == _zygote_process().pid
    for _ in range(1200):  # until the child has set them (it does so before reading)
        limits = _limits(child.pid)
        if limits["Max cpu time"] is not None and limits["Max address space"] is not None:
            break
        time.sleep(0.1)
    assert 7 <= limits["Max cpu time"] <= 9  # its own CPU time (from 0 at the fork) + 7 s
    extra = limits["Max address space"] - size
    assert 100 * 2**20 <= extra <= 164 * 2**20, extra  # 100 MB beyond its size at the fork
    child.kill()
    assert child.wait() == -signal.SIGKILL
    child.stdin.close()
    child.stdout.close()
    assert run_program_child(SEED_X3).stopped is None


def test_a_forked_child_is_killed_at_its_wall_deadline() -> None:
    """CPU time enough for minutes, a wall deadline of 2 s: the deadline stops it."""
    run = run_program_child(LONG, cpu_seconds=3600, wall_seconds=2)
    assert run.stopped == "time"
    assert _zygote_process().children() == []  # killed and reaped


def test_a_forked_child_stopped_by_cpu_time_leaves_the_zygote_well() -> None:
    run = run_program_child(LONG, cpu_seconds=1)
    assert run.stopped == "time"
    assert _zygote_process().children() == []
    assert run_program_child(SEED_X3).stopped is None
