"""Taylor mode: every derivative of orders 0..n in one pass over the expression.

Instead of differentiating a graph again and again (nested autograd, whose graph keeps growing
with the order for most functions), push a *truncated Taylor series* through the tree. Each node
holds the coefficients ``c[k] = f^(k)(x0) / k!`` of its value as a polynomial in ``t = x - x0``, as an
array of shape (order + 1, points); the variable ``x`` is the series ``x0 + 1*t``. Every
operation maps input coefficients to output coefficients with a short recurrence, and at the
end ``f^(k)(x0) = k! * c[k]``. Cost is O(order^2) per node, memory O(order), all points at once.

Most recurrences come from one identity. If ``y = f(a)`` and ``f'`` is known as a series ``g``
(often built from ``y`` itself), then ``y' = g * a'``; comparing coefficients of ``t^(k-1)``::

    y[k] = (1/k) * sum_{j=1..k} j * a[j] * g[k-j]                                  (chain)

``g[k-j]`` needs only ``y[0..k-1]``, so the series is filled one order at a time. Conventions
follow PyTorch's autograd: ``abs`` has slope sign(0) = 0 at 0, ``relu`` slope 0 at 0, and a
value that is undefined gives NaN or inf in its column, never an exception. Where f has no
derivative (a pole, log 0) those NaN and inf come from the recurrences and need not match
torch's; ``0**b`` gets slope 0 wherever b >= 0, where torch's second derivative is NaN
(hograd_core/point_notes.py finds such points for the page).
"""

from __future__ import annotations

import math

import numpy as np

from .errors import ArgumentError
from .language import Binary, Call, Function, Neg, Node, Var

__all__ = ["taylor_coefficients", "taylor_derivatives"]

# ----------------------------------------------------------------------------------------------
# Private helpers: operations on coefficient arrays of shape (order + 1, points).


def _conv(a: np.ndarray, b: np.ndarray, k: int) -> np.ndarray:
    """Cauchy product term: sum_{j=0..k} a[j] * b[k-j] (coefficient k of a*b)."""
    return np.einsum("jn,jn->n", a[: k + 1], b[k::-1])


def _chain(ja: np.ndarray, g: np.ndarray, k: int) -> np.ndarray:
    """The (chain) recurrence: (1/k) * sum_{j=1..k} ja[j] * g[k-j], where ja[j] = j * a[j]."""
    return np.einsum("jn,jn->n", ja[1 : k + 1], g[k - 1 :: -1]) / k


def _weighted(a: np.ndarray) -> np.ndarray:
    """j * a[j]: the coefficients of t * a'(t), used by every (chain) recurrence."""
    return np.arange(a.shape[0], dtype=np.float64)[:, None] * a


def _const(value: float, like: np.ndarray) -> np.ndarray:
    out = np.zeros_like(like)
    out[0] = value
    return out


def _mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(a*b)[k] = sum_{j=0..k} a[j] b[k-j]: exact, no division (so x**3 at 0 is exact)."""
    return np.stack([_conv(a, b, k) for k in range(a.shape[0])])


def _div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """c = a/b from c*b = a: c[k] = (a[k] - sum_{j=1..k} b[j] c[k-j]) / b[0]."""
    c = np.empty_like(a)
    for k in range(a.shape[0]):
        c[k] = (a[k] - _conv(b[1:], c, k - 1)) / b[0] if k else a[0] / b[0]
    return c


def _exp(a: np.ndarray, y0: np.ndarray | None = None) -> np.ndarray:
    """y = exp(a): y' = y a', so (chain) with g = y itself. ``y0`` overrides the value."""
    y, ja = np.empty_like(a), _weighted(a)
    y[0] = np.exp(a[0]) if y0 is None else y0
    for k in range(1, a.shape[0]):
        y[k] = _chain(ja, y, k)
    return y


def _sqrt(a: np.ndarray) -> np.ndarray:
    """s = sqrt(a) from s*s = a: s[k] = (a[k] - sum_{j=1..k-1} s[j] s[k-j]) / (2 s[0])."""
    s = np.empty_like(a)
    s[0] = np.sqrt(a[0])
    for k in range(1, a.shape[0]):
        s[k] = (a[k] - np.einsum("jn,jn->n", s[1:k], s[k - 1 : 0 : -1])) / (2 * s[0])
    return s


def _integrate(y0: np.ndarray, dy: np.ndarray) -> np.ndarray:
    """The series whose value is y0 and whose derivative has coefficients dy (dy[m] -> y[m+1])."""
    ks = np.arange(1, dy.shape[0] + 1, dtype=np.float64)[:, None]
    return np.concatenate([y0[None], dy / ks])


def _derivative(a: np.ndarray) -> np.ndarray:
    """Coefficients of a'(t): (m + 1) * a[m + 1], one order shorter."""
    return _weighted(a)[1:]


def _sin_cos(a: np.ndarray, sign: float) -> tuple[np.ndarray, np.ndarray]:
    """(sin a, cos a) for sign=-1 (s' = c a', c' = -s a'); (sinh a, cosh a) for sign=+1."""
    s, c, ja = np.empty_like(a), np.empty_like(a), _weighted(a)
    s[0], c[0] = (np.sinh(a[0]), np.cosh(a[0])) if sign > 0 else (np.sin(a[0]), np.cos(a[0]))
    for k in range(1, a.shape[0]):
        s[k] = _chain(ja, c, k)
        c[k] = sign * _chain(ja, s, k)
    return s, c


def _tan(a: np.ndarray, sign: float) -> np.ndarray:
    """tan (sign=+1): y' = (1 + y^2) a'; tanh (sign=-1): y' = (1 - y^2) a'. u = 1 +- y^2.

    For tanh, u[0] = 1 - tanh(a0)^2 = 4 e / (1 + e)^2 with e = e^(-2|a0|): 1 - y0^2 would be
    0 from |a0| = 18.99 on, where tanh(a0) rounds to 1, and every derivative with it.
    """
    y, u, ja = np.empty_like(a), np.empty_like(a), _weighted(a)
    y[0] = np.tan(a[0]) if sign > 0 else np.tanh(a[0])
    if sign > 0:
        u[0] = 1 + y[0] ** 2
    else:
        e = np.exp(-2 * np.abs(a[0]))  # in (0, 1]: no overflow
        u[0] = 4 * e / (1 + e) ** 2
    for k in range(1, a.shape[0]):
        y[k] = _chain(ja, u, k)
        u[k] = sign * _conv(y, y, k)  # needs y[0..k], just filled
    return y


def _sigmoid(a: np.ndarray) -> np.ndarray:
    """y = sigmoid(a): y' = y (1 - y) a'. w = 1 - y keeps its own stable value w[0]."""
    y, w, u, ja = np.empty_like(a), np.empty_like(a), np.empty_like(a), _weighted(a)
    e = np.exp(-np.abs(a[0]))  # in (0, 1]: no overflow on either side
    y[0] = np.where(a[0] >= 0, 1 / (1 + e), e / (1 + e))
    w[0] = np.where(a[0] >= 0, e / (1 + e), 1 / (1 + e))
    u[0] = y[0] * w[0]
    for k in range(1, a.shape[0]):
        y[k] = _chain(ja, u, k)
        w[k] = -y[k]
        u[k] = _conv(y, w, k)
    return y


def _from_slope(y0: np.ndarray, a: np.ndarray, g: np.ndarray) -> np.ndarray:
    """y with value y0 and y' = g a', where the series g of f'(a) is already known."""
    y, ja = np.empty_like(a), _weighted(a)
    y[0] = y0
    for k in range(1, a.shape[0]):
        y[k] = _chain(ja, g, k)
    return y


def _int_power(a: np.ndarray, n: int) -> np.ndarray:
    """a**n by repeated squaring (products only: exact at a[0] = 0); n < 0 via 1/a**-n."""
    result, base, m = _const(1.0, a), a, abs(n)
    while m:
        if m & 1:
            result = _mul(result, base)
        m >>= 1
        if m:
            base = _mul(base, base)
    return _div(_const(1.0, a), result) if n < 0 else result


def _real_power(a: np.ndarray, r: float) -> np.ndarray:
    """y = a**r for a non-integer constant r.

    From a y' = r a' y, the coefficient of t^(k-1) gives
    ``k a[0] y[k] = sum_{j=1..k} ((r + 1) j - k) a[j] y[k-j]``. Where a[0] = 0 the series does
    not exist; like autograd's r * a**(r-1) * a' we keep the leading term
    ``binom(r, k) a[1]^k 0^(r-k)``: 0 below order r, +-inf above it (NaN if a[1] = 0 too).
    """
    y = np.empty_like(a)
    y[0] = np.power(a[0], r)
    for k in range(1, a.shape[0]):
        w = ((r + 1) * np.arange(1, k + 1) - k)[:, None]
        y[k] = np.sum(w * a[1 : k + 1] * y[k - 1 :: -1], axis=0) / (k * a[0])
    zero = a[0] == 0
    if np.any(zero):
        binom = 1.0
        for k in range(a.shape[0]):
            lead = a[1, zero] ** k if a.shape[0] > 1 else 1.0
            y[k, zero] = binom * lead * np.power(0.0, r - k)
            binom *= (r - k) / (k + 1)
    return y


def _log(a: np.ndarray) -> np.ndarray:
    """y = log(a): y' = a'/a (as in autograd, finite slopes where a < 0 although y is NaN)."""
    return _integrate(np.log(a[0]), _div(_derivative(a), a[:-1]))


def _expm1(a: np.ndarray) -> np.ndarray:
    """y = e^a - 1: y[0] = expm1(a[0]) (no 1 - 1 cancelling where a[0] is small), and y[k] =
    exp(a)[k] for k >= 1, since y' = e^a a' (the (chain) recurrence with g = y + 1)."""
    y = _exp(a)
    y[0] = np.expm1(a[0])
    return y


def _log1p(a: np.ndarray) -> np.ndarray:
    """y = log(1 + a): y' = a'/(1 + a), so y[k] = (a'/(1 + a))[k-1] / k (``_div`` then
    ``_integrate``), y[0] = log1p(a[0])."""
    return _integrate(np.log1p(a[0]), _div(_derivative(a), (_const(1.0, a) + a)[:-1]))


def _over_root(a: np.ndarray, value: np.ndarray, radicand: np.ndarray) -> np.ndarray:
    """y with value ``value`` and y' = a' / sqrt(radicand): y[k] = (a'/sqrt(r))[k-1] / k."""
    return _integrate(value, _div(_derivative(a), _sqrt(radicand)[:-1]))


def _asinh(a: np.ndarray) -> np.ndarray:
    """y = asinh(a): y' = a'/sqrt(1 + a^2)."""
    return _over_root(a, np.arcsinh(a[0]), _const(1.0, a) + _mul(a, a))


def _acosh(a: np.ndarray) -> np.ndarray:
    """y = acosh(a): y' = a'/sqrt((a - 1)(a + 1)); the product, not a^2 - 1, keeps its digits
    near a = 1 (a[0] - 1 is exact there)."""
    one = _const(1.0, a)
    return _over_root(a, np.arccosh(a[0]), _mul(a - one, a + one))


def _atanh(a: np.ndarray) -> np.ndarray:
    """y = atanh(a): y' = a'/((1 - a)(1 + a)), so y[k] = (a'/((1 - a)(1 + a)))[k-1] / k."""
    one = _const(1.0, a)
    return _integrate(np.arctanh(a[0]), _div(_derivative(a), _mul(one - a, one + a)[:-1]))


def _erf_slope(a: np.ndarray) -> np.ndarray:
    """The series of erf'(a) = 2/sqrt(pi) e^(-a^2) (``_exp`` of the series -a*a)."""
    return 2 / math.sqrt(math.pi) * _exp(-_mul(a, a))


def _call(func: str, a: np.ndarray, index: int | None = None) -> np.ndarray:
    """The series of ``func(a)``: one case per function of the language (``index`` is
    polygamma's n)."""
    match func:
        case "sin" | "cos" | "sinh" | "cosh":
            s, c = _sin_cos(a, 1.0 if func.endswith("h") else -1.0)
            return s if func.startswith("sin") else c
        case "tan" | "tanh":
            return _tan(a, 1.0 if func == "tan" else -1.0)
        case "exp":
            return _exp(a)
        case "sqrt":
            return _sqrt(a)
        case "log":
            return _log(a)
        case "sigmoid":
            return _sigmoid(a)
        case "abs":  # |a| = sign(a0) * a near a0; sign(0) = 0 as in torch's backward
            y = np.sign(a[0]) * a
            y[0] = np.abs(a[0])
            return y
        case "relu":  # relu(a) = [a0 > 0] * a near a0; slope 0 at 0 as in torch
            y = (a[0] > 0) * a
            y[0] = np.maximum(a[0], 0.0)
            return y
        case "softplus":  # softplus(a) = log(1 + e^a), softplus' = sigmoid
            return _from_slope(np.logaddexp(a[0], 0.0), a, _sigmoid(a))
        case "erf" | "erfc":  # erf' = 2/sqrt(pi) exp(-a^2), erfc' = -erf'
            from scipy.special import erf, erfc  # a runtime dependency; import lazily

            if func == "erf":
                return _from_slope(erf(a[0]), a, _erf_slope(a))
            return _from_slope(erfc(a[0]), a, -_erf_slope(a))
        case "expm1":
            return _expm1(a)
        case "log1p":
            return _log1p(a)
        case "asinh":
            return _asinh(a)
        case "acosh":
            return _acosh(a)
        case "atanh":
            return _atanh(a)
        case "atan":  # atan' = 1/(1+a^2): integrate a'/(1 + a^2)
            da, one = _derivative(a), _const(1.0, a)
            return _integrate(np.arctan(a[0]), _div(da, (one + _mul(a, a))[:-1]))
        case "asin" | "acos":  # asin' = 1/sqrt((1-a)(1+a)), acos' = -asin'
            one = _const(1.0, a)  # (1-a)(1+a), not 1-a^2: 1 - a[0] is exact near a = 1
            y = _over_root(a, np.arcsin(a[0]), _mul(one - a, one + a))
            if func == "acos":
                y = -y
                y[0] = np.arccos(a[0])
            return y
        case "lgamma" | "digamma" | "polygamma" | "erfinv" | "i0" | "i1":
            from .taylor_special import special_series  # their rules, stated there

            return special_series(func, a, index)
        case _:
            raise AssertionError(f"not a function of the language: {func!r}")


def _power(base: Node, exponent: Node, x: np.ndarray) -> np.ndarray:
    """The series of ``base ** exponent``."""
    if exponent.const is not None:
        a = _series(base, x)
        if float(exponent.const).is_integer():
            return _int_power(a, int(exponent.const))
        return _real_power(a, exponent.const)
    b = _series(exponent, x)
    c = base.const
    if c == 0:  # 0**b is 0 for b > 0 with slope 0 (torch's convention); NaN slopes for b < 0
        y = np.where(b[0] >= 0, 0.0, np.nan) * np.ones_like(b)
        y[0] = np.power(0.0, b[0])
        return y
    # a**b = exp(b log a), so y' = (b log a)' y: the exp recurrence on m = b log a. The value
    # comes from np.power, so (-2)**x keeps its value at integers while its slopes are NaN.
    a = None if c is not None else _series(base, x)
    m = np.log(c) * b if a is None else _mul(b, _log(a))
    return _exp(m, np.power(c if a is None else a[0], b[0]))


def _series(node: Node, x: np.ndarray) -> np.ndarray:
    """Coefficients (order + 1, points) of ``node`` around each point; ``x`` is the variable."""
    match node:
        case Node(const=value) if value is not None:
            return _const(value, x)
        case Var():
            return x
        case Neg(arg=arg):
            return -_series(arg, x)
        case Call(func=func, arg=arg, index=index):
            return _call(func, _series(arg, x), index)
        case Binary(op="**", left=base, right=exponent):
            return _power(base, exponent, x)
        case Binary(op="+", left=left, right=right):
            return _series(left, x) + _series(right, x)
        case Binary(op="-", left=left, right=right):
            return _series(left, x) - _series(right, x)
        case Binary(op="*", left=Node(const=scalar), right=other) if scalar is not None:
            return scalar * _series(other, x)  # no Cauchy product for 3*x
        case Binary(op="*", left=other, right=Node(const=scalar)) if scalar is not None:
            return scalar * _series(other, x)
        case Binary(op="*", left=left, right=right):
            return _mul(_series(left, x), _series(right, x))
        case Binary(op="/", left=left, right=Node(const=divisor)) if divisor is not None:
            return _series(left, x) / divisor
        case Binary(op="/", left=left, right=right):
            return _div(_series(left, x), _series(right, x))
        case _:
            raise AssertionError(f"not a node of the language: {node!r}")


def polynomial_degree(node: Node) -> int | None:
    """Polynomial degree of ``node`` in the variable, or None if it is not a polynomial."""
    match node:
        case Node(const=value) if value is not None:
            return 0
        case Var():
            return 1
        case Neg(arg=arg):
            return polynomial_degree(arg)
        case Call():
            return None  # a call of a variable argument: sin(x), abs(x), ...
        case Binary(op="**", left=base, right=Node(const=n)):
            degree = polynomial_degree(base)
            ok = degree is not None and n is not None and float(n).is_integer() and n >= 0
            return degree * int(n) if ok else None
        case Binary(op="/", left=left, right=Node(const=divisor)):
            return polynomial_degree(left) if divisor is not None else None
        case Binary(op="*" | "+" | "-" as op, left=left, right=right):
            a, b = polynomial_degree(left), polynomial_degree(right)
            if a is None or b is None:
                return None
            return a + b if op == "*" else max(a, b)
        case _:
            raise AssertionError(f"not a node of the language: {node!r}")


# ----------------------------------------------------------------------------------------------
# Public API


def taylor_coefficients(
    fn: Function, grid: np.ndarray, order: int, *, scale: float = 1.0
) -> np.ndarray:
    """The Taylor coefficients ``c[k] = f^(k)(x0) / k! * scale**k`` of ``fn`` at every point
    x0 of ``grid``: the series of ``f(x0 + scale*t)`` in t, shape (order + 1, n).

    ``scale`` keeps the coefficients of high order within float64 where they would overflow or
    underflow (a pole at distance 1e-3 makes c[k] grow as 1e3**k); 1 gives f's own.

    Raises:
        ArgumentError: ``fn`` has more than one variable.
    """
    if len(fn.variables) > 1:
        raise ArgumentError("budget.one_variable", names=", ".join(fn.variables))
    points = np.asarray(grid, dtype=np.float64).reshape(-1)
    x = np.zeros((order + 1, points.size))  # the variable: x0 + scale*t
    x[0] = points
    if order:
        x[1] = scale
    with np.errstate(all="ignore"):
        coeffs = _series(fn.tree, x)
    degree = polynomial_degree(fn.tree)
    if degree is not None:
        coeffs[degree + 1 :] = 0.0  # exact: a polynomial's higher derivatives vanish
    return coeffs


def taylor_derivatives(fn: Function, grid: np.ndarray, order: int) -> tuple[np.ndarray, int | None]:
    """Derivatives of orders 0..``order`` of ``fn`` at every point of ``grid``, by Taylor mode.

    Args:
        fn: a function of at most one variable.
        grid: the points, shape (n,), float64.
        order: the highest order (any non-negative int; the app allows up to 30).

    Returns:
        ``(values, constant_from)``: ``values`` is float64 of shape (order + 1, n) with row k the
        k-th derivative (NaN or inf where undefined, never an exception); ``constant_from`` is
        the polynomial degree of ``fn`` when it is a polynomial (the first order whose
        derivative no longer depends on x; every row above it is exactly 0), else None.

    Raises:
        ArgumentError: ``fn`` has more than one variable.

    Example:
        >>> import numpy as np
        >>> from hograd_core import parse
        >>> from hograd_core.taylor import taylor_derivatives
        >>> taylor_derivatives(parse("x**3"), np.array([2.0]), 4)[0][:, 0].tolist()
        [8.0, 12.0, 12.0, 6.0, 0.0]

    Note:
        Cost grows as order^2 per node of the tree, with memory linear in the order; nested
        autograd's graph, for most functions, grows geometrically with the order.
    """
    coeffs = taylor_coefficients(fn, grid, order)
    factorials = np.array([math.factorial(k) for k in range(order + 1)], dtype=np.float64)
    with np.errstate(all="ignore"):
        values = coeffs * factorials[:, None]
    constant_from = polynomial_degree(fn.tree)
    if constant_from is not None:
        values[constant_from + 1 :] = 0.0  # exact: 0 * inf would be NaN
    return np.ascontiguousarray(values, dtype=np.float64), constant_from
