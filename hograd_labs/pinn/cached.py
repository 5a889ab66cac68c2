"""The PINN lab's cached call: the settings checked against the budget, the training run once
per setting, and the download, which is :mod:`.compute`'s own source with the page's settings
written on the lines ``__main__`` reads them from."""

from __future__ import annotations

import inspect
from dataclasses import dataclass

import streamlit as st

from hograd_core.applications.common import Code, check, check_work, marked_code
from hograd_core.errors import ArgumentError
from hograd_serving.cached import Caption, with_bar

from . import compute
from .compute import EQUATIONS, PinnConfig, PinnRun, network_sizes

__all__ = ["COEFFICIENT_RANGE", "PINN_BUDGET", "check_config", "script", "why_pinn_run"]


@dataclass(frozen=True)
class PinnBudget:
    max_steps: int = 3_000
    max_points: int = 1_024  # interior (collocation) points
    max_edge: int = 256  # points on the initial line and on each boundary
    max_width: int = 64
    max_depth: int = 4
    max_parameters: int = 10_000
    # parameters × steps × (interior points × the equation's factor + 3 × edge points); the
    # wave's residual takes one more backward pass than the heat's (factor 1.3, measured).
    # The defaults are 1.1e8 (heat) and 1.6e8 (wave); 2.5e8 took about 2 s of training on the
    # shared 2-core machine under load, with one torch thread.
    max_work: float = 2.5e8


PINN_BUDGET = PinnBudget()
WAVE_FACTOR = 1.3
COEFFICIENT_RANGE = {"heat": (0.01, 1.0), "wave": (0.1, 2.0)}

# The lines of compute.py's ``__main__`` that the download fills in (each must occur once).
_CONFIG = "    config = PinnConfig()\n"
_FUNC_OFF = "    func = False  # or True: the same input derivatives by torch.func (terms_func)\n"
_FUNC_ON = "    func = True  # torch.func's vmap, jacrev and hessian (terms_func, velocity_func)\n"


def check_config(config: PinnConfig) -> int:
    """The parameter count of ``config``'s network, after checking every setting and the
    counted work against :data:`PINN_BUDGET`, before any work.

    Raises:
        ArgumentError: an unknown equation, a setting below its range, all weights 0.
        BudgetError: a setting above its limit, or more work than ``PINN_BUDGET.max_work``.
    """
    b = PINN_BUDGET
    if config.equation not in EQUATIONS:
        raise ArgumentError("pinn.equation", got=str(config.equation)[:40])
    check("coefficient", config.coefficient, *COEFFICIENT_RANGE[config.equation])
    check("t_max", config.t_max, 0.1, 2.0)
    check("width", config.width, 2, b.max_width)
    check("depth", config.depth, 1, b.max_depth)
    check("steps", config.steps, 1, b.max_steps)
    check("points", config.points, 8, b.max_points)
    check("edge", config.edge, 4, b.max_edge)
    check("lr", config.lr, 1e-5, 1.0)
    for name in ("w_residual", "w_initial", "w_boundary"):
        check(name, getattr(config, name), 0.0, 1000.0)
    if config.w_residual + config.w_initial + config.w_boundary <= 0:
        raise ArgumentError("pinn.weights")
    sizes = network_sizes(config)
    n = sum(a * b + b for a, b in zip(sizes[:-1], sizes[1:], strict=True))
    check("parameters", n, 1, b.max_parameters)
    factor = WAVE_FACTOR if config.equation == "wave" else 1.0
    work = n * config.steps * (config.points * factor + 3 * config.edge)
    check_work("pinn.budget.work", work, b.max_work)
    return n


def script(config: PinnConfig, func: bool = False) -> Code:
    """The download: compute.py as it is, with ``config`` written where its ``__main__`` sets
    it and (``func``) the input derivatives taken by torch.func."""
    source = inspect.getsource(compute)
    for old, new in [(_CONFIG, f"    config = {config!r}\n")] + (
        [(_FUNC_OFF, _FUNC_ON)] if func else []
    ):
        assert source.count(old) == 1, f"compute.py's __main__ no longer has {old.strip()!r}"
        source = source.replace(old, new)
    return marked_code(source)


@st.cache_data(max_entries=16, show_spinner=False)
def why_pinn_run(
    config: PinnConfig, _caption: Caption = lambda done, total: f"{done}/{total}"
) -> tuple[PinnRun, Code]:
    """The trained network and the download. ``config`` holds primitives only (a frozen
    dataclass: hashed by its fields). A refused setting never takes a slot of the gate."""
    check_config(config)
    run = with_bar(_caption, lambda progress: compute.run(config, progress))
    return run, script(config)
