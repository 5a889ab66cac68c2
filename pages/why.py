"""Why gradients of gradients: one live experiment per tab, each with its runnable code.

A tab is a lab's page (hograd_labs/<lab>/page.py, see docs/architecture.md "How to add an
experiment"); a new experiment adds its lab and one entry in TABS.
"""

from collections.abc import Callable

import streamlit as st

from hograd_labs.curvature import page as curvature
from hograd_labs.hf import page as hf
from hograd_labs.maml import page as maml
from hograd_labs.newton import page as newton
from hograd_labs.pinn import page as pinn
from hograd_labs.stability import page as stability
from hograd_labs.stats import page as stats
from hograd_labs.wgan import page as wgan
from hograd_ui.parts.ui import folded, lazy_tabs, t

TABS: dict[str, tuple[str, Callable[[], None]]] = {
    "newton": ("newton.tab", newton.draw),
    "hf": ("hf.tab", hf.draw),
    "stability": ("stability.tab", stability.draw),
    "stats": ("stats.tab", stats.draw),
    "maml": ("maml.tab", maml.draw),
    "pinn": ("pinn.tab", pinn.draw),
    "wgan": ("wgan.tab", wgan.draw),
    "curvature": ("curvature.tab", curvature.draw),
}

st.title(t("why.title"))
with folded(t("present.text"), ":material/notes:"):  # projected: one button
    st.markdown(t("why.lead"))
tabs = lazy_tabs({name: t(key) for name, (key, _) in TABS.items()}, "why.tab")
for name, (_, draw) in TABS.items():
    if tabs[name].open:
        with tabs[name]:
            draw()
