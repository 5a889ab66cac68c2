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


# ---- the HVP page's 3-D surface, told from its grid --------------------------------------

#: (text, the same f in numpy, p, radius): f's lowest and highest values on the grid lie in
#: different places for each, so a description that did not come from the grid fails.
SURFACES = [
    ("w1**2*sin(w2)", lambda x, y: x**2 * np.sin(y), (1.0, math.pi / 2), 1.5),  # the seed
    ("x^2 - y^2", lambda x, y: x**2 - y**2, (0.5, -0.25), 1.0),
    ("(x - 1)^2 + (y + 0.5)^2", lambda x, y: (x - 1) ** 2 + (y + 0.5) ** 2, (0.0, 0.0), 2.0),
]


def _num(v: float) -> str:  # as the description writes a number (3 significant digits)
    return f"{v:.3g}".replace("e+0", "e").replace("e-0", "e-")


def _surface(text: str, p: tuple, radius: float, lang: str):
    from hograd_core import curvature, parse
    from hograd_labs.hvp import figures

    fn = parse(text)
    ex = curvature.explore(fn, p, (1.0, 0.0), radius=radius, with_ways=False)
    return ex, figures.surface_figure(ex.grid, ex.result, lang, fn.text)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(("text", "f", "p", "radius"), SURFACES, ids=[s[0] for s in SURFACES])
def test_the_surface_is_told_from_its_grid(text, f, p, radius, lang: str) -> None:
    """The name says which function; the description gives the ranges of both variables and
    where f is lowest and highest on the grid, and where p is with f(p): every number checked
    against numpy evaluating f on the same grid's coordinates."""
    from hograd_ui.parts.chart import bundle
    from hograd_ui.plotting import drawn

    ex, fig = _surface(text, p, radius, lang)
    a, b = ex.result.variables
    xs, ys = np.meshgrid(ex.grid.x, ex.grid.y)  # z[j, i] = f(x[i], y[j])
    z = f(xs, ys)
    j_low, i_low = np.unravel_index(np.argmin(z), z.shape)
    j_high, i_high = np.unravel_index(np.argmax(z), z.shape)
    for projector in (False, True):  # what chart() describes, on a laptop and projected
        spec = drawn(fig, projector)
        assert bundle(spec) == "gl3d"
        name, said = describe(spec, lang)
        assert text in name
        assert (
            f"{a} = {_num(ex.grid.x[i_low])}" in said and f"{b} = {_num(ex.grid.y[j_low])}" in said
        )
        if lang == "en":
            assert f"{a} from {_num(ex.grid.x[0])} to {_num(ex.grid.x[-1])}" in said
            assert f"{b} from {_num(ex.grid.y[0])} to {_num(ex.grid.y[-1])}" in said
            assert "81 by 81 values" in said
            low = f"the lowest, {_num(z.min())}, at {a} = {_num(ex.grid.x[i_low])}, "
            high = f"the highest, {_num(z.max())}, at {a} = {_num(ex.grid.x[i_high])}, "
            assert low + f"{b} = {_num(ex.grid.y[j_low])}" in said
            assert high + f"{b} = {_num(ex.grid.y[j_high])}" in said
            point = f"p: at {a} = {_num(p[0])}, {b} = {_num(p[1])}, f = {_num(f(*p))}."
            assert point in said
            assert said.startswith(f"Axes: {a} and {b} across, f up.")
        else:
            assert f"{a} 从 {_num(ex.grid.x[0])} 到 {_num(ex.grid.x[-1])}" in said
            assert f"最小值为 {_num(z.min())}，位于 {a} = {_num(ex.grid.x[i_low])}、" in said
            assert f"最大值为 {_num(z.max())}，位于 {a} = {_num(ex.grid.x[i_high])}、" in said
            assert f"p：位于 {a} = {_num(p[0])}、{b} = {_num(p[1])}、f = {_num(f(*p))}。" in said


def test_the_surface_draws_fs_own_values_and_cuts_at_the_percentiles() -> None:
    """The surface holds f on the grid unclipped (the description reads it), the z axis and
    the colours span the 1st to 99th percentiles as the drawing did when it clipped z."""
    ex, fig = _surface("x^2 - y^2", (0.0, 0.0), 1.5, "en")
    surface = fig.to_dict()["data"][0]
    np.testing.assert_array_equal(np.asarray(fig.data[0].z, dtype=float), ex.grid.z)
    lo, hi = np.percentile(ex.grid.z, [1, 99])
    assert fig.to_dict()["layout"]["scene"]["zaxis"]["range"] == pytest.approx([lo, hi])
    assert (surface["cmin"], surface["cmax"]) == pytest.approx((lo, hi))


def test_a_grid_tells_where_it_is_lowest_and_highest_and_a_point_where_it_is() -> None:
    x, y = np.linspace(-2, 2, 5), np.linspace(0, 3, 4)
    z = np.add.outer(y, x) * 1.0  # z[j, i] = y[j] + x[i]
    z[1, 1] = np.nan  # a gap is skipped
    fig = go.Figure(
        [
            go.Contour(x=x, y=y, z=z, name="g"),
            go.Scatter(x=[0.5], y=[2.0], name="q", mode="markers"),
            go.Scatter(x=[0, 1], y=[0, 1], name="hidden", mode="markers", marker={"opacity": 0}),
        ],
        {"xaxis": {"title": {"text": "u"}}, "yaxis": {"title": {"text": "v"}}},
    )
    said = describe(fig.to_dict())[1]
    assert "u from -2 to 2 and v from 0 to 3" in said
    assert "the lowest, -2, at u = -2, v = 0" in said and "the highest, 5, at u = 2, v = 3" in said
    assert "q: at u = 0.5, v = 2." in said and "hidden" not in said


def test_the_grid_csv_reads_back_as_the_grid() -> None:
    import io

    from hograd_ui.csv_tables import grid_csv

    ex, _ = _surface("w1**2*sin(w2)", (1.0, math.pi / 2), 1.5, "en")
    text = grid_csv(ex.grid.x, ex.grid.y, ex.grid.z, ex.result.variables)
    assert text.splitlines()[0] == "w1,w2,f"
    rows = np.loadtxt(io.StringIO(text), delimiter=",", skiprows=1)
    assert rows.shape == (ex.grid.z.size, 3)
    np.testing.assert_array_equal(rows[:, 2], ex.grid.z.ravel())  # z[j, i], x fastest
    np.testing.assert_array_equal(rows[:81, 0], ex.grid.x)
    np.testing.assert_array_equal(rows[::81, 1], ex.grid.y)
