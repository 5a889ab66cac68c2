"""The stability lab's cached calls: the settings checked against the budget, the quadratic and
the network run once per setting, and the download, which is :mod:`.compute`'s own source with
the page's settings written on the line ``__main__`` reads them from."""

from __future__ import annotations

import inspect
from dataclasses import dataclass

import streamlit as st

from hograd_core.applications.common import Code, check, check_work, marked_code
from hograd_core.errors import ArgumentError
from hograd_serving.cached import Caption, with_bar

from . import compute
from .compute import DATASETS, LANCZOS_START, NetStability, QuadraticRun, StabilityConfig

__all__ = [
    "STABILITY_BUDGET",
    "check_network",
    "check_quadratic",
    "script",
    "why_quadratic",
    "why_stability",
]


@dataclass(frozen=True)
class StabilityBudget:
    max_steps: int = 1_000
    max_lanczos: int = 40
    max_parameters: int = 5_000
    max_work: float = 1.5e9  # parameters x examples x passes (a gradient or an HVP each)


STABILITY_BUDGET = StabilityBudget()

# The lines of compute.py's ``__main__`` that the download fills in (each must occur once).
_CONFIG = "    config = StabilityConfig()\n"
_DERIVATIVES = (
    "    derivatives = grad_and_hvp  # or grad_and_hvp_func: the same derivatives by torch.func\n"
)
_FUNC = "    derivatives = grad_and_hvp_func  # torch.func's grad, jvp and grad_and_value\n"


def check_quadratic(config: StabilityConfig) -> None:
    """Refuse κ outside 1..1000, lr outside [1e-6, 10], steps outside 1..1,000.

    Raises:
        ArgumentError, BudgetError: the setting, its range and the value received.
    """
    check("kappa", config.kappa, 1.0, 1000.0)
    check("lr", config.quadratic_lr, 1e-6, 10.0)
    check("steps", config.quadratic_steps, 1, STABILITY_BUDGET.max_steps)


def check_network(config: StabilityConfig) -> None:
    """Refuse network settings outside their ranges or above the budget, before any work.

    Raises:
        ArgumentError: an unknown data set or a setting below its range.
        BudgetError: a setting above its limit, or more work than ``max_work``.
    """
    b = STABILITY_BUDGET
    if config.dataset not in DATASETS:
        raise ArgumentError(
            "hvp.net.dataset_unknown", got=str(config.dataset)[:40], known=", ".join(DATASETS)
        )
    check("hidden layers", len(config.hidden), 1, 3)
    for width in config.hidden:
        check("width", width, 1, 64)
    check("lr", config.lr, 1e-4, 100.0)
    check("steps", config.steps, 1, b.max_steps)
    check("every", config.every, 1, config.steps)
    check("lanczos_iters", config.lanczos_iters, 2, b.max_lanczos)
    check("seed", config.seed, 0, 10**6)
    sizes = compute.network_sizes(config)
    n = sum(a * c + c for a, c in zip(sizes[:-1], sizes[1:], strict=False))
    check("parameters", n, 1, b.max_parameters)
    examples = len(compute.load_data(config.dataset)[1])
    measures = config.steps // config.every + 1
    passes = config.steps + measures * config.lanczos_iters + LANCZOS_START
    check_work("stability.budget.work", n * examples * passes, b.max_work)


def script(config: StabilityConfig, func: bool = False) -> Code:
    """The download: compute.py as it is, with ``config`` written where its ``__main__`` sets
    it and (``func``) the derivatives taken by torch.func."""
    source = inspect.getsource(compute)
    swaps = [(_CONFIG, f"    config = {config!r}\n")] + ([(_DERIVATIVES, _FUNC)] if func else [])
    for old, new in swaps:
        assert source.count(old) == 1, f"compute.py's __main__ no longer has {old.strip()!r}"
        source = source.replace(old, new)
    return marked_code(source)


@st.cache_data(max_entries=64, show_spinner=False)
def why_quadratic(config: StabilityConfig) -> tuple[QuadraticRun, Code]:
    """Gradient descent on the κ quadratic (2 variables, at most 1,000 steps: ~30 ms, no
    gate) and the download. ``config`` holds primitives only (a frozen dataclass)."""
    check_quadratic(config)
    return compute.run_quadratic(config), script(config)


@st.cache_data(max_entries=16, show_spinner=False)
def why_stability(
    config: StabilityConfig, _caption: Caption = lambda done, total: f"{done}/{total}"
) -> tuple[NetStability, Code]:
    """The network's gradient descent with its sharpness, and the download. A refused setting
    draws no progress bar."""
    check_network(config)
    run = with_bar(_caption, lambda progress: compute.run(config, progress))
    return run, script(config)
