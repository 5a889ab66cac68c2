"""Gradient, Hessian and Hv of typed functions against independent oracles: closed forms worked
out by hand, sympy's symbolic Hessian, torch.func.hessian, finite differences of the gradient,
and gradcheck/gradgradcheck."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp
import torch

from hograd_core import HogradError, classify, hvp, parse
from hograd_core.curvature import _flat, _load_forward_ad  # f(w) for torch.func; quiet forward AD
from hograd_core.hessian import CRITICAL_TOLERANCE
from hograd_core.language.to_sympy import to_sympy
from tests.english import raises

SEED = ("w1**2*sin(w2)", [1.0, math.pi / 2], [0.5, 1.0])


def test_seed_example_to_1e12() -> None:
    text, point, vector = SEED
    r = hvp(parse(text), point, vector)
    assert r.variables == ("w1", "w2")
    np.testing.assert_allclose(r.gradient, [2.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(r.hvp, [1.0, -1.0], atol=1e-12)
    np.testing.assert_allclose(r.hessian, [[2.0, 0.0], [0.0, -1.0]], atol=1e-12)
    assert r.value == pytest.approx(1.0, abs=1e-12)
    assert r.curvature == pytest.approx(-0.4, abs=1e-12)  # vᵀHv/|v|² = (0.5 - 1)/1.25
    assert r.classification == "saddle" and not r.critical  # ∇f = (2, 0): not critical


# Hessians worked out by hand, as functions of the point.
CLOSED_FORMS = [
    ("x^2*y + y^3", [1.0, 2.0], lambda x, y: [[2 * y, 2 * x], [2 * x, 6 * y]]),
    (
        "exp(x*y)",
        [0.5, -1.5],
        lambda x, y: [
            [y * y * math.exp(x * y), (1 + x * y) * math.exp(x * y)],
            [(1 + x * y) * math.exp(x * y), x * x * math.exp(x * y)],
        ],
    ),
    (
        "(1 - x)^2 + 100*(y - x^2)^2",
        [-0.7, 0.3],
        lambda x, y: [[2 - 400 * y + 1200 * x * x, -400 * x], [-400 * x, 200.0]],
    ),
    (
        "sin(x)*cos(y)",
        [0.3, 1.1],
        lambda x, y: [
            [-math.sin(x) * math.cos(y), -math.cos(x) * math.sin(y)],
            [-math.cos(x) * math.sin(y), -math.sin(x) * math.cos(y)],
        ],
    ),
    ("log(x) + sqrt(y)", [2.0, 4.0], lambda x, y: [[-1 / x**2, 0.0], [0.0, -0.25 * y**-1.5]]),
    ("x^2 - y^2", [0.4, -2.0], lambda x, y: [[2.0, 0.0], [0.0, -2.0]]),
]


@pytest.mark.parametrize(("text", "point", "hessian"), CLOSED_FORMS)
def test_closed_form_hessians(text: str, point: list[float], hessian) -> None:
    v = np.array([0.7, -1.3])
    r = hvp(parse(text), point, v)
    expected = np.array(hessian(*point))
    np.testing.assert_allclose(r.hessian, expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(r.hvp, expected @ v, rtol=1e-12, atol=1e-12)
    assert np.allclose(r.hessian, r.hessian.T)


def test_quadratic_form_in_three_variables() -> None:
    # f = ½ wᵀAw has Hessian A everywhere.
    a = np.array([[4.0, 1.0, -2.0], [1.0, 3.0, 0.5], [-2.0, 0.5, 5.0]])
    names = ("a", "b", "c")
    terms = [f"{a[i, j] / 2}*{names[i]}*{names[j]}" for i in range(3) for j in range(3)]
    r = hvp(parse(" + ".join(terms)), [0.3, -1.0, 2.0], [1.0, 2.0, 3.0])
    np.testing.assert_allclose(r.hessian, a, atol=1e-12)
    np.testing.assert_allclose(r.hvp, a @ [1.0, 2.0, 3.0], atol=1e-12)
    np.testing.assert_allclose(r.eigenvalues, np.linalg.eigvalsh(a), atol=1e-12)


@pytest.mark.parametrize(
    ("text", "point"),
    [
        ("sin(a*b) + c^3*exp(-a)", [0.3, 1.2, -0.7]),
        ("tanh(x*y - z) + log(1 + x^2)*z", [1.0, -0.5, 2.0]),
        ("x1*x2*x3*x4 + sigmoid(x1 - x4)", [0.5, 1.5, -1.0, 2.0]),
    ],
)
def test_against_sympy_and_torch_func_hessian(text: str, point: list[float]) -> None:
    fn = parse(text)
    v = np.linspace(-1.0, 1.0, len(point))
    r = hvp(fn, point, v)
    symbols = [sp.Symbol(name, real=True) for name in fn.variables]
    expr = to_sympy(fn.tree)
    subs = dict(zip(symbols, point, strict=True))
    exact = np.array([[float(sp.diff(expr, a, b).subs(subs)) for b in symbols] for a in symbols])
    np.testing.assert_allclose(r.hessian, exact, rtol=1e-11, atol=1e-11)
    w = torch.tensor(point, dtype=torch.float64)
    _load_forward_ad()  # torch's own first-use DeprecationWarning, silenced as the app does
    functional = torch.func.hessian(_flat(fn))(w).numpy()
    np.testing.assert_allclose(r.hessian, functional, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(r.hvp, exact @ v, rtol=1e-11, atol=1e-11)


@pytest.mark.parametrize("text", ["w1**2*sin(w2)", "exp(x*y)/(1 + z^2)", "softplus(x - y)*y"])
def test_gradcheck_and_gradgradcheck(text: str) -> None:
    fn = parse(text)
    f = _flat(fn)
    w = torch.linspace(0.3, 1.1, len(fn.variables), dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(f, (w,))
    assert torch.autograd.gradgradcheck(f, (w,))


def test_hv_matches_a_finite_difference_of_the_gradient() -> None:
    # Hv = d/dh ∇f(p + h v) at h = 0: a central difference of two gradients, independent of
    # the second backward pass.
    fn = parse("sin(x)*exp(y) + x^3*y")
    p, v, h = np.array([0.4, -0.3]), np.array([1.0, 2.0]), 1e-5
    grad_at = lambda q: hvp(fn, q, v).gradient
    fd = (grad_at(p + h * v) - grad_at(p - h * v)) / (2 * h)
    np.testing.assert_allclose(hvp(fn, p, v).hvp, fd, rtol=1e-8)


@pytest.mark.parametrize(
    ("eigenvalues", "kind"),
    [
        ([1.0, 2.0], "minimum"),
        ([-3.0, -0.5], "maximum"),
        ([-1.0, 2.0], "saddle"),
        ([0.0, 1.0], "degenerate"),
        ([0.0, 0.0], "degenerate"),
        ([-1.0, 0.0], "degenerate"),
        ([1e-12, 5.0], "degenerate"),
        ([-1.0, 0.0, 1.0], "saddle"),
        ([np.nan, 1.0], "degenerate"),
        ([7.0], "minimum"),
    ],
)
def test_classify(eigenvalues: list[float], kind: str) -> None:
    assert classify(np.array(eigenvalues)) == kind


@pytest.mark.parametrize(
    ("text", "point", "kind", "critical"),
    [
        ("x^2 + y^2", [0, 0], "minimum", True),
        ("-x^2 - 3*y^2", [0, 0], "maximum", True),
        ("x^2 - y^2", [0, 0], "saddle", True),
        ("x^4 + y^4", [0, 0], "degenerate", True),
        ("x^3 + y^2", [0, 0], "degenerate", True),
        ("x^2 + y^2", [1, 0], "minimum", False),
    ],
)
def test_classification_of_points(text: str, point: list[float], kind: str, critical: bool) -> None:
    r = hvp(parse(text), point, [1.0, 1.0])
    assert (r.classification, r.critical) == (kind, critical)


def test_results_hold_numpy_not_tensors() -> None:
    r = hvp(parse(SEED[0]), SEED[1], SEED[2])
    for name in ("point", "vector", "gradient", "hessian", "hvp", "eigenvalues", "eigenvectors"):
        assert isinstance(getattr(r, name), np.ndarray) and getattr(r, name).dtype == np.float64
    assert isinstance(r.value, float) and isinstance(r.curvature, float)


@pytest.mark.parametrize(
    ("point", "vector", "message"),
    [
        ([1.0], [1.0, 1.0], r"point: expected 2 numbers \(one per variable: w1, w2\), got 1"),
        ([1.0, 2.0, 3.0], [1.0, 1.0], r"point: expected 2 numbers .* got 3"),
        ([1.0, 2.0], [1.0], r"vector: expected 2 numbers \(one per variable: w1, w2\), got 1"),
        ([1.0, float("nan")], [1.0, 1.0], r"point: expected finite numbers, got 1, nan"),
        ([1.0, 2.0], [float("inf"), 1.0], r"vector: expected finite numbers"),
        ([1.0, 2e7], [1.0, 1.0], r"point: every number must be at most 1e6 in size, got 1, 2e\+07"),
        (["a", "b"], [1.0, 1.0], r"point: '\[.a., .b.\]' is not a number"),
    ],
)
def test_bad_point_or_vector_is_refused(point: list, vector: list, message: str) -> None:
    with raises(HogradError, match=message):
        hvp(parse("w1**2*sin(w2)"), point, vector)


def test_function_without_variables_is_refused() -> None:
    with raises(HogradError, match="no variables"):
        hvp(parse("2 + 3"), [], [])


def test_more_than_ten_variables_is_refused() -> None:
    names = [f"x{i}" for i in range(11)]
    fn = parse("x0 + x1", variables=names)  # the caller named 11 variables
    with raises(HogradError, match="at most 10 variables for the Hessian, got 11"):
        hvp(fn, [0.0] * 11, [1.0] * 11)


@pytest.mark.parametrize(
    "point", [(0.004, 0.0), (0.0, 0.0), (4e-9, 0.0), (2e-8, -1e-9), (0.05, -0.05), (1.0, 0.0)]
)
def test_an_added_constant_changes_no_verdict(point: tuple[float, float]) -> None:
    """f and f + 10⁶ have the same gradient and Hessian, so the same verdict at every point;
    the critical-point test bounds the gradient alone (every |∂f/∂xᵢ| ≤ 1e-8)."""
    plain = hvp(parse("x^2 + y^2"), point, [1.0, 1.0])
    shifted = hvp(parse("1e6 + x^2 + y^2"), point, [1.0, 1.0])
    assert shifted.value == pytest.approx(1e6 + point[0] ** 2 + point[1] ** 2)
    assert (plain.critical, plain.classification) == (shifted.critical, shifted.classification)
    expected = max(abs(2 * point[0]), abs(2 * point[1])) <= CRITICAL_TOLERANCE  # ∇f = 2(x, y)
    assert plain.critical == expected
    assert plain.gradient_norm == pytest.approx(2 * math.hypot(*point))


def test_the_gradient_tolerance_is_the_stated_one() -> None:
    assert CRITICAL_TOLERANCE == 1e-8
    assert hvp(parse("x^2 + y"), [0.0, 0.0], [1.0, 1.0]).critical is False  # ∂f/∂y = 1
    assert hvp(parse("1e-9*x + y^2"), [3.0, 0.0], [1.0, 1.0]).critical is True  # 1e-9 ≤ 1e-8
    assert hvp(parse("1e-7*x + y^2"), [3.0, 0.0], [1.0, 1.0]).critical is False


@pytest.mark.parametrize(
    ("text", "extremum"),
    [("x^4 + y^4", "minimum"), ("-x^4 - y^4", "maximum"), ("x^4 - y^4", None), ("x^3 + y^2", None)],
)
def test_the_inconclusive_examples_the_page_names(text: str, extremum: str | None) -> None:
    """hvp.verdict.inconclusive: at 0 each is a critical point with a singular, semidefinite H
    (the test is inconclusive), and what it is, checked on a grid around 0: a minimum, a
    maximum, or neither (f takes values above and below f(0) arbitrarily close to 0)."""
    r = hvp(parse(text), [0.0, 0.0], [1.0, 1.0])
    assert r.critical and r.classification == "degenerate"
    fn = parse(text)
    for radius in (1e-1, 1e-2):
        t = np.linspace(-radius, radius, 41)
        xs, ys = np.meshgrid(t, t)
        z = fn.torch({"x": torch.tensor(xs), "y": torch.tensor(ys)}).numpy()
        z[20, 20] = np.nan  # f(0) = 0 itself
        above, below = np.nanmax(z) > 0, np.nanmin(z) < 0
        assert (above, below) == {"minimum": (True, False), "maximum": (False, True)}.get(
            extremum, (True, True)
        )
