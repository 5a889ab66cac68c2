"""What the derivatives page works out from the kernel's results (no Streamlit, no plotting).

The derivatives themselves are the kernel's (``hograd_core``: the function language, nested
autograd, Taylor mode, sympy, the inspector), because the command line computes them too. Here
is what only this page reads from them: where the curves have gaps, how far a derivative goes
where f does not, and how two numbers of the inspector's table compare.
"""

from __future__ import annotations

import math

import numpy as np

from hograd_core.nested_autograd import PROBE_POINT

__all__ = ["X0", "agreeing_digits", "beyond_f", "delta", "undefined_intervals"]

#: The inspector's x₀ when nothing chose another: the point nested autograd's graph is probed
#: on, so the inspector there reads its autograd column from the probe (one name, not two
#: numbers that must agree).
X0 = PROBE_POINT


def delta(value: float | None, exact: float | None) -> float | None:
    """|value - exact| for the Δ columns: 0 where both are the same infinity (inf - inf would be
    NaN), NaN where only one is NaN; None where either was not computed."""
    if value is None or exact is None:
        return None
    if value == exact or (math.isnan(value) and math.isnan(exact)):
        return 0.0
    return abs(value - exact)


def agreeing_digits(value: float | None, exact: float | None) -> str:
    """How many significant digits ``value`` shares with ``exact``, as text: "16" when equal,
    "0" when not even the first; "—" where either is missing, not finite, or exact is 0
    (relative digits mean nothing there)."""
    if value is None or exact is None or not (math.isfinite(value) and math.isfinite(exact)):
        return "—"
    if exact == 0:
        return "—"
    if value == exact:
        return "16"
    return str(min(16, max(0, math.floor(-math.log10(abs(value - exact) / abs(exact))))))


def undefined_intervals(xs: np.ndarray, row: np.ndarray) -> list[tuple[float, float]]:
    """The x intervals (as [first, last] grid points) where ``row`` is NaN or infinite."""
    bad = ~np.isfinite(row)
    out: list[tuple[float, float]] = []
    start = None
    for i, flag in enumerate(bad):
        if flag and start is None:
            start = i
        if not flag and start is not None:
            out.append((float(xs[start]), float(xs[i - 1])))
            start = None
    if start is not None:
        out.append((float(xs[start]), float(xs[-1])))
    return out


def beyond_f(
    xs: np.ndarray, values: np.ndarray
) -> list[tuple[tuple[int, ...], int, list[tuple[float, float]]]]:
    """Where derivatives are NaN or infinite although f is finite, grouped by the orders that
    share the same points: (orders, count, [first, last] grid intervals). x**x, for one, is
    finite at the negative integers, but its derivatives (through log x) are not."""
    finite_f = np.isfinite(values[0])
    groups: dict[bytes, list[int]] = {}
    masks: dict[bytes, np.ndarray] = {}
    for k in range(1, values.shape[0]):
        extra = ~np.isfinite(values[k]) & finite_f
        if extra.any():
            groups.setdefault(extra.tobytes(), []).append(k)
            masks[extra.tobytes()] = extra
    return [
        (
            tuple(orders),
            int(masks[key].sum()),
            undefined_intervals(xs, np.where(masks[key], np.nan, 0.0)),
        )
        for key, orders in groups.items()
    ]
