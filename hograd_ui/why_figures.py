"""Figures and downloads of the page "Why gradients of gradients", from the core's results.

Gradient descent is blue, as on the Newton tab (hograd_labs/newton). Every label comes from the
translation table; the symbols (∇f, λ_max, lr) are the same in both languages.
"""

from __future__ import annotations

import math

import numpy as np

from hograd_core.applications.stability import NetStability, QuadraticRun
from hograd_ui.i18n import tr

from .hvp_figures import axis_props, figure_layout, log_axis
from .plotting import cell_title, grid_cells, hline, plain_figure

__all__ = [
    "COLORS", "METHOD_KEYS", "quadratic_figure", "sharpness_figure",
    "finite_or_dash",
]  # fmt: skip

COLORS = {"gd": "#1f77b4"}
#: The translation key of each method's name (also the legend entries).
METHOD_KEYS = {"gd": "why.method.gd"}


def _line(x, y, key: str, lang: str, **extra: object) -> dict:  # noqa: ANN001
    return {"type": "scatter", "x": x, "y": y, "mode": "lines", "name": tr(METHOD_KEYS[key], lang),
            "line": {"color": COLORS[key], "width": 3}, **extra}  # fmt: skip


def _positive(values: np.ndarray) -> np.ndarray:
    """Values for a log axis: 0 and below, inf and NaN left out (as gaps)."""
    v = np.asarray(values, dtype=np.float64)
    return np.where(np.isfinite(v) & (v > 0), v, np.nan)


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
