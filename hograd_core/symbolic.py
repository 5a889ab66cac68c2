"""sympy's derivatives, used only as an independent oracle and for the formulas on screen.

The expression comes from the validated tree (:mod:`hograd_core.language.to_sympy`); no text is
ever parsed by sympy. Symbolic differentiation can blow up, so :func:`symbolic_derivatives`
stops when an expression grows past an operation budget or the time budget runs out, and says
which. :func:`sympy_values` evaluates the results at a point in a time linear in their size.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import mpmath
import sympy as sp

from .language import Function
from .language.to_sympy import symbol

__all__ = [
    "symbolic_derivatives", "SymbolicDerivatives", "sympy_value", "sympy_values", "SympyView",
    "sympy_view", "view_of", "MAX_LATEX_OPS", "MAX_OPS",
]  # fmt: skip


@dataclass(frozen=True)
class SymbolicDerivatives:
    """sympy's derivatives of orders 0..``len(exprs) - 1``.

    Attributes:
        exprs: the expressions that were computed (possibly fewer than asked).
        ops: ``count_ops`` of each expression.
        stopped: None if every order was computed, else "size" or "time".
        seconds: time spent.
        latex: each expression in LaTeX, or None where it is longer than ``MAX_LATEX_OPS``
            operations (printed once here: the inspector shows it at every x0).
        diff_seconds: the time of each ``sympy.diff`` call (entry k made order k; entry 0 is
            0.0), one run each.
    """

    exprs: tuple[sp.Expr, ...]
    ops: tuple[int, ...]
    stopped: str | None
    seconds: float
    latex: tuple[str | None, ...] = ()
    diff_seconds: tuple[float, ...] = ()


#: Symbolic derivatives longer than this many operations are summarised, not printed.
MAX_LATEX_OPS = 80
#: sympy stops differentiating once a derivative has this many operations (expression swell).
MAX_OPS = 3000


def symbolic_derivatives(
    fn: Function, order: int, variable: str | None = None, *, max_ops: int = MAX_OPS,
    max_seconds: float = 2.0, start_from: SymbolicDerivatives | None = None,
    fresh: bool = False,
) -> SymbolicDerivatives:  # fmt: skip
    """Differentiate ``fn`` symbolically ``order`` times, within an operation and time budget.

    Args:
        start_from: derivatives of this same ``fn`` computed earlier (stopped by time, or to a
            lower order): they are kept and the work continues from the last one. The time
            budget is for this call; ``seconds`` adds up over the calls.
        fresh: differentiate with respect to a new symbol (a ``sympy.Dummy``) that no earlier
            work has seen, so that ``diff_seconds`` times the differentiation and not sympy's
            cache of results (a repeated ``diff`` of the same expression is ~100x faster). The
            expressions then hold that symbol; for timing only.

    Returns:
        At least orders 0..``order`` unless stopped: "size" is final (the next derivative would
        start from an expression over ``max_ops`` operations), "time" means another call with
        ``start_from`` set to this result goes on where this one stopped.

    Note:
        Expression swell is the reason automatic differentiation exists: the n-th derivative
        of a product grows combinatorially, so the budget stops the work, not the caller.
    """
    if start_from is not None and start_from.stopped == "size":
        return start_from  # final: the next derivative would start from a swollen expression
    start = time.perf_counter()
    var = symbol(variable or (fn.variables[0] if fn.variables else "x"))
    if start_from is None:
        expr = fn.sympy()
        if fresh:
            new = sp.Dummy(var.name, real=True)
            expr, var = expr.xreplace({var: new}), new
        exprs, ops, seconds = [expr], [int(sp.count_ops(expr))], 0.0
        latex, diff_seconds = [_latex(expr, ops[0])], [0.0]
    else:
        exprs, ops = list(start_from.exprs), list(start_from.ops)
        latex, seconds = list(start_from.latex), start_from.seconds
        diff_seconds = list(start_from.diff_seconds)
    stopped, first = None, len(exprs)
    while len(exprs) <= order:
        if ops[-1] > max_ops:
            stopped = "size"
            break
        if len(exprs) > first and time.perf_counter() - start > max_seconds:
            stopped = "time"  # after one new derivative at least: every call makes progress
            break
        tick = time.perf_counter()
        expr = sp.diff(exprs[-1], var)
        diff_seconds.append(time.perf_counter() - tick)
        exprs.append(expr)
        ops.append(int(sp.count_ops(expr)))
        latex.append(_latex(expr, ops[-1]))
    return SymbolicDerivatives(
        tuple(exprs), tuple(ops), stopped, seconds + time.perf_counter() - start, tuple(latex),
        tuple(diff_seconds),
    )  # fmt: skip


@dataclass(frozen=True)
class SympyView:
    """What sympy has of one function's derivatives at one point, so far: plain numbers and
    strings (no sympy objects), cheap to send between processes and to cache.

    Attributes:
        values: f^(k)(x0) for k = 0..len(values) - 1, evaluated to 30 digits (NaN where the
            value is not a real number).
        latex: each derivative's LaTeX, None where it is longer than ``MAX_LATEX_OPS``.
        ops: each derivative's ``count_ops``.
        stopped: why sympy goes no further than ``len(values) - 1`` although more was asked:
            "size" (the expression swelled past ``MAX_OPS``), "time" (the function used up its
            time), or None.
        working: sympy is still differentiating toward the order asked; ask again later.
    """

    values: tuple[float, ...] = ()
    latex: tuple[str | None, ...] = ()
    ops: tuple[int, ...] = ()
    stopped: str | None = None
    working: bool = False


def view_of(
    sym: SymbolicDerivatives, order: int, point: dict[str, float], *, stopped: str | None,
    working: bool = False, values: tuple[float, ...] | None = None,
) -> SympyView:  # fmt: skip
    """The orders 0..``order`` of ``sym`` that it has, evaluated at ``point`` (unless their
    ``values`` there are given); ``stopped`` and ``working`` matter only if it has fewer."""
    n = min(order + 1, len(sym.exprs))
    short = n <= order
    return SympyView(
        values=values if values is not None else tuple(sympy_values(sym.exprs[:n], point)),
        latex=sym.latex[:n], ops=sym.ops[:n], stopped=stopped if short and not working else None,
        working=short and working,
    )  # fmt: skip


def sympy_view(fn: Function, order: int, x0: float, *, max_seconds: float = 1.0) -> SympyView:
    """sympy's derivatives of a one-variable ``fn`` to ``order`` at ``x0``, worked out here and
    now within ``max_seconds`` (the page grows it in slices: :mod:`hograd_serving.sympy_column`)."""
    variable = fn.variables[0] if fn.variables else "x"
    sym = symbolic_derivatives(fn, order, variable, max_seconds=max_seconds)
    return view_of(sym, order, {variable: x0}, stopped=sym.stopped)


def _latex(expr: sp.Expr, ops: int) -> str | None:
    return sp.latex(expr) if ops <= MAX_LATEX_OPS else None


def sympy_value(expr: sp.Expr, point: dict[str, float], *, digits: int = 30) -> float:
    """``expr`` evaluated at ``point`` with ``digits`` significant digits; NaN where it is not a
    real number (log of a negative, asin outside [-1, 1]) or too large to evaluate.

    Note:
        sympy's own ``evalf`` raises its working precision until it trusts the answer, which on
        a swollen derivative (a tower of powers) can run for minutes. This walks the expression
        once, in a private mpmath context at fixed precision, each shared subexpression
        evaluated once: the time is linear in the size of the expression, and bounded.
    """
    return sympy_values([expr], point, digits=digits)[0]


def sympy_values(
    exprs: Sequence[sp.Expr], point: dict[str, float], *, digits: int = 30,
) -> list[float]:  # fmt: skip
    """:func:`sympy_value` of several expressions at one point, in one mpmath context; a
    subexpression shared between them (successive derivatives share many) is evaluated once."""
    ctx = mpmath.MPContext()
    ctx.dps = digits
    env = {symbol(name): ctx.mpf(value) for name, value in point.items()}
    memo: dict[sp.Basic, object] = {}
    out = []
    for expr in exprs:
        try:
            out.append(float(_walk(expr, ctx, env, memo)))
        except (_NotReal, ZeroDivisionError, OverflowError, ValueError, TypeError, RecursionError):
            out.append(float("nan"))
    return out


class _NotReal(Exception):
    pass


_MAX_NODES = 200_000

_UNARY = {
    sp.sin: "sin", sp.cos: "cos", sp.tan: "tan", sp.atan: "atan", sp.sinh: "sinh",
    sp.cosh: "cosh", sp.tanh: "tanh", sp.exp: "exp", sp.erf: "erf",
}  # fmt: skip


def _walk(e: sp.Basic, ctx: mpmath.MPContext, env: dict, memo: dict) -> object:  # noqa: C901
    if e in memo:
        return memo[e]
    if len(memo) > _MAX_NODES:
        raise _NotReal("expression too large")
    if e.is_Symbol:
        out = env[e]
    elif e.is_Integer:
        out = ctx.mpf(int(e))
    elif e.is_Rational:
        out = ctx.mpf(int(e.p)) / int(e.q)
    elif e.is_Float:
        out = ctx.mpf(e._mpf_)
    elif e is sp.pi:
        out = ctx.pi
    elif e is sp.E:
        out = ctx.e
    elif e is sp.S.NaN or e is sp.zoo or e.is_infinite:
        raise _NotReal("not finite")
    elif isinstance(e, sp.Add):
        out = ctx.fsum(_walk(a, ctx, env, memo) for a in e.args)
    elif isinstance(e, sp.Mul):
        out = ctx.fprod(_walk(a, ctx, env, memo) for a in e.args)
    elif isinstance(e, sp.Pow):
        base, expo = _walk(e.base, ctx, env, memo), _walk(e.exp, ctx, env, memo)
        if base < 0 and not ctx.isint(expo):
            raise _NotReal("negative base")
        if base == 0 and expo < 0:
            raise ZeroDivisionError
        out = ctx.power(base, expo)
    elif e.func in _UNARY:
        out = getattr(ctx, _UNARY[e.func])(_walk(e.args[0], ctx, env, memo))
    elif e.func in (sp.asin, sp.acos):
        a = _walk(e.args[0], ctx, env, memo)
        if abs(a) > 1:
            raise _NotReal("outside [-1, 1]")
        out = ctx.asin(a) if e.func is sp.asin else ctx.acos(a)
    elif e.func is sp.log:
        a = _walk(e.args[0], ctx, env, memo)
        if a <= 0:
            raise _NotReal("log of a non-positive number")
        out = ctx.log(a)
    elif e.func is sp.Abs:
        out = abs(_walk(e.args[0], ctx, env, memo))
    elif e.func is sp.sign:
        a = _walk(e.args[0], ctx, env, memo)
        out = ctx.mpf((a > 0) - (a < 0))
    elif e.func is sp.Heaviside:
        a = _walk(e.args[0], ctx, env, memo)
        half = _walk(e.args[1], ctx, env, memo) if len(e.args) > 1 else ctx.mpf(0.5)
        out = ctx.mpf(1) if a > 0 else ctx.mpf(0) if a < 0 else half
    elif e.func is sp.DiracDelta:
        if _walk(e.args[0], ctx, env, memo) == 0:
            raise _NotReal("delta at its spike")
        out = ctx.mpf(0)
    elif isinstance(e, sp.Piecewise):
        for value, cond in e.args:
            if cond is sp.true or _holds(cond, ctx, env, memo):
                out = _walk(value, ctx, env, memo)
                break
        else:
            raise _NotReal("no piece applies")
    else:
        raise _NotReal(f"cannot evaluate {e.func}")
    memo[e] = out
    return out


def _holds(cond: sp.Basic, ctx: mpmath.MPContext, env: dict, memo: dict) -> bool:
    ops = {sp.Le: lambda a, b: a <= b, sp.Lt: lambda a, b: a < b, sp.Ge: lambda a, b: a >= b,
           sp.Gt: lambda a, b: a > b, sp.Eq: lambda a, b: a == b, sp.Ne: lambda a, b: a != b}  # fmt: skip
    if cond.func in ops:
        return bool(
            ops[cond.func](_walk(cond.lhs, ctx, env, memo), _walk(cond.rhs, ctx, env, memo))
        )
    if cond is sp.false:
        return False
    raise _NotReal(f"cannot evaluate the condition {cond.func}")
