"""A chart told in words (hograd_ui/chart_text.py), checked against what the data is."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
import pytest

from hograd_ui.chart_text import describe, zero_crossings


def test_zero_crossings_of_sine_are_multiples_of_pi() -> None:
    x = np.linspace(-4, 4, 801)
    found = zero_crossings(x, np.sin(x))
    assert found == pytest.approx([-math.pi, 0.0, math.pi], abs=1e-4)  # closed form: kπ
    assert zero_crossings(x, np.cosh(x)) == []  # cosh > 0
    y = np.array([1.0, np.nan, -1.0, -2.0, 2.0])  # no crossing through a gap, one after it
    assert zero_crossings(np.arange(5.0), y) == pytest.approx([3 + 2 / 4])


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_curve_is_named_and_its_range_and_zeros_told(lang: str) -> None:
    x = np.linspace(-4, 4, 801)
    fig = go.Figure(
        [go.Scatter(x=x, y=np.sin(x), name="f′"), go.Scatter(x=[0.5], y=[None], name="x₀")],
        {"title": {"text": "<b>f and its derivatives</b>"}, "xaxis": {"title": {"text": "x"}}},
    )
    name, said = describe(fig.to_dict(), lang)
    assert "f and its derivatives" in name and "<b>" not in name
    assert "f′" in said and "-1" in said and "-4" in said and "4" in said
    assert "-3.14" in said and "3.14" in said  # where it crosses zero
    assert "x₀" not in said  # a legend entry with no finite point says nothing


def test_a_grid_and_bars() -> None:
    z = np.arange(12.0).reshape(3, 4) - 5
    name, said = describe(go.Figure(go.Heatmap(z=z, name="H")).to_dict())
    assert name == "Chart: H" and "3 by 4" in said and "-5" in said and "6" in said
    bars = go.Figure(go.Bar(x=["jvp", "reverse"], y=[1.5, 2.25], name="ms")).to_dict()
    assert "jvp 1.5, reverse 2.25" in describe(bars)[1]
