"""The derivatives chart's y-axis: cut near a pole (1/x stretched it to 1e14 and flattened every
curve), left alone for the smooth presets, with the intervals the page names."""

from __future__ import annotations

import numpy as np
import pytest

from hograd_core import parse
from hograd_core.nested_autograd import derivatives
from hograd_ui.chart_range import SPREAD, chart_range, intervals

XS = np.linspace(-3, 3, 1000)
SMOOTH = ["x**3", "sin(x)*exp(-x^2)", "tanh(x)", "1/(1+x^2)", "log(1+x^2)", "exp(x)"]


def _rows(text: str, order: int) -> np.ndarray:
    return derivatives(parse(text), XS, order, method="taylor").values


@pytest.mark.parametrize("text", SMOOTH)
@pytest.mark.parametrize("separate", [False, True])
def test_smooth_functions_keep_their_full_range(text: str, separate: bool) -> None:
    ranges = chart_range(XS, _rows(text, 10), separate=separate)
    assert not ranges.cut and ranges.beyond == ()


def test_a_pole_cuts_the_axis_to_the_bulk_and_says_where() -> None:
    rows = _rows("1/x", 4)
    assert np.nanmax(np.abs(rows)) > 1e13  # what an uncut axis had to show
    ranges = chart_range(XS, rows)
    low, high = ranges.panels[0]
    inside = (rows >= low) & (rows <= high)
    assert inside.mean() > 0.9  # the bulk of every curve is drawn
    assert high - low < np.nanmax(np.abs(rows)) / SPREAD
    ((a, b),) = ranges.beyond  # one interval, around the pole at 0
    assert a < 0 < b and b - a < 1.0
    assert ranges.peak == pytest.approx(np.nanmax(np.abs(rows)))


def test_each_panel_gets_its_own_range() -> None:
    ranges = chart_range(XS, _rows("1/x", 3), separate=True)
    assert len(ranges.panels) == 4 and ranges.panels[0] is None  # 1/x alone reads fine
    assert all(p is not None for p in ranges.panels[1:])
    assert ranges.f_beyond == ()


def test_intervals_are_runs_of_the_mask() -> None:
    xs = np.arange(6.0)
    assert intervals(xs, [True, True, False, False, True, False]) == ((0.0, 1.0), (4.0, 4.0))
    assert intervals(xs, [False] * 6) == ()
