"""hograd_ui.plotting.PlainFigure: the derivatives charts reach Streamlit as plain dicts.
Oracle: the same figure built as a go.Figure, through the path st.plotly_chart takes."""

from __future__ import annotations

import json

import numpy as np
import plotly.io as pio
import plotly.tools
import pytest

from hograd_core import derivatives, parse
from hograd_core.inspector import taylor_polynomial
from hograd_labs.derivatives.chart import derivatives_figure
from hograd_labs.derivatives.figures import taylor_figure
from hograd_ui.chart_range import chart_range
from hograd_ui.plotting import PlainFigure, validated


def streamlit_json(figure: object) -> dict:
    """What st.plotly_chart sends for ``figure`` (streamlit/elements/plotly_chart.py)."""
    spec = plotly.tools.return_figure_from_figure_or_data(figure, validate_figure=True)
    return json.loads(pio.to_json(spec, validate=False))


def figures() -> list[PlainFigure]:
    xs = np.linspace(-3, 3, 400)
    gaps = derivatives(parse("1/x + sqrt(x)"), xs, 5, method="taylor")  # nan and inf inside
    smooth = derivatives(parse("sin(x)*exp(-x^2)"), xs, 3, method="taylor")
    poly = taylor_polynomial(parse("sin(x)*exp(-x^2)"), 0.5, 3, xs)
    cut = chart_range(gaps.xs, gaps.values)
    cuts = chart_range(gaps.xs, gaps.values, separate=True)
    return [
        derivatives_figure(gaps, "en"),
        derivatives_figure(gaps, "zh", separate=True),
        taylor_figure(xs, smooth.values[0], poly, 0.5, float(poly[0]), 3, "x", "en"),
        derivatives_figure(gaps, "en", ranges=cut),
        derivatives_figure(gaps, "zh", separate=True, ranges=cuts),
        taylor_figure(xs, smooth.values[0], poly, 0.5, float(poly[0]), 3, "x", "zh", radius=1.2),
    ]


@pytest.mark.parametrize(
    "figure", figures(), ids=["one-panel", "panels-zh", "taylor", "cut", "cut-panels", "radius"]
)
def test_streamlit_gets_what_the_plotly_figure_would_give(figure: PlainFigure) -> None:
    assert isinstance(figure, PlainFigure)
    want = streamlit_json(figure.figure())  # plotly's own objects, deep copies and all
    assert streamlit_json(figure) == want
    validated(figure)  # every property checked by plotly
    # the arrays travel base64-encoded, as plotly's own to_dict() sends them
    assert all(isinstance(t["y"], dict) and "bdata" in t["y"] for t in want["data"][:2])


def test_drawing_it_changes_nothing_in_it() -> None:
    figure = figures()[0]
    data, layout = figure._plain
    ys = [t["y"].copy() for t in data]
    first = pio.to_json(figure.to_dict(), validate=False)
    figure.to_dict()["data"][0]["line"]["width"] = 99  # the copy is the caller's to change
    figure.figure()
    assert pio.to_json(figure.to_dict(), validate=False) == first
    assert all(np.array_equal(t["y"], y, equal_nan=True) for t, y in zip(data, ys, strict=True))
    assert isinstance(data[0]["y"], np.ndarray)  # not replaced by its base64 form


def test_the_projector_sizing_is_applied_when_drawn() -> None:
    """The mode is the drawing's argument (no state shared across threads or runs):
    for_projector is the same sizing, and without it the figure is drawn plain."""
    from hograd_ui.plotting import drawn, for_projector, plain_figure

    data, layout = [{"type": "scatter", "x": [0, 1], "y": [1, 2]}], {"height": 300}
    plain = plain_figure(data, **layout).to_dict()
    assert drawn(plain_figure(data, **layout), True) == for_projector(plain)
    assert drawn(plain_figure(data, **layout), False) == plain
    assert plain["layout"]["height"] == 300
