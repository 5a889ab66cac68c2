"""Why gradients of gradients: one live experiment per tab, each with its runnable code.

A tab is a module with a ``draw()`` (pages/_why_*.py; what they share is in
pages/_why_common.py); a new application adds its module and one entry in TABS.
"""

from collections.abc import Callable

import streamlit as st

from pages import _why_hf, _why_maml, _why_newton, _why_pinn, _why_stability, _why_stats, _why_wgan
from pages._ui import lazy_tabs, t

TABS: dict[str, tuple[str, Callable[[], None]]] = {
    "newton": ("why.tab.newton", _why_newton.draw),
    "hf": ("why.tab.hf", _why_hf.draw),
    "stability": ("why.tab.stability", _why_stability.draw),
    "stats": ("why.tab.stats", _why_stats.draw),
    # maml
    "maml": ("maml.tab", _why_maml.draw),
    # pinn
    "pinn": ("pinn.tab", _why_pinn.draw),
    # wgan
    "wgan": ("wgan.tab", _why_wgan.draw),
}

st.title(t("why.title"))
st.markdown(t("why.lead"))
tabs = lazy_tabs({name: t(key) for name, (key, _) in TABS.items()}, "why.tab")
for name, (_, draw) in TABS.items():
    if tabs[name].open:
        with tabs[name]:
            draw()
