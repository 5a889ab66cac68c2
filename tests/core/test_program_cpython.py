"""The program runner against CPython itself: every program of the corpus and every preset of
the code page is run once by CPython (exec of the test's own text, in one subprocess for all)
and once by hograd_core.program; what they print, the error they stop with (its text and its
line) and the variables they end with (values, requires_grad, grad_fn, .grad) must be equal.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from hograd_core.program import run_program
from hograd_labs.code.presets import PRESETS
from tests.program_corpus import PROGRAMS, SEED_HVP, SEED_X3

ROOT = Path(__file__).resolve().parents[2]
ALL = {**PROGRAMS, **{f"preset_{k}": v for k, v in PRESETS.items()}}

#: CPython runs each program with its own globals, its output captured; then the variables
#: it ends with are recorded by the same reader the runner uses (hograd_core.program.record).
_ORACLE = r"""
import contextlib, dataclasses, io, json, sys, traceback, types, warnings
import torch
from hograd_core.program.record import variable
torch.set_num_threads(1)
warnings.simplefilter("ignore")
out = {}
for name, text in json.loads(sys.stdin.read()).items():
    names, buf, error = {}, io.StringIO(), None
    with torch.random.fork_rng(devices=[]), torch.enable_grad(), contextlib.redirect_stdout(buf):
        try:
            exec(compile(text, "<program>", "exec"), names)
        except Exception as err:
            frames = [f for f in traceback.extract_tb(err.__traceback__) if f.filename == "<program>"]
            text_ = "".join(traceback.format_exception_only(type(err), err)).rstrip("\n")
            line = err.lineno if isinstance(err, SyntaxError) else frames[-1].lineno if frames else 0
            error = {"line": line, "text": text_}
    kept = {
        n: dataclasses.asdict(variable(n, v))
        for n, v in names.items()
        if not n.startswith("__") and not isinstance(v, types.ModuleType)
        and (isinstance(v, torch.Tensor | torch.nn.Module) or not callable(v))
    }
    out[name] = {"output": buf.getvalue(), "error": error, "variables": kept}
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def cpython() -> dict:
    """What CPython does with every program (one subprocess for all of them)."""
    done = subprocess.run(
        [sys.executable, "-c", _ORACLE],
        input=json.dumps(ALL),
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"},
        timeout=600,
        check=True,
    )
    return json.loads(done.stdout)


def _ours(text: str) -> dict:
    lines = run_program(text)
    last = lines[-1]
    error = None
    if last.error is not None:
        assert not last.error.key, f"refused: {last.error}"
        error = {"line": last.error.line, "text": last.error.text}
    variables = {
        v.name: json.loads(json.dumps(dataclasses.asdict(v)))
        for v in last.variables
        if v.kind != "function"
    }
    return {"output": "".join(r.output for r in lines), "error": error, "variables": variables}


def test_the_corpus_is_large_enough() -> None:
    assert len(PROGRAMS) >= 60
    assert SEED_X3 in PROGRAMS.values() and SEED_HVP in PROGRAMS.values()


@pytest.mark.parametrize("name", sorted(ALL))
def test_same_as_cpython(name: str, cpython: dict) -> None:
    ours, theirs = _ours(ALL[name]), json.loads(json.dumps(cpython[name]))
    assert ours["output"] == theirs["output"]
    assert ours["error"] == theirs["error"]
    assert ours["variables"] == theirs["variables"]


def test_the_seeds_print_what_they_teach(cpython: dict) -> None:
    assert cpython["seed_x3"]["output"] == "dy/dx at x=2.0: 12.0\nFalse\n"
    error = cpython["seed_x3_no_create_graph"]["error"]
    assert error["line"] == 6 and "does not require grad" in error["text"]
    hv = cpython["seed_hvp"]["variables"]["Hv"]["values"]
    assert hv == pytest.approx([1.0, -1.0], abs=1e-6)
    assert cpython["seed_hvp"]["variables"]["grad_f"]["values"] == pytest.approx(
        [2.0, 0.0], abs=1e-6
    )
