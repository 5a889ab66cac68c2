"""Figures and downloads of the page "Why gradients of gradients", from the core's results.

Colours keep one meaning on every tab: gradient descent blue, Newton red, damped Newton orange,
the trust region green. Every label comes from the translation table; the symbols (∇f, λ_max, lr) are the same in both languages.
"""

from __future__ import annotations

import math

import numpy as np

from hograd_core.applications.newton import NewtonRace
from hograd_core.applications.stability import NetStability, QuadraticRun
from hograd_ui.i18n import tr

from .hvp_figures import LIGHT, axis_props, contour_levels, figure_layout, log_axis
from .plotting import cell_title, grid_cells, hline, plain_figure

__all__ = [
    "COLORS", "METHOD_KEYS", "newton_convergence_figure", "newton_paths_figure",
    "quadratic_figure", "sharpness_figure",
    "finite_or_dash",
]  # fmt: skip

COLORS = {"gd": "#1f77b4", "newton": "#d62728", "damped": "#ff7f0e", "trust": "#2ca02c"}
#: The translation key of each method's name (also the legend entries).
METHOD_KEYS = {"gd": "why.method.gd", "newton": "why.method.newton",
               "damped": "why.method.damped", "trust": "why.method.trust"}  # fmt: skip


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


# ---- the stability limit ---------------------------------------------------------------------


def quadratic_figure(run: QuadraticRun, lang: str) -> object:
    """f at each gradient-descent step on the κ quadratic (log scale)."""
    k = np.arange(len(run.losses))
    return plain_figure(
        [_line(k, _positive(run.losses), "gd", lang)], **figure_layout(380),
        xaxis=axis_props(tr("why.fig.iteration", lang)),
        yaxis=log_axis(tr("why.fig.f", lang), _positive(run.losses)),
    )  # fmt: skip


def sharpness_figure(run: NetStability, lang: str) -> object:
    """Left: the training loss (log); right: λ_max along training against 2/lr."""
    cells = grid_cells(1, 2, 0.12, 0.0)
    limit = 2 / run.config.lr
    traces = [
        _line(np.arange(len(run.losses)), _positive(run.losses), "gd", lang, showlegend=False),
        {"type": "scatter", "x": run.sharpness_steps, "y": run.sharpness, "mode": "lines+markers",
         "name": "λ_max", "xaxis": "x2", "yaxis": "y2", "line": {"color": "#d62728", "width": 3}},
    ]  # fmt: skip
    step = tr("why.fig.iteration", lang)
    titles = [tr("why.fig.train_loss", lang), tr("why.fig.sharpness", lang)]
    label = {"text": f"2/lr = {limit:.3g}", "x": 1, "xref": "x2 domain", "xanchor": "right",
             "y": limit, "yref": "y2", "yanchor": "bottom", "showarrow": False,
             "font": {"color": "#111", "size": 15}}  # fmt: skip
    top = max(limit, float(np.nanmax(run.sharpness)) if run.sharpness.size else limit)
    return plain_figure(
        traces, **figure_layout(420), showlegend=False,
        annotations=[*(cell_title(t, *c) for t, c in zip(titles, cells, strict=True)), label],
        shapes=[hline(limit, {"color": "#111", "width": 2, "dash": "dash"}, "2")],
        xaxis=axis_props(None, domain=cells[0][0]), xaxis2=axis_props(step, domain=cells[1][0], anchor="y2"),
        yaxis=axis_props(None, domain=cells[0][1], type="log", exponentformat="power"),
        yaxis2=axis_props(None, domain=cells[1][1], anchor="x2", range=[0, 1.15 * top]),
    )  # fmt: skip


def finite_or_dash(x: float, digits: int = 4) -> str:
    return f"{x:.{digits}g}" if math.isfinite(x) else "—"
