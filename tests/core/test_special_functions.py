"""lgamma, digamma, polygamma(n, x), erfinv and i0 (issue 46, item 9), against oracles hograd did
not write: mpmath's own functions differentiated by mpmath at 60 digits (or, for polygamma left
of 0, polygamma(n + k) itself at 200 digits), PyTorch's gradcheck and gradgradcheck, finite
differences; and where PyTorch's own formulas lose digits (i0 near 0, polygamma left of 0,
trigamma's last digits), that the app says so instead of passing the numbers off as right."""

from __future__ import annotations

import math
import re
import warnings

import mpmath
import numpy as np
import pytest
import torch

from hograd_core import FUNCTIONS, ExpressionError, parse
from hograd_core.forward_mode import forward_derivative
from hograd_core.inspector import AGREE_RTOL, disagreement_cause, disagreements
from hograd_core.inspector_exact import inspect_point
from hograd_core.language.to_cpp import cpp_source
from hograd_core.language.to_source import torch_source
from hograd_core.language.to_sympy import to_latex
from hograd_core.nested_autograd import derivatives, finite_differences
from hograd_core.point_notes import point_notes
from hograd_core.symbolic import symbolic_derivatives, sympy_values
from tests.english import raises

#: Each function as typed, mpmath's definition of it, and points inside its domain (both signs
#: where it has them; left of 0 away from the half-integers, where torch loses digits).
CASES = {
    "lgamma(x)": (lambda x: mpmath.log(abs(mpmath.gamma(x))), (-1.3, 0.3, 2.5, 7.0)),
    "digamma(x)": (mpmath.digamma, (-2.7, 0.3, 1.0, 4.5)),
    "polygamma(2, x)": (lambda x: mpmath.polygamma(2, x), (-0.4, 0.7, 2.5)),
    "polygamma(0, x)": (mpmath.digamma, (-2.7, 0.3, 4.5)),
    "erfinv(x)": (mpmath.erfinv, (-0.9, -0.2, 0.0, 0.3, 0.99)),
    "i0(x)": (lambda x: mpmath.besseli(0, x), (-2.0, 1.5, 4.0)),
}
ORDER = 8


def truth(text: str, x0: float, order: int = ORDER) -> np.ndarray:
    """mpmath's derivatives 0..order of the case at x0, at 60 digits, as float64."""
    f = CASES[text][0]
    with mpmath.workdps(60):
        return np.array([float(mpmath.diff(f, mpmath.mpf(x0), k)) for k in range(order + 1)])


def table(text: str) -> np.ndarray:
    return np.array([truth(text, x0) for x0 in CASES[text][1]]).T  # (orders, points)


def close(got: np.ndarray, want: np.ndarray, rtol: float) -> None:
    """Relative to each value, absolute below 1 in size (an exact 0 in erfinv's even orders)."""
    bad = np.abs(got - want) > rtol * np.maximum(1.0, np.abs(want))
    assert not bad.any(), f"orders {np.nonzero(bad)[0]}: {got[bad]} vs {want[bad]}"


def test_the_five_are_functions_of_the_language() -> None:
    assert {"lgamma", "digamma", "polygamma", "erfinv", "i0"} <= set(FUNCTIONS)


@pytest.mark.parametrize("text", CASES)
def test_taylor_mode_gives_mpmaths_derivatives_to_order_8(text: str) -> None:
    got = derivatives(parse(text), CASES[text][1], ORDER, method="taylor").values
    close(got, table(text), 1e-12)


@pytest.mark.parametrize("text", CASES)
def test_nested_autograd_gives_mpmaths_derivatives_to_order_8(text: str) -> None:
    # 1e-9, not 1e-12: torch's trigamma, polygamma(1, x), is right to about 3e-10 only
    got = derivatives(parse(text), CASES[text][1], ORDER, method="autograd").values
    close(got, table(text), 1e-9)


@pytest.mark.parametrize("text", CASES)
def test_forward_routes_give_the_same_to_order_3(text: str) -> None:
    fn, xs = parse(text), np.array(CASES[text][1])
    want = table(text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        for route in ("jvp", "forward_ad"):
            got = np.array([forward_derivative(fn, xs, k, route) for k in range(4)])
            close(got, want[:4], 1e-9)


@pytest.mark.parametrize("text", CASES)
def test_sympys_column_gives_mpmaths_derivatives_to_order_6(text: str) -> None:
    fn = parse(text)
    exact = symbolic_derivatives(fn, 6, max_seconds=60)
    assert exact.stopped is None
    for x0 in CASES[text][1]:
        got = np.array(sympy_values(exact.exprs, {"x": x0}))
        close(got, truth(text, x0, 6), 1e-14)


@pytest.mark.parametrize("text", CASES)
def test_finite_differences_agree_to_order_2(text: str) -> None:
    # a stencil's own error: 7e-5 for erfinv'' at 0.99, near the edge at 1; order 3 is left
    # out (1e-4 and more near a pole or an edge: digamma at 0.3, erfinv at 0.99)
    fn = parse(text)
    for x0 in CASES[text][1]:
        got = np.array(finite_differences(fn, x0, range(3)))
        close(got, truth(text, x0, 2), 1e-4)


@pytest.mark.parametrize("text", CASES)
def test_gradcheck_and_gradgradcheck_to_the_third_derivative(text: str) -> None:
    fn = parse(text)
    x = torch.tensor(CASES[text][1], dtype=torch.float64, requires_grad=True)

    def f(x: torch.Tensor) -> torch.Tensor:
        return fn.torch({"x": x})

    def slope(x: torch.Tensor) -> torch.Tensor:  # f', whose gradgradcheck checks f'''
        (g,) = torch.autograd.grad(f(x).sum(), x, create_graph=True)
        return g

    assert torch.autograd.gradcheck(f, (x,))
    assert torch.autograd.gradgradcheck(f, (x,))
    assert torch.autograd.gradgradcheck(slope, (x,))


def test_torchs_trigamma_is_right_to_about_3e_10_and_the_page_says_so() -> None:
    # lgamma'' = digamma' = polygamma(1): PyTorch's own trigamma keeps about 9.5 digits
    x = torch.tensor([0.31, 2.5, 7.0], dtype=torch.float64)
    got = torch.polygamma(1, x).numpy()
    want = np.array([float(mpmath.polygamma(1, v)) for v in x.tolist()])
    error = np.abs(got - want) / np.abs(want)
    assert 1e-11 < error.max() < 1e-9
    assert error.max() < AGREE_RTOL  # so the inspector does not call it a disagreement
    taylor = derivatives(parse("digamma(x)"), x.numpy(), 1, method="taylor").values[1]
    close(taylor, want, 1e-14)  # Taylor mode's comes from scipy, right to the last digits
    for text in ("lgamma(x)", "digamma(2*x)", "polygamma(1, x)"):
        assert [n.kind for n in point_notes(parse(text), 2.5)] == ["trigamma"]
    assert point_notes(parse("polygamma(2, x)"), 2.5) == ()  # its derivatives: polygamma(3...)


def test_i0_near_0_torch_loses_digits_and_the_app_says_so() -> None:
    fn = parse("i0(x)")
    inspection = inspect_point(fn, 0.0, 6)
    # I0 = 1 + x^2/4 + x^4/64 + x^6/2304: f'''' = 3/8 and f^(6) = 5/16 at 0
    assert [r.taylor for r in inspection.rows] == [1.0, 0.0, 0.5, 0.0, 0.375, 0.0, 0.3125]
    assert [r.autograd for r in inspection.rows][4:] == [0.0, 0.0, 0.0]  # torch's constant 1/2
    assert {d.order for d in disagreements(inspection)} == {4, 6}
    assert disagreement_cause(fn, inspection) == "torch_formula"
    assert [n.kind for n in point_notes(fn, 0.0)] == ["i0_near_zero"]
    assert [n.kind for n in point_notes(parse("i0(x - 1)"), 0.5)] == ["i0_near_zero"]
    assert point_notes(fn, 1.5) == ()  # 1.5 is one of CASES' points, all right by autograd
    # near 0 (not at it) torch's i0(a) - i1(a)/a cancels: order 5 at 1e-4 is far off
    got = derivatives(fn, [1e-4], 5, method="autograd").values[5, 0]
    with mpmath.workdps(60):
        want = float(mpmath.diff(lambda t: mpmath.besseli(0, t), mpmath.mpf(1e-4), 5))
    assert abs(got - want) > 1e-3 * abs(want)


def test_i1_near_0_torch_loses_digits_one_order_earlier_and_the_app_says_so() -> None:
    fn = parse("i1(x)")
    inspection = inspect_point(fn, 0.0, 7)
    # I1 = sum (x/2)^(2m+1)/(m!(m+1)!): the odd orders at 0 are C(2m+1, m)/2^(2m+1)
    odd = [math.comb(2 * m + 1, m) / 2 ** (2 * m + 1) for m in range(4)]
    assert [r.taylor for r in inspection.rows] == [0.0, odd[0], 0, odd[1], 0, odd[2], 0, odd[3]]
    assert [r.autograd for r in inspection.rows][3:] == [0.0] * 5  # torch's constant 1/2
    assert {d.order for d in disagreements(inspection)} == {3, 5, 7}
    assert disagreement_cause(fn, inspection) == "torch_formula"
    assert [n.kind for n in point_notes(fn, 0.0)] == ["i1_near_zero"]
    assert [n.kind for n in point_notes(parse("i1(x - 1)"), 0.5)] == ["i1_near_zero"]
    assert point_notes(fn, 1.5) == ()
    # near 0 the loss starts at order 2 (i0's at 3): far off by order 4 at 1e-4
    got = derivatives(fn, [1e-4], 4, method="autograd").values[4, 0]
    with mpmath.workdps(60):
        want = float(mpmath.diff(lambda t: mpmath.besseli(1, t), mpmath.mpf(1e-4), 4))
    assert abs(got - want) > 1e-3 * abs(want)
    taylor = derivatives(fn, [1e-4], 4, method="taylor").values[4, 0]
    assert taylor == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("x0", [-20.5, -10.5, -1.5, -3.2])
def test_polygamma_left_of_0_taylor_mode_is_right_where_torch_is_not(x0: float) -> None:
    fn = parse("polygamma(2, x)")
    got = derivatives(fn, [x0], 12, method="taylor").values[:, 0]
    with mpmath.workdps(200):  # polygamma(2 + k) itself, with digits to spare for cancelling
        want = np.array([float(mpmath.polygamma(2 + k, mpmath.mpf(x0))) for k in range(13)])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)
    assert [n.kind for n in point_notes(fn, x0)] == ["polygamma_left"]


def test_torch_polygamma_left_of_0_is_wrong_where_the_note_says_so() -> None:
    torch_value = torch.polygamma(10, torch.tensor(-20.5, dtype=torch.float64)).item()
    with mpmath.workdps(200):
        want = float(mpmath.polygamma(10, mpmath.mpf(-20.5)))
    assert round(torch_value / want) == 6  # the note's "6 times the truth"
    inspection = inspect_point(parse("polygamma(2, x)"), -20.5, 10)
    assert 8 in {d.order for d in disagreements(inspection)}  # autograd's polygamma(10)
    assert disagreement_cause(parse("polygamma(2, x)"), inspection) == "torch_formula"


@pytest.mark.parametrize(
    ("text", "x0"),
    [("lgamma(x)", -2.0), ("digamma(x + 1)", -1.0), ("polygamma(3, x)", 0.0), ("erfinv(x)", 1.0)]
    + [("erfinv(x/2)", -2.0)],
)
def test_poles_and_the_edges_of_erfinv_are_singular_points(text: str, x0: float) -> None:
    assert [n.kind for n in point_notes(parse(text), x0)] == ["singular"]


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("polygamma(x)", r"polygamma\(\) at column 1: expected two arguments.*got one"),
        ("polygamma(1.5, x)", r"order n at column 11: expected a whole number from 0 to 10.*'1.5'"),
        ("polygamma(x, x)", r"expected a whole number from 0 to 10 written without vari.*'x'"),
        ("polygamma(11, x)", r"expected a whole number from 0 to 10.*got '11'"),
        ("polygamma(-1, x)", r"expected a whole number from 0 to 10.*got '-1'"),
        ("erfinv(1)", r"erfinv needs an argument strictly between -1 and 1, got 1"),
        ("2*erfinv(-3)", r"erfinv needs an argument strictly between -1 and 1, got -3"),
        ("lgamma(0)", r"lgamma needs an argument that is not 0, -1, -2.*got 0"),
        ("digamma(-3)", r"digamma needs an argument that is not 0, -1, -2.*got -3"),
        ("polygamma(1, 1 - 3)", r"polygamma needs an argument that is not 0, -1, -2.*got -2"),
        ("lgamma(x, 2)", r"lgamma\(\) at column 1 takes exactly one argument"),
        ("gammaln(x)", r"'gammaln' at column 1 is not a known function; did you mean lgamma\?"),
        ("psi(x)", r"did you mean digamma\?"),
        ("gamma(x)", r"write gamma\(x\) = exp\(lgamma\(x\)\) where x > 0"),
    ],
)
def test_bad_orders_and_constants_outside_the_domain_are_refused(text: str, pattern: str) -> None:
    with raises(ExpressionError, match=pattern):
        parse(text)


def test_polygamma_takes_a_constant_order_and_folds_constants() -> None:
    assert parse("polygamma(1+1, x)").tree.index == 2
    assert parse("polygamma(0, x)").tree.index == 0
    folded = parse("polygamma(2, 3) + lgamma(-2.5) + erfinv(0.5) + i0(2) + digamma(1)")
    with mpmath.workdps(30):
        want = (
            mpmath.polygamma(2, 3)
            + mpmath.log(abs(mpmath.gamma(-2.5)))
            + mpmath.erfinv(0.5)
            + mpmath.besseli(0, 2)
            + mpmath.digamma(1)
        )
    assert folded.tree.const == pytest.approx(float(want), rel=1e-14)


@pytest.mark.parametrize(
    ("text", "python", "cpp", "latex"),
    [
        (
            "lgamma(x)",
            "torch.lgamma(x)",
            "torch::lgamma(x)",
            r"\ln\left|\Gamma\left(x\right)\right|",
        ),
        ("digamma(x)", "torch.digamma(x)", "torch::digamma(x)", r"\psi\left(x\right)"),
        ("polygamma(3, x)", "torch.polygamma(3, x)", "torch::polygamma(3, x)", r"\psi^{(3)}"),
        ("erfinv(x)", "torch.erfinv(x)", "torch::erfinv(x)", r"\operatorname{erfinv}"),
        ("i0(x)", "torch.i0(x)", "torch::i0(x)", r"I_{0}\left(x\right)"),
    ],
)
def test_each_backend_writes_it(text: str, python: str, cpp: str, latex: str) -> None:
    fn = parse(text)
    assert torch_source(fn) == python
    assert cpp_source(fn) == cpp
    assert latex in to_latex(fn.tree)


def test_the_taylor_polynomial_of_lgamma_follows_it() -> None:
    # lgamma's series at 2.5 converges out to the pole at 0: at 2.5 +- 1 the degree-20
    # polynomial is within 1e-6 of lgamma
    coeffs = derivatives(parse("lgamma(x)"), [2.5], 20, method="taylor").values[:, 0]
    for x in (1.5, 3.5):
        poly = sum(c / math.factorial(k) * (x - 2.5) ** k for k, c in enumerate(coeffs))
        assert poly == pytest.approx(math.lgamma(x), abs=1e-6)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_home_page_and_the_readme_list_every_function(lang: str) -> None:
    from pathlib import Path

    from hograd_ui.i18n import tr

    listed = set(re.findall(r"[a-z0-9]+", tr("home.syntax.body", lang)))
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = readme.split("## The function language")[1].split("\n## ")[0]
    assert set(FUNCTIONS) <= listed
    assert set(FUNCTIONS) <= set(re.findall(r"[a-z0-9]+", section))
