"""What the tabs of "Why gradients of gradients" share: number formats, the progress caption,
the forms' radios keyed per language, a small network's widgets (pages/why.py's tabs)."""

from __future__ import annotations

import streamlit as st

from hograd_core.network import DATASETS
from hograd_ui.parts.link_form import LinkedForm
from hograd_ui.parts.ui import folded, lang, t
from hograd_ui.plot_kit import finite_or_dash

KAPPAS = [1, 2, 5, 10, 100, 1000]  # condition numbers of the quadratic bowls
WIDTHS = (4, 8, 16, 32, 64)  # hidden widths the forms offer
#: each data set's name in the forms (hograd_core.network.DATASETS)
DATASET_KEYS = {"digits": "net.dataset.digits", "moons": "net.dataset.moons"}


def num(x: float, digits: int = 4) -> str:
    return finite_or_dash(float(x), digits)


def caption(done: int, total: int) -> str:
    return t("progress.running", done=done, total=total)


def form_radio(label: str, options: dict[str, str], key: str, default: str) -> str:
    """A radio inside a form (no callbacks there), keyed per language so the browser keeps the
    choice when the labels change; ``key`` holds the choice between languages (and the link's
    value, which the form's ``seed`` put there)."""
    widget = f"{key}.{lang()}"
    if widget not in st.session_state:
        st.session_state[widget] = st.session_state.get(key, default)
    value = st.radio(
        label, list(options), key=widget, format_func=options.__getitem__, horizontal=True
    )
    # st.radio returns text it does not know as it came (a modified client's): not an option
    return value if value in options else st.session_state.get(key, default)


def keep(key: str, value: object) -> None:
    """Remember a form radio's choice for the other language and for the link (after the
    form is drawn: inside a form the radio's value changes only when Run is pressed)."""
    st.session_state[key] = value


def network_widgets(form: LinkedForm, prefix: str) -> tuple[str, tuple]:
    """A small network's data set, depth and width in ``form`` (keys ``prefix.data``,
    ``.layers``, ``.width``); returns the data set and the hidden widths."""
    data = form_radio(
        t("net.dataset"),
        {d: t(DATASET_KEYS[d]) for d in DATASETS},
        f"{prefix}.data",
        form.fields[f"{prefix}.data"].default,
    )
    depth, width = form.row(
        {f"{prefix}.layers": t("net.layers"), f"{prefix}.width": t("net.width")}
    )
    return data, (width,) * depth


def step_slider(label: str, steps: object, key: str, row: object) -> int:
    """A slider over a run's recorded ``steps`` (the last one first), folded into ``row``
    when projected; the index of the chosen step. ``key`` is suffixed with the last step, so
    a new run starts at its own last step."""
    steps = [int(s) for s in steps]
    with folded(label, ":material/timeline:", row):
        at = st.select_slider(label, steps, value=steps[-1], key=f"{key}.{steps[-1]}")
    return steps.index(at)
