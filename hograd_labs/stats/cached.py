"""The gradient-statistics lab's cached calls: the settings checked against the budget, the
run (both precisions) once per setting with its exports, the anomaly-mode replay in a fresh
process, and the download, which is :mod:`.compute`'s own source with the page's settings
written on the line ``__main__`` reads them from."""

from __future__ import annotations

import inspect
import json
from dataclasses import asdict, dataclass

import streamlit as st

from hograd_core.applications.common import Code, check, check_work, marked_code
from hograd_core.errors import ArgumentError
from hograd_serving.cached import Caption, with_bar
from hograd_serving.gate import HEAVY_SECONDS, heavy_work
from hograd_serving.jobs import run_cold

from . import compute
from .compute import DTYPES, GradientStats, StatsConfig

__all__ = [
    "ANOMALY_SECONDS",
    "STATS_BUDGET",
    "check_config",
    "script",
    "why_anomaly",
    "why_gradient_stats",
]


@dataclass(frozen=True)
class StatsBudget:
    max_depth: int = 12
    max_width: int = 128
    max_steps: int = 300
    max_batch: int = 256
    max_work: float = 2.5e9  # parameters x batch x steps x 2 (both precisions): ~1 s here


STATS_BUDGET = StatsBudget()

# The lines of compute.py's ``__main__`` that the download fills in (each must occur once).
_CONFIG = "    config = StatsConfig()\n"
_GRADIENT = "    gradient = gradients  # or gradients_func: the same gradients by torch.func\n"
_FUNC = "    gradient = gradients_func  # torch.func's grad_and_value\n"


def check_config(config: StatsConfig) -> None:
    """Refuse settings outside their ranges or above the budget, before any work.

    Raises:
        ArgumentError: an unknown activation or precision, a setting below its range.
        BudgetError: a network, batch or run over :data:`STATS_BUDGET`.
    """
    b = STATS_BUDGET
    if config.activation not in ("tanh", "relu"):
        raise ArgumentError("stats.activation", got=str(config.activation)[:20])
    if config.dtype not in DTYPES:
        raise ArgumentError("stats.dtype", got=str(config.dtype)[:20])
    check("depth", config.depth, 1, b.max_depth)
    check("width", config.width, 2, b.max_width)
    check("steps", config.steps, 1, b.max_steps)
    check("batch", config.batch, 1, b.max_batch)
    check("lr", config.lr, 1e-5, 100.0)
    check("gain", config.gain, 0.1, 5.0)
    check("clip", config.clip, 0.0, 1e6)
    n = 64 * config.width + (config.depth - 1) * config.width**2 + 10 * config.width
    check_work("stats.budget.work", n * config.batch * config.steps * 2, b.max_work)


def script(config: StatsConfig, func: bool = False) -> Code:
    """The download: compute.py as it is, with ``config`` written where its ``__main__`` sets
    it and (``func``) each step's gradients taken by torch.func."""
    source = inspect.getsource(compute)
    for old, new in [(_CONFIG, f"    config = {config!r}\n")] + (
        [(_GRADIENT, _FUNC)] if func else []
    ):
        assert source.count(old) == 1, f"compute.py's __main__ no longer has {old.strip()!r}"
        source = source.replace(old, new)
    return marked_code(source)


@st.cache_data(max_entries=16, show_spinner=False)
def why_gradient_stats(
    config: StatsConfig,
    _caption: Caption = lambda done, total: f"{done}/{total}",
) -> tuple[GradientStats, Code, str, str]:
    """The run, its download, and its CSV and JSON exports. ``config`` holds primitives only
    (a frozen dataclass: hashed by its fields). A refused setting draws no progress bar."""
    check_config(config)
    stats = with_bar(_caption, lambda progress: compute.run(config, progress))
    return stats, script(config), compute.stats_csv(stats), compute.stats_json(stats)


#: Runs compute.anomaly_message in a fresh interpreter and prints its answer as JSON.
_ANOMALY = (
    "import json, sys, torch; torch.set_num_threads(1); "
    "from hograd_labs.stats.compute import StatsConfig, anomaly_message; "
    "print(json.dumps(anomaly_message(StatsConfig(**json.loads(sys.stdin.read())))))"
)
ANOMALY_SECONDS = 60.0


@st.cache_data(max_entries=16, show_spinner=False)
def why_anomaly(config: StatsConfig) -> str | None:
    """What ``torch.autograd.detect_anomaly()`` says about the run's first NaN, asked in a
    fresh Python process: anomaly mode is one switch for a whole process, and on in this one
    it would slow down and check every session's autograd. A cold start imports torch first
    (1-2 s), so this runs only when the student asks for it."""
    check_config(config)
    with heavy_work(seconds=HEAVY_SECONDS):
        return json.loads(run_cold(_ANOMALY, json.dumps(asdict(config)), ANOMALY_SECONDS))
