"""The app's colours against WCAG 2.1 and colour-vision deficiency, from their hex values.

Contrast is WCAG's relative-luminance ratio. Deuteranopia and protanopia are simulated with
Machado, Oliveira and Fernandes (2009)'s matrices at severity 1.0, applied in linear sRGB;
colours are compared by their CIELAB distance (ΔE76, D65).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from hograd_labs.derivatives.chart import DASHES, PALETTE
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


def test_text_and_focus_colours_meet_wcag() -> None:
    for background in (WHITE, SIDEBAR):
        assert contrast(a11y.CAPTION, background) >= 4.5  # 1.4.3: text
        assert contrast(a11y.CAPTION_CODE, background) >= 4.5
        assert contrast(a11y.DISABLED, background) >= 4.5
        assert contrast(a11y.FOCUS, background) >= 3.0  # 1.4.11: the focus ring
