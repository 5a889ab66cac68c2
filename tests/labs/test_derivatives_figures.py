"""The derivatives lab's presentation: the inspector's cells keep the sign of an infinity and
show NaN as NaN (not blank, not a dash); the chart's cut axis and the Taylor chart's radius
lines are where the core put them."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hograd_core import derivatives, parse
from hograd_core.inspector_exact import inspect_point
from hograd_labs.derivatives.chart import derivatives_figure
from hograd_labs.derivatives.compute import delta
from hograd_labs.derivatives.figures import cell, taylor_figure
from hograd_ui.chart_range import chart_range


def test_cells_keep_the_sign_of_infinity_and_name_nan() -> None:
    """sqrt(x) at 0: the core (and torch) give 0, inf, -inf, inf; the cells say so."""
    rows = inspect_point(parse("sqrt(x)"), 0.0, 3).rows
    values = [r.taylor for r in rows]
    assert values == [0.0, math.inf, -math.inf, math.inf]
    assert [cell(v) for v in values] == ["0", "∞", "-∞", "∞"]
    assert [cell(r.autograd) for r in rows] == ["0", "∞", "-∞", "∞"]
    assert cell(math.nan) == "NaN" and cell(None) is None  # None: not computed, a dash
    assert cell(-1234.56789012345678) == "-1234.56789012"  # 12 significant digits
    assert cell(1.5e-9, ".1e") == "1.5e-09"


@pytest.mark.parametrize(
    ("value", "exact", "want"),
    [
        (1.0, 1.5, 0.5),
        (math.inf, math.inf, 0.0),
        (math.nan, math.nan, 0.0),
        (math.nan, 0.0, math.nan),
        (math.inf, 1.0, math.inf),
        (None, 1.0, None),
        (1.0, None, None),
    ],
)
def test_delta_is_zero_only_where_the_values_are_the_same(
    value: float | None, exact: float | None, want: float | None
) -> None:
    got = delta(value, exact)
    assert got is None if want is None else (math.isnan(got) if math.isnan(want) else got == want)


def test_the_cut_axis_reaches_the_figure() -> None:
    xs = np.linspace(-3, 3, 1000)
    result = derivatives(parse("1/x"), xs, 3, method="taylor")
    one = chart_range(xs, result.values)
    layout = derivatives_figure(result, "en", ranges=one).to_dict()["layout"]
    assert layout["yaxis"]["range"] == list(one.panels[0])
    each = chart_range(xs, result.values, separate=True)
    layout = derivatives_figure(result, "en", separate=True, ranges=each).to_dict()["layout"]
    assert "range" not in layout["yaxis"]  # f = 1/x alone reads as it is
    assert layout["yaxis2"]["range"] == list(each.panels[1])


def test_radius_lines_fall_at_x0_plus_and_minus_r_inside_the_range() -> None:
    xs = np.linspace(-3, 3, 200)
    f = 1 / (1 + xs**2)
    fig = taylor_figure(xs, f, f, 0.5, 0.8, 4, "x", "en", radius=math.hypot(0.5, 1)).to_dict()
    lines = sorted(s["x0"] for s in fig["layout"]["shapes"])
    assert lines == pytest.approx([0.5 - math.hypot(0.5, 1), 0.5 + math.hypot(0.5, 1)])
    assert any("radius of convergence" in (t.get("name") or "") for t in fig["data"])
    wide = taylor_figure(xs, f, f, 0.5, 0.8, 4, "x", "en", radius=10.0).to_dict()
    assert wide["layout"]["shapes"] == []  # beyond the range: no line, no legend entry
    assert not any("radius" in (t.get("name") or "") for t in wide["data"])


def test_the_projector_setting_is_the_figures_argument() -> None:
    """Each figure of the page is drawn for a projector when the chart says so (``drawn``):
    projector sizing is for_projector of the same figure drawn without it."""
    from hograd_core.inspector import CostProfile
    from hograd_labs.derivatives.figures import cost_figure
    from hograd_ui.plotting import drawn, for_projector

    xs = np.linspace(-3, 3, 50)
    result = derivatives(parse("tanh(x)"), xs, 3, method="taylor")
    profile = CostProfile(
        points=50,
        low=-3.0,
        high=3.0,
        orders=(0, 1),
        nodes=(1, 4),
        autograd_ms=(0.1, 0.2),
        autograd_mb=(0.0, 0.0),
        taylor_ms=(0.1, 0.1),
        sympy_ms=(1.0, 2.0),
        sympy_ops=(1, 3),
        autograd_runs=3,
        taylor_runs=5,
    )
    builders = [
        lambda: derivatives_figure(result, "en", x0=0.5),
        lambda: taylor_figure(xs, result.values[0], result.values[0], 0.5, 0.46, 3, "x", "zh"),
        lambda: cost_figure(profile, "en"),
    ]
    for build in builders:
        plain = drawn(build(), False)
        assert plain["layout"]["height"] in (420, 520)  # not the projector's 1.25x
        assert drawn(build(), True) == for_projector(plain)
