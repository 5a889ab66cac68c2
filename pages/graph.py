"""Double-backward graph lab: the autograd graph pass by pass, the flag lab, the classic traps."""

import streamlit as st

from hograd_core import HogradError
from hograd_core.flaglab.cases import CASES
from hograd_core.flaglab.flags import ACTIONS, FlagOutcome
from hograd_core.graphs import GRAPH_BUDGET, output_label
from hograd_serving.cached import case_for, flags_for, lab_for
from hograd_serving.gate import BusyError
from hograd_ui import graph_figures as figures
from pages._links import BIND
from pages._ui import function_box, lang, localized_radio, show_error, t

RETAIN = {"None": None, "True": True, "False": False}  # retain_graph's choices, by label
PRESETS = ["x**3", "sin(x)", "tanh(x)", "2*x", "relu(x)", "x**2", "exp(x)", "sin(x)*exp(-x**2)"]
TOP = GRAPH_BUDGET.max_order
# Option labels are looked up in dicts built during the run (never by calling t() later, when the
# language may have changed): see localized_radio in pages/_ui.py.


def refused(err: HogradError) -> None:
    """A refusal; a full server is said plainly (the general message suggests a lower order,
    which here would not help: the page always builds every order)."""
    if isinstance(err, BusyError):
        st.warning(t("graph.busy"), icon=":material/hourglass_top:")
    else:
        show_error(err)


def step_order(delta: int) -> None:
    st.session_state["graph.order"] = min(TOP, max(0, st.session_state["graph.order"] + delta))


def show_outcome(outcome: FlagOutcome) -> None:
    """What PyTorch printed or raised, its warnings, why, the fix, and the code."""
    if outcome.raised:
        st.error(
            t("graph.result.raised", error_type=outcome.steps[-1].error_type),
            icon=":material/error:",
        )
    else:
        st.success(t("graph.result.ran"), icon=":material/check_circle:")
    st.code(outcome.transcript(), language=None, wrap_lines=True)
    for message in outcome.warnings:
        st.warning(t("graph.result.warned"), icon=":material/warning:")
        st.code(message, language=None, wrap_lines=True)
    head = {k: t(f"graph.result.{k}") for k in ("name", "value", "requires_grad", "grad_fn")}
    rows = [
        {head["name"]: r.name, head["value"]: "None" if r.value is None else f"{r.value:.6g}",
         head["requires_grad"]: r.requires_grad, head["grad_fn"]: r.grad_fn or "None"}
        for step in outcome.steps for r in step.results
    ]  # fmt: skip
    if rows:
        st.dataframe(rows, hide_index=True)
    facts = dict(outcome.params)  # read from the real graph: its functions, what was freed
    why = " ".join(t(key, **facts) for key in outcome.explain)
    st.info(f"**{t('graph.result.why')}** {why}", icon=":material/lightbulb:")
    if outcome.fixes:
        fix = " ".join(t(key, **facts) for key in outcome.fixes)
        st.success(f"**{t('graph.result.fix')}** {fix}", icon=":material/build:")
    with st.expander(t("graph.result.code"), icon=":material/code:"):
        st.code(outcome.snippet, language="python")


def show_drawings(off: FlagOutcome, on: FlagOutcome, this: bool) -> None:
    """The real graph after the run, with create_graph=False and =True side by side; ``this``
    is the create_graph of the run shown above."""
    st.markdown(f"**{t('graph.draw.title')}**")
    for column, outcome, flag in zip(st.columns(2), (off, on), (False, True), strict=True):
        mark = f" · {t('graph.draw.this_run')}" if flag == this else ""
        column.markdown(f"`create_graph={flag}`{mark}")
        graph = outcome.drawing
        if graph is None or not graph.drawable:
            column.caption(t("graph.draw.too_large", limit=GRAPH_BUDGET.max_draw))
            continue
        column.html(figures.flag_legend_html(graph, lang()))
        column.graphviz_chart(figures.flag_dot(graph, lang()), width="stretch")
    nodes, saved_bytes = on.first_call
    if len(on.steps) > 2:  # the first call ran
        key = "graph.draw.changed" if nodes else "graph.draw.same"
        st.markdown(t(key, nodes=nodes, bytes=f"{saved_bytes:,}"))


def show_torchviz(outcome: FlagOutcome) -> None:
    """torchviz's view of the same tensors, with the line of code that made it."""
    views = dict(outcome.views)
    with st.expander(t("graph.tv.title"), icon=":material/account_tree:"):
        st.caption(t("graph.tv.lead"))
        with st.container(horizontal=True):
            attrs = st.toggle(t("graph.tv.attrs"), key="graph.tv.attrs", bind=BIND)
            saved = st.toggle(t("graph.tv.saved"), key="graph.tv.saved", bind=BIND)
        key = f"{attrs},{saved}"
        st.code(f"from torchviz import make_dot\n\n{views[f'code:{key}']}", language="python")
        if f"error:{key}" in views:
            st.error(t("graph.tv.error"), icon=":material/error:")
            st.code(views[f"error:{key}"], language=None, wrap_lines=True)
        elif outcome.drawing is None or not outcome.drawing.drawable:
            st.caption(t("graph.draw.too_large", limit=GRAPH_BUDGET.max_draw))
        else:
            st.graphviz_chart(views[f"dot:{key}"], width="stretch")


st.title(t("graph.title"))
st.markdown(t("graph.lead"))

# ---- the graph, pass by pass ------------------------------------------------------------------
fn = function_box("graph", t("graph.fn.label"), PRESETS)
left, right = st.columns([1, 3], gap="large")
x0 = float(left.number_input(
    t("graph.x0"), value=0.7, min_value=-1e3, max_value=1e3, step=0.1, key="graph.x0", bind=BIND,
))  # fmt: skip
order = right.slider(
    t("graph.order"), 0, TOP, 2, key="graph.order", help=t("graph.order.help"), bind=BIND
)
with st.container(horizontal=True, vertical_alignment="center"):
    st.button(
        t("graph.step.prev"), icon=":material/arrow_back:", on_click=step_order, args=(-1,),
        disabled=order == 0, key="graph.prev",
    )  # fmt: skip
    st.button(
        t("graph.step.next"), icon=":material/arrow_forward:", on_click=step_order, args=(1,),
        disabled=order == TOP, type="primary", key="graph.next",
    )  # fmt: skip
    saved = st.toggle(t("graph.saved"), key="graph.saved", help=t("graph.saved.help"), bind=BIND)
    bold = st.toggle(t("graph.highlight"), value=True, key="graph.highlight", bind=BIND)
    rankdir = st.segmented_control(
        t("graph.direction"), ["TB", "LR"], default="TB", required=True,
        key="graph.direction", bind=BIND,
        format_func={d: t(f"graph.direction.{d}") for d in ("TB", "LR")}.__getitem__,
        label_visibility="collapsed",
    ) or "TB"  # fmt: skip

try:
    lab = lab_for(fn.text, x0)
    view = lab.view(order, show_saved=saved)
except HogradError as err:
    refused(err)
    st.stop()

st.markdown(t(
    "graph.caption", order=order, x0=f"{x0:g}", last=output_label(order, lab.variable),
    nodes=view.ops, depth=lab.stats[order].depth, new=view.per_pass[-1],
    newest=figures.pass_name(order, lang()),
))  # fmt: skip
if lab.constant_from is not None and lab.constant_from <= order:
    st.info(t("graph.constant", k=lab.constant_from), icon=":material/info:")
if view.drawable:
    st.html(figures.legend_html(view, lang(), highlight=bold))
    chart = figures.dot_for(fn.text, x0, order, saved, bold, rankdir, lang(), True)
    st.graphviz_chart(chart, width="stretch")
    source = figures.dot_for(fn.text, x0, order, saved, bold, rankdir, lang(), False)
    with st.container(horizontal=True, vertical_alignment="center"):
        st.download_button(
            t("graph.download.dot"), source, f"hograd_order{order}.dot", "text/vnd.graphviz",
            icon=":material/download:", on_click="ignore", key="graph.dot",
        )  # fmt: skip
        if figures.dot_available():
            st.download_button(
                t("graph.download.svg"), lambda: figures.svg_for(source), f"hograd_order{order}.svg",
                "image/svg+xml", icon=":material/download:", on_click="ignore", key="graph.svg",
            )  # fmt: skip
        else:
            st.caption(t("graph.download.no_dot"))
else:
    too_large = t("graph.budget.draw", nodes=f"{len(view.nodes):,}", limit=GRAPH_BUDGET.max_draw)
    st.warning(f"**{t('graph.too_large')}** {too_large}", icon=":material/visibility_off:")
    if saved and lab.view(order).drawable:
        st.caption(t("graph.too_large.saved"))
with st.expander(t("graph.summary.title"), expanded=not view.drawable, icon=":material/table:"):
    st.dataframe(figures.summary_rows(view, lang()), hide_index=True)

st.subheader(t("graph.growth.title"))
st.plotly_chart(figures.growth_figure(lab.stats, order, lang()), key="graph.growth")
if lab.stopped_nodes is not None:
    st.warning(t(
        "graph.growth.stopped", built=lab.built, nodes=f"{lab.stopped_nodes:,}",
        limit=f"{GRAPH_BUDGET.max_nodes:,}",
    ))  # fmt: skip
st.markdown(figures.growth_text(lab.stats, lang()))
with st.expander(t("graph.table.title"), icon=":material/table:"):
    st.dataframe(figures.stats_rows(lab.stats, lang()), hide_index=True)

# ---- the flag lab on f ------------------------------------------------------------------------
st.divider()
st.header(t("graph.flags.title"))
st.markdown(t("graph.flags.lead"))
toggles, third = st.columns([5, 3], gap="large")
actions = {a: t(f"graph.flags.action.{a}") for a in ACTIONS}
action = localized_radio(t("graph.flags.action"), actions, "graph.flag.action", container=third)
grad_call = action != "backward"
with toggles.container(horizontal=True, vertical_alignment="bottom"):
    create_graph = st.toggle(
        t("graph.flags.create_graph"), key="graph.flag.create_graph",
        help=t("graph.flags.create_graph.help"), bind=BIND,
    )  # fmt: skip
    retain = st.segmented_control(
        t("graph.flags.retain_graph"), list(RETAIN), default="None", required=True,
        key="graph.flag.retain_graph", help=t("graph.flags.retain_graph.help"), bind=BIND,
        format_func={**{v: v for v in RETAIN}, "None": t("graph.flags.retain.default")}.__getitem__,
    )  # fmt: skip
    retain_graph = RETAIN[retain]
unused = toggles.toggle(t("graph.flags.unused"), key="graph.flag.unused", bind=BIND)
with toggles.container(horizontal=True):
    allow_unused = st.toggle(
        t("graph.flags.allow_unused"), key="graph.flag.allow_unused", disabled=not grad_call,
        help=t("graph.flags.allow_unused.help"), bind=BIND,
    )  # fmt: skip
    materialize = st.toggle(
        t("graph.flags.materialize_grads"), key="graph.flag.materialize",
        disabled=not grad_call, help=t("graph.flags.materialize_grads.help"), bind=BIND,
    )  # fmt: skip
if not grad_call:
    third.caption(t("graph.flags.backward_note"))
if action == "backward" and create_graph:
    third.caption(t("graph.flags.isolated", why=t("graph.flags.isolated.warn_once")))
try:
    flags = (retain_graph, allow_unused and grad_call, materialize and grad_call, unused, action)
    outcome = flags_for(fn.text, x0, create_graph, *flags)
    show_outcome(outcome)
    other = flags_for(fn.text, x0, not create_graph, *flags)  # the same run, create_graph flipped
    off, on = (other, outcome) if create_graph else (outcome, other)
    show_drawings(off, on, create_graph)
    show_torchviz(outcome)
except HogradError as err:
    refused(err)

# ---- the classic traps ------------------------------------------------------------------------
st.divider()
st.header(t("graph.cases.title"))
st.markdown(t("graph.cases.lead"))
case = st.selectbox(
    t("graph.cases.pick"), list(CASES), key="graph.case", bind=BIND,
    format_func={c: t(f"graph.case.{c}") for c in CASES}.__getitem__,
)  # fmt: skip
variants = list(CASES[case].variants)
variant = st.segmented_control(
    t("graph.cases.variant"), variants, default=variants[0], required=True,
    key=f"graph.variant.{case}", bind=BIND,
    format_func={v: t(f"graph.case.{case}.{v}") for v in variants}.__getitem__,
) or variants[0]  # fmt: skip
if CASES[case].isolated:
    why = "anomaly" if case == "nan_anomaly" else "warn_once"
    st.caption(t("graph.flags.isolated", why=t(f"graph.flags.isolated.{why}")))
try:
    show_outcome(case_for(case, variant))
except HogradError as err:
    refused(err)
