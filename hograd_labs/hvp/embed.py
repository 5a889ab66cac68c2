"""The HVP lab's contour picture as another page embeds it: the lesson's step draws ∇f, v and
Hv on its example (pages/lesson.py hands this in; labs never import each other)."""

from __future__ import annotations

from hograd_core import HogradError
from hograd_ui.parts.chart import chart
from hograd_ui.parts.ui import lang, show_error

from .cached import explore
from .figures import contour_figure

__all__ = ["contour_chart"]


def contour_chart(text: str, point: tuple, vector: tuple, key: str) -> None:
    """Contours of f = ``text`` around ``point`` with ∇f, v = ``vector`` and Hv as arrows (no
    point to pick: the example is fixed); ``key`` names the chart. A refusal is said."""
    try:
        ex = explore(text, point, vector, 1.5)
    except HogradError as err:
        show_error(err)
        return
    figure = contour_figure(ex.grid, ex.result, lang(), pickable=False)
    chart(figure, key=key)
