"""The Hessian's diagonal (hograd_core/diagonal.py and ``hvp --diagonal``) against sympy and
torch.func.hessian; Hutchinson's estimate against the same probes multiplied out by numpy, and
its spread against the closed-form variance Σ_{j≠i} Hᵢⱼ²."""

import json
import math

import numpy as np
import pytest
import sympy as sp
import torch

from hograd_cli.__main__ import main
from hograd_core.diagonal import (
    DIAGONAL_BUDGET,
    exact_diagonal,
    hutchinson_diagonal,
    hutchinson_variance,
    rademacher,
    typed_diagonal,
)
from hograd_core.errors import ArgumentError, BudgetError
from hograd_core.language import parse
from tests.english import raises

CASES = [
    ("x^2*y + sin(x*y) + z^3*x", (1.0, 2.0, 0.5)),
    ("exp(-x^2 - y^2)*cos(3*x) + x*y", (0.3, -0.7)),
    ("log(1 + x^2) + tanh(y)*z^2 + w1*w2^3", (0.5, -1.0, 2.0, 1.5, -0.25)),
]


def sympy_hessian(text: str, point: tuple) -> np.ndarray:
    fn = parse(text)
    symbols = sp.symbols(fn.variables)
    expr = sp.sympify(text.replace("^", "**"), locals=dict(zip(fn.variables, symbols, strict=True)))
    at = dict(zip(symbols, point, strict=True))
    return np.array(sp.hessian(expr, symbols).subs(at).evalf(30), dtype=np.float64)


@pytest.mark.parametrize(("text", "point"), CASES)
def test_exact_diagonal_is_sympys(text: str, point: tuple) -> None:
    d = typed_diagonal(parse(text), point)
    np.testing.assert_allclose(d.diagonal, np.diagonal(sympy_hessian(text, point)), atol=1e-12)
    assert d.estimate is None and d.standard_error is None


@pytest.mark.parametrize(("text", "point"), CASES)
def test_hutchinson_is_the_mean_of_z_times_hz(text: str, point: tuple) -> None:
    h = sympy_hessian(text, point)
    d = typed_diagonal(parse(text), point, probes=37, seed=5)
    z = rademacher(37, len(point), 5).numpy()
    samples = z * (z @ h)  # row k: z_k ⊙ H z_k (H symmetric)
    np.testing.assert_allclose(d.estimate, samples.mean(axis=0), atol=1e-11)
    np.testing.assert_allclose(
        d.standard_error, samples.std(axis=0, ddof=1) / math.sqrt(37), atol=1e-11
    )


def test_hutchinson_is_exact_for_a_diagonal_hessian() -> None:
    d = typed_diagonal(parse("x^2 + 3*y^2 + sin(z)"), (1.0, 2.0, 0.5), probes=3, seed=0)
    np.testing.assert_allclose(d.estimate, [2.0, 6.0, -math.sin(0.5)], atol=1e-14)
    np.testing.assert_allclose(d.standard_error, 0.0, atol=1e-14)


def test_hutchinson_error_falls_like_one_over_root_probes() -> None:
    """Over 400 seeds, the mean squared error of N probes is Σ_{j≠i} Hᵢⱼ² / N (within the
    sampling spread of 400 repeats), for N = 4 and N = 64."""
    text, point = CASES[0]
    h = sympy_hessian(text, point)
    fn = parse(text)

    def f(x: torch.Tensor) -> torch.Tensor:
        return fn.torch(dict(zip(fn.variables, x.unbind(), strict=True)))

    w = torch.tensor(point, dtype=torch.float64)
    for probes in (4, 64):
        errors = np.stack(
            [
                hutchinson_diagonal(f, w, probes, seed).numpy().mean(axis=0) - np.diagonal(h)
                for seed in range(400)
            ]
        )
        np.testing.assert_allclose(
            (errors**2).mean(axis=0), hutchinson_variance(h) / probes, rtol=0.2
        )


# torch.func.hessian (jacfwd) imports torch's forward-AD decompositions, which call the
# deprecated torch.jit.script inside torch, once
@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")
def test_network_diagonal_is_torch_func_hessians() -> None:
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(20, 3, generator=gen, dtype=torch.float64)
    y = torch.randn(20, generator=gen, dtype=torch.float64)

    def loss(theta: torch.Tensor) -> torch.Tensor:  # 3-4-1 tanh network, 21 parameters
        w1, b1, w2, b2 = theta[:12].view(4, 3), theta[12:16], theta[16:20], theta[20]
        return ((torch.tanh(x @ w1.T + b1) @ w2 + b2 - y) ** 2).mean()

    theta = torch.randn(21, generator=gen, dtype=torch.float64)
    full = torch.func.hessian(loss)(theta)
    np.testing.assert_allclose(exact_diagonal(loss, theta), full.diagonal(), atol=1e-12)


def test_limits_refused_before_work() -> None:
    fn = parse("x*y")
    with raises(BudgetError, match="probes: expected 1 to 1000, got 1001"):
        typed_diagonal(fn, (1, 2), probes=DIAGONAL_BUDGET.max_probes + 1)
    with raises(ArgumentError, match="probes: expected 1 to 1000, got -1"):
        typed_diagonal(fn, (1, 2), probes=-1)
    with raises(ArgumentError, match="seed"):
        typed_diagonal(fn, (1, 2), probes=3, seed=-2)
    big = torch.zeros(DIAGONAL_BUDGET.max_parameters + 1, dtype=torch.float64)
    with raises(BudgetError, match="exact diagonal: expected at most 2000"):
        exact_diagonal(lambda t: (t**2).sum(), big)


def test_cli_diagonal_and_hutchinson(capsys: pytest.CaptureFixture) -> None:
    text, point = CASES[0]
    at = ",".join(map(repr, point))
    assert (
        main(["hvp", text, "--at", at, "--diagonal", "--hutchinson", "25", "--seed", "4", "--json"])
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    h = sympy_hessian(text, point)
    np.testing.assert_allclose(out["diagonal"], np.diagonal(h), atol=1e-12)
    z = rademacher(25, 3, 4).numpy()
    samples = z * (z @ h)
    np.testing.assert_allclose(out["hutchinson"], samples.mean(axis=0), atol=1e-11)
    np.testing.assert_allclose(
        out["hutchinson_standard_error"], samples.std(axis=0, ddof=1) / 5, atol=1e-11
    )
    assert (out["probes"], out["seed"]) == (25, 4)
    assert main(["hvp", text, "--at", at, "--vector", "1,0,0", "--diagonal", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    np.testing.assert_allclose(out["diagonal"], np.diagonal(out["hessian"]), atol=1e-12)
    assert "hutchinson" not in out
    assert main(["hvp", text, "--at", at, "--diagonal"]) == 0
    assert "diagonal = [" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--hutchinson", "5"], "add --diagonal"),
        ([], "--vector is required"),
        (["--diagonal", "--hutchinson", "1001"], "probes: expected 1 to 1000, got 1001"),
    ],
)
def test_cli_refusals(extra: list, message: str, capsys: pytest.CaptureFixture) -> None:
    assert main(["hvp", "x*y", "--at", "1,2", *extra]) == 2
    assert message in capsys.readouterr().err
