"""sympy's expressions as a flat program of mpmath operations: compiled where sympy runs,
evaluated anywhere, in a time linear in its length.

The derivatives page's exact column is worked out by sympy in a separate process (sympy holds
the interpreter while it works, and one swollen expression could hold it for minutes). What
comes back is not sympy objects, whose unpickling would run sympy again, but this program:
one instruction per distinct subexpression, each naming the earlier instructions it uses, so a
subexpression shared by several derivatives is written and evaluated once. Evaluating it at a
point is one pass over the list in a private mpmath context at fixed precision.

Instructions (JSON-friendly lists; ``i``, ``j`` are indices of earlier instructions)::

    ["var", name]            ["num", p, q] (the rational p/q)    ["float", sign, man, exp, bc]
    ["pi"]  ["e"]            ["add", i, j, ...]  ["mul", i, j, ...]  ["pow", i, j]
    ["fn", name, i]          ["bad", why] (no real value: NaN, zoo, an unknown function)
    ["fnk", name, k, i]      (a function with a whole-number order k: polygamma(k, a),
                             besseli(k, a))            ["euler"] (Euler's constant 0.5772...)

A value that is not a real number (the log of a negative number, 0 to a negative power, asin
outside [-1, 1]) is NaN, and so is everything computed from it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import mpmath
import sympy as sp

from .language.to_sympy import LogAbsGamma, TorchAbs, TorchRelu, TorchSign, TorchStep

__all__ = [
    "MAX_EXPONENT",
    "MAX_PROGRAM",
    "Program",
    "ProgramTooLarge",
    "evaluate",
    "evaluate_with_underflow",
]

#: Instructions one program may hold: evaluating 10,000 at 30 digits takes about 0.1-0.3 s here
#: (a derivative to order 30 of the presets needs 600-1,100; x**x to order 26, 3,200).
MAX_PROGRAM = 10_000

#: The largest binary exponent a value may have while a program is evaluated (2^16384 is about
#: 10^4932, the range of an x87 long double; a float64 ends at 2^1024). A value past it counts
#: as overflowed (NaN), a value below 2^-16384 as 0, and both are decided from the operands'
#: exponents before the operation runs: mpmath's numbers carry their exponent as a Python
#: integer, so 3^(2^16777216) would otherwise be computed, squaring by squaring, with an
#: exponent of 16 million bits, and a tower x^x^...^x at x = 2 runs out of memory.
MAX_EXPONENT = 2**14

#: Rationals with more bits than this are written as 40-digit floats (30 are evaluated).
_EXACT_BITS = 1024

_UNARY = {
    sp.sin: "sin",
    sp.cos: "cos",
    sp.tan: "tan",
    sp.atan: "atan",
    sp.sinh: "sinh",
    sp.cosh: "cosh",
    sp.tanh: "tanh",
    sp.exp: "exp",
    sp.erf: "erf",
    sp.erfc: "erfc",
    sp.asinh: "asinh",
    sp.acosh: "acosh",
    sp.atanh: "atanh",
    sp.asin: "asin",
    sp.acos: "acos",
    sp.log: "log",
    sp.Abs: "abs",
    TorchAbs: "abs",
    sp.sign: "sign",
    TorchSign: "sign",
    TorchStep: "step",
    TorchRelu: "relu",
    sp.Heaviside: "heaviside",
    sp.DiracDelta: "delta",
    sp.erfinv: "erfinv",
    sp.zeta: "zeta",  # polygamma(n, a) at a whole number a is written with zeta(n + 1)
    LogAbsGamma: "lgamma",
}
#: Functions with a whole-number order as their first argument, and mpmath's name of each.
_INDEXED = {sp.polygamma: "psi", sp.besseli: "besseli"}


class ProgramTooLarge(Exception):
    """The expressions need more than :data:`MAX_PROGRAM` instructions."""


@dataclass
class Program:
    """Instructions and the outputs (one per expression added), built incrementally."""

    code: list[list] = field(default_factory=list)
    outputs: list[int] = field(default_factory=list)
    limit: int = MAX_PROGRAM
    _memo: dict = field(default_factory=dict, repr=False)

    def add(self, expr: sp.Basic) -> list[list]:
        """Compile ``expr`` as the next output, reusing what earlier outputs compiled; the
        instructions it added.

        Raises:
            ProgramTooLarge: the program would pass ``limit`` instructions.
        """
        start = len(self.code)
        self.outputs.append(self._emit(expr))
        return self.code[start:]

    def extend(self, code: Sequence[list], output: int) -> None:
        """Append instructions compiled elsewhere (by :meth:`add`) and their output."""
        self.code.extend(code)
        self.outputs.append(output)

    def _push(self, instruction: list) -> int:
        if len(self.code) >= self.limit:
            raise ProgramTooLarge(f"more than {self.limit:,} instructions")
        self.code.append(instruction)
        return len(self.code) - 1

    def _emit(self, e: sp.Basic) -> int:  # one case per kind of node
        if e in self._memo:
            return self._memo[e]
        if e.is_Symbol:
            ins = ["var", e.name]
        elif e.is_Rational and max(int(e.p).bit_length(), int(e.q).bit_length()) <= _EXACT_BITS:
            ins = ["num", int(e.p), int(e.q)]
        elif e.is_Rational:  # too long to write exactly (and past the 30 digits evaluated)
            ins = ["float", *(int(v) for v in sp.Float(e, 40)._mpf_)]
        elif e.is_Float:
            ins = ["float", *(int(v) for v in e._mpf_)]
        elif e is sp.pi:
            ins = ["pi"]
        elif e is sp.E:
            ins = ["e"]
        elif e is sp.EulerGamma:
            ins = ["euler"]
        elif isinstance(e, sp.Add | sp.Mul):
            ins = ["add" if isinstance(e, sp.Add) else "mul", *(self._emit(a) for a in e.args)]
        elif isinstance(e, sp.Pow):
            ins = ["pow", self._emit(e.base), self._emit(e.exp)]
        elif e.func in _UNARY and (e.func is not sp.zeta or len(e.args) == 1):  # not Hurwitz's
            ins = ["fn", _UNARY[e.func], self._emit(e.args[0])]
        elif e.func in _INDEXED and e.args[0].is_Integer and abs(e.args[0]) < 1000:
            ins = ["fnk", _INDEXED[e.func], int(e.args[0]), self._emit(e.args[1])]
        else:
            ins = ["bad", type(e).__name__]  # NaN, zoo, infinities, Piecewise, ...
        index = self._push(ins)
        self._memo[e] = index
        return index


def evaluate(
    code: Sequence[Sequence],
    outputs: Sequence[int],
    point: Mapping[str, float],
    *,
    digits: int = 30,
) -> list[float]:
    """The value of each output at ``point`` (variable name -> value), ``digits`` significant
    digits, as floats: NaN where it is not a real number or not finite.

    Note:
        The time is linear in the length of ``code`` (at most :data:`MAX_PROGRAM`
        instructions): every instruction works on ``digits``-digit numbers whose exponents stay
        within :data:`MAX_EXPONENT` bits, so none costs more than a fixed amount.
    """
    return evaluate_with_underflow(code, outputs, point, digits=digits)[0]


def evaluate_with_underflow(
    code: Sequence[Sequence],
    outputs: Sequence[int],
    point: Mapping[str, float],
    *,
    digits: int = 30,
) -> tuple[list[float], list[str | None]]:
    """:func:`evaluate`'s floats, and beside each the value as text with two digits
    ("1.8e-653") where it is not 0 but float64 holds it as 0: closer to 0 than half of
    float64's smallest positive number, 4.9e-324 (else None). mpmath's exponents reach
    -:data:`MAX_EXPONENT` bits (about 1e-4932), float64's about 1e-324."""
    ctx = mpmath.MPContext()
    ctx.dps = digits
    env = {name: ctx.mpf(value) for name, value in point.items()}
    values: list = []
    for ins in code:
        try:
            values.append(_step(ctx, ins, values, env))
        except (ZeroDivisionError, OverflowError, ValueError, TypeError, KeyError):
            values.append(None)
    out, below = [], []
    for index in outputs:
        value = values[index] if 0 <= index < len(values) else None
        number = float(value) if value is not None else math.nan
        out.append(number if math.isfinite(number) else math.nan)
        lost = value is not None and number == 0 and value != 0 and ctx.isfinite(value)
        below.append(ctx.nstr(value, 2) if lost else None)
    return out, below


def _step(ctx: mpmath.MPContext, ins: Sequence, values: list, env: dict) -> object:
    op = ins[0]
    if op == "var":
        return env[ins[1]]
    if op == "num":
        return ctx.mpf(ins[1]) / ins[2]
    if op == "float":
        if abs(ins[3] + ins[4]) > MAX_EXPONENT:
            return None if ins[3] + ins[4] > 0 else ctx.zero
        return ctx.make_mpf((ins[1], ins[2], ins[3], ins[4]))
    if op == "pi":
        return ctx.pi
    if op == "e":
        return ctx.e
    if op == "euler":
        return ctx.euler
    if op == "bad":
        return None
    args = [values[i] for i in ins[{"fn": 2, "fnk": 3}.get(op, 1) :]]
    if any(a is None for a in args):
        return None
    if op == "fnk":
        return _bounded(ctx, _indexed(ctx, ins[1], ins[2], args[0]))
    if op == "add":
        return _bounded(ctx, ctx.fsum(args))
    if op == "mul":
        if any(a == 0 for a in args):
            return ctx.zero
        bits = sum(ctx.mag(a) for a in args)  # the product's exponent, near enough
        if abs(bits) > MAX_EXPONENT + 64:
            return None if bits > 0 else ctx.zero
        return _bounded(ctx, ctx.fprod(args))
    if op == "pow":
        base, expo = args
        if base < 0 and not ctx.isint(expo):
            return None
        if base == 0 and expo < 0:
            return None
        if base != 0 and abs(base) != 1 and expo != 0:
            # log2 |base^expo| = expo * log2 |base|, from numbers within MAX_EXPONENT bits
            bits = float(expo) * float(ctx.log(abs(base), 2))
            if not math.isfinite(bits) or abs(bits) > MAX_EXPONENT:
                return None if not bits < 0 else ctx.zero
        return _bounded(ctx, ctx.power(base, expo))
    if ins[1] in ("exp", "sinh", "cosh") and abs(args[0]) > MAX_EXPONENT * math.log(2):
        if ins[1] == "exp" and args[0] < 0:
            return ctx.zero
        return None  # past MAX_EXPONENT bits
    return _bounded(ctx, _unary(ctx, ins[1], args[0]))


def _bounded(ctx: mpmath.MPContext, value: object) -> object:
    """``value``, None if its exponent is past MAX_EXPONENT bits, 0 if below -MAX_EXPONENT."""
    if value is None or not value or not ctx.isfinite(value):
        return value
    bits = ctx.mag(value)
    if bits > MAX_EXPONENT + 64:
        return None
    if bits < -MAX_EXPONENT - 64:
        return ctx.zero
    return value


def _indexed(ctx: mpmath.MPContext, name: str, k: int, a: object) -> object:
    """polygamma(k, a) (None at its poles 0, -1, -2, ...) or besseli(k, a)."""
    if name == "psi":
        if a <= 0 and ctx.isint(a):
            return None
        if ctx.mag(a) > MAX_EXPONENT:  # psi(k, a) ~ log a or a^-k there; no need to go so far
            return None
        if a > 0:
            return ctx.psi(k, a)
        # Left of 0 the terms of two poles cancel, near -j - 1/2 (mpmath's psi(40, -100.5) at
        # 30 digits is off by a factor 1e57): their size over the result is at most about
        # (2|a| + 2)^(k+1), so that many more bits are carried.
        extra = int((k + 1) * math.log2(2 * float(abs(a)) + 2)) + 32
        with ctx.extraprec(extra):
            value = ctx.psi(k, a)
        return +value
    if abs(a) > MAX_EXPONENT * math.log(2):  # I_k(a) ~ e^|a|: past MAX_EXPONENT bits
        return None
    return ctx.besseli(k, a)


def _unary(ctx: mpmath.MPContext, name: str, a: object) -> object:
    if name in ("asin", "acos") and abs(a) > 1:
        return None
    if (name == "acosh" and a < 1) or (name == "atanh" and abs(a) >= 1):
        return None  # complex in mpmath, or atanh(±1) = ±inf
    if name == "log":
        return ctx.log(a) if a > 0 else None
    if name == "erfinv":
        return ctx.erfinv(a) if abs(a) < 1 else None  # ±inf at ±1, no real value past them
    if name == "lgamma":  # log|gamma(a)|, a pole at every whole number a <= 0
        if a <= 0 and ctx.isint(a):
            return None
        return ctx.loggamma(a) if a > 0 else ctx.log(abs(ctx.gamma(a)))
    if name == "abs":
        return abs(a)
    if name == "sign":
        return ctx.mpf((a > 0) - (a < 0))
    if name == "step":
        return ctx.mpf(1 if a > 0 else 0)
    if name == "relu":
        return a if a > 0 else ctx.mpf(0)
    if name == "heaviside":
        return ctx.mpf(1) if a > 0 else ctx.mpf(0) if a < 0 else ctx.mpf(0.5)
    if name == "delta":
        return None if a == 0 else ctx.mpf(0)
    return getattr(ctx, name)(a)
