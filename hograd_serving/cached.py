"""The pages' cached calls into hograd_core, defined once per process.

A page file is executed afresh on every run, so a ``@st.cache_data`` function defined in it
is wrapped again each time (Streamlit reads its source to key the cache): about 3 % of a
derivatives rerun. Defined here, they are wrapped once. Each is a pure function of its
arguments (no per-user state), so sharing results between sessions is safe. This is also where
work is routed: heavy calls pass the gate (:mod:`.gate`), and the core is handed the functions
that run its work elsewhere (:mod:`.jobs`). The labs' cached calls are in their folders
(``hograd_labs/<lab>/cached.py``; the derivatives lab's inspector has its slower columns worked
out in the background by :mod:`.deferred` and :mod:`.sympy_column`).
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable
from contextlib import nullcontext

import numpy as np
import streamlit as st

from hograd_core import curvature, derivatives, parse
from hograd_core.flaglab import FlagOutcome, FlagSettings, run_case, run_flags
from hograd_core.graph_dot import escape_newlines
from hograd_core.graphs import GRAPH_BUDGET, GraphLab, graph_lab
from hograd_core.language import Function
from hograd_core.nested_autograd import DerivativeResult, autograd_is_heavy

from .gate import HEAVY_SECONDS, heavy_work
from .jobs import run_isolated, shared_probe


@st.cache_data(max_entries=256, show_spinner=False)
def cached_parse(text: str, variables: tuple[str, ...] | None = None) -> Function:
    return parse(text, variables)


# ---- the curves of f and its derivatives: the derivatives page (hograd_labs/derivatives, whose
# ---- other calls are its own cached.py) and the lesson -----------------------------------------


@st.cache_data(max_entries=64, show_spinner=False)
def curves(
    text: str, low: float, high: float, points: int, order: int, method: str
) -> DerivativeResult:
    fn = parse(text)
    heavy = method == "autograd" and autograd_is_heavy(fn, order, points, shared_probe)
    with heavy_work(seconds=HEAVY_SECONDS) if heavy else nullcontext():
        xs = np.linspace(low, high, points)
        return derivatives(fn, xs, order, method=method, probe=shared_probe)


# ---- graph page -------------------------------------------------------------------------------


@st.cache_data(max_entries=32, show_spinner=False)
def lab_for(text: str, x0: float) -> GraphLab:
    with heavy_work(seconds=HEAVY_SECONDS):
        return graph_lab(cached_parse(text), x0, GRAPH_BUDGET.max_order)


@st.cache_data(max_entries=128, show_spinner=False)
def flags_for(
    text: str,
    x0: float,
    create_graph: bool,
    retain_graph: bool | None,
    allow_unused: bool,
    materialize_grads: bool,
    unused_input: bool,
    action: str,
) -> FlagOutcome:
    """The flag lab's run of ``text`` at ``x0`` with these settings (:class:`FlagSettings`),
    cached for every session; the isolated cases run in a fresh process."""
    settings = FlagSettings(
        create_graph, retain_graph, allow_unused, materialize_grads, unused_input, action
    )
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
def explore(text: str, point: tuple, vector: tuple, radius: float) -> curvature.Exploration:
    """Without the three ways (the HVP lab's ``three_ways``): every slider move reruns this."""
    fn = parse(text)
    return curvature.explore(
        fn, point, vector, radius=radius, power_steps=POWER_STEPS, with_ways=False
    )


# ---- why gradients of gradients page ----------------------------------------------------------
# Every experiment is bounded by counted work checked before it starts (at most ~1 s of torch
# per click); it runs in this process, inside the heavy-work gate.


#: caption(done, total) of a progress bar, in the page's words (not part of any cache key)
Caption = Callable[[int, int], str]


def with_bar(caption: Caption, work: Callable[[Callable[[int, int], None]], object]) -> object:
    """``work(progress)`` inside the heavy-work gate, with a progress bar while it runs; each
    report of progress checks the deadline too (the work stops at its next step once past it).
    """
    bar = st.progress(0.0, text=caption(0, 1))
    try:
        with heavy_work(seconds=HEAVY_SECONDS) as deadline:

            def progress(done: int, total: int) -> None:
                deadline.check()
                bar.progress(min(1.0, done / max(total, 1)), text=caption(done, total))

            return work(progress)
    finally:
        bar.empty()
