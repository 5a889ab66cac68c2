"""When two measured times resolve a ratio, and when they are only noise.

A page that says "an HVP costs 0.5× a gradient" states a fact about the machine. On small
inputs both times are a fraction of a millisecond, and a busy server or a timer tick can turn
them around from one call to the next. The rule here: time the two interleaved (one call of
each per round, so a busy moment slows both), take the ratio of each round, and report their
median only if the middle half of those ratios lies within ``SPREAD`` of it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["MIN_ROUNDS", "SPREAD", "resolved_ratio"]

#: Fewer rounds than this say nothing about their spread.
MIN_ROUNDS = 5
#: The largest interquartile range of the per-round ratios, relative to their median, for
#: which the median is reported.
SPREAD = 0.25


def resolved_ratio(
    top: Sequence[float] | np.ndarray, bottom: Sequence[float] | np.ndarray
) -> float | None:
    """The median of ``top[i] / bottom[i]`` over rounds timed interleaved, or None when the
    timings do not resolve it.

    Not resolved: fewer than ``MIN_ROUNDS`` rounds, a time that is not positive and finite, or
    per-round ratios whose interquartile range exceeds ``SPREAD`` times their median.

    Example:
        >>> resolved_ratio([2.0, 2.1, 1.9, 2.0, 2.0], [1.0, 1.0, 1.0, 1.0, 1.0])
        2.0
        >>> resolved_ratio([2.0, 0.5, 3.0, 1.0, 2.5], [1.0, 1.0, 1.0, 1.0, 1.0]) is None
        True
    """
    a = np.asarray(top, dtype=np.float64)
    b = np.asarray(bottom, dtype=np.float64)
    if a.shape != b.shape or a.size < MIN_ROUNDS:
        return None
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b)) and np.all(a > 0) and np.all(b > 0)):
        return None
    ratios = a / b
    low, median, high = np.percentile(ratios, [25, 50, 75])
    if high - low > SPREAD * median:
        return None
    return float(median)
