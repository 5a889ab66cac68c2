"""Write your own backward: the view. Reads the widgets, calls the cached lab, renders.

Its lead, presets and settings are the frame's (hograd_ui/parts/frame.py); its screens are the
formulas, the table, the checks, the graph, the script and the error decoder: stacked on a
laptop, one at a time projected, the formulas first and the settings folded under the
results on a phone."""

from __future__ import annotations

import streamlit as st

from hograd_core import HogradError
from hograd_core.custom_function import MAX_POINTS, NAMES, VARIANTS
from hograd_core.flaglab.decoder import ENTRIES, EXACT, MAX_CHARS
from hograd_core.grad_checks import KINK, SECOND
from hograd_core.language import LIMITS
from hograd_serving.cached import cached_parse
from hograd_ui.graph_steps import labels
from hograd_ui.graph_text import describe
from hograd_ui.parts.a11y import graphviz
from hograd_ui.parts.downloads import code_file
from hograd_ui.parts.formula import stopped_note
from hograd_ui.parts.frame import Frame, aside
from hograd_ui.parts.link_form import Field, draw_linked
from hograd_ui.parts.links import BIND, link_text
from hograd_ui.parts.narration import narration
from hograd_ui.parts.ui import (
    box_chars,
    lang,
    localized_choice,
    show_error,
    static_table,
    t,
)

from . import cached, figures
from .compute import IGNORES_G, SIGN_OF_Y, WRONG

#: (f, backward): right ones first, then the three slips the page names.
PRESETS = [
    ("tanh(x)", "(1 - y^2)*g"),
    ("x^3", "3*x^2*g"),
    ("exp(x)", "y*g"),
    ("sigmoid(x)", "y*(1 - y)*g"),
    ("sin(x)", "cos(x)*g"),
    ("x^3", "3*x^2"),
    ("x^3", "2*x*g"),
    ("sin(x)", "sqrt(1 - y^2)*g"),
]
SEP = " · "
# Every key a whole literal (the locale test finds used keys that way).
VARIANT_LABELS = {
    "written": "backward.variant.written",
    "detached": "backward.variant.detached",
    "once": "backward.variant.once",
    "second_function": "backward.variant.second_function",
}
VARIANT_ABOUT = {
    "written": "backward.variant.about.written",
    "detached": "backward.variant.about.detached",
    "once": "backward.variant.about.once",
    "second_function": "backward.variant.about.second_function",
}
FORMULAS = (
    "backward.formula.f",
    "backward.formula.b",
    "backward.formula.d1",
    "backward.formula.d2",
)
#: How sure the decoder is, in words (hograd_core/flaglab/decoder.py's module docstring).
SURE = {
    "exact": "backward.decode.sure.exact",
    "general": "backward.decode.sure.general",
    "part": "backward.decode.sure.part",
}
LIMIT = box_chars(LIMITS.max_length)
PASTE = 4_000  # characters of the decoder's box: a message and its traceback
assert PASTE <= MAX_CHARS  # the decoder reads all of what the box holds


def _plain(label: str) -> str:
    """A preset as typed: a pill's label is markdown, where ``*`` would start italics."""
    return label.replace("*", "\\*")


def _preset() -> None:
    choice = st.session_state.get("backward.preset")
    if choice:
        f, b = choice.split(SEP)
        st.session_state["backward.f"], st.session_state["backward.b"] = f, b


def _formula(key: str, label: str, default: str, names: tuple[str, ...], **kw: object) -> bool:
    """A text box in the link (``?key=``, left out while it is ``default``); whether its text
    is in the language (else the error is shown). Not bound to the URL: a preset sets it
    through the session state (hograd_ui/parts/link_form.py's seed_linked says why)."""
    text = draw_linked(st, label, key, Field("text", default, high=LIMIT), **kw)
    try:
        cached_parse(link_text(key, text, LIMIT), names)
    except HogradError as err:
        show_error(err, text)
        return False
    return True


def _points(values: tuple[float, ...]) -> str:
    shown = ", ".join(figures.number(v) for v in values[:6])
    return shown + (", …" if len(values) > 6 else "")


def _checks(lab: object) -> None:
    st.caption(t("backward.check.what"))
    for check in (lab.run.gradcheck, lab.run.gradgradcheck):
        n = len(check.points)
        if check.passed is None:
            st.info(t("backward.check.not_run", name=check.name), icon=":material/info:")
        elif check.passed:
            st.success(
                t("backward.check.passed", name=check.name, n=n), icon=":material/check_circle:"
            )
        else:
            st.error(t("backward.check.failed", name=check.name, n=n), icon=":material/error:")
            st.code(check.message, language=None, wrap_lines=True)  # PyTorch's own words
            if check.mismatches:
                st.caption(t("backward.check.entries"))
                static_table(figures.mismatch_rows(check, lang()))
    if lab.run.variant == "once" and lab.run.gradgradcheck.passed is False:
        st.caption(t("backward.check.once_zeros"))
    for key, skipped in _skipped(lab.run.skipped).items():
        pieces = ", ".join(dict.fromkeys(f"`{s.piece}`" for s in skipped))
        st.caption(t(key, points=_points(tuple(s.x for s in skipped)), piece=pieces))


def _skipped(skipped: tuple) -> dict[str, list]:
    """The points the checks left out, by the sentence that says why."""
    keys = {KINK: "backward.skipped.kink", SECOND: "backward.skipped.second"}
    out: dict[str, list] = {}
    for s in skipped:
        out.setdefault(keys.get(s.reason, "backward.skipped"), []).append(s)
    return out


def _penalty(penalty: object) -> None:
    """The gradient penalty with the usual g: kept, lost without a word, or different."""
    st.subheader(t("backward.penalty"))
    st.markdown(t("backward.penalty.lead"))
    if penalty.verdict == "lost":
        st.warning(t("backward.penalty.lost"), icon=":material/warning:")
    elif penalty.verdict == "kept":
        st.success(t("backward.penalty.kept"), icon=":material/check_circle:")
    else:
        st.error(t("backward.penalty.differs"), icon=":material/error:")
    static_table(figures.penalty_rows(penalty, lang()))
    if penalty.backward_error is not None:
        st.caption(t("backward.penalty.raised"))
        st.code(penalty.backward_error, language=None, wrap_lines=True)  # PyTorch's words


def _second(lab: object) -> None:
    if lab.run.error is not None:
        st.error(t("backward.raised"), icon=":material/error:")
        st.code(lab.run.error, language=None, wrap_lines=True)
    elif lab.run.variant == "detached" and any(
        s == 0 and abs(a) > 1e-12 for s, a in zip(lab.run.second, lab.autograd[1], strict=True)
    ):
        st.warning(t("backward.silent"), icon=":material/warning:")


def _graph(f: str, b: str, variant: str) -> None:
    """The graph of y, dy/dx and d²y/dx² at x₀: the slider and the legend share a row above
    the drawing, and the lead comes under it projected and on a phone (an aside): drawn left
    to right on the projector, the drawing at the projector's text size then lies on the
    first screen (issue 38)."""
    with aside("backward.graph"):
        st.markdown(t("backward.graph.lead"))
    left, right = st.columns([1, 2], gap="large", vertical_alignment="bottom")
    x0 = left.slider(t("backward.graph.x0"), -3.0, 3.0, 0.5, 0.1, key="backward.x0", bind=BIND)
    graph = cached.graph_for(f, b, x0, variant)
    if variant == "once":
        right.caption(t("backward.graph.once"))
    elif any(n.kind == "output" and n.pass_index == 2 and n.value is None for n in graph.nodes):
        right.caption(t("backward.graph.none"))
    if graph.drawable:
        right.html(figures.graph_legend(graph, lang()))  # fixed names, escaped
        graphviz(
            figures.graph_dot(graph, lang()),
            describe(graph.nodes, graph.edges, lang()),
            key="backward.graph.said",
            slide=figures.graph_dot(graph, lang(), wide=True),
        )
        narration(
            t("backward.said.title"),
            figures.graph_steps(graph, lang()),
            labels=labels(lang()),
            key="backward.graph.steps",
        )


def _facts(match: object) -> dict[str, str]:
    """The message's varying parts (names, numbers, shapes: word characters, digits, commas)
    as code, so that no ``_`` of a pasted name turns into markdown emphasis; "?" for a part
    that the text did not hold (only part of the message was found; with the whole signature
    an empty part is real, such as the shape of a scalar, [])."""
    missing = "" if match.whole else "?"
    return {k: f"`{v}`" if v else missing for k, v in match.facts}


def _decoder() -> None:
    """Paste a PyTorch message: what it means, how sure the decoder is, the fix, and the
    gallery case that raises it, with its graph."""
    st.markdown(t("backward.decode.lead", count=len(ENTRIES)))
    text = st.text_area(
        t("backward.decode.box"), key="backward.decode", bind=BIND, max_chars=PASTE, height=120
    )
    whole = link_text("backward.decode", text, PASTE)  # a link's text, before the box cut it
    if len(whole) > PASTE:
        st.caption(t("backward.decode.cut", limit=f"{PASTE:,}", length=f"{len(whole):,}"))
    text = text[:PASTE]  # matched as text: never shown as markdown or HTML
    if not text.strip():
        st.caption(t("backward.decode.empty"))
        return
    try:
        with st.spinner(t("backward.decode.running")):  # the gallery case, once per server
            match, outcome = cached.decoded(text)
    except HogradError as err:
        show_error(err)
        return
    if match is None:
        st.info(t("backward.decode.unknown"), icon=":material/help:")
        return
    title, why, fix = match.keys
    st.success(t("backward.decode.found", title=_plain(t(title))), icon=":material/search:")
    sure = "exact" if match.sure == EXACT else "general" if match.whole else "part"
    st.caption(t(SURE[sure]))
    st.caption(t("backward.decode.matched"))
    st.code(match.found, language=None, wrap_lines=True)  # the pasted words, as text
    facts = _facts(match)
    st.info(f"**{t('backward.decode.why')}** {t(why, **facts)}", icon=":material/lightbulb:")
    st.success(f"**{t('backward.decode.fix')}** {t(fix, **facts)}", icon=":material/build:")
    if match.also:
        others = "; ".join(_plain(t(f"decoder.{other}")) for other in match.also)
        st.caption(t("backward.decode.also", cases=others))
    if outcome is None:
        return
    st.caption(t("backward.decode.example"))
    st.code(outcome.transcript(), language=None, wrap_lines=True)
    if outcome.drawing is not None and outcome.drawing.drawable:
        st.html(figures.graph_legend(outcome.drawing, lang()))  # fixed names, escaped
        said = describe(outcome.drawing.nodes, outcome.drawing.edges, lang())
        dot = figures.graph_dot(outcome.drawing, lang())
        graphviz(dot, said, key="backward.decode.said")
        steps = figures.case_steps(outcome.drawing, lang())
        narration(
            t("backward.said.case"), steps, labels=labels(lang()), key="backward.decode.steps"
        )
    st.page_link(
        "pages/graph.py",
        label=t("backward.decode.open"),
        icon=":material/account_tree:",
        query_params={
            "graph.case": match.case,
            f"graph.variant.{match.case}": match.variant,
            "lang": lang(),
        },
    )


def draw() -> None:
    """The page: the lab, then the error decoder (shown whatever the formulas say), drawn by
    the frame."""
    st.title(t("backward.title"))
    view = Frame("backward")
    with view.lead():
        st.markdown(t("backward.lead"))
    view.buttons().pills(
        t("backward.presets"),
        [SEP.join(p) for p in PRESETS],
        key="backward.preset",
        on_change=_preset,
        format_func=_plain,
    )
    with view.controls():
        settings = _settings()
    decode = {"decode": (t("backward.decode"), _decoder)}
    if settings is None:  # a formula's error is under its box
        view.screens(decode, "backward.screen")
        return
    f, b, low, high, points, variant = settings
    try:
        lab = cached.lab_for(f, b, low, high, points, variant)
    except HogradError as err:
        with view.results:
            show_error(err)
        view.screens(decode, "backward.screen")
        return
    if lab.exact_stopped is not None:  # sympy's child was stopped: the rest stands without it
        view.results.info(stopped_note(lab.exact_stopped), icon=":material/timer_off:")
    grid = (f, b, low, high, points, variant)

    def table() -> None:
        _second(lab)
        static_table(figures.derivative_rows(lab, lang()))
        _penalty(cached.penalty_for(*grid))

    screens = {
        "formulas": (t("backward.formulas"), lambda: _formulas(lab)),
        "table": (t("backward.table"), table),
        "checks": (t("backward.checks"), lambda: _checks(lab)),
        "graph": (t("backward.graph"), lambda: _graph(f, b, variant)),
        "code": (t("backward.code"), lambda: _script(grid)),
    }
    view.screens(screens | decode, "backward.screen")


def _settings() -> tuple | None:
    """The two formulas, the grid and the variant: ``(f, b, low, high, points, variant)``, or
    None while a formula is not in the language (its error is shown under its box)."""
    left, right = st.columns(2)
    with left:
        ok_f = _formula("backward.f", t("backward.f"), PRESETS[0][0], ("x",))
    with right:
        ok_b = _formula(
            "backward.b", t("backward.b"), PRESETS[0][1], NAMES, help=t("backward.b.help")
        )
    grid, count = st.columns([3, 2])
    low, high = grid.slider(
        t("backward.range"), -5.0, 5.0, (-2.0, 2.0), 0.5, key="backward.range", bind=BIND
    )
    points = count.slider(t("backward.points"), 1, MAX_POINTS, 9, key="backward.points", bind=BIND)
    labels = {v: t(VARIANT_LABELS[v]) for v in VARIANTS}
    variant = localized_choice(
        t("backward.variant"), labels, "backward.variant", widget="segmented_control"
    )
    st.caption(t(VARIANT_ABOUT[variant]))
    if not (ok_f and ok_b):
        return None
    f, b = st.session_state["backward.f"], st.session_state["backward.b"]
    return f, b, low, high, points, variant


def _script(grid: tuple) -> None:
    """The script that ran, with the learner's formulas, and its download."""
    st.caption(t("backward.code.lead"))
    source = cached.script_for(*grid)
    st.code(source, language="python")
    code_file(source, "my_function", "backward")


def _formulas(lab: object) -> None:
    """The four formulas (sympy's), what the backward saves, and the verdict on it."""
    names = [t(key) for key in FORMULAS]
    columns = [column for _ in range(2) for column in st.columns(2)]  # f′ and f″ can be long
    for column, name, tex in zip(columns, names, lab.latex, strict=True):
        column.caption(name)
        if tex is None:  # sympy's formula too long to print, or sympy stopped
            column.caption(t("backward.formula.long"))
        else:
            column.latex(tex)  # from sympy, never from the typed text
    saved = lab.run.saved
    st.markdown(
        t("backward.saved", names=", ".join(f"`{n}`" for n in saved))
        if saved
        else t("backward.saved.none")
    )
    st.caption(t("backward.saved.why"))
    where = _points(lab.wrong_at)
    if lab.slip == IGNORES_G:
        st.warning(t("backward.slip.ignores_g"), icon=":material/warning:")
        if lab.wrong_at:  # not even right for g = 1
            st.error(t("backward.slip.wrong", points=where), icon=":material/error:")
    elif lab.slip == SIGN_OF_Y:
        st.warning(t("backward.slip.y_sign", points=where), icon=":material/warning:")
    elif lab.slip == WRONG:
        st.error(t("backward.slip.wrong", points=where), icon=":material/error:")
    else:
        st.success(t("backward.ok"), icon=":material/check_circle:")
