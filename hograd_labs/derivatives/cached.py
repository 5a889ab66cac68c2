"""The derivatives lab's cached calls: whether nested autograd would refuse a request, the
point inspector's rows (its sympy and nested-autograd columns worked out in the background),
what each method costs, and PyTorch's gradcheck at x0.

The curves themselves (:func:`curves`), which the lesson draws too (hograd_labs/derivatives/embed.py).
Each call here is a pure function of its arguments (no per-user state), so sharing results
between sessions is safe; heavy calls pass the serving room's gate, and the columns that take
longer are answered by its background workers (:mod:`hograd_serving.deferred`,
:mod:`hograd_serving.sympy_column`).
"""

from __future__ import annotations

import time
from contextlib import nullcontext

import numpy as np
import streamlit as st

from hograd_core import BUDGET, BudgetError, derivatives, parse
from hograd_core.exact_view import SympyView
from hograd_core.forward_mode import FORWARD_BUDGET, ForwardCosts, forward_costs
from hograd_core.grad_checks import GradChecks, run_gradchecks
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
from hograd_serving.deferred import DeferredJobs
from hograd_serving.floor import step_aside
from hograd_serving.gate import HEAVY_SECONDS, heavy_work
from hograd_serving.jobs import shared_probe
from hograd_serving.sympy_column import CHAIN_SECONDS, SympyColumn

__all__ = [
    "AUTOGRAD",
    "POLL",
    "SYMPY",
    "WAIT",
    "autograd_part",
    "autograd_refused",
    "curves",
    "estimate",
    "gradchecks_at",
    "inspect",
    "measure",
    "still_working",
    "sympy_detail",
    "sympy_part",
]


@st.cache_data(max_entries=64, show_spinner=False)
def curves(
    text: str, low: float, high: float, points: int, order: int, method: str
) -> DerivativeResult:
    """f = ``text`` and its derivatives up to ``order`` by ``method`` on ``points`` points from
    ``low`` to ``high``; nested autograd where it is heavy passes the gate."""
    fn = parse(text)
    heavy = method == "autograd" and autograd_is_heavy(fn, order, points, shared_probe)
    with heavy_work(seconds=HEAVY_SECONDS) if heavy else nullcontext():
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
    text: str,
    x0: float,
    order: int,
    *,
    sympy_column: bool = True,
    autograd_column: bool = True,
    who: str = "",
) -> Inspection:
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
    with heavy_work(seconds=HEAVY_SECONDS):
        return cost_profile(fn, order, points, low, high, sympy=lambda *_: costs)


#: Points of the forward-mode comparison: enough for the times to be the routes' own, few enough
#: that nested jvp's 2⁶ evaluations at order 6 stay well under a second.
FORWARD_POINTS = 64


@st.cache_data(max_entries=32, show_spinner=False)
def forward_routes(text: str, order: int, low: float, high: float) -> ForwardCosts:
    """f⁽ᵏ⁾ for k = 0..``order`` (at most forward_ad's limit) by nested jvp, dual numbers,
    nested reverse and Taylor mode on :data:`FORWARD_POINTS` points of [low, high], with the
    median time of 3 interleaved rounds and the bytes saved for backward. Checked against the
    budgets before any work; through the heavy-work gate like the other timings."""
    xs = np.linspace(low, high, FORWARD_POINTS)
    with heavy_work(seconds=HEAVY_SECONDS):
        return forward_costs(parse(text), xs, min(order, FORWARD_BUDGET.max_order), rounds=3)


@st.cache_data(max_entries=64, show_spinner=False)
def gradchecks_at(text: str, x0: float) -> GradChecks:
    """PyTorch's ``gradcheck`` and ``gradgradcheck`` of ``text`` at ``x0``. Sized by the shared
    probe before it starts (a refusal is a BudgetError); a large second-order graph passes the
    heavy-work gate like the curves do."""
    fn = parse(text)
    heavy = autograd_is_heavy(fn, 2, 3, shared_probe)  # the stencil x0 - eps, x0, x0 + eps
    with heavy_work(seconds=HEAVY_SECONDS) if heavy else nullcontext():
        return run_gradchecks(fn, [x0], shared_probe)
