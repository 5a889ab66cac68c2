"""The WGAN-GP lab's cached calls: the settings checked against the budget, the training, the
penalty's gradient both ways and a critic step's cost run once per setting, the penalty's graph
for the drawing, and the download, which is :mod:`.compute`'s own source with the page's
settings written on the line ``__main__`` reads them from."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st
import torch

from hograd_core.applications.common import Code, check, check_work, marked_code
from hograd_core.errors import ArgumentError
from hograd_core.graphs import TensorGraph, trace_tensors
from hograd_serving.cached import Caption, with_bar

from . import compute
from .compute import DATASETS, MODES, NAMES, PenaltyCheck, StepCosts, WganConfig, WganRun

__all__ = [
    "WGAN_BUDGET",
    "check_config",
    "penalty_graph",
    "script",
    "why_wgan_graph",
    "why_wgan_run",
]


@dataclass(frozen=True)
class WganBudget:
    max_steps: int = 1_000
    max_n_critic: int = 10
    max_batch: int = 512
    max_hidden: int = 128
    max_snapshots: int = 21
    max_work: float = 6e8  # steps x batch x parameters x passes: ~1.3 s on an idle 2-core host


WGAN_BUDGET = WganBudget()

# The lines of compute.py's ``__main__`` that the download fills in (each must occur once).
_CONFIG = "    config = WganConfig()\n"
_PENALTY = (
    "    penalty = gradient_penalty  # or gradient_penalty_func: the same penalty by torch.func\n"
)
_FUNC = "    penalty = gradient_penalty_func  # torch.func's grad and vmap\n"


def check_config(config: WganConfig) -> int:
    """Refuse a setting out of range or over the budget, before any work; return the number
    of the critic's parameters.

    Raises:
        ArgumentError, BudgetError: with the setting, its range and the value received.
    """
    b = WGAN_BUDGET
    if config.dataset not in DATASETS:
        raise ArgumentError("wgan.dataset", got=str(config.dataset)[:40], known=", ".join(DATASETS))
    if config.mode not in MODES:
        raise ArgumentError("wgan.mode", got=str(config.mode)[:40], known=", ".join(MODES))
    check("lambda", config.lam, 0.0, 1000.0)
    check("n_critic", config.n_critic, 1, b.max_n_critic)
    check("clip", config.clip, 1e-4, 10.0)
    check("steps", config.steps, 1, b.max_steps)
    check("batch", config.batch, 8, b.max_batch)
    check("hidden", config.hidden, 2, b.max_hidden)
    check("lr", config.lr, 1e-6, 1.0)
    check("snapshots", config.snapshots, 2, b.max_snapshots)
    check("seed", config.seed, 0, 10_000)
    h = config.hidden
    n = 2 * h + h + h * h + h + h + 1  # (2, h, h, 1)
    passes = 3 if config.mode.startswith("gp") else 1  # the penalty's double backward
    work = config.steps * config.batch * n * (config.n_critic * (2 + passes) + 2)
    check_work("wgan.budget.work", work, b.max_work)
    return n


def script(config: WganConfig, func: bool = False) -> Code:
    """The download: compute.py as it is, with ``config`` written where its ``__main__`` sets
    it and (``func``) the penalty's gradient taken by torch.func."""
    source = inspect.getsource(compute)
    for old, new in [(_CONFIG, f"    config = {config!r}\n")] + (
        [(_PENALTY, _FUNC)] if func else []
    ):
        assert source.count(old) == 1, f"compute.py's __main__ no longer has {old.strip()!r}"
        source = source.replace(old, new)
    return marked_code(source)


def penalty_graph(create_graph: bool, hidden: int = 2, points: int = 1) -> TensorGraph:
    """The graph that ``GP.backward()`` walks, for a tiny critic (2 → ``hidden`` → 1) on
    ``points`` interpolates, traced by the kernel: D(x̂) in the colour of the forward pass,
    ‖∇_x̂ D‖ (the first point's value shown) and the penalty built on it in the colour of the
    first backward pass. Without create_graph, ‖∇_x̂ D‖ and the penalty have no grad_fn and
    stand alone."""
    gen = torch.Generator().manual_seed(0)
    critic = compute.init_mlp([2, hidden, 1], gen)
    x_hat = torch.randn(points, 2, generator=gen, dtype=torch.float64).requires_grad_(True)
    d = compute.mlp(critic, x_hat).sum()
    (g,) = torch.autograd.grad(d, x_hat, create_graph=create_graph)
    norm = g.norm(dim=1)  # (points,)
    gp = 10.0 * ((norm - 1) ** 2).mean()
    roots = [
        (0, "D(x̂)", d, float(d.detach())),
        (1, "‖∇D‖", norm, float(norm.detach()[0])),
        (1, "GP", gp, float(gp.detach())),
    ]
    leaves = [*zip(NAMES[:4], critic, strict=True), ("x̂", x_hat)]
    return trace_tensors(roots, leaves)


@st.cache_data(max_entries=16, show_spinner=False)
def why_wgan_run(
    config: WganConfig, _caption: Caption = lambda done, total: f"{done}/{total}"
) -> tuple[WganRun, PenaltyCheck, StepCosts, Code]:
    """The training run, the penalty's gradient both ways, a critic step's cost with and
    without the penalty, and the download. ``config`` is a frozen dataclass of primitives."""
    check_config(config)  # a refused setting draws no progress bar

    def work(progress: Callable[[int, int], None]) -> tuple:
        run = compute.run(config, progress)
        return run, compute.penalty_check(config), compute.step_costs(config)

    run, checked, costs = with_bar(_caption, work)
    return run, checked, costs, script(config)


@st.cache_data(max_entries=4, show_spinner=False)
def why_wgan_graph(create_graph: bool) -> TensorGraph:
    """The penalty's graph for the tiny critic (about 50 nodes: no gate needed)."""
    return penalty_graph(create_graph)
