"""What Streamlit leaves to the app for WCAG 2.1 AA (docs/accessibility.md).

- ``<html lang>``: Streamlit's page says ``lang="en"`` whatever the text; :func:`declare`
  sets it to the student's language on every run (a screen reader then reads Chinese as
  Chinese), through a component that draws nothing.
- The document's title names the page and the open tab (:func:`declare`, :func:`name_view`):
  Streamlit takes it from ``st.set_page_config(page_title=...)``, which may be called again
  later in a run.
- Scrollable code blocks and tables and Plotly's animation buttons (▶ Play) are reachable by
  keyboard (``a11y.js``): Streamlit's ``<pre>`` and a table's box (wider than a phone's
  screen) scroll but take no focus, and plotly.js draws its buttons as SVG groups that take
  none.
- Streamlit draws its icons as words in a font of ligatures; until that font has loaded they are
  words ("login", "double_arrow_right") beside the button's own text. :data:`CSS` keeps them
  transparent (their room kept, the page does not move) until ``a11y.js`` has seen the font
  load.
- :data:`CSS`: text at 4.5:1 or more where Streamlit's theme draws less (captions, drawn at
  60 % opacity, 3.88:1, and their code 3.03:1; the shortcut of a primary button 2.79:1; a
  disabled widget's label 2.29:1), and a focus ring at 3:1 or more on the page links
  (Streamlit shows a 15 %-alpha background only). The colours are constants here;
  tests/ui/test_palette.py computes their contrast.
- A Graphviz drawing is an image named and described from the graph it draws
  (:func:`graphviz`, the words from :func:`hograd_ui.graph_text.describe`): Streamlit's chart
  gives a screen reader the SVG's node ids (``p1_3``) and nothing else. A drawing that may be
  large scrolls in a box of its own at a readable text size, the box a named region that Tab
  reaches (``scroll``).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from hograd_ui.parts.present import present

__all__ = [
    "CAPTION",
    "CAPTION_CODE",
    "CSS",
    "DISABLED",
    "FOCUS",
    "LANG_TAGS",
    "PROJECTED_PX",
    "READABLE_PX",
    "declare",
    "graphviz",
    "name_view",
]

#: BCP 47 tags of the app's languages, as ``<html lang>`` states them.
LANG_TAGS = {"en": "en", "zh": "zh-Hans"}
#: Caption text (Streamlit's is #828180 on white, 3.88:1), inline code in a caption and the
#: focus ring of a link (on the sidebar's #f0f2f6 and on white).
CAPTION, CAPTION_CODE, FOCUS = "#5c5b5a", "#0b6e4f", "#b03a0a"
#: The label of a disabled widget (Streamlit's: 40 % alpha, 2.29:1): still dimmer than an
#: active label (#2f2d2b), but readable, since it says what the widget would do.
DISABLED = "#6b6a68"
SITE = "hograd"
#: px: the least node text of a drawing that scrolls in its box (:func:`graphviz`'s
#: ``scroll``) on a laptop or a phone: three quarters of Graphviz's own 13.6 px, about the
#: size of the smallest text phones' and desktops' interface guides allow (11 pt, 10-11 px);
#: projected, the projector's floor for drawings (hograd_ui/parts/present.py: 20 px, about 6
#: minutes of arc from a 200-seat hall's back row).
READABLE_PX, PROJECTED_PX = 10.0, 20.0
#: The most a scrolling drawing's box takes of the window's height off the projector (the
#: page itself still scrolls past it); projected, the box ends on the screen.
BOX_HEIGHT = 0.8

CSS = f"""<style>
[data-testid="stCaptionContainer"], [data-testid="stCaptionContainer"] p {{
  color: {CAPTION}; opacity: 1; }}
[data-testid="stCaptionContainer"] code {{ color: {CAPTION_CODE}; }}
label[data-testid="stWidgetLabel"][disabled] {{ color: {DISABLED}; }}
[data-testid="stBaseButton-primary"] kbd {{ color: #ffffff; opacity: 1; }}
a:focus-visible, [data-testid="stSidebarNavLink"]:focus-visible {{
  outline: 3px solid {FOCUS}; outline-offset: 1px; }}
html:not(.hograd-icons) [data-testid="stIconMaterial"] {{ color: transparent !important; }}
</style>"""

#: The page component's script: a page whose Streamlit front end broke loads itself again
#: (hograd_serving/recover.js, which the served page's head also runs: Community Cloud's
#: ``streamlit run app.py`` has no head of ours), then a11y.js.
_JS = "\n".join(
    line.strip()
    for text in (
        resources.files("hograd_serving").joinpath("recover.js").read_text("utf-8"),
        (Path(__file__).resolve().parent / "a11y.js").read_text("utf-8"),
    )
    for line in text.splitlines()
    if line.strip() and not line.strip().startswith("//")
)
_COMPONENT = st.components.v2.component("hograd_a11y", js=_JS, isolate_styles=False)
_DRAWING_JS = "\n".join(
    line.strip()
    for line in (Path(__file__).resolve().parent / "drawing.js").read_text("utf-8").splitlines()
    if line.strip() and not line.strip().startswith("//")
)
_DRAWING = st.components.v2.component("hograd_drawing", js=_DRAWING_JS, isolate_styles=False)
_PAGE = "app.a11y.page_title"  # the open page's title, for the tabs' titles


def _title(*parts: str) -> None:
    st.set_page_config(page_title=" · ".join([*parts, SITE]))


def declare(lang: str, page_title: str) -> None:
    """The document's language and title for the page ``page_title``; our constant CSS.

    Called once per run by app.py, after ``st.navigation``."""
    st.session_state[_PAGE] = page_title
    _title(page_title)
    st.html(CSS)  # our constant CSS, no user text
    with st.sidebar:  # draws nothing; in presentation mode the sidebar is hidden
        _COMPONENT(key="app.a11y.page", data={"lang": LANG_TAGS.get(lang, "en")})


def name_view(label: str) -> None:
    """The document's title names the open tab ``label`` too: "tab · page · hograd"."""
    page = st.session_state.get(_PAGE)
    _title(label, *([page] if page else []))


def graphviz(
    dot: str,
    said: tuple[str, str],
    *,
    key: str,
    where: DeltaGenerator | None = None,
    width: str = "content",
    slide: str | None = None,
    scroll: str | None = None,
) -> None:
    """Draw the DOT source ``dot`` (``st.graphviz_chart``) as an image named ``said[0]`` and
    described by ``said[1]`` (:func:`hograd_ui.graph_text.describe` of the drawn graph), in a
    container of its own in ``where`` (the current one if None). ``key``: unique on the page.
    ``slide``: the DOT drawn instead in presentation mode (the same graph laid out for the
    projector's screen, as a chart's ``projected=`` layout in hograd_ui/plotting.py), so the
    page never asks for the mode. ``scroll``: the name of the drawing's box, which then keeps
    its node text at :data:`READABLE_PX` or more (:data:`PROJECTED_PX` projected) and scrolls
    when the drawing is larger (``drawing.js``): it is shrunk to the column's width and the
    box's height (the room left on the projector's screen) only down to that size, and one
    whose nodes and edges fit the box's width loses the empty sides of its DOT strut
    (``min_width``) instead of scrolling sideways."""
    box = (where if where is not None else st).container()
    box.graphviz_chart(slide if slide is not None and present() else dot, width=width)
    data = {"name": said[0], "description": said[1]}
    if scroll is not None:
        projected = present()
        floor = PROJECTED_PX if projected else READABLE_PX
        data |= {"scroll": scroll, "floor": floor, "projected": projected, "height": BOX_HEIGHT}
    with box:
        _DRAWING(key=key, data=data)
