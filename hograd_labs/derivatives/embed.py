"""The derivatives chart as another page embeds it: the lesson's steps draw f and its
derivatives on their example (pages/lesson.py hands this in; labs never import each other)."""

from __future__ import annotations

from hograd_ui.chart_range import chart_range
from hograd_ui.parts.chart import chart
from hograd_ui.parts.ui import lang

from .cached import curves
from .chart import derivatives_figure

__all__ = ["curves_chart"]


def curves_chart(text: str, low: float, high: float, points: int, order: int, key: str) -> None:
    """f = ``text`` and its derivatives up to ``order`` by nested autograd on ``points`` points
    from ``low`` to ``high``, in one panel, as on the derivatives page; ``key`` names the chart."""
    result = curves(text, low, high, points, order, "autograd")
    ranges = chart_range(result.xs, result.values, separate=False)
    figure = derivatives_figure(result, lang(), separate=False, ranges=ranges)
    chart(figure, key=key)
