"""The dashboard's two charts: per step how many students tried and got it right, and the
commonest slips by name. Labels come in already translated (``lang`` chose them); the figures
are escaped text, since plotly reads a few HTML tags in labels."""

from __future__ import annotations

import html
import io
import textwrap

import segno

from hograd_ui.plotting import PlainFigure, plain_figure

from .compute import Summary

__all__ = ["QR_BORDER", "progress_figure", "qr_svg", "slips_figure"]

#: The bars' colours, each 3:1 or more on white (WCAG 1.4.11; the tried bars' grey was
#: #9aa5b1, 2.5:1) and apart for normal, deuteranope and protanope vision
#: (tests/ui/test_palette.py). The tried bars are hatched as well (:data:`TRIED_PATTERN`), so
#: that the two bars of a step differ without colour too (1.4.1); the legend draws both.
TRIED, RIGHT, SLIP = "#6b7280", "#2e7d32", "#c62828"
TRIED_PATTERN = {"shape": "/", "fgcolor": "#ffffff", "size": 8, "solidity": 0.25}
WRAP = 46  # characters of a slip's label on one line
FONT = {"size": 16}  # the labels: larger than the app's 14 px ticks, for the room (projector
# mode, hograd_ui/plotting.py, scales them again)


def _label(text: str) -> str:
    """Our own text, escaped for plotly and wrapped to lines of :data:`WRAP` characters."""
    return "<br>".join(html.escape(line) for line in textwrap.wrap(text, WRAP) or [""])


def progress_figure(summary: Summary, step_names: list[str], tried: str, right: str) -> PlainFigure:
    """Horizontal bars: students who tried each step, and who got it right.

    Args:
        summary: the class's counts.
        step_names: each step's label (step 1 first).
        tried, right: the two bars' names in the legend.
    """
    counts = {s.step: s for s in summary.steps}
    labels = [_label(name) for name in step_names]
    tries = [counts[n].tried if n in counts else 0 for n in range(1, len(step_names) + 1)]
    rights = [counts[n].right if n in counts else 0 for n in range(1, len(step_names) + 1)]
    data = [
        {
            "type": "bar",
            "orientation": "h",
            "y": labels,
            "x": tries,
            "name": html.escape(tried),
            "marker": {"color": TRIED, "pattern": TRIED_PATTERN},
            "text": tries,
            "textposition": "auto",
        },
        {
            "type": "bar",
            "orientation": "h",
            "y": labels,
            "x": rights,
            "name": html.escape(right),
            "marker": {"color": RIGHT},
            "text": rights,
            "textposition": "auto",
        },
    ]
    top = max([summary.joined, *tries, 1])
    return plain_figure(
        data,
        barmode="group",
        height=90 + 60 * len(step_names),
        yaxis={"autorange": "reversed", "automargin": True, "tickfont": FONT},
        xaxis={"range": [0, top * 1.05], "dtick": max(1, top // 10), "automargin": True},
        legend={"orientation": "h", "y": 1.02, "yanchor": "bottom"},
        margin={"l": 10, "r": 10, "t": 40, "b": 30},
    )


def slips_figure(slips: list[tuple[str, int]]) -> PlainFigure:
    """Horizontal bars: each slip's label (translated) and how many students made it."""
    labels = [_label(text) for text, _ in slips]
    counts = [n for _, n in slips]
    data = [
        {
            "type": "bar",
            "orientation": "h",
            "y": labels,
            "x": counts,
            "text": counts,
            "textposition": "auto",
            "marker": {"color": SLIP},
        }
    ]
    return plain_figure(
        data,
        height=90 + 70 * max(len(slips), 1),
        showlegend=False,
        yaxis={"autorange": "reversed", "automargin": True, "tickfont": FONT},
        xaxis={"dtick": max(1, max(counts, default=1) // 10), "automargin": True},
        margin={"l": 10, "r": 10, "t": 20, "b": 30},
    )


#: The quiet zone around a QR code, in modules: the four the QR standard (ISO/IEC 18004) asks
#: for, so that a phone's camera finds the code's edge on a busy slide.
QR_BORDER = 4


def qr_svg(link: str) -> str:
    """The QR code of ``link`` as SVG (black modules on white, no size: it scales to the width
    it is shown at), for a class's students to scan from the projected screen.

    Error correction level M (15 % of the code may be lost): a projector's glare or a head in
    the way costs some modules. The link is encoded, never written into the SVG as text.
    """
    code = segno.make(link, error="m", boost_error=False)
    out = io.BytesIO()
    code.save(
        out,
        kind="svg",
        scale=1,
        border=QR_BORDER,
        xmldecl=False,
        omitsize=True,
        dark="#000",
        light="#fff",
    )
    return out.getvalue().decode("ascii")
