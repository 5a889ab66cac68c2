"""The pages' cached calls into hograd_core, defined once per process.

A page file is executed afresh on every run, so a ``@st.cache_data`` function defined in it
is wrapped again each time (Streamlit reads its source to key the cache): about 3 % of a
derivatives rerun. Defined here, they are wrapped once. Each is a pure function of its
arguments (no per-user state), so sharing results between sessions is safe. This is also where
work is routed: heavy calls pass the gate (:mod:`.gate`), the inspector's slower columns are
worked out in the background (:mod:`.deferred`, :mod:`.sympy_column`), and the core is handed
the functions that run its work elsewhere (:mod:`.jobs`).
"""

from __future__ import annotations

import threading
import time
import warnings
from collections.abc import Callable
from contextlib import nullcontext

import numpy as np
import streamlit as st

from hograd_core import BUDGET, BudgetError, derivatives, lesson, parse
from hograd_core import curvature as cv
from hograd_core.applications import hessian_free as why_hf
from hograd_core.applications import newton as why_nt
from hograd_core.applications import stability as why_st
from hograd_core.applications.common import Code
from hograd_core.applications.hessian_free_code import hf_code
from hograd_core.applications.newton_code import race_code
from hograd_core.applications.stability_code import quadratic_code, stability_code
from hograd_core.flaglab import FlagOutcome, FlagSettings, run_case, run_flags
from hograd_core.grad_checks import GradChecks, run_gradchecks
from hograd_core.graph_dot import escape_newlines
from hograd_core.graphs import GRAPH_BUDGET, GraphLab, graph_lab
from hograd_core.hvp_graph import HVPGraph, hvp_graph
from hograd_core.inspector import (
    AutogradPart,
    CostProfile,
    Inspection,
    cost_profile,
    inspect_numbers,
    with_autograd,
    with_sympy,
)
from hograd_core.language import Function
from hograd_core.nested_autograd import (
    DerivativeResult,
    autograd_column,
    autograd_is_heavy,
    autograd_refusal,
    estimate_autograd,
)
from hograd_core.symbolic import SympyView

from .deferred import DeferredJobs
from .floor import step_aside
from .gate import heavy_work
from .jobs import run_isolated, shared_probe
from .sympy_column import CHAIN_SECONDS, SympyColumn


@st.cache_data(max_entries=256, show_spinner=False)
def cached_parse(text: str, variables: tuple[str, ...] | None = None) -> Function:
    return parse(text, variables)


# ---- derivatives page -------------------------------------------------------------------------


@st.cache_data(max_entries=64, show_spinner=False)
def curves(
    text: str, low: float, high: float, points: int, order: int, method: str
) -> DerivativeResult:
    fn = parse(text)
    heavy = method == "autograd" and autograd_is_heavy(fn, order, points, shared_probe)
    with heavy_work() if heavy else nullcontext():
        xs = np.linspace(low, high, points)
        return derivatives(fn, xs, order, method=method, probe=shared_probe)


@st.cache_data(max_entries=64, show_spinner=False)
def autograd_refused(text: str, order: int, points: int) -> BudgetError | None:
    """Why nested autograd would refuse this request (the page then uses Taylor mode and says
    why), or None; from the probe (:func:`.jobs.shared_probe`)."""
    return autograd_refusal(parse(text), order, points, shared_probe)


#: How long a run waits for the answers worked out in the background: sympy's column
#: (hograd_serving/sympy_column.py: a child process per function) and nested autograd's
#: (a thread: hograd_serving/deferred.py). Small functions are done by then; for the others the
#: page shows what it has and asks again every ``POLL`` seconds while the student reads. Short:
#: with 50 students, waits of 0.1 / 0.05 / 0.025 s gave a rerun p95 of 234 / 185 / 134 ms, and
#: the page was complete sooner, not later (benchmarks/load.py, side by side, two runs each).
WAIT = 0.025
POLL = 0.6


def _autograd_column(args: tuple[str, float, int]) -> tuple[float, ...]:
    text, x0, order = args
    return autograd_column(parse(text), x0, order)


#: One of each for the whole server: their answers are pure functions of the arguments, the
#: same for every student who asks, like the cached values.
SYMPY = SympyColumn()
AUTOGRAD = DeferredJobs("autograd", _autograd_column)


def sympy_part(
    text: str, order: int, x0: float, wait: float | None = None, who: str = ""
) -> SympyView:
    """What sympy has of ``text`` to ``order`` at ``x0`` within ``wait`` seconds (default
    ``WAIT``), asked by the session ``who``."""
    return SYMPY.ask(text, order, x0, WAIT if wait is None else wait, who=who)


def sympy_detail(text: str) -> str:
    """sympy's own error, where its column for ``text`` stopped with one."""
    return SYMPY.detail(text)


def autograd_part(
    text: str, x0: float, order: int, wait: float | None = None, who: str = ""
) -> AutogradPart:
    """Nested autograd's column at ``x0`` if it is in within ``wait`` seconds (default
    ``WAIT``), else ``working``; asked by the session ``who``."""
    args = (text, float(x0), min(order, BUDGET.max_order_autograd))
    done = AUTOGRAD.ask(args, WAIT if wait is None else wait, who)
    if done is None:
        return AutogradPart(working=True)
    return AutogradPart(values=tuple(done.value or ()), refused=done.error)


def inspect(
    text: str, x0: float, order: int, *, sympy_column: bool = True,
    autograd_column: bool = True, who: str = "",
) -> Inspection:  # fmt: skip
    """The inspector's rows at x0: Taylor mode's and the finite differences' numbers
    (cached), and sympy's and nested autograd's columns as far as they go within ``WAIT``
    (left empty when not asked for)."""
    deadline = time.monotonic() + WAIT
    if autograd_column:
        autograd_part(text, x0, order, wait=0.0, who=who)  # under way while sympy is asked
    numbers = _numbers(text, x0, order)
    if sympy_column:
        numbers = with_sympy(numbers, sympy_part(text, order, x0, who=who))
    if autograd_column:
        left = max(0.0, deadline - time.monotonic())
        numbers = with_autograd(numbers, autograd_part(text, x0, order, left, who))
    return numbers


def still_working(
    text: str, x0: float, order: int, *, sympy: bool, autograd: bool, who: str = ""
) -> bool:
    """Whether a column asked for is not in yet (each asked with ``WAIT``)."""
    return (sympy and sympy_part(text, order, x0, who=who).working) or (
        autograd and autograd_part(text, x0, order, who=who).working
    )


@st.cache_data(max_entries=64, show_spinner=False)
def _numbers(text: str, x0: float, order: int) -> Inspection:
    return inspect_numbers(parse(text), x0, order, autograd=False)


@st.cache_data(max_entries=64, show_spinner=False)
def estimate(text: str, order: int, points: int) -> tuple[int, list[int], float]:
    return estimate_autograd(parse(text), order, points, shared_probe)


def _sympy_costs(fn: Function, order: int) -> tuple[list[float], list[int]]:
    """sympy's cost from its column's child process (each ``diff`` timed once, in a process
    whose sympy cache was empty), waiting for it off the floor; nothing if it is not in."""
    with step_aside():
        chain = SYMPY.timings(fn.text, order, wait=CHAIN_SECONDS + 5.0)
    return ([], []) if chain is None else (list(chain.ms), list(chain.ops))


@st.cache_data(max_entries=16, show_spinner=False)
def measure(text: str, order: int, points: int, low: float, high: float) -> CostProfile:
    fn = parse(text)
    costs = _sympy_costs(fn, min(order, BUDGET.max_order_autograd))  # waited for off the floor
    with heavy_work():
        return cost_profile(fn, order, points, low, high, sympy=lambda *_: costs)


# ---- graph page -------------------------------------------------------------------------------


@st.cache_data(max_entries=32, show_spinner=False)
def lab_for(text: str, x0: float) -> GraphLab:
    with heavy_work():
        return graph_lab(cached_parse(text), x0, GRAPH_BUDGET.max_order)


@st.cache_data(max_entries=128, show_spinner=False)
def flags_for(
    text: str, x0: float, cg: bool, rg: bool | None, au: bool, mg: bool, z: bool, action: str
) -> FlagOutcome:
    settings = FlagSettings(cg, rg, au, mg, z, action)
    return run_flags(cached_parse(text), x0, settings, isolate=run_isolated, view=torchviz_views)


#: torchviz's two switches; a flag-lab run is viewed with each combination
TORCHVIZ = ((False, False), (False, True), (True, False), (True, True))


def torchviz_line(names: tuple[str, ...], leaves: tuple[str, ...], attrs: bool, saved: bool) -> str:
    """The one line of code that makes the view, on the snippet's own names."""
    params = ", ".join(f"{name!r}: {name}" for name in leaves)
    outputs = ", ".join(names) + ("," if len(names) == 1 else "")
    return f"make_dot(({outputs}), params={{{params}}}, show_attrs={attrs}, show_saved={saved})"


def torchviz_views(
    made: tuple[tuple[str, object], ...], leaves: tuple[tuple[str, object], ...]
) -> tuple[tuple[str, str], ...]:
    """torchviz ``make_dot`` on a flag-lab run's own tensors, for each (show_attrs,
    show_saved): ``("code:a,s", line)`` and ``("dot:a,s", source)``, or ``("error:a,s",
    message)`` where torchviz could not read a saved tensor because a backward pass freed it
    (PyTorch's own error). Passed to the core as its ``view`` (it runs where the tensors are).
    """
    from torchviz import make_dot  # imports graphviz: kept out of the core

    names = tuple(name for name, _ in made)
    params = dict(leaves)
    views: list[tuple[str, str]] = []
    for attrs, saved in TORCHVIZ:
        key = f"{attrs},{saved}"
        views.append((f"code:{key}", torchviz_line(names, tuple(params), attrs, saved)))
        try:
            with warnings.catch_warnings():  # torchviz 0.0.3 compares versions with distutils,
                warnings.simplefilter("ignore", DeprecationWarning)  # not the student's doing
                dot = make_dot(
                    tuple(t for _, t in made), params=params, show_attrs=attrs, show_saved=saved
                )
            views.append((f"dot:{key}", escape_newlines(dot.source)))
        except RuntimeError as err:
            views.append((f"error:{key}", str(err)))
    return tuple(views)


@st.cache_data(max_entries=32, show_spinner=False)
def case_for(case: str, variant: str) -> FlagOutcome:
    return run_case(case, variant, isolate=run_isolated)


#: torch's forward-AD level is one per process, not per thread: two sessions running jvp at
#: once crash ("no level exists"). Whoever runs forward AD in the server holds this lock.
FORWARD_AD = threading.Lock()


# ---- Hessian-vector product (the HVP lab and the lesson) ---------------------------------------

#: steps of the animated power iteration on a typed function
POWER_STEPS = 30


@st.cache_data(max_entries=64, show_spinner=False)
def explore(text: str, point: tuple, vector: tuple, radius: float) -> cv.Exploration:
    """Without the three ways (the HVP lab's ``three_ways``): every slider move reruns this."""
    fn = parse(text)
    return cv.explore(fn, point, vector, radius=radius, power_steps=POWER_STEPS, with_ways=False)


# ---- why gradients of gradients page ----------------------------------------------------------
# Every experiment is bounded by counted work checked before it starts (at most ~1 s of torch
# per click); it runs in this process, inside the heavy-work gate.


#: caption(done, total) of a progress bar, in the page's words (not part of any cache key)
Caption = Callable[[int, int], str]


def _with_bar(caption: Caption, work: Callable[[Callable[[int, int], None]], object]) -> object:
    """``work(progress)`` inside the heavy-work gate, with a progress bar while it runs."""
    bar = st.progress(0.0, text=caption(0, 1))

    def progress(done: int, total: int) -> None:
        bar.progress(min(1.0, done / max(total, 1)), text=caption(done, total))

    try:
        with heavy_work():
            return work(progress)
    finally:
        bar.empty()


@st.cache_data(max_entries=32, show_spinner=False)
def why_newton(
    text: str, start: tuple, steps: int, lr: float, damping: float, radius: float,
    methods: tuple, _caption: Caption = lambda done, total: f"{done}/{total}",
) -> tuple[why_nt.NewtonRace, Code]:  # fmt: skip
    fn = parse(text)
    config = why_nt.RaceConfig(tuple(start), steps, lr, damping, radius, methods=tuple(methods))
    race = _with_bar(_caption, lambda progress: why_nt.race(fn, config, progress))
    return race, race_code(fn, config)


@st.cache_data(max_entries=16, show_spinner=False)
def why_hessian_free(
    dataset: str, hidden: tuple, steps: int, cg_iters: int, damping: float, sgd_lr: float,
    adam_lr: float, seed: int, _caption: Caption = lambda done, total: f"{done}/{total}",
) -> tuple[why_hf.HFRun, Code]:  # fmt: skip
    config = why_hf.HFConfig(dataset, tuple(hidden), steps, cg_iters, damping, sgd_lr, adam_lr,
                             int(seed))  # fmt: skip
    run = _with_bar(_caption, lambda progress: why_hf.hessian_free(config, progress))
    return run, hf_code(config)


@st.cache_data(max_entries=64, show_spinner=False)
def why_quadratic(kappa: float, lr: float, steps: int) -> tuple[why_st.QuadraticRun, Code]:
    run = why_st.quadratic_gd(kappa, lr, steps)  # 2 variables, at most 1,000 steps: ~30 ms
    return run, quadratic_code(kappa, lr, steps)


@st.cache_data(max_entries=16, show_spinner=False)
def why_stability(
    dataset: str, hidden: tuple, lr: float, steps: int, every: int, seed: int,
    _caption: Caption = lambda done, total: f"{done}/{total}",
) -> tuple[why_st.NetStability, Code]:  # fmt: skip
    config = why_st.StabilityConfig(dataset, tuple(hidden), lr, steps, every, seed=int(seed))
    run = _with_bar(_caption, lambda progress: why_st.net_stability(config, progress))
    return run, stability_code(config)


# ---- graph page: several variables, gallery drawings (issue 15) -----------------------------------


@st.cache_data(max_entries=32, show_spinner=False)
def hvp_graph_for(text: str, point: str, vector: str, record: bool) -> HVPGraph:
    """The double-backward graph of one Hessian-vector product (the graph page, 2+ variables)."""
    with heavy_work():
        return hvp_graph(cached_parse(text), point, vector, record)


# ---- links, share button, presentation mode (issue 18) --------------------------------------------


# ---- the guided lesson (issue 18) -----------------------------------------------------------------


@st.cache_data(max_entries=16, show_spinner=False)
def lesson_answer(name: str) -> lesson.Answer:
    """The right answer of the lesson step ``name``, computed by the core (the same for every
    student: a tiny graph, a 2-by-2 Hessian, a Newton race of at most 100 steps)."""
    return lesson.answer(name)


# ---- downloads: CSV, .py, torch.func forms, notebooks (issue 18) ----------------------------------


# ---- derivatives page: PyTorch's gradcheck at x0 (issue 36, finding 12) ---------------------------


@st.cache_data(max_entries=64, show_spinner=False)
def gradchecks_at(text: str, x0: float) -> GradChecks:
    """PyTorch's ``gradcheck`` and ``gradgradcheck`` of ``text`` at ``x0``. Sized by the shared
    probe before it starts (a refusal is a BudgetError); a large second-order graph passes the
    heavy-work gate like the curves do."""
    fn = parse(text)
    heavy = autograd_is_heavy(fn, 2, 3, shared_probe)  # the stencil x0 - eps, x0, x0 + eps
    with heavy_work() if heavy else nullcontext():
        return run_gradchecks(fn, [x0], shared_probe)
