"""The graph lab's page: the autograd graph pass by pass (:mod:`.view_one`, or the graph of a
Hessian-vector product for two or more variables, :mod:`.view_several`), the flag lab on the
same function, and the classic traps. hograd_ui/parts/frame.py draws its four screens: one
below the other on a laptop, as slides projected, the graph first and the settings folded
under it on a phone."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from hograd_core import HogradError
from hograd_core.flaglab.cases import CASES
from hograd_core.flaglab.flags import ACTIONS, FlagOutcome
from hograd_core.graphs import GRAPH_BUDGET
from hograd_core.language import Function
from hograd_serving import cached as serving  # a module: tests replace its functions
from hograd_ui.graph_text import describe
from hograd_ui.parts.a11y import graphviz
from hograd_ui.parts.downloads import flag_code_tabs
from hograd_ui.parts.frame import Frame
from hograd_ui.parts.links import BIND
from hograd_ui.parts.narration import narration
from hograd_ui.parts.ui import (
    function_box,
    lang,
    lazy_expander,
    localized_choice,
    static_table,
    t,
)
from hograd_ui.tensor_drawing import flag_dot, flag_legend_html

from . import cached, embed, figures
from .compute import PRESETS, RETAIN, flag_settings
from .narrate import flag_steps, labels
from .view_one import graph_settings, one_variable, refused
from .view_several import several_settings, several_variables

__all__ = ["draw"]
# Option labels are looked up in dicts built during the run (never by calling t() later, when the
# language may have changed): see localized_choice in hograd_ui/parts/ui.py.


def show_outcome(outcome: FlagOutcome, key: str, fn: Function | None = None) -> None:
    """What PyTorch printed or raised, its warnings, why, the fix, and the code (in an
    expander keyed ``key``; Python and C++ tabs, ``fn`` the flag lab's function)."""
    embed.said(outcome)
    for message in outcome.warnings:
        st.warning(t("graph.result.warned"), icon=":material/warning:")
        st.code(message, language=None, wrap_lines=True)
    head = {k: t(f"graph.result.{k}") for k in ("name", "value", "requires_grad", "grad_fn")}
    rows = [
        {
            head["name"]: r.name,
            head["value"]: "None" if r.value is None else f"{r.value:.6g}",
            head["requires_grad"]: r.requires_grad,
            head["grad_fn"]: r.grad_fn or "None",
        }
        for step in outcome.steps
        for r in step.results
    ]
    if rows:
        static_table(pd.DataFrame(rows))
    embed.why(outcome)
    if outcome.fixes:
        facts = dict(outcome.params)  # read from the real graph: its functions, what was freed
        fix = " ".join(t(key, **facts) for key in outcome.fixes)
        st.success(f"**{t('graph.result.fix')}** {fix}", icon=":material/build:")
    with (box := lazy_expander(t("graph.result.code"), key, icon=":material/code:")):
        if box.open:
            flag_code_tabs(
                outcome.snippet, fn, page="graph", caption="graph.flag.cpp.caption"
            )  # the script, its .py, and its C++ twin


def draw_flag_graph(
    place: object,
    outcome: FlagOutcome,
    *,
    legend: bool = True,
    layout: dict | None = None,
    key: str = "graph.said.case",
    gradients: bool = False,
) -> bool:
    """The run's graph in the flag lab's colours with its legend (unless not ``legend``), in
    ``place``, told in words pass by pass under it (``key``; ``gradients``: each call
    printed gradients, :func:`.narrate.flag_steps`); or, over the drawing limit, a caption
    that says so. Returns whether it was drawn. ``layout``: the DOT builder's direction and
    tightness (:data:`.figures.ON_PAGE` if None)."""
    graph = outcome.drawing
    if not _drawable(outcome):
        place.caption(t("graph.draw.too_large", limit=GRAPH_BUDGET.max_draw))
        return False
    if legend:
        place.html(flag_legend_html(graph, lang()))
    dot = flag_dot(graph, lang(), **(layout or figures.ON_PAGE))
    graphviz(dot, describe(graph.nodes, graph.edges, lang()), key=f"{key}.view", where=place)
    steps = flag_steps(graph, lang(), gradients=gradients)
    narration(t("graph.said.title"), steps, labels=labels(lang()), key=f"{key}.steps", where=place)
    return True


def _drawable(outcome: FlagOutcome) -> bool:
    return outcome.drawing is not None and outcome.drawing.drawable


def _side_by_side() -> list[tuple[object, object]]:
    """Two drawings in two columns, each with its name and counts above it."""
    return [(column, column) for column in st.columns(2)]


def _one_above_the_other() -> list[tuple[object, object]]:
    """Two drawings one above the other, each with its name and counts beside it."""
    return [st.columns([1, 4], gap="medium", vertical_alignment="center") for _ in range(2)]


def show_drawings(view: Frame, off: FlagOutcome, on: FlagOutcome, this: bool) -> None:
    """The real graph after the run, with create_graph=False and =True, under one legend;
    ``this`` is the create_graph of the run shown by the flags screen.

    On a laptop side by side, each top to bottom. Projected, one above the other instead,
    each drawn left to right with its name and counts beside it: side by side and top to
    bottom, the create_graph=True drawing was 700 px tall at the projector's text size and
    ran off the first screen (issue 38); so they are about 200 and 290 px tall."""
    drawn = [o.drawing for o in (off, on) if _drawable(o)]
    with st.container(horizontal=True, vertical_alignment="center", gap="large"):
        st.markdown(f"**{t('graph.draw.title')}**", width="content")
        if drawn:  # one legend for both, on the title's line
            st.html(flag_legend_html(drawn[0], lang(), also=tuple(drawn[1:])), width="content")
    places = view.setting(_side_by_side, _one_above_the_other)()
    layout = view.setting(figures.ON_PAGE, figures.ON_SLIDE)
    for (text, place), outcome, flag in zip(places, (off, on), (False, True), strict=True):
        mark = f" · {t('graph.draw.this_run')}" if flag == this else ""
        text.markdown(f"`create_graph={flag}`{mark}")
        said = {"key": f"graph.said.flag.{flag}", "gradients": True}
        if draw_flag_graph(place, outcome, legend=False, layout=layout, **said):
            ops, kept, stale = outcome.drawing.counts
            text.caption(figures.drawn_counts(ops, kept, stale, lang()))
    nodes, saved_bytes = on.first_call
    if len(on.steps) > 2:  # the first call ran
        key = "graph.draw.changed" if nodes else "graph.draw.same"
        st.markdown(t(key, nodes=nodes, bytes=f"{saved_bytes:,}"))


def show_torchviz(outcome: FlagOutcome) -> None:
    """torchviz's view of the same tensors, with the line of code that made it."""
    views = dict(outcome.views)
    linked = any(k in st.query_params for k in ("graph.tv.attrs", "graph.tv.saved"))
    box = lazy_expander(
        t("graph.tv.title"), "graph.tv.open", expanded=linked, icon=":material/account_tree:"
    )
    with box:
        if not box.open:  # its toggles are in the link only when it was open
            return
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
            said = describe(outcome.drawing.nodes, outcome.drawing.edges, lang())
            graphviz(views[f"dot:{key}"], said, key="graph.tv.said")  # at its own size


def show_case_drawing(outcome: FlagOutcome) -> None:
    """The graph a classic case left behind, in the flag lab's colours."""
    st.markdown(f"**{t('graphvars.case.drawing')}**")
    draw_flag_graph(st.container(), outcome)


def draw() -> None:
    """The whole page: the graph of the typed function, the flag lab on it, the traps; four
    screens of one frame (hograd_ui/parts/frame.py), the flags held by the flag lab's screen
    and read by its drawings' too."""
    st.title(t("graph.title"))
    view = Frame("graph")
    with view.lead():
        st.markdown(t("graph.lead"))
    with view.controls(fold=False):  # the function in place: a lecturer types into it
        fn = function_box("graph", t("graph.fn.label"), PRESETS)
    several = len(fn.variables) >= 2
    with view.controls():
        settings = several_settings(fn, view) if several else graph_settings(view)
    # the flag lab's run, shared by its two screens (its toggles drawn by the first)
    flags = _FlagLab(view, fn, None if several else settings.x0)
    graph = (
        (t("graph.screen.hvp"), lambda: several_variables(view, fn, settings))
        if several  # not pass by pass: one H v, its stages in colours
        else (t("graph.screen.graph"), lambda: one_variable(fn, settings))
    )
    view.screens(
        {
            "graph": graph,
            "flags": (t("graph.screen.flags"), flags.output),
            "drawings": (t("graph.screen.drawings"), flags.drawings),
            "traps": (t("graph.screen.traps"), lambda: traps(view)),
        },
        "graph.screen",
        headers={  # the page's sections, as they always read
            **({"graph": t("graphvars.title")} if several else {}),
            "flags": t("graph.flags.title"),
            "traps": t("graph.cases.title"),
        },
        held={"flags": (t("graph.screen.flag_settings"), ":material/flag:", flags.controls)},
    )


def flag_controls() -> tuple[bool, str, bool, bool, bool, str]:
    """The flag lab's toggles and action: (create_graph, retain_graph, allow_unused,
    materialize_grads, unused input, action)."""
    toggles, third = st.columns([5, 3], gap="large")
    actions = {a: t(f"graph.flags.action.{a}") for a in ACTIONS}
    action = localized_choice(
        t("graph.flags.action"), actions, "graph.flag.action", container=third
    )
    grad_call = action != "backward"
    with toggles.container(horizontal=True, vertical_alignment="bottom"):
        create_graph = st.toggle(
            t("graph.flags.create_graph"),
            key="graph.flag.create_graph",
            help=t("graph.flags.create_graph.help"),
            bind=BIND,
        )
        retain = st.segmented_control(
            t("graph.flags.retain_graph"),
            list(RETAIN),
            default="None",
            required=True,
            key="graph.flag.retain_graph",
            help=t("graph.flags.retain_graph.help"),
            bind=BIND,
            format_func={
                **{v: v for v in RETAIN},
                "None": t("graph.flags.retain.default"),
            }.__getitem__,
        )
    unused = toggles.toggle(t("graph.flags.unused"), key="graph.flag.unused", bind=BIND)
    with toggles.container(horizontal=True):
        allow_unused = st.toggle(
            t("graph.flags.allow_unused"),
            key="graph.flag.allow_unused",
            disabled=not grad_call,
            help=t("graph.flags.allow_unused.help"),
            bind=BIND,
        )
        materialize = st.toggle(
            t("graph.flags.materialize_grads"),
            key="graph.flag.materialize",
            disabled=not grad_call,
            help=t("graph.flags.materialize_grads.help"),
            bind=BIND,
        )
    if not grad_call:
        third.caption(t("graph.flags.backward_note"))
    if action == "backward" and create_graph:
        third.caption(t("graph.flags.isolated", why=t("graph.flags.isolated.warn_once")))
    return create_graph, retain, allow_unused, materialize, unused, action


class _FlagLab:
    """The toggles of ``torch.autograd.grad`` on ``fn`` at ``x0`` (None: ``fn`` has several
    variables), the run's output and its drawings: the frame draws the toggles first, then
    the screens that read them (:func:`draw`)."""

    def __init__(self, view: Frame, fn: Function, x0: float | None) -> None:
        self.view, self.fn, self.x0 = view, fn, x0
        self.chosen: tuple | None = None
        self.refused = False  # the run was refused, and the refusal shown

    def controls(self) -> None:
        with self.view.lead(here=True):
            st.markdown(t("graph.flags.lead"))
        self.chosen = flag_controls()

    def _run(self, create_graph: bool | None = None) -> FlagOutcome | None:
        """The run with the chosen toggles (``create_graph`` flipped if given), or None with
        a word on why (one variable only; refused: said once)."""
        if self.x0 is None:
            st.info(t("graphvars.flags_one"), icon=":material/info:")
            return None
        chosen, retain, allow_unused, materialize, unused, action = self.chosen
        s = flag_settings(chosen, retain, allow_unused, materialize, unused, action)
        flags = (s.retain_graph, s.allow_unused, s.materialize_grads, s.unused_input, s.action)
        flag = s.create_graph if create_graph is None else create_graph
        try:
            return cached.flags_for(self.fn.text, self.x0, flag, *flags)
        except HogradError as err:
            if not self.refused:
                refused(err)
            self.refused = True
            return None

    def output(self) -> None:
        """What the call printed or raised, why, the fix and the code."""
        outcome = self._run()
        if outcome is not None:
            show_outcome(outcome, "graph.flag.code", self.fn)

    def drawings(self) -> None:
        """The run's graph with create_graph=False and =True, and torchviz's view."""
        if self.x0 is None:  # the flags screen says why
            return
        create_graph = self.chosen[0]
        outcome = self._run()
        other = self._run(not create_graph)  # flipped
        if outcome is None or other is None:
            return
        off, on = (other, outcome) if create_graph else (outcome, other)
        show_drawings(self.view, off, on, create_graph)
        show_torchviz(outcome)


def traps(view: Frame) -> None:
    """The gallery of classic errors: a case, one of its variants, and its run."""
    with view.lead(here=True):
        st.markdown(t("graph.cases.lead"))
    case = localized_choice(
        t("graph.cases.pick"),
        {c: t(f"graph.case.{c}") for c in CASES},
        "graph.case",
        widget="selectbox",
        old_labels="graph.case.",
    )
    variant = localized_choice(
        t("graph.cases.variant"),
        {v: t(f"graph.case.{case}.{v}") for v in CASES[case].variants},
        f"graph.variant.{case}",
        widget="segmented_control",
        old_labels=f"graph.case.{case}.",
    )
    for name in (f"graph.variant.{c}" for c in CASES if c != case):  # another case's variant
        if name in st.session_state and name in st.query_params:  # stays in the session only
            del st.query_params[name]
    if CASES[case].isolated:
        why = "anomaly" if case == "nan_anomaly" else "warn_once"
        st.caption(t("graph.flags.isolated", why=t(f"graph.flags.isolated.{why}")))
    try:
        shown = serving.case_for(case, variant)
        show_outcome(shown, "graph.case.code")
        show_case_drawing(shown)
    except HogradError as err:
        refused(err)
