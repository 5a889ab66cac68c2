"""sympy's derivatives, used only as an independent oracle and for the formulas on screen.

The expression comes from the validated tree (:mod:`hograd_core.language.to_sympy`); no text is
ever parsed by sympy. Symbolic differentiation can blow up, so :func:`symbolic_derivatives`
stops when an expression grows past an operation budget or the time budget runs out, and says
which. :func:`sympy_values` evaluates the results at a point in a time linear in their size.

sympy's own work (``diff``, its automatic simplification, the printer) has no bound that can be
counted in advance, so the app runs this module only in a child process that is killed at its
deadline (hograd_serving/exact.py); an import-linter contract keeps it out of the server.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

import sympy as sp

from .exact_view import MAX_LATEX_OPS, MAX_OPS, SympyView
from .language import Function
from .language.to_sympy import latex, symbol, to_sympy
from .sympy_program import Program, ProgramTooLarge, evaluate

__all__ = [
    "symbolic_derivatives",
    "SymbolicDerivatives",
    "sympy_value",
    "sympy_values",
    "SympyView",
    "sympy_view",
    "view_of",
    "MAX_LATEX_OPS",
    "MAX_OPS",
]


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


def symbolic_derivatives(
    fn: Function,
    order: int,
    variable: str | None = None,
    *,
    max_ops: int = MAX_OPS,
    max_seconds: float = 2.0,
    start_from: SymbolicDerivatives | None = None,
    fresh: bool = False,
) -> SymbolicDerivatives:
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
        expr = to_sympy(fn.tree)
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
        tuple(exprs),
        tuple(ops),
        stopped,
        seconds + time.perf_counter() - start,
        tuple(latex),
        tuple(diff_seconds),
    )


def view_of(
    sym: SymbolicDerivatives,
    order: int,
    point: dict[str, float],
    *,
    stopped: str | None,
    working: bool = False,
    values: tuple[float, ...] | None = None,
) -> SympyView:
    """The orders 0..``order`` of ``sym`` that it has, evaluated at ``point`` (unless their
    ``values`` there are given); ``stopped`` and ``working`` matter only if it has fewer."""
    n = min(order + 1, len(sym.exprs))
    short = n <= order
    return SympyView(
        values=values if values is not None else tuple(sympy_values(sym.exprs[:n], point)),
        latex=sym.latex[:n],
        ops=sym.ops[:n],
        stopped=stopped if short and not working else None,
        working=short and working,
    )


def sympy_view(fn: Function, order: int, x0: float, *, max_seconds: float = 1.0) -> SympyView:
    """sympy's derivatives of a one-variable ``fn`` to ``order`` at ``x0``, worked out here and
    now within ``max_seconds`` (the page grows it in slices: :mod:`hograd_serving.sympy_column`)."""
    variable = fn.variables[0] if fn.variables else "x"
    sym = symbolic_derivatives(fn, order, variable, max_seconds=max_seconds)
    return view_of(sym, order, {variable: x0}, stopped=sym.stopped)


def _latex(expr: sp.Expr, ops: int) -> str | None:
    """sympy's LaTeX of ``expr`` if it is short enough to read; None if it is longer, or if the
    printer refuses it (Python will not print an integer of more than 4,300 digits)."""
    if ops > MAX_LATEX_OPS:
        return None
    try:
        return latex(expr)
    except (ValueError, RecursionError):
        return None


def sympy_value(expr: sp.Expr, point: dict[str, float], *, digits: int = 30) -> float:
    """``expr`` evaluated at ``point`` with ``digits`` significant digits; NaN where it is not a
    real number (log of a negative, asin outside [-1, 1]) or too large to evaluate.

    Note:
        sympy's own ``evalf`` raises its working precision until it trusts the answer, which on
        a swollen derivative (a tower of powers) can run for minutes. This compiles the
        expression once into a flat program (:mod:`.sympy_program`) and evaluates that at fixed
        precision, each shared subexpression once, every value's exponent kept within
        ``MAX_EXPONENT`` bits (past it: NaN, as a float64 would overflow): the evaluation's
        time is linear in the size of the program, at most ``MAX_PROGRAM`` instructions.
        Compiling runs sympy, whose time is not bounded: the app calls this only in the exact
        maths' child process (hograd_serving/exact_child.py), which is killed at its deadline.
    """
    return sympy_values([expr], point, digits=digits)[0]


def sympy_values(
    exprs: Sequence[sp.Expr],
    point: dict[str, float],
    *,
    digits: int = 30,
) -> list[float]:
    """:func:`sympy_value` of several expressions at one point, in one program; a
    subexpression shared between them (successive derivatives share many) is evaluated once."""
    program = Program()
    try:
        for expr in exprs:
            program.add(expr)
    except (ProgramTooLarge, RecursionError):
        pass  # the expressions that did not fit have no value
    values = evaluate(program.code, program.outputs, point, digits=digits)
    return values + [math.nan] * (len(exprs) - len(values))
