"""The graph lab's cached calls: a drawing's SVG laid out by Graphviz's ``dot`` (a process, so
here and not in :mod:`.figures`), and the graph of one Hessian-vector product.

The graph of f, f', ... (``lab_for``), the flag lab's runs (``flags_for``) and the classic
cases (``case_for``) stay in :mod:`hograd_serving.cached`: the lesson and the backward lab
draw them too.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import zipfile

import streamlit as st

from hograd_core.errors import BudgetError
from hograd_core.hvp_graph import HVPGraph, hvp_graph
from hograd_serving.cached import cached_parse
from hograd_serving.gate import HEAVY_SECONDS, heavy_work

__all__ = ["dot_available", "steps_zip", "hvp_graph_for", "svg_for", "to_svg"]

_SVG_TIMEOUT = 30.0  # seconds; within max_draw nodes dot needs about 1 s here


def dot_available() -> bool:
    """Whether the graphviz ``dot`` binary is installed (needed for SVG, not for DOT)."""
    return shutil.which("dot") is not None


def to_svg(dot_source: str) -> bytes | None:
    """Lay out DOT source with the ``dot`` binary; None when the binary is missing.

    Only pass the source of a drawable view (``to_dot`` refuses larger ones).

    Raises:
        BudgetError: dot ran longer than 30 s or failed.
        BusyError: the server is busy with other heavy requests.
    """
    exe = shutil.which("dot")
    if exe is None:
        return None
    with heavy_work(seconds=HEAVY_SECONDS):
        try:
            done = subprocess.run(
                [exe, "-Tsvg"],
                input=dot_source.encode(),
                capture_output=True,
                timeout=_SVG_TIMEOUT,
                check=False,
            )
        except subprocess.TimeoutExpired as err:
            raise BudgetError("graph.budget.svg_timeout", seconds=f"{_SVG_TIMEOUT:g}") from err
    if done.returncode != 0:
        raise BudgetError("graph.budget.svg_failed", detail=done.stderr.decode()[:200])
    return done.stdout


@st.cache_data(max_entries=16, show_spinner=False)
def svg_for(dot_source: str) -> bytes:
    return to_svg(dot_source) or b""


@st.cache_data(max_entries=8, show_spinner=False)
def steps_zip(sources: tuple[str, ...]) -> bytes:
    """The drawings after each pass (``sources[k]``: the DOT after pass k), laid out as SVG
    and zipped as ``pass_0.svg`` ... ``pass_k.svg``: the files ``python -m hograd_core graph
    ... --steps DIR`` writes, one slide per step."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for k, source in enumerate(sources):
            archive.writestr(f"pass_{k}.svg", to_svg(source) or b"")
    return buffer.getvalue()


@st.cache_data(max_entries=32, show_spinner=False)
def hvp_graph_for(text: str, point: str, vector: str, record: bool) -> HVPGraph:
    """The double-backward graph of one Hessian-vector product (the graph page, 2+ variables)."""
    with heavy_work(seconds=HEAVY_SECONDS):
        return hvp_graph(cached_parse(text), point, vector, record)
