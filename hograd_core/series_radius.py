"""How far the Taylor series of f at x0 converges: its radius of convergence.

The Taylor polynomial of degree n at x0 follows f better as n grows only inside the disc
|x - x0| < R of the complex plane that reaches the nearest singularity of f (a pole, a branch
point of log or sqrt): 1/(1+x^2) is smooth on the whole real line, yet its series at 0 stops
at |x| = 1, because 1/(1+z^2) has poles at z = ±i. Outside that disc a higher degree moves the
polynomial further from f, not closer.

Two ways to R, the first exact, the second an estimate:

* f built only from functions with no singularity at all (polynomials, sin, cos, sinh, cosh,
  exp, expm1, erf, erfc, i0, i1, c**x with c > 0): the series converges everywhere, R = inf. abs and
  relu count as their pieces (±a, 0 or a), with ``kinks`` set: the series at x0 is that of the
  piece x0 is on, and it parts from f at a kink whatever the order.
* anything else: from the Taylor coefficients c[k] at x0 (Taylor mode, to ``TERMS`` orders).
  Their size falls like R**-k, so R follows from how fast they shrink. For a pair of complex
  singularities (the usual case: 1/(1+x^2), atan, tanh) the signs of c[k] oscillate, which
  spoils the plain ratio c[k-1]/c[k]; the Mercer-Roberts ratio of two determinants cancels the
  oscillation:

      B[k]^2 = (c[k+1] c[k-1] - c[k]^2) / (c[k] c[k-2] - c[k-1]^2)  ->  1/R^2,

  with an error of order 1/k, removed by fitting B[k] = 1/R + b/k over the upper half of the
  orders. Where those determinants vanish (one real pole: 1/x, tan; the coefficients are then
  an exact geometric sequence) the ratio |c[k]/c[k-1]| is fitted the same way (Domb-Sykes).

An estimate is given only when it is one:

* rounding noise is not a singularity. Where f has none in reach (sin(x)/x, whose singularity
  at 0 is removable), the coefficients shrink faster than any geometric sequence until float64
  rounding takes over; the rounding errors are then amplified order by order as if by a pole
  at the zero of the denominator, and the fit reads that pole. A true singularity at R gives
  coefficients c[k] ~ A k^p R^-k with an amplitude A of the size of the first coefficients;
  noise gives A about 1e-16 of them. Below ``NOISE`` the answer is "rounding", not a radius.
* the estimate from all ``TERMS`` coefficients and the one from the first two thirds must
  agree to ``SETTLED``. Poles and branch points (1/x, log, sqrt, atan, tan) pass with room to
  spare; near an essential singularity (exp(1/x), x·sin(1/x) at 0) the estimates creep by 1-2 %
  from 40 to 60 coefficients and are still 5-15 % short: no radius is given there.
* the accuracy given is twice the difference of those two estimates: for the fits above, the
  error of the 60-coefficient estimate is at most that difference (tests/core/test_series_radius.py
  checks it on a corpus of functions against the distance to their nearest complex singularity).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .language import Binary, Call, Function, Neg, Node, Var
from .taylor import taylor_coefficients

__all__ = ["SeriesRadius", "series_radius", "TERMS"]

#: Taylor coefficients the estimate reads (orders 0..TERMS).
TERMS = 60
#: An estimate from all the coefficients and one from the first two thirds of them must agree
#: this closely (relative), or the radius is not given.
SETTLED = 0.005
#: Coefficients whose amplitude A (c[k] ~ A R^-k) is below this fraction of the first ones are
#: float64 rounding, amplified, not the trace of a singularity.
NOISE = 1e-10
#: Functions with no singularity anywhere in the complex plane.
_ENTIRE = frozenset({"sin", "cos", "sinh", "cosh", "exp", "expm1", "erf", "erfc", "i0", "i1"})
#: Functions whose series at x0 is that of one linear piece (±a, 0 or a).
_PIECEWISE = frozenset({"abs", "relu"})


@dataclass(frozen=True)
class SeriesRadius:
    """The radius of convergence of f's Taylor series at ``x0``.

    Attributes:
        x0: the point.
        radius: R (inf: the series converges for every x; NaN: not known, see ``why``).
        estimated: True when R comes from ``terms`` Taylor coefficients (an estimate), False
            when it follows from which functions f is made of (exact).
        terms: how many coefficients the estimate read (0 when exact).
        kinks: f contains abs or relu: its series at x0 is that of the piece x0 lies on.
        why: why ``radius`` is NaN: "not_finite" (f or one of its derivatives is not finite
            at x0), "rounding" (the coefficients fall to float64 rounding, which then grows
            as if from a pole: no singularity in reach) or "unsettled" (the coefficients do
            not settle on one radius).
        accuracy: for an estimate, how far R may be from the true radius (absolute).
        estimates: the estimates from the first two thirds of the coefficients and from all
            of them (empty when no fit was made or it was rounding): for "unsettled", what
            moved.
    """

    x0: float
    radius: float
    estimated: bool
    terms: int
    kinks: bool
    why: str | None = None
    accuracy: float = math.nan
    estimates: tuple[float, ...] = ()


def _entire(node: Node) -> bool:
    """Whether ``node`` is built only from functions with no singularity (abs, relu as pieces)."""
    match node:
        case Node(const=value) if value is not None:
            return True
        case Var():
            return True
        case Neg(arg=arg):
            return _entire(arg)
        case Call(func=func, arg=arg):
            return (func in _ENTIRE or func in _PIECEWISE) and _entire(arg)
        case Binary(op="+" | "-" | "*", left=left, right=right):
            return _entire(left) and _entire(right)
        case Binary(op="/", left=left, right=Node(const=divisor)):
            return divisor is not None and divisor != 0 and _entire(left)
        case Binary(op="**", left=base, right=Node(const=n)) if n is not None:
            return float(n).is_integer() and n >= 0 and _entire(base)
        case Binary(op="**", left=Node(const=c), right=exponent):
            return c is not None and c > 0 and _entire(exponent)  # c**b = exp(b log c)
        case _:
            return False


def _has_kinks(node: Node) -> bool:
    match node:
        case Call(func=func, arg=arg):
            return func in _PIECEWISE or _has_kinks(arg)
        case Neg(arg=arg):
            return _has_kinks(arg)
        case Binary(left=left, right=right):
            return _has_kinks(left) or _has_kinks(right)
        case _:
            return False


def _fit_intercept(ks: np.ndarray, values: np.ndarray) -> float:
    """a in the least-squares fit values ~ a + b/k."""
    design = np.stack([np.ones_like(ks), 1.0 / ks], axis=1)
    return float(np.linalg.lstsq(design, values, rcond=None)[0][0])


def _radius_from(c: np.ndarray) -> float:
    """R in units of the coefficients' own scale, from c[0..n] (finite, not all zero); NaN
    where they do not say."""
    n = c.size - 1
    ks = np.arange(max(n // 2, 3), n)  # the upper half, where the asymptotics hold
    scale = np.maximum(np.abs(c[ks]), np.abs(c[ks - 1])) ** 2
    top = c[ks + 1] * c[ks - 1] - c[ks] ** 2
    bottom = c[ks] * c[ks - 2] - c[ks - 1] ** 2
    ok = (np.abs(top) > 1e-8 * scale) & (np.abs(bottom) > 1e-8 * scale)
    ok &= np.divide(top, bottom, out=np.zeros_like(top), where=ok) > 0
    if ok.sum() >= ks.size // 2:  # Mercer-Roberts
        inverse = _fit_intercept(ks[ok].astype(float), np.sqrt(top[ok] / bottom[ok]))
    else:  # Domb-Sykes: the determinants vanish, the sequence is geometric
        ks = np.arange(n // 2, n + 1)
        ok = c[ks - 1] != 0
        if ok.sum() < 3:
            return math.nan
        inverse = _fit_intercept(ks[ok].astype(float), np.abs(c[ks[ok]] / c[ks[ok] - 1]))
    return 1.0 / inverse if inverse > 0 else math.nan  # NaN: the fit cannot tell


def _radius_of(c: np.ndarray) -> float:
    """:func:`_radius_from`; for an even or odd series (every other coefficient zero, as for
    asin at 0) through its series in t**2, whose radius is R**2, as often as that applies
    (x/(1-x**4) has every fourth)."""
    half = c.size // 2
    tiny = 1e-14 * float(np.max(np.abs(c[half:])))
    for parity in (0, 1):
        other = half + (1 - parity - half) % 2  # the first order >= half of the other parity
        if c.size >= 16 and np.all(np.abs(c[other::2]) <= tiny):
            return math.sqrt(_radius_of(c[parity::2]))
    return _radius_from(c)


def _amplitude(c: np.ndarray, radius: float) -> float:
    """A in c[k] ~ A radius^-k over the upper half of the orders: the largest |c[k]| radius^k
    there (the largest, so that the zeros of an even or odd series do not decide it)."""
    if not math.isfinite(radius) or radius <= 0:
        return math.inf  # nothing read as a singularity: no noise test to make
    ks = np.arange(c.size // 2, c.size)
    with np.errstate(over="ignore", under="ignore"):
        return float(np.max(np.abs(c[ks]) * radius ** ks.astype(float)))


def _rough_scale(c: np.ndarray) -> float:
    """A first guess at R from c[0..12]: how fast the largest coefficients of orders 9-12 have
    shrunk since orders 4-7 (largest of four, so that oscillating signs do no harm)."""
    early, late = np.max(np.abs(c[4:8])), np.max(np.abs(c[9:13]))
    if early == 0 or late == 0:
        return 1.0
    return float((early / late) ** (1 / 5))


def series_radius(fn: Function, x0: float, terms: int = TERMS) -> SeriesRadius:
    """The radius of convergence of the Taylor series of ``fn`` at ``x0`` (see the module).

    Args:
        fn: a function of at most one variable.
        x0: the point of expansion.
        terms: the orders of the coefficients an estimate reads.

    Returns:
        A :class:`SeriesRadius`; its ``estimated`` says whether R is an estimate.

    Example:
        >>> from hograd_core import parse
        >>> round(series_radius(parse("1/(1+x^2)"), 0.0).radius, 6)  # the poles at ±i
        1.0
        >>> series_radius(parse("sin(x)*exp(-x^2)"), 0.5).radius
        inf
    """
    x0 = float(x0)
    kinks = _has_kinks(fn.tree)
    if _entire(fn.tree):
        return SeriesRadius(x0, math.inf, estimated=False, terms=0, kinks=kinks)
    # A first look at 12 orders sets the scale, so that the coefficients of the series of
    # f(x0 + scale*t) stay near 1 up to the last order, far from overflow and underflow.
    rough = taylor_coefficients(fn, [x0], 12)[:, 0]
    if not np.all(np.isfinite(rough)):
        return SeriesRadius(
            x0, math.nan, estimated=True, terms=terms, kinks=kinks, why="not_finite"
        )
    scale = _rough_scale(rough)
    c = taylor_coefficients(fn, [x0], terms, scale=scale)[:, 0]
    if not np.all(np.isfinite(c)):
        return SeriesRadius(
            x0, math.nan, estimated=True, terms=terms, kinks=kinks, why="not_finite"
        )
    if np.max(np.abs(c[terms // 2 :])) <= 1e-13 * np.max(np.abs(c)):
        # the coefficients vanish (to rounding) from some order on: a polynomial piece
        return SeriesRadius(x0, math.inf, estimated=True, terms=terms, kinks=kinks)
    radius, shorter = _radius_of(c), _radius_of(c[: 2 * terms // 3 + 1])
    if _amplitude(c, radius) < NOISE * float(np.max(np.abs(c[:13]))):
        return SeriesRadius(x0, math.nan, estimated=True, terms=terms, kinks=kinks, why="rounding")
    if not math.isclose(radius, shorter, rel_tol=SETTLED):
        # fewer coefficients give another answer: no singularity, or one too odd, in sight
        return SeriesRadius(
            x0,
            math.nan,
            estimated=True,
            terms=terms,
            kinks=kinks,
            why="unsettled",
            estimates=(scale * shorter, scale * radius),
        )
    return SeriesRadius(
        x0,
        scale * radius,
        estimated=True,
        terms=terms,
        kinks=kinks,
        accuracy=2 * scale * abs(radius - shorter) + 1e-9 * scale * radius,
        estimates=(scale * shorter, scale * radius),
    )
