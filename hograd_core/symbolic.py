"""sympy, used only as an independent oracle and for LaTeX, built from the validated tree.

No text is ever parsed by sympy here: symbols and functions are constructed node by node from
the tree that :mod:`hograd_core.language` produced. Symbolic differentiation can blow up, so
:func:`symbolic_derivatives` stops when an expression grows past an operation budget or the
time budget runs out, and says which.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import sympy as sp

from .language import Binary, Call, Const, Function, Neg, Node, Num, Var

__all__ = ["to_sympy", "to_latex", "symbolic_derivatives", "SymbolicDerivatives", "sympy_value"]

# Exact definitions of the functions sympy does not have under our names. ReLU is 0 at 0 from
# both sides of the derivative, like torch.relu's backward; abs uses sign, 0 at 0, like torch.
_EXACT = {
    "sin": sp.sin, "cos": sp.cos, "tan": sp.tan, "asin": sp.asin, "acos": sp.acos,
    "atan": sp.atan, "sinh": sp.sinh, "cosh": sp.cosh, "tanh": sp.tanh, "exp": sp.exp,
    "log": sp.log, "sqrt": sp.sqrt, "abs": sp.Abs, "erf": sp.erf,
    "sigmoid": lambda a: 1 / (1 + sp.exp(-a)),
    "softplus": lambda a: sp.log(1 + sp.exp(a)),
    "relu": lambda a: sp.Piecewise((0, a <= 0), (a, True)),
}  # fmt: skip

# Functions shown by name in LaTeX (their exact form would hide what the learner typed).
_NAMED = {name: sp.Function(name) for name in ("sigmoid", "softplus", "relu")}


def _symbol(name: str) -> sp.Symbol:
    return sp.Symbol(name, real=True)


def _number(node: Num) -> sp.Expr:
    if all(ch.isdigit() for ch in node.text):
        return sp.Integer(int(node.text))  # at most 7 digits: literals are bounded by 1e6
    return sp.Float(node.text, 17)


def _build(node: Node, exact: bool) -> sp.Expr:
    if isinstance(node, Num):
        return _number(node)
    if isinstance(node, Var):
        return _symbol(node.name)
    if isinstance(node, Const):
        return sp.pi if node.name == "pi" else sp.E
    ev = exact
    if isinstance(node, Neg):
        return sp.Mul(-1, _build(node.arg, exact), evaluate=ev)
    if isinstance(node, Call):
        arg = _build(node.arg, exact)
        if not exact and node.func in _NAMED:
            return _NAMED[node.func](arg)
        if not exact and node.func == "sqrt":
            return sp.Pow(arg, sp.S.Half, evaluate=False)
        if exact:
            return _EXACT[node.func](arg)
        cls = sp.Abs if node.func == "abs" else getattr(sp, node.func)
        return cls(arg, evaluate=False)
    assert isinstance(node, Binary)
    if exact and node.const is not None and node.op == "**" and abs(node.const) > 1e15:
        # 9**9 stays exact, but a large constant power is kept as a float: sympy would
        # otherwise compute it as an exact integer.
        return sp.Float(node.const, 17)
    left = _build(node.left, exact)
    right = _build(node.right, exact)
    if node.op == "+":
        return sp.Add(left, right, evaluate=ev)
    if node.op == "-":
        return sp.Add(left, sp.Mul(-1, right, evaluate=ev), evaluate=ev)
    if node.op == "*":
        return sp.Mul(left, right, evaluate=ev)
    if node.op == "/":
        return sp.Mul(left, sp.Pow(right, -1, evaluate=ev), evaluate=ev)
    return sp.Pow(left, right, evaluate=ev)


def to_sympy(fn: Function) -> sp.Expr:
    """The exact sympy expression of ``fn`` (real symbols), for differentiation and checks."""
    return _build(fn.tree, exact=True)


def to_latex(fn: Function) -> str:
    """LaTeX of ``fn`` as typed (no simplification), produced by sympy's printer."""
    return sp.latex(_build(fn.tree, exact=False))


@dataclass(frozen=True)
class SymbolicDerivatives:
    """sympy's derivatives of orders 0..``len(exprs) - 1``.

    Attributes:
        exprs: the expressions that were computed (possibly fewer than asked).
        ops: ``count_ops`` of each expression.
        stopped: None if every order was computed, else "size" or "time".
        seconds: time spent.
    """

    exprs: tuple[sp.Expr, ...]
    ops: tuple[int, ...]
    stopped: str | None
    seconds: float


def symbolic_derivatives(
    fn: Function, order: int, variable: str | None = None, *, max_ops: int = 3000,
    max_seconds: float = 2.0,
) -> SymbolicDerivatives:  # fmt: skip
    """Differentiate ``fn`` symbolically ``order`` times, within an operation and time budget.

    Note:
        Expression swell is the reason automatic differentiation exists: the n-th derivative
        of a product grows combinatorially, so the budget stops the work, not the caller.
    """
    start = time.perf_counter()
    var = _symbol(variable or (fn.variables[0] if fn.variables else "x"))
    expr = to_sympy(fn)
    exprs, ops = [expr], [int(sp.count_ops(expr))]
    stopped = None
    for _ in range(order):
        if ops[-1] > max_ops:
            stopped = "size"
            break
        if time.perf_counter() - start > max_seconds:
            stopped = "time"
            break
        expr = sp.diff(expr, var)
        exprs.append(expr)
        ops.append(int(sp.count_ops(expr)))
    return SymbolicDerivatives(tuple(exprs), tuple(ops), stopped, time.perf_counter() - start)


def sympy_value(expr: sp.Expr, point: dict[str, float]) -> float:
    """``expr`` evaluated at ``point`` to double precision; NaN where it is not a real number."""
    subs = {_symbol(name): sp.Float(value, 30) for name, value in point.items()}
    try:
        value = complex(expr.evalf(30, subs=subs))
    except (TypeError, ValueError, ZeroDivisionError):
        return float("nan")
    if abs(value.imag) > 1e-12 * max(1.0, abs(value.real)):
        return float("nan")
    return float(value.real)
