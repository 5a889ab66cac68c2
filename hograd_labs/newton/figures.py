"""Figures of the Newton lab, from :mod:`.compute`'s results, and the lab as a notebook.

Colours keep the why page's meaning: gradient descent blue, Newton red, damped Newton orange,
the trust region green. Every label comes from the translation table.
"""

from __future__ import annotations

import numpy as np

from hograd_core.curvature import Grid
from hograd_ui.i18n import tr
from hograd_ui.notebook import percent_notebook
from hograd_ui.plot_kit import (
    BLUE,
    DASHES,
    GREEN,
    LIGHT,
    OLIVE,
    RED,
    axis_props,
    contour_levels,
    figure_layout,
    line,
    log_axis,
    positive,
)
from hograd_ui.plotting import cell_title, grid_cells, plain_figure

from .compute import NewtonRace

__all__ = [
    "COLORS",
    "CONVERGENCE_HEIGHT",
    "METHOD_KEYS",
    "convergence_figure",
    "notebook",
    "paths_figure",
]

#: From the kit's checked palette (damped Newton was orange, 2.5:1 on white), and a dash per
#: method: the lines are told apart without their colours too.
COLORS = {"gd": BLUE, "newton": RED, "damped": OLIVE, "trust": GREEN}
DASH = {"gd": DASHES[0], "newton": DASHES[1], "damped": DASHES[2], "trust": DASHES[3]}
#: The translation key of each method's name (also the legend entries).
METHOD_KEYS = {
    "gd": "newton.method.gd",
    "newton": "newton.method.newton",
    "damped": "newton.method.damped",
    "trust": "newton.method.trust",
}


def _line(x, y, key: str, lang: str, **extra: object) -> dict:
    return line(
        x,
        y,
        tr(METHOD_KEYS[key], lang),
        {"color": COLORS[key], "width": 3, "dash": DASH[key]},
        **extra,
    )


def paths_figure(race: NewtonRace, g: Grid, variables: tuple[str, str], lang: str) -> object:
    """Contours of f (``g``) with each method's path; the start a black dot, each end a
    diamond."""
    z, use_log = contour_levels(g.z)
    finite = z[np.isfinite(z)]
    lo, hi = np.percentile(finite, [1, 99]) if finite.size else (0.0, 1.0)
    hi = hi if hi > lo else lo + 1.0
    traces: list[dict] = [
        {
            "type": "contour",
            "x": g.x,
            "y": g.y,
            "z": z,
            "colorscale": LIGHT,
            "zmin": lo,
            "zmax": hi,
            "contours": {"start": lo, "end": hi, "size": (hi - lo) / 18},
            "line": {"width": 1, "color": "rgba(0,0,0,0.3)"},
            "hoverinfo": "skip",
            "colorbar": {
                "title": {
                    "text": tr("surface.log_f" if use_log else "surface.f", lang),
                    "side": "right",
                }
            },
        }
    ]
    for path in race.paths:
        p = path.points
        traces.append(
            _line(p[:, 0], p[:, 1], path.method, lang, mode="lines+markers", marker={"size": 6})
        )
        traces.append(
            {
                "type": "scatter",
                "x": [p[-1, 0]],
                "y": [p[-1, 1]],
                "mode": "markers",
                "marker": {
                    "symbol": "diamond",
                    "size": 14,
                    "color": COLORS[path.method],
                    "line": {"color": "white", "width": 1.5},
                },
                "showlegend": False,
                "hoverinfo": "skip",
            }
        )
    start = race.config.start
    traces.append(
        {
            "type": "scatter",
            "x": [start[0]],
            "y": [start[1]],
            "mode": "markers",
            "name": tr("newton.fig.start", lang),
            "marker": {"size": 13, "color": "#111"},
        }
    )
    x, y = variables
    return plain_figure(
        traces,
        **figure_layout(560),
        xaxis=axis_props(x, range=[float(g.x[0]), float(g.x[-1])]),
        yaxis=axis_props(y, range=[float(g.y[0]), float(g.y[-1])]),
    )


#: The convergence figure's height: each of its two panels is about 280 px tall (at 480 px in
#: all, they were about 120 px, too low to read a log axis from the back of a room).
CONVERGENCE_HEIGHT = 780


def convergence_figure(race: NewtonRace, minimum: float | None, lang: str) -> object:
    """Top: f − f* (log) when the minimum f* is known, else f; bottom: |∇f| (log). Stacked:
    the page gives the figure the narrower of two columns, where side by side the two panels'
    titles ran into each other. Projected, the figure is a screen of its own, as wide as the
    screen and not as tall: the panels then stand side by side, each the screen's height."""
    cells = grid_cells(2, 1, 0.0, 0.14)
    wide = grid_cells(1, 2, 0.1, 0.0)  # on a projector (``projected``)
    gap = minimum is not None
    traces = []
    for path in race.paths:
        k = np.arange(len(path.values))
        left = positive(path.values - minimum) if gap else path.values
        traces.append(_line(k, left, path.method, lang, legendgroup=path.method))
        traces.append(
            _line(
                k,
                positive(path.grad_norms),
                path.method,
                lang,
                xaxis="x2",
                yaxis="y2",
                legendgroup=path.method,
                showlegend=False,
            )
        )
    shown = f"{minimum:g}" if gap else ""
    titles = [
        tr("newton.fig.gap" if gap else "newton.fig.value", lang, minimum=shown),
        tr("newton.fig.grad_norm", lang),
    ]
    step = tr("why.fig.iteration", lang)
    projected = {
        "annotations": [cell_title(t, *c) for t, c in zip(titles, wide, strict=True)],
        "xaxis": {"domain": wide[0][0], "title": {"text": step}},
        "xaxis2": {"domain": wide[1][0]},
        "yaxis": {"domain": wide[0][1]},
        "yaxis2": {"domain": wide[1][1]},
    }
    return plain_figure(
        traces,
        projected=projected,
        **figure_layout(CONVERGENCE_HEIGHT, legend="bottom"),
        annotations=[cell_title(t, *c) for t, c in zip(titles, cells, strict=True)],
        xaxis=axis_props(None, domain=cells[0][0]),
        xaxis2=axis_props(step, domain=cells[1][0], anchor="y2"),
        yaxis=log_axis(None, *(t["y"] for t in traces[::2]), domain=cells[0][1])
        if gap
        else axis_props(None, domain=cells[0][1]),
        yaxis2=log_axis(None, *(t["y"] for t in traces[1::2]), domain=cells[1][1], anchor="x2"),
    )


# The notebook's last cell: f's contours and every path, from what ``__main__`` left behind.
_NOTEBOOK_FIGURE = """
import numpy as np
import plotly.graph_objects as go

points = np.concatenate([p.points for p in result.paths])
low, high = points.min(axis=0), points.max(axis=0)
pad = np.maximum(0.25 * (high - low), 0.5)
a = torch.linspace(low[0] - pad[0], high[0] + pad[0], 121, dtype=torch.float64)
b = torch.linspace(low[1] - pad[1], high[1] + pad[1], 121, dtype=torch.float64)
X, Y = torch.meshgrid(a, b, indexing="xy")
with torch.no_grad():  # f acts point by point: one call for the whole grid
    Z = torch.broadcast_to(f(torch.stack([X, Y])), X.shape)
fig = go.Figure(go.Contour(x=a.numpy(), y=b.numpy(), z=Z.numpy(), ncontours=30,
                           showscale=False))
colors = COLORS
for p in result.paths:
    fig.add_scatter(x=p.points[:, 0], y=p.points[:, 1], mode="lines+markers", name=p.method,
                    line_color=colors[p.method])
fig.update_layout(template="plotly_white", height=500)
fig.show()
"""


def notebook(source: str, title: str, figure: str) -> str:
    """The download ``source`` as a notebook: a ``title`` cell, the source cut into cells at
    its ``# %%`` lines, then ``figure`` (prose) above a cell that draws f's contours and every
    path with plotly. Returns nbformat 4 JSON."""
    drawing = _NOTEBOOK_FIGURE.strip().replace("COLORS", repr(COLORS))
    return percent_notebook(
        source, before=[("markdown", title)], after=[("markdown", figure), ("code", drawing)]
    )
