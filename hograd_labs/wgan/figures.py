"""Figures of the WGAN-GP lab, from :mod:`.compute`'s results: the points over the critic's
contour, the gradient norms on the interpolates, the training curves, and the penalty's graph
in the graph page's style.

Colours: data near-black dots, generated points red diamonds outlined near-black (the kit's
checked palette), the critic's values from blue (low) to orange (high); every label comes from
the translation table. Also the lab as a notebook.
"""

from __future__ import annotations

import numpy as np

from hograd_core.graphs import TensorGraph
from hograd_ui.graph_steps import Step, tensor_steps
from hograd_ui.i18n import tr
from hograd_ui.notebook import percent_notebook
from hograd_ui.plot_kit import BLACK, BLUE, GREEN, RED, axis_props, figure_layout
from hograd_ui.plotting import plain_figure, vline
from hograd_ui.tensor_drawing import flag_dot

from .compute import LIMIT, WganRun

__all__ = [
    "CRITIC",
    "NORM_BINS",
    "POINTS",
    "curves_figure",
    "norm_counts",
    "norms_figure",
    "notebook",
    "penalty_dot",
    "penalty_steps",
    "points_figure",
]

#: Edges of the histogram of ‖∇_x̂ D(x̂)‖ (values above the last edge go in the last bin).
NORM_BINS = np.linspace(0.0, 3.0, 31)
#: The critic's colour scale (low blue, middle near-white, high orange), drawn at
#: :data:`CONTOUR_OPACITY` over the page.
CRITIC = [[0.0, "#2c7bb6"], [0.5, "#f7f7f7"], [1.0, "#fdae61"]]
CONTOUR_OPACITY = 0.85
#: The points over the critic: data near-black circles, generated red diamonds with a
#: near-black outline. Told apart by their shape as well as their colour (WCAG 1.4.1), and each
#: 3:1 or more, by its fill or its outline, on every colour of the critic's scale (1.4.11;
#: tests/ui/test_palette.py): the data's grey at opacity 0.6 was 1.6:1 on the scale's blue, the
#: generated red, with a thin white outline, 2.3:1 on its light blue.
POINTS = {
    "data": {"color": BLACK, "size": 5, "opacity": 0.8, "symbol": "circle"},
    "generated": {
        "color": RED,
        "size": 8,
        "symbol": "diamond",
        "line": {"width": 1, "color": BLACK},
    },
}


def norm_counts(norms: np.ndarray) -> np.ndarray:
    """How many interpolates fall in each bin of :data:`NORM_BINS` (overflow in the last)."""
    clipped = np.minimum(np.asarray(norms, dtype=float), NORM_BINS[-1] - 1e-9)
    return np.histogram(clipped, NORM_BINS)[0]


def points_figure(run: WganRun, index: int, lang: str) -> object:
    """The data (near-black dots), the generated points of snapshot ``index`` (red diamonds)
    and the critic D of that snapshot as filled contours behind them."""
    z = run.critic[index]
    contour = {
        "type": "contour",
        "x": run.grid,
        "y": run.grid,
        "z": z,
        "colorscale": CRITIC,
        "ncontours": 18,
        "line": {"width": 0.5, "color": "rgba(0,0,0,0.15)"},
        "opacity": CONTOUR_OPACITY,
        "name": tr("wgan.fig.critic", lang),
        "showscale": True,
        "colorbar": {"title": {"text": "D(x)"}, "thickness": 14},
        "hovertemplate": "D(%{x:.2f}, %{y:.2f}) = %{z:.3g}<extra></extra>",
    }
    real = {
        "type": "scatter",
        "x": run.real[:, 0],
        "y": run.real[:, 1],
        "mode": "markers",
        "name": tr("wgan.fig.data", lang),
        "marker": POINTS["data"],
    }
    fake = {
        "type": "scatter",
        "x": run.fake[index][:, 0],
        "y": run.fake[index][:, 1],
        "mode": "markers",
        "name": tr("wgan.fig.generated", lang),
        "marker": POINTS["generated"],
    }
    box = [-LIMIT, LIMIT]
    return plain_figure(
        [contour, real, fake],
        **figure_layout(520),
        xaxis=axis_props("x₁", range=box, constrain="domain"),
        yaxis=axis_props("x₂", range=box, scaleanchor="x", scaleratio=1),
    )


def norms_figure(run: WganRun, index: int, lang: str) -> object:
    """The histogram of ‖∇_x̂ D(x̂)‖ over the interpolates at snapshot ``index``; the penalty
    pulls it to the dashed line at 1."""
    centres = (NORM_BINS[:-1] + NORM_BINS[1:]) / 2
    bars = {
        "type": "bar",
        "x": centres,
        "y": norm_counts(run.norms[index]),
        "width": NORM_BINS[1] - NORM_BINS[0],
        "name": tr("wgan.fig.norms", lang),
        "marker": {"color": "#9467bd"},
        "hovertemplate": "‖∇D‖ ≈ %{x:.2f}: %{y}<extra></extra>",
    }
    return plain_figure(
        [bars],
        **figure_layout(360),
        showlegend=False,
        bargap=0.05,
        shapes=[vline(1.0, {"color": "#111827", "dash": "dash", "width": 2})],
        xaxis=axis_props(tr("wgan.fig.norm_axis", lang), range=[0, NORM_BINS[-1]]),
        yaxis=axis_props(tr("wgan.fig.count", lang)),
    )


def curves_figure(run: WganRun, lang: str) -> object:
    """Per generator step: the critic's gap mean D(real) − mean D(fake) (left axis) and the
    penalty (right axis: it can be hundreds of times larger; zero unless it is on).

    Each line's colour is its axis's tick and title colour: blue and green from the kit's
    checked palette, 5.2:1 and 5.7:1 on white as text must be; the penalty is dashed, and each
    axis's title names its line and its dash."""
    steps = np.arange(1, len(run.wasserstein) + 1)
    traces = [
        {
            "type": "scatter",
            "x": steps,
            "y": run.wasserstein,
            "mode": "lines",
            "name": tr("wgan.fig.wasserstein", lang),
            "line": {"color": BLUE, "width": 2},
        },
        {
            "type": "scatter",
            "x": steps,
            "y": run.penalty,
            "mode": "lines",
            "yaxis": "y2",
            "name": tr("wgan.fig.penalty", lang),
            "line": {"color": GREEN, "width": 2, "dash": "dash"},
        },
    ]
    # Each y axis is titled with its line's name and dash, in its line's colour: told apart
    # without colour, and in presentation mode, which draws every axis's text black.
    gap, penalty = (
        axis_props(tr(key, lang), tickfont={"size": 14, "color": color})
        for key, color in (("wgan.fig.gap_axis", BLUE), ("wgan.fig.penalty_axis", GREEN))
    )
    gap["title"]["font"]["color"], penalty["title"]["font"]["color"] = BLUE, GREEN
    look = figure_layout(340)
    look["margin"]["r"] = 80  # room for the right axis's title
    return plain_figure(
        traces,
        **look,
        xaxis=axis_props(tr("wgan.fig.step", lang)),
        yaxis=gap,
        yaxis2={
            **penalty,
            "overlaying": "y",
            "side": "right",
            "showgrid": False,
            "rangemode": "tozero",
        },
    )


def penalty_dot(graph: TensorGraph, lang: str) -> str:
    """The penalty's graph as the graph page draws a flag-lab run (same colours and shapes)."""
    return flag_dot(graph, lang)


def penalty_steps(graph: TensorGraph, lang: str) -> tuple[Step, ...]:
    """The penalty's graph told pass by pass (:mod:`hograd_ui.graph_steps`): its one backward
    pass is ``grad(D(x̂).sum(), x̂, create_graph=...)``, and ‖∇D‖ and GP are made from the
    gradient it returned (:func:`.cached.penalty_graph`)."""
    return tensor_steps(graph, lang, gradients=(1,))


# The notebook's last cell: the points and the curves, drawn from what ``__main__`` left behind.
_NOTEBOOK_FIGURE = """
import plotly.graph_objects as go
from plotly.subplots import make_subplots

fig = make_subplots(rows=1, cols=2, subplot_titles=["data and generator", "training"])
fig.add_scatter(x=result.real[:, 0], y=result.real[:, 1], mode="markers", name="data",
                marker={"size": 4, "opacity": 0.5}, row=1, col=1)
fig.add_scatter(x=result.fake[-1][:, 0], y=result.fake[-1][:, 1], mode="markers",
                name="generated", marker={"size": 4, "opacity": 0.5}, row=1, col=1)
fig.add_scatter(y=result.wasserstein, mode="lines", name="Wasserstein estimate", row=1, col=2)
fig.add_scatter(y=result.penalty, mode="lines", name="penalty", row=1, col=2)
fig.update_xaxes(title_text="generator step", row=1, col=2)
fig.update_layout(template="plotly_white")
fig.show()
"""


def notebook(source: str, title: str, figure: str) -> str:
    """The download ``source`` as a notebook: a ``title`` cell, the source cut into cells at
    its ``# %%`` lines, then ``figure`` (prose) above a cell that draws the data and the
    generated points, and the training curves, with plotly. Returns nbformat 4 JSON."""
    return percent_notebook(
        source,
        before=[("markdown", title)],
        after=[("markdown", figure), ("code", _NOTEBOOK_FIGURE.strip())],
    )
