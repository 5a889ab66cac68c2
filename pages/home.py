"""Home: what hograd teaches, in a few lines, with the seed example run live."""

import streamlit as st

from hograd_core.derivative_budget import BUDGET, MAX_FD_ORDER
from hograd_labs.derivatives.seed import shown, x_cubed_at_2
from hograd_ui.parts.frame import Frame, aside
from hograd_ui.parts.ui import t

#: How far each method goes, from the constants that stop it (the texts never name a number).
ORDERS = {
    "taylor": BUDGET.max_order_taylor,
    "autograd": BUDGET.max_order_autograd,
    "fd": MAX_FD_ORDER,
}

st.title(t("home.title"))
st.markdown(t("home.lead", **ORDERS))
st.page_link("pages/lesson.py", label=t("home.lesson"), icon=":material/route:")


def example() -> None:
    """The seed example: x³'s first and second derivatives at 2, the lines shown run live
    (the page's result)."""
    with st.container(key="home.result"):
        st.header(t("home.example.title"))
        st.markdown(t("home.example.body"))
        st.code(shown(), language="python")
        first, second = x_cubed_at_2()  # the lines just shown, run now
        st.success(t("home.example.result", first=f"{first:g}", second=f"{second:g}"))


def cards() -> None:
    """A card for every page but the lesson, which has its own link above them."""
    lab_cards = (
        (
            "pages/derivatives.py",
            "app.page.derivatives",
            ":material/functions:",
            "home.derivatives",
        ),
        ("pages/graph.py", "app.page.graph", ":material/account_tree:", "home.graph"),
        ("pages/hvp.py", "app.page.hvp", ":material/3d_rotation:", "home.hvp"),
        ("pages/why.py", "app.page.why", ":material/lightbulb:", "home.why"),
        ("pages/backward.py", "backward.page", ":material/edit_note:", "home.backward"),
        ("pages/memory.py", "memory.page", ":material/memory:", "home.memory"),
        ("pages/code.py", "code.page", ":material/code:", "home.code"),
    )
    # Two cards a row: four in one row cut the pages' names short on a 1280-pixel screen.
    grid = [column for _ in range(0, len(lab_cards), 2) for column in st.columns(2)]
    grid = grid[: len(lab_cards)]  # an odd count leaves the last row half empty
    for column, (path, title, icon, body) in zip(grid, lab_cards, strict=True):
        with column.container(border=True, height="stretch"):
            st.page_link(path, label=t(title), icon=icon)
            st.markdown(t(body, **ORDERS) if body == "home.derivatives" else t(body))


# The cards, then the example; projected and on a phone the example comes first (an aside of
# the frame, hograd_ui/parts/frame.py): it is what the lecturer projects and a student opens.
with Frame("home").results:
    with aside("home.cards"):
        cards()
    example()

with st.expander(t("home.syntax.title")):
    st.markdown(t("home.syntax.body"))
