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


def _crossings_one_by_one(x: np.ndarray, y: np.ndarray) -> list[float]:
    """The rule read sample by sample, as it is stated (and as zero_crossings was written
    before it worked on whole arrays): a sample at 0 (with a finite x) is a zero; otherwise a
    sign change from a nonzero finite sample to a finite one is a zero where the straight line
    between them is 0."""
    out = []
    for i in range(len(y)):
        if y[i] == 0 and math.isfinite(x[i]):
            out.append(float(x[i]))
        elif i and math.isfinite(y[i - 1]) and math.isfinite(y[i]) and y[i - 1] != 0:
            if (y[i - 1] < 0) == (y[i] < 0):
                continue  # no sign change
            t = y[i - 1] / (y[i - 1] - y[i])
            out.append(float(x[i - 1] + t * (x[i] - x[i - 1])))
    return out


def test_zero_crossings_follow_the_rule_sample_by_sample() -> None:
    """Random curves with exact zeros, runs of zeros, gaps (NaN), infinities, huge values of
    opposite signs and x that are not finite: the same points, in the same order, to the bit."""
    rng = np.random.default_rng(7)
    specials = [0.0, 0.0, np.nan, np.inf, -np.inf, 1e308, -1e308, -0.0]
    for _ in range(300):
        n = int(rng.integers(0, 40))
        y = rng.normal(size=n) * 10.0 ** rng.integers(-3, 4)
        x = np.sort(rng.uniform(-5, 5, size=n))
        for k in rng.integers(0, max(n, 1), size=min(n, 6)):
            y[k] = specials[int(rng.integers(len(specials)))]
        if n and rng.random() < 0.2:
            x[int(rng.integers(n))] = np.nan
        with np.errstate(all="ignore"):
            expected = _crossings_one_by_one(x, y)
        found = zero_crossings(x, y)
        assert len(found) == len(expected)
        assert all(
            a == b or (math.isnan(a) and math.isnan(b))
            for a, b in zip(found, expected, strict=True)
        )


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
