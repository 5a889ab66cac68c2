"""Taylor mode's rules for the special functions: lgamma, digamma, polygamma, erfinv, i0
and i1.

Each rule maps the series ``a`` of the argument (shape (order + 1, points), ``a[k]`` the
coefficient of t^k, as in :mod:`hograd_core.taylor`) to the series of ``f(a)``. Two ideas serve
all six:

* where f's own derivatives at a0 = a[0] have a closed form (lgamma, digamma, polygamma, i0
  and i1), the series is f's Taylor series at a0 with ``b = a - a0`` put in for the step
  (:func:`_compose`);
* erfinv has no such closed form but satisfies an ODE in its own value, which gives a
  recurrence order by order (:func:`erfinv_series`).

Values come from scipy.special (a runtime dependency), which gives inf or NaN at a pole and
outside a domain, never an error; the rules then give inf or NaN in those columns.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["special_series"]


def _mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(a*b)[k] = sum_{j=0..k} a[j] b[k-j], the Cauchy product of two series."""
    return np.stack([np.einsum("jn,jn->n", a[: k + 1], b[k::-1]) for k in range(a.shape[0])])


def _compose(a: np.ndarray, slopes: np.ndarray) -> np.ndarray:
    """y = f(a), from ``slopes[m] = f^(m)(a0)`` at a0 = a[0] (shape (order + 1, points)).

    With b = a - a0 (b[0] = 0, so b^m begins at t^m and no power past the order matters)::

        y = sum_{m=0..n} f^(m)(a0)/m! b^m = c0 + b (c1 + b (c2 + ... + b cn))     (Horner)

    n products of series: O(n^3) per point, against O(n^2) for an ODE's recurrence.
    """
    n = a.shape[0] - 1
    b = a.copy()
    b[0] = 0.0
    factorials = np.array([math.factorial(m) for m in range(n + 1)], dtype=np.float64)
    c = slopes / factorials[:, None]
    y = np.zeros_like(a)
    y[0] = c[n]
    for m in range(n - 1, -1, -1):
        y = _mul(y, b)
        y[0] = c[m]  # b*y has no constant term: y = c[m] + b*y
    return y


#: The most pole pairs :func:`_polygamma_left` adds for one point (a0 down to -MAX_POLES);
#: past it scipy's value is kept, digits lost or not.
MAX_POLES = 25_000


def _polygamma_left(n: np.ndarray, a0: np.ndarray) -> np.ndarray:
    """polygamma(n, a0) for a0 < 0, not a whole number (n: shape (orders, 1), a0: (points,)).

    scipy and torch compute polygamma(n, a) for n >= 1 as (-1)^(n+1) n! zeta(n + 1, a),
    adding the terms (a + k)^-(n+1) one by one, and lose digits where the terms of two poles
    cancel (near -k - 1/2, at even n: torch's polygamma(10, -20.5) is 6 times the truth).
    Here, from psi^(n)(a + 1) = psi^(n)(a) +
    (-1)^n n! a^-p with p = n + 1, applied 2J times (J = floor(-a) + 1, the terms with a + k
    < 0)::

        psi^(n)(a) = psi^(n)(a + 2J) - (-1)^n n! sum_{j=0..J-1} ((-1)^p u_j^-p + v_j^-p)

    with u_j = -(a + J - 1 - j) = j + 1 - f and v_j = a + J + j = j + f (f = a - floor(a)):
    each term left of 0 is paired with its mirror right of 0, v_j - u_j = 2f - 1 = d for every
    pair, exactly. For odd p the pair is v^-p - u^-p = u^-p expm1(p log1p(-d/v)), computed
    without cancelling (0 where f = 1/2), and every pair has the same sign; for even p both
    terms are positive. The last subtraction adds two numbers of one sign.
    """
    from scipy.special import polygamma

    p = n + 1.0
    count = np.floor(-a0) + 1  # J, per point
    total = np.zeros((n.shape[0], a0.size))
    for j in range(int(count.max())):
        live = j < count
        u = -(a0 + (count - 1 - j))  # exact: a0 plus a whole number near -a0
        v = a0 + (count + j)
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            odd = u**-p * np.expm1(p * np.log1p(-(v - u) / v))
            pair = np.where(p % 2 == 1, odd, u**-p + v**-p)
        total += np.where(live, pair, 0.0)
    sign_factorial = np.array([(-1.0) ** q * math.factorial(q) for q in n[:, 0]])[:, None]
    return polygamma(n, a0 + 2 * count) - sign_factorial * total


def _polygamma_slopes(first: int, a0: np.ndarray, count: int) -> np.ndarray:
    """polygamma(first + m, a0) for m = 0..count-1: the m-th derivative of polygamma(first).
    scipy's values where a0 > 0; :func:`_polygamma_left` where a0 < 0 (but at its poles, the
    whole numbers, and past -MAX_POLES, where scipy's inf, NaN or value is kept)."""
    from scipy.special import polygamma

    n = np.arange(first, first + count)[:, None]
    out = polygamma(n, a0[None, :])
    left = (a0 < 0) & (a0 % 1 != 0) & (a0 > -MAX_POLES)
    if left.any():
        out[:, left] = _polygamma_left(n, a0[left])
    return out


def _bessel_i_slopes(n: int, a0: np.ndarray, count: int) -> np.ndarray:
    """I_n^(m)(a0) for m = 0..count-1 (n = 0 for i0, 1 for i1).

    I_k' = (I_{k-1} + I_{k+1}) / 2 and I_{-k} = I_k, so by induction on m::

        I_n^(m) = 2^-m sum_{j=0..m} C(m, j) I_{|n + m - 2j|}

    Every term has the sign of a0^(n+m) (I_k(a) has the sign of a^k), so nothing cancels.
    """
    from scipy.special import iv

    orders = np.arange(count)
    bessel = np.stack([iv(k, a0) for k in range(n + count)])  # I_0 .. I_(n+count-1) at a0
    out = np.empty((count, a0.size))
    for m in orders:
        terms = [math.comb(m, j) * bessel[abs(n + m - 2 * j)] for j in range(m + 1)]
        out[m] = np.sum(terms, axis=0) / 2.0**m
    return out


def erfinv_series(a: np.ndarray) -> np.ndarray:
    """y = erfinv(a) from its ODE: erf(y) = a gives (2/sqrt(pi)) e^(-y^2) y' = a', so::

        y' = g a',   g = (sqrt(pi)/2) E,   E = e^s,   s = y^2

    and, comparing coefficients of t^(k-1) as in taylor.py's (chain) rule,
    ``y[k] = (1/k) sum_{j=1..k} j a[j] g[k-j]``; then ``s[k] = sum_{j=0..k} y[j] y[k-j]`` and
    ``E[k] = (1/k) sum_{j=1..k} j s[j] E[k-j]`` (E' = E s'), which give g[k] for the next
    order. y[0] = erfinv(a0): ±inf at ±1, NaN past them, and so every order there.
    """
    from scipy.special import erfinv

    y, s, e = np.empty_like(a), np.empty_like(a), np.empty_like(a)
    ja = np.arange(a.shape[0], dtype=np.float64)[:, None] * a  # j * a[j]
    y[0] = erfinv(a[0])
    s[0] = y[0] ** 2
    e[0] = np.exp(s[0])
    half_root_pi = math.sqrt(math.pi) / 2
    for k in range(1, a.shape[0]):
        y[k] = half_root_pi * np.einsum("jn,jn->n", ja[1 : k + 1], e[k - 1 :: -1]) / k
        s[k] = np.einsum("jn,jn->n", y[: k + 1], y[k::-1])
        js = np.arange(1, k + 1, dtype=np.float64)[:, None] * s[1 : k + 1]
        e[k] = np.einsum("jn,jn->n", js, e[k - 1 :: -1]) / k
    return y


def special_series(func: str, a: np.ndarray, index: int | None = None) -> np.ndarray:
    """The series of ``func(a)`` for the special functions (``index`` is polygamma's n).

    The derivatives at a0 that :func:`_compose` needs:

    * lgamma (= log|gamma|): lgamma(a0), then lgamma^(m) = polygamma(m - 1) for m >= 1;
    * digamma = polygamma(0), and polygamma(n)^(m) = polygamma(n + m);
    * i0 and i1: :func:`_bessel_i_slopes`.
    """
    from scipy.special import gammaln

    count, a0 = a.shape[0], a[0]
    match func:
        case "lgamma":
            slopes = np.concatenate([gammaln(a0)[None], _polygamma_slopes(0, a0, count - 1)])
        case "digamma":
            slopes = _polygamma_slopes(0, a0, count)
        case "polygamma":
            assert index is not None, "the parser gives polygamma its order"
            slopes = _polygamma_slopes(index, a0, count)
        case "i0":
            slopes = _bessel_i_slopes(0, a0, count)
        case "i1":
            slopes = _bessel_i_slopes(1, a0, count)
        case "erfinv":
            return erfinv_series(a)
        case _:
            raise AssertionError(f"not a special function of the language: {func!r}")
    return _compose(a, slopes)
