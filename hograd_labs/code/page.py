"""Your own autograd code, run as written: the view. The program box and Run are its controls;
its screens are the program as it ran with what each line printed, then the variables after a
chosen line and the graph behind a chosen tensor. hograd_ui/parts/frame.py draws them: stacked
on a laptop (the one picked in the switch above them first), as slides projected, the result
first and the program box folded under it on a phone. A large graph keeps readable text and
scrolls in its own box (hograd_ui/parts/a11y.py's ``graphviz``)."""

from __future__ import annotations

import zlib

import streamlit as st

from hograd_core import HogradError
from hograd_core.flaglab.decoder import EXACT
from hograd_core.program import BUDGET, LineRecord, RunError
from hograd_ui.graph_steps import labels
from hograd_ui.graph_text import describe
from hograd_ui.i18n import error_text
from hograd_ui.parts.a11y import graphviz
from hograd_ui.parts.frame import Frame
from hograd_ui.parts.narration import narration
from hograd_ui.parts.ui import box_chars, lang, show_error, static_table, t

from . import cached, figures
from .compute import decode, encode, header
from .presets import PRESETS

TEXT = "code.text"  # the program in the box
RAN = "code.ran"  # the program last run
LINK = "code.link"  # the value of ?code.p= this session last read or wrote
PARAM = "code.p"
STEP = "code.at"  # (the program's crc32, the line chosen in the variables screen)
# Every key a whole literal (the locale test finds used keys that way).
PRESET_LABELS = {
    "x3": "code.preset.x3",
    "x3_no_create_graph": "code.preset.x3_no_create_graph",
    "hvp": "code.preset.hvp",
    "debug": "code.preset.debug",
    "freed_graph": "code.preset.freed_graph",
    "unused_input": "code.preset.unused_input",
    "constant_trap": "code.preset.constant_trap",
    "accumulates": "code.preset.accumulates",
    "inplace": "code.preset.inplace",
    "nan": "code.preset.nan",
    "maml": "code.preset.maml",
    "pinn": "code.preset.pinn",
    "func": "code.preset.func",
}
STOPPED = {
    "time": "code.stopped.time",
    "memory": "code.stopped.memory",
    "error": "code.stopped.error",
}


def _from_link() -> HogradError | None:
    """Take up the link's program when the URL holds one this session has not read (a shared
    link, a preset); the first preset otherwise. Returns the link's error, if it was bad."""
    value = st.query_params.get(PARAM)
    if value is None or value == st.session_state.get(LINK):
        st.session_state.setdefault(TEXT, PRESETS["x3"])
        return None
    st.session_state[LINK] = value
    try:
        text = decode(value)
    except HogradError as err:
        st.session_state.setdefault(TEXT, PRESETS["x3"])
        return err
    st.session_state[TEXT] = st.session_state[RAN] = text
    return None


def _presets() -> None:
    st.caption(t("code.presets"))
    with st.container(horizontal=True):
        for name, key in PRESET_LABELS.items():
            st.page_link(
                "pages/code.py",
                label=t(key),
                query_params={PARAM: encode(PRESETS[name]), "lang": lang()},
            )


def _error(error: RunError) -> None:
    if error.key:  # refused, or stopped by a budget: our message
        st.error(error_text(error, lang()), icon=":material/block:")
        return
    st.error(t("code.error.at", line=error.line), icon=":material/error:")
    st.code(error.text, language=None, wrap_lines=True)  # PyTorch's words, never markdown
    match = cached.decoded(error.text)
    if match is None:
        st.caption(t("code.decode.unknown"))
        return
    title, why, fix = match.keys
    # the message's varying parts (names, shapes) as code: no `_` of a name becomes emphasis
    facts = {k: f"`{v}`" if v else ("" if match.whole else "?") for k, v in match.facts}
    exact = match.sure == EXACT and match.whole
    sure = t("code.decode.sure.exact") if exact else t("code.decode.sure.partial")
    st.info(
        f"**{t('code.decode.found', title=t(title))}** {sure}\n\n{t(why, **facts)}",
        icon=":material/search:",
    )
    st.success(f"**{t('code.decode.fix')}** {t(fix, **facts)}", icon=":material/build:")


def _ran(result: object, ran: str) -> None:
    """The run screen: the program as it ran, numbered as Python numbers it, then what each
    line printed (its number beside it), warned or raised (one block for the program, not one
    per line: the output stays on a phone's and a projector's first screen)."""
    if result.stopped is not None:
        st.warning(t(STOPPED[result.stopped]), icon=":material/timer_off:")
    st.code(ran, language="python", line_numbers=True)
    for record in result.lines:
        if record.output:  # its line's number in the gutter, as a console shows it
            with st.container(horizontal=True, vertical_alignment="center"):
                st.caption(t("code.line", line=record.line), width="content")
                st.code(record.output, language=None)  # what Python printed, literally
        for warning in record.warnings:
            st.caption(t("code.warning", line=record.line))
            st.code(warning, language=None, wrap_lines=True)
        if record.error is not None:
            _error(record.error)


def _state(lines: tuple[LineRecord, ...], tag: int) -> None:
    """The variables screen: the variables after a chosen line. The chosen line is kept apart
    from its widget, so the graph screen drawn alone (projected) shows the same line."""
    numbers = [r.line for r in lines]
    line = st.selectbox(
        t("code.step"),
        numbers,
        index=len(numbers) - 1,
        key=f"code.step.{tag}",
        format_func=lambda n: t("code.line", line=n),
    )
    st.session_state[STEP] = (tag, line)
    record = lines[numbers.index(line)]
    if record.variables:
        static_table(figures.variable_rows(record.variables, lang()))
    else:
        st.caption(t("code.none"))


def _graph(lines: tuple[LineRecord, ...], tag: int, ran: str) -> None:
    """The graph screen: the graph behind a chosen tensor after the chosen line, told in words
    pass by pass under it, then the C++ form, folded. The line is the variables screen's choice, read from its widget first: the
    graph may be drawn before that screen (the frame's ``first``)."""
    numbers = [r.line for r in lines]
    kept_tag, line = st.session_state.get(STEP, (None, None))
    line = st.session_state.get(f"code.step.{tag}", line if kept_tag == tag else None)
    record = lines[numbers.index(line) if line in numbers else -1]
    graphs = dict(record.graphs)
    if not graphs:
        st.caption(t("code.graph.none"))
    else:
        names = list(graphs)
        raised = record.error.variable if record.error is not None else ""
        left, right = st.columns([1, 2], vertical_alignment="bottom")
        chosen = left.selectbox(
            t("code.variable", line=record.line),  # the line too: the slide may be alone
            names,
            index=names.index(raised) if raised in graphs else len(names) - 1,
            key=f"code.variable.{tag}.{record.line}",
        )
        graph = graphs[chosen]
        if isinstance(graph, int):
            st.caption(t("code.graph.large", nodes=f"{graph:,}"))
        else:
            right.html(figures.graph_legend(graph, lang()))  # variable names, escaped
            said = describe(graph.nodes, graph.edges, lang())
            graphviz(
                figures.graph_dot(graph, lang()),
                said,
                key=f"code.said.{tag}.{record.line}",
                scroll=t("code.graph.scroll"),
            )
            narration(
                t("code.said.title", name=chosen, line=record.line),
                figures.graph_steps(graph, lang()),
                labels=labels(lang()),
                key=f"code.steps.{tag}.{record.line}",
            )
    _cpp(ran)


def draw() -> None:
    """The page: the program box and Run, then the run's screens, drawn by the frame."""
    st.title(t("code.title"))
    bad = _from_link()
    if bad is not None:
        show_error(bad)
    view = Frame("code")
    with view.lead():
        st.markdown(t("code.lead"))
    with view.controls():
        _presets()
        text = st.text_area(
            t("code.box"), key=TEXT, height=300, max_chars=box_chars(BUDGET.max_chars)
        )
        buttons = st.container(horizontal=True)
        if buttons.button(t("code.run"), type="primary", icon=":material/play_arrow:"):
            st.session_state[RAN] = text
        ran = st.session_state.setdefault(RAN, text)
        if ran != text:
            st.caption(t("code.edited"))
    link = encode(ran)
    st.session_state[LINK] = link
    if st.query_params.get(PARAM) != link:
        st.query_params[PARAM] = link
    try:
        with view.results, st.spinner(t("code.running")):
            result = cached.run(ran)
    except HogradError as err:
        with view.results:
            show_error(err)
        return
    buttons.download_button(  # beside Run: the program as typed, under the torch that ran it
        t("code.download"),
        data=header(result.torch) + ran,
        file_name="hograd_program.py",
        mime="text/x-python",
        icon=":material/download:",
    )
    screens = {"run": (t("code.ran"), lambda: _ran(result, ran))}
    if result.lines and result.lines[0].line:  # a refused program has no line to show
        tag = zlib.crc32(ran.encode())
        screens["state"] = (t("code.after"), lambda: _state(result.lines, tag))
        screens["graph"] = (t("code.graph"), lambda: _graph(result.lines, tag, ran))
    short = {"run": t("code.first.run"), "state": t("code.first.state")}
    short["graph"] = t("code.first.graph")
    view.screens(screens, "code.screen", first=(t("code.first"), {n: short[n] for n in screens}))


def _cpp(text: str) -> None:
    """The same program in C++ (LibTorch), folded, for the straight-line subset."""
    with st.expander(t("code.cpp"), icon=":material/code_blocks:"):
        try:
            source = cached.cpp_for(text)
        except (HogradError, SyntaxError):
            source = None
        if source is None:
            st.caption(t("code.cpp.none"))
            return
        st.caption(t("code.cpp.lead"))
        st.code(source, language="cpp")
        st.download_button(
            t("code.cpp.download"),
            data=source,
            file_name="hograd_program.cpp",
            mime="text/x-c++src",
            icon=":material/download:",
        )
