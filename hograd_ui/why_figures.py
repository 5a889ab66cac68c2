"""Figures and downloads of the page "Why gradients of gradients", from the core's results.

Colours keep one meaning on every tab: gradient descent and SGD blue, Newton and Hessian-free
red, damped Newton orange, the trust region green, Adam purple. Every label comes from the
translation table; the symbols (∇f, λ_max, lr) are the same in both languages.
"""

from __future__ import annotations

import math

import numpy as np

from hograd_core.applications.hessian_free import HFRun
from hograd_core.applications.newton import NewtonRace
from hograd_ui.i18n import tr

from .hvp_figures import LIGHT, axis_props, contour_levels, figure_layout, log_axis
from .plotting import cell_title, grid_cells, plain_figure

__all__ = [
    "COLORS", "METHOD_KEYS", "hf_figure", "newton_convergence_figure", "newton_paths_figure",
    "finite_or_dash",
]  # fmt: skip

COLORS = {"gd": "#1f77b4", "newton": "#d62728", "damped": "#ff7f0e", "trust": "#2ca02c",
          "hf": "#d62728", "sgd": "#1f77b4", "adam": "#9467bd"}  # fmt: skip
#: The translation key of each method's name (also the legend entries).
METHOD_KEYS = {"gd": "why.method.gd", "newton": "why.method.newton",
               "damped": "why.method.damped", "trust": "why.method.trust",
               "hf": "why.method.hf", "sgd": "why.method.sgd", "adam": "why.method.adam"}  # fmt: skip


def _line(x, y, key: str, lang: str, **extra: object) -> dict:  # noqa: ANN001
    return {"type": "scatter", "x": x, "y": y, "mode": "lines", "name": tr(METHOD_KEYS[key], lang),
            "line": {"color": COLORS[key], "width": 3}, **extra}  # fmt: skip


def _positive(values: np.ndarray) -> np.ndarray:
    """Values for a log axis: 0 and below, inf and NaN left out (as gaps)."""
    v = np.asarray(values, dtype=np.float64)
    return np.where(np.isfinite(v) & (v > 0), v, np.nan)


# ---- Newton vs gradient descent --------------------------------------------------------------


def newton_paths_figure(race: NewtonRace, lang: str) -> object:
    """Contours of f with each method's path; the start a black dot, each end a diamond."""
    g = race.grid
    z, use_log = contour_levels(g.z)
    finite = z[np.isfinite(z)]
    lo, hi = np.percentile(finite, [1, 99]) if finite.size else (0.0, 1.0)
    hi = hi if hi > lo else lo + 1.0
    traces: list[dict] = [{
        "type": "contour", "x": g.x, "y": g.y, "z": z, "colorscale": LIGHT, "zmin": lo,
        "zmax": hi, "contours": {"start": lo, "end": hi, "size": (hi - lo) / 18},
        "line": {"width": 1, "color": "rgba(0,0,0,0.3)"}, "hoverinfo": "skip",
        "colorbar": {"title": {"text": tr("hvp.fig.log_f" if use_log else "hvp.fig.f", lang),
                               "side": "right"}},
    }]  # fmt: skip
    for path in race.paths:
        p = path.points
        traces.append(_line(p[:, 0], p[:, 1], path.method, lang, mode="lines+markers",
                            marker={"size": 6}))  # fmt: skip
        traces.append({"type": "scatter", "x": [p[-1, 0]], "y": [p[-1, 1]], "mode": "markers",
                       "marker": {"symbol": "diamond", "size": 14, "color": COLORS[path.method],
                                  "line": {"color": "white", "width": 1.5}},
                       "showlegend": False, "hoverinfo": "skip"})  # fmt: skip
    start = race.config.start
    traces.append({"type": "scatter", "x": [start[0]], "y": [start[1]], "mode": "markers",
                   "name": tr("why.fig.start", lang), "marker": {"size": 13, "color": "#111"}})  # fmt: skip
    x, y = race.variables
    return plain_figure(
        traces, **figure_layout(560),
        xaxis=axis_props(x, range=[float(g.x[0]), float(g.x[-1])]),
        yaxis=axis_props(y, range=[float(g.y[0]), float(g.y[-1])]),
    )  # fmt: skip


#: The convergence figure's height: each of its two panels is about 280 px tall (at 480 px in
#: all, they were about 120 px, too low to read a log axis from the back of a room).
CONVERGENCE_HEIGHT = 780


def newton_convergence_figure(race: NewtonRace, lang: str) -> object:
    """Top: f − f* (log) when the minimum f* is known, else f; bottom: |∇f| (log). Stacked:
    the page gives the figure the narrower of two columns, where side by side the two panels'
    titles ran into each other."""
    cells = grid_cells(2, 1, 0.0, 0.14)
    gap = race.minimum is not None
    traces = []
    for path in race.paths:
        k = np.arange(len(path.values))
        left = _positive(path.values - race.minimum) if gap else path.values
        traces.append(_line(k, left, path.method, lang, legendgroup=path.method))
        traces.append(_line(k, _positive(path.grad_norms), path.method, lang, xaxis="x2",
                            yaxis="y2", legendgroup=path.method, showlegend=False))  # fmt: skip
    minimum = f"{race.minimum:g}" if gap else ""
    titles = [tr("why.fig.gap" if gap else "why.fig.value", lang, minimum=minimum),
              tr("why.fig.grad_norm", lang)]  # fmt: skip
    step = tr("why.fig.iteration", lang)
    return plain_figure(
        traces, **figure_layout(CONVERGENCE_HEIGHT, legend="bottom"), annotations=[cell_title(t, *c) for t, c in zip(titles, cells, strict=True)],
        xaxis=axis_props(None, domain=cells[0][0]), xaxis2=axis_props(step, domain=cells[1][0], anchor="y2"),
        yaxis=log_axis(None, *(t["y"] for t in traces[::2]), domain=cells[0][1]) if gap
        else axis_props(None, domain=cells[0][1]),
        yaxis2=log_axis(None, *(t["y"] for t in traces[1::2]), domain=cells[1][1], anchor="x2"),
    )  # fmt: skip


# ---- Hessian-free Newton ---------------------------------------------------------------------


def hf_figure(run: HFRun, lang: str, axis: str = "passes") -> object:
    """The training loss of Hessian-free Newton, SGD and Adam against passes (a gradient or an
    HVP each) or against measured seconds."""
    if axis == "passes":
        xs = {"hf": run.hf_passes, "sgd": np.arange(len(run.sgd_losses)),
              "adam": np.arange(len(run.adam_losses))}  # fmt: skip
    else:
        xs = {"hf": run.hf_seconds, "sgd": run.sgd_seconds, "adam": run.adam_seconds}
    ys = {"hf": run.hf_losses, "sgd": run.sgd_losses, "adam": run.adam_losses}
    traces = [
        _line(xs[k], _positive(ys[k]), k, lang, mode="lines+markers" if k == "hf" else "lines")
        for k in ("sgd", "adam", "hf")
    ]  # fmt: skip
    title = tr("why.fig.passes" if axis == "passes" else "why.fig.seconds", lang)
    return plain_figure(
        traces, **figure_layout(420), xaxis=axis_props(title),
        yaxis=log_axis(tr("why.fig.train_loss", lang), *(t["y"] for t in traces)),
    )  # fmt: skip


def finite_or_dash(x: float, digits: int = 4) -> str:
    return f"{x:.{digits}g}" if math.isfinite(x) else "—"
