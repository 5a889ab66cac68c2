"""Share this view and presentation mode; hograd_ui/parts/links.py re-exports them."""

from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from hograd_ui.i18n import tr

__all__ = [
    "PRESENT",
    "TOGGLE",
    "current_link",
    "leave",
    "leave_button",
    "present",
    "present_toggle",
    "presentation_css",
    "refresh_share",
    "share_box",
    "wrap_css",
    "write_present",
]

#: Parameters that stay in this browser's address bar and out of every link the app shows: a
#: student's seat in a class is theirs alone (hograd_ui/parts/lesson_state.py), and whether
#: they follow the lecturer is their choice (hograd_labs/classroom/follow.py).
PRIVATE = frozenset({"seat", "follow"})
PRESENT = "present"  # ?present=1 turns presentation mode on


def _lang() -> str:
    return st.session_state.get("lang", "en")


TOGGLE = "links.present"  # the sidebar toggle's key
_ON = "links.present.on"  # the mode itself, a plain session value, not a widget's


def present() -> bool:
    """Whether presentation mode is on (``?present=1``, or the sidebar toggle).

    The mode is kept under a key of its own, not only under the toggle's: Streamlit drops a
    widget's value when the user switches pages (even a widget app.py draws on every page,
    with ``persist_state="session"`` too, in Streamlit 1.67), and a lecturer who opened
    another page found the mode off. It stays on until the lecturer leaves it."""
    if _ON not in st.session_state:
        st.session_state[_ON] = st.query_params.get(PRESENT, "") in ("1", "true")
    return bool(st.session_state[_ON])


def _toggled() -> None:
    st.session_state[_ON] = bool(st.session_state[TOGGLE])


def present_toggle(label: str, help_text: str) -> None:
    """The sidebar's toggle of the mode, showing the mode as it is (app.py draws it)."""
    st.session_state[TOGGLE] = present()
    st.toggle(label, key=TOGGLE, help=help_text, on_change=_toggled)


def leave() -> None:
    """The leave button's callback: presentation mode off."""
    st.session_state[_ON] = st.session_state[TOGGLE] = False


def leave_button() -> None:
    """The control that ends presentation mode, at the top of every page while it is on
    (app.py draws it before the page: the sidebar with the mode's toggle is hidden)."""
    st.button(
        tr("links.present.leave", _lang()),
        key="links.leave",
        on_click=leave,
        icon=":material/close_fullscreen:",
        type="tertiary",
    )


def write_present() -> None:
    """``?present=1`` in the URL while the mode is on, so that every page's link keeps it."""
    if present():
        if st.query_params.get(PRESENT) != "1":
            st.query_params[PRESENT] = "1"
    elif PRESENT in st.query_params:
        del st.query_params[PRESENT]


def current_link(page: str) -> str:
    """The link to the view as the browser shows it: page path and query, on the server's
    address as the browser sees it; without :data:`PRIVATE` parameters."""
    base = (st.context.url or "").split("?")[0].rstrip("/")
    if page and not base.endswith("/" + page):
        base = f"{base}/{page}"
    pairs = [
        (k, v) for k in st.query_params if k not in PRIVATE for v in st.query_params.get_all(k)
    ]
    return f"{base}?{urlencode(pairs)}" if pairs else base


_SHARE = "links.share.slots"  # (page, link slot, forms slot) of the share box last drawn
_FORMS = "links.share.forms"  # whether the view has a form (its caption in the box)


@st.fragment
def share_box(page: str) -> None:
    """A popover with the link to this view, with Streamlit's copy button (no HTML, no JS).

    app.py draws it before the page (hograd_ui/parts/links.py's ``checked_link``), so that a view that
    computes for long (a training with a progress bar) has it all along, and the page keeps
    its link current with :func:`refresh_share` whenever it writes a setting to the URL and
    once it is done. It is a fragment: opening it reruns only the box, which then shows the
    URL as it is (a fragment elsewhere, x0 on the derivatives page, may have changed it). A
    fragment's rerun never interrupts a run of the page in progress (Streamlit queues it
    behind that run), so opening the box during a training does not start the training again.
    """
    lang = _lang()
    ctx = get_script_run_ctx()
    if ctx is not None and not ctx.fragment_ids_this_run:
        st.session_state[_FORMS] = False  # a run of the page: it says again if it has a form
    with st.popover(
        tr("links.share", lang),
        icon=":material/link:",
        width="stretch",
        key="links.share",
        on_change="rerun",
    ):
        st.caption(tr("links.share.help", lang))
        slots = (page, st.empty(), st.empty())
    st.session_state[_SHARE] = slots
    _fill(*slots)


def _fill(page: str, link: object, forms: object) -> None:
    link.code(current_link(page), language=None, wrap_lines=True)
    if st.session_state.get(_FORMS):  # the view's settings in a form join it when submitted
        forms.caption(tr("links.forms.share", _lang()))
    else:
        forms.empty()


def refresh_share(forms: bool | None = None) -> None:
    """Show the URL as it is now in the share box drawn by this run (after the page wrote a
    setting to it); ``forms``: whether the view has a form, once the page knows.

    Not in another fragment's rerun: the box belongs to the full run, and opening it shows
    the URL as it is then."""
    if forms is not None:
        st.session_state[_FORMS] = forms
    ctx = get_script_run_ctx()
    slots = st.session_state.get(_SHARE)
    if ctx is None or ctx.fragment_ids_this_run or slots is None:
        return
    _fill(*slots)


# Presentation mode. A 1920x1080 projector image is about 3 m wide in a lecture hall, so
# one CSS pixel is about 1.6 mm on the screen. Body text at 26 px is a 4 cm em (capital
# letters about 2.9 cm), about 8 minutes of arc from 12 m, the back row of a 200-seat hall:
# letters of 5 arc minutes are the limit of normal sight, so that is about 1.6 times it.
# Headings 52 px, widget labels 24 px, code 22 px (monospace is wider, lines stay short).
# Metric values 48 px, on the value's own elements too: Streamlit draws some values as markdown,
# a <p> inside the value, which the 26 px rule for paragraphs (0,1,1) would otherwise size.
# Plotly figures are enlarged by hograd_ui/plotting.py (PROJECTOR_SCALE). Graphviz drawings
# keep Streamlit's label size (0.6 rem of 16 px, for which Graphviz sized the boxes) and are
# drawn at their own size (width="content", 1 pt = 4/3 px: 12.8 px text), zoomed here by
# 1.8 to 23 px text; one wider than the page shrinks to its width (max-width 100 %). Their
# screens fit by layout, not by shrinking: projected, the graph lab and the backward lab draw
# them left to right (and the flag lab's two one above the other), closer together
# (hograd_core/graph_dot.py's ``tight``); tests/e2e/test_slides_browser.py checks that their
# node text stays at 20 px or more.
# The row of buttons above a view's result (hograd_ui/parts/ui.py's present_row: settings,
# presets, the screens) and the tab labels at 20-22 px, like the switcher: they are handles,
# not what the room reads, and at 26 px the row took two or three lines.
# Vertical room: the gaps between elements and the title's padding are in rem, which the 26 px
# root makes 1.6 times Streamlit's; projected they go back to about Streamlit's pixels (16 px
# gaps; tabs 52 px tall, a wrapped second row of tabs right under the first), so the result below them and its chart (fitted to the room left on the screen:
# hograd_ui/parts/chart.js) lie wholly on the first 1920x1080 screen. Font sizes do not change.
# The page switcher stays: app.py draws Streamlit's navigation in the header (position "top")
# while the sidebar is hidden, its links at 22 px, and the Leave button at its right end (fixed
# there, above the header). Presets stay too (one click to a function).
# Hidden: the help icons ("?") beside labels and the pages' downloads, which the room does not
# need, and a drawing's pass-by-pass narration (hograd_ui/parts/narration.py: the room reads
# the drawing, whose name and description stay for a screen reader; on a student's own screen
# the narration is there), which pushed the flag lab's second drawing off the screen; never a control the lecturer needs: a button with help= is wrapped in a tooltip element
# too (stTooltipIcon holding the button), which stays, and so does the class's export.
# Text about a result drawn before it (hograd_ui/parts/frame.py's aside) comes under it: the
# result first on the screen.
# High contrast: black text on white, no grey captions, thicker focus outlines; white on the
# primary buttons' orange (5.2:1, black would be 4.1:1), but not on a disabled one, whose pale
# face keeps the black text (the last screen's Next was a blank white box).
PRESENTATION_CSS = """
<style>
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"],
[data-testid="stExpandSidebarButton"], [data-testid="stToolbarActions"],
[data-testid="stMainMenu"], [data-testid="stAppDeployButton"], [data-testid="stDecoration"],
[data-testid="stDownloadButton"]:not(.st-key-classroom-export *),
[data-testid="stTooltipIcon"]:not(:has([data-testid^="stBaseButton"])),
.hograd-narration {
  display: none !important; }
[data-testid="stHeader"] [data-testid="stTopNavLink"] *, [data-testid="stHeader"] a * {
  font-size: 22px !important; color: #000 !important; }
html { font-size: 26px !important; }
[data-testid="stMain"], [data-testid="stMain"] p, [data-testid="stMain"] li,
[data-testid="stMain"] label, [data-testid="stCaptionContainer"] * { color: #000 !important; }
[data-testid="stMain"] [data-testid^="stBaseButton-primary"]:not(:disabled) * {
  color: #fff !important; }
[data-testid="stMainBlockContainer"] { max-width: 100%; padding: 100px 2.5rem 3rem; }
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
[data-testid="stMain"] [data-testid="stMetricValue"],
[data-testid="stMain"] [data-testid="stMetricValue"] * { font-size: 48px !important; }
[role="tab"], [role="tab"] p { font-size: 22px !important; }
[class*="st-key-present-row"] button p, [class*="st-key-present-row"] [data-baseweb="select"] * {
  font-size: 20px !important; }
[class*="st-key-present-row"] button { min-height: 0; padding: 0.2rem 0.6rem; }
[data-testid="stMain"] input { font-size: 24px !important; color: #000 !important; }
[data-testid="stCode"] code span { color: #000 !important; }
[data-testid="stWidgetLabel"] code { font-size: 22px !important; }
[data-testid="stGraphVizChart"] svg text { font-size: 9.6px !important; }
[data-testid="stGraphVizChart"] svg { zoom: 1.8; }
.st-key-links-leave { position: fixed; top: 22px; right: 2.5rem; width: auto !important;
  z-index: 999991; }
.st-key-links-leave p { font-size: 22px !important; }
[data-testid="stTopNav"] { max-width: calc(100vw - 460px); margin-right: auto; }
*:focus-visible { outline: 4px solid #000 !important; }
[data-testid="stMain"] [data-testid="stVerticalBlock"] { gap: 0.6rem; }
[data-testid="stMain"] h1 { padding: 0.2rem 0 0.4rem; }
[data-testid="stTabs"] [role="tablist"] { row-gap: 0; }
[data-testid="stTabs"] [role="tab"] { height: 2rem; }
[data-testid="stTable"] thead th { position: sticky; top: 0; background: #fff; z-index: 1; }
[class*="st-key-frame-aside-"], :has(> [class*="st-key-frame-aside-"]) { order: 1; }
</style>
"""


# Every view, presentation mode or not: labels and values wrap onto a second line instead of
# ending in an ellipsis when their column is narrow (a 1366-pixel laptop at 125 % zoom is 1093
# CSS pixels wide; tests/e2e/test_layout_browser.py checks 1024). Streamlit cuts metric labels
# and values, page links, button and checkbox labels short: a cut label hides what a number or
# a button is, a cut value the answer ("not criti…"). A tab bar wider than the page wraps onto a
# second row: Streamlit's scrolls sideways, so the open tab's label was cut at the edge (the
# "why" page's seven tabs at 1440 px, and at 1920 px in presentation mode).
WRAP_CSS = """
<style>
[data-testid="stMetricLabel"] *, [data-testid="stMetricValue"] *, [data-testid="stPageLink"] *,
[data-testid^="stBaseButton"] *, [data-testid="stCheckbox"] [data-testid="stMarkdownContainer"] * {
  white-space: normal !important; text-overflow: clip !important; overflow: visible !important; }
[data-testid="stTabs"] [role="tablist"] { flex-wrap: wrap; overflow-x: visible !important; }
</style>
"""


def wrap_css() -> str:
    """The style that wraps long labels: a constant of this module, never built from user text."""
    return WRAP_CSS


def presentation_css() -> str:
    """The presentation-mode style: a constant of this module, never built from user text."""
    return PRESENTATION_CSS
