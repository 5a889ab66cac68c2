"""Figures of the PINN lab, from :mod:`.compute`'s :class:`PinnRun`, and the lab as a notebook.

Three heat maps over (x, t) share their axes: the network's u, its error against the exact
solution, and the PDE residual; then slices u(x, t) at five times against the exact solution,
and the three terms of the loss along training. Labels come from the translation table; the
symbols (u, x, t, u_t, u_xx) are the same in both languages.
"""

from __future__ import annotations

import numpy as np

from hograd_ui.i18n import tr
from hograd_ui.notebook import percent_notebook
from hograd_ui.plot_kit import (
    BLUE,
    DASHES,
    DIVERGING,
    GREEN,
    INDIGO,
    OLIVE,
    RED,
    axis_props,
    figure_layout,
    log_axis,
)
from hograd_ui.plotting import cell_title, grid_cells, plain_figure

from .compute import PinnRun

__all__ = [
    "SLICES",
    "SLICE_COLORS",
    "SLICE_SYMBOLS",
    "TERM_COLORS",
    "TERM_DASHES",
    "heatmaps_figure",
    "losses_figure",
    "notebook",
    "slices_figure",
]

#: Rows of the grid drawn as slices: t = 0, T/4, T/2, 3T/4, T (the grid has 41 rows).
SLICES = (0, 10, 20, 30, 40)
#: Each slice's colour, cool to warm from the kit's checked palette, and its marker: a reader
#: who sees no colour tells the times apart by the symbol, drawn on the line and in the legend.
SLICE_COLORS = (INDIGO, BLUE, GREEN, OLIVE, RED)
SLICE_SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x")
_MARKS = 12  # markers drawn along each slice's line (plotly spaces them evenly)
#: The loss terms' colours (the kit's checked palette) and dashes: told apart without colour too.
TERM_COLORS = {"residual": RED, "initial": BLUE, "boundary": GREEN}
TERM_DASHES = {"residual": DASHES[0], "initial": DASHES[1], "boundary": DASHES[2]}
_TERM_KEYS = {
    "residual": "pinn.fig.term.residual",
    "initial": "pinn.fig.term.initial",
    "boundary": "pinn.fig.term.boundary",
}


def _legend_below(height: int) -> dict:
    """The shared look with the legend low enough to clear the x axis title."""
    look = figure_layout(height, legend="bottom")
    look["legend"]["y"] = -0.24
    look["margin"]["b"] = 150
    return look


def _symmetric(z: np.ndarray) -> float:
    finite = np.abs(z[np.isfinite(z)])
    return float(finite.max()) if finite.size and finite.max() > 0 else 1.0


def heatmaps_figure(run: PinnRun, lang: str) -> object:
    """u(x, t) of the network, u − exact and the residual, side by side (t upwards)."""
    cells = grid_cells(1, 3, 0.11, 0.0)
    error = run.u - run.exact
    maps = [
        ("pinn.fig.u", run.u, "Viridis", None),
        ("pinn.fig.error", error, DIVERGING, _symmetric(error)),
        ("pinn.fig.residual", run.residual, DIVERGING, _symmetric(run.residual)),
    ]
    traces, layout = [], {}
    for i, (key, z, scale, size) in enumerate(maps):
        suffix = "" if i == 0 else str(i + 1)
        x_domain, _ = cells[i]
        trace = {
            "type": "heatmap",
            "x": run.xs,
            "y": run.ts,
            "z": z,
            "colorscale": scale,
            "name": tr(key, lang),
            "xaxis": f"x{suffix}",
            "yaxis": f"y{suffix}",
            "colorbar": {
                "x": x_domain[1] + 0.01,
                "xanchor": "left",
                "thickness": 12,
                "len": 0.9,
                "tickfont": {"size": 12},
            },
            "hovertemplate": "x=%{x:.3f}, t=%{y:.3f}: %{z:.3g}<extra></extra>",
        }
        if size is not None:
            trace.update(zmin=-size, zmax=size)
        traces.append(trace)
        layout[f"xaxis{suffix}"] = axis_props("x", domain=x_domain, anchor=f"y{suffix}")
        layout[f"yaxis{suffix}"] = axis_props(
            "t" if i == 0 else None, domain=[0, 1], anchor=f"x{suffix}", showticklabels=i == 0
        )
    titles = [tr(key, lang) for key, *_ in maps]
    return plain_figure(
        traces,
        **figure_layout(400),
        showlegend=False,
        annotations=[cell_title(t, *c) for t, c in zip(titles, cells, strict=True)],
        **layout,
    )


def slices_figure(run: PinnRun, lang: str) -> object:
    """u(x, t) at five times: the network solid, the exact solution dashed, each time with its
    own colour and marker (filled on the network's line, open on the exact one's)."""
    traces = []
    for row, color, symbol in zip(SLICES, SLICE_COLORS, SLICE_SYMBOLS, strict=True):
        t = f"{run.ts[row]:.3g}"
        traces.append(
            {
                "type": "scatter",
                "x": run.xs,
                "y": run.u[row],
                "mode": "lines+markers",
                "name": tr("pinn.fig.slice", lang, t=t),
                "legendgroup": t,
                "line": {"color": color, "width": 3},
                "marker": {"symbol": symbol, "size": 9, "maxdisplayed": _MARKS},
            }
        )
        traces.append(
            {
                "type": "scatter",
                "x": run.xs,
                "y": run.exact[row],
                "mode": "lines+markers",
                "name": tr("pinn.fig.exact", lang, t=t),
                "legendgroup": t,
                "showlegend": False,
                "line": {"color": color, "width": 2, "dash": "dash"},
                "marker": {
                    "symbol": f"{symbol}-open",
                    "size": 9,
                    "maxdisplayed": _MARKS,
                    "line": {"width": 2},
                },
            }
        )
    return plain_figure(
        traces,
        **_legend_below(480),
        xaxis=axis_props("x"),
        yaxis=axis_props("u"),
        title={"text": tr("pinn.fig.slices_title", lang), "font": {"size": 15}, "x": 0.01},
    )


def losses_figure(run: PinnRun, lang: str) -> object:
    """The residual, initial and boundary terms (unweighted) before each step, log scale."""
    steps = np.arange(len(run.terms))
    traces = [
        {
            "type": "scatter",
            "x": steps,
            "y": np.where(run.terms[:, k] > 0, run.terms[:, k], np.nan),
            "mode": "lines",
            "name": tr(_TERM_KEYS[name], lang),
            "line": {"color": TERM_COLORS[name], "width": 3, "dash": TERM_DASHES[name]},
        }
        for k, name in enumerate(("residual", "initial", "boundary"))
    ]
    return plain_figure(
        traces,
        **_legend_below(480),
        xaxis=axis_props(tr("why.fig.iteration", lang)),
        yaxis=log_axis(tr("pinn.fig.term", lang), *(t["y"] for t in traces)),
        title={"text": tr("pinn.fig.losses_title", lang), "font": {"size": 15}, "x": 0.01},
    )


# The notebook's last cell: the three heat maps, drawn from what ``__main__`` left behind.
_NOTEBOOK_FIGURE = """
import plotly.graph_objects as go
from plotly.subplots import make_subplots

fig = make_subplots(rows=1, cols=3, subplot_titles=["u, the network", "exact", "u − exact"])
for col, z in enumerate((result.u, result.exact, result.u - result.exact), start=1):
    fig.add_heatmap(x=result.xs, y=result.ts, z=z, row=1, col=col,
                    coloraxis="coloraxis2" if col == 3 else "coloraxis")
fig.update_xaxes(title_text="x")
fig.update_yaxes(title_text="t", col=1)
fig.update_layout(template="plotly_white", coloraxis={"colorscale": "Viridis"},
                  coloraxis2={"colorscale": "RdBu", "cmid": 0, "colorbar": {"x": 1.08}})
fig.show()
"""


def notebook(source: str, title: str, figure: str) -> str:
    """The download ``source`` as a notebook: a ``title`` cell, the source cut into cells at
    its ``# %%`` lines, then ``figure`` (prose) above a cell that draws the network's u, the
    exact solution and their difference with plotly. Returns nbformat 4 JSON."""
    return percent_notebook(
        source,
        before=[("markdown", title)],
        after=[("markdown", figure), ("code", _NOTEBOOK_FIGURE.strip())],
    )
