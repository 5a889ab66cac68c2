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
    sin_err = {
        n: abs(taylor_polynomial(sine, 0.0, n, np.array([2.5]))[0] - math.sin(2.5)) for n in (9, 19)
    }
    assert sin_err[19] < sin_err[9] / 1000


# ---- an estimate only when it is one, with its accuracy (issue 36, item 7) ------------------
# The oracle: the true radius, the distance from x0 to the nearest complex singularity of f,
# worked out by hand for each function (a removable singularity is none).
TRUE_RADIUS = {
    # rational functions: the nearest zero of the denominator
    ("1/((x-2)*(x+3))", 0.0): 2.0,
    ("(x+1)/(x-3)", 0.5): 2.5,
    ("x/(x^2+4)", 1.0): math.sqrt(5),  # poles at ±2i
    ("1/(1+x^2)", -1.7): math.hypot(1.7, 1.0),
    ("1/(1+x^2)^2", 2.0): math.sqrt(5),
    ("1/(x^2-2*x+5)", 0.0): math.sqrt(5),  # poles at 1 ± 2i
    # log and sqrt: their branch points
    ("log(x)", 0.5): 0.5,
    ("log(x)", 2.0): 2.0,
    ("log(3-x)", 1.0): 2.0,
    ("log(1+x^2)", 1.0): math.sqrt(2),
    ("sqrt(x)", 1.0): 1.0,
    ("sqrt(4-x)", 1.0): 3.0,
    ("sqrt(1+x^2)", 0.0): 1.0,
    # tan: the poles at ±π/2; atan: the branch points at ±i
    ("tan(x)", 0.3): math.pi / 2 - 0.3,
    ("tan(x)", -1.0): math.pi / 2 - 1.0,
    ("atan(x)", 1.0): math.sqrt(2),
    # entire functions, built so that the structure does not show it (removable singularities)
    ("sin(x)/x", 1.0): math.inf,
    ("sin(x)/x", 2.5): math.inf,
    ("(exp(x)-1)/x", 0.5): math.inf,
    ("(1-cos(x))/x^2", 1.0): math.inf,
    ("sinh(x)/x", 1.5): math.inf,
    ("sin(x)^2/x", -0.8): math.inf,
    # essential singularities at 0
    ("exp(1/x)", 1.0): 1.0,
    ("x*sin(1/x)", 0.3): 0.3,
    ("exp(-1/x^2)", 1.0): 1.0,
    ("sin(1/x)", 0.5): 0.5,
}
#: poles and branch points: an estimate must be given, and be this accurate (relative)
CLEAR = 0.01


@pytest.mark.parametrize(("text", "x0"), list(TRUE_RADIUS))
def test_a_radius_is_stated_only_when_true_within_its_accuracy(text: str, x0: float) -> None:
    true = TRUE_RADIUS[text, x0]
    got = series_radius(parse(text), x0)
    if math.isinf(true):
        assert got.radius == math.inf or (math.isnan(got.radius) and got.why), got
        return
    if math.isfinite(got.radius):
        assert abs(got.radius - true) <= got.accuracy, (got, true)
    essential = "1/x" in text
    if not essential:
        assert math.isfinite(got.radius), got  # a clear singularity gets its radius
        assert got.accuracy <= CLEAR * true, got
    else:
        assert math.isnan(got.radius) and got.why == "unsettled", got


def test_rounding_noise_is_named_not_read_as_a_pole() -> None:
    """sin(x)/x at 1: the coefficients fall to rounding by order ~18, and the rounding then
    grows as if from a pole at 0 (|x0 - 0| = 1): that must not become R ≈ 1."""
    got = series_radius(parse("sin(x)/x"), 1.0)
    assert got.why == "rounding" and math.isnan(got.radius)
