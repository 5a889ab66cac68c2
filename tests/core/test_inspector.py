"""The point inspector's truths: when two answers agree (NaN included), which values are
conventions, what finite differences are worth, what the PyTorch snippet's comment promises,
and what the cost tab measures. Oracles: sympy, closed forms, torch run directly."""

from __future__ import annotations

import contextlib
import io
import math
import re

import numpy as np
import pytest
import sympy as sp
import torch

from hograd_core import parse
from hograd_core.inspector import (
    AGREE_RTOL,
    MAX_FD_ORDER,
    agrees,
    cost_profile,
    disagreement_cause,
    disagreements,
    pytorch_snippet,
)
from hograd_core.inspector_exact import inspect_point, sympy_costs
from hograd_core.nested_autograd import finite_differences
from hograd_core.point_notes import PointNote, point_notes
from hograd_ui.i18n import tr

X = sp.Symbol("x", real=True)


# ---- agreement, NaN included (issue 14, items 5 and 13 of issue 13) ---------------------------


@pytest.mark.parametrize(
    ("value", "reference", "same"),
    [
        (1.0, 1.0 + 1e-12, True),
        (1e6, 1e6 * (1 + 1e-9), True),  # relative above 1 in size
        (1e-12, 0.0, True),  # absolute below 1
        (1.0, 1.0 + 1e-6, False),
        (math.nan, 0.0, False),  # sqrt(x**2) at 0: autograd NaN, sympy 0
        (0.0, math.nan, False),
        (math.nan, math.nan, True),
        (math.inf, math.inf, True),
        (math.inf, -math.inf, False),
        (math.inf, 1e308, False),
    ],
)
def test_agreement_is_nan_aware(value: float, reference: float, same: bool) -> None:
    assert agrees(value, reference) is same


def test_the_old_comparison_missed_nan() -> None:
    """The page used to warn when `abs(a - b) > tol`: False for NaN, so it never fired."""
    old = abs(math.nan - 0.0) > AGREE_RTOL * max(1.0, 0.0)
    assert old is False and agrees(math.nan, 0.0) is False


def test_every_disagreement_is_listed_nan_included() -> None:
    ins = inspect_point(parse("sqrt(x^2)"), 0.0, 3)
    found = {(d.order, d.method) for d in disagreements(ins)}
    assert math.isnan(ins.rows[1].autograd) and ins.rows[1].sympy == 0.0
    assert (1, "autograd") in found and (1, "taylor") in found  # NaN beside sympy's 0
    assert disagreements(inspect_point(parse("tanh(x)"), 0.5, 6)) == ()


def test_power_with_a_variable_exponent_is_named_as_the_cause() -> None:
    """x**x at 1: nested autograd's third derivative is 2, sympy's (exact) 3."""
    ins = inspect_point(parse("x**x"), 1.0, 3)
    d = next(d for d in disagreements(ins) if d.method == "autograd")
    assert (d.order, d.value, d.expected) == (3, 2.0, pytest.approx(3.0))
    assert float(sp.diff(X**X, X, 3).subs(X, 1)) == 3.0
    assert disagreement_cause(parse("x**x"), ins) == "power"
    assert disagreement_cause(parse("sqrt(x^2)"), inspect_point(parse("sqrt(x^2)"), 0.0, 2)) == (
        "convention"
    )


# ---- conventions at kinks, poles and 0**b (items 5 and 9) ------------------------------------


def test_sympy_follows_torchs_abs_convention_and_gets_the_true_value_of_abs_cubed() -> None:
    """|x|³ at 0: f″ = 6|x| → 0 is the true value; sympy's column used to be NaN there."""
    ins = inspect_point(parse("abs(x)**3"), 0.0, 3)
    assert [r.sympy for r in ins.rows[:3]] == [0.0, 0.0, 0.0]
    x = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
    (d1,) = torch.autograd.grad(torch.abs(x), x, create_graph=True)
    assert d1.item() == 0.0  # torch's abs'(0) = sign(0) = 0, the convention sympy now copies
    assert inspect_point(parse("abs(x)"), 0.0, 2).rows[1].sympy == 0.0
    assert inspect_point(parse("abs(x)"), -0.5, 2).rows[1].sympy == -1.0  # away from the kink


@pytest.mark.parametrize(
    ("text", "x0", "notes"),
    [
        ("abs(x)", 0.0, (PointNote("abs", "abs(x)"),)),
        ("relu(x - 1)", 1.0, (PointNote("relu", "relu(x-1)"),)),
        ("relu(x)", 0.5, ()),
        ("1/x", 0.0, (PointNote("singular", "1/x"),)),
        ("log(x)", 0.0, (PointNote("singular", "log(x)"),)),
        ("sqrt(x)", 0.0, (PointNote("singular", "sqrt(x)"),)),
        ("x**2", 0.0, ()),
        ("x**-1", 0.0, (PointNote("singular", "x**(-1)"),)),
        ("x**2.5", 0.0, (PointNote("singular", "x**2.5"),)),
        ("asin(x)", 1.0, (PointNote("singular", "asin(x)"),)),
        ("0**x", 2.0, (PointNote("zero_power", "0**x"),)),
        ("x*sin(1/x)", 0.0, (PointNote("singular", "1/x"),)),
    ],
)
def test_point_notes_find_each_piece_without_a_derivative(
    text: str, x0: float, notes: tuple[PointNote, ...]
) -> None:
    assert point_notes(parse(text), x0) == notes


def test_a_kink_is_flagged_where_the_finite_difference_sees_it() -> None:
    """abs(x) and relu(x) at 0: f″ = 0 by convention beside a finite difference of ~16,422
    (abs) and ~8,211 (relu); the inspection carries the note the page shows."""
    for text, kind in (("abs(x)", "abs"), ("relu(x)", "relu")):
        ins = inspect_point(parse(text), 0.0, 2)
        assert ins.rows[2].taylor == ins.rows[2].autograd == ins.rows[2].sympy == 0.0
        assert ins.rows[2].finite_difference > 1000
        assert [n.kind for n in ins.notes] == [kind]


def test_the_zero_power_note_states_what_each_method_does() -> None:
    """0**b: 0 for b > 0 (all derivatives 0), 0**0 = 1 by convention, NaN from torch's second
    derivative where b ≥ 0: the page's note says exactly this."""
    assert 0**0 == 1 and torch.pow(torch.tensor(0.0), torch.tensor(0.0)).item() == 1.0
    for x0 in (0.0, 1.0, 2.5):
        ins = inspect_point(parse("0**x"), x0, 3)
        assert [r.taylor for r in ins.rows[1:]] == [0.0, 0.0, 0.0]
        auto = [r.autograd for r in ins.rows]
        assert auto[1] == 0.0 and all(math.isnan(v) for v in auto[2:])
    text = tr("deriv.note.zero_power", "en", pieces="0**x", x0="1")
    assert "NaN from the second derivative" in text and "0**0 = 1" in text


# ---- finite differences: what the page quotes is measured (item 4) ---------------------------


def _fd_digits() -> list[float]:
    """Correct significant digits of the page's finite differences, orders 1-6, for
    sin(x)·exp(-x²) at 0.5, against sympy's exact derivatives (40 digits)."""
    fds = finite_differences(parse("sin(x)*exp(-x^2)"), 0.5, range(MAX_FD_ORDER + 1))
    f = sp.sin(X) * sp.exp(-(X**2))
    digits = []
    for k in range(1, MAX_FD_ORDER + 1):
        exact = float(sp.diff(f, X, k).subs(X, sp.Rational(1, 2)).evalf(40))
        digits.append(-math.log10(abs(fds[k] - exact) / abs(exact)))
    return digits


def test_finite_difference_digits_fall_with_the_order_and_the_help_quotes_no_fixed_f() -> None:
    measured = _fd_digits()  # about 10, 8, 5, 5, 4, 3 for sin(x)·exp(-x²) at 0.5
    slope = -np.polyfit(range(1, 7), measured, 1)[0]
    assert 1.2 <= slope <= 1.7, slope  # about 1.5 digits per order, not three
    # the help is shown whatever f is: it quotes no one function's digits (issue 36, item 24);
    # the page adds this f's own digits (tests/app/test_derivatives_page.py)
    for lang in ("en", "zh"):
        text = tr("deriv.inspector.help", lang, fd=MAX_FD_ORDER, rtol="1e-08")
        assert "sin(x)" not in text and "10" not in text


# ---- the PyTorch snippet's comment (item 12) ---------------------------------------------------


def _run(code: str) -> list[float]:
    """The numbers the snippet prints, run as a script: its own module namespace, with nothing
    of this test's in it, so a name it forgot to import fails here too."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "<snippet>", "exec"), {"__name__": "__main__"})  # ours
    return [float(line.split()[1]) for line in out.getvalue().splitlines()]


def test_the_snippet_names_the_conditions_of_its_shortcut() -> None:
    snippet = pytorch_snippet(parse("x**3"), 2.0, 4)
    comment = " ".join(line.strip("# ") for line in snippet.splitlines() if "#" in line)
    assert "create_graph=True" in comment and "once_differentiable" in comment
    assert "used no tensor that" in comment and "requires grad" in comment
    assert _run(snippet) == [8.0, 12.0, 12.0, 6.0, 0.0]
    # Why the condition matters: without create_graph=True the same shortcut prints 0 for f″.
    forgot = snippet.replace("create_graph=True)", "create_graph=False)")
    assert _run(forgot)[:3] == [8.0, 12.0, 0.0]


# ---- the cost tab measures (item 8) -----------------------------------------------------------


def test_cost_profile_measures_each_order_on_the_students_range() -> None:
    fn = parse("sin(x)*exp(-x^2)")
    profile = cost_profile(fn, 4, 200, -2.0, 0.5, sympy=sympy_costs)
    assert (profile.low, profile.high, profile.points) == (-2.0, 0.5, 200)
    assert profile.autograd_runs >= 1 and profile.taylor_runs >= 1
    # nested autograd: one build to order n, timed after each order, so time only grows
    assert np.all(np.diff(profile.autograd_ms) >= 0)
    # sympy: each diff timed on its own, not the total spread evenly over the orders
    steps = np.diff(profile.sympy_ms)
    assert len({round(float(s), 9) for s in steps}) > 1
    assert profile.sympy_ms[0] == 0.0 and all(s > 0 for s in steps)
    assert profile.nodes == (6, 16, 43, 106, 238)  # the probe's counts, per point


# ---- no universal growth factor in the derivatives and home texts (item 2) --------------------


def test_no_text_claims_one_growth_factor_per_order() -> None:
    for lang in ("en", "zh"):
        for key in ("deriv.method.help", "deriv.cost.caption", "home.derivatives"):
            text = tr(
                key,
                lang,
                limit=10,
                points="1,000",
                low="-3",
                high="3",
                autograd=10,
                taylor=30,
                fd=6,
            )
            assert not re.search(r"2\.5|2\.2|2\.9", text), (lang, key, text)
