"""``python -m hograd_cli custom``, run as a teacher's script would run it (in this process:
tests/project/test_cli.py's ``cli``)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import sympy as sp

from tests.project.test_cli import cli

X = sp.Symbol("x", real=True)


def test_custom_json_gives_sympys_derivatives_and_pytorchs_verdicts() -> None:
    out = cli("custom", "tanh(x)", "--backward", "(1 - y^2)*g", "--at", "-2:2:5", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert {"gradcheck", "gradgradcheck", "first", "second", "saved", "error"} <= data.keys()
    assert (data["gradcheck"], data["gradgradcheck"], data["saved"], data["error"]) == (
        True,
        True,
        ["y"],
        None,
    )
    xs = np.linspace(-2, 2, 5)
    first = [float(sp.diff(sp.tanh(X), X).subs(X, v)) for v in xs]
    second = [float(sp.diff(sp.tanh(X), X, 2).subs(X, v)) for v in xs]
    np.testing.assert_allclose(data["first"], first, rtol=1e-12)
    np.testing.assert_allclose(data["second"], second, rtol=1e-10, atol=1e-15)


def test_custom_variants_detach_and_once_differentiable() -> None:
    detached = json.loads(
        cli("custom", "x^3", "--backward", "3*x^2*g", "--at", "-1:1:3", "--detach", "--json").stdout
    )
    assert detached["second"] == [0.0, 0.0, 0.0] and detached["error"] is None  # silent
    assert (detached["gradcheck"], detached["gradgradcheck"]) == (True, False)
    once = json.loads(
        cli(
            "custom",
            "x^3",
            "--backward",
            "3*x^2*g",
            "--at",
            "-1:1:3",
            "--once-differentiable",
            "--json",
        ).stdout
    )
    assert once["second"] == [None, None, None]
    assert once["error"] == (
        "trying to differentiate twice a function that was marked with @once_differentiable"
    )
    human = cli("custom", "x^3", "--backward", "3*x^2*g", "--at", "-1:1:3")
    assert human.returncode == 0, human.stderr
    assert "saved for backward: x" in human.stdout and "gradgradcheck: passed" in human.stdout


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["x^3", "--backward", "3*x^2*q", "--at", "0:1:3"], "the variable 'q' at column 7"),
        (["x^3", "--backward", "g", "--at", "0:1:26"], "expected 1 to 25, got 26"),
        (["x^3", "--backward", "g", "--at", "0:1:99999999999"], "expected 1 to 25"),
        (["x^3", "--backward", "g", "--at", "1:0:3"], "x range: expected two finite numbers"),
        (["x^3", "--backward", "g", "--at", "0:1"], "--at: expected START:STOP:POINTS"),
        (["x^3", "--at", "0:1:3"], "the following arguments are required: --backward"),
        (
            ["x^3", "--backward", "g", "--at", "0:1:3", "--detach", "--once-differentiable"],
            "not allowed with argument",
        ),
    ],
)
def test_custom_bad_input_exits_2_with_one_line(args: list[str], says: str) -> None:
    out = cli("custom", *args, "--json")
    assert out.returncode == 2
    assert says in json.loads(out.stdout)["error"]
    assert out.stderr.startswith("error: ") and says in out.stderr
    assert "Traceback" not in out.stderr
