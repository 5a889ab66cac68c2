"""The pages' cached calls into hograd_core, defined once per process.

A page file is executed afresh on every run, so a ``@st.cache_data`` function defined in it
is wrapped again each time (Streamlit reads its source to key the cache): about 3 % of a
derivatives rerun. Defined here, they are wrapped once. Each is a pure function of its
arguments (no per-user state), so sharing results between sessions is safe.
"""

from __future__ import annotations

import atexit
import time
from contextlib import nullcontext

import numpy as np
import streamlit as st

from hograd_core import BUDGET, derivatives, parse
from hograd_core import curvature as cv
from hograd_core import graph_figures as graph_figs
from hograd_core import net_curvature as nc
from hograd_core import network as nw
from hograd_core.background import Later, Worker
from hograd_core.derivatives import DerivativeResult, autograd_is_heavy, estimate_autograd
from hograd_core.flaglab import FlagOutcome, FlagSettings, run_flags
from hograd_core.flaglab_cases import run_case
from hograd_core.fresh import run_job
from hograd_core.gate import heavy_work
from hograd_core.graphs import GRAPH_BUDGET, GraphLab, graph_lab
from hograd_core.lab import (
    AutogradPart,
    CostProfile,
    Inspection,
    cost_profile,
    inspect_numbers,
    with_autograd,
    with_sympy,
)
from hograd_core.symbolic import SympyView
from hograd_core.sympy_worker import SympyWorker
from pages._ui import cached_parse, t

# ---- derivatives page -------------------------------------------------------------------------


@st.cache_data(max_entries=64, show_spinner=False)
def curves(
    text: str, low: float, high: float, points: int, order: int, method: str
) -> DerivativeResult:
    fn = parse(text)
    heavy = method == "autograd" and autograd_is_heavy(fn, order, points)
    with heavy_work() if heavy else nullcontext():
        return derivatives(fn, np.linspace(low, high, points), order, method=method)


#: How long a run waits for the answers worked out in the background: sympy's column (a
#: process of its own: hograd_core/sympy_worker.py) and nested autograd's (a torch worker:
#: hograd_core/background.py). Small functions are done by then; for the others the page shows
#: what it has and asks again every ``POLL`` seconds while the student reads. Short, because a
#: waiting run holds one of the server's few script slots (pages/_serving.py): with 50
#: students, waits of 0.1 / 0.05 / 0.025 s gave a rerun p95 of 234 / 185 / 134 ms, and the
#: page was complete sooner, not later (benchmarks/load.py, side by side, two runs each).
WAIT = 0.025
POLL = 0.6
#: One of each for the whole server: their answers are pure functions of the arguments, the
#: same for every student who asks, like the cached values.
SYMPY = SympyWorker()
atexit.register(SYMPY.stop)  # the child would end anyway, on its closed pipe
AUTOGRAD = Later("autograd", Worker())
atexit.register(AUTOGRAD.worker.stop)


def sympy_part(text: str, order: int, x0: float, wait: float | None = None) -> SympyView:
    """What the sympy worker has of ``text`` to ``order`` at ``x0`` within ``wait`` seconds
    (default ``WAIT``)."""
    return SYMPY.ask(text, order, x0, WAIT if wait is None else wait) or SympyView(working=True)


def autograd_part(text: str, x0: float, order: int, wait: float | None = None) -> AutogradPart:
    """Nested autograd's column at ``x0`` if it is in within ``wait`` seconds (default
    ``WAIT``), else ``working``."""
    args = (text, float(x0), min(order, BUDGET.max_order_autograd))
    done = AUTOGRAD.ask(args, WAIT if wait is None else wait)
    if done is None:
        return AutogradPart(working=True)
    return AutogradPart(values=tuple(done.value or ()), refused=done.error)


def inspect(
    text: str, x0: float, order: int, language: str, *, sympy_column: bool = True,
    autograd_column: bool = True,
) -> Inspection:  # fmt: skip
    """The inspector's rows at x0: Taylor mode's and the finite differences' numbers
    (cached), and sympy's and nested autograd's columns as far as they go within ``WAIT``
    (left empty when not asked for)."""
    deadline = time.monotonic() + WAIT
    if autograd_column:
        autograd_part(text, x0, order, wait=0.0)  # under way while sympy is asked
    numbers = _numbers(text, x0, order)
    if sympy_column:
        numbers = with_sympy(numbers, sympy_part(text, order, x0))
    if autograd_column:
        left = max(0.0, deadline - time.monotonic())
        numbers = with_autograd(numbers, autograd_part(text, x0, order, left), language)
    return numbers


def still_working(text: str, x0: float, order: int, *, sympy: bool, autograd: bool) -> bool:
    """Whether a column asked for is not in yet (each asked with ``WAIT``)."""
    return (sympy and sympy_part(text, order, x0).working) or (
        autograd and autograd_part(text, x0, order).working
    )


@st.cache_data(max_entries=64, show_spinner=False)
def _numbers(text: str, x0: float, order: int) -> Inspection:
    return inspect_numbers(parse(text), x0, order, autograd=False)


@st.cache_data(max_entries=64, show_spinner=False)
def estimate(text: str, order: int, points: int) -> tuple[int, list[int], float]:
    return estimate_autograd(parse(text), order, points)


@st.cache_data(max_entries=16, show_spinner=False)
def measure(text: str, order: int, points: int) -> CostProfile:
    with heavy_work():
        return cost_profile(parse(text), order, points)


# ---- graph page -------------------------------------------------------------------------------

#: points: a graph narrower than this is drawn as if this wide (text ~19 px)
STRUT = 420.0


@st.cache_data(max_entries=32, show_spinner=False)
def lab_for(text: str, x0: float) -> GraphLab:
    return graph_lab(cached_parse(text), x0, GRAPH_BUDGET.max_order)


@st.cache_data(max_entries=64, show_spinner=False)
def dot_for(
    text: str, x0: float, order: int, saved: bool, bold: bool, rankdir: str, language: str,
    page: bool,
) -> str:  # fmt: skip
    """The chart (fitted to the page, legend on the page) or the download (legend inside)."""
    view = lab_for(text, x0).view(order, show_saved=saved)
    strut = STRUT if page else 0.0
    return graph_figs.to_dot(
        view, language, highlight=bold, direction=rankdir, legend=not page, min_width=strut
    )


@st.cache_data(max_entries=16, show_spinner=False)
def svg_for(dot_source: str) -> bytes:
    return graph_figs.to_svg(dot_source) or b""


@st.cache_data(max_entries=128, show_spinner=False)
def flags_for(
    text: str, x0: float, cg: bool, rg: bool | None, au: bool, mg: bool, z: bool, action: str
) -> FlagOutcome:
    return run_flags(cached_parse(text), x0, FlagSettings(cg, rg, au, mg, z, action))


@st.cache_data(max_entries=32, show_spinner=False)
def case_for(case: str, variant: str) -> FlagOutcome:
    return run_case(case, variant)


# ---- Hessian-vector product page --------------------------------------------------------------

#: steps of the animated power iteration on a typed function
POWER_STEPS = 30


@st.cache_data(max_entries=64, show_spinner=False)
def explore(text: str, point: tuple, vector: tuple, radius: float) -> cv.Exploration:
    """Without the three ways (see :func:`three_ways`): every slider move reruns this."""
    fn = parse(text)
    return cv.explore(fn, point, vector, radius=radius, power_steps=POWER_STEPS, with_ways=False)


@st.cache_data(max_entries=64, show_spinner=False)
def three_ways(text: str, point: tuple, vector: tuple) -> cv.ThreeWays:
    """H v three ways, timed: 15 interleaved rounds, ~40 ms. Only for the tab that shows it."""
    return cv.hvp_three_ways(parse(text), point, vector)


#: A training or an analysis stops itself within 1.8 s; a fork that has not answered by this
#: is killed (hograd_core/fresh.py).
JOB_SECONDS = 60.0


@st.cache_data(max_entries=8, show_spinner=False)
def trained(dataset: str, hidden: tuple, steps: int, seed: int) -> nw.TrainedNet:
    bar = st.progress(0.0, text=t("hvp.net.training", step=0, total=steps, loss="…"))

    def progress(step: int, total: int, loss: float) -> None:
        bar.progress(
            step / total, text=t("hvp.net.training", step=step, total=total, loss=f"{loss:.4f}")
        )

    try:  # in a fork of the torch helper, off this process's interpreter lock
        return run_job(
            "train", nw.NetConfig(dataset, hidden, steps, seed=seed), JOB_SECONDS, progress
        )
    finally:
        bar.empty()


@st.cache_data(max_entries=8, show_spinner=False)
def analysed(
    key: tuple, top_k: int, power_steps: int, probes: int, _net: nw.TrainedNet
) -> nc.NetCurvature:
    """Keyed by the training settings in ``key``; the trained net itself is not hashed. The
    analysis gets what the click that trained the net has left of its time."""
    left = nw.click_time_left(_net)
    kwargs = dict(top_k=top_k, power_steps=power_steps, probes=probes, max_seconds=left)
    return run_job("analyse", (_net, kwargs), JOB_SECONDS)
