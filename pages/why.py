"""Why gradients of gradients: one live experiment per tab, each with its runnable code.

A tab is a lab (hograd_labs/<lab>/, see docs/architecture.md "How to add an experiment") whose
declaration names its tab's view; a new experiment adds its lab, and its name on one line of
the import and one line of TABS below. Run by Streamlit, this file draws the page; imported
(pages/__init__.py), it only declares.
"""

from hograd_labs import (  # the registry, 1 of 2: the tab's lab
    curvature,
    hf,
    maml,
    newton,
    pinn,
    stability,
    stats,
    wgan,
)
from hograd_ui.lab import Lab

#: The tabs, in order: each lab's declaration (its ``title`` labels the tab, its
#: ``views["tab"]`` draws it).
TABS = (  # the registry, 2 of 2: its declaration, where its tab goes
    newton.LAB,
    hf.LAB,
    stability.LAB,
    stats.LAB,
    maml.LAB,
    pinn.LAB,
    wgan.LAB,
    curvature.LAB,
)
#: The page's own settings: the open tab; every tab's settings start with "why." too.
PAGE = Lab(__name__, prefixes=("why.",), url=("why.tab",))

if __name__ == "__main__":
    import streamlit as st

    from hograd_ui.parts.ui import folded, lazy_tabs, t

    st.title(t("why.title"))
    with folded(t("present.text"), ":material/notes:"):  # projected: one button
        st.markdown(t("why.lead"))
    tabs = lazy_tabs({lab.name: t(lab.title) for lab in TABS}, "why.tab")
    for lab in TABS:
        if tabs[lab.name].open:
            with tabs[lab.name]:
                lab.view("tab")()
