"""A learner's program in its own process: the records come back as the runner made them,
and a run past its CPU time or memory is stopped without touching the server's process."""

from __future__ import annotations

import torch

from hograd_core.program import line_from, run_program
from hograd_serving.code_child import run_program_child
from tests.program_corpus import SEED_X3


def test_the_child_returns_the_same_records() -> None:
    run = run_program_child(SEED_X3)
    assert run.stopped is None and run.torch == torch.__version__
    lines = [line_from(line) for line in run.lines]
    assert lines == run_program(SEED_X3)  # graphs, variables and outputs, through JSON


def test_a_long_run_is_stopped_by_its_cpu_time() -> None:
    # 60,000 dot products of a million elements before the step budget (200,000 steps): a
    # minute or more of CPU on any host, far past the second this run may take
    text = (
        "import torch\nprint('started')\nx = torch.ones(1000000)\n"
        "for i in range(10000):\n    for j in range(10):\n        s = torch.dot(x, x)\n"
    )
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
