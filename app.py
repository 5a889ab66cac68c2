"""hograd: the Higher-Order Gradient Lab. Router only: settings, language, navigation."""

import gc

import streamlit as st
import torch

from hograd_core import LANGUAGES
from hograd_core.derivatives import probe_in
from hograd_core.fresh import FORK_SERVER, probe_elsewhere
from pages._cached import AUTOGRAD, SYMPY
from pages._serving import (
    disable_nagle,
    script_slot,
    serve_static_gzipped,
    shorten_interpreter_turns,
)
from pages._ui import lang_from_query, routed, t

disable_nagle()  # once per process: each rerun's messages otherwise wait ~40 ms (pages/_serving.py)
serve_static_gzipped()  # once per process: 2.2 MB of JS per new browser becomes ~0.6 MB
shorten_interpreter_turns()  # a light run no longer waits 5 ms per lock hand-over behind a heavy one
SYMPY.start()  # sympy's own process (hograd_core/sympy_worker.py), warm before anyone types
AUTOGRAD.worker.start()  # the inspector's nested autograd (hograd_core/background.py)
FORK_SERVER.start()  # the torch helper the network page and the flag lab fork (hograd_core/fresh.py)
probe_in(probe_elsewhere)  # a big graph's autograd probe: in a fork, not in the server
# One thread per op: on a busy 2-core host torch's default pool makes small ops 5-100x slower,
# and every session of the class shares this process.
if torch.get_num_threads() != 1:
    torch.set_num_threads(1)
    gc.freeze()  # the imported modules never die: keep them out of every later GC pass

with script_slot(), routed():
    st.set_page_config(page_title="hograd", page_icon="assets/icon.png", layout="wide")

    if "lang" not in st.session_state:
        st.session_state["lang"] = lang_from_query()
    with st.sidebar:
        st.radio(
            t("app.language"), list(LANGUAGES), key="lang", format_func=LANGUAGES.__getitem__,
            horizontal=True,
        )  # fmt: skip
    st.query_params["lang"] = st.session_state["lang"]

    # url_path equals the file name: a deep link first seen by a fresh server resolves to the
    # same page in both of Streamlit's routing modes (see pages/_ui.py).
    PAGES = [
        st.Page("pages/home.py", title=t("app.page.home"), icon=":material/school:", default=True),
        st.Page(
            "pages/derivatives.py",
            title=t("app.page.derivatives"),
            icon=":material/functions:",
            url_path="derivatives",
        ),
        st.Page(
            "pages/graph.py",
            title=t("app.page.graph"),
            icon=":material/account_tree:",
            url_path="graph",
        ),
        st.Page(
            "pages/hvp.py", title=t("app.page.hvp"), icon=":material/3d_rotation:", url_path="hvp"
        ),
    ]
    st.navigation(PAGES).run()
