"""Figures of the derivatives lab: the Taylor polynomial against f, the cost of each method,
and the inspector's cells as text. The language comes in as
arguments; nothing here computes a derivative or calls Streamlit.

The main chart, f and its derivatives, is :func:`hograd_labs.derivatives.chart.
derivatives_figure`: the lesson draws it too.
"""

from __future__ import annotations

import math

import numpy as np

from hograd_core.forward_mode import ForwardCosts
from hograd_core.inspector import CostProfile
from hograd_ui.i18n import tr
from hograd_ui.plotting import PlainFigure, cell_title, grid_cells, plain_figure, vline

from .chart import FONT, PALETTE, finite

__all__ = ["cell", "cost_figure", "taylor_figure"]


def cell(value: float | None, spec: str = ".12g") -> str | None:
    """A number of the inspector's table as text: None (not computed) stays None, shown as a
    dash; infinities keep their sign (∞, -∞) and NaN is written out, never left blank."""
    if value is None:
        return None
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "∞" if value > 0 else "-∞"
    return format(value, spec)


def taylor_figure(
    xs: np.ndarray,
    f: np.ndarray,
    poly: np.ndarray,
    x0: float,
    f0: float,
    order: int,
    var: str,
    lang: str,
    radius: float = math.nan,
) -> PlainFigure:
    """f and its Taylor polynomial of degree ``order`` at x0 (the y-axis follows f, so the
    polynomial's blow-up far from x0 does not hide the function), with dotted lines at
    x0 ± ``radius`` (the series' radius of convergence) where they fall inside the range."""
    label = tr("deriv.taylor.trace", lang, n=order)
    traces = [
        {
            "type": "scatter",
            "x": xs,
            "y": finite(f),
            "name": "f",
            "line": {"color": PALETTE[0], "width": 4},
        },
        {
            "type": "scatter",
            "x": xs,
            "y": finite(poly),
            "name": label,
            "line": {"color": PALETTE[3], "width": 3, "dash": "dash"},
        },
        {
            "type": "scatter",
            "x": [x0],
            "y": [f0],
            "mode": "markers",
            "name": f"{var}₀",
            "marker": {"size": 14, "color": PALETTE[3]},
        },
    ]
    edges = [e for e in (x0 - radius, x0 + radius) if xs[0] <= e <= xs[-1]]
    shapes = [vline(e, {"color": PALETTE[2], "width": 2, "dash": "dot"}) for e in edges]
    if edges:  # a legend entry for the lines (shapes have none)
        traces.append(
            {
                "type": "scatter",
                "x": [edges[0]],
                "y": [None],
                "mode": "lines",
                "name": tr("deriv.taylor.radius_line", lang, var=var),
                "line": {"color": PALETTE[2], "width": 2, "dash": "dot"},
            }
        )
    yaxis = {}
    values = f[np.isfinite(f)]
    if values.size:
        low, high = float(values.min()), float(values.max())
        pad = 0.25 * (high - low or 1.0)
        yaxis["range"] = [low - pad, high + pad]
    return plain_figure(
        traces,
        height=420,
        margin={"l": 60, "r": 20, "t": 30, "b": 50},
        font=FONT,
        xaxis={"title": {"text": var}},
        yaxis=yaxis,
        legend={"orientation": "h", "y": 1.08},
        shapes=shapes,
    )


def cost_figure(profile: CostProfile, lang: str) -> PlainFigure:
    """Time per order for the three methods (log scale) beside the nested-autograd graph size
    (two panels side by side, as ``make_subplots(1, 2, horizontal_spacing=0.12)`` lays them
    out)."""
    title = tr(
        "deriv.cost.time_title",
        lang,
        points=f"{profile.points:,}",
        low=f"{profile.low:g}",
        high=f"{profile.high:g}",
    )
    (x1, y1), (x2, y2) = grid_cells(1, 2, 0.12, 0.0)
    orders = list(profile.orders)
    series = (
        (
            tr("deriv.cost.autograd", lang, runs=profile.autograd_runs),
            profile.autograd_ms,
            PALETTE[3],
        ),
        (tr("deriv.cost.taylor", lang, runs=profile.taylor_runs), profile.taylor_ms, PALETTE[4]),
        (tr("deriv.cost.sympy", lang), profile.sympy_ms, PALETTE[2]),
    )
    traces = [
        {
            "type": "scatter",
            "x": orders,
            "y": [np.nan if v is None or v <= 0 else v for v in ys],
            "name": name,
            "mode": "lines+markers",
            "line": {"color": colour, "width": 3},
            "xaxis": "x",
            "yaxis": "y",
        }  # a log axis: 0 is not drawn
        for name, ys, colour in series
    ]
    nodes = tr("deriv.cost.nodes", lang)
    traces.append(
        {
            "type": "bar",
            "x": orders,
            "y": list(profile.nodes),
            "name": nodes,
            "marker": {"color": PALETTE[3]},
            "opacity": 0.7,
            "xaxis": "x2",
            "yaxis": "y2",
        }
    )
    order = {"text": tr("deriv.order", lang)}
    return plain_figure(
        traces,
        height=420,
        font=FONT,
        margin={"l": 60, "r": 20, "t": 50, "b": 50},
        legend={"orientation": "h", "y": -0.25},
        annotations=[
            cell_title(title, x1, y1, 16),
            cell_title(tr("deriv.cost.nodes_title", lang), x2, y2, 16),
        ],
        xaxis={"domain": x1, "anchor": "y", "title": order, "dtick": 1},
        yaxis={"domain": y1, "anchor": "x", "type": "log", "title": {"text": "ms"}},
        xaxis2={"domain": x2, "anchor": "y2", "title": order, "dtick": 1},
        yaxis2={"domain": y2, "anchor": "x2", "type": "log", "title": {"text": nodes}},
    )


#: The four routes' colours and the translation keys of their names, in FORWARD_ROUTES' order.
ROUTE_KEYS = {
    "jvp": "deriv.forward.jvp",
    "forward_ad": "deriv.forward.forward_ad",
    "reverse": "deriv.forward.reverse",
    "taylor": "deriv.forward.taylor",
}
_ROUTE_COLOURS = {
    "jvp": PALETTE[0],
    "forward_ad": PALETTE[1],
    "reverse": PALETTE[3],
    "taylor": PALETTE[4],
}


def forward_figure(costs: ForwardCosts, lang: str) -> PlainFigure:
    """Seconds per order (log scale) beside the bytes autograd saved for backward (log scale),
    one line per route; a route over its order limit stops where it ends."""
    (x1, y1), (x2, y2) = grid_cells(1, 2, 0.12, 0.0)
    orders = list(range(costs.order + 1))
    traces = []
    for route in costs.routes:
        name, colour = tr(ROUTE_KEYS[route], lang), _ROUTE_COLOURS[route]
        for values, axes, legend in (
            (costs.seconds[route], ("x", "y"), True),
            (costs.saved_bytes[route], ("x2", "y2"), False),
        ):
            traces.append(
                {
                    "type": "scatter",
                    "x": orders,
                    "y": [None if not np.isfinite(v) or v <= 0 else float(v) for v in values],
                    "name": name,
                    "legendgroup": route,
                    "showlegend": legend,
                    "mode": "lines+markers",
                    "line": {"color": colour, "width": 3},
                    "xaxis": axes[0],
                    "yaxis": axes[1],
                }
            )
    order = {"text": tr("deriv.order", lang)}
    return plain_figure(
        traces,
        height=420,
        font=FONT,
        margin={"l": 60, "r": 20, "t": 50, "b": 50},
        legend={"orientation": "h", "y": -0.25},
        annotations=[
            cell_title(
                tr("deriv.forward.time_title", lang, points=f"{costs.points.size:,}"), x1, y1, 16
            ),
            cell_title(tr("deriv.forward.saved_title", lang), x2, y2, 16),
        ],
        xaxis={"domain": x1, "anchor": "y", "title": order, "dtick": 1},
        yaxis={"domain": y1, "anchor": "x", "type": "log", "title": {"text": "s"}},
        xaxis2={"domain": x2, "anchor": "y2", "title": order, "dtick": 1},
        yaxis2={
            "domain": y2,
            "anchor": "x2",
            "type": "log",
            "title": {"text": tr("deriv.forward.bytes", lang)},
        },
    )
