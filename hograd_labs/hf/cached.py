"""The Hessian-free lab's cached call: the settings checked against the budget, the run once
per setting, and the download, which is :mod:`.compute`'s own source with the page's settings
written on the line ``__main__`` reads them from."""

from __future__ import annotations

import inspect
from dataclasses import dataclass

import streamlit as st

from hograd_core.applications.common import Code, check, check_work, marked_code
from hograd_core.network import check_dataset
from hograd_serving.cached import Caption, with_bar

from . import compute
from .compute import HFConfig, HFRun

__all__ = ["HF_BUDGET", "check_config", "script", "why_hessian_free"]


@dataclass(frozen=True)
class HFBudget:
    max_parameters: int = 5_000
    max_layers: int = 2
    max_width: int = 64
    max_steps: int = 50
    max_cg: int = 60
    # parameters x examples x (gradients + HVPs) of the Hessian-free run: one unit is about a
    # multiply-add, 1.5e9 about 0.6 s here; each first-order run makes at most twice as many
    # passes (HVP_GRADIENTS), each a plain gradient
    max_work: float = 1.5e9


HF_BUDGET = HFBudget()

# The lines of compute.py's ``__main__`` that the download fills in (each must occur once).
_CONFIG = "    config = HFConfig()\n"
_STEP = "    step = hf_step  # or hf_step_func: the same step with torch.func's grad and jvp\n"
_FUNC = "    step = hf_step_func  # H v = jvp(grad(loss), (θ,), (v,))[1]: forward over reverse\n"


def check_config(config: HFConfig) -> None:
    """Refuse settings outside their ranges or above the budget, before any work.

    Raises:
        ArgumentError: an unknown data set or a setting below its range.
        BudgetError: too many parameters, steps or CG iterations, or more work than
            ``HF_BUDGET.max_work``.
    """
    b = HF_BUDGET
    check_dataset(config.dataset)
    check("hidden layers", len(config.hidden), 1, b.max_layers)
    for width in config.hidden:
        check("width", width, 1, b.max_width)
    check("steps", config.steps, 1, b.max_steps)
    check("cg_iters", config.cg_iters, 1, b.max_cg)
    check("damping", config.damping, 1e-4, 1e4)
    check("sgd_lr", config.sgd_lr, 1e-5, 100.0)
    check("adam_lr", config.adam_lr, 1e-5, 1.0)
    n = compute.layer_blocks(compute.network_sizes(config))[-1][2]
    check("parameters", n, 1, b.max_parameters)
    examples = 1437 if config.dataset == "digits" else 400
    passes = config.steps * (1 + config.cg_iters)
    check_work("hf.budget.work", n * examples * passes, b.max_work)


def script(config: HFConfig, func: bool = False) -> Code:
    """The download: compute.py as it is, with ``config`` written where its ``__main__`` sets
    it and (``func``) the step taken by torch.func."""
    source = inspect.getsource(compute)
    swaps = [(_CONFIG, f"    config = {config!r}\n")] + ([(_STEP, _FUNC)] if func else [])
    for old, new in swaps:
        assert source.count(old) == 1, f"compute.py's __main__ no longer has {old.strip()!r}"
        source = source.replace(old, new)
    return marked_code(source)


@st.cache_data(max_entries=16, show_spinner=False)
def why_hessian_free(
    config: HFConfig, _caption: Caption = lambda done, total: f"{done}/{total}"
) -> tuple[HFRun, Code]:
    """The Hessian-free run, the two first-order runs for its counted work, and the download.
    ``config`` holds primitives only (a frozen dataclass). A refused setting draws no progress
    bar."""
    check_config(config)
    run = with_bar(_caption, lambda progress: compute.run(config, progress))
    return run, script(config)
