"""Small helpers shared by the pages: language, translated text, errors, the function box.

Pages stay thin: they read widgets, call one cached core function and render. Everything that
computes lives in hograd_core.
"""

from __future__ import annotations

import re
import secrets
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd
import streamlit as st
from streamlit.errors import StreamlitDuplicateElementKey
from streamlit.runtime.scriptrunner import get_script_run_ctx

from hograd_serving import SESSION_KEY
from hograd_serving.patches import leave_pages_directory_mode
from hograd_ui.i18n import LANGUAGES, error_text, tr
from hograd_ui.parts.a11y import name_view
from hograd_ui.parts.link_form import Field, draw_linked
from hograd_ui.parts.links import BIND, link_text, present, url_choice, write_choice

if TYPE_CHECKING:  # loaded with the first page that computes or shows an error, not at home
    from hograd_core import HogradError
    from hograd_core.language import Function

_ROUTER = threading.local()  # each session's script runs in a thread of its own


@contextmanager
def routed() -> Iterator[None]:
    """Mark the script run as going through app.py (the router); app.py wraps its body in it."""
    _ROUTER.active = True
    try:
        yield
    finally:
        _ROUTER.active = False


def _route_through_app() -> None:
    """Make every run go through app.py, even a first visit straight to /derivatives.

    Streamlit starts in its old "pages directory" mode because pages/ exists, and leaves it
    only when app.py calls st.navigation. Until then a deep link (a shared lesson link, often
    opened by a whole class at once on a fresh server) runs the page file alone, without the
    sidebar, the language switch or the other pages. A page run that did not come through
    app.py switches that mode off (hograd_serving/patches.py) and reruns, which goes through
    app.py. Page hashes come from the URL path, so each st.Page keeps url_path equal to its file
    name (a test checks).
    """
    if getattr(_ROUTER, "active", False):
        return
    ctx = get_script_run_ctx()
    if ctx is None or Path(ctx.pages_manager.main_script_path).name != "app.py":
        return  # a page tested on its own (AppTest.from_file("pages/x.py"))
    if ctx.fragment_ids_this_run:
        return  # a fragment's own rerun (x0 on the derivatives page) skips app.py by design
    leave_pages_directory_mode()
    st.rerun()


def lang() -> str:
    """The language chosen in the sidebar ("en" or "zh")."""
    return st.session_state.get("lang", "en")


def session_id() -> str:
    """A random name for this browser session, kept in its state: the server's background
    work takes sessions in turn by it (hograd_serving/sympy_column.py)."""
    if SESSION_KEY not in st.session_state:
        st.session_state[SESSION_KEY] = secrets.token_hex(8)
    return st.session_state[SESSION_KEY]


def lang_from_query() -> str:
    """The language named in the URL (``?lang=zh``), so a shared link opens in it."""
    value = st.query_params.get("lang", "en")
    return value if value in LANGUAGES else "en"


def t(key: str, **params: object) -> str:
    """``key`` from the translation table, in the current language.

    Every page calls this first, so it is also where a run that bypassed the router is sent
    back through app.py.
    """
    _route_through_app()
    return tr(key, lang(), **params)


#: A page refused because every heavy-work slot was taken asks again by itself every
#: BUSY_AGAIN seconds, at most BUSY_TRIES times a minute: a follower taken to a view while the
#: server was busy, or a student whose click came at the wrong second, gets the result without
#: doing anything (the gate's slots free within their deadlines: hograd_serving/gate.py).
BUSY_AGAIN, BUSY_TRIES = 3.0, 10
_BUSY_TRIES = "app.busy.tries"  # monotonic times of the automatic reruns
_BUSY_KEY = "app.busy.again"
# The timer lives in the page, not in a fragment (st.fragment(run_every=...)): it dies with its
# element when the page changes (its cleanup), so no rerun of an old page's fragment can reach
# the next page's elements; its trigger reruns the whole page.
_AGAIN = st.components.v2.component(
    "hograd_busy_again",
    js=(
        "export default function ({ data, setTriggerValue }) {"
        " const timer = setTimeout(() => setTriggerValue('again', data.token), data.ms);"
        " return () => clearTimeout(timer); }"
    ),
)


def _asked_again() -> None:
    st.session_state[_BUSY_TRIES] = [*st.session_state.get(_BUSY_TRIES, ()), time.monotonic()]


def busy_retry(err: HogradError) -> None:
    """Under the message of ``err``: if no heavy-work slot was free ("budget.busy"; not a
    browser's full minute), the page asks again by itself (:data:`BUSY_AGAIN`), said in a
    caption; after :data:`BUSY_TRIES` tries in a minute it stops and says to reload."""
    from hograd_serving.gate import BusyError  # loaded by the work that raised it

    if not (isinstance(err, BusyError) and err.key == "budget.busy"):
        return
    now = time.monotonic()
    tries = [at for at in st.session_state.get(_BUSY_TRIES, ()) if now - at < 60.0]
    st.session_state[_BUSY_TRIES] = tries
    if len(tries) >= BUSY_TRIES:
        st.caption(t("app.busy.gave_up", tries=BUSY_TRIES))
        return
    st.caption(t("app.busy.again", seconds=f"{BUSY_AGAIN:g}", tries=BUSY_TRIES))
    data = {"token": secrets.token_hex(4), "ms": int(BUSY_AGAIN * 1000)}  # a new timer per run
    with suppress(StreamlitDuplicateElementKey):  # a second busy message this run
        _AGAIN(key=_BUSY_KEY, data=data, on_again_change=_asked_again)


def show_error(err: HogradError, user_text: str | None = None) -> None:
    """Show a refused request: the message, and the user's text only as code (never markdown).
    A full server's refusal asks again by itself (:func:`busy_retry`)."""
    st.error(error_text(err, lang()), icon=":material/error:")
    if user_text is not None:
        st.caption(t("app.error.you_typed"))
        st.code(user_text, language=None)
    busy_retry(err)


def box_chars(limit: int) -> int:
    """``max_chars`` of a text box whose content the core refuses above ``limit`` characters.

    Five times the limit: a paste a little over it still reaches the check, whose message
    names the limit and the length (the browser drops a paste longer than ``max_chars``
    without a word, as it did a 300-character function when the box had max_chars=200);
    anything longer never leaves the browser, and Streamlit cuts a longer value that a
    modified client or a link sends.
    """
    return 5 * limit


def function_box(
    page: str,
    label: str,
    presets: Sequence[str],
    *,
    variables: tuple[str, ...] | None = None,
    stop: bool = True,
) -> Function | None:
    """A text box for f with preset buttons; returns the parsed function or stops the page.

    With ``stop=False`` a refused function returns None after the error is shown, so the page
    can still draw its other widgets before it stops: Streamlit forgets the value of every
    widget that a run does not draw, and a typo would reset the learner's settings.

    Widget keys are namespaced by ``page`` ("page.fn", "page.preset"). The text is in the URL
    (``?deriv.fn=tanh(x)``) unless it is the first preset: a function from a link is parsed
    like a typed one and refused with the same message. The box is not bound to the URL
    (``bind=``): a preset sets its value through the session state, and a bound box would need
    its default as well, which Streamlit warns about (hograd_ui/parts/link_form.py).
    """
    key = f"{page}.fn"

    def use_preset() -> None:
        choice = st.session_state.get(f"{page}.preset")
        if choice:
            st.session_state[key] = choice

    # projected: the presets and the box in one row, the presets one click away
    row = st.container(horizontal=True, vertical_alignment="bottom") if present() else st
    row.pills(
        t("app.presets"), presets, key=f"{page}.preset", on_change=use_preset, format_func=as_typed
    )
    from hograd_core import HogradError  # loaded with the first page that takes a function
    from hograd_core.language import LIMITS
    from hograd_serving.cached import cached_parse

    limit = box_chars(LIMITS.max_length)
    # unbound, its value in the session state (a preset sets it): see seed_linked
    text = draw_linked(row, label, key, Field("text", presets[0], high=limit))
    try:  # a link's text longer than the box: refused whole, with its length, not cut short
        return cached_parse(link_text(key, text, limit), variables)
    except HogradError as err:
        show_error(err, text)
        if stop:
            st.stop()
        return None


def _per_language(key: str, shown: object) -> str:
    """The key of this language's widget for the choice kept in ``st.session_state[key]``,
    set to show ``shown`` (the choice as that widget holds it). Widgets with translated
    labels are keyed per language: the browser forgets a choice whose label changed."""
    widget_key = f"{key}.{lang()}"
    if st.session_state.get(widget_key) != shown:
        st.session_state[widget_key] = shown
    return widget_key


def localized_choice(
    label: str,
    labels: dict[str, str],
    key: str,
    *,
    widget: str = "radio",
    container: object = st,
    on_change: Callable[[], None] | None = None,
    old_labels: str | None = None,
    **kwargs: object,
) -> str:
    """A choice whose option labels are translated (``widget``: "radio", "selectbox" or
    "segmented_control"), in the URL by its option's name, kept across a language switch.

    The chosen option (a key of ``labels``, the first by default) lives in
    ``st.session_state[key]`` and in the link as ``?key=option``, the same in every language;
    the widget itself is keyed per language (``key + ".en"``), because the browser forgets
    which option was selected when every label changes under it. ``on_change`` runs after a
    choice, when ``st.session_state[key]`` holds it. ``old_labels``: the labels' locale keys
    are ``old_labels + option``, and a link that holds a label, in either language (links made
    while the label was written in the URL), opens that option.
    """
    options = list(labels)
    old = None
    if old_labels is not None:
        old = {tr(old_labels + o, code): o for code in LANGUAGES for o in options}
    url_choice(key, options, options[0], old)  # ?key=option, the option's name in any language
    widget_key = _per_language(key, st.session_state[key])

    def sync() -> None:
        value = st.session_state[widget_key]
        if value not in labels:  # an empty choice (a client that ignores ``required``): keep
            return  # the last one
        st.session_state[key] = value
        if on_change is not None:
            on_change()

    if widget == "segmented_control":
        kwargs.setdefault("required", True)  # a choice, never none
    getattr(container, widget)(
        label,
        options,
        key=widget_key,
        format_func=labels.__getitem__,
        on_change=sync,
        **kwargs,
    )
    write_choice(key, options[0])
    return st.session_state[key]


def localized_radio(
    label: str,
    labels: dict[str, str],
    key: str,
    *,
    container: object = st,
    **kwargs: object,
) -> str:
    """A radio whose option labels are translated: :func:`localized_choice` as a radio."""
    return localized_choice(label, labels, key, container=container, **kwargs)


#: Characters that start markdown or HTML in a cell of ``st.table`` (which renders every cell as
#: markdown, character references too: "&amp;" would show as "&"); a number's digits, signs,
#: dots and exponents are not among them.
_MARKDOWN = re.compile(r"([\\`*_{}\[\]<>#|~$&])")


def _literal(value: object) -> object:
    return _MARKDOWN.sub(r"\\\1", value) if isinstance(value, str) else value


def as_typed(text: str) -> str:
    """``text`` for a label that Streamlit reads as markdown (a pill, a button), shown as
    typed: ``x**3`` would otherwise lose its stars to italics."""
    return _MARKDOWN.sub(r"\\\1", text)


def static_table(frame: pd.DataFrame, *, hide_index: bool = True) -> None:
    """A small table as plain HTML (``st.table``), every text cell and label shown literally.

    Used for the short tables of a page's first screen: a data grid there makes a deep link
    load and draw the grid's bundle (about a quarter of a second in a fresh browser on the
    2-core test machine) before the page is ready. ``st.table`` renders cells as markdown, so
    every character that could start formatting is escaped: the cells hold our own numbers and
    labels and identifiers, never free text, and they show as written.
    """
    shown = frame.map(_literal)
    shown.columns = [_literal(str(c)) for c in frame.columns]
    if not hide_index:  # the row labels as a first column under the index's name, since an
        # index draws an empty header cell above them (WCAG 1.3.1: every header has text)
        shown.insert(
            0, _literal(str(frame.index.name or "")), [_literal(str(i)) for i in frame.index]
        )
    st.table(shown, hide_index=True)


def lazy_expander(
    label: str, key: str, *, expanded: bool = False, icon: str | None = None, linked: bool = False
):
    """An expander whose content is computed and sent only while it is open:
    ``with box: if box.open: ...``. Opening or closing it reruns the page (or the fragment).

    Plain ``st.expander`` sends its content with every run even when closed, so a deep link
    to a page paid for every graph, table and code block folded away in it: the browser
    loaded their bundles (Graphviz, the data grid, the syntax highlighter) and drew them
    before the page was ready. The open state is in ``st.session_state[key]`` (tests open an
    expander by setting it); it starts as ``expanded``. ``linked``: open, it is in the URL
    (``?key=true``), so a shared link opens it too (the key must be in its lab's declared
    ``url``, hograd_ui/lab.py).
    """
    return st.expander(
        label,
        expanded=expanded,
        key=key,
        icon=icon,
        on_change="rerun",
        bind=BIND if linked else None,
    )


def lazy_tabs(labels: dict[str, str], key: str) -> dict[str, object]:
    """Tabs that compute only the open one: ``{name: tab}``; draw into a tab only if
    ``tab.open``. Switching tabs reruns the page.

    Plain ``st.tabs`` runs every tab's content on every rerun: the Taylor chart, the formulas
    and the code behind the inspector, the power-iteration animation behind the contour plot.
    The open tab (a key of ``labels``) lives in ``st.session_state[key]``; the widget is keyed
    per language, as in :func:`localized_choice`, so a language switch keeps the open tab.
    """
    names = list(labels)
    shown = [labels[n] for n in names]
    url_choice(key, names, names[0])  # ?key=name: the open tab is part of the link
    widget_key = _per_language(key, labels[st.session_state[key]])

    def sync() -> None:
        value = st.session_state[widget_key]
        if value in shown:  # a modified client may send any text: then the open tab stays
            st.session_state[key] = names[shown.index(value)]

    tabs = st.tabs(shown, key=widget_key, on_change=sync)
    write_choice(key, names[0])
    name_view(labels[st.session_state[key]])  # the document's title names the open tab
    return dict(zip(names, tabs, strict=True))


# ---- presentation mode as slides ---------------------------------------------------------
# In presentation mode a view's result (a chart, a graph, the numbers the lecturer talks about)
# must be on the first 1920x1080 screen: the widgets that change it fold into one row of
# buttons above it (:func:`present_row`, :func:`folded`), and a view with several results shows
# one per screen (:func:`slides`). Outside the mode these helpers draw everything in place,
# so a page written with them looks as before. tests/e2e/test_slides_browser.py measures it.


def present_row(name: str = "view") -> object:
    """The one row above a view's result in presentation mode (a horizontal container, its
    buttons at 20 px: hograd_ui/parts/present.py), where :func:`folded` and :func:`slides` put
    theirs; outside the mode a plain container. ``name``: unique among a page's rows."""
    if present():
        return st.container(
            horizontal=True, vertical_alignment="center", gap="small", key=f"present.row.{name}"
        )
    return st.container()


@contextmanager
def folded(label: str, icon: str, where: object | None = None) -> Iterator[None]:
    """Widgets (or text) that, in presentation mode, fold into one button of the row
    ``where`` (a popover: one click opens them); outside the mode they are drawn in place."""
    if not present():
        yield
        return
    with (where or st).popover(label, icon=icon):
        yield


def controls(where: object | None = None) -> object:
    """The widgets that change a view, folded in presentation mode (:func:`folded`)."""
    return folded(t("present.controls"), ":material/tune:", where)


def slides(labels: dict[str, str], key: str, where: object | None = None) -> dict[str, bool]:
    """Which of a view's results to draw now: ``{name: bool}``; ``labels`` names them.

    Outside presentation mode every result, one below the other. In the mode one screen per
    result: a list of their names (in ``where``, the row of :func:`present_row`, or a row of
    its own; a list, not buttons, keeps the row one line with long names) and
    Previous/Next buttons that the keys PageUp/PageDown press too (what a presenter's clicker
    sends). The open screen is ``st.session_state[key]``, kept across a language switch, and
    in the link by its name (``?hvp.screen=picture``; the first screen is left out), so a
    shared link or a reload opens the same screen. A name the view does not have (a typo,
    a number, another view's screen) opens the first screen, and the note above the page
    says the value was ignored (hograd_ui/parts/links.py's ``checked_link``; ``key`` must be
    in its lab's declared ``url``, hograd_ui/lab.py).
    """
    names = list(labels)
    if not present():
        return dict.fromkeys(names, True)
    url_choice(key, names, names[0])  # ?key=name, read once a session
    if st.session_state.get(key) not in names:  # a view whose screens changed since
        st.session_state[key] = names[0]
    widget_key = _per_language(key, st.session_state[key])

    def chosen() -> None:
        if st.session_state.get(widget_key) in names:  # required: a client may still send none
            st.session_state[key] = st.session_state[widget_key]

    def turn(step: int) -> None:
        at = names.index(st.session_state[key]) + step
        st.session_state[key] = names[min(max(at, 0), len(names) - 1)]

    at = names.index(st.session_state[key])
    row = where or st.container(horizontal=True, vertical_alignment="center")
    row.selectbox(
        t("present.slide"),
        names,
        key=widget_key,
        format_func=labels.__getitem__,
        on_change=chosen,
        label_visibility="collapsed",
        width=480,
    )
    row.button(
        t("present.prev"),
        key=f"{key}.prev",
        icon=":material/arrow_back:",
        on_click=turn,
        args=(-1,),
        disabled=at == 0,
        shortcut="PageUp",
    )
    row.button(
        t("present.next"),
        key=f"{key}.next",
        icon=":material/arrow_forward:",
        on_click=turn,
        args=(1,),
        disabled=at == len(names) - 1,
        shortcut="PageDown",
        type="primary",
    )
    write_choice(key, names[0])
    return {name: name == names[at] for name in names}
