"""A drawing told in words, step by step, with the keyboard (WCAG 1.1.1, 2.1.1).

:func:`narration` draws a narration (a lab writes its steps: ``(title, text)`` pairs, from the
data its drawing is made of) as a group named by its title: Previous and Next buttons that Tab
reaches and Enter or Space press (the arrow keys step too, inside the group), the current step
in a polite live region, so a screen reader reads each new step as it is chosen, and every
step in order in a list folded under a summary. It is drawn in the browser
(``narration.js``): stepping sends nothing to the server and starts no rerun.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import streamlit as st

__all__ = ["narration"]

_JS = "\n".join(
    line.strip()
    for line in (Path(__file__).resolve().parent / "narration.js").read_text("utf-8").splitlines()
    if line.strip() and not line.strip().startswith("//")
)
_COMPONENT = st.components.v2.component("hograd_narration", js=_JS, isolate_styles=False)


def narration(
    title: str,
    steps: Sequence[tuple[str, str]],
    *,
    labels: tuple[str, str, str],
    key: str,
    where: object | None = None,
) -> None:
    """Draw ``steps`` (``(title, text)`` each, in order) under the name ``title``.

    Args:
        title: the group's accessible name.
        steps: what each step says; at least one.
        labels: the words of the Previous and Next buttons and of the folded list's summary.
        key: the element's key (unique on the page).
        where: a container to draw into (the current one if None).
    """
    if not steps:
        return
    data = {
        "title": title,
        "steps": [list(s) for s in steps],
        "labels": dict(zip(("prev", "next", "all"), labels, strict=True)),
    }
    if where is not None:
        with where:
            _COMPONENT(key=key, data=data)
        return
    _COMPONENT(key=key, data=data)
