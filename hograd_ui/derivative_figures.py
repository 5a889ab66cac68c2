"""Plotly figures of the derivatives lab (data in, a figure out; no Streamlit here)."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from hograd_core.chart_range import ChartRange
from hograd_core.inspector import CostProfile
from hograd_core.nested_autograd import DerivativeResult
from hograd_ui.i18n import tr

from .plotting import PlainFigure, grid_cells, new_subplots, plain_figure, vline

__all__ = [
    "order_label", "latex_label", "agreeing_digits", "beyond_f", "derivatives_figure", "taylor_figure", "cost_figure",
    "undefined_intervals", "cell", "delta", "PALETTE",
]  # fmt: skip

# Distinct, colour-blind-friendly colours that stay readable on a projector (Okabe-Ito first,
# then Tableau); order 0 is drawn in near-black and thicker.
PALETTE = (
    "#1f2937", "#E69F00", "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#56B4E9", "#8c564b",
    "#7f7f7f", "#bcbd22", "#17becf", "#9467bd", "#e377c2", "#2ca02c", "#d62728", "#1f77b4",
)  # fmt: skip
_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
_FONT = {"size": 16}


def order_label(k: int, name: str = "f") -> str:
    """f, f′, f″, f‴, f⁽⁴⁾, ... (the usual notation, readable in a legend)."""
    if k <= 3:
        return name + ("", "′", "″", "‴")[k]
    return f"{name}⁽{str(k).translate(_SUPERSCRIPT)}⁾"


def latex_label(k: int, name: str = "f") -> str:
    """The same label in LaTeX: f, f', f'', f''', f^{(4)}, and so on."""
    return name + "'" * k if k <= 3 else f"{name}^{{({k})}}"


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


def _finite(row: np.ndarray) -> np.ndarray:
    # inf would stretch the axis to nothing: plot it as a gap (the page notes it in words)
    return np.where(np.isfinite(row), row, np.nan)


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
        (tuple(orders), int(masks[key].sum()),
         undefined_intervals(xs, np.where(masks[key], np.nan, 0.0)))
        for key, orders in groups.items()
    ]  # fmt: skip


def derivatives_figure(
    result: DerivativeResult, lang: str, *, separate: bool = False,
    ranges: ChartRange | None = None, x0: float | None = None,
) -> PlainFigure:  # fmt: skip
    """f and its derivatives: one panel with a curve per order (click the legend to hide one),
    or one panel per order, since high orders can differ in scale by many magnitudes.

    ``ranges`` (from :func:`hograd_core.chart_range.chart_range`) cuts a panel's y-axis where a
    few values near a pole would flatten every curve; the page says where. ``x0``, the point
    the inspector reads, is drawn as a vertical line through every panel, with a legend entry.

    Traces and axes are plain dicts, handed to the page as they are (see
    :class:`.plotting.PlainFigure`): this figure is drawn on nearly every run.
    """
    orders = range(result.order + 1)
    var = result.variable
    rows = len(orders) if separate else 1
    cells = grid_cells(rows, 1, 0.0, 0.02)  # as make_subplots(rows, shared_xaxes=True) would
    traces, layout = [], {}
    for k in orders:
        row = k + 1 if separate else 1
        suffix = str(row) if row > 1 else ""
        traces.append({
            "type": "scatter", "x": result.xs, "y": _finite(result.values[k]), "mode": "lines",
            "name": order_label(k), "xaxis": f"x{suffix}", "yaxis": f"y{suffix}",
            "line": {"color": PALETTE[k % len(PALETTE)], "width": 4 if k == 0 else 2.5},
            "hovertemplate": f"{order_label(k)}({var}=%{{x:.4g}}) = %{{y:.6g}}<extra></extra>",
            "connectgaps": False,
        })  # fmt: skip
        if separate:
            layout[f"yaxis{suffix}"] = {
                "domain": cells[row - 1][1],
                "title": {"text": order_label(k)},
            }
            if ranges is not None and ranges.panels[k] is not None:
                layout[f"yaxis{suffix}"]["range"] = list(ranges.panels[k])
            layout[f"xaxis{suffix}"] = {"anchor": f"y{suffix}", "showticklabels": row == rows}
            if row > 1:
                layout[f"xaxis{suffix}"]["matches"] = "x"
    if not separate and ranges is not None and ranges.panels[0] is not None:
        layout["yaxis"] = {"range": list(ranges.panels[0])}
    bottom = f"xaxis{rows if rows > 1 else ''}"
    layout.setdefault(bottom, {})["title"] = {"text": var}
    if x0 is not None:
        line = {"color": "#555867", "width": 2, "dash": "dash"}
        layout["shapes"] = [vline(x0, line, str(k + 1) if k else "") for k in range(rows)]
        traces.append({  # a legend entry for the line (shapes have none)
            "type": "scatter", "x": [x0], "y": [None], "mode": "lines", "line": line,
            "name": tr("deriv.chart.x0", lang, var=var, x0=f"{x0:.6g}"), "hoverinfo": "skip",
            "legendgroup": "x0",
        })  # fmt: skip
    return plain_figure(
        traces, height=max(420, 150 * rows) if separate else 520,
        margin={"l": 60, "r": 20, "t": 30, "b": 50}, font=_FONT, hovermode="x unified",
        legend={"title": {"text": tr("deriv.chart.legend", lang)}}, **layout,
    )  # fmt: skip


def taylor_figure(
    xs: np.ndarray, f: np.ndarray, poly: np.ndarray, x0: float, f0: float, order: int,
    var: str, lang: str, radius: float = math.nan,
) -> PlainFigure:  # fmt: skip
    """f and its Taylor polynomial of degree ``order`` at x0 (the y-axis follows f, so the
    polynomial's blow-up far from x0 does not hide the function), with dotted lines at
    x0 ± ``radius`` (the series' radius of convergence) where they fall inside the range."""
    label = tr("deriv.taylor.trace", lang, n=order)
    traces = [
        {"type": "scatter", "x": xs, "y": _finite(f), "name": "f",
         "line": {"color": PALETTE[0], "width": 4}},
        {"type": "scatter", "x": xs, "y": _finite(poly), "name": label,
         "line": {"color": PALETTE[3], "width": 3, "dash": "dash"}},
        {"type": "scatter", "x": [x0], "y": [f0], "mode": "markers", "name": f"{var}₀",
         "marker": {"size": 14, "color": PALETTE[3]}},
    ]  # fmt: skip
    edges = [e for e in (x0 - radius, x0 + radius) if xs[0] <= e <= xs[-1]]
    shapes = [vline(e, {"color": PALETTE[2], "width": 2, "dash": "dot"}) for e in edges]
    if edges:  # a legend entry for the lines (shapes have none)
        traces.append({
            "type": "scatter", "x": [edges[0]], "y": [None], "mode": "lines",
            "name": tr("deriv.taylor.radius_line", lang, var=var),
            "line": {"color": PALETTE[2], "width": 2, "dash": "dot"},
        })  # fmt: skip
    yaxis = {}
    finite = f[np.isfinite(f)]
    if finite.size:
        low, high = float(finite.min()), float(finite.max())
        pad = 0.25 * (high - low or 1.0)
        yaxis["range"] = [low - pad, high + pad]
    return plain_figure(
        traces, height=420, margin={"l": 60, "r": 20, "t": 30, "b": 50}, font=_FONT,
        xaxis={"title": {"text": var}}, yaxis=yaxis, legend={"orientation": "h", "y": 1.08},
        shapes=shapes,
    )  # fmt: skip


def cost_figure(profile: CostProfile, lang: str) -> go.Figure:
    """Time per order for the three methods (log scale), and the nested-autograd graph size."""
    title = tr(
        "deriv.cost.time_title", lang, points=f"{profile.points:,}", low=f"{profile.low:g}",
        high=f"{profile.high:g}",
    )  # fmt: skip
    fig = new_subplots(
        rows=1, cols=2, horizontal_spacing=0.12,
        subplot_titles=(title, tr("deriv.cost.nodes_title", lang)),
    )  # fmt: skip
    orders = list(profile.orders)
    series = (
        (tr("deriv.cost.autograd", lang, runs=profile.autograd_runs), profile.autograd_ms,
         PALETTE[3]),
        (tr("deriv.cost.taylor", lang, runs=profile.taylor_runs), profile.taylor_ms, PALETTE[4]),
        (tr("deriv.cost.sympy", lang), profile.sympy_ms, PALETTE[2]),
    )  # fmt: skip
    for name, values, colour in series:
        ys = [np.nan if v is None or v <= 0 else v for v in values]  # log axis: 0 is not drawn
        fig.add_trace(
            go.Scatter(
                x=orders, y=ys, name=name, mode="lines+markers", line={"color": colour, "width": 3}
            ),
            row=1,
            col=1,
        )
    fig.add_trace(
        go.Bar(
            x=orders,
            y=list(profile.nodes),
            name=tr("deriv.cost.nodes", lang),
            marker_color=PALETTE[3],
            opacity=0.7,
        ),
        row=1,
        col=2,
    )
    fig.update_yaxes(type="log", title_text="ms", row=1, col=1)
    fig.update_yaxes(type="log", title_text=tr("deriv.cost.nodes", lang), row=1, col=2)
    fig.update_xaxes(title_text=tr("deriv.order", lang), dtick=1)
    fig.update_layout(
        height=420,
        font=_FONT,
        margin={"l": 60, "r": 20, "t": 50, "b": 50},
        legend={"orientation": "h", "y": -0.25},
    )
    return fig
