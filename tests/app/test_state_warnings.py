"""What sets a widget's value from code (an example's pill, the HVP page's Reset, its exact
point, the κ builder) logs no "created with a default value but also had its value set via
the Session State API" (issue 37), and still sets the value and the link.

Streamlit logs that warning, with a stack trace, for a widget given a default (``value=``) in a
run where code set its value through ``st.session_state``; once per process (a module flag,
reset here so each test sees its own). tests/e2e/test_state_warnings_browser.py tours a real
server; this is the fast check of the same controls.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterator

import pytest
from streamlit.elements.lib import policies

from tests.app.test_links import open_link, query

WARNING = "also had its value set via the Session State API"


@pytest.fixture
def logged(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The warnings Streamlit's widget policies log while the test runs."""
    monkeypatch.setattr(policies, "_shown_default_value_warning", False)
    messages: list[str] = []
    handler = logging.Handler(logging.WARNING)
    handler.emit = lambda record: messages.append(record.getMessage())  # type: ignore[method-assign]
    policies._LOGGER.addHandler(handler)
    try:
        yield messages
    finally:
        policies._LOGGER.removeHandler(handler)


def _ok(at) -> None:
    assert not at.exception, [e.value for e in at.exception]


#: (page, query, the function box's key, the pill to click): every page with the function box
BOXES = [
    ("pages/derivatives.py", {}, "deriv", "tanh(x)"),
    ("pages/graph.py", {}, "graph", "tanh(x)"),
    ("pages/hvp.py", {}, "hvp", "x^2 - y^2"),
    ("pages/why.py", {"why.tab": "newton"}, "why.newton", None),
    ("pages/why.py", {"why.tab": "curvature"}, "why.curv", None),
]


@pytest.mark.parametrize(("page", "link", "box", "pick"), BOXES, ids=[b[2] for b in BOXES])
def test_an_example_pill_sets_the_function_without_a_warning(
    page: str, link: dict[str, str], box: str, pick: str | None, logged: list[str]
) -> None:
    at = open_link(page, link)
    pills = at.pills(key=f"{box}.preset")
    first, choice = pills.options[0], pick or pills.options[1]
    choice = choice.replace("\\*", "*")  # an option as shown is markdown-escaped
    assert at.text_input(key=f"{box}.fn").value == first.replace("\\*", "*")
    assert f"{box}.fn" not in query(at)  # the first example: out of the link
    pills.set_value(choice).run()  # the pill's value: the example as typed
    _ok(at)
    assert at.text_input(key=f"{box}.fn").value == choice
    assert query(at)[f"{box}.fn"] == choice  # the link names the example
    assert [m for m in logged if WARNING in m] == []
    at.text_input(key=f"{box}.fn").set_value("x**2 + 1" if box != "hvp" else "x**2 + y**2").run()
    _ok(at)  # typed after a preset: the typed text counts
    assert query(at)[f"{box}.fn"] in ("x**2 + 1", "x**2 + y**2")
    assert [m for m in logged if WARNING in m] == []


def test_the_backward_examples_set_both_formulas_without_a_warning(logged: list[str]) -> None:
    at = open_link("pages/backward.py", {})
    pills = at.pills(key="backward.preset")
    pills.set_value(pills.options[1].replace("\\*", "*")).run()
    _ok(at)
    f, b = at.text_input(key="backward.f").value, at.text_input(key="backward.b").value
    assert pills.options[1].replace("\\*", "*").startswith(f)  # "f  ·  b", as typed
    assert query(at)["backward.f"] == f and query(at)["backward.b"] == b
    assert [m for m in logged if WARNING in m] == []


def test_the_hvp_controls_set_p_without_a_warning(logged: list[str]) -> None:
    at = open_link("pages/hvp.py", {})
    start = (at.slider(key="hvp.p.w1").value, at.slider(key="hvp.p.w2").value)
    assert start == (1.0, pytest.approx(math.pi / 2))
    at.text_input(key="hvp.p.exact").set_value("0.5, -1").run()  # the exact point
    _ok(at)
    assert (at.slider(key="hvp.p.w1").value, at.slider(key="hvp.p.w2").value) == (0.5, -1.0)
    assert query(at)["hvp.p.w1"] == "0.5" and query(at)["hvp.p.w2"] == "-1"
    at.slider(key="hvp.radius").set_value(3.0).run()
    assert query(at)["hvp.radius"] == "3"
    at.button[[b.label for b in at.button].index("Reset p and v")].click().run()  # Reset
    _ok(at)
    assert (at.slider(key="hvp.p.w1").value, at.slider(key="hvp.radius").value) == (1.0, 1.5)
    assert not any(k.startswith(("hvp.p.", "hvp.radius")) for k in query(at))  # the example's
    at.button(key="hvp.kappa.use").click().run()  # κ builder: a new f, its example's p and v
    _ok(at)
    assert query(at)["hvp.fn"] == at.text_input(key="hvp.fn").value != "w1**2*sin(w2)"
    assert [m for m in logged if WARNING in m] == []


def test_the_graph_pass_buttons_and_exact_x0_set_them_without_a_warning(
    logged: list[str],
) -> None:
    at = open_link("pages/graph.py", {})
    assert (at.slider(key="graph.order").value, at.number_input(key="graph.x0").value) == (2, 0.7)
    at.button(key="graph.next").click().run()  # a pass more: the order through the state
    _ok(at)
    assert at.slider(key="graph.order").value == 3 and query(at)["graph.order"] == "3"
    at.button(key="graph.prev").click().run()
    assert at.slider(key="graph.order").value == 2 and "graph.order" not in query(at)
    at.text_input(key="graph.x0.exact").set_value("1/4").run()  # x0 typed exactly
    _ok(at)
    assert at.number_input(key="graph.x0").value == 0.25 and query(at)["graph.x0"] == "0.25"
    assert [m for m in logged if WARNING in m] == []
