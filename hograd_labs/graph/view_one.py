"""The graph lab for a function of one variable: the graph of f, f', ..., f^(k) pass by pass,
its legend, downloads and growth. Called by :func:`.page.draw`, in its frame
(hograd_ui/parts/frame.py); reads its widgets, calls one cached function, renders."""

from dataclasses import dataclass

import streamlit as st

from hograd_core import HogradError
from hograd_core.cpp_code import derivatives_cpp
from hograd_core.graphs import GRAPH_BUDGET, GraphLab, GraphView, output_label
from hograd_core.inspector import pytorch_snippet
from hograd_core.language import Function
from hograd_serving.gate import BusyError
from hograd_ui.graph_text import describe
from hograd_ui.parts.a11y import graphviz
from hograd_ui.parts.chart import chart
from hograd_ui.parts.downloads import code_file, cpp_file, graph_row, language_tabs, slug
from hograd_ui.parts.exact import exact_entry
from hograd_ui.parts.frame import Frame
from hograd_ui.parts.link_form import Field, draw_linked
from hograd_ui.parts.links import BIND
from hograd_ui.parts.narration import narration
from hograd_ui.parts.ui import busy_retry, lang, lazy_expander, localized_choice, show_error, t
from hograd_ui.tensor_drawing import pass_name

from . import cached, figures
from .narrate import labels, view_steps

TOP = GRAPH_BUDGET.max_order


def refused(err: HogradError) -> None:
    """A refusal; a full server is said plainly (the general message suggests a lower order,
    which here would not help: the page always builds every order)."""
    if isinstance(err, BusyError):
        st.warning(t("graph.busy"), icon=":material/hourglass_top:")
        busy_retry(err)
    else:
        show_error(err)


#: x0 and the order, in the link while they differ from these defaults
X0 = Field("number", 0.7, -1e3, 1e3)
ORDER = Field("slider", 2, 0, TOP)


def step_order(delta: int) -> None:
    st.session_state["graph.order"] = min(TOP, max(0, st.session_state["graph.order"] + delta))


@dataclass(frozen=True)
class GraphSettings:
    """What the graph view shows: f at ``x0``, up to ``order``, and how it is drawn."""

    x0: float
    order: int
    saved: bool  # the tensors each node saves for backward
    bold: bool  # the newest pass highlighted
    rankdir: str  # "TB" or "LR"


def _steps(order: int) -> None:
    st.button(
        t("graph.step.prev"),
        icon=":material/arrow_back:",
        on_click=step_order,
        args=(-1,),
        disabled=order == 0,
        key="graph.prev",
    )
    st.button(
        t("graph.step.next"),
        icon=":material/arrow_forward:",
        on_click=step_order,
        args=(1,),
        disabled=order == TOP,
        type="primary",
        key="graph.next",
    )


def _drawing(view: Frame) -> tuple[bool, bool, str]:
    saved = st.toggle(t("graph.saved"), key="graph.saved", help=t("graph.saved.help"), bind=BIND)
    bold = st.toggle(t("graph.highlight"), value=True, key="graph.highlight", bind=BIND)
    # Projected, left to right by default (the first option): a graph of a few passes is
    # then wider than tall, and at the projector's text size lies under the controls on the
    # first screen (x**3 to order 2: 262 px tall instead of 646 px top to bottom, issue 38).
    directions = view.setting(("TB", "LR"), ("LR", "TB"))
    rankdir = localized_choice(
        t("graph.direction"),
        {d: t(f"graph.direction.{d}") for d in directions},
        "graph.direction",
        widget="segmented_control",
        old_labels="graph.direction.",
        label_visibility="collapsed",
    )
    return saved, bold, rankdir


def graph_settings(view: Frame) -> GraphSettings:
    """x0, the order and the drawing's toggles (drawn in ``view``'s controls; the pass
    buttons stand above the graph, :func:`one_variable`)."""
    left, right = st.columns([1, 3], gap="large")
    # unbound, in the link while not the default: the exact entry and the pass buttons set
    # x0 and the order through the session state (hograd_ui/parts/link_form.py)
    x0 = float(draw_linked(left, t("graph.x0"), "graph.x0", X0, step=0.1))
    # the browser's number box reads "−1" (U+2212) as 1 and knows no pi/4: typed here instead
    exact_entry(
        "graph.x0.exact", t("graph.x0.exact"), ("graph.x0",), -1e3, 1e3, (x0,), container=left
    )
    order = draw_linked(right, t("graph.order"), "graph.order", ORDER, help=t("graph.order.help"))
    with st.container(horizontal=True, vertical_alignment="center"):
        saved, bold, rankdir = _drawing(view)
    return GraphSettings(x0, order, saved, bold, rankdir)


def one_variable(fn: Function, settings: GraphSettings) -> None:
    """The graph of f, f', ..., f^(k) pass by pass, and how it grows."""
    x0, order, saved, bold, rankdir = (
        settings.x0,
        settings.order,
        settings.saved,
        settings.bold,
        settings.rankdir,
    )
    # the passes a click apart, right above the graph, in every mode (a button keeps no state)
    with st.container(horizontal=True, vertical_alignment="center"):
        _steps(order)
    try:
        lab = cached.lab_for(fn.text, x0)
        view = lab.view(order, show_saved=saved)
    except HogradError as err:
        refused(err)
        st.stop()

    st.markdown(
        t(
            "graph.caption",
            order=order,
            x0=f"{x0:g}",
            last=output_label(order, lab.variable),
            nodes=view.ops,
            depth=lab.stats[order].depth,
            new=view.per_pass[-1],
            newest=pass_name(order, lang()),
        )
    )
    if lab.constant_from is not None and lab.constant_from <= order:
        st.info(t("graph.constant", k=lab.constant_from), icon=":material/info:")
    if view.drawable:
        st.html(figures.legend_html(view, lang(), highlight=bold))
        dot = figures.to_dot(
            view, lang(), highlight=bold, direction=rankdir, legend=False, min_width=figures.STRUT
        )
        graphviz(dot, describe(view.nodes, view.edges, lang()), key="graph.said.view")
        narration(
            t("graph.said.title"),
            view_steps(lab.view(order, show_saved=True), lang()),
            labels=labels(lang()),
            key="graph.said.steps",
        )
        _downloads(lab, view, settings)
    else:
        too_large = t(
            "graph.budget.draw", nodes=f"{len(view.nodes):,}", limit=GRAPH_BUDGET.max_draw
        )
        st.warning(f"**{t('graph.too_large')}** {too_large}", icon=":material/visibility_off:")
        if saved and lab.view(order).drawable:
            st.caption(t("graph.too_large.saved"))
    summary = lazy_expander(
        t("graph.summary.title"),
        f"graph.summary.{view.drawable}",
        expanded=not view.drawable,
        icon=":material/table:",
    )
    with summary:
        if summary.open:
            st.dataframe(figures.summary_rows(view, lang()), hide_index=True)

    _growth(lab, order)
    graph_row(fn, x0, order, "graph")  # downloads: the view as a notebook
    code = lazy_expander(t("graph.code.title"), "graph.code", icon=":material/code:")
    with code:
        if code.open:
            _code(fn, x0, order)
    with (table := lazy_expander(t("graph.table.title"), "graph.table", icon=":material/table:")):
        if table.open:
            st.dataframe(figures.stats_rows(lab.stats, lang()), hide_index=True)


def _downloads(lab: GraphLab, view: GraphView, settings: GraphSettings) -> None:
    """The drawing as DOT, as SVG, and pass by pass in a zip (SVG only where dot is installed)."""
    x0, order, bold, rankdir = settings.x0, settings.order, settings.bold, settings.rankdir
    source = figures.to_dot(view, lang(), highlight=bold, direction=rankdir)
    with st.container(horizontal=True, vertical_alignment="center"):
        st.download_button(
            t("graph.download.dot"),
            source,
            f"hograd_order{order}.dot",
            "text/vnd.graphviz",
            icon=":material/download:",
            on_click="ignore",
            key="graph.dot",
        )
        if cached.dot_available():
            st.download_button(
                t("graph.download.svg"),
                lambda: cached.svg_for(source),
                f"hograd_order{order}.svg",
                "image/svg+xml",
                icon=":material/download:",
                on_click="ignore",
                key="graph.svg",
            )
            language = lang()  # read now: the files are made when the button is pressed
            st.download_button(
                t("graph.download.steps"),
                lambda: cached.steps_zip(
                    figures.pass_dots(
                        lab,
                        order,
                        language,
                        saved=settings.saved,
                        highlight=bold,
                        direction=rankdir,
                    )
                ),
                f"hograd_passes_order{order}.zip",
                "application/zip",
                help=t("graph.download.steps.help", order=order, x0=f"{x0:g}"),
                icon=":material/download:",
                on_click="ignore",
                key="graph.steps",
            )
        else:
            st.caption(t("graph.download.no_dot"))


def _growth(lab: GraphLab, order: int) -> None:
    """How the graph grows with the order: in numbers, always; as a chart, folded."""
    st.header(t("graph.growth.title"))
    st.markdown(figures.growth_text(lab.stats, lang()))  # the growth in numbers, always shown
    if lab.stopped_nodes is not None:
        st.warning(
            t(
                "graph.growth.stopped",
                built=lab.built,
                nodes=f"{lab.stopped_nodes:,}",
                limit=f"{GRAPH_BUDGET.max_nodes:,}",
            )
        )
    # The chart is folded: it is the page's only Plotly chart, and Plotly's bundle was most of
    # what a deep link to this page waited for (docs/performance.md, First screens).
    folded = lazy_expander(
        t("graph.growth.chart"), "graph.growth.open", icon=":material/show_chart:", linked=True
    )
    with folded:
        if folded.open:
            chart(figures.growth_figure(lab.stats, order, lang()), key="graph.growth")


def _code(fn: Function, x0: float, order: int) -> None:
    """The calls that build these graphs, in Python and in C++: nested grad with
    create_graph=True to ``order``, each order's value, grad_fn and the backward nodes it
    reaches (the C++ program prints the same lines; tests/cpp compiles and compares them)."""
    st.caption(t("graph.code.caption", order=order))
    name = f"hograd_graph_{slug(fn.text)}"
    python, cpp = language_tabs()
    with python:
        source = pytorch_snippet(fn, float(x0), order)
        st.code(source, language="python")
        code_file(source, name, "graph.order")
    with cpp:
        cpp_file(derivatives_cpp(fn, float(x0), order, name), name, "graph.order")
