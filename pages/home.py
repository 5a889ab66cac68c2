"""Home: what hograd teaches, in a few lines, with the seed example run live."""

import streamlit as st

from hograd_core import derivatives, parse
from pages._ui import t

st.title(t("home.title"))
st.markdown(t("home.lead"))

with st.container(border=True):
    st.page_link(
        "pages/derivatives.py", label=t("app.page.derivatives"), icon=":material/functions:"
    )
    st.markdown(t("home.derivatives"))

st.subheader(t("home.example.title"))
left, right = st.columns([1, 1], gap="large")
with left:
    st.markdown(t("home.example.body"))
    values = derivatives(parse("x**3"), [2.0], 2).values[:, 0]
    st.success(t("home.example.result", first=f"{values[1]:g}", second=f"{values[2]:g}"))
with right:
    st.code(
        "x = torch.tensor(2.0, requires_grad=True)\n"
        "y = x**3\n"
        "dy = torch.autograd.grad(y, x, create_graph=True)[0]\n"
        "d2y = torch.autograd.grad(dy, x)[0]",
        language="python",
    )

with st.expander(t("home.syntax.title")):
    st.markdown(t("home.syntax.body"))
