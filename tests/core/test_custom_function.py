"""A custom autograd.Function built from two typed formulas, against independent oracles:
sympy's derivatives, and hand-written Functions with PyTorch's own gradcheck verdicts."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp
import torch
from torch.autograd.function import once_differentiable

from hograd_core.custom_function import (
    MAX_POINTS,
    VARIANTS,
    custom_spec,
    derivatives_through,
    make_function,
    run_custom,
)
from hograd_core.errors import ArgumentError, BudgetError, ExpressionError
from tests.english import raises

GRID = np.linspace(-2.0, 2.0, 7)
X = sp.Symbol("x", real=True)


class Tanh(torch.autograd.Function):
    """Written by hand, as PyTorch's docs write one: the oracle for the built class."""

    @staticmethod
    def forward(ctx, x):
        y = torch.tanh(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return (1 - y**2) * g


class TanhDetached(Tanh):
    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return (1 - y.detach() ** 2) * g


class TanhOnce(Tanh):
    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return (1 - y**2) * g


def _sympy(expr: sp.Expr, xs: np.ndarray) -> np.ndarray:
    return np.array([float(expr.subs(X, sp.Float(v, 30)).evalf(30)) for v in xs])


@pytest.mark.parametrize(
    ("f", "backward", "exact", "saved"),
    [
        ("tanh(x)", "(1 - y^2)*g", sp.tanh(X), ("y",)),
        ("x^3", "3*x^2*g", X**3, ("x",)),
        ("exp(x)", "y*g", sp.exp(X), ("y",)),
        ("sin(x)*x", "(cos(x)*x + y/x)*g", sp.sin(X) * X, ("x", "y")),
    ],
)
def test_written_backward_gives_sympys_first_and_second_derivatives(
    f: str, backward: str, exact: sp.Expr, saved: tuple
) -> None:
    run = run_custom(custom_spec(f, backward), GRID[GRID != 0])
    xs = np.array(run.points)
    np.testing.assert_allclose(run.first, _sympy(sp.diff(exact, X), xs), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(run.second, _sympy(sp.diff(exact, X, 2), xs), rtol=1e-10, atol=1e-12)
    assert run.saved == saved and run.error is None
    assert run.gradcheck.passed and run.gradgradcheck.passed


@pytest.mark.parametrize(
    ("variant", "hand"), [("written", Tanh), ("detached", TanhDetached), ("once", TanhOnce)]
)
def test_each_variant_matches_a_hand_written_function(variant: str, hand: type) -> None:
    built = make_function(custom_spec("tanh(x)", "(1 - y^2)*g"), variant)
    assert built.__name__ == "MyFunc"
    x = torch.tensor(GRID, dtype=torch.float64, requires_grad=True)
    ours = derivatives_through(built.apply, x)
    x2 = torch.tensor(GRID, dtype=torch.float64, requires_grad=True)
    theirs = derivatives_through(hand.apply, x2)
    assert torch.equal(ours[1], theirs[1])  # the first derivative, bit for bit
    assert ours[3] == theirs[3]  # the same error, or none
    if theirs[2] is None:
        assert ours[2] is None
    else:
        assert torch.equal(ours[2], theirs[2])
    run = run_custom(custom_spec("tanh(x)", "(1 - y^2)*g"), GRID, variant)
    for check, torch_check in (
        (run.gradcheck, torch.autograd.gradcheck),
        (run.gradgradcheck, torch.autograd.gradgradcheck),
    ):
        t = torch.tensor(GRID, dtype=torch.float64, requires_grad=True)
        assert check.passed == torch_check(hand.apply, (t,), raise_exception=False), check.name


def test_detached_is_the_silent_zero_and_once_raises_pytorchs_words() -> None:
    spec = custom_spec("x^3", "3*x^2*g")
    detached = run_custom(spec, GRID, "detached")
    assert detached.error is None and detached.second == (0.0,) * GRID.size  # nothing raised
    np.testing.assert_allclose(detached.first, 3 * GRID**2)  # the first derivative is right
    assert detached.gradcheck.passed and detached.gradgradcheck.passed is False
    assert detached.gradgradcheck.message.startswith("Jacobian mismatch")
    assert {m.input for m in detached.gradgradcheck.mismatches} == {0}  # the x entries
    once = run_custom(spec, GRID, "once")
    assert once.error == (
        "trying to differentiate twice a function that was marked with @once_differentiable"
    )
    assert all(math.isnan(v) for v in once.second)
    second = run_custom(spec, GRID, "second_function")
    np.testing.assert_allclose(second.second, 6 * GRID, atol=1e-12)
    assert second.gradcheck.passed and second.gradgradcheck.passed


def test_a_backward_that_ignores_g_passes_at_one_point_and_fails_on_a_grid() -> None:
    spec = custom_spec("x^3", "3*x^2")
    assert not spec.uses_g
    one = run_custom(spec, [1.5])  # the scalar check: y.backward() gives g = 1
    assert one.first == (3 * 1.5**2,)
    assert one.gradcheck.passed is False  # PyTorch also tries g = 0
    assert one.gradcheck.message == "backward not multiplied by grad_output"
    run = run_custom(spec, GRID)
    np.testing.assert_allclose(run.first, 3 * GRID**2)
    assert run.gradcheck.passed is False
    assert run.gradcheck.message.startswith("Jacobian mismatch")
    off = {(m.row, m.column) for m in run.gradcheck.mismatches}
    assert off and all(r != c for r, c in off)  # only off-diagonal entries differ
    t = torch.tensor(GRID, dtype=torch.float64, requires_grad=True)

    class Ignores(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * x**2

    assert not torch.autograd.gradcheck(Ignores.apply, (t,), raise_exception=False)


def test_a_wrong_derivative_fails_gradcheck_only() -> None:
    run = run_custom(custom_spec("x^3", "2*x*g"), GRID)
    assert run.gradcheck.passed is False and run.gradgradcheck.passed is True


def test_points_where_f_has_no_derivative_are_not_checked() -> None:
    run = run_custom(custom_spec("log(x)", "g/x"), [-1.0, 0.5, 2.0])
    assert [(s.x, s.reason) for s in run.skipped] == [(-1.0, "undefined")]
    assert run.gradcheck.points == (0.5, 2.0) and run.gradcheck.passed


def test_bad_input_is_refused_with_a_translated_key() -> None:
    with raises(ExpressionError, match="variable 'q'"):
        custom_spec("x^3", "3*x^2*q")
    with pytest.raises(ExpressionError):
        custom_spec("t^3", "g")
    spec = custom_spec("x^3", "3*x^2*g")
    with raises(BudgetError, match=f"expected 1 to {MAX_POINTS}, got {MAX_POINTS + 1}"):
        run_custom(spec, np.zeros(MAX_POINTS + 1))
    with raises(ArgumentError, match="expected finite numbers"):
        run_custom(spec, [math.nan])
    with raises(ArgumentError, match="variant"):
        run_custom(spec, [1.0], "sideways")
    assert set(VARIANTS) == {"written", "detached", "once", "second_function"}
