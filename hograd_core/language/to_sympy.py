"""A parsed tree as a sympy expression, and its LaTeX by sympy's printer.

No text is ever parsed by sympy here: symbols and functions are constructed node by node from
the validated tree. Two forms come from one walk: the exact expression, for differentiation and
checks, and the expression as typed (nothing evaluated, sigmoid, softplus, relu, expm1 and
log1p kept by name), for LaTeX.
"""

from __future__ import annotations

import math

import sympy as sp
from mpmath.libmp import prec_to_dps

from .nodes import Binary, Call, Const, Neg, Node, Num, Var

__all__ = [
    "MAX_EXACT_BITS",
    "LogAbsGamma",
    "TorchAbs",
    "TorchRelu",
    "TorchSign",
    "TorchStep",
    "latex",
    "name_latex",
    "symbol",
    "to_latex",
    "to_sympy",
]

#: The most bits an exact number may have before sympy computes it: past this, a power is kept
#: with a float exponent (and so a float value). sympy's arithmetic on integers is one C call
#: that nothing interrupts, so 2**(999999*999999) must be refused before it starts, not timed out.
MAX_EXACT_BITS = 4096


def _raised(latex: str, printer: object, exp: object) -> str:
    """``latex`` to the power ``exp`` (sympy's printer passes ``exp`` to a function's own LaTeX
    method when the function is raised to a power)."""
    if exp is None:
        return latex
    # sympy's printer passes the exponent already printed, as LaTeX text
    power = exp if isinstance(exp, str) else printer._print(exp)  # type: ignore[attr-defined]
    return rf"\left({latex}\right)^{{{power}}}"


class _Kinked(sp.Function):
    """A function of one argument with PyTorch's convention at its kink; ``_at`` gives its
    value at a number, for sympy's numerical evaluation (``evalf``)."""

    @staticmethod
    def _at(a: sp.Number) -> sp.Expr:
        raise NotImplementedError

    def _eval_evalf(self, prec: int) -> sp.Expr | None:
        a = self.args[0]._eval_evalf(prec) if hasattr(self.args[0], "_eval_evalf") else None
        return self._at(a) if a is not None and a.is_Number else None


class TorchAbs(_Kinked):
    """|a| whose derivative is ``TorchSign(a)``, PyTorch's convention: abs'(0) = sign(0) = 0.

    sympy's own ``Abs`` differentiates to ``sign`` and then to a ``DiracDelta`` with no value at
    0, and a ``Piecewise`` definition grows exponentially when nested
    (``abs(abs(abs(x-2)-1)-1)``: each level multiplies the conditions). This one stays one node
    per ``abs``, and so do its derivatives.
    """

    @staticmethod
    def _at(a: sp.Number) -> sp.Expr:
        return abs(a)

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        return TorchSign(self.args[0])

    def _latex(self, printer: object, exp: object = None) -> str:
        arg = printer._print(self.args[0])  # type: ignore[attr-defined]
        return _raised(rf"\left|{arg}\right|", printer, exp)


class TorchSign(_Kinked):
    """sign(a) with sign(0) = 0; its derivative is 0 everywhere (PyTorch's convention: the
    backward of ``sign`` is zero), so every higher derivative of ``abs`` at a kink is 0."""

    @staticmethod
    def _at(a: sp.Number) -> sp.Expr:
        return sp.Integer(int(bool(a > 0)) - int(bool(a < 0)))

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        return sp.Integer(0)

    def _latex(self, printer: object, exp: object = None) -> str:
        arg = printer._print(self.args[0])  # type: ignore[attr-defined]
        return _raised(rf"\operatorname{{sign}}\left({arg}\right)", printer, exp)


class TorchStep(_Kinked):
    """1 where a > 0, else 0: relu's derivative (PyTorch passes the gradient only where the
    input is > 0, so relu'(0) = 0); its own derivative is 0 everywhere."""

    @staticmethod
    def _at(a: sp.Number) -> sp.Expr:
        return sp.Integer(1 if a > 0 else 0)

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        return sp.Integer(0)

    def _latex(self, printer: object, exp: object = None) -> str:
        arg = printer._print(self.args[0])  # type: ignore[attr-defined]
        return _raised(rf"\mathbf{{1}}\left[{arg} > 0\right]", printer, exp)


class TorchRelu(_Kinked):
    """max(a, 0) whose derivative is ``TorchStep(a)`` (relu'(0) = 0, as PyTorch)."""

    @staticmethod
    def _at(a: sp.Number) -> sp.Expr:
        return a if a > 0 else sp.Integer(0)

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        return TorchStep(self.args[0])

    def _latex(self, printer: object, exp: object = None) -> str:
        arg = printer._print(self.args[0])  # type: ignore[attr-defined]
        return _raised(rf"\operatorname{{relu}}\left({arg}\right)", printer, exp)


class LogAbsGamma(sp.Function):
    """log|gamma(a)|, which is torch.lgamma: real at every real a but the poles 0, -1, -2, ...
    (sympy's ``loggamma`` is complex where gamma(a) < 0). Its derivative is digamma(a) =
    polygamma(0, a) wherever it has one, on both sides of 0. Never evaluated symbolically (the
    exact value at a large whole number would be the logarithm of a huge factorial): sympy's
    numbers and the exact child's mpmath give its value."""

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        return sp.polygamma(0, self.args[0])

    def _eval_evalf(self, prec: int) -> sp.Expr | None:
        a = self.args[0]._eval_evalf(prec) if hasattr(self.args[0], "_eval_evalf") else None
        if a is None or not a.is_Number:
            return None
        return sp.log(abs(sp.gamma(a))).evalf(prec_to_dps(prec))

    def _latex(self, printer: object, exp: object = None) -> str:
        arg = printer._print(self.args[0])  # type: ignore[attr-defined]
        return _raised(rf"\ln\left|\Gamma\left({arg}\right)\right|", printer, exp)


# Exact definitions of the functions sympy does not have under our names. abs and relu have no
# derivative where their argument is 0; there they copy PyTorch's convention, so that sympy's
# column is comparable with torch's: abs'(0) = sign(0) = 0 and relu'(0) = 0, and every higher
# derivative at that point is 0 as well (the classes above).
_EXACT = {
    "sin": sp.sin,
    "cos": sp.cos,
    "tan": sp.tan,
    "asin": sp.asin,
    "acos": sp.acos,
    "atan": sp.atan,
    "sinh": sp.sinh,
    "cosh": sp.cosh,
    "tanh": sp.tanh,
    "exp": lambda a: sp.exp(_tame_exponent(a)),
    "log": sp.log,
    "sqrt": sp.sqrt,
    "erf": sp.erf,
    "erfc": sp.erfc,
    "asinh": sp.asinh,
    "acosh": sp.acosh,
    "atanh": sp.atanh,
    "expm1": lambda a: sp.exp(_tame_exponent(a)) - 1,
    "log1p": lambda a: sp.log(1 + a),
    "abs": lambda a: TorchAbs._at(a) if a.is_Number else TorchAbs(a),
    "sigmoid": lambda a: 1 / (1 + sp.exp(_tame_exponent(-a))),
    "softplus": lambda a: sp.log(1 + sp.exp(_tame_exponent(a))),
    "relu": lambda a: TorchRelu._at(a) if a.is_Number else TorchRelu(a),
    "erfinv": sp.erfinv,
    "lgamma": LogAbsGamma,
    "digamma": lambda a: sp.polygamma(0, a),
    "i0": lambda a: sp.besseli(0, a),
    "i1": lambda a: sp.besseli(1, a),
}


def _bits(number: sp.Expr) -> float:
    """Bits of an exact rational's numerator or denominator, whichever is larger (0 for a
    float or a non-number: those are never computed exactly)."""
    if not number.is_Rational:
        return 0.0
    return math.log2(max(abs(int(number.p)), int(number.q)))  # 0 for 1 and -1: 1**n is 1


def _exact_power_bits(base: sp.Expr, exponent: sp.Expr) -> float:
    """How many bits sympy would compute for ``base**exponent`` exactly: |exponent| times the
    bits of the base's rational coefficient (sympy distributes a rational power over a
    product's numeric factor: (3*x)**n = 3**n * x**n)."""
    if not exponent.is_Rational:
        return 0.0
    coeff = base if base.is_Number else base.as_coeff_Mul()[0]
    return abs(float(exponent)) * _bits(coeff)


def _power(base: sp.Expr, exponent: sp.Expr) -> sp.Expr:
    """``base**exponent``, exact unless the exact result would have more than
    ``MAX_EXACT_BITS`` bits: then the exponent is a float and so is the number."""
    if _exact_power_bits(base, exponent) > MAX_EXACT_BITS:
        exponent = sp.Float(exponent, 17)
    return sp.Pow(base, exponent)


def _tame_exponent(a: sp.Expr) -> sp.Expr:
    """The argument of ``exp`` with any term c*log(b) whose exact value b**c would be too large
    made a float: sympy evaluates exp(c*log(b)) to b**c, as exactly as it can."""
    terms = []
    for term in sp.Add.make_args(a):
        coeff, rest = term.as_coeff_Mul()
        logs = [f for f in sp.Mul.make_args(rest) if isinstance(f, sp.log)]
        if (
            logs
            and coeff.is_Rational
            and any(_exact_power_bits(f.args[0], coeff) > MAX_EXACT_BITS for f in logs)
        ):
            term = sp.Float(coeff, 17) * rest
        terms.append(term)
    return sp.Add(*terms)


# Functions shown by name in LaTeX (their exact form would hide what the learner typed).
class _Expm1(sp.Function):
    """expm1 by name in LaTeX: sympy's printer would write the digit as a subscript
    (``expm_1``)."""

    def _latex(self, printer: object, exp: object = None) -> str:
        arg = printer._print(self.args[0])  # type: ignore[attr-defined]
        return _raised(rf"\operatorname{{expm1}}{{\left({arg} \right)}}", printer, exp)


_NAMED = {name: sp.Function(name) for name in ("sigmoid", "softplus", "relu", "log1p")}
_NAMED["expm1"] = _Expm1


class _Psi(sp.Function):
    """polygamma(n, a) as typed, in its usual notation: psi(a) for n = 0 (digamma), else
    psi^(n)(a)."""

    nargs = 2

    def _latex(self, printer: object, exp: object = None) -> str:
        n, arg = self.args[0], printer._print(self.args[1])  # type: ignore[attr-defined]
        order = "" if n == 0 else rf"^{{({n})}}"
        return _raised(rf"\psi{order}\left({arg}\right)", printer, exp)


_NAMED["lgamma"] = LogAbsGamma
_NAMED["digamma"] = lambda a: _Psi(0, a)
_NAMED["i0"] = lambda a: sp.besseli(0, a, evaluate=False)
_NAMED["i1"] = lambda a: sp.besseli(1, a, evaluate=False)


def symbol(name: str) -> sp.Symbol:
    """The sympy symbol of a variable: real, named as typed."""
    return sp.Symbol(name, real=True)


def _number(text: str) -> sp.Expr:
    if all(ch.isdigit() for ch in text):
        return sp.Integer(int(text))  # at most 7 digits: literals are bounded by 1e6
    return sp.Float(text, 17)


def _call(func: str, arg: sp.Expr, exact: bool, index: int | None = None) -> sp.Expr:
    if func == "polygamma":
        return sp.polygamma(index, arg) if exact else _Psi(index, arg)
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
        case Call(func=func, arg=arg, index=index):
            return _call(func, _build(arg, exact), exact, index)
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
        case Binary(op="**", left=left, right=right) if exact:
            return _power(_build(left, exact), _build(right, exact))
        case Binary(op="**", left=left, right=right):
            return sp.Pow(_build(left, exact), _build(right, exact), evaluate=False)
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
    return latex(_build(tree, exact=False))


def name_latex(sym: sp.Symbol) -> str:
    """A variable's name as sympy prints it, in braces where it carries a prime: sympy writes
    ``aprime_b`` as ``{a}'_{b}``, and a power after it would be a second superscript."""
    text = sp.latex(sym)
    return "{" + text + "}" if "'" in text else text


def latex(expr: sp.Basic) -> str:
    """sympy's LaTeX of ``expr``, each variable named by :func:`name_latex` (valid KaTeX
    whatever the variables are called)."""
    names = {s: name_latex(s) for s in expr.free_symbols if isinstance(s, sp.Symbol)}
    return sp.latex(expr, symbol_names=names)
