"""The derivatives page sets its widgets the way Streamlit asks: no widget is given a default
(``value=``) while its value is also set through ``st.session_state``.

Streamlit logs 'The widget with key "deriv.x0" was created with a default value but also had
its value set via the Session State API', with a stack trace, the first time a page does that
in a process (``streamlit.elements.lib.policies``). Each test here lets it speak again, opens
the page (fresh, or through a link) and moves what writes to the state (x0 kept inside the
range, the exact entry) and fails if the warning was logged.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from streamlit.elements.lib import policies

from tests.app.test_links import open_link

PAGE = "pages/derivatives.py"
WARNING = "was created with a default value but also had its value set via the Session State API"


@pytest.fixture()
def warnings_logged(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The messages Streamlit's widget policies log while the test runs. Streamlit logs the
    warning once per process (a module flag); the flag is reset so that it speaks for this
    test, whatever ran before."""
    monkeypatch.setattr(policies, "_shown_default_value_warning", False)
    seen: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(record.getMessage())

    handler = Keep(logging.WARNING)
    logger = logging.getLogger(policies.__name__)
    logger.addHandler(handler)
    try:
        yield seen
    finally:
        logger.removeHandler(handler)


def _duplicated(seen: list[str]) -> list[str]:
    return [m for m in seen if WARNING in m]


def test_a_fresh_page_and_its_reruns_log_no_state_warning(warnings_logged: list[str]) -> None:
    at = open_link(PAGE, {})
    assert at.slider(key="deriv.x0").value == 0.5
    assert "deriv.x0" not in at.query_params  # the default stays out of the link
    at.slider(key="deriv.order").set_value(5).run()  # a rerun: x0 kept inside the range
    assert _duplicated(warnings_logged) == []
    at.slider(key="deriv.range").set_value((-2.0, 3.0)).run()  # x0 = 0.5 stays inside
    assert at.slider(key="deriv.x0").value == 0.5
    at.slider(key="deriv.range").set_value((1.0, 3.0)).run()  # x0 = 0.5 moves to 1
    assert at.slider(key="deriv.x0").value == 1.0
    assert at.query_params["deriv.x0"] == "1"
    at.text_input(key="deriv.x0.exact").set_value("2").run()  # the exact entry sets x0
    assert at.slider(key="deriv.x0").value == 2.0
    assert at.query_params["deriv.x0"] == "2"
    assert not at.exception, [e.value for e in at.exception]
    assert _duplicated(warnings_logged) == []


def test_a_link_with_x0_opens_it_and_logs_no_state_warning(warnings_logged: list[str]) -> None:
    at = open_link(PAGE, {"deriv.x0": "1.2", "deriv.fn": "tanh(x)", "deriv.order": "6"})
    assert at.slider(key="deriv.x0").value == 1.2
    assert at.text_input(key="deriv.fn").value == "tanh(x)"
    at.slider(key="deriv.order").set_value(5).run()
    assert at.slider(key="deriv.x0").value == 1.2  # a rerun keeps the link's x0
    at.slider(key="deriv.range").set_value((-3.0, 1.0)).run()  # x0 = 1.2 moves to 1
    assert at.slider(key="deriv.x0").value == 1.0
    at.slider(key="deriv.x0").set_value(-3.0).run()  # the range's low end: still in the link
    assert at.query_params["deriv.x0"] == "-3"
    assert not at.exception, [e.value for e in at.exception]
    assert _duplicated(warnings_logged) == []
