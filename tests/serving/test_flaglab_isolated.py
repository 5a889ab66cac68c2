"""The flag lab's isolated runs, in a fresh process: a warning PyTorch gives once per process
shows on every run, and detect_anomaly never switches on in the server."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from hograd_core import parse
from hograd_core.flaglab import CASES, FlagSettings, run_case, run_flags
from hograd_serving.jobs import run_isolated
from tests.core.test_flaglab import CYCLE, FREED, ROOT


def test_isolated_cases_show_their_warnings() -> None:
    twice = run_case("backward_accumulates", "twice", isolate=run_isolated)
    assert any(CYCLE in w for w in twice.warnings)
    sqrt = run_case("nan_anomaly", "sqrt", isolate=run_isolated)
    assert "Error detected in PowBackward0." in sqrt.warnings
    # Run as a script, the same warning points at the snippet's forward line.
    _, _, stderr = run_fresh(sqrt.snippet)
    assert "Error detected in PowBackward0. Traceback of forward call" in stderr
    traceback = stderr.split("Error detected in PowBackward0")[1]
    assert '"<string>", line 10, in <module>' in traceback  # the forward line, inside the with
    assert sqrt.snippet.splitlines()[9].strip() == "y = torch.sqrt(x**2)"


@pytest.mark.parametrize(("rg", "z"), [(None, False), (False, True), (True, False)])
def test_backward_with_create_graph_in_a_fresh_process(rg: bool | None, z: bool) -> None:
    outcome = run_flags(
        parse("x**3"),
        2.0,
        FlagSettings(True, rg, False, False, z, "backward"),
        isolate=run_isolated,
    )
    if rg is False:
        assert FREED in outcome.error
    else:
        assert [r.value for s in outcome.steps for r in s.results if r.name == "x.grad"] == [
            12.0,
            24.0,
        ]
        assert "graph.flag.explain.accumulates" in outcome.explain
    assert any(CYCLE in w for w in outcome.warnings)  # every time, not once per server
    assert "graph.flag.explain.cycle" in outcome.explain
    check_against_snippet(outcome, fresh=True)


def run_fresh(snippet: str) -> tuple[list[str], str, str]:
    """Run a snippet as a script in a new Python process: (stdout lines, last stderr line, stderr)."""
    env = {**os.environ, "PYTHONWARNINGS": "always", "OMP_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, "-c", snippet],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd=ROOT,
        check=False,
    )
    lines = done.stderr.strip().splitlines()
    return done.stdout.splitlines(), lines[-1] if done.returncode else "", done.stderr


def check_against_snippet(outcome, fresh: bool = True) -> None:
    """The snippet, run as a script in a new process, prints what the outcome says, raises
    its error and gives its warnings."""
    printed = [line for step in outcome.steps for line in step.output]
    error = f"{outcome.steps[-1].error_type}: {outcome.error}" if outcome.raised else ""
    stdout, last, stderr = run_fresh(outcome.snippet)
    assert stdout == printed
    assert last == error
    for message in outcome.warnings:
        assert message.splitlines()[0] in stderr


@pytest.mark.parametrize(
    ("case", "variant"),
    [(c, v) for c, spec in CASES.items() if spec.isolated for v in spec.variants],
)
def test_isolated_cases_match_their_snippets_run_as_scripts(case: str, variant: str) -> None:
    check_against_snippet(run_case(case, variant, isolate=run_isolated))
