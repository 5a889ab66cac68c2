"""Figures of the stability lab, from :mod:`.compute`'s results, and the lab as a notebook.

Gradient descent is blue, as on the why page's other tabs; λ_max red, against the dashed line
2/lr in black.
"""

from __future__ import annotations

import numpy as np

from hograd_ui.i18n import tr
from hograd_ui.notebook import percent_notebook
from hograd_ui.plot_kit import BLUE, RED, axis_props, figure_layout, log_axis, positive
from hograd_ui.plotting import cell_title, grid_cells, hline, plain_figure

from .compute import NetStability, QuadraticRun

__all__ = ["notebook", "quadratic_figure", "sharpness_figure"]

GD, SHARPNESS = BLUE, RED  # the kit's checked palette


def _gd(x, y, lang: str, **extra: object) -> dict:
    return {
        "type": "scatter",
        "x": x,
        "y": y,
        "mode": "lines",
        "name": tr("stability.fig.gd", lang),
        "line": {"color": GD, "width": 3},
        **extra,
    }


def quadratic_figure(run: QuadraticRun, lang: str) -> object:
    """f at each gradient-descent step on the κ quadratic (log scale)."""
    k = np.arange(len(run.losses))
    return plain_figure(
        [_gd(k, positive(run.losses), lang)],
        **figure_layout(380),
        xaxis=axis_props(tr("why.fig.iteration", lang)),
        yaxis=log_axis(tr("stability.fig.f", lang), positive(run.losses)),
    )


def sharpness_figure(run: NetStability, lang: str) -> object:
    """Left: the training loss (log); right: λ_max along training against 2/lr."""
    cells = grid_cells(1, 2, 0.12, 0.0)
    limit = 2 / run.config.lr
    traces = [
        _gd(np.arange(len(run.losses)), positive(run.losses), lang, showlegend=False),
        {
            "type": "scatter",
            "x": run.sharpness_steps,
            "y": run.sharpness,
            "mode": "lines+markers",
            "name": "λ_max",
            "xaxis": "x2",
            "yaxis": "y2",
            "line": {"color": SHARPNESS, "width": 3},
        },
    ]
    step = tr("why.fig.iteration", lang)
    titles = [tr("why.fig.train_loss", lang), tr("stability.fig.sharpness", lang)]
    label = {
        "text": f"2/lr = {limit:.3g}",
        "x": 1,
        "xref": "x2 domain",
        "xanchor": "right",
        "y": limit,
        "yref": "y2",
        "yanchor": "bottom",
        "showarrow": False,
        "font": {"color": "#111", "size": 15},
    }
    top = max(limit, float(np.nanmax(run.sharpness)) if run.sharpness.size else limit)
    return plain_figure(
        traces,
        **figure_layout(420),
        showlegend=False,
        annotations=[*(cell_title(t, *c) for t, c in zip(titles, cells, strict=True)), label],
        shapes=[hline(limit, {"color": "#111", "width": 2, "dash": "dash"}, "2")],
        xaxis=axis_props(None, domain=cells[0][0]),
        xaxis2=axis_props(step, domain=cells[1][0], anchor="y2"),
        yaxis=axis_props(None, domain=cells[0][1], type="log", exponentformat="power"),
        yaxis2=axis_props(None, domain=cells[1][1], anchor="x2", range=[0, 1.15 * top]),
    )


# The notebook's last cell: both experiments, drawn from what ``__main__`` left behind.
_NOTEBOOK_FIGURE = """
import plotly.graph_objects as go
from plotly.subplots import make_subplots

fig = make_subplots(rows=1, cols=3, subplot_titles=[
    f"quadratic: f, 2 / λ_max = {2 / quadratic.lambda_max:.4g}",
    "network: training loss", "network: λ_max and 2 / lr"])
fig.add_scatter(y=quadratic.losses, mode="lines", name="f", row=1, col=1)
fig.add_scatter(y=network.losses, mode="lines", name="loss", row=1, col=2)
fig.add_scatter(x=network.sharpness_steps, y=network.sharpness, mode="lines+markers",
                name="λ_max", row=1, col=3)
fig.add_hline(y=2 / config.lr, line_dash="dash", annotation_text="2 / lr", row=1, col=3)
fig.update_yaxes(type="log", row=1, col=1)
fig.update_yaxes(type="log", row=1, col=2)
fig.update_xaxes(title_text="step")
fig.update_layout(template="plotly_white", showlegend=False)
fig.show()
"""


def notebook(source: str, title: str, figure: str) -> str:
    """The download ``source`` as a notebook: a ``title`` cell, the source cut into cells at
    its ``# %%`` lines, then ``figure`` (prose) above a cell that draws both experiments with
    plotly. Returns nbformat 4 JSON."""
    return percent_notebook(
        source,
        before=[("markdown", title)],
        after=[("markdown", figure), ("code", _NOTEBOOK_FIGURE.strip())],
    )
