"""A parsed tree as a sympy expression, and its LaTeX by sympy's printer.

No text is ever parsed by sympy here: symbols and functions are constructed node by node from
the validated tree. Two forms come from one walk: the exact expression, for differentiation and
checks, and the expression as typed (nothing evaluated, sigmoid, softplus and relu kept by
name), for LaTeX.
"""

from __future__ import annotations

import sympy as sp

from .nodes import Binary, Call, Const, Neg, Node, Num, Var

__all__ = ["symbol", "to_latex", "to_sympy"]

# Exact definitions of the functions sympy does not have under our names. relu and abs have no
# derivative where their argument is 0; there the pieces copy PyTorch's convention, so that
# sympy's column is comparable with torch's: relu'(0) = 0 (torch.relu's backward passes the
# gradient only where the input is > 0) and abs'(0) = sign(0) = 0 (torch.abs's backward), and
# every higher derivative at that point is 0 as well. (sympy's own Abs differentiates to sign
# and then to a DiracDelta, which has no value at 0: |x|**3 would get no second derivative at 0,
# where the true one, 6|x|, is 0.)
_EXACT = {
    "sin": sp.sin, "cos": sp.cos, "tan": sp.tan, "asin": sp.asin, "acos": sp.acos,
    "atan": sp.atan, "sinh": sp.sinh, "cosh": sp.cosh, "tanh": sp.tanh, "exp": sp.exp,
    "log": sp.log, "sqrt": sp.sqrt, "erf": sp.erf,
    "abs": lambda a: sp.Piecewise((-a, a < 0), (0, sp.Eq(a, 0)), (a, True)),
    "sigmoid": lambda a: 1 / (1 + sp.exp(-a)),
    "softplus": lambda a: sp.log(1 + sp.exp(a)),
    "relu": lambda a: sp.Piecewise((0, a <= 0), (a, True)),
}  # fmt: skip

# Functions shown by name in LaTeX (their exact form would hide what the learner typed).
_NAMED = {name: sp.Function(name) for name in ("sigmoid", "softplus", "relu")}


def symbol(name: str) -> sp.Symbol:
    """The sympy symbol of a variable: real, named as typed."""
    return sp.Symbol(name, real=True)


def _number(text: str) -> sp.Expr:
    if all(ch.isdigit() for ch in text):
        return sp.Integer(int(text))  # at most 7 digits: literals are bounded by 1e6
    return sp.Float(text, 17)


def _call(func: str, arg: sp.Expr, exact: bool) -> sp.Expr:
    if exact:
        return _EXACT[func](arg)
    if func in _NAMED:
        return _NAMED[func](arg)
    if func == "sqrt":
        return sp.Pow(arg, sp.S.Half, evaluate=False)
    cls = sp.Abs if func == "abs" else getattr(sp, func)
    return cls(arg, evaluate=False)


def _build(node: Node, exact: bool) -> sp.Expr:
    """The sympy expression of ``node``: exact and evaluated, or as typed (``exact=False``)."""
    ev = exact
    match node:
        case Num(text=text):
            return _number(text)
        case Var(name=name):
            return symbol(name)
        case Const(name=name):
            return sp.pi if name == "pi" else sp.E
        case Neg(arg=Num(text=text)) if not exact:
            return -_number(text)  # a negative number, not the product (-1)*number
        case Neg(arg=arg):
            return sp.Mul(-1, _build(arg, exact), evaluate=ev)
        case Call(func=func, arg=arg):
            return _call(func, _build(arg, exact), exact)
        case Binary(op="**", const=value) if exact and value is not None and abs(value) > 1e15:
            # 9**9 stays exact, but a large constant power is kept as a float: sympy would
            # otherwise compute it as an exact integer.
            return sp.Float(value, 17)
        case Binary(op="+", left=left, right=right):
            return sp.Add(_build(left, exact), _build(right, exact), evaluate=ev)
        case Binary(op="-", left=left, right=right):
            a, b = _build(left, exact), _build(right, exact)
            return sp.Add(a, sp.Mul(-1, b, evaluate=ev), evaluate=ev)
        case Binary(op="*", left=left, right=right):
            return sp.Mul(_build(left, exact), _build(right, exact), evaluate=ev)
        case Binary(op="/", left=left, right=right) if exact:
            return _build(left, exact) / _build(right, exact)
        case Binary(op="/", left=Neg(arg=top), right=right):
            # -a/b as typed reads -(a/b): sympy writes - \frac{a}{b}, not \frac{(-1) a}{b}
            return sp.Mul(-1, _fraction(top, right), evaluate=False)
        case Binary(op="/", left=left, right=right):
            return _fraction(left, right)
        case Binary(op="**", left=left, right=right):
            return sp.Pow(_build(left, exact), _build(right, exact), evaluate=ev)
        case _:
            raise AssertionError(f"not a node of the language: {node!r}")


def _fraction(top: Node, bottom: Node) -> sp.Expr:
    r"""``top/bottom`` as typed. A numerator of 1 is left out of the product: an unevaluated
    ``1 * b**-1`` prints as the mixed number 1 \frac{1}{b}."""
    b = sp.Pow(_build(bottom, False), -1, evaluate=False)
    if isinstance(top, Num) and top.value == 1:
        return b
    return sp.Mul(_build(top, False), b, evaluate=False)


def to_sympy(tree: Node) -> sp.Expr:
    """The exact sympy expression of ``tree`` (real symbols), for differentiation and checks."""
    return _build(tree, exact=True)


def to_latex(tree: Node) -> str:
    """LaTeX of ``tree`` as typed (no simplification), produced by sympy's printer."""
    return sp.latex(_build(tree, exact=False))
