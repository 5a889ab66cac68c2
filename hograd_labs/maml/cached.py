"""The MAML lab's cached calls: the settings checked against the budget, the meta-training and
the adaptation run once per setting, and the download, which is :mod:`.compute`'s own source
with the page's settings written on the lines ``__main__`` reads them from."""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass

import streamlit as st

from hograd_core.applications.common import Code, check, check_work, marked_code
from hograd_core.errors import ArgumentError
from hograd_serving.cached import Caption, with_bar

from . import compute
from .compute import AMPLITUDE, HELD_OUT, PHASE, Adaptation, MamlConfig, MamlRun, NewSine

__all__ = ["MAML_BUDGET", "check_config", "check_sine", "script", "why_maml", "why_maml_adapt"]


@dataclass(frozen=True)
class MamlBudget:
    max_hidden: int = 64
    max_meta_steps: int = 800
    max_tasks: int = 16
    max_k: int = 20
    max_inner_steps: int = 3
    max_adapt_steps: int = 5
    # (parameters x tasks x points + PASS_COST) x passes, summed over the meta-steps of the three
    # methods and the evaluations (see _work). Measured here, one pass costs about 0.13 ms
    # however small the network (PASS_COST) and 1 ms per 4.5e9 units of the rest: the default
    # settings are 4.5e9 units, about 1 s of CPU; the largest allowed runs took 0.85-1.2 s.
    max_work: float = 6e9


MAML_BUDGET = MamlBudget()
#: the fixed cost of one pass (launching its few dozen small operations) in work units
PASS_COST = 600_000

# The lines of compute.py's ``__main__`` that the download fills in (each must occur once).
_CONFIG, _SINE = "    config = MamlConfig()\n", "    sine = NewSine()\n"
_GRADIENT = (
    "    gradient = meta_gradient  # or meta_gradient_func: the same meta-gradient by torch.func\n"
)
_FUNC = "    gradient = meta_gradient_func  # torch.func's grad, vmap and grad_and_value\n"


def _work(config: MamlConfig, n: int, eval_every: int) -> float:
    """Counted work: (n x points + PASS_COST) per pass. A meta-step of second-order MAML makes
    3 passes per inner step (forward, backward kept as a graph, and the backward through that
    backward) plus 2 for the query, first-order 2 per inner step plus 2, pre-training 2; each
    evaluation (every ``eval_every`` steps, per method) 2 per inner step plus 2 on 20 tasks."""
    s, points = config.inner_steps, 2 * config.k_shot
    step = (3 * s + 2 + 2 * s + 2 + 2) * (n * config.tasks * points + PASS_COST)
    evaluation = 3 * (2 * s + 2) * (n * HELD_OUT * points + PASS_COST)
    return float(config.meta_steps * step + (config.meta_steps // eval_every + 1) * evaluation)


def check_config(config: MamlConfig, eval_every: int = 10) -> None:
    """Refuse settings outside their ranges or above the budget, before any work.

    Raises:
        ArgumentError: an unknown activation or a setting below its range.
        BudgetError: a setting above its limit, or more work than ``MAML_BUDGET.max_work``.
    """
    b = MAML_BUDGET
    if config.activation not in ("relu", "tanh"):
        raise ArgumentError("maml.activation", got=str(config.activation)[:40])
    check("hidden", config.hidden, 1, b.max_hidden)
    check("meta_steps", config.meta_steps, 1, b.max_meta_steps)
    check("tasks", config.tasks, 1, b.max_tasks)
    check("k_shot", config.k_shot, 1, b.max_k)
    check("inner_steps", config.inner_steps, 1, b.max_inner_steps)
    check("inner_lr", config.inner_lr, 1e-4, 1.0)
    check("outer_lr", config.outer_lr, 1e-5, 0.1)
    check("seed", config.seed, 0, 10**6)
    check("eval_every", eval_every, 1, b.max_meta_steps)
    n = compute.parameter_count(config.hidden)
    check_work("maml.budget.work", _work(config, n, eval_every), b.max_work)


def check_sine(sine: NewSine) -> None:
    """Refuse an amplitude outside 0.1..5, a phase outside 0..π, steps outside 0..5.

    Raises:
        ArgumentError, BudgetError: the setting, its range and the value received.
    """
    for name, got, (low, high) in (
        ("amplitude", sine.amplitude, AMPLITUDE),
        ("phase", sine.phase, PHASE),
    ):
        if not (math.isfinite(got) and low <= got <= high):  # a shape, not an amount of work
            raise ArgumentError(
                "why.budget.range", name=name, low=low, high=round(high, 4), got=got
            )
    check("steps", sine.steps, 0, MAML_BUDGET.max_adapt_steps)
    check("seed", sine.seed, 0, 10**6)


def script(config: MamlConfig, sine: NewSine, func: bool = False) -> Code:
    """The download: compute.py as it is, with ``config`` and ``sine`` written where its
    ``__main__`` sets them and (``func``) the meta-gradient taken by torch.func."""
    source = inspect.getsource(compute)
    swaps = [(_CONFIG, f"    config = {config!r}\n"), (_SINE, f"    sine = {sine!r}\n")]
    for old, new in swaps + ([(_GRADIENT, _FUNC)] if func else []):
        assert source.count(old) == 1, f"compute.py's __main__ no longer has {old.strip()!r}"
        source = source.replace(old, new)
    return marked_code(source)


@st.cache_data(max_entries=16, show_spinner=False)
def why_maml(
    config: MamlConfig, _caption: Caption = lambda done, total: f"{done}/{total}"
) -> MamlRun:
    """The three meta-trainings (second-order, first-order, pre-training) and the measured cost
    of one meta-gradient. ``config`` holds primitives only (a frozen dataclass). A refused
    setting draws no progress bar."""
    check_config(config)
    return with_bar(_caption, lambda progress: compute.run(config, progress))


@st.cache_data(max_entries=64, show_spinner=False)
def why_maml_adapt(
    config: MamlConfig, amplitude: float, phase: float, _run: MamlRun
) -> tuple[Adaptation, Code]:
    """The trained starts adapted to one new sine (3 x 5 small gradient steps: milliseconds,
    no gate) and the download for the whole experiment. Keyed by the training settings;
    ``_run`` is what :func:`why_maml` returned for them."""
    sine = NewSine(amplitude, phase, MAML_BUDGET.max_adapt_steps)
    check_sine(sine)
    return compute.adapt(_run, sine), script(config, sine)
