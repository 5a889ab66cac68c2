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
