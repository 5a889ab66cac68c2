"""The graph lab's cached calls: the graph of f, f', ... (``lab_for``), the flag lab's runs
(``flags_for``, with torchviz's view of them), a drawing's SVG laid out by Graphviz's ``dot``
(a process, so here and not in :mod:`.figures`), and the graph of one Hessian-vector product.

The classic cases (``case_for``) stay in :mod:`hograd_serving.cached`: the backward lab's
decoder runs them too.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import warnings
import zipfile

import streamlit as st

from hograd_core.errors import BudgetError
from hograd_core.flaglab import FlagOutcome, FlagSettings, run_flags
from hograd_core.graph_dot import escape_newlines
from hograd_core.graphs import GRAPH_BUDGET, GraphLab, graph_lab
from hograd_core.hvp_graph import HVPGraph, hvp_graph
from hograd_serving.cached import cached_parse
from hograd_serving.gate import HEAVY_SECONDS, heavy_work
from hograd_serving.jobs import run_isolated

__all__ = [
    "TORCHVIZ",
    "dot_available",
    "flags_for",
    "hvp_graph_for",
    "lab_for",
    "steps_zip",
    "svg_for",
    "to_svg",
    "torchviz_views",
]


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
