"""Share this view names the open tab and its settings (issue 36, finding 21): the box is drawn
before the page and follows every setting the page writes to the URL, so it is right while a
tab computes and when a view stops on a refused setting. tests/e2e/test_share_during_training
_browser.py opens it during a training in Chromium."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from hograd_ui.i18n import tr
from tests.app.test_links import open_link, query


def shared(at: AppTest, path: str) -> list[str]:
    """The links the share box shows (a relative one: AppTest has no server address)."""
    return [c.value for c in at.sidebar.code if c.value.startswith(path)]


def test_the_link_names_the_tab_opened_in_the_session() -> None:
    at = open_link("pages/why.py", {})
    assert shared(at, "/why") == ["/why?lang=en"]
    at.session_state["why.tab"] = (
        "stats"  # as the tab's click does (hograd_ui/parts/ui.py lazy_tabs)
    )
    at.run()
    assert query(at)["why.tab"] == "stats"
    assert shared(at, "/why") == ["/why?lang=en&why.tab=stats"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_link_names_a_forms_settings_once_run(lang: str) -> None:
    at = open_link("pages/why.py", {"why.tab": "stats"}, lang)
    at.slider(key="why.stats.steps").set_value(20)
    at.button(key="FormSubmitter:why.stats.form-" + tr("why.run", lang)).click().run()
    (link,) = shared(at, "/why")
    assert "why.tab=stats" in link and "why.stats.steps=20" in link


def test_a_view_stopped_on_a_refused_function_still_has_its_link() -> None:
    # the function box refuses f and stops the page: the box, drawn first, names the view
    at = open_link("pages/why.py", {"why.tab": "newton", "why.newton.fn": "x^2"})
    assert "expected a function of 2 variables, got 1" in " ".join(e.value for e in at.error)
    assert shared(at, "/why") == ["/why?lang=en&why.newton.fn=x%5E2"]  # newton: the default tab
