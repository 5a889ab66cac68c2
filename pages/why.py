"""Why gradients of gradients: one live experiment per tab, each with its runnable code.

A tab is a module with a ``draw()``: a lab's page (hograd_labs/<lab>/page.py, see
docs/architecture.md "How to add an experiment") or hograd_ui/parts/why_*.py (what they share
is in hograd_ui/parts/why_common.py); a new experiment adds its lab and one entry in TABS.
"""

from collections.abc import Callable

import streamlit as st

from hograd_labs.curvature import page as curvature
from hograd_labs.maml import page as maml
from hograd_labs.pinn import page as pinn
from hograd_labs.stats import page as stats
from hograd_labs.wgan import page as wgan
from hograd_ui.parts import (
    why_hf,
    why_newton,
    why_stability,
)
from hograd_ui.parts.ui import folded, lazy_tabs, t

TABS: dict[str, tuple[str, Callable[[], None]]] = {
    "newton": ("why.tab.newton", why_newton.draw),
    "hf": ("why.tab.hf", why_hf.draw),
    "stability": ("why.tab.stability", why_stability.draw),
    "stats": ("stats.tab", stats.draw),
    # maml
    "maml": ("maml.tab", maml.draw),
    # pinn
    "pinn": ("pinn.tab", pinn.draw),
    # wgan
    "wgan": ("wgan.tab", wgan.draw),
    # curvature
    "curvature": ("curvature.tab", curvature.draw),
}

st.title(t("why.title"))
with folded(t("present.text"), ":material/notes:"):  # projected: one button (issue 38)
    st.markdown(t("why.lead"))
tabs = lazy_tabs({name: t(key) for name, (key, _) in TABS.items()}, "why.tab")
for name, (_, draw) in TABS.items():
    if tabs[name].open:
        with tabs[name]:
            draw()
