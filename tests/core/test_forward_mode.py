"""f⁽ⁿ⁾ by nested jvp, dual numbers (forward_ad), nested reverse mode and Taylor mode, each
against sympy's derivative of the same function written by hand; what each saves for backward
counted, and the limits refused before any work."""

import json

import numpy as np
import pytest
import sympy as sp

from hograd_cli.__main__ import main
from hograd_core.errors import ArgumentError, BudgetError
from hograd_core.forward_mode import FORWARD_BUDGET, forward_costs, forward_derivative
from hograd_core.language import parse
from tests.english import raises

s = sp.Symbol("s")
CASES = [
    ("sin(x)*exp(x)", sp.sin(s) * sp.exp(s), [0.7, -1.3]),
    ("log(1 + x^2)", sp.log(1 + s**2), [0.5, 2.0]),
    ("tanh(x)", sp.tanh(s), [0.3]),
    ("1/(1 + x^2)", 1 / (1 + s**2), [-0.4, 1.5]),
    ("x^3 - 2*x", s**3 - 2 * s, [1.25]),  # constant from order 3, zero after: no grad_fn left
]


def oracle(expr: sp.Expr, xs: list[float], k: int) -> np.ndarray:
    d = sp.diff(expr, s, k)
    return np.array([float(d.subs(s, x).evalf(30)) for x in xs])


@pytest.mark.parametrize(("text", "expr", "xs"), CASES)
@pytest.mark.parametrize("route", ["jvp", "forward_ad", "reverse", "taylor"])
def test_every_route_is_sympys_derivative(text: str, expr: sp.Expr, xs: list, route: str) -> None:
    fn = parse(text)
    top = FORWARD_BUDGET.max_order_jvp if route == "jvp" else FORWARD_BUDGET.max_order
    for k in range(top + 1):
        want = oracle(expr, xs, k)
        got = forward_derivative(fn, xs, k, route)
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10 * max(1, abs(want).max()))


def test_costs_hold_every_routes_values_and_what_each_saves() -> None:
    fn = parse("sin(x)*exp(x)")
    c = forward_costs(fn, [0.7], 4, rounds=1)
    for route in c.routes:
        np.testing.assert_allclose(
            c.values[route][:, 0],
            [oracle(sp.sin(s) * sp.exp(s), [0.7], k)[0] for k in range(5)],
            rtol=1e-12,
        )
        assert (c.seconds[route] > 0).all()
    assert (c.saved_bytes["jvp"] == 0).all()  # forward mode keeps nothing for a backward pass
    assert (np.diff(c.saved_bytes["reverse"]) > 0).all()  # each order saves more graph
    assert (np.diff(c.saved_bytes["forward_ad"]) > 0).all()


def test_limits_are_refused_before_work() -> None:
    with raises(BudgetError, match="order: expected 0 to 6 for jvp, got 7"):
        forward_derivative(parse("sin(x)"), [1.0], 7, "jvp")
    with raises(BudgetError, match="expected 0 to 8 for forward_ad, got 9"):
        forward_costs(parse("sin(x)"), [1.0], 9)
    with raises(ArgumentError, match="one variable, got x, y"):
        forward_derivative(parse("x*y"), [1.0], 1, "jvp")
    with raises(ArgumentError, match="route: expected one of"):
        forward_derivative(parse("x"), [1.0], 1, "backward")
    with raises(ArgumentError, match="points"):
        forward_derivative(parse("x"), [float("nan")], 1, "taylor")


def test_cli_forward_methods_and_costs(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "derivatives",
                "log(1 + x^2)",
                "--order",
                "4",
                "--at",
                "0.5",
                "--method",
                "jvp",
                "--costs",
                "--json",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    want = [oracle(sp.log(1 + s**2), [0.5], k)[0] for k in range(5)]
    np.testing.assert_allclose(np.array(out["values"])[:, 0], want, rtol=1e-12)
    assert set(out["costs"]) == {"jvp", "forward_ad", "reverse", "taylor"}
    assert all(c["largest_gap"] < 1e-12 for c in out["costs"].values())
    assert main(["derivatives", "sin(x)", "--at", "1", "--method", "forward_ad", "--cpp"]) == 2
    assert "leave out --method" in capsys.readouterr().err
