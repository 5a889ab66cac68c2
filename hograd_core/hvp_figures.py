"""Plotly figures of the Hessian-vector product page, built from the core's frozen results.

Figures are drawn for a projector: large fonts, few colours with fixed meanings (∇f red, v
black, Hv orange, eigen-directions green and purple), equal axis scales wherever angles matter.
Every label comes from the translation table in the language asked for.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .curvature import Grid, PowerIteration, Slices
from .hvp import HVPResult
from .i18n import tr
from .net_curvature import NetCurvature
from .network import TrainedNet, layer_blocks

__all__ = [
    "contour_figure", "directions_figure", "hessian_figure", "hutchinson_figure",
    "net_hessian_figure", "net_power_figure", "power_figure", "slices_figure",
    "surface_figure", "training_figure", "ways_figure", "clean",
]  # fmt: skip

GRADIENT, VECTOR, HV = "#d62728", "#111111", "#ff7f0e"
EIGEN = ("#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf")
BLUE = "#1f77b4"
_LIGHT = [[0.0, "#fbfdff"], [0.5, "#c6dbef"], [1.0, "#6baed6"]]
_DIVERGING = [[0.0, "#2166ac"], [0.5, "#f7f7f7"], [1.0, "#b2182b"]]  # negative blue, positive red


def _num(x: float) -> str:
    return f"{x:.4g}" if math.isfinite(x) else "—"


def _layout(fig: go.Figure, height: int, legend: str = "top", **extra: object) -> go.Figure:
    """Shared look: readable on a projector (16 px text, 14 px ticks), legend above or below."""
    where = dict(y=1.02, yanchor="bottom") if legend == "top" else dict(y=-0.16, yanchor="top")
    fig.update_layout(
        template="plotly_white", height=height, font=dict(size=16),
        margin=dict(l=60, r=30, t=60, b=70 if legend == "top" else 110),
        hoverlabel=dict(font_size=15),
        legend=dict(orientation="h", xanchor="left", x=0, font=dict(size=15), **where),
        **extra,
    )  # fmt: skip
    fig.update_xaxes(tickfont=dict(size=14), title_font=dict(size=16))
    fig.update_yaxes(tickfont=dict(size=14), title_font=dict(size=16))
    return fig


def clean(values: np.ndarray) -> np.ndarray:
    """Entries below 1e-12 of the largest in size shown as 0 (cos(π/2) = 6e-17 is 0 here)."""
    values = np.asarray(values, dtype=np.float64)
    finite = np.abs(values[np.isfinite(values)])
    scale = max(1.0, float(finite.max())) if finite.size else 1.0
    return np.where(np.abs(values) < 1e-12 * scale, 0.0, values)


def _levels(z: np.ndarray) -> tuple[np.ndarray, bool]:
    """Values to colour: log10(1 + f) when f >= 0 spans hundreds (Rosenbrock's valley)."""
    finite = z[np.isfinite(z)]
    use_log = finite.size > 0 and finite.min() >= 0 and finite.max() >= 100
    return (np.log10(1 + z) if use_log else z), use_log


def _arrow(fig: go.Figure, tail: np.ndarray, head: np.ndarray, color: str, label: str,
           gap: float) -> None:  # fmt: skip
    """An arrow from ``tail`` to ``head`` (data coordinates), labelled ``gap`` past its head."""
    fig.add_annotation(
        x=head[0], y=head[1], ax=tail[0], ay=tail[1], xref="x", yref="y", axref="x", ayref="y",
        showarrow=True, arrowhead=3, arrowsize=1.2, arrowwidth=3.5, arrowcolor=color, text="",
    )  # fmt: skip
    direction = head - tail
    at = head + direction / np.linalg.norm(direction) * gap
    fig.add_annotation(
        x=at[0], y=at[1], text=f"<b>{label}</b>", showarrow=False,
        font=dict(size=20, color=color), bgcolor="rgba(255,255,255,0.75)",
    )  # fmt: skip


def contour_figure(grid: Grid, result: HVPResult, lang: str, pickable: bool = True) -> go.Figure:
    """Contours of f around p with ∇f, v, Hv as arrows and the eigenvector axes dashed."""
    z, use_log = _levels(grid.z)
    finite = z[np.isfinite(z)]
    lo, hi = np.percentile(finite, [1, 99]) if finite.size else (0.0, 1.0)
    hi = hi if hi > lo else lo + 1.0
    names = result.variables
    fig = go.Figure(
        go.Contour(
            x=grid.x, y=grid.y, z=z, colorscale=_LIGHT, zmin=lo, zmax=hi,
            contours=dict(start=lo, end=hi, size=(hi - lo) / 18, showlabels=True,
                          labelfont=dict(size=12, color="#444")),
            line=dict(width=1, color="rgba(0,0,0,0.3)"), hoverinfo="skip",
            colorbar=dict(title=tr("hvp.fig.log_f" if use_log else "hvp.fig.f", lang)),
        )
    )  # fmt: skip
    if pickable:  # a sparse, invisible lattice: clicking one of its points moves p there
        step = max(1, grid.x.size // 27)
        xs, ys = np.meshgrid(grid.x[::step], grid.y[::step])
        fz = grid.z[::step, ::step]
        fig.add_trace(
            go.Scatter(
                x=xs.ravel(), y=ys.ravel(), mode="markers", customdata=fz.ravel(),
                marker=dict(size=14, opacity=0), showlegend=False, name="pick",
                hovertemplate=f"{names[0]} = %{{x:.3f}}<br>{names[1]} = %{{y:.3f}}<br>"
                f"f = %{{customdata:.4g}}<br><i>{tr('hvp.fig.pick', lang)}</i><extra></extra>",
            )
        )  # fmt: skip
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
    for i in range(min(2, result.eigenvalues.size)):
        e = result.eigenvectors[:, i]
        if not np.all(np.isfinite(e)):
            continue
        a, b = p - 0.95 * span * e, p + 0.95 * span * e
        label = f"e{i + 1}: λ = {_num(result.eigenvalues[i])}"
        fig.add_trace(
            go.Scatter(x=[a[0], b[0]], y=[a[1], b[1]], mode="lines", name=label,
                       line=dict(color=EIGEN[i], width=3, dash="dash"), hoverinfo="name")
        )  # fmt: skip
        ends = (p + 0.72 * span * e, p - 0.72 * span * e)  # label the end far from arrow heads
        at = max(ends, key=lambda end: min((np.linalg.norm(end - h) for h in heads), default=0))
        fig.add_annotation(
            x=at[0],
            y=at[1],
            text=f"<b>{label}</b>",
            showarrow=False,
            font=dict(size=17, color=EIGEN[i]),
            bgcolor="rgba(255,255,255,0.85)",
        )
    for vec, scale, color, label in arrows:
        if scale > 0 and np.any(vec):
            _arrow(fig, p, p + scale * vec, color, label, 0.08 * span)
    fig.add_trace(
        go.Scatter(
            x=[p[0]], y=[p[1]], mode="markers", name="p",
            marker=dict(size=14, color="#000", line=dict(color="#fff", width=2)),
            hovertemplate="p = (%{x:.4g}, %{y:.4g})<extra></extra>", showlegend=False,
        )
    )  # fmt: skip
    if g_scale:
        scales = tr("hvp.fig.scales", lang, g=f"{g_scale:.2g}", v=f"{v_scale:.2g}")
    else:
        scales = tr("hvp.fig.scales_no_gradient", lang, v=f"{v_scale:.2g}")
    _layout(fig, 600, title=dict(text=scales, font=dict(size=15)), showlegend=False,
            clickmode="event+select", dragmode="pan")  # fmt: skip
    fig.update_xaxes(title=names[0], range=[grid.x[0], grid.x[-1]], constrain="domain")
    fig.update_yaxes(title=names[1], range=[grid.y[0], grid.y[-1]], scaleanchor="x",
                     scaleratio=1, constrain="domain")  # fmt: skip
    return fig


def surface_figure(grid: Grid, result: HVPResult, lang: str) -> go.Figure:
    """f as a 3-D surface with p marked."""
    finite = grid.z[np.isfinite(grid.z)]
    lo, hi = np.percentile(finite, [1, 99]) if finite.size else (0.0, 1.0)
    z = np.clip(grid.z, lo, hi)
    names = result.variables
    fig = go.Figure(
        go.Surface(x=grid.x, y=grid.y, z=z, colorscale="Viridis", opacity=0.9, showscale=False)
    )
    fig.add_trace(
        go.Scatter3d(
            x=[result.point[0]], y=[result.point[1]], z=[result.value], mode="markers",
            marker=dict(size=7, color="#d62728"), name="p",
        )
    )  # fmt: skip
    _layout(fig, 600, showlegend=False)
    fig.update_scenes(xaxis_title=names[0], yaxis_title=names[1], zaxis_title="f")
    return fig


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
    fig = go.Figure(
        go.Heatmap(
            z=h, x=names, y=names, colorscale=_DIVERGING, zmid=0, zmin=-top, zmax=top,
            text=text, texttemplate="%{text}", hovertext=hover, hoverinfo="text",
            textfont=dict(size=22 if n <= 3 else 16 if n <= 6 else 12), xgap=2, ygap=2,
        )
    )  # fmt: skip
    _layout(fig, 160 + 60 * max(n, 4), title=tr("hvp.hessian.title", lang))
    fig.update_yaxes(autorange="reversed", scaleanchor="x", constrain="domain")
    fig.update_xaxes(side="top", constrain="domain")
    return fig


def slices_figure(slices: Slices, names: Sequence[str], lang: str) -> go.Figure:
    """f(p + t e_i) and its quadratic model, one panel per eigenvector."""
    n = slices.eigenvalues.size
    cols = min(n, 2)
    rows = math.ceil(n / cols)
    titles = [f"e{i + 1}: λ = {_num(float(slices.eigenvalues[i]))}" for i in range(n)]
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=titles, horizontal_spacing=0.1,
                        vertical_spacing=0.12 if rows > 1 else 0.0)  # fmt: skip
    for i in range(n):
        r, c = i // cols + 1, i % cols + 1
        fig.add_trace(
            go.Scatter(x=slices.t, y=slices.values[i], name=tr("hvp.fig.slice_f", lang),
                       line=dict(color=BLUE, width=3), showlegend=i == 0),
            row=r, col=c,
        )  # fmt: skip
        fig.add_trace(
            go.Scatter(x=slices.t, y=slices.model[i], name=tr("hvp.fig.slice_model", lang),
                       line=dict(color=HV, width=3, dash="dash"), showlegend=i == 0),
            row=r, col=c,
        )  # fmt: skip
        finite = slices.values[i][np.isfinite(slices.values[i])]
        if finite.size:
            lo, hi = float(finite.min()), float(finite.max())
            pad = 0.15 * (hi - lo) if hi > lo else 1.0
            fig.update_yaxes(range=[lo - pad, hi + pad], row=r, col=c)
        fig.update_xaxes(title=tr("hvp.fig.t", lang) if r == rows else None, row=r, col=c)
        fig.add_vline(x=0, line=dict(color="#999", width=1, dash="dot"), row=r, col=c)
    fig.update_annotations(font_size=17)
    return _layout(fig, 120 + 340 * rows, legend="bottom")


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
    top eigenvector (left; for n != 2, the components of u_k) while uᵀHu converges (right)."""
    n = len(names)
    u, e, ray = power.iterates, power.target_vector, power.rayleigh
    last = int(np.max(np.nonzero(np.isfinite(ray))[0])) if np.any(np.isfinite(ray)) else 0
    titles = [tr("hvp.fig.direction", lang), tr("hvp.fig.rayleigh", lang)]
    fig = make_subplots(rows=1, cols=2, column_widths=[0.42, 0.58], subplot_titles=titles,
                        horizontal_spacing=0.12)  # fmt: skip
    steps = np.arange(u.shape[0])
    aligned = bool(np.all(np.isfinite(e)))

    def dynamic(k: int) -> list[go.Scatter | go.Bar]:
        """The traces that change with k (indices ``moving`` below), in a fixed order."""
        if n == 2:
            hx, hy = _history(u, k)
            out: list = [
                go.Scatter(x=hx, y=hy, mode="lines", line=dict(color="rgba(0,0,0,0.3)", width=2),
                           hoverinfo="skip", showlegend=False),
                go.Scatter(x=[0, u[k, 0]], y=[0, u[k, 1]], mode="lines+markers+text",
                           line=dict(color=HV, width=5), marker=dict(size=[0, 13], color=HV),
                           text=["", f"u{k}"], textposition="top right",
                           textfont=dict(size=18, color=HV), name="uₖ"),
            ]  # fmt: skip
        else:
            sign = float(np.sign(u[k] @ e)) if aligned and np.all(np.isfinite(u[k])) else 1.0
            out = [
                go.Bar(x=list(names), y=u[k], marker_color=HV, name="uₖ"),
                go.Scatter(x=list(names), y=sign * e if aligned else None, mode="markers",
                           name=tr("hvp.fig.target", lang), marker=dict(
                               symbol="line-ew-open", size=30, color=EIGEN[0], line=dict(width=4))),
            ]  # fmt: skip
        out.append(go.Scatter(x=steps[: k + 1], y=ray[: k + 1], mode="lines+markers",
                              line=dict(color=HV, width=3), marker=dict(size=8, color=HV),
                              name=tr("hvp.fig.rayleigh", lang)))  # fmt: skip
        return out

    def title(k: int) -> str:
        return tr("hvp.fig.power_title", lang, k=k, r=_num(float(ray[k])),
                  a=_num(float(power.alignment[k])))  # fmt: skip

    if n == 2:  # static: the unit circle and the target eigenvector's axis
        theta = np.linspace(0, 2 * np.pi, 200)
        fig.add_trace(go.Scatter(x=np.cos(theta), y=np.sin(theta), mode="lines",
                                 line=dict(color="#bbb", width=1), hoverinfo="skip",
                                 showlegend=False), row=1, col=1)  # fmt: skip
        if aligned:
            fig.add_trace(go.Scatter(x=[-1.15 * e[0], 1.15 * e[0]], y=[-1.15 * e[1], 1.15 * e[1]],
                                     mode="lines", line=dict(color=EIGEN[0], width=3, dash="dash"),
                                     name=tr("hvp.fig.target", lang)), row=1, col=1)  # fmt: skip
        fig.update_xaxes(range=[-1.3, 1.3], row=1, col=1)
        fig.update_yaxes(range=[-1.3, 1.3], row=1, col=1, scaleanchor="x")
    else:
        fig.update_yaxes(range=[-1.1, 1.1], title=tr("hvp.fig.component", lang), row=1, col=1)
    fig.add_trace(go.Scatter(x=steps, y=ray, mode="lines+markers", line=dict(color="#ccc", width=2),
                             marker=dict(size=5, color="#ccc"), hoverinfo="skip",
                             showlegend=False), row=1, col=2)  # fmt: skip
    first = len(fig.data)
    for i, trace in enumerate(dynamic(0)):
        fig.add_trace(trace, row=1, col=1 if i < 2 else 2)
    moving = list(range(first, len(fig.data)))
    fig.frames = [
        go.Frame(name=str(k), data=dynamic(k), traces=moving, layout=dict(title_text=title(k)))
        for k in range(last + 1)
    ]  # fmt: skip
    if math.isfinite(power.target):
        fig.add_hline(y=power.target, line=dict(color=EIGEN[0], width=2, dash="dash"), row=1,
                      col=2, annotation_text=f"λ = {_num(power.target)}",
                      annotation_font=dict(size=16, color=EIGEN[0]))  # fmt: skip
    finite = ray[np.isfinite(ray)]
    if finite.size:
        values = np.append(finite, power.target if math.isfinite(power.target) else finite[0])
        lo, hi = float(values.min()), float(values.max())
        pad = 0.1 * (hi - lo) if hi > lo else 1.0
        fig.update_yaxes(range=[lo - pad, hi + pad], row=1, col=2)
    fig.update_xaxes(title=tr("hvp.fig.step", lang), range=[-0.5, u.shape[0] - 0.5], row=1, col=2)
    fig.update_annotations(font_size=17)
    play = dict(
        frame=dict(duration=450, redraw=True), fromcurrent=True, transition=dict(duration=0)
    )
    jump = dict(mode="immediate", frame=dict(duration=0, redraw=True), transition=dict(duration=0))
    _layout(fig, 580, showlegend=False, title=dict(text=title(0), font=dict(size=18), y=0.97))
    fig.update_layout(
        margin=dict(t=120, b=120),
        updatemenus=[dict(
            type="buttons", direction="left", x=1.0, y=1.13, xanchor="right", yanchor="bottom",
            pad=dict(t=0, r=0), showactive=False, font=dict(size=16),
            buttons=[dict(label="▶ " + tr("hvp.fig.play", lang), method="animate",
                          args=[None, play]),
                     dict(label="❚❚ " + tr("hvp.fig.pause", lang), method="animate",
                          args=[[None], dict(mode="immediate", frame=dict(duration=0))])],
        )],
        sliders=[dict(
            active=0, x=0.0, len=1.0, y=-0.12, yanchor="top", pad=dict(t=10),
            currentvalue=dict(prefix="k = ", font=dict(size=16)), font=dict(size=12),
            steps=[dict(label=str(k), method="animate", args=[[str(k)], jump])
                   for k in range(last + 1)],
        )],
    )  # fmt: skip
    return fig


def ways_figure(seconds: np.ndarray, labels: Sequence[str], lang: str) -> go.Figure:
    """Median time per call of each HVP route, side by side."""
    micro = np.asarray(seconds) * 1e6
    fig = go.Figure(
        go.Bar(x=micro, y=list(labels), orientation="h", marker_color=[BLUE, HV, "#7f7f7f"],
               text=[f"{m:.0f} µs" for m in micro], textposition="auto")
    )  # fmt: skip
    _layout(fig, 260, showlegend=False)
    fig.update_layout(margin=dict(l=20, r=30, t=20, b=60))
    fig.update_xaxes(title=tr("hvp.ways.time", lang))
    fig.update_yaxes(autorange="reversed", automargin=True)
    return fig


# ----------------------------------------------------------------------------------------------
# The network


def training_figure(trained: TrainedNet, lang: str) -> go.Figure:
    steps = np.arange(1, trained.losses.size + 1)
    fig = go.Figure(go.Scatter(x=steps, y=trained.losses, mode="lines",
                               line=dict(color=BLUE, width=2)))  # fmt: skip
    _layout(fig, 380)
    fig.update_xaxes(title=tr("hvp.fig.training_step", lang))
    fig.update_yaxes(title=tr("hvp.fig.layer_loss", lang), type="log", dtick=1)
    return fig


def net_power_figure(curv: NetCurvature, lang: str) -> go.Figure:
    """Power iteration's Rayleigh quotient by step, against Lanczos and the exact value."""
    steps = np.arange(1, curv.power.size + 1)
    fig = go.Figure(
        go.Scatter(
            x=steps,
            y=curv.power,
            mode="lines+markers",
            name=tr("hvp.fig.power_net", lang),
            line=dict(color=HV, width=3),
        )
    )
    if curv.lanczos.size:
        fig.add_hline(y=float(curv.lanczos[0]), line=dict(color=BLUE, width=3, dash="dash"),
                      annotation_text=tr("hvp.fig.lanczos", lang),
                      annotation_position="bottom right", annotation_font_color=BLUE)  # fmt: skip
    if curv.exact is not None:
        fig.add_hline(y=float(curv.exact[0]), line=dict(color=EIGEN[0], width=2, dash="dot"),
                      annotation_text=tr("hvp.fig.exact", lang),
                      annotation_position="top right", annotation_font_color=EIGEN[0])  # fmt: skip
    _layout(fig, 400)
    fig.update_xaxes(title=tr("hvp.fig.step", lang))
    fig.update_yaxes(title=tr("hvp.fig.eigenvalue", lang))
    return fig


def hutchinson_figure(curv: NetCurvature, lang: str) -> go.Figure:
    """The running Hutchinson estimate with its ±2 standard-error band."""
    s = curv.probes
    m = np.arange(1, s.size + 1)
    mean = np.cumsum(s) / m
    var = np.array([s[:j].var(ddof=1) if j > 1 else np.nan for j in m])
    band = 2 * np.sqrt(var / m)
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=np.r_[m, m[::-1]], y=np.r_[mean + band, (mean - band)[::-1]],
                             fill="toself", fillcolor="rgba(31,119,180,0.18)", line=dict(width=0),
                             name=tr("hvp.fig.band", lang), hoverinfo="skip"))  # fmt: skip
    fig.add_trace(go.Scatter(x=m, y=mean, mode="lines+markers", line=dict(color=BLUE, width=3),
                             name=tr("hvp.fig.running", lang)))  # fmt: skip
    if curv.trace_exact is not None:
        fig.add_hline(y=curv.trace_exact, line=dict(color=EIGEN[0], width=2, dash="dash"),
                      annotation_text=tr("hvp.fig.exact", lang),
                      annotation_font_color=EIGEN[0])  # fmt: skip
    _layout(fig, 400)
    fig.update_xaxes(title=tr("hvp.fig.probes", lang))
    fig.update_yaxes(title=tr("hvp.fig.trace", lang))
    return fig


def directions_figure(curv: NetCurvature, lang: str) -> go.Figure:
    """The loss along the top eigenvector (sharp) and along a random direction (flat)."""
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=curv.alphas, y=curv.loss_top, name=tr("hvp.fig.top_direction",
                             lang), line=dict(color=GRADIENT, width=4)))  # fmt: skip
    fig.add_trace(go.Scatter(x=curv.alphas, y=curv.model_top, name=tr("hvp.fig.quadratic", lang),
                             line=dict(color=GRADIENT, width=2, dash="dot")))  # fmt: skip
    fig.add_trace(go.Scatter(x=curv.alphas, y=curv.loss_random, name=tr(
        "hvp.fig.random_direction", lang), line=dict(color=BLUE, width=4)))  # fmt: skip
    finite = np.concatenate([curv.loss_top, curv.loss_random])
    finite = finite[np.isfinite(finite)]
    if finite.size:
        hi = float(finite.max())
        fig.update_yaxes(range=[min(0.0, float(finite.min())), hi * 1.1 + 1e-9])
    _layout(fig, 430)
    fig.update_xaxes(title=tr("hvp.fig.alpha", lang))
    fig.update_yaxes(title=tr("hvp.fig.loss", lang))
    return fig


def net_hessian_figure(curv: NetCurvature, sizes: tuple[int, ...], lang: str) -> go.Figure:
    """The (reduced) full Hessian, with lines between the layers' weight and bias blocks."""
    h = curv.heatmap
    assert h is not None
    b = curv.heatmap_block
    finite = np.abs(h[np.isfinite(h)])
    top = float(np.percentile(finite, 99)) if finite.size else 1.0
    top = top if top > 0 else 1.0
    fig = go.Figure(go.Heatmap(z=h, colorscale=_DIVERGING, zmid=0, zmin=-top, zmax=top,
                               colorbar=dict(title=tr("hvp.fig.net_hessian", lang)),
                               hovertemplate="%{z:.3g}<extra></extra>"))  # fmt: skip
    ticks, labels = [], []
    for name, start, stop in layer_blocks(sizes):
        lo, hi = start / b - 0.5, stop / b - 0.5
        ticks.append((lo + hi) / 2)
        labels.append(name)
        if start:
            for axis in ("x", "y"):
                line = dict(color="#333", width=1)
                if axis == "x":
                    fig.add_vline(x=lo, line=line)
                else:
                    fig.add_hline(y=lo, line=line)
    _layout(fig, 620)
    fig.update_xaxes(tickvals=ticks, ticktext=labels, side="top", constrain="domain")
    fig.update_yaxes(tickvals=ticks, ticktext=labels, autorange="reversed", scaleanchor="x",
                     constrain="domain")  # fmt: skip
    return fig
