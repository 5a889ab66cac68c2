"""Plotly figures without the per-figure template copy (shared by every figure module).

``go.Figure()`` deep-copies its template: about 11 ms for "plotly_white", 2 ms for the
default, on every script run of every student, and ``st.plotly_chart`` copied it again. That
was the largest single cost of a derivatives rerun. Here figures are built from plain dicts,
with plotly's validation switched off and the template prepared once as JSON.

Validation still happens, in the tests: :func:`validated` rebuilds a figure with every check
on, and tests/app/conftest.py applies it to every figure a page draws (hograd_ui/parts/chart.py, and
st.plotly_chart for the 3-D surface).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import plotly.graph_objects as go
import plotly.io as pio
from _plotly_utils.utils import convert_to_base64
from plotly.basedatatypes import BaseFigure
from plotly.subplots import make_subplots

__all__ = [
    "cell_title",
    "Figure",
    "drawn",
    "for_projector",
    "grid_cells",
    "hline",
    "new_figure",
    "new_subplots",
    "plain_figure",
    "PlainFigure",
    "TEMPLATE",
    "TEXT",
    "validated",
    "vline",
]

# plotly_white, as plain JSON made once: attaching it costs ~0.3 ms, copying the template
# object (what go.Figure(template=...) does) ~11 ms. Streamlit's theme restyles lines and
# markers whatever the template, but contours, heatmaps, bars and 3-D scenes keep what
# plotly_white gives them (colorbars without outline, light zero lines, pale scene axes): with
# an empty template the HVP page's screenshots changed.
TEMPLATE: dict[str, Any] = pio.templates["plotly_white"].to_plotly_json()
#: The charts' grey text instead of Streamlit's #808495 (3.72:1 on white): the same blue-grey,
#: darker, 5.79:1 (tests/ui/test_palette.py computes it from the figures as sent).
TEXT = "#626573"


def new_figure(
    data: Any = None, frames: Any = None, *, projected: dict | None = None, **layout: Any
) -> go.Figure:
    """A figure with the house template; ``layout`` as in ``fig.update_layout`` (without the
    magic underscores: ``xaxis={"title": ...}``, not ``xaxis_title``); ``frames`` as dicts;
    ``projected``: layout that replaces parts of ``layout`` on a projector (:func:`drawn`).

    Note:
        Read the frames of such a figure through :func:`validated`: plotly cannot turn an
        unchecked frame's data back into trace objects (``fig.frames[0].data`` raises).
    """
    fig = Figure(data=data, layout={"template": TEMPLATE, **layout}, _validate=False)
    fig._projected = projected or {}
    if frames:
        # go.Figure checks frames even with _validate=False (about 0.7 ms a frame), so they are
        # attached unchecked (plotly is pinned); validated() checks them with the rest.
        fig._frame_objs = tuple(go.Frame(frame, _validate=False) for frame in frames)
    return fig


# ---- presentation mode: the same figures with projector-sized text --------------------------

#: Fonts in presentation mode: every font size times 1.6, and no text under 20 px. Plotly's
#: own default is 12 px and our tick labels are 14 px: 20-22 px on a 1920x1080 projector is
#: about 3.3 cm tall letters on a 3 m wide screen, readable from about 12 m (see the sizes in
#: hograd_ui/parts/present.py). Heights grow by 1.25 so the larger ticks and legends still leave room.
PROJECTOR_SCALE, PROJECTOR_MIN_FONT, PROJECTOR_HEIGHT = 1.6, 20, 1.25


def _bigger(value: Any, key: str = "") -> Any:
    """``value`` (a figure's dict, or part of it) with every font size scaled up."""
    if isinstance(value, dict):
        out = {k: _bigger(v, k) for k, v in value.items()}
        if key.endswith("font") and isinstance(out.get("size"), int | float):
            out["size"] = max(PROJECTOR_MIN_FONT, round(out["size"] * PROJECTOR_SCALE))
        return out
    if isinstance(value, list | tuple) and value and isinstance(value[0], dict):
        return [_bigger(v, key) for v in value]
    return value


def for_projector(fig: dict[str, Any]) -> dict[str, Any]:
    """A figure's dict (``to_dict()``) with projector-sized fonts and a little more height."""
    layout = _bigger(fig.get("layout", {}))
    size = max(PROJECTOR_MIN_FONT, (layout.get("font") or {}).get("size", PROJECTOR_MIN_FONT))
    layout["font"] = {**(layout.get("font") or {}), "size": size, "color": "#000"}
    # Streamlit's chart theme sets axis and legend fonts of its own, which a global font does
    # not override: each axis (2-D and 3-D) and the legend get theirs explicitly.
    axes = {k for k in layout if k.startswith(("xaxis", "yaxis"))}
    if "scene" not in layout:  # a 3-D figure would draw the 2-D axes it is given, empty
        axes |= {"xaxis", "yaxis"}
    for name in axes:
        layout[name] = _sized_axis(layout.get(name) or {}, size)
    scene = layout.get("scene")
    if isinstance(scene, dict):
        for name in ("xaxis", "yaxis", "zaxis"):
            scene[name] = _sized_axis(scene.get(name) or {}, size)
    legend = layout.get("legend") or {}
    title = legend.get("title") or {}
    layout["legend"] = {**legend, "font": {**legend.get("font", {}), "size": size}}
    if isinstance(title, dict) and title.get("text"):
        layout["legend"]["title"] = {**title, "font": {"size": size, "color": "#000"}}
    layout["hoverlabel"] = {**(layout.get("hoverlabel") or {}), "font": {"size": size}}
    margin = dict(layout.get("margin") or {})
    below = isinstance(legend.get("y"), int | float) and legend["y"] < 0
    layout["margin"] = {k: round(v * 1.4) for k, v in margin.items() if isinstance(v, int | float)}
    if below:
        _legend_at_the_bottom(layout, axes, size)
    if isinstance(layout.get("height"), int | float):
        layout["height"] = round(layout["height"] * PROJECTOR_HEIGHT) + (
            round(margin.get("b", 80) * 0.9) if below else 0
        )
    return {**fig, "data": [_bigger(t) for t in fig.get("data", [])], "layout": layout}


def _legend_at_the_bottom(layout: dict[str, Any], axes: set[str], size: int) -> None:
    """Put a legend below the plot at the figure's bottom edge, the x axes' labels above it.

    A legend placed in fractions of the plot's height (``y < 0``) lands as far under the plot
    as the plot is tall, so its margin must be sized for one height: on a chart fitted shorter
    to the projector's screen (hograd_ui/parts/chart.js) that margin is a blank band. Here the
    legend's place is the container's bottom (``yref="container"``), and plotly.js stacks the
    bottom margin itself: the legend reserves its own height (one row or, wrapped in a narrow
    column or in Chinese, several), and each x axis with ``automargin`` pushes the margin by its
    tick labels and title. ``margin.b`` is only the least room, one row of tick labels:
    plotly's margin is max(margin.b, axis labels + legend), so a larger one would be a band.
    """
    layout["legend"] = {**layout["legend"], "yref": "container", "y": 0, "yanchor": "bottom"}
    for name in axes:
        if name.startswith("xaxis"):
            layout[name]["automargin"] = True
    layout["margin"]["b"] = round(size * 1.5)


def _sized_axis(axis: dict[str, Any], size: int) -> dict[str, Any]:
    """An axis with tick labels of at least ``size`` px (black) and a title a little larger."""
    tick = axis.get("tickfont") or {}
    title = axis.get("title") or {}
    title = title if isinstance(title, dict) else {"text": title}
    return {
        **axis,
        "tickfont": {**tick, "size": max(size, tick.get("size", 0)), "color": "#000"},
        "title": {
            **title,
            "font": {**title.get("font", {}), "size": round(size * 1.15), "color": "#000"},
        },
    }


class Figure(go.Figure):
    """A ``go.Figure`` that carries the layout it takes on a projector (:func:`drawn`)."""

    _projected: dict[str, Any] = {}  # never mutated: new_figure replaces it


class PlainFigure(BaseFigure):
    """A figure kept as the plain dicts it was built from, for the pages' charts.

    The chart (hograd_ui/parts/chart.py, as ``st.plotly_chart`` did) asks a plotly figure for
    ``to_dict()`` and turns that into JSON. A ``go.Figure`` first copies its input into
    plotly's objects, then ``to_dict()`` copies them back out:
    for the derivatives chart (11 curves of 1,000 points) 2.4 ms of the 3.7 ms that drawing it
    took, on every run of every student (with orjson, which plotly's JSON takes up when it is
    installed). This one hands over fresh dicts around the same arrays, the arrays base64-
    encoded as plotly's own ``to_dict()`` does. It is not a plotly object beyond that:
    :meth:`figure` builds the real one (tests/app/conftest.py validates every chart with it).
    """

    def __init__(
        self, data: list[dict], layout: dict[str, Any], projected: dict | None = None
    ) -> None:
        # BaseFigure.__init__ is not called: it would build the objects this class avoids
        object.__setattr__(self, "_plain", (data, layout))
        object.__setattr__(self, "_projected", projected or {})

    def to_dict(self) -> dict[str, Any]:
        """The figure's dict, as a laptop or a phone draws it."""
        data, layout = self._plain
        out = {"data": _copy_containers(data), "layout": {"template": TEMPLATE, **layout}}
        convert_to_base64(out["data"])  # replaces the arrays in the copies, as plotly does
        return out

    def figure(self) -> go.Figure:
        """The same figure as a ``go.Figure`` (which reorders keys of the dicts it is given)."""
        data, layout = self._plain
        return new_figure(_copy_containers(data), **_copy_containers(layout))


def _copy_containers(value: Any) -> Any:
    """``value`` with its dicts and lists copied, anything else (arrays, numbers) shared."""
    if isinstance(value, dict):
        return {k: _copy_containers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy_containers(v) for v in value]
    return value


def plain_figure(data: list[dict], *, projected: dict | None = None, **layout: Any) -> PlainFigure:
    """:func:`new_figure`'s arguments (without frames), as a :class:`PlainFigure`."""
    return PlainFigure(data, layout, projected)


def _over(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """``base`` with ``extra`` laid over it, dict by dict (a value that is not a dict replaces)."""
    out = dict(base)
    for k, v in extra.items():
        out[k] = _over(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def drawn(fig: BaseFigure, projector: bool) -> dict[str, Any]:
    """The figure's dict as the chart draws it: on a projector (presentation mode) with the
    layout it asked for there (``projected=``) and projector-sized text (:func:`for_projector`).

    The chart applies this when it draws (hograd_ui/parts/chart.py reads the mode), so a figure
    builder never takes the mode: the same builder draws for a laptop, a phone and a projector.
    """
    out = fig.to_dict()
    if not projector:
        return out
    extra = getattr(fig, "_projected", None)
    if extra:
        out = {**out, "layout": _over(out.get("layout") or {}, extra)}
    return for_projector(out)


def new_subplots(**kwargs: Any) -> go.Figure:
    """``make_subplots(**kwargs)`` on a :func:`new_figure`."""
    return make_subplots(figure=new_figure(), **kwargs)


def validated(fig: go.Figure) -> go.Figure:
    """The same figure rebuilt with all of plotly's checks (raises on any invalid property)."""
    return go.Figure(fig.to_dict())


# ---- subplots as plain dicts (make_subplots validates; these do not) ----------------------


def grid_cells(
    rows: int, cols: int, h_space: float, v_space: float, widths: Sequence[float] | None = None
) -> list[tuple[list[float], list[float]]]:
    """(x domain, y domain) of each cell, row by row from the top, with the same arithmetic as
    ``make_subplots(rows, cols, horizontal_spacing=h_space, vertical_spacing=v_space,
    column_widths=widths)``; cell i's axes are ``x{i+1}``/``y{i+1}`` (``x``/``y`` for the first).
    """
    free_x, free_y = 1.0 - h_space * (cols - 1), 1.0 - v_space * (rows - 1)
    if widths is None:
        widths = [free_x / cols] * cols
    else:
        widths = [free_x * (w / float(sum(widths))) for w in widths]
    height = free_y / rows
    cells = []
    for r in range(rows):
        below = rows - 1 - r  # rows under this one (sum, not product: the same rounding)
        y0 = sum([height] * below) + below * v_space
        y_domain = [max(0.0, y0), min(1.0, y0 + height)]
        for c in range(cols):
            x0 = sum(widths[:c]) + c * h_space
            cells.append(([max(0.0, x0), min(1.0, x0 + widths[c])], y_domain))
    return cells


def cell_title(
    text: str, x_domain: Sequence[float], y_domain: Sequence[float], size: int = 17
) -> dict:
    """A subplot's title, centred above its cell (make_subplots' subplot_titles)."""
    return {
        "text": text,
        "x": sum(x_domain) / 2.0,
        "y": y_domain[1],
        "xref": "paper",
        "yref": "paper",
        "xanchor": "center",
        "yanchor": "bottom",
        "showarrow": False,
        "font": {"size": size},
    }


def hline(y: float, line: dict, cell: str = "") -> dict:
    """A line across the whole width of a cell at height y (``fig.add_hline``)."""
    return {
        "type": "line",
        "xref": f"x{cell} domain",
        "x0": 0,
        "x1": 1,
        "yref": f"y{cell}",
        "y0": y,
        "y1": y,
        "line": line,
    }


def vline(x: float, line: dict, cell: str = "") -> dict:
    """A line across the whole height of a cell at x (``fig.add_vline``)."""
    return {
        "type": "line",
        "xref": f"x{cell}",
        "x0": x,
        "x1": x,
        "yref": f"y{cell} domain",
        "y0": 0,
        "y1": 1,
        "line": line,
    }
