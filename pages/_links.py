"""Every view a link: the URL conventions, the notes on a bad link, the share box, presentation.

The convention (docs/architecture.md, "Every view is a link"):

- A widget that holds a view's state has a ``key`` namespaced by page ("deriv.order") and
  ``bind="query-params"``: Streamlit writes its value to the URL under the key, leaves it out
  while it equals the widget's default, seeds the widget from the URL on the first run and
  drops a value the widget would not accept (out of range, not a number, not an option).
- A choice shown with translated labels (``localized_radio``, ``lazy_tabs`` in pages/_ui.py)
  cannot be bound, since Streamlit would write the translated label; it goes into the URL
  under its canonical key with its option name (``?deriv.tab=taylor``) through
  :func:`url_choice` (before the widget) and :func:`write_choice` (after it).
- app.py runs each page inside :func:`checked_link`, which compares the URL the session
  started with against what the page made of it, and says in the page which parameters were
  ignored and why (unknown, repeated, not a valid value), in the student's language.

Nothing from the URL is ever rendered as HTML or markdown: ignored names and values are shown
as code, cut to a few dozen characters.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from urllib.parse import parse_qs, urlencode

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx
from streamlit.runtime.scriptrunner_utils.exceptions import RerunException

from hograd_ui.i18n import LANGUAGES, tr

__all__ = [
    "BIND", "PRESENT", "checked_link", "present", "presentation_css", "remember_link",
    "share_box", "url_choice", "write_choice", "write_present",
]  # fmt: skip

BIND = "query-params"  # the one value of Streamlit's ``bind=``, named once
PRESENT = "present"  # ?present=1 turns presentation mode on
#: Parameters every page accepts: the language, presentation mode, Streamlit's own embed
#: options (``?embed=true`` hides Streamlit's frame for slides that embed the app), and the
#: lesson's teacher's version (``?teacher=1``, issue 18), which it reads with st.query_params.
GLOBAL = frozenset({"lang", PRESENT, "embed", "embed_options", "teacher"})
#: Parameters a page reads itself with st.query_params (the lesson's progress: pages/_lesson_state.py).
PAGE_PARAMS = {"lesson": frozenset({"step", "done"})}
#: Each page's key prefix (its widgets' keys and so its URL parameters start with it).
PREFIXES = {"derivatives": ("deriv.",), "graph": ("graph.", "graphvars."), "hvp": ("hvp.",),
            "why": ("why.", "maml.", "pinn.", "wgan."), "lesson": ("lesson.",)}  # fmt: skip
#: Why a parameter was not used, and the sentence that says so.
REASONS = {"unknown": "links.ignored.unknown", "repeated": "links.ignored.repeated",
           "invalid": "links.ignored.invalid", "lang": "links.ignored.lang"}  # fmt: skip
SHOWN = 40  # characters of an ignored name or value shown back to the student
_ASKED = "links.asked"  # (page, {name: [values]}) of the URL the session started with
_NOTES = "links.notes"  # (page, notes) on that URL, made once, after the page's first run
_QUERY = "links.query"  # {name: [values]} of the URL of the session's first run


def _lang() -> str:
    return st.session_state.get("lang", "en")


def url_choice(key: str, options: list[str], default: str) -> None:
    """Seed ``st.session_state[key]`` from ``?key=option`` once per session (before the
    widget is drawn; :func:`write_choice` after it keeps the URL in step).

    An unknown option in the URL is left to :func:`checked_link`, which says it was ignored.
    """
    seeded = f"{key}.from_link"  # namespaced like the key (one seeding per session)
    if seeded not in st.session_state:
        st.session_state[seeded] = True
        asked = st.query_params.get_all(key)
        if asked and asked[-1] in options:
            st.session_state[key] = asked[-1]
    st.session_state.setdefault(key, default)


def write_choice(key: str, default: str) -> None:
    """Put ``st.session_state[key]`` into the URL, or take it out when it is the default."""
    value = st.session_state.get(key, default)
    if value == default:
        if key in st.query_params:
            del st.query_params[key]
    elif st.query_params.get(key) != value:
        st.query_params[key] = value


def _same(raw: list[str], value: object) -> bool:
    """Whether the URL's text ``raw`` says ``value`` (what the widget ended up holding)."""
    if isinstance(value, tuple | list):
        return len(raw) == len(value) and all(
            _same([r], v) for r, v in zip(raw, value, strict=True)
        )
    text = raw[-1] if raw else ""
    if isinstance(value, bool):
        return text.lower() == str(value).lower()
    if isinstance(value, int | float):
        try:
            number = float(text)
        except ValueError:
            return False
        return math.isfinite(number) and math.isclose(number, float(value), rel_tol=1e-9)
    return text == str(value)


def _short(text: str) -> str:
    return text if len(text) <= SHOWN else text[:SHOWN] + "…"


def _notes(
    page: str, asked: Mapping[str, list[str]], kept: Mapping[str, list[str]]
) -> list[tuple[str, str, str]]:
    """(reason, name, value) for every parameter of the asked URL that the view does not show.

    Reasons: ``unknown`` (no page has it), ``repeated`` (a single value given more than once;
    the last one counts), ``invalid`` (the widget refused it and kept its default), ``lang``.
    Parameters of widgets this run did not draw (another mode, a closed tab) are not judged.
    ``kept`` is the URL after the run: a bound widget drops a value it refuses, or corrects
    it, and drops one equal to its default (which :func:`_same` then recognises).
    """
    notes = []
    prefix = PREFIXES.get(page)
    for name, values in asked.items():
        shown = values[-1] if values else ""
        if name == "lang":
            if shown not in LANGUAGES:
                notes.append(("lang", name, shown))
            continue
        if name in GLOBAL or name in PAGE_PARAMS.get(page, ()):
            continue
        if (prefix is None or not name.startswith(prefix)) and name not in st.session_state:
            notes.append(("unknown", name, shown))
            continue
        if name not in st.session_state:
            continue  # a widget this view did not draw
        value = st.session_state[name]
        single = not isinstance(value, tuple | list)
        if kept.get(name) != values and not _same(values, value):  # dropped or corrected
            notes.append(("invalid", name, " ".join(values)))
        elif len(values) > 1 and single and _same(values[-1:], value):
            notes.append(("repeated", name, shown))
    return notes


def remember_link() -> None:
    """Keep the query string the session was opened with; app.py calls this first, before
    anything writes to the URL (writing ``st.query_params`` changes the run's query string)."""
    if _QUERY not in st.session_state:
        ctx = get_script_run_ctx()
        query = ctx.query_string if ctx is not None else ""
        st.session_state[_QUERY] = parse_qs(query, keep_blank_values=True)


@contextmanager
def checked_link(page: str) -> Iterator[None]:
    """Run a page and tell the student what in the link it was opened with was ignored.

    The URL the session starts with is remembered; after the first run that reaches the end
    of the page (or its ``st.stop()``), every parameter the page did not take up is listed
    once in a note above the page, which stays until the student leaves the page. ``page``
    is the page's URL path ("" for home).
    """
    slot = st.container()
    share = st.sidebar.container()  # filled after the page: the link then holds all its changes
    if _ASKED not in st.session_state:
        st.session_state[_ASKED] = (page, st.session_state.get(_QUERY, {}))
    rerun = False
    try:
        yield
    except RerunException:
        rerun = True  # the run is replaced by another: it judged nothing yet
        raise
    finally:
        asked_page, asked = st.session_state[_ASKED]
        if not rerun and _NOTES not in st.session_state and asked_page == page:
            st.session_state[_NOTES] = (page, _notes(page, asked, _url()))
            for reason, name, _ in st.session_state[_NOTES][1]:
                if reason == "unknown" and name in st.query_params:
                    del st.query_params[name]  # so that a shared link is clean again
        notes_page, notes = st.session_state.get(_NOTES, ("", []))
        # After st.stop() the first element raises again and nothing below shows: the page
        # stopped on its own message (a function that fails to parse), and the notes show on
        # the next run.
        if not rerun and notes and notes_page == page:
            _show_notes(slot, notes)
        if not rerun:
            with share:
                share_box(page)
            if present():
                st.button(tr("links.present.leave", _lang()), key="links.leave",
                          on_click=_leave, icon=":material/close_fullscreen:")  # fmt: skip


def _url() -> dict[str, list[str]]:
    return {name: st.query_params.get_all(name) for name in st.query_params}


def _show_notes(slot: object, notes: list[tuple[str, str, str]]) -> None:
    lang = _lang()
    with slot, st.container(border=True):  # type: ignore[attr-defined]
        st.warning(tr("links.ignored.title", lang), icon=":material/link_off:")
        for reason, name, value in notes[:8]:
            st.caption(tr(REASONS[reason], lang))
            st.code(f"{_short(name)}={_short(value)}", language=None, wrap_lines=True)
        if len(notes) > 8:
            st.caption(tr("links.ignored.more", lang, count=len(notes) - 8))


# ---- share and present ------------------------------------------------------------------------


def present() -> bool:
    """Whether presentation mode is on (``?present=1``, or the sidebar toggle)."""
    key = "links.present"
    if key not in st.session_state:
        st.session_state[key] = st.query_params.get(PRESENT, "") in ("1", "true")
    return bool(st.session_state[key])


def _leave() -> None:
    st.session_state["links.present"] = False


def write_present() -> None:
    if st.session_state.get("links.present"):
        if st.query_params.get(PRESENT) != "1":
            st.query_params[PRESENT] = "1"
    elif PRESENT in st.query_params:
        del st.query_params[PRESENT]


def current_link(page: str) -> str:
    """The link to the view as the browser shows it: page path and query, on the server's
    address as the browser sees it."""
    base = (st.context.url or "").split("?")[0].rstrip("/")
    if page and not base.endswith("/" + page):
        base = f"{base}/{page}"
    pairs = [(k, v) for k in st.query_params for v in st.query_params.get_all(k)]
    return f"{base}?{urlencode(pairs)}" if pairs else base


def share_box(page: str) -> None:
    """A popover with the link to this view, with Streamlit's copy button (no HTML, no JS)."""
    lang = _lang()
    # Opening it reruns the app, so the link also holds what a fragment changed since the last
    # full run (x0 and the tabs on the derivatives page rerun on their own).
    with st.popover(tr("links.share", lang), icon=":material/link:", width="stretch",
                    key="links.share", on_change="rerun"):  # fmt: skip
        st.caption(tr("links.share.help", lang))
        st.code(current_link(page), language=None, wrap_lines=True)


# Presentation mode. A 1920x1080 projector image is about 3 m wide in a lecture hall, so
# one CSS pixel is about 1.6 mm on the screen. Body text at 26 px is a 4 cm em (capital
# letters about 2.9 cm), about 8 minutes of arc from 12 m, the back row of a 200-seat hall:
# letters of 5 arc minutes are the limit of normal sight, so that is about 1.6 times it.
# Headings 52 px, widget labels 24 px, code 22 px (monospace is wider, lines stay short).
# Plotly figures are enlarged by hograd_ui/plotting.py (PROJECTOR_SCALE). Graphviz drawings
# keep Streamlit's usual label size (0.6 rem of 16 px): the drawing is scaled to the page
# width, and Graphviz sized its boxes for that size. High contrast: black text on white, no
# grey captions, thicker focus outlines.
PRESENTATION_CSS = """
<style>
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"],
[data-testid="stExpandSidebarButton"], [data-testid="stToolbar"], [data-testid="stDecoration"],
[data-testid="stHeader"], [data-testid="stDownloadButton"], [data-testid="stTooltipIcon"],
[class*="st-key-"][class*="-preset"] { display: none !important; }
html { font-size: 26px !important; }
[data-testid="stMain"], [data-testid="stMain"] p, [data-testid="stMain"] li,
[data-testid="stMain"] label, [data-testid="stCaptionContainer"] * { color: #000 !important; }
[data-testid="stMainBlockContainer"] { max-width: 100%; padding: 1rem 2.5rem 3rem; }
[data-testid="stMain"] h1 { font-size: 52px !important; }
[data-testid="stMain"] h2 { font-size: 42px !important; }
[data-testid="stMain"] h3 { font-size: 34px !important; }
[data-testid="stMain"] p, [data-testid="stMain"] li { font-size: 26px !important; }
[data-testid="stCaptionContainer"] { opacity: 1 !important; }
[data-testid="stCaptionContainer"] p { font-size: 22px !important; }
[data-testid="stWidgetLabel"] p { font-size: 24px !important; font-weight: 600; }
[data-testid="stMarkdownContainer"] code { color: #000 !important; }
[data-testid="stCode"] code, [data-testid="stCode"] pre { font-size: 22px !important; }
[data-testid="stSliderThumbValue"], [data-testid="stSliderTickBar"] * {
  font-size: 22px !important; color: #000 !important; }
[data-testid="stMetricValue"] { font-size: 48px !important; }
[role="tab"], [role="tab"] p { font-size: 26px !important; }
[data-testid="stMain"] input { font-size: 24px !important; color: #000 !important; }
[data-testid="stCode"] code span { color: #000 !important; }
[data-testid="stWidgetLabel"] code { font-size: 22px !important; }
[data-testid="stGraphVizChart"] svg text { font-size: 9.6px !important; }
*:focus-visible { outline: 4px solid #000 !important; }
</style>
"""


def presentation_css() -> str:
    """The presentation-mode style: a constant of this module, never built from user text."""
    return PRESENTATION_CSS
