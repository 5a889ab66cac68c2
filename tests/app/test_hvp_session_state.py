"""Opening the HVP page, fresh or through a link (every setting it can carry), logs no
"The widget with key ... was created with a default value but also had its value set via the
Session State API" (Streamlit logs it, with a stack trace, for a widget given a ``value=`` and
a value set through ``st.session_state`` in the same run), and the link opens its view."""

from __future__ import annotations

import logging
import math
from collections.abc import Iterator

import pytest
from streamlit.elements.lib import policies

from tests.app.test_links import open_link, query

#: a link for each mode with every setting it can carry (the network's form fields too)
TYPED = {
    "hvp.fn": "x**2 + 3*y**2",
    "hvp.p.x": "1.5",
    "hvp.p.y": "-0.25",
    "hvp.v.y": "-0.5",
    "hvp.radius": "2.5",
    "hvp.kappa": "100",
    "hvp.tab": "power",
}
NETWORK = {
    "hvp.mode": "network",
    "hvp.net.dataset": "moons",
    "hvp.net.layers": "2",
    "hvp.net.width": "8",
    "hvp.net.steps": "100",
    "hvp.net.seed": "3",
    "hvp.net.top_k": "2",
    "hvp.net.power": "10",
    "hvp.net.probes": "20",
    "hvp.net.tab": "trace",
}


@pytest.fixture
def logged(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Streamlit's warnings about widget state, as logged (it logs one once per process: the
    flag is reset so each test sees its own)."""
    monkeypatch.setattr(policies, "_shown_default_value_warning", False)
    messages: list[str] = []
    handler = logging.Handler(logging.WARNING)
    handler.emit = lambda record: messages.append(record.getMessage())  # type: ignore[method-assign]
    policies._LOGGER.addHandler(handler)
    try:
        yield messages
    finally:
        policies._LOGGER.removeHandler(handler)


def test_a_fresh_visit_logs_no_session_state_warning(logged: list[str]) -> None:
    at = open_link("pages/hvp.py", {})
    assert [at.session_state[f"hvp.p.{n}"] for n in ("w1", "w2")] == [1.0, math.pi / 2]
    at.slider(key="hvp.p.w1").set_value(0.5).run()
    assert not at.exception and at.session_state["hvp.v.w1"] == 0.5
    assert logged == []


@pytest.mark.parametrize("link", [TYPED, NETWORK], ids=["typed", "network"])
def test_a_link_opens_its_view_without_a_session_state_warning(
    link: dict[str, str], logged: list[str]
) -> None:
    at = open_link("pages/hvp.py", link)
    for key, value in link.items():
        got = at.session_state[key]
        assert str(got) == value or got == pytest.approx(float(value)), key
    assert query(at) == link  # the link the view writes back: the same settings
    assert logged == []


def test_a_link_to_the_sliders_low_ends_opens_them() -> None:
    """The sliders' lowest values are values like any other (a bound slider's default is its
    ``value=``, the example's, which a link then need not name)."""
    link = {"hvp.p.w1": "-3", "hvp.v.w2": "-2", "hvp.radius": "0.25", "hvp.p.w2": "0.5"}
    at = open_link("pages/hvp.py", link)
    assert [at.session_state[k] for k in link] == [-3.0, -2.0, 0.25, 0.5]
    assert at.table[0].value.iloc[0].tolist()[1:] == ["-3", "0.5"]  # the point it computed at
