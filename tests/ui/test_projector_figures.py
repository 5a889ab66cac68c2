"""Presentation mode's figures (hograd_ui/plotting.py): every font of the figure grows by the
stated factor, none stays under the stated minimum, the result is still a valid plotly figure
(oracle: plotly's own validation), and outside presentation mode nothing changes."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import plotly.graph_objects as go
import pytest

from hograd_core import derivatives, parse
from hograd_labs.derivatives.chart import derivatives_figure
from hograd_ui.plotting import (
    PROJECTOR_MIN_FONT,
    PROJECTOR_SCALE,
    drawn,
    for_projector,
    new_figure,
    plain_figure,
)


def _sizes(value: object, key: str = "") -> Iterator[tuple[str, float]]:
    """(path, size) of every font size in a figure's dict (not its template)."""
    if isinstance(value, dict):
        for k, v in value.items():
            if k == "template":
                continue
            if k == "size" and key.endswith("font") and isinstance(v, int | float):
                yield key, v
            yield from _sizes(v, k)
    elif isinstance(value, list):
        for v in value:
            yield from _sizes(v, key)


def _figures() -> list[object]:
    result = derivatives(parse("sin(x)*exp(-x^2)"), np.linspace(-3, 3, 200), 3, method="taylor")
    annotated = new_figure(
        [{"type": "scatter", "x": [0, 1], "y": [1, 2], "textfont": {"size": 18}}],
        height=400,
        font={"size": 16},
        xaxis={"tickfont": {"size": 14}},
        legend={"orientation": "h", "y": -0.16, "font": {"size": 15}},
        margin={"l": 60, "r": 30, "t": 60, "b": 110},
        annotations=[{"text": "v", "x": 0, "y": 1, "font": {"size": 9}}],
    )
    return [
        derivatives_figure(result, "en"),
        derivatives_figure(result, "zh", separate=True),
        annotated,
    ]


@pytest.mark.parametrize("index", range(3))
def test_every_font_grows_and_none_is_under_the_minimum(index: int) -> None:
    fig = _figures()[index]
    plain = fig.to_dict()
    big = for_projector(plain)
    before = list(_sizes(plain["data"])) + list(_sizes(plain["layout"]))
    after = list(_sizes(big["data"])) + list(_sizes(big["layout"]))
    assert after and all(size >= PROJECTOR_MIN_FONT for _, size in after)
    assert len(after) >= len(before)
    for key, size in before:  # each font is scaled (or set to the figure's larger size)
        least = max(PROJECTOR_MIN_FONT, round(size * PROJECTOR_SCALE))
        assert any(k == key and s >= least for k, s in after), (key, size)
    for axis in ("xaxis", "yaxis"):
        assert big["layout"][axis]["tickfont"]["size"] >= PROJECTOR_MIN_FONT
    go.Figure(big)  # plotly's validation accepts every property


def test_a_legend_under_the_plot_goes_to_the_figures_bottom_edge() -> None:
    """Placed in the container (not in fractions of the plot, which a chart fitted shorter
    would turn into a blank band), with every x axis pushing the margin for its labels and
    title: plotly stacks them above the legend. The margin itself is one tick label row."""
    plain = _figures()[2].to_dict()
    big = for_projector(plain)
    legend = big["layout"]["legend"]
    assert (legend["yref"], legend["y"], legend["yanchor"]) == ("container", 0, "bottom")
    assert big["layout"]["xaxis"]["automargin"] is True
    tick = big["layout"]["xaxis"]["tickfont"]["size"]
    assert tick <= big["layout"]["margin"]["b"] <= 2 * tick  # room for labels, no band
    assert big["layout"]["height"] > 400
    go.Figure(big)  # plotly's validation accepts the container reference
    plain["layout"]["legend"]["y"] = 1.02  # a legend above the plot keeps its place
    assert "yref" not in for_projector(plain)["layout"]["legend"]


def test_the_mode_is_applied_when_drawn_and_changes_only_the_drawing() -> None:
    """A figure builder never takes presentation mode: ``drawn`` (what the chart calls with the
    mode) gives the same traces and layout, with projector-sized fonts."""
    result = derivatives(parse("sin(x)*exp(-x^2)"), np.linspace(-3, 3, 200), 3, method="taylor")
    fig = derivatives_figure(result, "en")
    plain, big = (drawn(fig, p) for p in (False, True))
    assert big["layout"]["font"]["size"] > plain["layout"]["font"]["size"]
    assert big == for_projector(plain)
    assert fig.to_dict() == plain
    for make in (new_figure, plain_figure):
        a, b = (drawn(make([], font={"size": 16}), p) for p in (False, True))
        assert a["layout"]["font"]["size"] == 16 and b == for_projector(a)


def test_a_figure_lays_out_its_projected_layout_over_its_own() -> None:
    """``projected=`` replaces parts of the layout on a projector only, dict by dict."""
    for make in (new_figure, plain_figure):
        fig = make(
            [], xaxis={"title": {"text": "x"}, "dtick": 1}, projected={"xaxis": {"dtick": 2}}
        )
        plain, big = drawn(fig, False), drawn(fig, True)
        assert plain["layout"]["xaxis"]["dtick"] == 1
        assert big["layout"]["xaxis"]["dtick"] == 2
        assert big["layout"]["xaxis"]["title"]["text"] == "x"
