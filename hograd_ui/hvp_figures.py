"""The Hessian-vector product's contour picture (the HVP lab and the lesson draw it) and the
figure helpers the labs share: layouts, axes, colours.

Figures are drawn for a projector: large fonts, few colours with fixed meanings (∇f red, v
black, Hv orange, eigen-directions green and purple), equal axis scales wherever angles matter.
Every label comes from the translation table in the language asked for.

Traces, axes and frames are plain dicts handed to :func:`.plotting.new_figure` once: the page
draws these figures on every run, and as validated plotly objects (``go.Scatter``,
``update_layout``, ``make_subplots``) they were most of a rerun's time. Subplots are laid out
here with make_subplots' own arithmetic (:func:`.plotting.grid_cells`), so the axes land where they did.
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from hograd_core.curvature import Grid
from hograd_core.hessian import HVPResult
from hograd_ui.i18n import tr

from .plotting import new_figure

__all__ = ["axis_props", "clean", "contour_figure", "contour_levels", "figure_layout", "log_axis"]

GRADIENT, VECTOR, HV = "#d62728", "#111111", "#ff7f0e"
EIGEN = ("#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf")
BLUE = "#1f77b4"
LIGHT = [[0.0, "#fbfdff"], [0.5, "#c6dbef"], [1.0, "#6baed6"]]
DIVERGING = [[0.0, "#2166ac"], [0.5, "#f7f7f7"], [1.0, "#b2182b"]]  # negative blue, positive red


def _num(x: float) -> str:
    return f"{x:.4g}" if math.isfinite(x) else "—"


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


def _arrow(tail: np.ndarray, head: np.ndarray, color: str, label: str, gap: float) -> list[dict]:
    """An arrow from ``tail`` to ``head`` (data coordinates), labelled ``gap`` past its head:
    two annotations."""
    direction = head - tail
    at = head + direction / np.linalg.norm(direction) * gap
    return [
        {
            "x": head[0],
            "y": head[1],
            "ax": tail[0],
            "ay": tail[1],
            "xref": "x",
            "yref": "y",
            "axref": "x",
            "ayref": "y",
            "showarrow": True,
            "arrowhead": 3,
            "arrowsize": 1.2,
            "arrowwidth": 3.5,
            "arrowcolor": color,
            "text": "",
        },
        {
            "x": at[0],
            "y": at[1],
            "text": f"<b>{label}</b>",
            "showarrow": False,
            "font": {"size": 20, "color": color},
            "bgcolor": "rgba(255,255,255,0.75)",
        },
    ]


def contour_figure(grid: Grid, result: HVPResult, lang: str, pickable: bool = True) -> go.Figure:
    """Contours of f around p with ∇f, v, Hv as arrows and the eigenvector axes dashed."""
    z, use_log = contour_levels(grid.z)
    finite = z[np.isfinite(z)]
    lo, hi = np.percentile(finite, [1, 99]) if finite.size else (0.0, 1.0)
    hi = hi if hi > lo else lo + 1.0
    names = result.variables
    traces: list[dict] = [
        {
            "type": "contour",
            "x": grid.x,
            "y": grid.y,
            "z": z,
            "colorscale": LIGHT,
            "zmin": lo,
            "zmax": hi,
            # No labels on the lines: placing them took a fresh browser here 0.35 s of the HVP
            # page's first screen (docs/performance.md); the colour bar gives the scale and the
            # pick lattice's hover gives f at a point.
            "contours": {"start": lo, "end": hi, "size": (hi - lo) / 18, "showlabels": False},
            "line": {"width": 1, "color": "rgba(0,0,0,0.3)"},
            "hoverinfo": "skip",
            "colorbar": {"title": {"text": tr("hvp.fig.log_f" if use_log else "hvp.fig.f", lang)}},
        }
    ]
    if pickable:  # a sparse, invisible lattice: clicking one of its points moves p there
        step = max(1, grid.x.size // 27)
        xs, ys = np.meshgrid(grid.x[::step], grid.y[::step])
        fz = grid.z[::step, ::step]
        traces.append(
            {
                "type": "scatter",
                "x": xs.ravel(),
                "y": ys.ravel(),
                "mode": "markers",
                "customdata": fz.ravel(),
                "marker": {"size": 14, "opacity": 0},
                "showlegend": False,
                "name": "pick",
                "hovertemplate": f"{names[0]} = %{{x:.3f}}<br>{names[1]} = %{{y:.3f}}<br>"
                f"f = %{{customdata:.4g}}<br><i>{tr('hvp.fig.pick', lang)}</i><extra></extra>",
            }
        )
    p = result.point
    span = float(grid.x[-1] - grid.x[0]) / 2
    g_size = float(np.linalg.norm(result.gradient))
    vh_size = max(float(np.linalg.norm(result.vector)), float(np.linalg.norm(result.hvp)))
    g_scale = 0.6 * span / g_size if g_size > 0 and math.isfinite(g_size) else 0.0
    v_scale = 0.6 * span / vh_size if vh_size > 0 and math.isfinite(vh_size) else 0.0
    arrows = (
        (result.gradient, g_scale, GRADIENT, "∇f"),
        (result.vector, v_scale, VECTOR, "v"),
        (result.hvp, v_scale, HV, "Hv"),
    )  # the symbols are the same in every language
    heads = [p + scale * vec for vec, scale, _, _ in arrows if scale > 0 and np.any(vec)]
    notes: list[dict] = []
    for i in range(min(2, result.eigenvalues.size)):
        e = result.eigenvectors[:, i]
        if not np.all(np.isfinite(e)):
            continue
        a, b = p - 0.95 * span * e, p + 0.95 * span * e
        label = f"e{i + 1}: λ = {_num(result.eigenvalues[i])}"
        traces.append(
            {
                "type": "scatter",
                "x": [a[0], b[0]],
                "y": [a[1], b[1]],
                "mode": "lines",
                "name": label,
                "line": {"color": EIGEN[i], "width": 3, "dash": "dash"},
                "hoverinfo": "name",
            }
        )
        ends = (p + 0.72 * span * e, p - 0.72 * span * e)  # label the end far from arrow heads
        at = max(ends, key=lambda end: min((np.linalg.norm(end - h) for h in heads), default=0))
        notes.append(
            {
                "x": at[0],
                "y": at[1],
                "text": f"<b>{label}</b>",
                "showarrow": False,
                "font": {"size": 17, "color": EIGEN[i]},
                "bgcolor": "rgba(255,255,255,0.85)",
            }
        )
    for vec, scale, color, label in arrows:
        if scale > 0 and np.any(vec):
            notes += _arrow(p, p + scale * vec, color, label, 0.08 * span)
    traces.append(
        {
            "type": "scatter",
            "x": [p[0]],
            "y": [p[1]],
            "mode": "markers",
            "name": "p",
            "marker": {"size": 14, "color": "#000", "line": {"color": "#fff", "width": 2}},
            "hovertemplate": "p = (%{x:.4g}, %{y:.4g})<extra></extra>",
            "showlegend": False,
        }
    )
    if g_scale:
        scales = tr("hvp.fig.scales", lang, g=f"{g_scale:.2g}", v=f"{v_scale:.2g}")
    else:
        scales = tr("hvp.fig.scales_no_gradient", lang, v=f"{v_scale:.2g}")
    return new_figure(
        traces,
        **figure_layout(600),
        title={"text": scales, "font": {"size": 15}},
        showlegend=False,
        clickmode="event+select",
        dragmode="pan",
        annotations=notes,
        xaxis=axis_props(
            names[0], title_px=None, range=[grid.x[0], grid.x[-1]], constrain="domain"
        ),
        yaxis=axis_props(
            names[1],
            title_px=None,
            range=[grid.y[0], grid.y[-1]],
            scaleanchor="x",
            scaleratio=1,
            constrain="domain",
        ),
    )
