"""Exact arithmetic bounded before it starts (issue 35): no exact number sympy builds from a
typed function has more than MAX_EXACT_BITS bits, abs and relu differentiate in linear size,
and the flat program that carries sympy's derivatives between processes evaluates to what
sympy's own evalf gives."""

from __future__ import annotations

import math
import random

import pytest
import sympy as sp

from hograd_core.language import parse
from hograd_core.language.to_sympy import MAX_EXACT_BITS
from hograd_core.symbolic import symbolic_derivatives
from hograd_core.sympy_program import MAX_PROGRAM, Program, ProgramTooLarge, evaluate

X = sp.Symbol("x", real=True)


def widest(expr: sp.Basic) -> int:
    """Bits of the largest numerator or denominator of an exact rational in ``expr``."""
    return max(
        (
            max(abs(int(a.p)).bit_length(), int(a.q).bit_length())
            for a in sp.preorder_traversal(expr)
            if isinstance(a, sp.Rational)
        ),
        default=0,
    )


#: Families that fold to a large exact power through a variable that cancels (0*x, x-x, x/x),
#: through exp of a multiple of a log, through towers, and through sympy's distribution of a
#: power over a product's numeric factor. Sizes kept where today's sympy still finishes, so a
#: test of the old code fails instead of hanging.
FAMILIES = [
    "x+(0*x+2)**-20000",
    "x+(x-x+3)**30000",
    "x+(x/x*7)**-9000",
    "(5*x)**20000",
    "x*exp(20000*log(2+0*x))",
    "x+softplus(9000*log(x/x*3))",
    "x+sigmoid(-9000*log(3+x-x))",
    "x+((0*x+2)**300)**300",
    "x+sqrt((0*x+3)**9999)",
    "x**3+(2+0*x)**(999*999)",
]


@pytest.mark.parametrize("text", FAMILIES)
def test_no_exact_number_past_the_bound(text: str) -> None:
    fn = parse(text)
    sym = symbolic_derivatives(fn, 3)
    for expr in sym.exprs:
        assert widest(expr) <= MAX_EXACT_BITS, text


@pytest.mark.parametrize("text", FAMILIES)
def test_the_bounded_form_keeps_its_value(text: str) -> None:
    """The float that replaces an exact power has the same value to float precision: f and f'
    at a point, against plain Python floats (where they do not overflow)."""
    fn = parse(text)
    sym = symbolic_derivatives(fn, 1)
    x0 = 0.8
    env = {
        "x": x0,
        "exp": math.exp,
        "log": math.log,
        "sqrt": math.sqrt,
        "sigmoid": lambda a: 1 / (1 + math.exp(-a)) if a > -700 else 0.0,
        "softplus": lambda a: math.log1p(math.exp(a)) if a < 700 else a,
    }
    try:
        expected = eval(text.replace("^", "**"), env)  # the test's own corpus
    except OverflowError:
        return
    got = float(sym.exprs[0].subs(X, x0).evalf(30))
    assert got == pytest.approx(expected, rel=1e-12)


NESTED = [
    ("abs(x-2)", 1),
    ("abs(abs(abs(abs(x-2)-1)-1)-1)", 4),
    ("abs(abs(abs(abs(abs(abs(abs(x-2)-1)-1)-1)-1)-1)-1)", 7),
    ("relu(relu(relu(relu(relu(x)-1)-1)-1)-1)", 5),
    ("abs(x-abs(x-abs(x-abs(x-abs(x-1)))))", 5),
]


@pytest.mark.parametrize(("text", "depth"), NESTED)
def test_nested_kinks_stay_linear_in_size(text: str, depth: int) -> None:
    sym = symbolic_derivatives(parse(text), 3, max_seconds=600)  # stopped by nothing
    assert sym.stopped is None and len(sym.exprs) == 4
    assert max(sym.ops) <= 12 * depth  # a Piecewise per level grew 20-40x per level


def _kinked(text: str, x: float) -> float:
    return eval(text, {"abs": abs, "relu": lambda a: max(a, 0.0)}, {"x": x})


@pytest.mark.parametrize(("text", "depth"), NESTED)
def test_nested_kinks_agree_with_finite_differences_between_kinks(text: str, depth: int) -> None:
    sym = symbolic_derivatives(parse(text), 2)
    program = Program()
    for expr in sym.exprs:
        program.add(expr)
    rng = random.Random(3)
    for _ in range(20):
        x0 = rng.uniform(-4, 4)
        h = 1e-6
        near = [_kinked(text, x0 + d) for d in (-2 * h, -h, 0.0, h, 2 * h)]
        slopes = [(near[i + 1] - near[i]) / h for i in range(4)]
        if max(slopes) - min(slopes) > 1e-6:
            continue  # a kink within 2h: the difference is not a derivative there
        value, first, second = evaluate(program.code, program.outputs, {"x": x0})
        assert value == pytest.approx(near[2], abs=1e-12)
        assert first == pytest.approx((near[3] - near[1]) / (2 * h), abs=1e-6)
        assert second == 0.0  # piecewise linear: every second derivative between kinks is 0


@pytest.mark.parametrize(
    "expr",
    [
        sp.sin(X) * sp.exp(-(X**2)),
        sp.log(1 + X**2) / (1 + sp.tanh(X)),
        sp.sqrt(2 + sp.cos(3 * X)) ** sp.Rational(3, 7),
        sp.atan(X) * sp.asin(X / 3) + sp.erf(X),
        X**X,
        sp.Abs(X - 1) * sp.sign(X) + sp.Float("1.25") * sp.pi * sp.E,
    ],
)
def test_the_program_evaluates_as_evalf(expr: sp.Expr) -> None:
    exprs = [sp.diff(expr, X, k) for k in range(4)]
    program = Program()
    for e in exprs:
        program.add(e)
    for x0 in (0.3, 1.7, -0.45):
        got = evaluate(program.code, program.outputs, {"x": x0})
        want = [complex(e.evalf(30, subs={X: sp.Float(x0, 30)})) for e in exprs]
        for g, w in zip(got, want, strict=True):
            if abs(w.imag) > 1e-25 or not math.isfinite(w.real):
                assert math.isnan(g)  # not a real number there
            else:
                assert g == pytest.approx(w.real, rel=1e-14, abs=1e-14)


def test_shared_subexpressions_are_written_once() -> None:
    program = Program()
    first = len(program.add(sp.sin(X) ** 2))
    again = program.add(sp.sin(X) ** 2 + sp.sin(X))
    assert first == 4 and again == [["add", 3, 1]]  # x, sin x, 2, sin² x; then only the sum


def test_a_program_past_its_limit_stops() -> None:
    program = Program(limit=50)
    program.add(X**2)
    with pytest.raises(ProgramTooLarge):
        program.add(sum(sp.sin(k * X) for k in range(1, 30)))
    assert evaluate(program.code, program.outputs, {"x": 0.5}) == [0.25]
    assert Program().limit == MAX_PROGRAM


def test_values_that_are_not_real_are_nan() -> None:
    program = Program()
    for expr in (sp.log(X), sp.sqrt(X), sp.asin(X), 1 / X, sp.zoo * X):
        program.add(expr)
    log, root, arcsin, inverse, infinite = evaluate(program.code, program.outputs, {"x": -2.0})
    assert all(math.isnan(v) for v in (log, root, arcsin, infinite)) and inverse == -0.5
    assert math.isnan(evaluate(program.code, program.outputs, {"x": 0.0})[3])  # 1/0
