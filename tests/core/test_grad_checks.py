"""PyTorch's gradcheck and gradgradcheck on typed functions (hograd_core.grad_checks).

The oracle for every verdict is PyTorch itself: the same call made directly. The oracles for
the entries that differ are closed forms of the derivatives of hand-written Functions.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch.autograd.gradcheck import GradcheckError

from hograd_core import BudgetError, parse
from hograd_core.errors import ArgumentError
from hograd_core.grad_checks import MAX_POINTS, check_callable, run_gradchecks
from tests.english import raises

POINTS = [-1.3, -0.4, 0.5, 2.0]


def direct(func, xs: list[float], second: bool = False) -> tuple[bool, str]:
    """PyTorch's verdict and message, asked directly (v = 1 for gradgradcheck)."""
    x = torch.tensor(xs, dtype=torch.float64, requires_grad=True)
    try:
        if second:
            v = torch.ones_like(x, requires_grad=True)
            torch.autograd.gradgradcheck(func, (x,), (v,))
        else:
            torch.autograd.gradcheck(func, (x,))
    except GradcheckError as err:
        return False, str(err)
    return True, ""


class WrongBackward(torch.autograd.Function):
    """x³ with the backward 2x²·g: a slip in the exponent's factor."""

    @staticmethod
    def forward(ctx, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, g: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        return 2 * x**2 * g


class DetachedBackward(torch.autograd.Function):
    """x³ with the right backward computed on a detached x: f' is right, f'' silently 0."""

    @staticmethod
    def forward(ctx, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, g: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        return 3 * x.detach() ** 2 * g


@pytest.mark.parametrize("text", ["x**3", "sin(x)*exp(-x^2)", "tanh(x)"])
def test_smooth_functions_pass_both_checks_as_pytorch_says(text: str) -> None:
    fn = parse(text)
    result = run_gradchecks(fn, POINTS)
    assert result.skipped == ()
    assert result.gradcheck.points == result.gradgradcheck.points == tuple(POINTS)
    assert result.gradcheck.passed is True and result.gradgradcheck.passed is True
    assert result.gradcheck.message == result.gradgradcheck.message == ""
    f = lambda x: fn.torch({"x": x})
    assert direct(f, POINTS) == (True, "") and direct(f, POINTS, second=True) == (True, "")


def test_the_seed_example_at_two() -> None:
    result = run_gradchecks(parse("x**3"), [2.0])
    assert (result.gradcheck.passed, result.gradgradcheck.passed) == (True, True)


def test_a_wrong_backward_fails_with_pytorchs_own_message() -> None:
    first, second = check_callable(WrongBackward.apply, POINTS)
    assert first.passed is False
    assert first.message == direct(WrongBackward.apply, POINTS)[1]
    assert first.message.startswith("Jacobian mismatch for output 0 with respect to input 0")
    # the Jacobian is diagonal: every diagonal entry differs, 3x² against 2x²
    assert [(m.input, m.row, m.column) for m in first.mismatches] == [(0, i, i) for i in range(4)]
    xs = np.array(POINTS)
    np.testing.assert_allclose([m.numerical for m in first.mismatches], 3 * xs**2, rtol=1e-8)
    np.testing.assert_allclose([m.analytical for m in first.mismatches], 2 * xs**2, rtol=1e-14)
    # gradgradcheck differentiates the backward as written, 2x²·v, against its own finite
    # difference: consistent with itself, so it passes (PyTorch says the same)
    assert second.passed is True
    assert direct(WrongBackward.apply, POINTS, second=True) == (True, "")


def test_a_detached_backward_passes_gradcheck_and_fails_gradgradcheck() -> None:
    first, second = check_callable(DetachedBackward.apply, POINTS)
    assert first.passed is True and first.mismatches == ()
    assert second.passed is False
    assert second.message == direct(DetachedBackward.apply, POINTS, second=True)[1]
    # d(3x²·v)/dx = 6x·v with v = 1, numerically; the detached backward records nothing: 0
    on_x = [m for m in second.mismatches if m.input == 0]
    assert [(m.row, m.column) for m in on_x] == [(i, i) for i in range(4)]
    np.testing.assert_allclose([m.numerical for m in on_x], 6 * np.array(POINTS), rtol=1e-8)
    assert [m.analytical for m in on_x] == [0.0] * 4
    assert not [m for m in second.mismatches if m.input == 1]  # d/dv = 3x², right


@pytest.mark.parametrize(
    ("text", "x0", "reason", "piece"),
    [
        ("relu(x)", 0.0, "kink", "relu(x)"),
        ("abs(x)", 0.0, "kink", "abs(x)"),
        ("abs(x - 1)", 1 + 5e-7, "kink", "abs(x-1)"),  # the stencil steps across the kink
        ("x*abs(x)", 0.0, "kink", "abs(x)"),  # differentiable once, but f' has the kink
        ("log(x)", -1.0, "undefined", ""),
        ("1/x", 0.0, "undefined", ""),
        ("log(x)", 5e-7, "edge", ""),
        ("sqrt(x)", 0.0, "edge", ""),
        ("exp(-1/x^2)", 0.0, "derivative", ""),
    ],
)
def test_where_f_has_no_ordinary_derivative_nothing_is_run(
    text: str, x0: float, reason: str, piece: str
) -> None:
    result = run_gradchecks(parse(text), [x0])
    assert [(s.x, s.reason, s.piece) for s in result.skipped] == [(x0, reason, piece)]
    assert result.gradcheck.passed is None and result.gradgradcheck.passed is None
    assert result.gradcheck.points == ()


def test_where_only_f2_is_not_finite_only_gradgradcheck_is_skipped() -> None:
    # |x|^2.5 written without abs: f'(0) = 0, but PyTorch's f''(0) is 0·∞ = NaN
    result = run_gradchecks(parse("(x^2)^1.25"), [0.0, 1.0])
    assert [(s.x, s.reason) for s in result.skipped] == [(0.0, "second")]
    assert result.gradcheck.points == (0.0, 1.0) and result.gradcheck.passed is True
    assert result.gradgradcheck.points == (1.0,) and result.gradgradcheck.passed is True


def test_a_kink_elsewhere_leaves_the_other_points_checked() -> None:
    result = run_gradchecks(parse("relu(x)"), [-1.0, 0.0, 1.0])
    assert [s.x for s in result.skipped] == [0.0]
    assert result.gradcheck.points == (-1.0, 1.0) and result.gradcheck.passed is True


def test_a_finite_difference_that_cannot_resolve_f_is_pytorchs_failure() -> None:
    # x·sin(1/x) at 0.0025 oscillates with a period of about 4e-5: eps = 1e-6 is too coarse
    fn = parse("x*sin(1/x)")
    result = run_gradchecks(fn, [0.0025])
    assert result.gradcheck.passed is False and result.skipped == ()
    assert result.gradcheck.message == direct(lambda x: fn.torch({"x": x}), [0.0025])[1]
    assert len(result.gradcheck.mismatches) == 1


def test_constant_and_identity_pass() -> None:
    for text in ("2", "x"):
        result = run_gradchecks(parse(text), [0.5])
        assert (result.gradcheck.passed, result.gradgradcheck.passed) == (True, True)


def test_bad_input_and_budgets_are_refused_before_any_work() -> None:
    with raises(BudgetError, match="gradcheck points: expected 1 to 100, got 101"):
        run_gradchecks(parse("x"), np.linspace(0, 1, MAX_POINTS + 1))
    with raises(ArgumentError, match="expected finite numbers, got nan"):
        run_gradchecks(parse("x"), [0.0, float("nan")])
    with raises(ArgumentError, match="one variable"):
        run_gradchecks(parse("x*y"), [0.0])
    # the probe sizes the second-order graph first: over its limit, nothing is built
    asked = []

    def refusing_probe(fn, order):
        asked.append(order)

    with raises(BudgetError, match="graph nodes per point"):
        run_gradchecks(parse("x**3"), [2.0], probe=refusing_probe)
    assert asked == [2]
    # a large graph on many points: over the work budget
    big = "*".join(["tanh(sin(x)+exp(x/3))"] * 6)
    with raises(BudgetError, match="node visits"):
        run_gradchecks(parse(big), np.linspace(-1, 1, MAX_POINTS))
