"""The lesson's cached call: each step's right answer, computed once per process by
:mod:`.compute` (the same for every student). The live views draw from the labs' shared
cached calls in :mod:`hograd_serving.cached` (the curves, the flag lab, the graph's growth,
the HVP picture)."""

from __future__ import annotations

import streamlit as st

from . import compute

__all__ = ["lesson_answer"]


@st.cache_data(max_entries=16, show_spinner=False)
def lesson_answer(name: str) -> compute.Answer:
    """The right answer of the lesson step ``name`` (a tiny graph, a 2-by-2 Hessian, a Newton
    race of at most 100 steps)."""
    return compute.answer(name)
