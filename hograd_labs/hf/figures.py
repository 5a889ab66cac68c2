"""Figures of the Hessian-free lab, from :mod:`.compute`'s results, and the lab as a notebook.

Colours keep the why page's meaning: Hessian-free Newton red, SGD blue, Adam purple (the
kit's checked palette), each line with a dash of its own too (WCAG 1.4.1).
"""

from __future__ import annotations

import numpy as np

from hograd_ui.i18n import tr
from hograd_ui.notebook import percent_notebook
from hograd_ui.plot_kit import (
    BLUE,
    DASHES,
    PURPLE,
    RED,
    axis_props,
    figure_layout,
    line,
    log_axis,
    positive,
)
from hograd_ui.plotting import plain_figure

from .compute import HFRun

__all__ = ["COLORS", "DASH", "METHOD_KEYS", "hf_figure", "notebook"]

COLORS = {"hf": RED, "sgd": BLUE, "adam": PURPLE}
#: A dash per method: the lines are told apart without their colours too.
DASH = {"hf": DASHES[0], "sgd": DASHES[1], "adam": DASHES[2]}
#: The translation key of each method's name (also the legend entries).
METHOD_KEYS = {"hf": "hf.method.hf", "sgd": "hf.method.sgd", "adam": "hf.method.adam"}


def _line(x, y, key: str, lang: str, **extra: object) -> dict:
    return line(
        x,
        y,
        tr(METHOD_KEYS[key], lang),
        {"color": COLORS[key], "width": 3, "dash": DASH[key]},
        **extra,
    )


def hf_figure(run: HFRun, lang: str, axis: str = "passes") -> object:
    """The training loss of Hessian-free Newton, SGD and Adam against passes (a gradient or an
    HVP each) or against measured seconds."""
    if axis == "passes":
        xs = {
            "hf": run.hf_passes,
            "sgd": np.arange(len(run.sgd_losses)),
            "adam": np.arange(len(run.adam_losses)),
        }
    else:
        xs = {"hf": run.hf_seconds, "sgd": run.sgd_seconds, "adam": run.adam_seconds}
    ys = {"hf": run.hf_losses, "sgd": run.sgd_losses, "adam": run.adam_losses}
    traces = [
        _line(xs[k], positive(ys[k]), k, lang, mode="lines+markers" if k == "hf" else "lines")
        for k in ("sgd", "adam", "hf")
    ]
    title = tr("hf.fig.passes" if axis == "passes" else "hf.fig.seconds", lang)
    return plain_figure(
        traces,
        **figure_layout(420),
        xaxis=axis_props(title),
        yaxis=log_axis(tr("why.fig.train_loss", lang), *(t["y"] for t in traces)),
    )


# The notebook's last cell: the three losses against passes, from what ``__main__`` left behind.
_NOTEBOOK_FIGURE = """
import plotly.graph_objects as go

colors = COLORS
fig = go.Figure()
fig.add_scatter(x=result.hf_passes, y=result.hf_losses, mode="lines+markers",
                name="Hessian-free", line_color=colors["hf"])
fig.add_scatter(y=result.sgd_losses, mode="lines", name="SGD", line_color=colors["sgd"])
fig.add_scatter(y=result.adam_losses, mode="lines", name="Adam", line_color=colors["adam"])
fig.update_layout(xaxis_title="passes (gradients + HVPs)", yaxis_title="training loss",
                  yaxis_type="log", template="plotly_white")
fig.show()
"""


def notebook(source: str, title: str, figure: str) -> str:
    """The download ``source`` as a notebook: a ``title`` cell, the source cut into cells at
    its ``# %%`` lines, then ``figure`` (prose) above a cell that draws the three runs' losses
    with plotly. Returns nbformat 4 JSON."""
    drawing = _NOTEBOOK_FIGURE.strip().replace("COLORS", repr(COLORS))
    return percent_notebook(
        source, before=[("markdown", title)], after=[("markdown", figure), ("code", drawing)]
    )
