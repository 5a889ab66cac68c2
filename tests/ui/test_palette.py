"""The app's colours against WCAG 2.1 and colour-vision deficiency, from their hex values.

Contrast is WCAG's relative-luminance ratio. Deuteranopia and protanopia are simulated with
Machado, Oliveira and Fernandes (2009)'s matrices at severity 1.0, applied in linear sRGB;
colours are compared by their CIELAB distance (ΔE76, D65).
"""

from __future__ import annotations

import itertools
import math
import re

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
