"""The HVP lab's figures: the typed function's surface, Hessian, slices, power iteration and
the three ways' timings, and the small network's training, top eigenvalue, trace, sharpness and
Hessian. Each takes the language as an argument; the chart draws it for a projector.

Traces, axes and frames are plain dicts handed to :func:`hograd_ui.plotting.new_figure` once:
the page draws these figures on every run, and as validated plotly objects (``go.Scatter``,
``update_layout``, ``make_subplots``) they were most of a rerun's time. Subplots are laid out
here with make_subplots' own arithmetic (:func:`hograd_ui.plotting.grid_cells`).
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from hograd_core.curvature import Grid, PowerIteration, Slices
from hograd_core.hessian import HVPResult
from hograd_ui.i18n import tr
from hograd_ui.notebook import percent_notebook
from hograd_ui.plot_kit import (
    BLACK,
    BLUE,
    DIVERGING,
    GREEN,
    GREY,
    LIGHT,
    OLIVE,
    PURPLE,
    RED,
    axis_props,
    clean,
    contour_levels,
    figure_layout,
    finite_or_dash,
)
from hograd_ui.plotting import TEXT, cell_title, grid_cells, hline, new_figure, vline

from .compute import NetCurvature, TrainedNet, layer_blocks

__all__ = [
    "contour_figure",
    "directions_figure",
    "hessian_figure",
    "hutchinson_figure",
    "net_hessian_figure",
    "net_power_figure",
    "power_figure",
    "slices_figure",
    "surface_figure",
    "training_figure",
    "ways_figure",
]

#: ∇f red, v black, Hv olive, the eigen-directions green and purple, a second quantity blue
#: (fixed meanings on every figure), all from the kit's checked palette; each is also named
#: on the figure (the arrows' and the eigen lines' labels, a legend) and drawn apart by its
#: dash where two lines share a panel.
GRADIENT, VECTOR, HV = RED, BLACK, OLIVE
EIGEN = (GREEN, PURPLE)
#: Lines drawn for reference under the data (power iteration's unit circle, and the whole path
#: of the Rayleigh quotient under the animated one): a grey at 3.5:1 on white (WCAG 1.4.11;
#: #bbbbbb and #cccccc were 1.9:1 and 1.6:1), dotted, so that they read as reference, not data.
REFERENCE = GREY


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
            "name": tr("surface.log_f" if use_log else "surface.f", lang),
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
            "colorbar": {"title": {"text": tr("surface.log_f" if use_log else "surface.f", lang)}},
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
        label = f"e{i + 1}: λ = {finite_or_dash(result.eigenvalues[i])}"
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


def _num(x: float) -> str:
    return f"{x:.4g}" if math.isfinite(x) else "—"


def _line_label(y: float, text: str, font: dict, cell: str = "", above: bool = True) -> dict:
    """A label at the right end of an :func:`.plotting.hline`, just above or below it."""
    return {
        "text": text,
        "x": 1,
        "xref": f"x{cell} domain",
        "xanchor": "right",
        "y": y,
        "yref": f"y{cell}",
        "yanchor": "bottom" if above else "top",
        "showarrow": False,
        "font": font,
    }


def surface_figure(grid: Grid, result: HVPResult, lang: str, text: str = "") -> go.Figure:
    """f as a 3-D surface with p marked, titled with f's text.

    The surface holds f's values on the grid as they are (±inf as gaps), so that the chart's
    description (hograd_ui/chart_text.py) tells the grid's true lowest and highest values and
    where they lie; the z axis and the colours span the 1st to 99th percentile, and plotly.js
    cuts the surface where it leaves that range (a spike does not flatten the rest).
    """
    z = np.where(np.isfinite(grid.z), grid.z, np.nan)
    finite = z[np.isfinite(z)]
    lo, hi = np.percentile(finite, [1, 99]) if finite.size else (0.0, 1.0)
    hi = hi if hi > lo else lo + 1.0
    names = result.variables
    traces = [
        {
            "type": "surface",
            "x": grid.x,
            "y": grid.y,
            "z": z,
            "name": "f",
            "colorscale": "Viridis",
            "cmin": lo,
            "cmax": hi,
            "opacity": 0.9,
            "showscale": False,
        },
        {
            "type": "scatter3d",
            "x": [result.point[0]],
            "y": [result.point[1]],
            "z": [result.value],
            "mode": "markers",
            "marker": {"size": 7, "color": GRADIENT, "symbol": "diamond"},
            "name": "p",
        },
    ]
    # the scene's text at the 2-D charts' contrast (Streamlit's theme gives it #808495, 3.72:1)
    scene = {
        axis: {"title": {"text": name, "font": {"color": TEXT}}, "tickfont": {"color": TEXT}}
        for axis, name in (("xaxis", names[0]), ("yaxis", names[1]), ("zaxis", "f"))
    }
    scene["zaxis"]["range"] = [lo, hi]
    title = tr("hvp.fig.surface", lang, fn=html.escape(text)) if text else None
    return new_figure(
        traces,
        **figure_layout(600),
        **({"title": {"text": title, "font": {"size": 15}}} if title else {}),
        showlegend=False,
        xaxis=axis_props(),
        yaxis=axis_props(),
        scene=scene,
    )


def hessian_figure(result: HVPResult, lang: str) -> go.Figure:
    """The Hessian as an annotated heatmap: red positive, blue negative, white zero."""
    h = clean(result.hessian)
    names = list(result.variables)
    top = float(np.nanmax(np.abs(h))) if np.any(np.isfinite(h)) else 1.0
    top = top if top > 0 else 1.0
    text = [[_num(float(x)) for x in row] for row in h]
    hover = [
        [f"∂²f / ∂{r} ∂{c} = {_num(float(h[i, j]))}" for j, c in enumerate(names)]
        for i, r in enumerate(names)
    ]
    n = len(names)
    heatmap = {
        "type": "heatmap",
        "z": h,
        "x": names,
        "y": names,
        "colorscale": DIVERGING,
        "zmid": 0,
        "zmin": -top,
        "zmax": top,
        "text": text,
        "texttemplate": "%{text}",
        "hovertext": hover,
        "hoverinfo": "text",
        "textfont": {"size": 22 if n <= 3 else 16 if n <= 6 else 12},
        "xgap": 2,
        "ygap": 2,
    }
    return new_figure(
        [heatmap],
        **figure_layout(160 + 60 * max(n, 4)),
        title={"text": tr("hvp.hessian.title", lang)},
        xaxis=axis_props(side="top", constrain="domain"),
        yaxis=axis_props(autorange="reversed", scaleanchor="x", constrain="domain"),
    )


def slices_figure(slices: Slices, names: Sequence[str], lang: str) -> go.Figure:
    """f(p + t e_i) and its quadratic model, one panel per eigenvector."""
    n = slices.eigenvalues.size
    cols = min(n, 2)
    rows = math.ceil(n / cols)
    cells = grid_cells(rows, cols, 0.1, 0.12 if rows > 1 else 0.0)
    traces: list[dict] = []
    layout: dict = {"annotations": [], "shapes": []}
    for i, (xd, yd) in enumerate(cells):
        s = str(i + 1) if i else ""
        layout[f"xaxis{s}"] = axis_props(anchor=f"y{s}", domain=xd)
        layout[f"yaxis{s}"] = axis_props(anchor=f"x{s}", domain=yd)
        if i >= n:  # the empty cell of an odd count keeps its (blank) axes, as make_subplots
            continue
        on = {"xaxis": f"x{s}", "yaxis": f"y{s}", "showlegend": i == 0}
        traces += [
            {
                "type": "scatter",
                "x": slices.t,
                "y": slices.values[i],
                "name": tr("hvp.fig.slice_f", lang),
                "line": {"color": BLUE, "width": 3},
                **on,
            },
            {
                "type": "scatter",
                "x": slices.t,
                "y": slices.model[i],
                "name": tr("hvp.fig.slice_model", lang),
                "line": {"color": HV, "width": 3, "dash": "dash"},
                **on,
            },
        ]
        finite = slices.values[i][np.isfinite(slices.values[i])]
        if finite.size:
            lo, hi = float(finite.min()), float(finite.max())
            pad = 0.15 * (hi - lo) if hi > lo else 1.0
            layout[f"yaxis{s}"]["range"] = [lo - pad, hi + pad]
        if i // cols + 1 == rows:
            layout[f"xaxis{s}"]["title"]["text"] = tr("hvp.fig.t", lang)
        title = f"e{i + 1}: λ = {_num(float(slices.eigenvalues[i]))}"
        layout["annotations"].append(cell_title(title, xd, yd))
        layout["shapes"].append(vline(0, {"color": "#999", "width": 1, "dash": "dot"}, s))
    return new_figure(traces, **figure_layout(120 + 340 * rows, legend="bottom"), **layout)


def _history(u: np.ndarray, k: int) -> tuple[list, list]:
    """Segments from the origin to u_0 .. u_{k-1}, as one line trace broken by None."""
    xs: list = []
    ys: list = []
    for j in range(k):
        xs += [0.0, float(u[j, 0]), None]
        ys += [0.0, float(u[j, 1]), None]
    return xs, ys


def power_figure(power: PowerIteration, names: Sequence[str], lang: str) -> go.Figure:
    """Power iteration as an animation: press Play (or drag k) to watch u_k turn toward the
    top eigenvector (left; for n != 2, the components of u_k) while uᵀHu converges (right).

    Traces, frames and axes are plain dicts (see :mod:`.plotting`): this figure is drawn on
    every run, and its ~30 frames were most of the page's time as plotly objects.
    """
    n = len(names)
    u, e, ray = power.iterates, power.target_vector, power.rayleigh
    last = power.last
    steps = np.arange(u.shape[0])
    # one eigenvector to draw: not when λ₁'s eigenspace is a plane or more (any of it would do)
    aligned = bool(np.all(np.isfinite(e))) and power.multiplicity == 1
    rayleigh, target = tr("hvp.fig.rayleigh", lang), tr("hvp.fig.target", lang)
    left, right = {"xaxis": "x", "yaxis": "y"}, {"xaxis": "x2", "yaxis": "y2"}

    def dynamic(k: int) -> list[dict]:
        """The traces that change with k (indices ``moving`` below), in a fixed order: two in
        the left panel, then one in the right."""
        if n == 2:
            hx, hy = _history(u, k)
            out = [
                {
                    "type": "scatter",
                    "x": hx,
                    "y": hy,
                    "mode": "lines",
                    "line": {"color": "rgba(0,0,0,0.3)", "width": 2},
                    "hoverinfo": "skip",
                    "showlegend": False,
                },
                {
                    "type": "scatter",
                    "x": [0, u[k, 0]],
                    "y": [0, u[k, 1]],
                    "mode": "lines+markers+text",
                    "line": {"color": HV, "width": 5},
                    "marker": {"size": [0, 13], "color": HV},
                    "text": ["", f"u{k}"],
                    "textposition": "top right",
                    "textfont": {"size": 18, "color": HV},
                    "name": "uₖ",
                },
            ]
        else:
            sign = float(np.sign(u[k] @ e)) if aligned and np.all(np.isfinite(u[k])) else 1.0
            goal = {
                "type": "scatter",
                "x": list(names),
                "mode": "markers",
                "name": target,
                "marker": {
                    "symbol": "line-ew-open",
                    "size": 30,
                    "color": EIGEN[0],
                    "line": {"width": 4},
                },
            }
            if aligned:
                goal["y"] = sign * e
            out = [
                {"type": "bar", "x": list(names), "y": u[k], "marker": {"color": HV}, "name": "uₖ"},
                goal,
            ]
        out.append(
            {
                "type": "scatter",
                "x": steps[: k + 1],
                "y": ray[: k + 1],
                "mode": "lines+markers",
                "line": {"color": HV, "width": 3},
                "marker": {"size": 8, "color": HV},
                "name": rayleigh,
            }
        )
        return out

    def title(k: int) -> str:
        return tr(
            "hvp.fig.power_title",
            lang,
            k=k,
            r=_num(float(ray[k])),
            a=_num(float(power.alignment[k])),
        )

    (x1, y1), (x2, y2) = grid_cells(1, 2, 0.12, 0.0, widths=(0.42, 0.58))
    axes = {
        "xaxis": axis_props(anchor="y", domain=x1),
        "yaxis": axis_props(anchor="x", domain=y1),
        "xaxis2": axis_props(anchor="y2", domain=x2, range=[-0.5, u.shape[0] - 0.5]),
        "yaxis2": axis_props(anchor="x2", domain=y2),
    }
    axes["xaxis2"]["title"]["text"] = tr("hvp.fig.step", lang)
    traces: list[dict] = []
    if n == 2:  # static: the unit circle and the target eigenvector's axis
        theta = np.linspace(0, 2 * np.pi, 200)
        traces.append(
            {
                "type": "scatter",
                "x": np.cos(theta),
                "y": np.sin(theta),
                "mode": "lines",
                "line": {"color": REFERENCE, "width": 1, "dash": "dot"},
                "hoverinfo": "skip",
                "showlegend": False,
                **left,
            }
        )
        if aligned:
            traces.append(
                {
                    "type": "scatter",
                    "x": [-1.15 * e[0], 1.15 * e[0]],
                    "y": [-1.15 * e[1], 1.15 * e[1]],
                    "mode": "lines",
                    "line": {"color": EIGEN[0], "width": 3, "dash": "dash"},
                    "name": target,
                    **left,
                }
            )
        axes["xaxis"]["range"] = [-1.3, 1.3]
        axes["yaxis"].update(range=[-1.3, 1.3], scaleanchor="x")
    else:
        axes["yaxis"]["range"] = [-1.1, 1.1]
        axes["yaxis"]["title"]["text"] = tr("hvp.fig.component", lang)
    traces.append(
        {
            "type": "scatter",
            "x": steps,
            "y": ray,
            "mode": "lines+markers",
            "line": {"color": REFERENCE, "width": 2, "dash": "dot"},
            "marker": {"size": 5, "color": REFERENCE},
            "hoverinfo": "skip",
            "showlegend": False,
            **right,
        }
    )
    first = len(traces)
    traces += [{**trace, **(left if i < 2 else right)} for i, trace in enumerate(dynamic(0))]
    moving = list(range(first, len(traces)))
    frames = [
        {
            "name": str(k),
            "data": dynamic(k),
            "traces": moving,
            "layout": {"title": {"text": title(k)}},
        }
        for k in range(last + 1)
    ]
    notes = [cell_title(tr("hvp.fig.direction", lang), x1, y1), cell_title(rayleigh, x2, y2)]
    shapes = []
    if math.isfinite(power.target):
        line = {"color": EIGEN[0], "width": 2, "dash": "dash"}
        shapes.append(hline(power.target, line, "2"))
        notes.append(
            _line_label(
                power.target, f"λ = {_num(power.target)}", {"size": 17, "color": EIGEN[0]}, "2"
            )
        )
    finite = ray[np.isfinite(ray)]
    if finite.size:
        values = np.append(finite, power.target if math.isfinite(power.target) else finite[0])
        lo, hi = float(values.min()), float(values.max())
        pad = 0.1 * (hi - lo) if hi > lo else 1.0
        axes["yaxis2"]["range"] = [lo - pad, hi + pad]
    play = {
        "frame": {"duration": 450, "redraw": True},
        "fromcurrent": True,
        "transition": {"duration": 0},
    }
    jump = {
        "mode": "immediate",
        "frame": {"duration": 0, "redraw": True},
        "transition": {"duration": 0},
    }
    look = figure_layout(580)
    look["margin"].update(t=120, b=120)
    return new_figure(
        traces,
        frames=frames,
        **look,
        **axes,
        annotations=notes,
        shapes=shapes,
        showlegend=False,
        title={"text": title(0), "font": {"size": 18}, "y": 0.97},
        updatemenus=[
            {
                "type": "buttons",
                "direction": "left",
                "x": 1.0,
                "y": 1.13,
                "xanchor": "right",
                "yanchor": "bottom",
                "pad": {"t": 0, "r": 0},
                "showactive": False,
                "font": {"size": 16},
                "buttons": [
                    {
                        "label": "▶ " + tr("hvp.fig.play", lang),
                        "method": "animate",
                        "args": [None, play],
                    },
                    {
                        "label": "❚❚ " + tr("hvp.fig.pause", lang),
                        "method": "animate",
                        "args": [[None], {"mode": "immediate", "frame": {"duration": 0}}],
                    },
                ],
            }
        ],
        sliders=[
            {
                "active": 0,
                "x": 0.0,
                "len": 1.0,
                "y": -0.12,
                "yanchor": "top",
                "pad": {"t": 10},
                "currentvalue": {"prefix": "k = ", "font": {"size": 16}},
                "font": {"size": 12},
                "steps": [
                    {"label": str(k), "method": "animate", "args": [[str(k)], jump]}
                    for k in range(last + 1)
                ],
            }
        ],
    )


def ways_figure(seconds: np.ndarray, labels: Sequence[str], lang: str) -> go.Figure:
    """Median time per call of each HVP route, side by side."""
    micro = np.asarray(seconds) * 1e6
    bars = {
        "type": "bar",
        "x": micro,
        "y": list(labels),
        "orientation": "h",
        "marker": {"color": [BLUE, HV, "#7f7f7f"]},
        "text": [f"{m:.0f} µs" for m in micro],
        "textposition": "auto",
    }
    look = figure_layout(260, showlegend=False)
    look["margin"] = {"l": 20, "r": 30, "t": 20, "b": 60}
    return new_figure(
        [bars],
        **look,
        xaxis=axis_props(tr("hvp.ways.time", lang), title_px=None),
        yaxis=axis_props(autorange="reversed", automargin=True),
    )


# ----------------------------------------------------------------------------------------------
# The network


def training_figure(trained: TrainedNet, lang: str) -> go.Figure:
    steps = np.arange(1, trained.losses.size + 1)
    line = {
        "type": "scatter",
        "x": steps,
        "y": trained.losses,
        "mode": "lines",
        "line": {"color": BLUE, "width": 2},
    }
    return new_figure(
        [line],
        **figure_layout(380),
        xaxis=axis_props(tr("hvp.fig.training_step", lang), title_px=None),
        yaxis=axis_props(tr("hvp.fig.layer_loss", lang), title_px=None, type="log", dtick=1),
    )


def net_power_figure(curv: NetCurvature, lang: str) -> go.Figure:
    """Power iteration's Rayleigh quotient by step, against Lanczos and the exact value."""
    steps = np.arange(1, curv.power.size + 1)
    trace = {
        "type": "scatter",
        "x": steps,
        "y": curv.power,
        "mode": "lines+markers",
        "name": tr("hvp.fig.power_net", lang),
        "line": {"color": HV, "width": 3},
    }
    shapes, notes = [], []
    if curv.lanczos.size:
        y = float(curv.lanczos[0])
        shapes.append(hline(y, {"color": BLUE, "width": 3, "dash": "dash"}))
        notes.append(_line_label(y, tr("hvp.fig.lanczos", lang), {"color": BLUE}, above=False))
    if curv.exact is not None:
        y = float(curv.exact[0])
        shapes.append(hline(y, {"color": EIGEN[0], "width": 2, "dash": "dot"}))
        notes.append(_line_label(y, tr("hvp.fig.exact", lang), {"color": EIGEN[0]}))
    return new_figure(
        [trace],
        **figure_layout(400),
        shapes=shapes,
        annotations=notes,
        xaxis=axis_props(tr("hvp.fig.step", lang), title_px=None),
        yaxis=axis_props(tr("hvp.fig.eigenvalue", lang), title_px=None),
    )


def hutchinson_figure(curv: NetCurvature, lang: str) -> go.Figure:
    """The running Hutchinson estimate with its ±2 standard-error band."""
    s = curv.probes
    m = np.arange(1, s.size + 1)
    mean = np.cumsum(s) / m
    var = np.array([s[:j].var(ddof=1) if j > 1 else np.nan for j in m])
    band = 2 * np.sqrt(var / m)
    traces = [
        {
            "type": "scatter",
            "x": np.r_[m, m[::-1]],
            "y": np.r_[mean + band, (mean - band)[::-1]],
            "fill": "toself",
            "fillcolor": "rgba(31,119,180,0.18)",
            "line": {"width": 0},
            "name": tr("hvp.fig.band", lang),
            "hoverinfo": "skip",
        },
        {
            "type": "scatter",
            "x": m,
            "y": mean,
            "mode": "lines+markers",
            "line": {"color": BLUE, "width": 3},
            "name": tr("hvp.fig.running", lang),
        },
    ]
    shapes, notes = [], []
    if curv.trace_exact is not None:
        shapes.append(hline(curv.trace_exact, {"color": EIGEN[0], "width": 2, "dash": "dash"}))
        notes.append(_line_label(curv.trace_exact, tr("hvp.fig.exact", lang), {"color": EIGEN[0]}))
    return new_figure(
        traces,
        **figure_layout(400),
        shapes=shapes,
        annotations=notes,
        xaxis=axis_props(tr("hvp.fig.probes", lang), title_px=None),
        yaxis=axis_props(tr("hvp.fig.trace", lang), title_px=None),
    )


def directions_figure(curv: NetCurvature, lang: str) -> go.Figure:
    """The loss along the top eigenvector (sharp) and along a random direction (flat)."""
    traces = [
        {
            "type": "scatter",
            "x": curv.alphas,
            "y": curv.loss_top,
            "name": tr("hvp.fig.top_direction", lang),
            "line": {"color": GRADIENT, "width": 4},
        },
        {
            "type": "scatter",
            "x": curv.alphas,
            "y": curv.model_top,
            "name": tr("hvp.fig.quadratic", lang),
            "line": {"color": GRADIENT, "width": 2, "dash": "dot"},
        },
        {
            "type": "scatter",
            "x": curv.alphas,
            "y": curv.loss_random,
            "name": tr("hvp.fig.random_direction", lang),
            "line": {"color": BLUE, "width": 4, "dash": "dash"},
        },
    ]
    yaxis = axis_props(tr("hvp.fig.loss", lang), title_px=None)
    finite = np.concatenate([curv.loss_top, curv.loss_random])
    finite = finite[np.isfinite(finite)]
    if finite.size:
        hi = float(finite.max())
        yaxis["range"] = [min(0.0, float(finite.min())), hi * 1.1 + 1e-9]
    return new_figure(
        traces,
        **figure_layout(430),
        xaxis=axis_props(tr("hvp.fig.alpha", lang), title_px=None),
        yaxis=yaxis,
    )


def net_hessian_figure(curv: NetCurvature, sizes: tuple[int, ...], lang: str) -> go.Figure:
    """The (reduced) full Hessian, with lines between the layers' weight and bias blocks."""
    h = curv.heatmap
    assert h is not None
    b = curv.heatmap_block
    finite = np.abs(h[np.isfinite(h)])
    top = float(np.percentile(finite, 99)) if finite.size else 1.0
    top = top if top > 0 else 1.0
    heatmap = {
        "type": "heatmap",
        "z": h,
        "colorscale": DIVERGING,
        "zmid": 0,
        "zmin": -top,
        "zmax": top,
        "colorbar": {"title": {"text": tr("hvp.fig.net_hessian", lang)}},
        "hovertemplate": "%{z:.3g}<extra></extra>",
    }
    ticks, labels, shapes = [], [], []
    for name, start, stop in layer_blocks(sizes):
        lo, hi = start / b - 0.5, stop / b - 0.5
        ticks.append((lo + hi) / 2)
        labels.append(name)
        if start:  # a line across each axis where a block begins
            line = {"color": "#333", "width": 1}
            shapes += [vline(lo, line), hline(lo, dict(line))]
    return new_figure(
        [heatmap],
        **figure_layout(620),
        shapes=shapes,
        xaxis=axis_props(tickvals=ticks, ticktext=labels, side="top", constrain="domain"),
        yaxis=axis_props(
            tickvals=list(ticks),
            ticktext=list(labels),
            autorange="reversed",
            scaleanchor="x",
            constrain="domain",
        ),
    )


# The notebook's last cell: drawn from what compute.py's ``__main__`` left behind (net, curv).
_NOTEBOOK_FIGURE = """
import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

fig = make_subplots(rows=1, cols=3, subplot_titles=["training loss", "top eigenvalue",
                                                    "trace (Hutchinson)"])
fig.add_scatter(y=net.losses, mode="lines", name="loss", row=1, col=1)
steps = list(range(1, curv.power.size + 1))
fig.add_scatter(x=steps, y=curv.power, mode="lines+markers", name="power iteration",
                row=1, col=2)
fig.add_hline(y=curv.lanczos[0], line_dash="dash", annotation_text="Lanczos",
              annotation_position="bottom right", row=1, col=2)
running = np.cumsum(curv.probes) / np.arange(1, curv.probes.size + 1)
fig.add_scatter(y=running, mode="lines", name="running mean of z·Hz", row=1, col=3)
if curv.exact is not None:
    fig.add_hline(y=curv.exact[0], line_dash="dot", annotation_text="exact",
                  annotation_position="top left", row=1, col=2)
    fig.add_hline(y=curv.trace_exact, line_dash="dot", annotation_text="exact", row=1, col=3)
fig.update_xaxes(title_text="step", row=1, col=1)
fig.update_xaxes(title_text="power step", row=1, col=2)
fig.update_xaxes(title_text="probes", row=1, col=3)
fig.update_yaxes(type="log", row=1, col=1)
fig.update_layout(template="plotly_white", showlegend=False)
fig.show()
"""


def notebook(source: str, title: str, figure: str) -> str:
    """The download ``source`` as a notebook: a ``title`` cell, the source cut into cells at
    its ``# %%`` lines, then ``figure`` (prose) above a cell that draws the training loss, power
    iteration against Lanczos and Hutchinson's running mean. Returns nbformat 4 JSON."""
    return percent_notebook(
        source,
        before=[("markdown", title)],
        after=[("markdown", figure), ("code", _NOTEBOOK_FIGURE.strip())],
    )
