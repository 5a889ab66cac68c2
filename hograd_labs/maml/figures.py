"""Figures of the MAML lab, from :mod:`.compute`'s results, and the lab as a notebook.

One colour per starting point on every chart: second-order MAML red, first-order MAML orange,
pre-training blue; the true sine and the points the adaptation sees in black.
"""

from __future__ import annotations

import numpy as np

from hograd_ui.i18n import tr
from hograd_ui.notebook import percent_notebook
from hograd_ui.plot_kit import (
    BLUE,
    OLIVE,
    RED,
    axis_props,
    figure_layout,
    line,
    log_axis,
    positive,
)
from hograd_ui.plotting import plain_figure

from .compute import METHODS, Adaptation, MamlRun

__all__ = [
    "COLORS",
    "METHOD_KEYS",
    "adaptation_figure",
    "error_figure",
    "meta_training_figure",
    "notebook",
]

#: From the kit's checked palette (the first-order method was orange, 2.5:1 on white).
COLORS = {"second": RED, "first": OLIVE, "pretrain": BLUE}
#: The translation key of each starting point's name (also the legend entries).
METHOD_KEYS = {
    "second": "maml.method.second",
    "first": "maml.method.first",
    "pretrain": "maml.method.pretrain",
}
_DASH = {"second": "solid", "first": "dash", "pretrain": "dot"}


def _line(x, y, method: str, lang: str, **extra: object) -> dict:
    style = {"color": COLORS[method], "width": 3, "dash": _DASH[method]}
    return line(x, y, tr(METHOD_KEYS[method], lang), style, **extra)


def _title(text: str) -> dict:
    """A title at the top left, clear of the mode bar (top right)."""
    return {"text": text, "font": {"size": 17}, "x": 0, "xref": "paper", "xanchor": "left"}


def _legend_below(height: int) -> dict:
    """The shared look with the legend under the x axis title, clear of it: each chart names
    its own lines (the two error charts stand in columns apart from the adaptation chart)."""
    look = figure_layout(height, legend="bottom")
    look["legend"]["y"] = -0.24
    look["margin"]["b"] = 150
    return look


def _projected_y(lang: str) -> dict:
    """The y axis's title on a projector. Projected, a chart is fitted to the room on its
    screen, often shorter than the full title in large type: the chart's own title says what
    is drawn, and the axis says only that its scale is logarithmic."""
    return {"yaxis": {"title": {"text": tr("maml.fig.log_scale", lang)}}}


def meta_training_figure(run: MamlRun, lang: str) -> object:
    """The held-out loss after adaptation along meta-training, one line per starting point"""
    traces = [
        _line(run.eval_steps[: len(run.eval_losses[m])], positive(run.eval_losses[m]), m, lang)
        for m in METHODS
    ]
    steps = run.config.inner_steps
    return plain_figure(
        traces,
        **_legend_below(480),
        title=_title(tr("maml.fig.eval", lang, steps=steps)),
        xaxis=axis_props(tr("maml.fig.meta_step", lang)),
        yaxis=log_axis(tr("maml.fig.loss_axis", lang), *(t["y"] for t in traces)),
        projected=_projected_y(lang),
    )


def adaptation_figure(a: Adaptation, steps: int, lang: str) -> object:
    """The true sine, the K points seen, and each start's network after ``steps`` steps."""
    top = 1.15 * max(5.0, float(np.nanmax(np.abs([a.curves[m][steps] for m in METHODS]))))
    traces = [
        {
            "type": "scatter",
            "x": a.xs,
            "y": a.truth,
            "mode": "lines",
            "name": tr("maml.fig.truth", lang),
            "line": {"color": "#111", "width": 2},
        },
        *(_line(a.xs, a.curves[m][steps], m, lang) for m in METHODS),
        {
            "type": "scatter",
            "x": a.support_x,
            "y": a.support_y,
            "mode": "markers",
            "name": tr("maml.fig.support", lang),
            "marker": {"color": "#111", "size": 11, "line": {"color": "white", "width": 1.5}},
        },
    ]
    return plain_figure(
        traces,
        **figure_layout(500, legend="bottom"),
        title=_title(tr("maml.fig.curves", lang, steps=steps)),
        xaxis=axis_props("x", range=[-5, 5]),
        yaxis=axis_props("y", range=[-min(top, 12), min(top, 12)]),
    )


def error_figure(a: Adaptation, steps: int, lang: str) -> object:
    """The error against the true sine after 0, 1, ... steps; the shown step marked."""
    k = np.arange(a.steps + 1)
    traces = [
        _line(k, positive(a.errors[m]), m, lang, mode="lines+markers", marker={"size": 8})
        for m in METHODS
    ]
    traces += [
        {
            "type": "scatter",
            "x": [steps],
            "y": [float(a.errors[m][steps])],
            "mode": "markers",
            "marker": {
                "color": COLORS[m],
                "size": 16,
                "symbol": "circle-open",
                "line": {"width": 3},
            },
            "showlegend": False,
            "hoverinfo": "skip",
        }
        for m in METHODS
        if np.isfinite(a.errors[m][steps]) and a.errors[m][steps] > 0
    ]
    return plain_figure(
        traces,
        **_legend_below(480),
        title=_title(tr("maml.fig.error", lang)),
        xaxis=axis_props(tr("maml.fig.adapt_step", lang), dtick=1),
        yaxis=log_axis(tr("maml.fig.error_axis", lang), *(t["y"] for t in traces)),
        projected=_projected_y(lang),
    )


# The notebook's last cell: the two error charts, drawn from what ``__main__`` left behind.
_NOTEBOOK_FIGURE = """
import plotly.graph_objects as go
from plotly.subplots import make_subplots

fig = make_subplots(rows=1, cols=2, subplot_titles=["held-out loss while training",
                                                    "error after k adaptation steps"])
colors = COLORS
for method, color in colors.items():  # one color per starting point in both charts
    evals = result.eval_losses[method]
    fig.add_scatter(x=result.eval_steps[: len(evals)], y=evals, mode="lines+markers",
                    name=method, legendgroup=method, line_color=color, row=1, col=1)
    fig.add_scatter(y=adapted.errors[method], mode="lines+markers", name=method,
                    legendgroup=method, showlegend=False, line_color=color, row=1, col=2)
fig.update_xaxes(title_text="meta step", row=1, col=1)
fig.update_xaxes(title_text="k", row=1, col=2)
fig.update_yaxes(type="log")
fig.update_layout(template="plotly_white")
fig.show()
"""


def notebook(source: str, title: str, figure: str) -> str:
    """The download ``source`` as a notebook: a ``title`` cell, the source cut into cells at
    its ``# %%`` lines, then ``figure`` (prose) above a cell that draws the run's two error
    charts with plotly. Returns nbformat 4 JSON."""
    drawing = _NOTEBOOK_FIGURE.strip().replace("COLORS", repr(COLORS))
    return percent_notebook(
        source, before=[("markdown", title)], after=[("markdown", figure), ("code", drawing)]
    )
