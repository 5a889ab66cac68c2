"""A chart told in words: its name and a short description, from the figure's own data.

Every 2-D chart of the app goes through :func:`hograd_ui.parts.chart.chart`, which sends
:func:`describe`'s text with the figure; the browser gives the chart the name and reads the
description to a screen reader (WCAG 1.1.1), without drawing it. What a line says: its name,
the range of its values over the range of x, and where it crosses zero (linear interpolation
between the two samples around a sign change). A grid (heatmap, contour, 3-D surface): its
size and the range of its values; over numeric axes also the range of each axis and where the
lowest and the highest value lie. A single point, and points in 3-D: where each is. Points
drawn invisible (a lattice to click) say nothing. Bars: each bar's label and
value. A 3-D figure's axes are its scene's.
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Mapping
from typing import Any

import numpy as np

from hograd_ui.i18n import tr

__all__ = ["describe", "zero_crossings"]

_MOST = 5  # zero crossings and bars named, at most, per series
_TAG = re.compile(r"<[^>]+>")


def _num(value: float) -> str:
    return f"{value:.3g}".replace("e+0", "e").replace("e-0", "e-")


def _text(title: object) -> str:
    """A title's text, as a string or plotly's ``{"text": ...}``, without its HTML tags (and
    its entities read: plotly draws ``&lt;`` as "<")."""
    if isinstance(title, Mapping):
        title = title.get("text")
    return html.unescape(_TAG.sub("", title)).strip() if isinstance(title, str) else ""


def _array(values: object) -> np.ndarray | None:
    """Numbers as plotly keeps them: a list, or a numpy array base64-encoded in its dict
    (``{"dtype": "f8", "bdata": ..., "shape": "3, 4"}``); None for text or nothing."""
    try:
        if isinstance(values, Mapping):
            out = np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"])
            shape = values.get("shape")
            out = out.reshape([int(n) for n in str(shape).split(",")]) if shape else out
            out = out.astype(float)
        else:
            out = np.asarray(values, dtype=float)
    except (TypeError, ValueError, KeyError):  # text categories, None
        return None
    return out if out.size else None


def zero_crossings(x: np.ndarray, y: np.ndarray) -> list[float]:
    """Where the polyline through (x, y) crosses zero: samples at 0, and between two finite
    samples of opposite signs the x where the straight line between them is 0.

    On whole arrays, not sample by sample: a page describes every curve it draws on every
    run (docs/performance.md, "The same class on a quiet host")."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    at_zero = (y == 0) & np.isfinite(x)
    finite, negative = np.isfinite(y), y < 0
    crossed = np.zeros(len(y), dtype=bool)
    crossed[1:] = (  # a sign change between finite samples, not counted as a zero already
        finite[:-1] & finite[1:] & (negative[:-1] != negative[1:]) & (y[:-1] != 0)
    )
    crossed &= ~at_zero
    i = np.flatnonzero(crossed)
    with np.errstate(over="ignore"):  # huge values of opposite signs: t is 0 or 1
        t = y[i - 1] / (y[i - 1] - y[i])  # in [0, 1]; no product of two huge values
    found = x.copy()
    found[i] = x[i - 1] + t * (x[i] - x[i - 1])
    return [float(v) for v in found[at_zero | crossed]]


def _listed(values: list[str], lang: str) -> str:
    more = len(values) - _MOST
    shown = ", ".join(values[:_MOST])
    return shown if more <= 0 else shown + tr("chart.said.more", lang, n=more)


def _grid(trace: Mapping[str, Any], name: str, axes: tuple[str, ...], lang: str) -> str:
    """A grid's size and the range of its values; with numeric x and y along its columns and
    rows (z[j, i] at x[i], y[j], as plotly draws it), each axis's range and where the lowest
    and the highest value are (the first such cell, row by row, if several tie)."""
    z = _array(trace.get("z"))
    if z is None or z.ndim != 2 or not np.isfinite(z).any():
        return tr("chart.said.empty", lang, name=name)
    ok = np.isfinite(z)
    low, high = z[ok].min(), z[ok].max()
    x, y = _array(trace.get("x")), _array(trace.get("y"))
    rows, cols = z.shape
    if x is None or y is None or x.shape != (cols,) or y.shape != (rows,):
        return tr(
            "chart.said.grid", lang, name=name, rows=rows, cols=cols, low=_num(low), high=_num(high)
        )
    at_low = np.unravel_index(np.argmin(np.where(ok, z, np.inf)), z.shape)
    at_high = np.unravel_index(np.argmax(np.where(ok, z, -np.inf)), z.shape)
    return tr(
        "chart.said.grid_xy",
        lang,
        name=name,
        rows=rows,
        cols=cols,
        x=axes[0],
        y=axes[1],
        x0=_num(np.nanmin(x)),
        x1=_num(np.nanmax(x)),
        y0=_num(np.nanmin(y)),
        y1=_num(np.nanmax(y)),
        low=_num(low),
        high=_num(high),
        xlow=_num(x[at_low[1]]),
        ylow=_num(y[at_low[0]]),
        xhigh=_num(x[at_high[1]]),
        yhigh=_num(y[at_high[0]]),
    )


def _points(trace: Mapping[str, Any], name: str, axes: tuple[str, ...], lang: str) -> str | None:
    """Points in 3-D (a marked point on a surface): where each is, the first :data:`_MOST`."""
    xyz = [_array(trace.get(k)) for k in ("x", "y", "z")]
    if any(a is None or a.ndim != 1 for a in xyz) or len({a.size for a in xyz}) != 1:
        return None
    where = [p for p in zip(*xyz, strict=True) if np.all(np.isfinite(p))]
    said = [
        tr(
            "chart.said.point3",
            lang,
            name=name,
            x=axes[0],
            y=axes[1],
            z=axes[2],
            a=_num(a),
            b=_num(b),
            c=_num(c),
        )
        for a, b, c in where[:_MOST]
    ]
    if len(where) > _MOST:
        said[-1] += tr("chart.said.more", lang, n=len(where) - _MOST)
    return " ".join(said) or None


def _series(trace: Mapping[str, Any], n: int, axes: tuple[str, ...], lang: str) -> str | None:
    name = _text(trace.get("name")) or tr("chart.said.series", lang, n=n)
    kind = trace.get("type", "scatter")
    xname = axes[0]
    if kind in ("heatmap", "contour", "surface"):
        return _grid(trace, name, axes, lang)
    if kind == "scatter3d":
        return _points(trace, name, axes, lang)
    if kind == "bar":
        labels, values = trace.get("x"), trace.get("y")
        if trace.get("orientation") == "h":
            labels, values = values, labels
        values = _array(values)
        if values is None or labels is None:
            return None
        pairs = [f"{_text(str(k))} {_num(v)}" for k, v in zip(list(labels), values, strict=False)]
        return tr("chart.said.bars", lang, name=name, pairs=_listed(pairs, lang))
    marker = trace.get("marker") or {}
    if marker.get("opacity") == 0 and "lines" not in str(trace.get("mode", "")):
        return None  # drawn invisible: points to click or hover (the HVP contour's), not data
    y = _array(trace.get("y"))
    if y is None or y.ndim != 1:
        return None
    x = _array(trace.get("x"))
    x = np.arange(len(y), dtype=float) if x is None or x.shape != y.shape else x
    ok = np.isfinite(y) & np.isfinite(x)
    if not ok.any():
        return None  # a legend entry of its own (a shape's), or nothing drawn
    if ok.sum() == 1:  # one point (a marked p): where it is, not a range
        a, b = _num(x[ok][0]), _num(y[ok][0])
        return tr("chart.said.point2", lang, name=name, x=axes[0], y=axes[1], a=a, b=b)
    said = tr(
        "chart.said.line",
        lang,
        name=name,
        x=xname,
        x0=_num(x[ok].min()),
        x1=_num(x[ok].max()),
        low=_num(y[ok].min()),
        high=_num(y[ok].max()),
    )
    zeros = zero_crossings(x, y) if ok.sum() > 2 else []
    if zeros:
        said += tr(
            "chart.said.zeros", lang, x=xname, points=_listed([_num(z) for z in zeros], lang)
        )
    return said


def describe(spec: Mapping[str, Any], lang: str = "en") -> tuple[str, str]:
    """``(name, description)`` of the figure ``spec`` (a figure's ``to_dict()``) in ``lang``.

    Example: a figure titled "f and its derivatives" with y = sin(x) over [-4, 4] is named
    "Chart: f and its derivatives" and described as "... f: values from -1 to 1 for x from
    -4 to 4; crosses zero near x = -3.14, 0, 3.14."
    """
    layout = spec.get("layout") or {}
    title = _text(layout.get("title"))
    names = [_text(t.get("name")) for t in spec.get("data") or () if _text(t.get("name"))]
    if title:
        name = tr("chart.said.name", lang, title=title)
    elif names:
        name = tr("chart.said.name", lang, title=_listed(names, lang))
    else:
        name = tr("chart.said.untitled", lang)
    scene = layout.get("scene")
    if any(t.get("type") in ("surface", "scatter3d") for t in spec.get("data") or ()):
        scene = scene or {}
        axes = tuple(
            _text((scene.get(f"{a}axis") or {}).get("title")) or a for a in ("x", "y", "z")
        )
        parts = [tr("chart.said.axes3d", lang, x=axes[0], y=axes[1], z=axes[2])]
    else:
        axes = tuple(_text((layout.get(f"{a}axis") or {}).get("title")) or a for a in ("x", "y"))
        parts = [tr("chart.said.axes", lang, x=axes[0], y=axes[1])]
    for n, trace in enumerate(spec.get("data") or (), 1):
        said = _series(trace, n, axes, lang)
        if said:
            parts.append(said)
    return name, " ".join(parts)
