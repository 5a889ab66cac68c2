"""Graphviz drawings fitted to the first screen in presentation mode (issue 38).

The projector's CSS (hograd_ui/parts/present.py) draws every Graphviz drawing at 1.8 times its
size, 23 px node text. Laid out left to right and tight, the default views' drawings fit under
their controls at that size (tests/e2e/test_slides_browser.py checks them, and their text at
20 px or more). Other functions and orders give larger graphs: ``sin(x)*exp(-x**2)`` at order
2 has 47 nodes, 1518x501 pt, and no layout puts it under the controls at 20 px text. Such a
drawing is drawn smaller instead, as the room demands (``graph_fit.js``), so the whole graph,
its shape and its growth, is on the screen; its full-screen button shows it larger.

:func:`fit_graphs` is called once per run of a page in presentation mode (app.py); its
element draws nothing and sits in the sidebar, which the mode hides, so it takes no room.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

__all__ = ["fit_graphs"]

_JS = "\n".join(
    line.strip()
    for line in (Path(__file__).resolve().parent / "graph_fit.js").read_text("utf-8").splitlines()
    if line.strip() and not line.strip().startswith("//")
)
_COMPONENT = st.components.v2.component("hograd_graph_fit", js=_JS, isolate_styles=False)


def fit_graphs() -> None:
    """Mount the fitting script (once per page; a rerun fits again)."""
    with st.sidebar:
        _COMPONENT(key="present.graph_fit")
