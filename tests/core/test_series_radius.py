"""The radius of convergence the Taylor tab shows, against closed forms: |x0 ± i| for
1/(1+x²), log(1+x²) and atan; |x0 ± iπ/2| for tanh; |x0 ± iπ| for sigmoid; |x0| for 1/x, log and
sqrt; inf (exactly) for functions with no singularity; and that the Taylor polynomial really
diverges outside R and converges inside."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hograd_core import parse
from hograd_core.inspector import taylor_polynomial
from hograd_core.series_radius import series_radius

CLOSED_FORMS = {
    "1/(1+x^2)": lambda x0: math.hypot(x0, 1.0),
    "log(1+x^2)": lambda x0: math.hypot(x0, 1.0),
    "atan(x)": lambda x0: math.hypot(x0, 1.0),
    "tanh(x)": lambda x0: math.hypot(x0, math.pi / 2),
    "sigmoid(x)": lambda x0: math.hypot(x0, math.pi),
    "softplus(x)": lambda x0: math.hypot(x0, math.pi),
    "1/x": abs,
    "log(x)": abs,  # for x0 > 0
    "sqrt(x)": abs,  # for x0 > 0
    "1/(x^2-4)": lambda x0: 2 - abs(x0),  # for 0.5 <= |x0| < 2 (nearer to one pole)
}
POINTS = [float(v) for v in np.linspace(-2.9, 2.9, 30)]


@pytest.mark.parametrize("text", CLOSED_FORMS)
def test_radius_matches_the_closed_form_within_one_percent(text: str) -> None:
    fn, closed = parse(text), CLOSED_FORMS[text]
    checked = 0
    for x0 in POINTS + [0.0, 0.5, 1e-3]:
        if (text in ("log(x)", "sqrt(x)") and x0 <= 0) or (text == "1/x" and x0 == 0):
            continue  # no series: f is not finite at x0 (tested below)
        if text == "1/(x^2-4)" and not 0.5 <= abs(x0) < 2:
            continue  # two poles almost as near: the coefficients settle slowly, see below
        got = series_radius(fn, x0)
        assert got.estimated and got.why is None, (text, x0, got)
        assert got.radius == pytest.approx(closed(x0), rel=0.01), (text, x0)
        checked += 1
    assert checked >= 15


@pytest.mark.parametrize(
    "text", ["x**3", "sin(x)", "exp(x)", "sin(x)*exp(-x^2)", "cosh(x)*erf(x)", "2**x", "x/3"]
)
def test_functions_without_singularities_converge_everywhere_exactly(text: str) -> None:
    got = series_radius(parse(text), 0.7)
    assert got.radius == math.inf and not got.estimated and not got.kinks


def test_kinks_count_as_their_pieces_and_are_flagged() -> None:
    got = series_radius(parse("abs(x) + relu(x - 1)"), 0.5)
    assert got.radius == math.inf and got.kinks


def test_no_radius_where_f_is_not_finite_or_the_coefficients_do_not_settle() -> None:
    assert series_radius(parse("log(x)"), -1.0).why == "not_finite"
    assert series_radius(parse("1/x"), 0.0).why == "not_finite"
    unsettled = series_radius(parse("x*sin(1/x)"), 0.5)  # an essential singularity at 0
    assert unsettled.why == "unsettled" and math.isnan(unsettled.radius)
    # poles at 2 and -2, at distances 2.1 and 1.9: 60 coefficients do not settle, and the tab
    # says so rather than show a number that 40 of them would contradict
    assert series_radius(parse("1/(x^2-4)"), 0.1).why == "unsettled"


def test_inside_r_the_polynomial_closes_in_and_outside_it_runs_away() -> None:
    """1/(1+x²) at 0 (R = 1): at x = 0.5 degree 20 is closer than degree 10; at x = 1.5 it is
    farther, and the gap grows without bound; sin converges at 2.5 for the same degrees."""
    fn = parse("1/(1+x^2)")
    xs = np.array([0.5, 1.5])
    f = 1 / (1 + xs**2)
    err = {n: np.abs(taylor_polynomial(fn, 0.0, n, xs) - f) for n in (10, 20, 30)}
    assert err[20][0] < err[10][0] / 100  # inside: closer
    assert err[10][1] < err[20][1] < err[30][1]  # outside: farther with every step
    sine = parse("sin(x)")
    sin_err = {n: abs(taylor_polynomial(sine, 0.0, n, np.array([2.5]))[0] - math.sin(2.5))
               for n in (9, 19)}  # fmt: skip
    assert sin_err[19] < sin_err[9] / 1000
