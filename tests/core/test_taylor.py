"""Taylor mode against independent oracles: sympy's exact derivatives, nested autograd, closed
forms and the seed's worked example."""

from __future__ import annotations

import math
import zlib

import numpy as np
import pytest
import torch

import hograd_core
from hograd_core import ArgumentError, BudgetError, parse
from hograd_core.nested_autograd import autograd_rows
from hograd_core.symbolic import symbolic_derivatives, sympy_value
from hograd_core.taylor import taylor_derivatives
from tests.english import raises

# Every function of the language (and every operator and kind of power), each in one or more
# expressions sampled on an interval inside its domain.
CASES: dict[str, tuple[str, tuple[float, float]]] = {
    "sin": ("sin(x)", (-3, 3)),
    "sin_inner": ("sin(x**2 - 1)", (-1.5, 1.5)),
    "cos": ("cos(x)*x", (-3, 3)),
    "tan": ("tan(x)", (-1.2, 1.2)),
    "asin": ("asin(x)", (-0.9, 0.9)),
    "asin_inner": ("asin(0.4*x + 0.1)", (-2, 2)),
    "acos": ("acos(x/2)", (-1.8, 1.8)),
    "atan": ("atan(2*x - 1)", (-2, 2)),
    "sinh": ("sinh(x)/3", (-2, 2)),
    "cosh": ("cosh(0.7*x)", (-2, 2)),
    "tanh": ("tanh(x)", (-2, 2)),
    "exp": ("exp(-x^2)", (-2, 2)),
    "log": ("log(x)", (0.2, 3)),
    "log_inner": ("log(1 + x^2)", (-2, 2)),
    "sqrt": ("sqrt(x)", (0.2, 3)),
    "sqrt_inner": ("sqrt(2 + sin(x))", (-2, 2)),
    "abs": ("abs(x)*x", (-2, 2)),
    "abs_inner": ("abs(sin(x))", (-3, 3)),
    "sigmoid": ("sigmoid(2*x)", (-3, 3)),
    "softplus": ("softplus(x)", (-3, 3)),
    "relu": ("relu(x)**3", (-2, 2)),
    "relu_inner": ("relu(x - 0.5)*cos(x)", (-2, 2)),
    "erf": ("erf(x)", (-2, 2)),
    "erfc": ("erfc(x)", (-2, 2)),
    "expm1": ("expm1(x)", (-2, 2)),
    "log1p": ("log1p(x)", (-0.5, 3)),
    "asinh": ("asinh(x)", (-3, 3)),
    "acosh": ("acosh(x)", (1.2, 4)),
    "atanh": ("atanh(x)", (-0.8, 0.8)),
    "lgamma": ("lgamma(x)", (0.2, 6)),
    "lgamma_negative": ("lgamma(x)", (-2.9, -2.1)),  # log|gamma|, between two poles
    "digamma": ("digamma(2*x + 3)", (-1.2, 2)),
    "polygamma": ("polygamma(3, x)", (0.5, 4)),
    "polygamma_inner": ("polygamma(2, x**2 + 1)*x", (-1.5, 1.5)),  # trigamma: own file
    "erfinv": ("erfinv(x)", (-0.95, 0.95)),
    "erfinv_inner": ("erfinv(sin(x)/2)", (-3, 3)),
    "i0": ("i0(x)", (1, 4)),  # torch's own derivatives of i0 lose digits within 1 of 0
    "i0_inner": ("i0(x**2 - 2)*x", (-1, 1)),
    "i1": ("i1(x)", (1, 4)),  # torch's derivatives of i1 lose digits within 1 of 0 too
    "i1_inner": ("i1(x**2 - 2)*x", (-1, 1)),
    "add_sub_neg": ("-x + 3 - x**2", (-2, 2)),
    "mul": ("x*sin(x)*exp(x)", (-2, 2)),
    "div": ("sin(x)/(1 + x**2)", (-2, 2)),
    "div_const": ("(x**2 + 1)/pi", (-2, 2)),
    "reciprocal": ("1/x", (0.3, 2)),
    "int_power": ("x**7 - 3*x**4", (-2, 2)),
    "neg_power": ("x**-3", (0.4, 2)),
    "real_power": ("x**2.5", (0.2, 3)),
    "real_power_neg": ("(1 + x^2)**(-1.5)", (-2, 2)),
    "half_power": ("x**0.5", (0.2, 3)),
    "x_to_x": ("x**x", (0.3, 2)),
    "const_base": ("2**x", (-2, 2)),
    "e_base": ("e**(-x)", (-2, 2)),
    "var_exponent": ("(x + 1)**x", (-0.5, 2)),
    "seed": ("sin(x)*exp(-x^2)", (-2, 2)),
    "runge": ("1/(1+x^2)", (-2, 2)),
}


def _seed(name: str) -> int:
    return zlib.crc32(name.encode())


def _agree(got: np.ndarray, want: np.ndarray, rel: float) -> np.ndarray:
    """Relative agreement; values below 1 in size are compared absolutely (no cancellation)."""
    return np.abs(got - want) <= rel * np.maximum(1.0, np.maximum(np.abs(got), np.abs(want)))


def test_every_function_of_the_language_is_covered() -> None:
    names = {name.split("_")[0] for name in CASES}
    assert set(hograd_core.FUNCTIONS) <= names


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_sympy_orders_0_to_8_at_random_points(name: str) -> None:
    text, (low, high) = CASES[name]
    fn = parse(text)
    xs = np.random.default_rng(_seed(name)).uniform(low, high, size=4)
    values, _ = taylor_derivatives(fn, xs, 8)
    exact = symbolic_derivatives(fn, 8, max_ops=100_000, max_seconds=60)
    assert exact.stopped is None
    for k, expr in enumerate(exact.exprs):
        want = np.array([sympy_value(expr, {"x": float(x0)}) for x0 in xs])
        assert np.all(np.isfinite(want)), f"{text}: pick points inside the domain"
        ok = _agree(values[k], want, 1e-9)
        assert ok.all(), f"{text}: order {k} at {xs[~ok]}: {values[k][~ok]} vs {want[~ok]}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_nested_autograd_on_a_grid(name: str) -> None:
    text, (low, high) = CASES[name]
    fn = parse(text)
    # Random points: torch's pow backward drops a term where an exponent is exactly 0, so
    # nested autograd is wrong for x**x at integers from order 4 (sympy agrees with Taylor).
    xs = np.sort(np.random.default_rng(_seed(name) + 1).uniform(low, high, size=200))
    values, _ = taylor_derivatives(fn, xs, 8)
    x = torch.tensor(xs, dtype=torch.float64, requires_grad=True)
    rows, _, _ = autograd_rows(fn, x, 8)
    want = torch.stack([r.detach() for r in rows]).numpy()
    assert np.array_equal(np.isfinite(values), np.isfinite(want))
    ok = _agree(values, want, 1e-9)
    assert ok.all(), f"{text}: orders {np.nonzero(~ok)[0]}, worst at x={xs[np.nonzero(~ok)[1]]}"


@pytest.mark.parametrize(
    "text",
    ["abs(x)", "relu(x)", "abs(x)**3", "x*abs(x)", "relu(x)*x", "relu(x**2 - 1)", "abs(sin(x))"],
)
def test_one_sided_conventions_match_autograd_at_the_kinks(text: str) -> None:
    # The grid holds the kinks exactly (0, +-1, and pi is not a grid point but sin's 0 is).
    xs = np.array([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0])
    fn = parse(text)
    values, _ = taylor_derivatives(fn, xs, 6)
    rows, _, _ = autograd_rows(fn, torch.tensor(xs, dtype=torch.float64, requires_grad=True), 6)
    want = torch.stack([r.detach() for r in rows]).numpy()
    np.testing.assert_allclose(values, want, rtol=1e-12, atol=1e-12)


def test_seed_example_x_cubed_at_2() -> None:
    values, constant_from = taylor_derivatives(parse("x**3"), np.array([2.0]), 3)
    assert values[:, 0].tolist() == [8.0, 12.0, 12.0, 6.0]
    assert constant_from == 3


@pytest.mark.parametrize("text", ["x**3", "(x - 1)**4", "3*x**2 - x + 5", "x**5/7", "(2*x+1)**3"])
def test_polynomials_are_exact_at_zero(text: str) -> None:
    fn = parse(text)
    values, _ = taylor_derivatives(fn, np.array([0.0]), 8)
    exact = symbolic_derivatives(fn, 8, max_seconds=600)  # all 9, on a busy machine too
    want = [sympy_value(expr, {"x": 0.0}) for expr in exact.exprs]
    np.testing.assert_allclose(values[:, 0], want, rtol=1e-15, atol=0)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("x**3", 3),
        ("2*x", 1),
        ("7", 0),
        ("pi*e", 0),
        ("x**0", 0),
        ("x/2", 1),
        ("(x**2 + 1)**3", 6),
        ("-(x - 1)*(x + 2)", 2),
        ("x - x", 1),
        ("sin(x)", None),
        ("1/x", None),
        ("x**0.5", None),
        ("abs(x)", None),
        ("2**x", None),
        ("x**-2", None),
        ("relu(x)", None),
        ("sin(1)*x**2", 2),
    ],
)
def test_constant_from_is_the_polynomial_degree(text: str, expected: int | None) -> None:
    fn = parse(text)
    xs = np.linspace(-2, 2, 9)
    values, constant_from = taylor_derivatives(fn, xs, 8)
    assert constant_from == expected
    if expected is not None:
        assert np.all(values[expected + 1 :] == 0.0)
        # The highest non-zero derivative of a polynomial is the same number everywhere.
        np.testing.assert_allclose(values[expected], values[expected][0], rtol=1e-12)


def test_undefined_points_are_flagged_not_raised() -> None:
    xs = [-1.0, 0.0, 1.0]
    log = hograd_core.derivatives(parse("log(x)"), xs, 4, method="taylor")
    assert np.isnan(log.values[0, 0]) and log.values[0, 1] == -np.inf
    assert log.nonfinite[0] == 2 and np.all(np.isfinite(log.values[:, 2]))
    inverse = hograd_core.derivatives(parse("1/x"), xs, 4, method="taylor")
    assert not np.any(np.isfinite(inverse.values[:, 1]))
    assert inverse.nonfinite == (1,) * 5
    np.testing.assert_allclose(inverse.values[:, 2], [1, -1, 2, -6, 24])  # (-1)^k k! / x^(k+1)
    sqrt = hograd_core.derivatives(parse("sqrt(x) + asin(x)"), [-2.0, 2.0], 3, method="taylor")
    assert np.all(np.isnan(sqrt.values))


@pytest.mark.parametrize("text", ["sin(x)", "tanh(x)"])
def test_order_30_runs_and_is_finite(text: str) -> None:
    xs = np.linspace(-3, 3, 61)
    result = hograd_core.derivatives(parse(text), xs, 30, method="taylor")
    assert result.values.shape == (31, 61) and np.all(np.isfinite(result.values))
    if text == "sin(x)":  # closed form: the k-th derivative of sin is sin(x + k pi/2)
        want = np.array([np.sin(xs + k * np.pi / 2) for k in range(31)])
        np.testing.assert_allclose(result.values, want, rtol=0, atol=1e-12)
    else:  # tanh is odd: even derivatives vanish at 0; tanh^(k)(0) from sympy's series
        assert np.all(result.values[::2, 30] == 0.0)
        assert result.values[29, 30] == pytest.approx(_tanh_taylor_at_zero(29), rel=1e-12)


def _tanh_taylor_at_zero(k: int) -> float:
    import sympy as sp

    x = sp.Symbol("x")
    return float(sp.series(sp.tanh(x), x, 0, k + 1).removeO().coeff(x, k) * math.factorial(k))


def test_public_api_returns_a_taylor_result() -> None:
    fn = parse("sin(x)*exp(-x^2)")
    xs = np.linspace(-2, 2, 101)
    taylor = hograd_core.derivatives(fn, xs, 10, method="taylor")
    nested = hograd_core.derivatives(fn, xs, 10, method="autograd")
    assert taylor.method == "taylor" and taylor.values.dtype == np.float64
    assert taylor.values.shape == (11, 101) and taylor.graph_nodes == ()
    assert taylor.constant_from is None and taylor.nonfinite == (0,) * 11
    assert _agree(taylor.values, nested.values, 1e-9).all()
    assert hograd_core.derivatives(parse("x**3"), [2.0], 5, method="taylor").constant_from == 3


def test_public_api_bounds() -> None:
    fn = parse("tanh(x)")
    hograd_core.derivatives(fn, [0.5], 30, method="taylor")
    with raises(BudgetError, match="order: expected 0 to 30, got 31"):
        hograd_core.derivatives(fn, [0.5], 31, method="taylor")
    with raises(ArgumentError, match="x, y"):
        taylor_derivatives(parse("x*y"), np.array([1.0]), 2)


def test_constant_function_and_order_zero() -> None:
    values, constant_from = taylor_derivatives(parse("sin(1) + pi"), np.array([0.0, 5.0]), 3)
    np.testing.assert_array_equal(values, [[math.sin(1) + math.pi] * 2, [0, 0], [0, 0], [0, 0]])
    assert constant_from == 0
    values, _ = taylor_derivatives(parse("exp(x)"), np.array([0.0, 1.0]), 0)
    np.testing.assert_allclose(values, [[1.0, math.e]], rtol=1e-15)
