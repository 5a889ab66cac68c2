"""The HVP lab's figures (and the contour picture it shares with the lesson), built as plain dicts without plotly's checks: every one passes the
full checks, and the subplot layout matches make_subplots (the oracle) to the last bit."""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
import pytest
import torch
from plotly.subplots import make_subplots

from hograd_core import curvature as cv
from hograd_core import parse
from hograd_labs.hvp import compute
from hograd_labs.hvp import figures as figs
from hograd_labs.hvp.figures import contour_figure
from hograd_ui.i18n import tr
from hograd_ui.plotting import PROJECTOR_MIN_FONT, drawn, grid_cells, validated
from tests.arrays import plotly_array

TYPED = {  # text: (p, v), as the page's examples
    "w1**2*sin(w2)": ((1.0, math.pi / 2), (0.5, 1.0)),
    "(1 - x)^2 + 100*(y - x^2)^2": ((1.0, 1.0), (1.0, 0.0)),
    "x^2*y + sin(z)*y + z^2": ((1.0, 0.5, -0.3), (1.0, 1.0, 1.0)),
    "x^3 - x": ((0.7,), (1.0,)),
}


@pytest.fixture(scope="module", params=list(TYPED))
def typed(request: pytest.FixtureRequest) -> tuple[tuple[str, ...], cv.Exploration]:
    fn = parse(request.param)
    point, vector = TYPED[request.param]
    return fn.variables, cv.explore(fn, point, vector, radius=1.5, power_steps=30)


@pytest.fixture(scope="module")
def net() -> Iterator[tuple[compute.TrainedNet, compute.NetCurvature]]:
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as the app runs: small ops are much slower on a busy pool
    config = compute.HvpConfig("moons", (6,), steps=50, top_k=2, power_steps=5, probes=10)
    trained = compute.train(config)
    yield trained, compute.analyse(config, trained)
    torch.set_num_threads(threads)


@pytest.mark.parametrize(
    "rows, cols, h_space, v_space, widths",
    [
        (1, 1, 0.1, 0.0, None),
        (1, 2, 0.1, 0.0, None),
        (2, 2, 0.1, 0.12, None),
        (5, 2, 0.1, 0.12, None),
        (3, 2, 0.1, 0.12, None),
        (1, 2, 0.12, 0.0, (0.42, 0.58)),
    ],
)
def test_grid_cells_match_make_subplots(
    rows: int, cols: int, h_space: float, v_space: float, widths: tuple | None
) -> None:
    oracle = make_subplots(
        rows=rows,
        cols=cols,
        horizontal_spacing=h_space,
        vertical_spacing=v_space,
        column_widths=list(widths) if widths else None,
    ).layout
    cells = grid_cells(rows, cols, h_space, v_space, widths)
    assert len(cells) == rows * cols
    for i, (x_domain, y_domain) in enumerate(cells):
        s = str(i + 1) if i else ""
        assert tuple(x_domain) == oracle[f"xaxis{s}"].domain  # exact: the same arithmetic
        assert tuple(y_domain) == oracle[f"yaxis{s}"].domain


def test_typed_function_figures_pass_plotlys_checks(typed: tuple) -> None:
    names, ex = typed
    built = [
        figs.hessian_figure(ex.result, "en"),
        figs.slices_figure(ex.slices, names, "zh"),
        figs.power_figure(ex.power, names, "en"),
        figs.ways_figure(ex.ways.seconds, ["a", "b", "c"], "en"),
    ]
    if ex.grid is not None:
        built += [
            contour_figure(ex.grid, ex.result, "en"),
            contour_figure(ex.grid, ex.result, "zh", pickable=False),
            figs.surface_figure(ex.grid, ex.result, "en"),
        ]
    for fig in built:
        validated(fig)


def test_power_animation_has_a_frame_per_step_on_the_moving_traces(typed: tuple) -> None:
    names, ex = typed
    fig = validated(figs.power_figure(ex.power, names, "en"))
    ray = ex.power.rayleigh
    last = int(np.max(np.nonzero(np.isfinite(ray))[0]))
    assert [f.name for f in fig.frames] == [str(k) for k in range(last + 1)]
    moving = list(fig.frames[0].traces)
    assert moving == list(range(len(fig.data) - 3, len(fig.data)))
    for k, frame in enumerate(fig.frames):
        assert frame.layout.title.text.startswith(f"step {k}:")
        assert list(plotly_array(frame.data[-1].x)) == list(range(k + 1))  # the quotients so far
    steps = fig.layout.sliders[0].steps
    assert [list(s.args[0]) for s in steps] == [[str(k)] for k in range(last + 1)]
    assert fig.data[-1].xaxis == "x2" and fig.data[moving[0]].xaxis == "x"


def test_network_figures_pass_plotlys_checks(net: tuple) -> None:
    trained, curv = net
    for fig in (
        figs.training_figure(trained, "en"),
        figs.net_power_figure(curv, "zh"),
        figs.hutchinson_figure(curv, "en"),
        figs.directions_figure(curv, "en"),
        figs.net_hessian_figure(curv, trained.sizes, "en"),
    ):
        validated(fig)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("text", ["w1**2*sin(w2)", "(1 - x)^2 + 100*(y - x^2)^2"])
def test_the_arrow_scales_in_the_title_are_the_drawn_lengths(text: str, lang: str) -> None:
    """The title's factors, measured: each arrow as drawn, over the length of its vector (issue
    36, item 24: the title says what the factors mean)."""
    fn = parse(text)
    ex = cv.explore(fn, *TYPED[text], radius=1.5, power_steps=5)
    layout = contour_figure(ex.grid, ex.result, lang).to_dict()["layout"]
    arrows = {}
    notes = layout["annotations"]
    for i, a in enumerate(notes):
        if a.get("showarrow") and a.get("arrowcolor"):
            label = notes[i + 1]["text"].strip("<b>/")
            arrows[label] = math.hypot(a["x"] - a["ax"], a["y"] - a["ay"])
    r = ex.result
    if "∇f" not in arrows:  # Rosenbrock at its minimum (1, 1): no gradient to draw
        assert np.linalg.norm(r.gradient) < 1e-12
        arrows["∇f"], r_gradient = 0.0, np.ones(1)
    else:
        r_gradient = r.gradient
    factors = {
        "∇f": arrows["∇f"] / np.linalg.norm(r_gradient),
        "v": arrows["v"] / np.linalg.norm(r.vector),
        "Hv": arrows["Hv"] / np.linalg.norm(r.hvp),
    }
    assert factors["v"] == pytest.approx(factors["Hv"])  # one scale: lengths compare
    title = layout["title"]["text"]
    if factors["∇f"] == 0:
        assert title == tr("hvp.fig.scales_no_gradient", lang, v=f"{factors['v']:.2g}")
        return
    assert title == tr("hvp.fig.scales", lang, g=f"{factors['∇f']:.2g}", v=f"{factors['v']:.2g}")
    assert ("× its length" in title) if lang == "en" else ("长度的" in title)


def test_every_figure_is_drawn_for_a_projector_when_asked_whatever_the_thread_says(
    typed: tuple, net: tuple
) -> None:
    """Presentation mode is applied when drawn (``drawn``, what the chart calls): on a projector
    projector-sized text (fonts of 20 px and more), else the page's; no figure reads the mode."""
    names, ex = typed
    trained, curv = net
    build = [
        lambda: figs.hessian_figure(ex.result, "en"),
        lambda: figs.slices_figure(ex.slices, names, "en"),
        lambda: figs.power_figure(ex.power, names, "en"),
        lambda: figs.ways_figure(ex.ways.seconds, ["a", "b", "c"], "en"),
        lambda: figs.training_figure(trained, "en"),
        lambda: figs.net_power_figure(curv, "en"),
        lambda: figs.hutchinson_figure(curv, "en"),
        lambda: figs.directions_figure(curv, "en"),
        lambda: figs.net_hessian_figure(curv, trained.sizes, "en"),
    ]
    if ex.grid is not None:
        build += [
            lambda: contour_figure(ex.grid, ex.result, "en"),
            lambda: figs.surface_figure(ex.grid, ex.result, "en"),
        ]
    for make in build:
        small, large = (drawn(make(), p)["layout"] for p in (False, True))
        assert small["font"]["size"] < PROJECTOR_MIN_FONT <= large["font"]["size"]
