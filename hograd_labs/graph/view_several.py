"""The graph lab for a function of two or more variables: the double-backward graph of one
Hessian-vector product (g = grad(f, w, create_graph=True), then grad(g·v, w)), each stage in
its own colour. Called by :func:`.page.draw`, in its frame (hograd_ui/parts/frame.py); reads
its widgets, calls one cached function, renders.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from hograd_core import HogradError
from hograd_core.cpp_code import hvp_graph_cpp
from hograd_core.graphs import GRAPH_BUDGET
from hograd_core.hessian import numbers_limit
from hograd_core.language import LIMITS, Function
from hograd_ui.graph_text import describe
from hograd_ui.parts.a11y import graphviz
from hograd_ui.parts.downloads import cpp_file, language_tabs, slug
from hograd_ui.parts.frame import Frame
from hograd_ui.parts.links import BIND, link_text
from hograd_ui.parts.narration import narration
from hograd_ui.parts.ui import box_chars, lang, lazy_expander, show_error, t

from . import figures
from .cached import hvp_graph_for
from .compute import DECIMALS, shown
from .narrate import hvp_steps, labels

SEED_POINT, SEED_VECTOR = "1, pi/2", "0.5, 1"  # the seed's example for w1**2*sin(w2)
#: The boxes' bound, from the longest point a function may need, of its most variables (the
#: same for every function: a box whose max_chars changes is a new widget, and forgets its
#: text); the core refuses text longer than the function's own variables need, with a message.
MAX_CHARS = box_chars(numbers_limit(LIMITS.max_variables))


def _numbers(values: tuple[float, ...]) -> str:
    # rounded as the drawing's values are (cos(pi/2) is 6e-17 in float64)
    return ", ".join(f"{shown(v):.6g}" for v in values)


@dataclass(frozen=True)
class SeveralSettings:
    """The view's inputs: the point and the direction as typed, whether the second backward
    is recorded, whether the drawing shows the saved tensors."""

    point: str
    vector: str
    record: bool
    saved: bool


def several_settings(fn: Function, view: Frame) -> SeveralSettings:
    """The inputs (drawn in ``view``'s controls)."""
    left, right = st.columns(2, gap="large")
    point = left.text_input(
        t("graphvars.point"),
        SEED_POINT,
        key="graphvars.point",
        bind=BIND,
        max_chars=MAX_CHARS,
        help=t("graphvars.point.help", names=", ".join(fn.variables)),
    )
    vector = right.text_input(
        t("graphvars.vector"),
        SEED_VECTOR,
        key="graphvars.vector",
        bind=BIND,
        max_chars=MAX_CHARS,
    )
    with st.container(horizontal=True, gap="large"):
        record = st.toggle(
            t("graphvars.record"),
            key="graphvars.record",
            bind=BIND,
            help=t("graphvars.record.help"),
        )
        # one switch per mode, each with its own default and key: the page as it always was
        # (saved tensors drawn), and the projector's first screen (left out, see
        # several_variables)
        saved = st.toggle(
            t("graph.saved"),
            value=view.setting(True, False),
            key=view.setting("graphvars.saved", "graphvars.saved.present"),
            bind=BIND,
            help=t("graph.saved.help"),
        )
    return SeveralSettings(point, vector, record, saved)


def several_variables(view: Frame, fn: Function, settings: SeveralSettings) -> None:
    """The lead, the numbers, the drawing (or its summary) and the code, for ``fn``.

    Projected, the drawing is laid out left to right and tight, its saved tensors left out
    unless the lecturer switches them on: top to bottom with them, the seed's graph was 790
    px tall at the projector's text size and ran off the first screen (issue 38)."""
    with view.lead(here=True):
        st.markdown(t("graphvars.lead", n=len(fn.variables)))
    point, vector, record, saved = (
        settings.point,
        settings.vector,
        settings.record,
        settings.saved,
    )
    try:
        # a link's text longer than the box: the core refuses it whole, before reading it
        point = link_text("graphvars.point", point, MAX_CHARS)
        vector = link_text("graphvars.vector", vector, MAX_CHARS)
        result = hvp_graph_for(fn.text, point, vector, record)
    except HogradError as err:
        show_error(err)
        return
    st.markdown(
        t(
            "graphvars.numbers",
            point=_numbers(result.point),
            vector=_numbers(result.vector),
            value=_numbers((result.value,)),
            gradient=_numbers(result.gradient),
            hvp=_numbers(result.hvp),
        )
    )
    if result.constant_gradient:
        st.info(t("graphvars.constant"), icon=":material/info:")
    elif not record:
        freed, kept = result.saved_states
        st.caption(
            t("graphvars.freed" if saved else "graphvars.freed.hidden", freed=freed, kept=kept)
        )
    graph = result.graph
    if graph.drawable:
        st.html(figures.hvp_legend_html(result, lang()))
        layout = view.setting({**figures.ON_PAGE, "min_width": 420.0}, figures.ON_SLIDE)
        dot = figures.hvp_dot(result, lang(), saved=saved, **layout)
        drawn = graph if saved else graph.without_saved()
        said = describe(drawn.nodes, drawn.edges, lang(), pass_name=figures.stage_name)
        graphviz(dot, said, key="graphvars.said.view")
        narration(
            t("graph.said.title"),
            hvp_steps(result, lang()),
            labels=labels(lang()),
            key="graphvars.said.steps",
        )
        st.caption(t("graphvars.rounded", decimals=DECIMALS))
    else:
        st.warning(
            t("graphvars.too_large", nodes=f"{len(graph.nodes):,}", limit=GRAPH_BUDGET.max_draw),
            icon=":material/visibility_off:",
        )
    summary = lazy_expander(
        t("graphvars.summary"),
        f"graphvars.summary.{graph.drawable}",
        expanded=not graph.drawable,
        icon=":material/table:",
    )
    with summary:
        if summary.open:
            st.dataframe(figures.hvp_summary_rows(result, lang()), hide_index=True)
    with (code := lazy_expander(t("graphvars.code"), "graphvars.code", icon=":material/code:")):
        if code.open:
            python, cpp = language_tabs()
            python.code(result.code, language="python")
            with cpp:
                name = f"hograd_hvp_graph_{slug(fn.text)}"
                program = hvp_graph_cpp(
                    fn, result.point, result.vector, record, result.reaches, name
                )
                cpp_file(program, name, "graphvars")
