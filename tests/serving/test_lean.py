"""Lean mode: chosen by the memory the host gives, or by HOGRAD_LEAN; no resident helper
process, and every kind of work still answered, the same as with the helpers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hograd_serving.lean import LEAN_BELOW, is_lean, memory_limit

ROOT = Path(__file__).resolve().parents[2]
GIB = 1024**3


def cgroup(tmp_path: Path, **files: str) -> Path:
    for name, text in files.items():
        path = tmp_path / name.replace("__", "/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text + "\n")
    return tmp_path


def test_the_limit_is_the_smallest_of_the_cgroup_and_the_machine(tmp_path: Path) -> None:
    machine = memory_limit(tmp_path)  # no cgroup files: the machine's memory
    assert machine is not None and machine > 0
    assert memory_limit(cgroup(tmp_path / "a", **{"memory.max": str(GIB)})) == GIB  # v2
    assert memory_limit(cgroup(tmp_path / "b", **{"memory.max": "max"})) == machine
    v1 = cgroup(tmp_path / "c", **{"memory__memory.limit_in_bytes": str(3 * GIB // 2)})
    assert memory_limit(v1) == min(3 * GIB // 2, machine)
    unlimited = cgroup(tmp_path / "d", **{"memory__memory.limit_in_bytes": "9223372036854771712"})
    assert memory_limit(unlimited) == machine


@pytest.mark.parametrize(
    ("env", "limit", "lean"),
    [
        ({}, GIB, True),  # a small host: lean
        ({}, 8 * GIB, False),
        ({}, LEAN_BELOW - 1, True),
        ({}, LEAN_BELOW, False),
        ({"HOGRAD_LEAN": "1"}, 8 * GIB, True),  # asked for
        ({"HOGRAD_LEAN": "0"}, GIB, False),  # refused, even on a small host
        ({"HOGRAD_LEAN": "maybe"}, GIB, True),  # not a yes or a no: the memory decides
    ],
)
def test_lean_is_chosen_by_the_flag_or_else_by_memory(env: dict, limit: int, lean: bool) -> None:
    assert is_lean(env, limit) is lean


LEAN_RUN = """
import json, math, os, psutil
from hograd_serving import cached, start, torch_helper
from hograd_core.network import NetConfig

start()  # what app.py does on a server's first run
me = psutil.Process()
out = {"lean": cached.LEAN, "children_after_start": len(me.children(recursive=True))}
out["sympy"] = list(cached.sympy_part("sin(x)*exp(-x^2)", 3, 0.5, wait=30).values)
out["autograd"] = list(cached.autograd_part("sin(x)*exp(-x^2)", 0.5, 3, wait=30).values)
out["probe"] = cached.estimate("tanh(x)", 4, 100)[1]
net = torch_helper.run_job("train", NetConfig(dataset="moons", hidden=(6,), steps=50), 60)
out["trained_steps"] = net.steps
out["children_after_work"] = len(me.children(recursive=True))
print(json.dumps(out))
"""


def test_lean_mode_starts_no_helper_and_answers_everything() -> None:
    import sympy as sp

    env = {"HOGRAD_LEAN": "1", "PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, "-c", LEAN_RUN], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["lean"] is True
    assert out["children_after_start"] == 0 and out["children_after_work"] == 0
    x = sp.Symbol("x")
    f = sp.sin(x) * sp.exp(-(x**2))
    exact = [float(sp.diff(f, x, k).subs(x, 0.5)) for k in range(4)]
    assert out["sympy"] == pytest.approx(exact, rel=1e-12)
    assert out["autograd"] == pytest.approx(exact, rel=1e-12)
    assert out["probe"] == [2, 3, 7, 16, 37]  # tanh's graph, counted in this process
    assert out["trained_steps"] == 50
