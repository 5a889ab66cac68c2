"""The lab's cached calls: one per view, keyed by primitives (the typed texts, the grid)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import streamlit as st

from hograd_core.flaglab import FlagOutcome
from hograd_core.flaglab.decoder import Decoded, decode
from hograd_core.graph_trace import TensorGraph
from hograd_serving.cached import case_for
from hograd_serving.exact import backward_exact
from hograd_serving.gate import HEAVY_SECONDS, heavy_work

from . import compute


def grid(low: float, high: float, points: int) -> list[float]:
    """The grid the page asks for: ``points`` points from ``low`` to ``high``."""
    return np.linspace(low, high, points).tolist()


def exact_part(f: str, b: str, points: Sequence[float]) -> compute.ExactPart:
    """sympy's part of the lab, from the exact maths' child process (killed at its deadline;
    each request answered once per server: hograd_serving/exact.py)."""
    answer = backward_exact(f, b, points)
    latex = list(answer.fields.get("latex") or ())[:4]
    columns = answer.fields.get("exact") or ((), ())

    def values(column: Sequence) -> tuple[float, ...]:
        got = [math.nan if v is None else float(v) for v in column][: len(points)]
        return tuple(got + [math.nan] * (len(points) - len(got)))

    return compute.ExactPart(
        first=values(columns[0]),
        second=values(columns[1]),
        latex=tuple(latex + [None] * (4 - len(latex))),
        stopped=answer.stopped,
    )


@st.cache_data(max_entries=64, show_spinner=False)
def _ran(f: str, b: str, low: float, high: float, points: int, variant: str) -> compute.Lab:
    # gradcheck and gradgradcheck: up to 25 backward calls each
    with heavy_work(seconds=HEAVY_SECONDS):
        return compute.lab(f, b, grid(low, high, points), variant)


def lab_for(f: str, b: str, low: float, high: float, points: int, variant: str) -> compute.Lab:
    """The lab with sympy's part. That part is kept by the exact door, per request, outside
    ``st.cache_data``: a "busy" answer is not kept, so the next run asks again."""
    ran = _ran(f, b, low, high, points, variant)
    # outside the gate: the child is bounded by its own slots and deadline
    return compute.with_exact(ran, exact_part(f, b, ran.run.points))


@st.cache_data(max_entries=64, show_spinner=False)
def penalty_for(
    f: str, b: str, low: float, high: float, points: int, variant: str
) -> compute.Penalty:
    return compute.penalty(f, b, grid(low, high, points), variant)


@st.cache_data(max_entries=64, show_spinner=False)
def graph_for(f: str, b: str, x0: float, variant: str) -> TensorGraph:
    return compute.graph_at(f, b, x0, variant)


@st.cache_data(max_entries=64, show_spinner=False)
def script_for(f: str, b: str, low: float, high: float, points: int, variant: str) -> str:
    return compute.script(f, b, _ran(f, b, low, high, points, variant).run)


def decoded(text: str) -> tuple[Decoded | None, FlagOutcome | None]:
    """Where a pasted message belongs, and the run of the gallery case that raises it (None
    when the decoder cannot place it, or no gallery case raises it). The run is cached by the
    serving layer; a case that switches process-wide state runs in a fresh process."""
    match = decode(text)
    if match is None or not match.case:
        return match, None
    return match, case_for(match.case, match.variant)
