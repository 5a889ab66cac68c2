"""Your own autograd code, run as written: the view. The program box and Run are its controls;
its screens are the program as it ran with what each line printed, then the variables after a
chosen line and the graph behind a chosen tensor. hograd_ui/parts/frame.py draws them: stacked
on a laptop, as slides projected, the result first and the program box folded under it on a
phone."""

from __future__ import annotations

import zlib

import streamlit as st

from hograd_core import HogradError
from hograd_core.flaglab.decoder import EXACT
from hograd_core.program import BUDGET, LineRecord, RunError
from hograd_ui.graph_text import describe
from hograd_ui.i18n import error_text
from hograd_ui.parts.a11y import graphviz
from hograd_ui.parts.frame import Frame
from hograd_ui.parts.ui import box_chars, lang, show_error, static_table, t

from . import cached, figures
from .compute import decode, encode, header
from .presets import PRESETS

TEXT = "code.text"  # the program in the box
RAN = "code.ran"  # the program last run
LINK = "code.link"  # the value of ?code.p= this session last read or wrote
PARAM = "code.p"
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


def _outputs(record: LineRecord) -> None:
    """What one line printed, warned or raised, under its source."""
    if record.output:
        st.code(record.output, language=None)  # what Python printed, shown literally
    for warning in record.warnings:
        st.caption(t("code.warning"))
        st.code(warning, language=None, wrap_lines=True)
    if record.error is not None:
        _error(record.error)


def _source(group: list[LineRecord]) -> None:
    """Lines that ran one after the other without output, as one block under their numbers
    (a block per line would push the output below a phone's or a projector's first screen)."""
    first = group[0].line
    last = group[-1].line + group[-1].source.count("\n")  # a def or a for spans lines
    number = t("code.line", line=first) if first == last else None
    st.caption(number or t("code.lines", first=first, last=last))
    st.code("\n".join(r.source for r in group), language="python")


def _ran(result: object, ran: str) -> None:
    """The run screen: the program as it ran, each output under the line that printed it."""
    if result.stopped is not None:
        st.warning(t(STOPPED[result.stopped]), icon=":material/timer_off:")
    group: list[LineRecord] = []
    for record in result.lines:
        group.append(record)
        if record.output or record.warnings or record.error is not None:
            _source(group)
            group = []
            _outputs(record)
    if group:
        _source(group)
    st.download_button(
        t("code.download"),
        data=header(result.torch) + ran,
        file_name="hograd_program.py",
        mime="text/x-python",
        icon=":material/download:",
    )


def _step(lines: tuple[LineRecord, ...], tag: int) -> None:
    """The variables after a chosen line, and the graph behind a chosen tensor."""
    numbers = [r.line for r in lines]
    record = lines[
        numbers.index(
            st.selectbox(
                t("code.step"),
                numbers,
                index=len(numbers) - 1,
                key=f"code.step.{tag}",
                format_func=lambda n: t("code.line", line=n),
            )
        )
    ]
    if record.variables:
        static_table(figures.variable_rows(record.variables, lang()))
    else:
        st.caption(t("code.none"))
    graphs = dict(record.graphs)
    if not graphs:
        return
    names = list(graphs)
    raised = record.error.variable if record.error is not None else ""
    chosen = st.selectbox(
        t("code.variable"),
        names,
        index=names.index(raised) if raised in graphs else len(names) - 1,
        key=f"code.variable.{tag}.{record.line}",
    )
    graph = graphs[chosen]
    if isinstance(graph, int):
        st.caption(t("code.graph.large", nodes=f"{graph:,}"))
        return
    st.html(figures.graph_legend(graph, lang()))  # variable names, escaped
    said = describe(graph.nodes, graph.edges, lang())
    graphviz(figures.graph_dot(graph, lang()), said, key=f"code.said.{tag}.{record.line}")


def _after(result: object, ran: str) -> None:
    """The graph screen: the state after a chosen line, then the C++ form, folded."""
    _step(result.lines, zlib.crc32(ran.encode()))
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
        if st.button(t("code.run"), type="primary", icon=":material/play_arrow:"):
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
    screens = {"run": (t("code.ran"), lambda: _ran(result, ran))}
    if result.lines and result.lines[0].line:  # a refused program has no line to show
        screens["graph"] = (t("code.after"), lambda: _after(result, ran))
    view.screens(screens, "code.screen")


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
