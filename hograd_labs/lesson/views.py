"""The live view of each lesson step: the cached calls and figures the labs share
(hograd_serving.cached, hograd_ui), on the lesson's examples (see :mod:`.compute`). Nothing
here computes. The Newton step's view is the Newton lab's, which pages/lesson.py hands in."""

from __future__ import annotations

import streamlit as st

from hograd_core import HogradError
from hograd_core.flaglab import FlagOutcome
from hograd_serving.cached import curves, explore, flags_for, lab_for
from hograd_ui import plot_kit, tensor_drawing
from hograd_ui.chart_range import chart_range
from hograd_ui.derivative_figures import derivatives_figure
from hograd_ui.parts.chart import chart
from hograd_ui.parts.present import present
from hograd_ui.parts.ui import controls, lang, localized_radio, show_error, t

from .compute import CUBE, GROWTH, GROWTH_CHOICES, HVP, Step

#: retain_graph's choices, by label (as on the graph page)
RETAIN = {"None": None, "True": True, "False": False}
#: the chart of x³: 241 points on [-3, 3] put one exactly on x = 2
LOW, HIGH, POINTS = -3.0, 3.0, 241


def curves_view(step: Step, row: object = None) -> None:
    """f = x³ and its derivatives up to the step's order, as on the derivatives page."""
    result = curves(CUBE[0], LOW, HIGH, POINTS, step.order, "autograd")
    ranges = chart_range(result.xs, result.values, separate=False)
    figure = derivatives_figure(result, lang(), separate=False, ranges=ranges, projector=present())
    chart(figure, key=f"lesson.chart.{step.name}")


def flag_settings(step: Step, row: object = None) -> tuple[bool, bool | None, str]:
    """The flag lab's controls for this step (create_graph, retain_graph, the action); they
    start where the step's exercise says. In presentation mode they fold into a button of
    ``row`` (hograd_ui/parts/ui.py's ``controls``), so the transcript is on the first screen."""
    with controls(row):
        return _flag_settings(step)


def _flag_settings(step: Step) -> tuple[bool, bool | None, str]:
    start = step.exercise.start
    key = f"lesson.{step.name}"  # the toggles are in the link when they differ from the start
    st.markdown(f"**{t('lesson.flags.settings')}**")
    left, right = st.columns([2, 3], gap="large")
    with left.container(horizontal=True, vertical_alignment="bottom"):
        create_graph = st.toggle(
            t("graph.flags.create_graph"),
            start.create_graph,
            key=f"{key}.cg",
            help=t("graph.flags.create_graph.help"),
            bind="query-params",
        )
        retain = (
            st.segmented_control(
                t("graph.flags.retain_graph"),
                list(RETAIN),
                default="None",
                required=True,
                key=f"{key}.rg",
                help=t("graph.flags.retain_graph.help"),
                bind="query-params",
                format_func={
                    **{v: v for v in RETAIN},
                    "None": t("graph.flags.retain.default"),
                }.__getitem__,
            )
            or "None"
        )
    actions = {a: t(f"graph.flags.action.{a}") for a in ("next", "again", "backward")}
    action = localized_radio(t("graph.flags.action"), actions, f"{key}.action", container=right)
    return create_graph, RETAIN[retain], action


def run_flags_for(create_graph: bool, retain: bool | None, action: str) -> FlagOutcome:
    """The flag lab's run of x³ at 2 with these settings (cached, shared with the graph page)."""
    text, x0 = CUBE
    return flags_for(text, x0, create_graph, retain, False, False, False, action)


def flags_view(step: Step, row: object = None) -> None:
    """The flag lab on x³ at x = 2: the settings, what PyTorch printed or raised, and why."""
    try:
        outcome = run_flags_for(*flag_settings(step, row))
    except HogradError as err:
        show_error(err)
        return
    st.markdown(f"**{t('lesson.flags.outcome')}**")
    if outcome.raised:
        error_type = outcome.steps[-1].error_type
        st.error(t("graph.result.raised", error_type=error_type), icon=":material/error:")
    else:
        st.success(t("graph.result.ran"), icon=":material/check_circle:")
    st.code(outcome.transcript(), language=None, wrap_lines=True)
    facts = dict(outcome.params)
    why = " ".join(t(key, **facts) for key in outcome.explain)
    st.info(f"**{t('graph.result.why')}** {why}", icon=":material/lightbulb:")


def growth_view(step: Step, row: object = None) -> None:
    """Nodes, depth, saved bytes and time per order, as on the graph page."""
    _, x0, order = GROWTH
    text = (row or st).segmented_control(
        t("lesson.growth.pick"),
        list(GROWTH_CHOICES),
        default=GROWTH_CHOICES[0],
        required=True,
        key="lesson.growth.fn",
        bind="query-params",
    ) or GROWTH_CHOICES[0]
    try:
        lab = lab_for(text, x0)
    except HogradError as err:
        show_error(err)
        return
    figure = tensor_drawing.growth_figure(lab.stats, order, lang(), present())
    chart(figure, key=f"lesson.chart.{step.name}")
    with st.expander(t("graph.table.title"), icon=":material/table:"):
        st.dataframe(tensor_drawing.stats_rows(lab.stats, lang()), hide_index=True)


def hvp_view(step: Step, row: object = None) -> None:
    """The contour picture of the Hessian-vector product page, at the seed's point."""
    text, point, vector = HVP
    try:
        ex = explore(text, point, vector, 1.5)
    except HogradError as err:
        show_error(err)
        return
    figure = plot_kit.contour_figure(
        ex.grid, ex.result, lang(), pickable=False, projector=present()
    )
    chart(figure, key=f"lesson.chart.{step.name}")


#: The Newton step's view is the Newton lab's (hograd_labs/newton/page.py), added by pages/lesson.py.
VIEWS = {
    "curves": curves_view,
    "flags": flags_view,
    "growth": growth_view,
    "hvp": hvp_view,
}
