"""One frame draws a lab's view for a laptop, a projector and a phone; the page never asks
which.

A view is its lead (what it is about), its controls (the widgets that change it) and its
screens: an ordered ``{name: (label, draw)}``, each ``draw()`` drawing one result (a chart, a
graph, the numbers the lecturer talks about). The frame draws them

- on a laptop: the lead, the controls, then every screen one below the other, each under its
  label as a header;
- projected (presentation mode): the lead and the controls folded into one row of buttons
  (hograd_ui/parts/ui.py's ``present_row``/``folded``), one screen at a time with Previous/Next
  (PageUp/PageDown) and the open screen in the link, ``?<key>=<name>`` (``slides``); no
  headers, the row's list names the screen;
- on a phone (a window at most :data:`PHONE_PX` wide): the screens first, then the controls
  folded in an expander, then the lead. The document is the laptop's, in the laptop's
  order; only the frame's CSS (:data:`FRAME_CSS`) reorders it at narrow widths, and
  ``frame.js`` folds the controls' expander there. The server cannot know the width of the
  window before it draws (Streamlit sends no viewport), and a page that asked would draw
  twice.

Each screen sits in a container keyed ``<key>.screen.<name>`` (``st-key-<key>-screen-<name>``
in the document), which the browser tests find it by.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import streamlit as st

from hograd_ui.parts.links import present
from hograd_ui.parts.ui import folded, present_row, slides, t

__all__ = ["FRAME_CSS", "PHONE_PX", "Frame", "Screens"]

#: A screen's translated label and the function that draws it.
Screens = Mapping[str, tuple[str, Callable[[], None]]]

#: px: the widest window drawn as a phone (result first). Phones are 320-430 CSS px wide in
#: portrait; a tablet in portrait (768) keeps the laptop's order, as Streamlit's own columns
#: stack below 640 px.
PHONE_PX = 640

# The frame's container holds its parts in the document's order: lead, controls, screens.
# A Streamlit container is a flex column, each child wrapped in an element or layout
# container; `order` on those wrappers reorders what is shown without touching the document
# (a screen reader and the keyboard follow the document: lead, controls, result).
# Wider than a phone, the controls' expander is drawn open and flat, without its header: the
# laptop's page, controls in place.
FRAME_CSS = f"""
<style>
@media (max-width: {PHONE_PX}px) {{
  [class*="st-key-frame-"] > :has(> [class*="st-key-frame-screens-"]),
  [class*="st-key-frame-"] > [class*="st-key-frame-screens-"] {{ order: 1; }}
  [class*="st-key-frame-"] > :has(> [class*="st-key-frame-controls-"]),
  [class*="st-key-frame-"] > [class*="st-key-frame-controls-"] {{ order: 2; }}
  [class*="st-key-frame-"] > :has(> [class*="st-key-frame-lead-"]),
  [class*="st-key-frame-"] > [class*="st-key-frame-lead-"] {{ order: 3; }}
}}
@media (min-width: {PHONE_PX + 1}px) {{
  [class*="st-key-frame-controls-"] [data-testid="stExpander"] details {{ border: none; }}
  [class*="st-key-frame-controls-"] [data-testid="stExpander"] summary {{ display: none; }}
  [class*="st-key-frame-controls-"] [data-testid="stExpanderDetails"] {{
    padding: 0; border-top: none; }}
}}
</style>
"""

_JS = "\n".join(
    line.strip()
    for line in (Path(__file__).resolve().parent / "frame.js").read_text("utf-8").splitlines()
    if line.strip() and not line.strip().startswith("//")
)
_COMPONENT = st.components.v2.component("hograd_frame", js=_JS, isolate_styles=False)


class Frame:
    """One view of a lab, drawn for whatever shows it (see the module's docstring).

    Use it top to bottom, as a page reads::

        view = Frame("memory")
        with view.lead():
            st.markdown(t("memory.lead"))
        with view.controls():
            config = settings()
        view.screens({"orders": (t("memory.orders.title"), lambda: orders(run))}, "memory.screen")

    ``name`` is unique among the frames a page draws (it keys their containers).
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self.projected = present()
        self.row = present_row(name)  # projected, the row of buttons; else an empty container
        box = st.container(key=f"frame.{name}")
        box.html(FRAME_CSS)  # our constant CSS, no user text
        # the three parts in the document's order, filled as the page reaches them
        self._lead = box.container(key=f"frame.lead.{name}")
        self._controls = box.container(key=f"frame.controls.{name}")
        self.results = box.container(key=f"frame.screens.{name}")
        """Where the screens are drawn: what all of them share (a caption) goes in here too."""
        if not self.projected:
            with st.sidebar:  # draws nothing: folds the controls on a phone
                _COMPONENT(key=f"frame.fold.{name}", data={"phone": PHONE_PX})

    @contextmanager
    def lead(self) -> Iterator[None]:
        """What the view is about: in place on a laptop, in the row's Explanation projected,
        under the result on a phone."""
        with self._lead, folded(t("present.text"), ":material/notes:", self.row):
            yield

    @contextmanager
    def controls(self) -> Iterator[None]:
        """The widgets that change the view: in place on a laptop, folded into the row's
        Settings projected, folded in an expander under the result on a phone."""
        with self._controls:
            if self.projected:
                with folded(t("present.controls"), ":material/tune:", self.row):
                    yield
            else:
                with st.expander(t("present.controls"), expanded=True, icon=":material/tune:"):
                    yield

    def screens(self, screens: Screens, key: str, box: str | None = None) -> None:
        """Draw the view's screens: every one stacked, or the open one projected (``key``:
        the open screen's session key and link parameter, ``?<key>=<name>``; ``box``: the
        prefix of each screen's container key, ``<box>.<name>``, ``key`` if None)."""
        shown = slides({name: label for name, (label, _) in screens.items()}, key, self.row)
        with self.results:
            for name, (label, draw) in screens.items():
                if shown[name]:
                    with st.container(key=f"{box or key}.{name}"):
                        if not self.projected:  # projected, the row's list names it
                            st.header(label)
                        draw()
