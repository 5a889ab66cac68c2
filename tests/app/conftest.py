"""AppTest helpers: run the real app.py router, switch to a page, in either language."""

from __future__ import annotations

from pathlib import Path

import pytest
import streamlit as st
import streamlit.testing.v1.app_test as app_test_module
from plotly.basedatatypes import BaseFigure
from streamlit.elements.plotly_chart import PlotlyMixin
from streamlit.runtime.pages_manager import PagesManager
from streamlit.testing.v1 import AppTest

from hograd_serving.patches import leave_pages_directory_mode
from hograd_ui.parts import chart as _chart
from hograd_ui.plotting import validated
from tests.apptest import APP_TEST_CEILING

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")


class _RouterPagesManager(PagesManager):
    """AppTest starts every run as on a fresh server, in Streamlit's old pages-directory mode
    (pages/ exists), where a run may execute a page file without app.py; hograd_ui/parts/ui.py then
    reruns through app.py, and AppTest drops the widget change of that run. A real server
    leaves that mode for good on its first run (the browser tests check a fresh server), so
    here every run starts as on a warmed-up server."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        leave_pages_directory_mode()  # as a warmed-up server has (hograd_serving/patches.py)


app_test_module.PagesManager = _RouterPagesManager

_plotly_chart = PlotlyMixin.plotly_chart


def _validating_plotly_chart(self, figure_or_data, *args, **kwargs):
    """Every chart any page draws under AppTest is first rebuilt with all of plotly's checks:
    the app builds its figures with validation off, for speed (hograd_ui/plotting.py). Every
    chart of the app, the 3-D surface too, is drawn by hograd_ui/parts/chart.py (checked by
    ``CHECK`` below); this keeps a figure drawn by st.plotly_chart checked as well."""
    if isinstance(figure_or_data, BaseFigure):
        validated(figure_or_data)
    return _plotly_chart(self, figure_or_data, *args, **kwargs)


PlotlyMixin.plotly_chart = _validating_plotly_chart  # containers: st.columns, st.tabs, ...
st.plotly_chart = _validating_plotly_chart.__get__(st._main)  # st.plotly_chart is bound at import
_chart.CHECK = (
    validated  # the 2-D charts (hograd_ui/parts/chart.py): the same checks, before drawing
)


def open_page(page: str | None = None, lang: str = "en") -> AppTest:
    """The app with ``lang`` chosen, switched to ``page`` (a path such as "pages/derivatives.py")."""
    at = AppTest.from_file(APP, default_timeout=APP_TEST_CEILING)
    at.query_params["lang"] = lang  # as a shared link would; the sidebar radio takes it up
    at.run()
    if page is not None:
        at.switch_page(page)
        at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.fixture()
def app():
    return open_page


def routes() -> list[tuple[str, str]]:
    """(page file, URL path) of every st.Page in app.py, read with ast (no regex guessing)."""
    import ast

    out = []
    for node in ast.walk(ast.parse((ROOT / "app.py").read_text())):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "Page":
            path = node.args[0].value
            url = next((k.value.value for k in node.keywords if k.arg == "url_path"), "")
            out.append((path, url))
    return out


@pytest.fixture(autouse=True)
def _background_answers_in_full(monkeypatch: pytest.MonkeyPatch):
    """A run waits for the finished answers of sympy's column and of nested autograd's
    thread, so that a test sees their columns whole (a server waits 0.025 s, then shows what it
    has and polls: tested on its own in test_derivatives_page.py and, with the browser's own
    polling, in tests/e2e)."""
    from hograd_labs.derivatives import cached

    monkeypatch.setattr(cached, "WAIT", 60.0)
