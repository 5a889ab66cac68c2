"""Where the numbers at a point are conventions, not derivatives.

At a kink of abs or relu, at a pole, at log or a fractional power of 0, f has no derivative
(or an infinite one), yet every method still prints numbers: PyTorch's backward formulas,
Taylor mode's recurrences, sympy's pieces and a finite difference each follow their own
arithmetic, and need not agree. :func:`point_notes` finds the pieces of f that put x0 at such
a point, so the page can say which numbers are conventions, and whose. It also finds the
pieces whose PyTorch derivatives lose their digits near a point although f has every
derivative there: i0 and i1 near 0 (:data:`I0_NEAR_ZERO`, :data:`I1_NEAR_ZERO`), the polygamma
family left of 0 (:data:`POLYGAMMA_LEFT`) and trigamma anywhere (:data:`TRIGAMMA`).
:data:`TORCH_FORMULAS` names them all.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from .language import Binary, Call, Function, Neg, Node, Var
from .language.parser import GAMMA_FAMILY, show
from .language.to_torch import evaluate

__all__ = [
    "PointNote",
    "point_notes",
    "KINKS",
    "I0_NEAR_ZERO",
    "I1_NEAR_ZERO",
    "POLYGAMMA_LEFT",
    "SINGULAR",
    "TORCH_FORMULAS",
    "TRIGAMMA",
    "ZERO_POWER",
]

#: The piece is abs(a) or relu(a) with a = 0 at x0: a kink. Every column but the finite
#: difference follows PyTorch's convention there: abs'(0) = sign(0) = 0, relu'(0) = 0.
KINKS = ("abs", "relu")
#: The piece divides by 0, or takes log, sqrt or a fractional power of 0, log1p of -1, acosh of
#: 1, asin, acos, atanh or erfinv of ±1, or lgamma, digamma or polygamma of 0, -1, -2, ... (the
#: poles of gamma) at x0: f or a derivative is infinite or undefined there.
SINGULAR = "singular"
#: Where each function's argument puts it at the edge of its domain (a branch point or a pole).
_EDGES = {"log": 0.0, "sqrt": 0.0, "log1p": -1.0, "acosh": 1.0}
_EDGES_BOTH = ("asin", "acos", "atanh", "erfinv")  # at -1 and at 1
#: The piece is i0(a) with |a| < 1 at x0. PyTorch differentiates i0 to i1 and i1 to
#: i0(a) - i1(a)/a (to the constant 1/2 where |a| <= 2.2e-16): that difference loses digits as a
#: nears 0, more at each order, so nested autograd's third and higher derivatives lose digits
#: there (1e-8 relative at a = 0.1, order 7; all of them at a = 1e-8), and at a = 0 every order
#: from the fourth is 0 (the truth: 3/8, 0, 5/16, ...). Taylor mode and sympy use other formulas.
I0_NEAR_ZERO = "i0_near_zero"
#: The piece is i1(a) with |a| < 1 at x0. PyTorch differentiates i1 to i0(a) - i1(a)/a (as
#: above), so the loss starts one order earlier: the second and higher derivatives lose digits
#: (2.7e-8 relative at a = 1e-4, order 2; 1e-6 at a = 0.01, order 5), and at a = 0 every order
#: from the third is 0 (the truth: 3/8, 0, 5/16, 0, 35/128, ...).
I1_NEAR_ZERO = "i1_near_zero"
_BESSEL_NEAR_ZERO = {"i0": I0_NEAR_ZERO, "i1": I1_NEAR_ZERO}  # each within 1 of 0
#: The piece is lgamma(a), digamma(a) or polygamma(n, a) with a < 0 at x0 (not a pole). Their
#: derivatives are polygamma(m, a), which PyTorch computes for m >= 2 as (-1)^(m+1) m!
#: zeta(m + 1, a), adding the terms (a + k)^-(m+1) one by one: near a = -k - 1/2 the terms of
#: two poles cancel and digits go, more as m grows (torch.polygamma(10, -20.5) is 6 times the
#: truth; trigamma, m = 1, is right to about 1e-10 relative anywhere). Taylor mode pairs each
#: pole's term with its mirror's exactly (hograd_core/taylor_special.py), and sympy's column
#: carries extra digits.
POLYGAMMA_LEFT = "polygamma_left"
#: The piece is lgamma(a), digamma(a) or polygamma(1, a) off the poles and a >= 0 (left of 0,
#: POLYGAMMA_LEFT says more): one of its derivatives (the second, the first, the value) is
#: trigamma, polygamma(1, a), which PyTorch computes to 9 or 10 digits only (2.8e-10 relative
#: at 2.5). Below the page's 1e-8 agreement, but visible in the digits shown.
TRIGAMMA = "trigamma"
#: The kinds that say PyTorch's own formulas lose digits at x0, although f has every derivative.
TORCH_FORMULAS = (I0_NEAR_ZERO, I1_NEAR_ZERO, POLYGAMMA_LEFT, TRIGAMMA)
#: The piece is 0**b with b depending on x (anywhere, not only at x0): 0**b is 0 for b > 0, and
#: 0**0 = 1 by convention.
ZERO_POWER = "zero_power"


@dataclass(frozen=True)
class PointNote:
    """One piece of f that makes its derivatives at x0 a matter of convention.

    Attributes:
        kind: "abs" or "relu" (a kink at x0), "singular" (a pole, log 0, a root of 0...),
            "zero_power" (0**b with a variable b), or "i0_near_zero", "polygamma_left" and
            "trigamma" (PyTorch's own formulas for the derivatives lose digits there).
        piece: that piece, written in the function language (``relu(x - 1)``, ``1/x``).
    """

    kind: str
    piece: str


def _value(node: Node, variable: str | None, x0: float) -> float:
    if node.const is not None:
        return node.const
    env = {variable: torch.tensor(x0, dtype=torch.float64)} if variable else {}
    with torch.no_grad():
        return float(evaluate(node, env))


def _notes(node: Node, variable: str | None, x0: float, out: list[PointNote]) -> None:
    if node.const is not None or isinstance(node, Var):
        return
    value = lambda n: _value(n, variable, x0)
    match node:
        case Neg(arg=arg):
            _notes(arg, variable, x0, out)
            return
        case Call(func=func, arg=arg):
            a = value(arg)
            if func in KINKS and a == 0:
                out.append(PointNote(func, show(node)))
            elif (
                a == _EDGES.get(func)
                or (func in _EDGES_BOTH and abs(a) == 1)
                or (func in GAMMA_FAMILY and a <= 0 and float(a).is_integer())
            ):
                out.append(PointNote(SINGULAR, show(node)))
            elif func in _BESSEL_NEAR_ZERO and abs(a) < 1:
                out.append(PointNote(_BESSEL_NEAR_ZERO[func], show(node)))
            elif func in GAMMA_FAMILY and a < 0:
                out.append(PointNote(POLYGAMMA_LEFT, show(node)))
            elif func in GAMMA_FAMILY and (node.index or 0) <= 1:
                out.append(PointNote(TRIGAMMA, show(node)))
            _notes(arg, variable, x0, out)
            return
        case Binary(op="/", right=right):
            if value(right) == 0:
                out.append(PointNote(SINGULAR, show(node)))
        case Binary(op="**", left=Node(const=0.0), right=exponent):
            out.append(PointNote(ZERO_POWER, show(node)))
            _notes(exponent, variable, x0, out)
            return
        case Binary(op="**", left=base, right=exponent):
            b = exponent.const
            if value(base) == 0 and (b is None or b < 0 or not float(b).is_integer()):
                out.append(PointNote(SINGULAR, show(node)))
    _notes(node.left, variable, x0, out)
    _notes(node.right, variable, x0, out)


def point_notes(fn: Function, x0: float) -> tuple[PointNote, ...]:
    """The pieces of ``fn`` that leave it without an ordinary derivative at ``x0`` (see
    :class:`PointNote`), each once, in the order they are written.

    Example:
        >>> from hograd_core import parse
        >>> point_notes(parse("relu(x) + 1/x"), 0.0)
        (PointNote(kind='relu', piece='relu(x)'), PointNote(kind='singular', piece='1/x'))
        >>> point_notes(parse("relu(x)"), 0.5)
        ()
    """
    variable = fn.variables[0] if fn.variables else None
    out: list[PointNote] = []
    if math.isfinite(x0):
        _notes(fn.tree, variable, float(x0), out)
    return tuple(dict.fromkeys(out))
