"""Figures of the gradient-statistics lab, from :mod:`.compute`'s results: the layers'
gradient norms, their histograms, the two precisions; the run as TensorBoard event files; and
the lab as a notebook."""

from __future__ import annotations

import io
import time
import zipfile
from collections import defaultdict

import numpy as np

from hograd_core.applications import event_file
from hograd_ui.i18n import tr
from hograd_ui.notebook import percent_notebook
from hograd_ui.plot_kit import BLUE, RED, axis_props, figure_layout, log_axis, positive
from hograd_ui.plotting import plain_figure

from .compute import BINS, GradientStats

__all__ = [
    "histogram_figure",
    "layer_norms_figure",
    "notebook",
    "precision_figure",
    "tensorboard_archive",
]


def _layer_colors(n: int) -> list[str]:
    """From dark blue (first layer) to orange (last), so depth reads as a colour ramp."""
    a, b = np.array([8, 48, 107]), np.array([230, 85, 13])
    return [f"rgb{tuple(int(c) for c in a + (b - a) * i / max(1, n - 1))}" for i in range(n)]


def layer_norms_figure(stats: GradientStats, lang: str) -> object:
    """|∂L/∂W_k| per step, one line per layer, on a log scale. Only the first and the last
    layer are in the legend (the colours run from one to the other, as the caption says; a
    line's name is in its hover): eleven entries covered the x axis or, on a projector, did
    not fit beside the chart."""
    colors = _layer_colors(len(stats.layer_names))
    steps = np.arange(len(stats.layer_norms))
    last = len(stats.layer_names) - 1
    traces = [
        {
            "type": "scatter",
            "x": steps,
            "y": positive(stats.layer_norms[:, k]),
            "mode": "lines",
            "name": name,
            "line": {"color": colors[k], "width": 2},
            "showlegend": k in (0, last),
        }
        for k, name in enumerate(stats.layer_names)
    ]
    return plain_figure(
        traces,
        **figure_layout(440),
        xaxis=axis_props(tr("why.fig.iteration", lang)),
        yaxis=log_axis(tr("stats.fig.layer_norm", lang), *(t["y"] for t in traces)),
    )


def histogram_figure(stats: GradientStats, index: int, lang: str) -> object:
    """At one recorded step: how many entries of each layer's gradient have each size
    (log10 |g|), as a heatmap with layers from the input (bottom) to the output (top)."""
    counts = stats.hist_counts[index].astype(float)  # (layers, bins)
    centres = (BINS[:-1] + BINS[1:]) / 2
    share = counts / np.maximum(counts.sum(axis=1, keepdims=True), 1)
    trace = {
        "type": "heatmap",
        "x": centres,
        "y": list(stats.layer_names),
        "z": share,
        "colorscale": "Blues",
        "customdata": counts,
        "colorbar": {"title": {"text": tr("stats.fig.share", lang)}},
        "hovertemplate": "%{y}: log10|g| ≈ %{x:.1f}, %{customdata:.0f}<extra></extra>",
    }
    return plain_figure(
        [trace],
        **figure_layout(420),
        xaxis=axis_props(tr("stats.fig.log_size", lang)),
        yaxis=axis_props(tr("stats.fig.layer", lang)),
    )


def precision_figure(stats: GradientStats, lang: str) -> object:
    """The same run's loss in float32 and in float64."""
    curves = {stats.config.dtype: stats.losses, stats.other_dtype: stats.other_losses}
    traces = [
        {
            "type": "scatter",
            "x": np.arange(len(curves[d])),
            "y": positive(curves[d]),
            "mode": "lines",
            "name": d,
            "line": {
                "color": RED if d == "float32" else BLUE,  # the kit's checked palette
                "width": 3,
                "dash": "dot" if d == "float32" else "solid",
            },
        }
        for d in ("float64", "float32")
    ]
    return plain_figure(
        traces,
        **figure_layout(380),
        xaxis=axis_props(tr("why.fig.iteration", lang)),
        yaxis=log_axis(tr("why.fig.train_loss", lang), *(t["y"] for t in traces)),
    )


def tensorboard_archive(stats: GradientStats, wall_time: float | None = None) -> bytes:
    """The run as a TensorBoard event file, zipped; written by hand
    (hograd_core/applications/event_file.py), so it needs no tensorboard package.

    Scalars: ``loss/<dtype>``, ``grad_norm/total`` and ``grad_norm/W1``...; histograms:
    ``grad_abs/W1``... of |g| over the buckets of :data:`BINS` (a first bucket up to 0 holds the
    entries that are exactly 0). One Event per step holds every value of that step. The
    events' ``wall_time`` is now unless given.
    """
    wall = time.time() if wall_time is None else wall_time
    limits = [0.0, *(10.0 ** BINS[1:]).tolist()]
    steps: dict[int, list[bytes]] = defaultdict(list)
    for step, loss in enumerate(stats.losses):
        steps[step].append(event_file.scalar(f"loss/{stats.config.dtype}", float(loss)))
    for step, loss in enumerate(stats.other_losses):
        steps[step].append(event_file.scalar(f"loss/{stats.other_dtype}", float(loss)))
    for step, total in enumerate(stats.total_norms):
        steps[step].append(event_file.scalar("grad_norm/total", float(total)))
        for k, name in enumerate(stats.layer_names):
            steps[step].append(
                event_file.scalar(f"grad_norm/{name}", float(stats.layer_norms[step, k]))
            )
    for i, step in enumerate(stats.hist_steps):
        for k, name in enumerate(stats.layer_names):
            low, high, num, total, squares = stats.abs_stats[i, k]
            counts = [int(stats.hist_zeros[i, k]), *stats.hist_counts[i, k].tolist()]
            steps[int(step)].append(
                event_file.histogram(
                    f"grad_abs/{name}", low, high, num, total, squares, limits, counts
                )
            )
    data = event_file.event_file(sorted(steps.items()), wall)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"gradient-stats/events.out.tfevents.{int(wall)}.hograd", data)
    return buffer.getvalue()


# The notebook's last cell: the loss and the last step's norms, from what ``__main__`` left.
_NOTEBOOK_FIGURE = """
import plotly.graph_objects as go
from plotly.subplots import make_subplots

if stats.nan_step is not None:
    print("a gradient had a NaN at step", stats.nan_step)
fig = make_subplots(rows=1, cols=2, subplot_titles=["loss", "weight-gradient norm, last step"])
fig.add_scatter(y=stats.losses, mode="lines", name="loss", row=1, col=1)
fig.add_bar(x=list(stats.layer_names), y=stats.layer_norms[-1], name="‖∇W‖", row=1, col=2)
fig.update_yaxes(type="log", row=1, col=2)
fig.update_xaxes(title_text="step", row=1, col=1)
fig.update_layout(template="plotly_white", showlegend=False)
fig.show()
"""


def notebook(source: str, title: str, figure: str) -> str:
    """The download ``source`` as a notebook: a ``title`` cell, the source cut into cells at
    its ``# %%`` lines, then ``figure`` (prose) above a cell that draws the run's loss and its
    last step's gradient norms with plotly. Returns nbformat 4 JSON."""
    return percent_notebook(
        source,
        before=[("markdown", title)],
        after=[("markdown", figure), ("code", _NOTEBOOK_FIGURE.strip())],
    )
