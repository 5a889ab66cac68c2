"""The app's colours against WCAG 2.1 and colour-vision deficiency, from their hex values.

Contrast is WCAG's relative-luminance ratio. Deuteranopia and protanopia are simulated with
Machado, Oliveira and Fernandes (2009)'s matrices at severity 1.0, applied in linear sRGB;
colours are compared by their CIELAB distance (ΔE76, D65).
"""

from __future__ import annotations

import importlib
import itertools
import math
import re
from pathlib import Path

import numpy as np
import pytest

from hograd_labs.curvature import figures as curvature
from hograd_labs.derivatives.chart import DASHES, PALETTE
from hograd_labs.hf import figures as hf
from hograd_labs.hvp import figures as hvp
from hograd_labs.maml import figures as maml
from hograd_labs.newton import figures as newton
from hograd_labs.pinn import figures as pinn
from hograd_labs.stability import figures as stability
from hograd_ui import plot_kit
from hograd_ui.parts import a11y

WHITE, SIDEBAR = "#ffffff", "#f0f2f6"  # the page and Streamlit's sidebar (secondary) background
PROTANOPIA = np.array(
    [
        [0.152286, 1.052583, -0.204868],
        [0.114503, 0.786281, 0.099216],
        [-0.003882, -0.048116, 1.051998],
    ]
)
DEUTERANOPIA = np.array(
    [
        [0.367322, 0.860646, -0.227968],
        [0.280085, 0.672501, 0.047413],
        [-0.011820, 0.042940, 0.968881],
    ]
)
_XYZ = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
_WHITE_XYZ = np.array([0.95047, 1.0, 1.08883])


def linear(colour: str) -> np.ndarray:
    """sRGB hex to linear RGB in [0, 1]."""
    c = np.array([int(colour.lstrip("#")[i : i + 2], 16) / 255 for i in (0, 2, 4)])
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def contrast(a: str, b: str) -> float:
    """WCAG 2.1's contrast ratio (L1 + 0.05) / (L2 + 0.05)."""
    la, lb = sorted(float(linear(c) @ [0.2126, 0.7152, 0.0722]) for c in (a, b))
    return (lb + 0.05) / (la + 0.05)


def lab(rgb: np.ndarray) -> np.ndarray:
    """Linear RGB to CIELAB (D65)."""
    x = _XYZ @ np.clip(rgb, 0, 1) / _WHITE_XYZ
    f = np.where(x > 216 / 24389, np.cbrt(x), (24389 / 27 * x + 16) / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def seen(colour: str, vision: np.ndarray | None) -> np.ndarray:
    rgb = linear(colour)
    return lab(rgb if vision is None else vision @ rgb)


def test_the_oracles_on_known_values() -> None:
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)  # WebAIM's example
    assert contrast("#E69F00", WHITE) == pytest.approx(2.25, abs=0.01)  # the audit
    # red and green, far apart for normal vision, come close for a deuteranope and a protanope
    red, green = "#d62728", "#2ca02c"
    apart = np.linalg.norm(seen(red, None) - seen(green, None))
    for vision in (DEUTERANOPIA, PROTANOPIA):
        assert np.linalg.norm(seen(red, vision) - seen(green, vision)) < apart / 3


def test_every_curve_colour_stands_out_from_the_page() -> None:
    for colour in PALETTE:
        assert contrast(colour, WHITE) >= 3.0, colour  # WCAG 1.4.11: graphical objects


@pytest.mark.parametrize(
    "vision", [None, DEUTERANOPIA, PROTANOPIA], ids=["normal", "deutan", "protan"]
)
def test_curve_colours_stay_apart_for_colour_blind_eyes(vision: np.ndarray | None) -> None:
    for a, b in itertools.combinations(PALETTE, 2):
        assert np.linalg.norm(seen(a, vision) - seen(b, vision)) >= 20, (a, b)


def test_colour_and_dash_together_tell_orders_apart() -> None:
    styles = [(PALETTE[k % len(PALETTE)], DASHES[k % len(DASHES)]) for k in range(42)]
    assert len(set(styles)) == 42
    assert len(set(DASHES)) == len(DASHES)  # and a reader without colour: 6 dashes in a row


#: The colours that tell one figure's series apart (or mean the same thing across a lab's
#: figures), as each lab names them.
FIGURE_COLOURS = {
    "hvp: ∇f, v, Hv, e1, e2, blue": (
        hvp.GRADIENT,
        hvp.VECTOR,
        hvp.HV,
        *hvp.EIGEN,
        plot_kit.BLUE,
    ),
    "hf: methods": tuple(hf.COLORS.values()),
    "maml: methods": tuple(maml.COLORS.values()),
    "newton: methods": tuple(newton.COLORS.values()),
    "curvature: exact, estimate, momentum, gd": (
        curvature.EXACT,
        curvature.ESTIMATE,
        curvature.MOMENTUM,
        curvature.GD,
    ),
    "curvature: G and H": (curvature.GGN, curvature.HESS),
    "stability: gd, sharpness": (stability.GD, stability.SHARPNESS),
    "pinn: loss terms": tuple(pinn.TERM_COLORS.values()),
}


@pytest.mark.parametrize("name", list(FIGURE_COLOURS))
def test_each_figures_series_colours_are_checked(name: str) -> None:
    """Every figure's series colours, as the derivative curves': 3:1 on white and 20 CIELAB
    units apart for normal, deuteranope and protanope vision. Each set fails with the colours
    the labs had before: the orange of four of them, #ff7f0e, is 2.53:1; for a deuteranope the
    red #d62728 and the green #2ca02c are 7.3 apart, the HF lab's SGD blue and Adam purple 8.0."""
    colours = FIGURE_COLOURS[name]
    assert len(set(colours)) == len(colours)
    for colour in colours:
        assert contrast(colour, WHITE) >= 3.0, colour
    for vision in (None, DEUTERANOPIA, PROTANOPIA):
        for a, b in itertools.combinations(colours, 2):
            assert np.linalg.norm(seen(a, vision) - seen(b, vision)) >= 20, (a, b)


@pytest.mark.parametrize(
    ("colours", "dashes"),
    [
        (hf.COLORS, hf.DASH),
        (newton.COLORS, newton.DASH),
        (maml.COLORS, maml._DASH),
        (pinn.TERM_COLORS, pinn.TERM_DASHES),
    ],
    ids=["hf", "newton", "maml", "pinn"],
)
def test_lines_that_share_a_plot_differ_by_dash_too(colours: dict, dashes: dict) -> None:
    """WCAG 1.4.1: a reader who sees no colour tells the methods' lines apart by their dash,
    and the legend draws each line's dash beside its name."""
    assert set(dashes) == set(colours)
    assert len(set(dashes.values())) == len(dashes)
    assert set(dashes.values()) <= set(plot_kit.DASHES)


def test_the_wgan_curves_axes_are_told_by_readable_colours() -> None:
    """The WGAN tab's two lines, each on its own y axis whose tick labels take its colour: read
    from the figure, the tick text 4.5:1 on white (WCAG 1.4.3), each line's colour its axis's,
    the two apart for every vision, the penalty dashed."""
    from types import SimpleNamespace

    from hograd_labs.wgan.figures import curves_figure

    run = SimpleNamespace(wasserstein=np.linspace(1, 0, 5), penalty=np.linspace(0, 9, 5))
    spec = curves_figure(run, "en").to_dict()
    lines = [t["line"] for t in spec["data"]]
    ticks = [spec["layout"][a]["tickfont"]["color"] for a in ("yaxis", "yaxis2")]
    assert [line["color"] for line in lines] == ticks
    for colour in ticks:
        assert contrast(colour, WHITE) >= 4.5, colour
    for vision in (None, DEUTERANOPIA, PROTANOPIA):
        assert np.linalg.norm(seen(ticks[0], vision) - seen(ticks[1], vision)) >= 20
    assert lines[0].get("dash", "solid") != lines[1].get("dash", "solid")


def test_the_derivative_curves_use_the_kits_palette() -> None:
    assert PALETTE is plot_kit.PALETTE and DASHES is plot_kit.DASHES


def test_text_and_focus_colours_meet_wcag() -> None:
    for background in (WHITE, SIDEBAR):
        assert contrast(a11y.CAPTION, background) >= 4.5  # 1.4.3: text
        assert contrast(a11y.CAPTION_CODE, background) >= 4.5
        assert contrast(a11y.DISABLED, background) >= 4.5
        assert contrast(a11y.FOCUS, background) >= 3.0  # 1.4.11: the focus ring


def _font_colours(values: dict, path: str = "") -> list[tuple[str, str]]:
    """Every ``font.color`` (and ``tickfont.color``) in a plotly layout, with its path."""
    out = []
    for key, value in values.items():
        here = f"{path}.{key}" if path else key
        if isinstance(value, dict):
            out += _font_colours(value, here)
        elif key == "color" and path.rsplit(".", 1)[-1] in ("font", "tickfont"):
            out.append((here, value))
    return out


def test_chart_text_as_sent_is_readable() -> None:
    """The tick labels, axis titles and other grey text of a chart, read from the figure as
    the page sends it (themed): 4.5:1 or more on the chart's white (WCAG 1.4.3); Streamlit's
    own grey, #808495, is 3.72:1."""
    from hograd_ui.parts.chart import PRESENT_PX, themed
    from hograd_ui.plotting import plain_figure

    assert contrast("#808495", WHITE) == pytest.approx(3.72, abs=0.01)  # the audit
    fig = plain_figure([{"type": "scatter", "x": [0, 1], "y": [0, 1]}], title={"text": "t"})
    for base in (None, PRESENT_PX):
        spec = themed(fig.to_dict()) if base is None else themed(fig.to_dict(), base)
        layout = spec["layout"]["template"]["layout"]
        colours = _font_colours(layout)
        assert {"xaxis.tickfont.color", "yaxis.tickfont.color"} <= {p for p, _ in colours}
        for path, colour in colours:
            assert contrast(colour, layout["plot_bgcolor"]) >= 4.5, (path, colour)
            assert contrast(colour, layout["paper_bgcolor"]) >= 4.5, (path, colour)


def _dot_attrs(dot: str, name: str) -> dict[str, str]:
    body = re.search(rf'"{re.escape(name)}" \[(.*?)\]\n', dot, re.S).group(1)
    return dict(re.findall(r'(\w+)="?(#[0-9a-fA-F]{6}|[\w,]+)"?', body))


def test_the_pass_borders_stand_out_from_the_page_and_their_fill() -> None:
    """The lines of a node's border, which tell its pass (WCAG 1.4.1), are graphical objects
    (1.4.11): 3:1 or more against the page, which shows between a border's lines, and against
    the node's own fill, inside the first line; so is the newest pass's outline."""
    from hograd_core.graph_dot import NEW, PASS_BORDERS, PASS_COLOURS

    for k, (line, fill) in enumerate(zip(PASS_BORDERS, PASS_COLOURS, strict=True)):
        assert contrast(line, WHITE) >= 3.0, k
        assert contrast(line, fill) >= 3.0, k
        assert contrast(NEW, fill) >= 3.0, k
    assert contrast(NEW, WHITE) >= 3.0


def test_a_freed_saved_tensor_is_outlined_and_labelled_readably() -> None:
    """A freed saved tensor as the drawing writes it (hograd_core.graph_dot): its dashed
    outline 3:1 or more against its own fill and the page (WCAG 1.4.11; it was #9ca3af,
    2.54:1), its text 4.5:1 on its fill (1.4.3); the dashed edge of a saved tensor 3:1."""
    from hograd_core.graph_dot import tensor_dot
    from hograd_core.graph_trace import GraphEdge, GraphNode, TensorGraph

    nodes = (
        GraphNode("p0_0", "op", 0, "PowBackward0"),
        GraphNode("p0_0.self", "saved", 0, "self", freed=True),
    )
    graph = TensorGraph(nodes, (GraphEdge("p0_0.self", "p0_0", saved=True),), ("y",), (1,), (0,))
    dot = tensor_dot(graph)
    freed = _dot_attrs(dot, "p0_0.self")
    assert "dashed" in freed["style"]
    for background in (WHITE, freed["fillcolor"]):
        assert contrast(freed["color"], background) >= 3.0, (freed["color"], background)
    assert contrast(freed["fontcolor"], freed["fillcolor"]) >= 4.5
    edge = next(ln for ln in dot.splitlines() if "->" in ln and "p0_0.self" in ln)
    assert contrast(re.search(r'color="(#\w{6})"', edge).group(1), WHITE) >= 3.0


def test_the_3d_surface_and_the_growth_line_are_readable() -> None:
    """The HVP page's 3-D surface, drawn by Streamlit's own chart (whose theme greys its scene
    text at #808495, 3.72:1), sets its axis titles and ticks at 4.5:1 or more; the graph lab's
    growth line is a graphical object at 3:1 or more (it was #9ca3af, 2.54:1)."""
    from hograd_core import curvature, parse
    from hograd_core.graphs import graph_lab
    from hograd_labs.graph.figures import growth_figure
    from hograd_labs.hvp.figures import surface_figure

    ex = curvature.explore(parse("w1**2*sin(w2)"), (1.0, math.pi / 2), (0.5, 1.0), power_steps=5)
    layout = surface_figure(ex.grid, ex.result, "en").to_dict()["layout"]
    colours = _font_colours(layout["scene"])
    assert {p for p, _ in colours} == {
        f"{a}axis.{k}.color" for a in "xyz" for k in ("tickfont", "title.font")
    }
    assert all(contrast(c, WHITE) >= 4.5 for _, c in colours), colours
    line = growth_figure(graph_lab(parse("tanh(x)"), 0.7).stats, 3, "en").figure().data[0]
    assert contrast(line.line.color, WHITE) >= 3.0


# The figures whose series were told apart by colour alone, each built as its lab builds it
# (from a small stand-in for the lab's run): every series' colour at 3:1 or more on white and
# apart from the others for every vision, and a second cue (dash, marker symbol, hatching or
# axis title) that tells them apart without colour.


def _apart(colours: list[str]) -> None:
    """3:1 on white each, and 20 CIELAB units apart for normal, deutan and protan vision."""
    for colour in colours:
        assert contrast(colour, WHITE) >= 3.0, colour
    for vision in (None, DEUTERANOPIA, PROTANOPIA):
        for a, b in itertools.combinations(colours, 2):
            assert np.linalg.norm(seen(a, vision) - seen(b, vision)) >= 20, (a, b)


def _hex(colour: str) -> str:
    """Plotly's ``rgb(r, g, b)`` or a hex colour, as 6-digit hex."""
    if colour.startswith("#"):
        return colour if len(colour) == 7 else "#" + "".join(2 * c for c in colour[1:])
    r, g, b = (round(float(v)) for v in re.findall(r"[\d.]+", colour)[:3])
    return f"#{r:02x}{g:02x}{b:02x}"


def _over(colour: str, background: str, opacity: float) -> str:
    """``colour`` drawn at ``opacity`` over ``background``, as the eye gets it (sRGB mix)."""
    a, b = (
        np.array([int(_hex(c)[i : i + 2], 16) for i in (1, 3, 5)]) for c in (colour, background)
    )
    return "#" + "".join(f"{round(v):02x}" for v in opacity * a + (1 - opacity) * b)


@pytest.mark.parametrize("text", ["w1**2*sin(w2)", "x^2*y + z^3"])
def test_every_line_of_power_iteration_stands_out(text: str) -> None:
    """Every line, marker and bar of the HVP page's power iteration, in every frame, at 3:1 or
    more on white: its reference lines too (the unit circle of two variables, the whole path
    of the Rayleigh quotient under the animated one), which were #bbbbbb and #cccccc."""
    from hograd_core import curvature, parse

    fn = parse(text)
    point = tuple(1.0 for _ in fn.variables)
    vector = tuple(0.5 for _ in fn.variables)
    ex = curvature.explore(fn, point, vector, power_steps=5)
    figure = hvp.power_figure(ex.power, fn.variables, "en").to_dict()
    traces = [*figure["data"], *(t for frame in figure["frames"] for t in frame["data"])]
    colours = {
        _hex(part["color"])
        for trace in traces
        for part in (trace.get("line", {}), trace.get("marker", {}))
        if isinstance(part.get("color"), str)
    }
    assert hvp.REFERENCE in colours or len(fn.variables) != 2
    assert colours and all(contrast(c, WHITE) >= 3.0 for c in colours), colours


def test_the_pinn_slices_differ_by_colour_and_marker() -> None:
    """The PINN tab's five times: the palette's colours (they were sequential blues to reds,
    #2171b5 and #6a51a3 6.3 apart for a deuteranope; #08306b and #2171b5 close too) and a
    marker each, filled on the network's line and open on the exact solution's (dashed)."""
    from types import SimpleNamespace

    xs = np.linspace(0, 1, 41)
    u = np.outer(np.linspace(1, 0.2, 41), np.sin(np.pi * xs))
    run = SimpleNamespace(xs=xs, ts=np.linspace(0, 1, 41), u=u, exact=u + 1e-3)
    data = pinn.slices_figure(run, "en").to_dict()["data"]
    network, exact = data[0::2], data[1::2]
    assert len(network) == len(exact) == len(pinn.SLICES)
    _apart([t["line"]["color"] for t in network])
    symbols = [t["marker"]["symbol"] for t in network]
    assert len(set(symbols)) == len(symbols) and all(t["mode"] == "lines+markers" for t in data)
    for net, ex, symbol in zip(network, exact, symbols, strict=True):
        assert net["line"]["color"] == ex["line"]["color"] and net.get("showlegend", True)
        assert net["line"].get("dash", "solid") == "solid" and ex["line"]["dash"] == "dash"
        assert ex["marker"]["symbol"] == f"{symbol}-open"


def test_the_curvature_momentum_traces_share_no_dash_or_marker() -> None:
    """The curvature tab's heavy ball (red) and plain descent (blue) along each eigenvector:
    no dash and no marker shared between the two methods (both were solid along the largest
    eigenvalue and dotted along the other, with the same round markers)."""
    from types import SimpleNamespace

    k = np.arange(30)[:, None]
    decay = {"momentum": 0.5**k * np.ones((1, 2)), "gd": 0.8**k * np.ones((1, 2))}
    run = SimpleNamespace(
        config=SimpleNamespace(beta=0.9, lr=0.1),
        eigenvalues=np.array([1.0, 10.0]),
        components=decay,
        closed_form=decay,
    )
    data = curvature.momentum_figure(run, "en").to_dict()["data"]
    by_colour: dict[str, dict[str, set]] = {}
    for trace in data:
        drawn = trace["line"] if trace["mode"] == "lines" else trace["marker"]
        cues = by_colour.setdefault(drawn["color"], {"d": set(), "m": set()})
        if trace["mode"] == "lines":
            cues["d"].add(trace["line"].get("dash", "solid"))
        else:
            cues["m"].add(trace["marker"].get("symbol", "circle"))
    assert len(by_colour) == 2
    _apart(list(by_colour))
    first, second = by_colour.values()
    assert first["d"].isdisjoint(second["d"]) and first["m"].isdisjoint(second["m"])


def test_the_curvature_histogram_and_its_lines_stand_out() -> None:
    """The curvature tab's density chart: the histogram's bars opaque and 3:1 on white (they
    were #bbbbbb at opacity 0.8, 1.92:1 before the opacity); the two density lines 3:1 on
    white and on the bars they cross, a dash each, apart from each other and the bars."""
    from types import SimpleNamespace

    grid = np.linspace(-1, 5, 200)
    density = np.exp(-(grid**2))
    spectra = SimpleNamespace(
        hessian=np.array([-0.2, 0.0, 0.1, 0.3, 4.0]),
        grid=grid,
        density=density,
        exact_density=density,
        nodes=np.zeros((3, 8)),
        regions=SimpleNamespace(bulk=(-0.5, 0.5), outliers=(4.0,), negative_mass=0.2),
    )
    bars, *lines = curvature.density_figure(spectra, "en").to_dict()["data"]
    assert bars["type"] == "histogram" and bars.get("opacity", 1) == 1
    bar = bars["marker"]["color"]
    colours = [t["line"]["color"] for t in lines]
    _apart([bar, *colours])
    for colour in colours:
        assert contrast(colour, bar) >= 3.0, colour
    assert len({t["line"].get("dash", "solid") for t in lines}) == len(lines)


def _scale(scale: object, samples: int = 41) -> list[str]:
    """A plotly colour scale (a name or [[position, colour], ...]) at ``samples`` even points."""
    from plotly.colors import get_colorscale, sample_colorscale

    stops = get_colorscale(scale) if isinstance(scale, str) else scale
    return [_hex(c) for c in sample_colorscale(stops, list(np.linspace(0, 1, samples)))]


def test_the_wgan_points_differ_by_shape_and_stand_out_on_the_critic() -> None:
    """The WGAN tab's data and generated points: a marker symbol each, their colours apart for
    every vision, and each point 3:1 or more, by its fill (at its opacity) or its outline, on
    every colour of the critic's contour behind it (at the contour's opacity over white). They
    were grey dots at opacity 0.6 (1.6:1 on the scale's blue) and red dots outlined white
    (2.3:1 on its light blue)."""
    from types import SimpleNamespace

    from hograd_labs.wgan.figures import points_figure

    pts = np.zeros((4, 2))
    run = SimpleNamespace(
        critic=[np.zeros((5, 5))], grid=np.linspace(-2, 2, 5), real=pts, fake=[pts]
    )
    contour, *points = points_figure(run, 0, "en").to_dict()["data"]
    behind = [_over(c, WHITE, contour.get("opacity", 1)) for c in _scale(contour["colorscale"])]
    markers = [p["marker"] for p in points]
    assert len({m.get("symbol", "circle") for m in markers}) == len(markers) == 2
    _apart([m["color"] for m in markers])
    for m in markers:
        assert contrast(_over(m["color"], WHITE, m.get("opacity", 1)), WHITE) >= 3.0
        outline = (m.get("line") or {}).get("color")
        for colour in behind:
            fill = contrast(_over(m["color"], colour, m.get("opacity", 1)), colour)
            edge = contrast(outline, colour) if outline and m["line"].get("width", 0) >= 1 else 0
            assert max(fill, edge) >= 3.0, (m, colour)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_wgan_curves_axes_are_titled_by_their_lines(lang: str) -> None:
    """The WGAN tab's two y axes: each titled (they had ticks in their line's colour only),
    the two titles different and in the line's colour, 4.5:1 as text."""
    from types import SimpleNamespace

    from hograd_labs.wgan.figures import curves_figure
    from hograd_ui.i18n import tr

    run = SimpleNamespace(wasserstein=np.linspace(1, 0, 5), penalty=np.linspace(0, 9, 5))
    spec = curves_figure(run, lang).to_dict()
    titles = [spec["layout"][a].get("title") or {} for a in ("yaxis", "yaxis2")]
    assert [t.get("text") for t in titles] == [
        tr("wgan.fig.gap_axis", lang),
        tr("wgan.fig.penalty_axis", lang),
    ]
    assert titles[0]["text"] != titles[1]["text"]
    for title, line in zip(titles, spec["data"], strict=True):
        assert title["font"]["color"] == line["line"]["color"]
        assert contrast(title["font"]["color"], WHITE) >= 4.5


def _bar_cues(data: list[dict]) -> None:
    """Bars of two series side by side: colours checked, and one hatched, the other not."""
    _apart([t["marker"]["color"] for t in data])
    shapes = [(t["marker"].get("pattern") or {}).get("shape", "") for t in data]
    assert len(set(shapes)) == len(shapes), shapes
    for trace in data:
        pattern = trace["marker"].get("pattern") or {}
        if pattern.get("shape"):  # hatching thin enough to leave the bar its colour
            assert pattern.get("solidity", 0.3) <= 0.3


def test_the_classroom_boards_bars_are_told_apart() -> None:
    """The classroom board's tried and right bars (tried was #9aa5b1, 2.5:1, told from right
    by colour alone); the slips' bars, a series alone, 3:1."""
    from hograd_labs.classroom.compute import StepCounts, Summary
    from hograd_labs.classroom.figures import progress_figure, slips_figure

    summary = Summary(joined=5, steps=(StepCounts(step=1, tried=4, right=2, slips=()),))
    _bar_cues(progress_figure(summary, ["one", "two"], "tried", "right").to_dict()["data"])
    (slips,) = slips_figure([("slip", 3)]).to_dict()["data"]
    assert contrast(slips["marker"]["color"], WHITE) >= 3.0


def test_the_memory_labs_bars_are_told_apart() -> None:
    """The memory lab's saved and held bars: from the kit's palette (they were plotly's
    #1f77b4 and #d62728, not checked) and hatched apart."""
    from types import SimpleNamespace

    from hograd_labs.memory.figures import orders_figure

    run = SimpleNamespace(pass_bytes=(800, 1600, 3200), live_after=(800, 2400, 5600))
    data = orders_figure(run, "en").to_dict()["data"]
    assert {t["marker"]["color"] for t in data} <= set(plot_kit.PALETTE)
    _bar_cues(data)


def _lightness(scale: object, vision: np.ndarray | None) -> np.ndarray:
    """CIELAB L* along a colour scale, as ``vision`` sees it."""
    return np.array([seen(c, vision)[0] for c in _scale(scale)])


def _ordered(scale: object) -> bool:
    """Lightness ordered for normal, deutan and protan vision: rising or falling steadily end to
    end, over 20 L* units at least (a sequential scale), or falling steadily from a lightest
    middle to each end (a diverging one), its two arms told apart without the red-green
    channel: at every equal distance from the middle the same arm is the more yellow one
    (CIELAB b*, the opponent channel deuteranopes and protanopes keep), and its two ends are
    20 CIELAB units apart. Lightness tells a value's distance from the middle, b* its side."""
    colours = _scale(scale)
    mid = len(colours) // 2
    for vision in (None, DEUTERANOPIA, PROTANOPIA):
        lab_values = np.array([seen(c, vision) for c in colours])
        lightness = lab_values[:, 0]
        if lightness[mid] > max(lightness[0], lightness[-1]):
            steps = [np.diff(lightness[: mid + 1]), -np.diff(lightness[mid:])]  # up, then down
            sides = np.sign(lab_values[::-1][:mid, 2] - lab_values[:mid, 2])  # 1 - p against p
            if len(set(sides)) != 1 or np.linalg.norm(lab_values[0] - lab_values[-1]) < 20:
                return False
        else:
            steps = [np.diff(lightness) * np.sign(lightness[-1] - lightness[0])]
            if abs(lightness[-1] - lightness[0]) < 20:
                return False
        if min(s.min() for s in steps) <= 0:
            return False
    return True


def test_the_lightness_oracle_tells_ordered_scales_from_rainbows() -> None:
    """Viridis and ColorBrewer's Blues and RdBu are ordered in lightness; Jet and Rainbow are
    not (their lightness rises and falls more than once). ColorBrewer's diverging scales it
    calls colour-blind safe pass, two it does not (RdYlGn, Spectral) fail."""
    for scale in ("Viridis", "Cividis", "Blues", "RdBu", "RdYlBu", "PiYG", "PRGn", "BrBG", "PuOr"):
        assert _ordered(scale), scale
    for scale in ("Jet", "Rainbow", "RdYlGn", "Spectral"):
        assert not _ordered(scale), scale


def _figure_scales() -> dict[str, object]:
    """Every colour scale the labs' heat maps and contours draw, read from figures as the
    labs build them (from small stand-ins for their runs)."""
    from types import SimpleNamespace

    from hograd_core import curvature as core_curvature
    from hograd_core import parse
    from hograd_labs.stats.figures import BINS, histogram_figure
    from hograd_labs.wgan.figures import points_figure

    ex = core_curvature.explore(
        parse("w1**2*sin(w2)"), (1.0, math.pi / 2), (0.5, 1.0), power_steps=5
    )
    xs = np.linspace(0, 1, 41)
    u = np.outer(np.linspace(1, 0.2, 41), np.sin(np.pi * xs))
    pinn_run = SimpleNamespace(xs=xs, ts=xs, u=u, exact=u * 0.9, residual=u - 0.5)
    pts = np.zeros((4, 2))
    wgan_run = SimpleNamespace(critic=[np.eye(5)], grid=np.linspace(-2, 2, 5), real=pts, fake=[pts])
    stats_run = SimpleNamespace(
        hist_counts=np.ones((1, 2, len(BINS) - 1)), layer_names=("layer 1", "layer 2")
    )
    figures = {
        "hvp contour": hvp.contour_figure(ex.grid, ex.result, "en"),
        "hvp surface": hvp.surface_figure(ex.grid, ex.result, "en"),
        "hvp hessian": hvp.hessian_figure(ex.result, "en"),
        "pinn heat maps": pinn.heatmaps_figure(pinn_run, "en"),
        "wgan critic": points_figure(wgan_run, 0, "en"),
        "stats histogram": histogram_figure(stats_run, 0, "en"),
    }
    return {
        f"{name} {k}": trace["colorscale"]
        for name, fig in figures.items()
        for k, trace in enumerate(fig.to_dict()["data"])
        if "colorscale" in trace
    }


def test_every_colour_scale_is_ordered_in_lightness_for_every_vision() -> None:
    """WCAG 1.4.1 for heat maps and contours: a value's colour must be readable without telling
    hues apart, so each scale's lightness must order its values for normal, deuteranope and
    protanope vision (plotly resolves named scales to stops; each is sampled at 41 points).
    The scales found: the kit's LIGHT (white to ColorBrewer's Blues) and DIVERGING (RdBu's
    ends around a light grey), Viridis, Blues, and the WGAN critic's blue, white, orange. The
    labs' sources name no other scale."""
    scales = _figure_scales()
    assert len(scales) >= 7
    for name, scale in scales.items():
        assert _ordered(scale), name
    root = Path(curvature.__file__).parent.parent
    for path in sorted(root.glob("*/figures.py")):
        module = importlib.import_module(f"hograd_labs.{path.parent.name}.figures")
        for expression in re.findall(r'"colorscale": ([\w"]+)', path.read_text()):
            if expression.startswith('"'):
                assert _ordered(expression.strip('"')), (path.name, expression)
            elif hasattr(module, expression):
                assert _ordered(getattr(module, expression)), (path.parent.name, expression)
            else:  # a variable (the PINN heat maps' scale): read from its figure above
                assert path.parent.name == "pinn", (path, expression)
