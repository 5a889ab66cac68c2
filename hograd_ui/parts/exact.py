"""An exact entry beside sliders: a text box that sets them to a typed point.

A slider moves on a grid (x₀ on the derivatives page steps by (high − low)/200 from low, so
from −3 it goes 1.98 → 2.01 and never hits 2); the point a lesson or a lecture names (x₀ = 2,
p = (1, π/2)) is typed here instead, read by hograd_core.typed_numbers (both minus signs,
full-width digits, constants such as pi/2), checked against the sliders' bounds and written
into the sliders' state, so the link and every view follow. The box empties itself after a
point is taken; its placeholder shows the point in use.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from hograd_core import HogradError
from hograd_core.typed_numbers import MAX_CHARS, read_point, show_numbers
from hograd_ui.i18n import error_text, tr
from hograd_ui.parts.ui import lang, t

__all__ = ["exact_entry"]


def _take(box: str, targets: tuple[str, ...], low: float, high: float) -> None:
    """The box's callback: the typed point into the sliders, or the reason it was not taken.
    (``tr``, not ``t``: a callback must not trigger the rerun through app.py that ``t`` may.)"""
    message, typed = f"{box}.message", st.session_state.get(box)
    try:
        point = read_point(typed, len(targets))
    except HogradError as err:
        st.session_state[message] = ("error", typed, error_text(err, lang()))
        return
    if point is None:
        st.session_state.pop(message, None)
        return
    if not all(low <= v <= high for v in point):
        text = tr(
            "exact.range", lang(), value=show_numbers(point), low=f"{low:g}", high=f"{high:g}"
        )
        st.session_state[message] = ("error", typed, text)
        return
    for key, value in zip(targets, point, strict=True):
        st.session_state[key] = value
    st.session_state[box] = ""
    st.session_state[message] = ("set", point, tr("exact.set", lang(), value=show_numbers(point)))


def exact_entry(
    box: str,
    label: str,
    targets: Sequence[str],
    low: float,
    high: float,
    current: Sequence[float],
    container: DeltaGenerator | None = None,
) -> None:
    """A text box that sets the sliders ``targets`` (session-state keys) to a typed point.

    Args:
        box: the box's widget key ("page.x0.exact").
        label: its label.
        targets: the keys of the sliders it sets, one per component.
        low, high: the sliders' bounds; a point outside is refused with a message.
        current: the point in use, shown as the placeholder.
        container: where to draw (the main area by default).
    """
    where = container if container is not None else st.container()
    where.text_input(
        label,
        key=box,
        max_chars=MAX_CHARS,
        placeholder=show_numbers(tuple(current)),
        help=t("exact.help", low=f"{low:g}", high=f"{high:g}"),
        on_change=_take,
        args=(box, tuple(targets), low, high),
    )
    # a message stays while it is about what is on screen: the refused text still in the box,
    # or the point taken still in the sliders (a slider moved since makes it stale)
    said = st.session_state.get(f"{box}.message")
    if said is None:
        return
    kind, about, text = said
    if kind == "error" and st.session_state.get(box) == about:
        where.error(text, icon=":material/error:")
        where.caption(t("app.error.you_typed"))
        where.code(str(about), language=None)  # the learner's text: as code, never markdown
    elif kind == "set" and tuple(current) == about:
        where.caption(text)
