"""The chart of f and its derivatives, drawn by the derivatives page and by the lesson, and the
labels and colours of the orders (data in, a figure out; no Streamlit here). The derivatives
page's other figures are its lab's: ``hograd_labs/derivatives/figures.py``."""

from __future__ import annotations

import numpy as np

from hograd_core.nested_autograd import DerivativeResult
from hograd_ui.chart_range import ChartRange
from hograd_ui.i18n import tr
from hograd_ui.plot_kit import DASHES, PALETTE
from hograd_ui.plotting import PlainFigure, grid_cells, plain_figure, vline

__all__ = [
    "DASHES",
    "FONT",
    "LOW_ORDERS",
    "PALETTE",
    "derivatives_figure",
    "finite",
    "hidden_orders",
    "latex_label",
    "order_label",
]

# One colour per order from the kit's checked palette (hograd_ui/plot_kit.py: 3:1 or more on
# white, 20 CIELAB units apart for normal, deuteranope and protanope vision). Order 0 is
# near-black and thicker. Each order also has a dash pattern of its own (:data:`DASHES`):
# colour and dash together tell 42 orders apart, and a reader who sees no colour tells
# them by the dash.
#: One panel draws f and its first LOW_ORDERS derivatives, and the highest order asked for; the
#: orders between start hidden in the legend (a click draws one): 31 curves at once, at order
#: 30, are a tangle nobody reads. Orders up to LOW_ORDERS + 1 are all drawn.
LOW_ORDERS = 3
_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
FONT = {"size": 16}


def order_label(k: int, name: str = "f") -> str:
    """f, f′, f″, f‴, f⁽⁴⁾, ... (the usual notation, readable in a legend)."""
    if k <= 3:
        return name + ("", "′", "″", "‴")[k]
    return f"{name}⁽{str(k).translate(_SUPERSCRIPT)}⁾"


def latex_label(k: int, name: str = "f") -> str:
    """The same label in LaTeX: f, f', f'', f''', f^{(4)}, and so on."""
    return name + "'" * k if k <= 3 else f"{name}^{{({k})}}"


def finite(row: np.ndarray) -> np.ndarray:
    """``row`` with inf as NaN: inf would stretch the axis to nothing, so it is drawn as a gap
    (the page notes it in words)."""
    return np.where(np.isfinite(row), row, np.nan)


def hidden_orders(order: int, separate: bool = False) -> tuple[int, ...]:
    """The orders that start hidden in the legend: those between f‴ and the highest order, in
    one panel (one panel per order shows every order)."""
    return () if separate else tuple(range(LOW_ORDERS + 1, order))


def derivatives_figure(
    result: DerivativeResult,
    lang: str,
    *,
    separate: bool = False,
    ranges: ChartRange | None = None,
    x0: float | None = None,
) -> PlainFigure:
    """f and its derivatives: one panel with a curve per order (click the legend to hide one),
    or one panel per order, since high orders can differ in scale by many magnitudes. In one
    panel the orders of :func:`hidden_orders` start hidden: their legend entries draw them.

    ``ranges`` (from :func:`hograd_ui.chart_range.chart_range`) cuts a panel's y-axis where a
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
    hidden = hidden_orders(result.order, separate)
    for k in orders:
        row = k + 1 if separate else 1
        suffix = str(row) if row > 1 else ""
        traces.append(
            {
                "type": "scatter",
                "x": result.xs,
                "y": finite(result.values[k]),
                "mode": "lines",
                "name": order_label(k),
                "xaxis": f"x{suffix}",
                "yaxis": f"y{suffix}",
                "line": {
                    "color": PALETTE[k % len(PALETTE)],
                    "width": 4 if k == 0 else 2.5,
                    "dash": DASHES[k % len(DASHES)],
                },
                "hovertemplate": f"{order_label(k)}({var}=%{{x:.4g}}) = %{{y:.6g}}<extra></extra>",
                "connectgaps": False,
                **({"visible": "legendonly"} if k in hidden else {}),
            }
        )
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
        traces.append(
            {  # a legend entry for the line (shapes have none)
                "type": "scatter",
                "x": [x0],
                "y": [None],
                "mode": "lines",
                "line": line,
                "name": tr("deriv.chart.x0", lang, var=var, x0=f"{x0:.6g}"),
                "hoverinfo": "skip",
                "legendgroup": "x0",
            }
        )
    return plain_figure(
        traces,
        height=max(420, 150 * rows) if separate else 520,
        margin={"l": 60, "r": 20, "t": 30, "b": 50},
        font=FONT,
        hovermode="x unified",
        legend={"title": {"text": tr("deriv.chart.legend", lang)}},
        **layout,
    )
