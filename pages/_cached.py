"""The pages' cached calls into hograd_core, defined once per process.

A page file is executed afresh on every run, so a ``@st.cache_data`` function defined in it
is wrapped again each time (Streamlit reads its source to key the cache): about 3 % of a
derivatives rerun. Defined here, they are wrapped once. Each is a pure function of its
arguments (no per-user state), so sharing results between sessions is safe.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from contextlib import nullcontext

import numpy as np
import streamlit as st

from hograd_core import curvature as cv
from hograd_core import derivatives, parse
from hograd_core import graph_figures as graph_figs
from hograd_core import net_curvature as nc
from hograd_core import network as nw
from hograd_core.derivatives import DerivativeResult, autograd_is_heavy, estimate_autograd
from hograd_core.flaglab import FlagOutcome, FlagSettings, run_flags
from hograd_core.flaglab_cases import run_case
from hograd_core.gate import heavy_work
from hograd_core.graphs import GRAPH_BUDGET, GraphLab, graph_lab
from hograd_core.lab import CostProfile, Inspection, cost_profile, inspect_point
from hograd_core.symbolic import SymbolicDerivatives, symbolic_derivatives
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


#: sympy's time per script run. It is pure Python: while it works it holds the interpreter lock
#: that every session of the class shares. A function whose derivatives take longer gets them
#: over several runs (:func:`symbolic`), and the page says how far sympy has got.
SYMPY_SECONDS = 0.3
SYMPY_FUNCTIONS = 64  # functions whose derivatives are kept (the least recently extended go)
_CHAINS: OrderedDict[str, SymbolicDerivatives] = OrderedDict()
_CHAINS_LOCK = threading.Lock()  # one sympy computation at a time: no function done twice


def symbolic(text: str, order: int) -> SymbolicDerivatives:
    """sympy's derivatives of ``text`` to ``order``, continued from what earlier runs (of any
    session) computed, for at most ``SYMPY_SECONDS``; if that is not enough, ``stopped`` is
    "time" and the next run goes on from there. Moving the order slider up differentiates
    only the new orders; down, nothing.

    Not st.cache_data: that pickles the value on every hit (25 ms for tanh's eleven
    derivatives), and a derivative chain only ever grows. The expressions are a pure function
    of the text, the same for every student who types it, like the cached values.
    """

    def enough(done: SymbolicDerivatives | None) -> bool:
        return done is not None and (len(done.exprs) > order or done.stopped == "size")

    if enough(done := _CHAINS.get(text)):
        return done
    with _CHAINS_LOCK:
        done = _CHAINS.get(text)
        if not enough(done):  # another session may have got there while this one waited
            done = symbolic_derivatives(
                parse(text), order, max_seconds=SYMPY_SECONDS, start_from=done
            )
            _CHAINS[text] = done
            _CHAINS.move_to_end(text)
            while len(_CHAINS) > SYMPY_FUNCTIONS:
                _CHAINS.popitem(last=False)
    return done


def inspect(text: str, x0: float, order: int, language: str) -> Inspection:
    """The inspector's rows at x0. sympy's part is fetched first and its length is part of
    the cache key, so a row computed while sympy was still short is not served once it has
    got further."""
    sym = symbolic(text, order)
    return _inspect(text, x0, order, language, len(sym.exprs), sym)  # the length is hashed


@st.cache_data(max_entries=64, show_spinner=False)
def _inspect(
    text: str, x0: float, order: int, language: str, sympy_length: int, _sym: SymbolicDerivatives
) -> Inspection:
    fn = parse(text)
    # nested autograd at x0 can build ~100k nodes; a small graph is not worth a gate slot
    with heavy_work() if autograd_is_heavy(fn, order) else nullcontext():
        return inspect_point(fn, x0, order, language, _sym)


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


@st.cache_data(max_entries=8, show_spinner=False)
def trained(dataset: str, hidden: tuple, steps: int, seed: int) -> nw.TrainedNet:
    bar = st.progress(0.0, text=t("hvp.net.training", step=0, total=steps, loss="…"))

    def progress(step: int, total: int, loss: float) -> None:
        bar.progress(
            step / total, text=t("hvp.net.training", step=step, total=total, loss=f"{loss:.4f}")
        )

    try:
        return nw.train(nw.NetConfig(dataset, hidden, steps, seed=seed), progress)
    finally:
        bar.empty()


@st.cache_data(max_entries=8, show_spinner=False)
def analysed(
    key: tuple, top_k: int, power_steps: int, probes: int, _net: nw.TrainedNet
) -> nc.NetCurvature:
    """Keyed by the training settings in ``key``; the trained net itself is not hashed. The
    analysis gets what the click that trained the net has left of its time."""
    left = nw.click_time_left(_net)
    return nc.curvature(_net, top_k=top_k, power_steps=power_steps, probes=probes, max_seconds=left)
