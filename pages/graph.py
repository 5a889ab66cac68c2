"""Double-backward graph lab: the autograd graph pass by pass, and the flag lab."""

import streamlit as st

from hograd_core import HogradError
from hograd_core.flaglab import ACTIONS, FlagOutcome, FlagSettings, run_case, run_flags
from hograd_core.flaglab_cases import CASES
from hograd_core.graph_figures import dot_available, growth_figure, pass_name, to_dot, to_svg
from hograd_core.graphs import GRAPH_BUDGET, GraphLab, graph_lab, growth_factor
from pages._ui import cached_parse, function_box, lang, show_error, t

PRESETS = ["x**3", "sin(x)", "tanh(x)", "2*x", "relu(x)", "x**2", "exp(x)", "sin(x)*exp(-x**2)"]
TOP = GRAPH_BUDGET.max_order


@st.cache_data(max_entries=32, show_spinner=False)
def lab_for(text: str, x0: float) -> GraphLab:
    return graph_lab(cached_parse(text), x0, TOP)


@st.cache_data(max_entries=64, show_spinner=False)
def dot_for(text: str, x0: float, order: int, saved: bool, highlight: bool, direction: str, language: str) -> str:  # noqa: E501
    view = lab_for(text, x0).view(order, show_saved=saved)
    return to_dot(view, language, highlight=highlight, direction=direction)


@st.cache_data(max_entries=16, show_spinner=False)
def svg_for(dot_source: str) -> bytes:
    return to_svg(dot_source) or b""


@st.cache_data(max_entries=128, show_spinner=False)
def flags_for(text: str, x0: float, cg: bool, rg: bool | None, au: bool, mg: bool, z: bool, action: str) -> FlagOutcome:  # noqa: E501
    settings = FlagSettings(cg, rg, au and action != "backward", mg and action != "backward", z, action)  # noqa: E501
    return run_flags(cached_parse(text), x0, settings)


@st.cache_data(max_entries=32, show_spinner=False)
def case_for(case: str, variant: str) -> FlagOutcome:
    return run_case(case, variant)


def step_order(delta: int) -> None:
    st.session_state["graph.order"] = min(TOP, max(0, st.session_state["graph.order"] + delta))


def show_outcome(outcome: FlagOutcome) -> None:
    """What PyTorch printed or raised, the warnings, why, the fix, and the code."""
    printed = [line for step in outcome.steps for line in step.output]
    if printed:
        st.markdown(t("graph.result.ran"))
        st.code("\n".join(printed), language=None)
    if outcome.raised:
        st.error(t("graph.result.raised", error_type=outcome.steps[-1].error_type), icon=":material/error:")  # noqa: E501
        st.code(outcome.error, language=None, wrap_lines=True)
    for message in outcome.warnings:
        st.warning(t("graph.result.warned"), icon=":material/warning:")
        st.code(message, language=None, wrap_lines=True)
    rows = [
        {t("graph.result.name"): r.name, t("graph.result.value"): "None" if r.value is None else f"{r.value:.6g}",  # noqa: E501
         t("graph.result.requires_grad"): r.requires_grad, t("graph.result.grad_fn"): r.grad_fn or "None"}  # noqa: E501
        for step in outcome.steps for r in step.results
    ]  # fmt: skip
    if rows:
        st.dataframe(rows, hide_index=True)
    st.markdown(f"**{t('graph.result.why')}** " + " ".join(t(key) for key in outcome.explain))
    if outcome.fixes:
        st.markdown(f"**{t('graph.result.fix')}** " + " ".join(t(key) for key in outcome.fixes))
    with st.expander(t("graph.result.code"), icon=":material/code:"):
        st.code(outcome.snippet, language="python")


st.title(t("graph.title"))
st.markdown(t("graph.lead"))

fn = function_box("graph", t("graph.fn.label"), PRESETS)
st.session_state.setdefault("graph.order", 2)
left, right = st.columns([1, 2], vertical_alignment="bottom")
x0 = left.number_input(t("graph.x0"), value=0.7, min_value=-1000.0, max_value=1000.0, step=0.1, key="graph.x0")  # noqa: E501
order = right.slider(t("graph.order"), 0, TOP, key="graph.order", help=t("graph.order.help"))
buttons = st.columns([1, 1, 1, 1, 1.4], vertical_alignment="center")
buttons[0].button(t("graph.step.prev"), icon=":material/undo:", on_click=step_order, args=(-1,), disabled=order == 0, key="graph.prev")  # noqa: E501
buttons[1].button(t("graph.step.next"), icon=":material/redo:", on_click=step_order, args=(1,), disabled=order == TOP, type="primary", key="graph.next")  # noqa: E501
saved = buttons[2].toggle(t("graph.saved"), key="graph.saved", help=t("graph.saved.help"))
highlight = buttons[3].toggle(t("graph.highlight"), value=True, key="graph.highlight")
direction = buttons[4].segmented_control(
    t("graph.direction"), ["TB", "LR"], default="TB", key="graph.direction",
    format_func=lambda d: t(f"graph.direction.{d}"), label_visibility="collapsed",
) or "TB"  # fmt: skip

try:
    lab = lab_for(fn.text, float(x0))
    view = lab.view(order, show_saved=saved)
except HogradError as err:
    show_error(err)
    st.stop()

newest = pass_name(order, lang())
st.markdown(t("graph.caption", order=order, x0=f"{x0:g}", nodes=view.ops, new=view.per_pass[-1], newest=newest))  # noqa: E501
if view.drawable:
    source = dot_for(fn.text, float(x0), order, saved, highlight, direction, lang())
    st.graphviz_chart(source, use_container_width=True)
else:
    st.info(t("graph.too_large") + ". " + t("graph.budget.draw", nodes=f"{len(view.nodes):,}", limit=GRAPH_BUDGET.max_draw), icon=":material/visibility_off:")  # noqa: E501
if lab.constant_from is not None and lab.constant_from <= order:
    st.info(t("graph.constant", k=lab.constant_from), icon=":material/info:")

downloads = st.columns([1, 1, 3], vertical_alignment="center")
if view.drawable:
    downloads[0].download_button(t("graph.download.dot"), source, f"graph_order{order}.dot", "text/vnd.graphviz", icon=":material/download:", on_click="ignore", key="graph.dot")  # noqa: E501
    if dot_available():
        downloads[1].download_button(t("graph.download.svg"), lambda: svg_for(source), f"graph_order{order}.svg", "image/svg+xml", icon=":material/download:", on_click="ignore", key="graph.svg")  # noqa: E501
    else:
        downloads[2].caption(t("graph.download.no_dot"))

summary = [
    {t("graph.summary.type"): row.op, **{pass_name(k, lang()): n for k, n in enumerate(row.per_pass)}, t("graph.summary.total"): row.total}  # noqa: E501
    for row in view.summary
]  # fmt: skip
with st.expander(t("graph.summary.title"), expanded=not view.drawable, icon=":material/table:"):
    st.dataframe(summary, hide_index=True)

st.subheader(t("graph.growth.title"))
st.plotly_chart(growth_figure(lab.stats, min(order, lab.built), lang()), key="graph.growth")
factor = growth_factor(lab.stats)
if lab.stats and lab.stats[-1].new_nodes == 0:
    st.markdown(t("graph.growth.flat"))
elif factor is not None:
    st.markdown(t("graph.growth.factor", factor=f"{factor:.2f}"))
if lab.stopped_nodes is not None:
    st.warning(t("graph.growth.stopped", built=lab.built, nodes=f"{lab.stopped_nodes:,}", limit=f"{GRAPH_BUDGET.max_nodes:,}"))  # noqa: E501
with st.expander(t("graph.table.title"), icon=":material/table:"):
    st.dataframe(
        [{t("graph.table.order"): s.order, t("graph.table.value"): f"{s.value:.6g}", t("graph.table.nodes"): s.nodes,  # noqa: E501
          t("graph.table.new"): s.new_nodes, t("graph.table.saved"): s.saved_tensors, t("graph.table.bytes"): s.saved_bytes,  # noqa: E501
          t("graph.table.ms"): round(s.seconds * 1000, 3), t("graph.table.grad_fn"): s.grad_fn or "None"}  # noqa: E501
         for s in lab.stats],
        hide_index=True,
    )  # fmt: skip

st.divider()
st.header(t("graph.flags.title"))
st.markdown(t("graph.flags.lead"))
toggles, action_col = st.columns([3, 2], gap="large")
with action_col:
    action = st.radio(t("graph.flags.action"), ACTIONS, key="graph.flag.action", format_func=lambda a: t(f"graph.flags.action.{a}"))  # noqa: E501
with toggles:
    c1, c2 = st.columns(2)
    create_graph = c1.toggle(t("graph.flags.create_graph"), key="graph.flag.create_graph", help=t("graph.flags.create_graph.help"))  # noqa: E501
    retain_graph = c2.segmented_control(
        t("graph.flags.retain_graph"), [None, True, False], default=None, key="graph.flag.retain_graph",  # noqa: E501
        format_func=lambda v: t("graph.flags.retain.default") if v is None else str(v), help=t("graph.flags.retain_graph.help"),  # noqa: E501
    )  # fmt: skip
    unused = st.toggle(t("graph.flags.unused"), key="graph.flag.unused")
    c3, c4 = st.columns(2)
    grad_only = action != "backward"
    allow_unused = c3.toggle(t("graph.flags.allow_unused"), key="graph.flag.allow_unused", disabled=not grad_only, help=t("graph.flags.allow_unused.help"))  # noqa: E501
    materialize = c4.toggle(t("graph.flags.materialize_grads"), key="graph.flag.materialize", disabled=not grad_only, help=t("graph.flags.materialize_grads.help"))  # noqa: E501
if not grad_only:
    st.caption(t("graph.flags.backward_note"))
if action == "backward" and create_graph:
    st.caption(t("graph.flags.isolated", why=t("graph.flags.isolated.warn_once")))
try:
    show_outcome(flags_for(fn.text, float(x0), create_graph, retain_graph, allow_unused, materialize, unused, action))  # noqa: E501
except HogradError as err:
    show_error(err)

st.divider()
st.header(t("graph.cases.title"))
st.markdown(t("graph.cases.lead"))
case = st.selectbox(t("graph.cases.pick"), list(CASES), key="graph.case", format_func=lambda c: t(f"graph.case.{c}"))  # noqa: E501
variants = list(CASES[case].variants)
variant = st.segmented_control(
    t("graph.cases.variant"), variants, default=variants[0], key=f"graph.variant.{case}",
    format_func=lambda v: t(f"graph.case.{case}.{v}"),
) or variants[0]  # fmt: skip
if CASES[case].isolated:
    why = "anomaly" if case == "nan_anomaly" else "warn_once"
    st.caption(t("graph.flags.isolated", why=t(f"graph.flags.isolated.{why}")))
try:
    show_outcome(case_for(case, variant))
except HogradError as err:
    show_error(err)
