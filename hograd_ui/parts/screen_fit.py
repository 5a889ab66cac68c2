"""Drawings, tables and code fitted to the projector's first screen (issue 38).

The projector's CSS (hograd_ui/parts/present.py) draws every Graphviz drawing at 1.8 times its
size, 23 px node text, and tables at 26 px. The default views' drawings and tables fit under
their controls at that size (tests/e2e/test_slides_browser.py checks them, and a drawing's
text at 20 px or more). Other functions and orders make them larger: ``sin(x)*exp(-x**2)`` at
order 2 has a graph of 47 nodes, 1518x501 pt, that no layout puts under the controls at 20 px
text, and the derivatives inspector has a row per order, up to 31. ``screen_fit.js`` draws
such an element smaller, as the room demands:

- a drawing, until it ends on the screen: the whole graph, its shape and its growth, is there,
  and its full-screen button shows it larger;
- a table or a code block (a long transcript), down to 20 px text; the rest of a longer one
  scrolls inside its box.

:func:`fit_to_screen` is called once per run of a page in presentation mode (app.py); its
element draws nothing and sits in the sidebar, which the mode hides, so it takes no room.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

__all__ = ["fit_to_screen"]

_JS = "\n".join(
    line.strip()
    for line in (Path(__file__).resolve().parent / "screen_fit.js").read_text("utf-8").splitlines()
    if line.strip() and not line.strip().startswith("//")
)
_COMPONENT = st.components.v2.component("hograd_screen_fit", js=_JS, isolate_styles=False)


def fit_to_screen() -> None:
    """Mount the fitting script (once per page; a rerun fits again)."""
    with st.sidebar:
        _COMPONENT(key="present.screen_fit")
