"""Values whose truth is closer to 0 than float64's smallest positive number (4.9e-324): the
exact column's 30 digits keep them, float64 holds 0 (issue 46, the leftover of item 8).

The oracle is mpmath on closed forms written here by hand: softplus(a x)/a has
f' = s, f'' = a s (1 - s), f''' = a² s (1 - s)(1 - 2 s) with s = σ(a x) = 1/(1 + e^(-a x)).
"""

from __future__ import annotations

import math

import mpmath
import pytest

from hograd_core import parse
from hograd_core.inspector import InspectorRow
from hograd_core.symbolic import symbolic_derivatives
from hograd_core.sympy_program import Program, evaluate, evaluate_with_underflow

SMALLEST = math.ulp(0.0)  # 4.94e-324, float64's smallest positive (subnormal) number


def closed_forms(a: int, x0: float) -> list[mpmath.mpf]:
    with mpmath.workdps(40):
        s = 1 / (1 + mpmath.exp(-a * mpmath.mpf(x0)))
        return [s, a * s * (1 - s), a * a * s * (1 - s) * (1 - 2 * s)]


@pytest.mark.parametrize(("a", "x0"), [(3, -501.0), (600, -2.505), (1, -900.0)])
def test_the_exact_column_keeps_what_float64_cannot_hold(a: int, x0: float) -> None:
    fn = parse(f"softplus({a}*x)/{a}")
    program = Program()
    for expr in symbolic_derivatives(fn, 3, "x").exprs:
        program.add(expr)
    floats, below = evaluate_with_underflow(program.code, program.outputs, {"x": x0})
    assert floats == evaluate(program.code, program.outputs, {"x": x0}) == [0.0] * 4
    truths = closed_forms(a, x0)
    assert all(0 < t < mpmath.mpf(SMALLEST) / 2 for t in truths)  # so float(t) is 0
    for text, truth in zip(below[1:], truths, strict=True):
        assert text is not None and mpmath.mpf(text) == pytest.approx(truth, rel=0.05)
    # order 0 is log(1 + e^(ax))/a: 1 + e^(ax) is 1 in 30 digits, so 30 digits give 0 there
    # and the column cannot say how small f is
    assert below[0] is None


def test_a_value_float64_holds_is_not_called_below_it() -> None:
    program = Program()
    for expr in symbolic_derivatives(parse("exp(x)"), 1, "x").exprs:
        program.add(expr)
    for x0 in (-700.0, -740.0, 0.0):  # normal, subnormal (4.2e-322), normal
        floats, below = evaluate_with_underflow(program.code, program.outputs, {"x": x0})
        assert floats == [math.exp(x0)] * 2 and below == [None, None]


def test_a_row_below_float64_flags_every_zero_column() -> None:
    """Taylor mode, nested autograd and sympy's float all hold 0; the truth is 1.8e-653."""
    row = InspectorRow(1, 0.0, 0.0, 0.0, 0.0, None, None, below_float64="1.8e-653")
    assert row.underflow == ("taylor", "autograd", "sympy")
    plain = InspectorRow(1, 0.0, 0.0, 0.0, 0.0, None, None)
    assert plain.underflow == ()  # an exact 0 (or one nobody can tell from 0) is not flagged
