"""Charts drawn with plotly.js's cartesian bundle instead of Streamlit's whole one.

``st.plotly_chart`` loads Streamlit's copy of plotly.js, every trace type of it (4.7 MB), and a
fresh browser spends 0.5-0.8 s evaluating it before the first chart of a page is drawn
(docs/performance.md, "Where a deep link's time goes"). Every 2-D chart of the app is a
scatter, bar, heatmap or contour, all in plotly.js's cartesian bundle (1.5 MB; version 4.1.1,
the one the plotly package checks figures against; Streamlit 1.67's front end has 4.2.0).
:func:`chart` draws a figure with that bundle through a small Streamlit component
(``hograd_ui/parts/chart.js``), served from ``static/`` by Streamlit's static file serving. A
figure with a 3-D trace (the HVP page's surface, behind a toggle) is drawn by the same
component with plotly.js's gl3d bundle (1.75 MB, 3-D traces and scatter), loaded only then, so
that it too is named and described.

What Streamlit's chart element did and this one does too:

- its chart theme (fonts, colours, margins, bold titles), applied here, on the server, as the
  same values merged into the figure's template (:func:`theme`; a browser test compares them
  with what Streamlit's front end applies to the same figure), with one departure
  (:func:`readable`): the theme's grey text (ticks, axis titles), #808495, is 3.72:1 on white,
  under the 4.5:1 that WCAG 1.4.3 asks of text, and is drawn in :data:`TEXT` instead;
- the column's width, followed when it changes; the figure's height, or 450 px;
- a full-screen button on the chart's tool bar (the browser's full screen, Esc to leave);
- picking a point (the HVP contour): a click reports the point's x and y to ``on_pick``.

And what it did not: the chart is a figure named and described in words for a screen reader
(``hograd_ui/chart_text.py``: its series, their ranges, where a curve crosses zero), in a
paragraph that is read but not drawn.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import plotly.io as pio
import streamlit as st
from plotly.basedatatypes import BaseFigure
from streamlit.delta_generator import DeltaGenerator

from hograd_ui.chart_text import describe
from hograd_ui.parts.present import present
from hograd_ui.parts.ui import lang, t
from hograd_ui.plotting import TEMPLATE, TEXT, drawn

__all__ = [
    "BASE_PX",
    "BUNDLE",
    "bundle",
    "chart",
    "CHECK",
    "GL3D_BUNDLE",
    "GL3D_TYPES",
    "NAME",
    "PRESENT_PX",
    "readable",
    "TEXT",
    "theme",
    "THEME",
    "themed",
]

#: The bundle the component loads (``static/`` is served at ``app/static/``).
BUNDLE = Path(__file__).resolve().parents[2] / "static" / "plotly-cartesian-4.1.1.min.js"
#: The bundle for a figure with a 3-D trace (chart.js's ``BUNDLES["gl3d"]``).
GL3D_BUNDLE = BUNDLE.with_name("plotly-gl3d-4.1.1.min.js")
#: The trace types the cartesian bundle lacks and the gl3d bundle draws.
GL3D_TYPES = frozenset(
    {"surface", "scatter3d", "mesh3d", "isosurface", "volume", "cone", "streamtube"}
)

#: The root font size Streamlit's theme is measured in: [theme] baseFontSize in
#: .streamlit/config.toml, and the one presentation mode sets (hograd_ui/parts/present.py's CSS).
BASE_PX, PRESENT_PX = 17.0, 26.0
_TEXT, _GRID, _BG = "#808495", "#e6eaf1", "#FFFFFF"
_CLEAR = "rgba(0, 0, 0, 0)"  # Streamlit's "transparent", which plotly.py's checks refuse
_FONT = '"Source Sans", sans-serif'


def theme(base: float = BASE_PX) -> dict[str, Any]:
    """Streamlit's chart theme for this app's light theme, as Streamlit 1.67's front end merges
    it into a figure's template layout when the page's root font is ``base`` px (its sizes are
    in rem; read from the browser: tests/e2e/test_chart_browser.py checks every value)."""
    small, label = 0.75 * base, 0.875 * base  # Streamlit's twoSm and sm font sizes
    return {
        "font": {"color": _TEXT, "family": _FONT, "size": small, "weight": 400},
        "title": {
            "x": 0,
            "xanchor": "left",
            "pad": {"l": 0.25 * base},
            "font": {"family": _FONT, "size": base, "color": "#2F2D2B"},
        },
        "legend": {
            "title": {"font": {"size": small, "color": _TEXT}, "side": "top"},
            "valign": "top",
            "bordercolor": _CLEAR,
            "borderwidth": 0,
            "font": {"size": small, "color": "#262730"},
        },
        "paper_bgcolor": _BG,
        "plot_bgcolor": _BG,
        "xaxis": {
            "gridcolor": _GRID,
            "zerolinecolor": _GRID,
            "tickcolor": _GRID,
            "showgrid": False,
            "zeroline": False,
            "minor": {"gridcolor": _GRID},
            "title": {"standoff": 1.25 * base, "font": {"color": _TEXT, "size": label}},
            "tickfont": {"color": _TEXT, "size": small},
        },
        "yaxis": {
            "gridcolor": _GRID,
            "zerolinecolor": _GRID,
            "tickcolor": _GRID,
            "ticklabelposition": "outside",
            "minor": {"gridcolor": _GRID},
            "title": {"standoff": 1.5 * base, "font": {"color": _TEXT, "size": label}},
            "tickfont": {"color": _TEXT, "size": small},
        },
        "margin": {"pad": 0.5 * base, "r": 0, "l": 0},
        "hoverlabel": {
            "bgcolor": _BG,
            "bordercolor": "rgba(47, 45, 43, 0.2)",
            "font": {"color": _TEXT, "family": _FONT, "size": small},
        },
        "coloraxis": {
            "colorbar": {
                "outlinewidth": 8,
                "thickness": 16,
                "xpad": 1.5 * base,
                "ticklabelposition": "outside",
                "outlinecolor": _CLEAR,
                "len": 0.75,
                "y": 0.5745,
                "title": {"font": {"color": _TEXT, "size": label}},
                "tickfont": {"color": _TEXT, "size": small},
            }
        },
    }


#: The theme on a page at the usual font size.
THEME = theme()


def readable(values: dict[str, Any]) -> dict[str, Any]:
    """``values`` (a theme) with Streamlit's grey text colour replaced by :data:`TEXT`."""
    return {
        key: readable(value) if isinstance(value, dict) else TEXT if value == _TEXT else value
        for key, value in values.items()
    }


def _merged(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """``base`` with ``extra`` merged in, dicts key by key (``extra`` wins)."""
    out = dict(base)
    for key, value in extra.items():
        old = out.get(key)
        out[key] = (
            _merged(old, value) if isinstance(old, dict) and isinstance(value, dict) else value
        )
    return out


#: Called with every figure before it is drawn when set (tests/app/conftest.py sets it to
#: plotly's full validation: the app builds its figures unchecked, for speed).
CHECK: Callable[[BaseFigure], object] | None = None

_THEMED: dict[str, Any] = {
    **TEMPLATE,
    "layout": _merged(TEMPLATE.get("layout") or {}, readable(THEME)),
}
# sent with every chart of every run: without its comment lines and indentation
_JS = "\n".join(
    line.strip()
    for line in (Path(__file__).resolve().parent / "chart.js").read_text("utf-8").splitlines()
    if line.strip() and not line.strip().startswith("//")
)
#: The component's name (an element's ``component_name``: tests/app/charts.py finds charts by it).
NAME = "hograd_chart"
_COMPONENT = st.components.v2.component(NAME, js=_JS, isolate_styles=False)


def themed(spec: dict[str, Any], base: float = BASE_PX) -> dict[str, Any]:
    """A figure's dict (``to_dict()``) as Streamlit's chart theme draws it on a page whose root
    font is ``base`` px: the theme (its text :func:`readable`) merged into its template's
    layout, its title in bold."""
    layout = dict(spec.get("layout") or {})
    template = layout.get("template") or {}
    if template is TEMPLATE and base == BASE_PX:  # the house template, merged once
        layout["template"] = _THEMED
    else:
        template = dict(template)
        template["layout"] = _merged(template.get("layout") or {}, readable(theme(base)))
        layout["template"] = template
    title = layout.get("title")
    title = {"text": title} if isinstance(title, str) else title
    if isinstance(title, dict) and title.get("text"):
        layout["title"] = {**title, "text": f"<b>{title['text']}</b>"}
    return {**spec, "layout": layout}


def bundle(spec: dict[str, Any]) -> str:
    """The plotly.js bundle chart.js loads for the figure ``spec``: "gl3d" if a trace is 3-D."""
    kinds = {trace.get("type", "scatter") for trace in spec.get("data") or ()}
    return "gl3d" if kinds & GL3D_TYPES else "cartesian"


def _finite(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def chart(
    fig: BaseFigure,
    *,
    key: str | None = None,
    on_pick: Callable[[float, float], None] | None = None,
    where: DeltaGenerator | None = None,
    projector: bool | None = None,
) -> None:
    """Draw ``fig`` across the width of ``where`` (a column, a tab; the current one if None).

    ``on_pick(x, y)`` is called, before the run that follows, when the reader clicks a point;
    it needs a ``key`` (the click arrives in the session state under it). ``projector``: the
    theme's sizes for presentation mode; None reads the session's mode
    (``hograd_ui.parts.present.present()``).
    """
    if on_pick is not None and key is None:
        raise ValueError("chart(): on_pick needs a key")
    if where is not None:
        with where:
            chart(fig, key=key, on_pick=on_pick, projector=projector)
        return
    if CHECK is not None:
        CHECK(fig)
    # One JSON text sent as bytes: as a string inside Streamlit's JSON the figure would be
    # escaped again (4 % more bytes for the derivatives chart, on every run of every student).
    if projector is None:
        projector = present()
    spec = drawn(fig, projector)
    name, description = describe(spec, lang())  # the chart in words, for a screen reader
    head = {
        "labels": {"fullscreen": t("chart.fullscreen"), "failed": t("chart.failed")},
        "pick": on_pick is not None,
        "fit": projector,  # projected: no taller than the room left on the first screen
        "said": {"name": name, "description": description},
        "bundle": bundle(spec),
    }
    base = PRESENT_PX if projector else BASE_PX  # Streamlit's theme is in rem
    figure = pio.to_json(themed(spec, base), validate=False)
    data = (json.dumps(head, ensure_ascii=False)[:-1] + ', "figure": ' + figure + "}").encode()
    if on_pick is None:
        _COMPONENT(key=key, data=data)
        return

    def picked() -> None:
        point = st.session_state[key].get("pick")
        if not isinstance(point, dict):
            return
        x, y = point.get("x"), point.get("y")
        # Only finite numbers: a modified client can send NaN, Infinity or 1e999 (which JSON
        # reads as inf), true/false, text; such a click is ignored.
        if all(_finite(v) for v in (x, y)):
            on_pick(float(x), float(y))

    _COMPONENT(key=key, data=data, on_pick_change=picked)
