"""AppTest helpers: run the real app.py router, switch to a page, in either language."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")


def open_page(page: str | None = None, lang: str = "en") -> AppTest:
    """The app with ``lang`` chosen, switched to ``page`` (a path such as "pages/derivatives.py")."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["lang"] = lang
    at.run()
    if page is not None:
        at.switch_page(page)
        at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.fixture()
def app():  # noqa: ANN201
    return open_page
