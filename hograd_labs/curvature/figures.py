"""Figures of the curvature lab, from :mod:`.compute`'s results; the language comes in as an
argument (the chart draws them for a projector). Exact values black, Hutchinson's estimate olive;
heavy ball red, plain gradient descent blue (each with its own dashes and markers); the closed
form a line, the run markers."""

from __future__ import annotations

import math

import numpy as np

from hograd_ui.i18n import tr
from hograd_ui.notebook import percent_notebook
from hograd_ui.plot_kit import (
    BLACK,
    BLUE,
    GREY,
    INDIGO,
    OLIVE,
    RED,
    axis_props,
    figure_layout,
    log_axis,
    positive,
)
from hograd_ui.plotting import plain_figure

from .compute import DiagonalStudy, MomentumRun, Spectra, heavy_ball_rate

__all__ = [
    "density_figure",
    "diagonal_figure",
    "error_figure",
    "hf_figure",
    "momentum_figure",
    "notebook",
    "rate_figure",
    "spectrum_figure",
]

#: From the kit's checked palette (the estimate was orange, 2.5:1 on white).
EXACT, ESTIMATE, MOMENTUM, GD = BLACK, OLIVE, RED, BLUE
#: The momentum chart's traces by method: the line's dash along the largest eigenvalue's
#: direction and along the others, and the run's marker; no dash or marker is shared between
#: the two methods, so they differ without colour too (WCAG 1.4.1).
TRACE_CUES = {
    "momentum": {"top": "solid", "other": "dot", "symbol": "circle"},
    "gd": {"top": "dash", "other": "dashdot", "symbol": "square"},
}
FLOOR = 1e-15  # the momentum chart stops at this fraction of the start (float64 rounding)


def _title(text: str) -> dict:
    """A title at the top left, clear of the mode bar (top right)."""
    return {"text": text, "font": {"size": 17}, "x": 0, "xref": "paper", "xanchor": "left"}


def _legend_below(height: int, drop: float = -0.24) -> dict:
    """The shared look with the legend under the x axis title, clear of it."""
    look = figure_layout(height, legend="bottom")
    look["legend"]["y"] = drop
    look["margin"]["b"] = 150
    return look


def diagonal_figure(s: DiagonalStudy, lang: str) -> object:
    """Each Hᵢᵢ exact, and Hutchinson's estimate with ±2 standard errors."""
    x = list(s.names)
    traces = [
        {
            "type": "scatter",
            "x": x,
            "y": s.estimate,
            "mode": "markers",
            "name": tr("curvature.fig.estimate", lang, probes=len(s.rms_error)),
            "marker": {"color": ESTIMATE, "size": 10},
            "error_y": {
                "type": "data",
                "array": 2 * np.nan_to_num(s.standard_error),
                "color": ESTIMATE,
                "thickness": 2,
            },
        },
        {
            "type": "scatter",
            "x": x,
            "y": s.exact,
            "mode": "markers",
            "name": tr("curvature.fig.exact", lang),
            "marker": {"color": EXACT, "size": 12, "symbol": "line-ew-open", "line": {"width": 3}},
        },
    ]
    return plain_figure(
        traces,
        **_legend_below(460, -0.3 if len(x) > 10 else -0.24),
        title=_title(tr("curvature.fig.diagonal", lang)),
        xaxis=axis_props(tr("curvature.fig.entry", lang), type="category"),
        yaxis=axis_props("Hᵢᵢ"),
    )


def error_figure(s: DiagonalStudy, repeats: int, lang: str) -> object:
    """The RMS error of Hutchinson's estimate against the probes, and its closed form."""
    k = np.arange(1, len(s.rms_error) + 1)
    traces = [
        {
            "type": "scatter",
            "x": k,
            "y": positive(s.rms_error),
            "mode": "lines",
            "name": tr("curvature.fig.measured", lang, repeats=repeats),
            "line": {"color": ESTIMATE, "width": 3},
        },
        {
            "type": "scatter",
            "x": k,
            "y": positive(s.predicted),
            "mode": "lines",
            "name": tr("curvature.fig.predicted", lang),
            "line": {"color": EXACT, "width": 2, "dash": "dash"},
        },
    ]
    return plain_figure(
        traces,
        **_legend_below(460),
        title=_title(tr("curvature.fig.error", lang)),
        xaxis=log_axis(tr("curvature.fig.probes", lang), k),
        yaxis=log_axis(tr("curvature.fig.error_axis", lang), traces[0]["y"], traces[1]["y"]),
    )


def momentum_figure(run: MomentumRun, lang: str) -> object:
    """|x_k| along each eigenvector: the run (markers) on its closed form M(λ)^k (lines), down
    to FLOOR times |x₀| (below it float64's rounding of x decides, not the method)."""
    floor = FLOOR * float(np.abs(run.components["gd"][0]).max())
    traces = []
    for method, color, beta, key in (
        ("momentum", MOMENTUM, run.config.beta, "curvature.fig.trace.momentum"),
        ("gd", GD, 0.0, "curvature.fig.trace.gd"),
    ):
        for i, lam in enumerate(run.eigenvalues):
            cue = TRACE_CUES[method]
            dash = cue["top"] if i == len(run.eigenvalues) - 1 else cue["other"]
            name = tr(key, lang, beta=f"{beta:g}", lam=f"{lam:.4g}")
            closed = np.where(
                np.abs(run.closed_form[method][:, i]) >= floor,
                np.abs(run.closed_form[method][:, i]),
                np.nan,
            )
            ran = np.abs(run.components[method][:, i])
            ran = np.where(ran >= floor, ran, np.nan)
            traces.append(
                {
                    "type": "scatter",
                    "y": positive(closed),
                    "mode": "lines",
                    "name": name,
                    "legendgroup": f"{method}{i}",
                    "line": {"color": color, "width": 2.5, "dash": dash},
                }
            )
            traces.append(
                {
                    "type": "scatter",
                    "y": positive(ran),
                    "mode": "markers",
                    "legendgroup": f"{method}{i}",
                    "showlegend": False,
                    "marker": {"color": color, "size": 6, "symbol": cue["symbol"]},
                    "hoverinfo": "y",
                }
            )
    return plain_figure(
        traces,
        **_legend_below(500),
        title=_title(tr("curvature.fig.components", lang)),
        xaxis=axis_props(tr("curvature.fig.step", lang)),
        yaxis=log_axis(tr("curvature.fig.component", lang), *(t["y"] for t in traces)),
    )


def rate_figure(run: MomentumRun, lang: str) -> object:
    """The rate ρ of one eigen-direction against lr·λ, for β and for β = 0; the quadratic's
    two directions marked, and the limit 2(1 + β)."""
    beta, lr = run.config.beta, run.config.lr
    top = max(2 * (1 + beta), lr * float(run.eigenvalues[-1])) * 1.1
    h = np.linspace(0, top, 400)
    traces = [
        {
            "type": "scatter",
            "x": h,
            "y": [heavy_ball_rate(x, b, 1.0) for x in h],
            "mode": "lines",
            "name": tr(key, lang, beta=f"{b:g}"),
            "line": {"color": color, "width": 3},
        }
        for key, b, color in (
            ("curvature.fig.rate_momentum", beta, MOMENTUM),
            ("curvature.fig.rate_gd", 0.0, GD),
        )
    ]
    lams = run.eigenvalues
    traces.append(
        {
            "type": "scatter",
            "x": lr * lams,
            "y": list(run.rates["momentum"]),
            "mode": "markers",
            "name": tr("curvature.fig.directions", lang),
            "marker": {
                "color": MOMENTUM,
                "size": 14,
                "symbol": "diamond",
                "line": {"color": "white", "width": 1.5},
            },
        }
    )
    limit = 2 * (1 + beta)
    return plain_figure(
        traces,
        **_legend_below(500),
        title=_title(tr("curvature.fig.rates", lang)),
        xaxis=axis_props("lr · λ", range=[0, top]),
        yaxis=axis_props(tr("curvature.fig.rate", lang), range=[0, 1.6]),
        shapes=[
            {
                "type": "line",
                "x0": 0,
                "x1": top,
                "y0": 1,
                "y1": 1,
                "line": {"color": "#777", "dash": "dash", "width": 1.5},
            },
            {
                "type": "line",
                "x0": limit,
                "x1": limit,
                "y0": 0,
                "y1": 1.6,
                "line": {"color": MOMENTUM, "dash": "dot", "width": 2},
            },
        ],
        annotations=[
            {
                "x": limit,
                "y": 1.55,
                "text": "2(1 + β)",
                "showarrow": False,
                "xanchor": "right",
                "font": {"size": 15, "color": MOMENTUM},
            }
        ],
    )


def notebook(source: str, title: str) -> str:
    """The download ``source`` as a notebook: a ``title`` cell, then the source cut into cells
    at its ``# %%`` lines. Returns nbformat 4 JSON."""
    return percent_notebook(source, before=[("markdown", title)], after=[])


#: The density chart: the histogram's bars a grey at 3.5:1 on white (WCAG 1.4.11; #bbbbbb was
#: 1.9:1), drawn opaque; the lines over them, the exact density (black, dashed) and SLQ's
#: (indigo), 3:1 or more on the bars too (olive, the diagonal's estimate, is 1.2:1 on them).
GGN, HESS, BULK, SLQ = BLUE, RED, GREY, INDIGO


def _symlog(values: np.ndarray, scale: float) -> np.ndarray:
    """asinh(λ/scale): linear within ±scale, logarithmic beyond, sign kept."""
    return np.arcsinh(np.asarray(values, dtype=np.float64) / scale)


def _symlog_ticks(top: float, scale: float) -> dict:
    """Ticks of a symlog axis at 0 and ±1, ±3 × powers of ten up to ``top``, as real values."""
    values = [0.0]
    p = 10.0 ** math.ceil(math.log10(scale))  # ticks closer to 0 than scale would overlap
    while p <= top * 1.01:
        values += [p, -p]
        p *= 10
    values.sort()
    return {"tickvals": _symlog(values, scale).tolist(), "ticktext": [f"{v:.3g}" for v in values]}


def spectrum_figure(sp: Spectra, lang: str) -> object:
    """The eigenvalues of G and H, ascending, on a symlog axis (asinh), zero dashed."""
    top = float(max(abs(sp.hessian).max(), abs(sp.ggn).max()))
    scale = 1e-3 * top
    n = np.arange(1, len(sp.hessian) + 1)
    traces = [
        {
            "type": "scatter",
            "x": n,
            "y": _symlog(values, scale),
            "mode": "markers",
            "name": tr(key, lang),
            "customdata": values,
            "hovertemplate": "%{customdata:.4g}<extra></extra>",
            "marker": {"color": color, "size": 7, "symbol": symbol},
        }
        for key, values, color, symbol in (
            ("curvature.fig.eig_h", sp.hessian, HESS, "circle"),
            ("curvature.fig.eig_g", sp.ggn, GGN, "diamond-open"),
        )
    ]
    return plain_figure(
        traces,
        **_legend_below(480),
        title=_title(tr("curvature.fig.spectrum", lang)),
        xaxis=axis_props(tr("curvature.fig.eig_index", lang)),
        yaxis=axis_props(tr("curvature.fig.eig_value", lang), **_symlog_ticks(top, scale)),
        shapes=[
            {
                "type": "line",
                "x0": 0,
                "x1": len(n) + 1,
                "y0": 0,
                "y1": 0,
                "line": {"color": "#777", "dash": "dash", "width": 1.5},
            }
        ],
    )


def hf_figure(sp: Spectra, lang: str) -> object:
    """The loss after each Hessian-free step on G and on H; CG's negative-curvature stops
    marked with a cross."""
    traces = []
    for run, color, key in (
        (sp.hf[0], GGN, "curvature.fig.hf_g"),
        (sp.hf[1], HESS, "curvature.fig.hf_h"),
    ):
        k = np.arange(len(run.losses))
        traces.append(
            {
                "type": "scatter",
                "x": k,
                "y": run.losses,
                "mode": "lines+markers",
                "name": tr(key, lang),
                "line": {"color": color, "width": 3},
                "marker": {"size": 6},
            }
        )
        stops = np.flatnonzero(run.negative) + 1
        if stops.size:
            traces.append(
                {
                    "type": "scatter",
                    "x": stops,
                    "y": run.losses[stops],
                    "mode": "markers",
                    "name": tr("curvature.fig.negative_stop", lang),
                    "marker": {
                        "color": color,
                        "size": 14,
                        "symbol": "x-thin",
                        "line": {"width": 3, "color": color},
                    },
                }
            )
    return plain_figure(
        traces,
        **_legend_below(480),
        title=_title(tr("curvature.fig.hf", lang)),
        xaxis=axis_props(tr("curvature.fig.hf_step", lang)),
        yaxis=log_axis(tr("curvature.fig.loss", lang), *(t["y"] for t in traces)),
    )


def density_figure(sp: Spectra, lang: str) -> object:
    """SLQ's density (indigo) over the exact smoothed density (black dashed) and the histogram
    of eigvalsh's eigenvalues (grey bars), log y; the bulk, the outliers and the negative eigenvalues
    named."""
    floor = 1e-4 * float(sp.exact_density.max())
    r = sp.regions
    traces = [
        {
            "type": "histogram",
            "x": sp.hessian,
            "histnorm": "probability density",
            "xbins": {
                "start": float(sp.grid[0]),
                "end": float(sp.grid[-1]),
                "size": float(sp.grid[-1] - sp.grid[0]) / 120,
            },
            "name": tr("curvature.fig.histogram", lang),
            "marker": {"color": BULK},
        },
        {
            "type": "scatter",
            "x": sp.grid,
            "y": np.maximum(sp.exact_density, floor),
            "mode": "lines",
            "name": tr("curvature.fig.exact_density", lang),
            "line": {"color": EXACT, "width": 2, "dash": "dash"},
        },
        {
            "type": "scatter",
            "x": sp.grid,
            "y": np.maximum(sp.density, floor),
            "mode": "lines",
            "name": tr(
                "curvature.fig.slq_density", lang, starts=len(sp.nodes), steps=sp.nodes.shape[1]
            ),
            "line": {"color": SLQ, "width": 3},
        },
    ]
    peak = float(max(sp.density.max(), sp.exact_density.max()))
    notes = [
        {
            "x": (r.bulk[0] + r.bulk[1]) / 2,
            "y": math.log10(peak),
            "ax": 60,
            "ay": -10,
            "text": tr("curvature.fig.bulk", lang, low=f"{r.bulk[0]:.3g}", high=f"{r.bulk[1]:.3g}"),
        },
        {
            "x": float(sp.hessian[0]),
            "y": math.log10(peak) - 1.5,
            "ax": -20,
            "ay": -60,
            "text": tr(
                "curvature.fig.negative",
                lang,
                k=int((sp.hessian < 0).sum()),
                n=len(sp.hessian),
                mass=f"{r.negative_mass:.0%}",
            ),
        },
    ]
    for i, value in enumerate(r.outliers[:4]):
        notes.append(
            {
                "x": value,
                "y": math.log10(floor) + 1.2 + 0.4 * (i % 2),
                "ax": 0,
                "ay": -50,
                "text": tr("curvature.fig.outlier", lang, value=f"{value:.3g}"),
            }
        )
    for note in notes:
        note.update(
            {
                "showarrow": True,
                "arrowhead": 2,
                "font": {"size": 14},
                "bgcolor": "rgba(255,255,255,0.85)",
            }
        )
    return plain_figure(
        traces,
        **_legend_below(520),
        title=_title(tr("curvature.fig.density", lang)),
        xaxis=axis_props(tr("curvature.fig.eigenvalue", lang)),
        yaxis=axis_props(
            tr("curvature.fig.density_axis", lang),
            type="log",
            range=[math.log10(floor), math.log10(peak) + 0.3],
        ),
        annotations=notes,
        barmode="overlay",
    )
