"""A y-range that keeps the derivatives chart readable near a pole.

Near a pole a few points dwarf all the others: on 1,000 points of [-3, 3], 1/x and its first
four derivatives reach more than 1e13 in size, and an axis stretched that far draws every curve
as a flat line. :func:`chart_range` cuts the axis to the bulk of the values (their 2nd to 98th
percentile, padded) when the full span is more than ``SPREAD`` times that, and says where the
curves go beyond it, so the page can tell the student. The presets that are smooth on the real
line stay under ``SPREAD`` to order 10 and keep their full range (tests/ui/test_chart_range.py
checks both).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["ChartRange", "chart_range", "intervals", "QUANTILES", "SPREAD"]

#: The bulk of the values: between these quantiles of the finite ones.
QUANTILES = (0.02, 0.98)
#: Cut the axis when the finite values span more than this many times the bulk.
SPREAD = 100.0
#: Room around the bulk, as a fraction of its span, on each side.
PAD = 0.25


@dataclass(frozen=True)
class ChartRange:
    """The y-range of each panel of the chart, and where curves leave it.

    Attributes:
        panels: (low, high) for each panel (one, or one per order), None where the panel's
            values are readable as they are (plotly's autoscale is then the right one).
        beyond: the x intervals ([first, last] grid points) where a curve goes beyond its
            panel's range.
        f_beyond: the same for f itself.
        peak: the largest finite absolute value of all the curves.
    """

    panels: tuple[tuple[float, float] | None, ...]
    beyond: tuple[tuple[float, float], ...]
    f_beyond: tuple[tuple[float, float], ...]
    peak: float

    @property
    def cut(self) -> bool:
        """Whether any panel's axis is cut."""
        return any(p is not None for p in self.panels)


def intervals(xs: np.ndarray, mask: np.ndarray) -> tuple[tuple[float, float], ...]:
    """The runs of ``mask`` as (first x, last x) pairs, left to right."""
    flags = np.concatenate([[False], np.asarray(mask, dtype=bool), [False]])
    edges = np.flatnonzero(np.diff(flags.astype(np.int8)))
    return tuple(
        (float(xs[a]), float(xs[b - 1])) for a, b in zip(edges[::2], edges[1::2], strict=True)
    )


def _panel(values: np.ndarray) -> tuple[float, float] | None:
    """The cut range of one panel's values (rows x points), or None if it needs none."""
    finite = values[np.isfinite(values)]
    if finite.size < 2:
        return None
    bottom, top = (float(q) for q in np.quantile(finite, QUANTILES))
    span = top - bottom or max(abs(top), 1.0)
    if float(finite.max() - finite.min()) <= SPREAD * span:
        return None
    return bottom - PAD * span, top + PAD * span


def chart_range(
    xs: np.ndarray, rows: Sequence[np.ndarray], *, separate: bool = False
) -> ChartRange:
    """The y-ranges for ``rows`` (row 0 is f) drawn over ``xs``: in one panel, or one panel
    per row (``separate``).

    Example:
        >>> import numpy as np
        >>> xs = np.linspace(-3, 3, 1000)
        >>> chart_range(xs, [np.sin(xs), np.cos(xs)]).cut
        False
        >>> cut = chart_range(xs, [1 / xs, -1 / xs**2])  # f = 1/x and f'
        >>> [(round(a, 3), round(b, 3)) for a, b in cut.f_beyond], round(cut.panels[0][1])
        ([(-0.009, 0.039)], 23)
    """
    values = np.stack([np.asarray(r, dtype=np.float64) for r in rows])
    groups = [values[k : k + 1] for k in range(len(values))] if separate else [values]
    panels = tuple(_panel(g) for g in groups)
    out = np.zeros_like(values, dtype=bool)
    with np.errstate(invalid="ignore"):
        for k in range(len(values)):
            limits = panels[k if separate else 0]
            if limits is not None:
                out[k] = np.isfinite(values[k]) & (
                    (values[k] < limits[0]) | (values[k] > limits[1])
                )
    finite = np.abs(values[np.isfinite(values)])
    peak = float(finite.max()) if finite.size else 0.0
    return ChartRange(panels, intervals(xs, out.any(axis=0)), intervals(xs, out[0]), peak)
