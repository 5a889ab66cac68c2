"""What the graph lab lends another page: the graph's growth by order and the flag lab's run on
a fixed example, with what PyTorch said (the lesson's steps; pages/lesson.py hands these in,
labs never import each other)."""

from __future__ import annotations

import streamlit as st

from hograd_core import HogradError
from hograd_core.flaglab.flags import ACTIONS, FlagOutcome, FlagSettings
from hograd_ui.parts.chart import chart
from hograd_ui.parts.ui import lang, localized_radio, show_error, t

from . import cached
from .compute import RETAIN
from .figures import growth_figure, stats_rows

__all__ = ["flag_choices", "flag_controls", "growth_chart", "run_flags", "said", "why"]


def growth_chart(text: str, x0: float, order: int, key: str) -> None:
    """Nodes, depth, saved bytes and time per order for f = ``text`` at ``x0``, ``order``
    marked, as on the graph page, and the table under it; ``key`` names the chart."""
    try:
        lab = cached.lab_for(text, x0)
    except HogradError as err:
        show_error(err)
        return
    chart(growth_figure(lab.stats, order, lang()), key=key)
    with st.expander(t("graph.table.title"), icon=":material/table:"):
        st.dataframe(stats_rows(lab.stats, lang()), hide_index=True)


def flag_controls(key: str, start: FlagSettings) -> tuple[bool, bool | None, str]:
    """The flag lab's create_graph, retain_graph and action, keyed ``key.cg``, ``key.rg`` and
    ``key.action`` (in the link when they differ from ``start``, where they begin)."""
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
    actions = {a: t(f"graph.flags.action.{a}") for a in ACTIONS}
    action = localized_radio(t("graph.flags.action"), actions, f"{key}.action", container=right)
    return create_graph, RETAIN[retain], action


def flag_choices(key: str) -> tuple[bool, bool | None, str]:
    """What :func:`flag_controls` keyed ``key`` holds now (read in a callback)."""
    state = st.session_state
    return state[f"{key}.cg"], RETAIN[state[f"{key}.rg"] or "None"], state[f"{key}.action"]


def run_flags(
    text: str, x0: float, create_graph: bool, retain: bool | None, action: str
) -> FlagOutcome:
    """The flag lab's run of ``text`` at ``x0`` with these settings and the others at their
    defaults (cached, shared with the graph page)."""
    return cached.flags_for(text, x0, create_graph, retain, False, False, False, action)


def said(outcome: FlagOutcome) -> None:
    """Whether the run raised or ran, and what PyTorch printed."""
    if outcome.raised:
        st.error(
            t("graph.result.raised", error_type=outcome.steps[-1].error_type),
            icon=":material/error:",
        )
    else:
        st.success(t("graph.result.ran"), icon=":material/check_circle:")
    st.code(outcome.transcript(), language=None, wrap_lines=True)


def why(outcome: FlagOutcome) -> None:
    """Why it ran or raised, in facts read from the real graph (its functions, what was freed)."""
    facts = dict(outcome.params)
    reasons = " ".join(t(key, **facts) for key in outcome.explain)
    st.info(f"**{t('graph.result.why')}** {reasons}", icon=":material/lightbulb:")
