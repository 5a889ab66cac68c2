"""The plotting kit the labs share: layouts, axes (log axes with readable ticks), colour
scales, the contour levels of a surface, and number formats (data in, dicts out; no Streamlit).

Figures are drawn for a projector: large fonts, few colours with fixed meanings, equal axis
scales wherever angles matter. Traces, axes and frames are plain dicts handed to
:func:`.plotting.new_figure` once: a page draws its figures on every run, and as validated
plotly objects (``go.Scatter``, ``update_layout``, ``make_subplots``) they were most of a
rerun's time.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = [
    "BLACK",
    "BLUE",
    "DASHES",
    "DIVERGING",
    "GREEN",
    "GREY",
    "INDIGO",
    "LIGHT",
    "OLIVE",
    "PALETTE",
    "PURPLE",
    "RED",
    "axis_props",
    "clean",
    "contour_levels",
    "figure_layout",
    "finite_or_dash",
    "line",
    "log_axis",
    "positive",
]

LIGHT = [[0.0, "#fbfdff"], [0.5, "#c6dbef"], [1.0, "#6baed6"]]

# The series colours of every figure whose series are told apart by colour, each at 3:1 or
# more on the white background (WCAG 1.4.11) and apart from every other by a CIELAB distance
# of 20 or more for normal vision and as deuteranopia and protanopia see them (Machado 2009):
# Okabe-Ito's blue and reddish purple, Paul Tol's muted green, olive and indigo and bright red
# (tests/ui/test_palette.py computes both, for this palette and for each figure's colours).
# Near-black first. A figure picks its series' colours from here by name, and gives each
# series a second cue (a dash pattern from :data:`DASHES`, a marker or a label), so that a
# reader who sees no colour tells them apart too (WCAG 1.4.1).
PALETTE = ("#1f2937", "#0072B2", "#EE6677", "#117733", "#CC79A7", "#999933", "#332288")
BLACK, BLUE, RED, GREEN, PURPLE, OLIVE, INDIGO = PALETTE
#: A neutral grey for what is drawn under the data (bars of a histogram, reference lines):
#: 3.54:1 on white, so that it still meets WCAG 1.4.11's 3:1 (#bbbbbb, used before, is 1.92:1).
GREY = "#888888"
#: Plotly's dash patterns, one per series (the derivative curves cycle them with :data:`PALETTE`).
DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
DIVERGING = [[0.0, "#2166ac"], [0.5, "#f7f7f7"], [1.0, "#b2182b"]]  # negative blue, positive red


def finite_or_dash(x: float, digits: int = 4) -> str:
    """``x`` to ``digits`` significant digits, or a dash where it is not a finite number."""
    return f"{x:.{digits}g}" if math.isfinite(x) else "—"


def positive(values: np.ndarray) -> np.ndarray:
    """Values for a log axis: 0 and below, inf and NaN left out (as gaps)."""
    v = np.asarray(values, dtype=np.float64)
    return np.where(np.isfinite(v) & (v > 0), v, np.nan)


def line(x: object, y: object, name: str, style: dict, **extra: object) -> dict:
    """A line trace named ``name`` (a legend entry) drawn in ``style`` (plotly's ``line``)."""
    return {
        "type": "scatter",
        "x": x,
        "y": y,
        "mode": "lines",
        "name": name,
        "line": style,
        **extra,
    }


def figure_layout(height: int, legend: str = "top", **extra: object) -> dict:
    """Shared layout: readable on a projector (16 px text), legend above or
    below."""
    where = {"y": 1.02, "yanchor": "bottom"} if legend == "top" else {"y": -0.16, "yanchor": "top"}
    return {
        "height": height,
        "font": {"size": 16},
        "margin": {"l": 60, "r": 30, "t": 60, "b": 70 if legend == "top" else 110},
        "hoverlabel": {"font": {"size": 15}},
        "legend": {"orientation": "h", "xanchor": "left", "x": 0, "font": {"size": 15}, **where},
        **extra,
    }


def axis_props(title: str | None = None, title_px: int | None = 16, **props: object) -> dict:
    """An axis with 14 px ticks and a ``title_px`` title (None: plotly's 1.2 x the page font)."""
    heading: dict = {} if title is None else {"text": title}
    if title_px is not None:
        heading["font"] = {"size": title_px}
    return {"tickfont": {"size": 14}, "title": heading, **props}


#: A log axis spanning fewer decades than this is labelled at 1, 2 and 5 times each power of
#: ten (decades alone would give it one or two labels); plotly's own choice there is every
#: digit, whose small labels crowd into each other. Over more decades it is labelled at powers
#: of ten only, every n-th one, n the smallest that puts at most :data:`MAX_LOG_LABELS` labels
#: within the data's span (plotly's padding of the range can add one at an end).
#: Plotly's choice there ran labels into each other in presentation mode: 1, 2, 5 over four
#: decades ("2" and "5" on the 10⁻ᵏ labels, 0.3 decade apart), and every third power over 21
#: decades on a 330-px panel (37 px apart, a 10⁻ᵏ label with 22-px type is 47 px tall).
FEW_DECADES, MAX_LOG_LABELS = 1.3, 6


def log_axis(title: str | None, *series: object, **props: object) -> dict:
    """:func:`axis_props` for a log axis showing ``series`` (arrays of any shape), powers of ten
    written as powers; ticks at 1, 2 and 5 over fewer than :data:`FEW_DECADES` decades, else at
    every n-th power of ten, at most :data:`MAX_LOG_LABELS` of them."""
    v = np.concatenate([np.ravel(np.asarray(a, dtype=np.float64)) for a in series] or [[]])
    v = v[np.isfinite(v) & (v > 0)]
    tick = {}
    if v.size:
        decades = math.log10(v.max() / v.min())
        every = math.floor(decades / MAX_LOG_LABELS) + 1  # the least n: floor(decades/n) + 1 <= MAX
        tick = {"dtick": "D2"} if decades < FEW_DECADES else {"dtick": every}
    return axis_props(title, type="log", exponentformat="power", **tick, **props)


def clean(values: np.ndarray) -> np.ndarray:
    """Entries below 1e-12 of the largest in size shown as 0 (cos(π/2) = 6e-17 is 0 here)."""
    values = np.asarray(values, dtype=np.float64)
    finite = np.abs(values[np.isfinite(values)])
    scale = max(1.0, float(finite.max())) if finite.size else 1.0
    return np.where(np.abs(values) < 1e-12 * scale, 0.0, values)


def contour_levels(z: np.ndarray) -> tuple[np.ndarray, bool]:
    """Values to colour: log10(1 + f) when f >= 0 spans hundreds (Rosenbrock's valley)."""
    finite = z[np.isfinite(z)]
    use_log = finite.size > 0 and finite.min() >= 0 and finite.max() >= 100
    return (np.log10(1 + z) if use_log else z), use_log
