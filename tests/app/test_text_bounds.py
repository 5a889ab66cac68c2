"""Every text box has a length bound that fits its content, and a point or vector longer than
its function's variables need is refused with a message, typed or from a link (issue 35,
finding 3)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from hograd_core.hessian import numbers_limit
from hograd_core.language import LIMITS
from hograd_ui.i18n import tr
from tests.app.conftest import APP
from tests.app.test_graph_several import several
from tests.apptest import APP_TEST_CEILING

ROOT = Path(__file__).resolve().parents[2]
BOXES = ("text_input", "text_area", "chat_input")


def text_box_calls() -> list[tuple[str, int, ast.Call]]:
    """Every call of a text box in the app's code (pages/, the labs, hograd_ui/ and its
    parts, app.py), read with ast."""
    files = [
        ROOT / "app.py",
        *sorted((ROOT / "pages").glob("*.py")),
        *sorted((ROOT / "hograd_labs").rglob("*.py")),
        *sorted((ROOT / "hograd_ui").rglob("*.py")),
    ]
    out = []
    for path in files:
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) in BOXES:
                out.append((path.name, node.lineno, node))
    return out


def test_every_text_box_in_the_code_has_max_chars() -> None:
    calls = text_box_calls()
    assert len(calls) >= 3  # the function box, the point and the vector
    missing = [
        (f, line) for f, line, call in calls if "max_chars" not in {k.arg for k in call.keywords}
    ]
    assert missing == []


def test_the_boxes_hold_what_their_content_needs() -> None:
    at = several()
    # a few times what the core accepts: a paste a little over it still gets the message
    # (the browser drops a longer paste without a word), and no more ever reaches the page
    assert at.text_input(key="graph.fn").max_chars == 5 * LIMITS.max_length
    for key in ("graphvars.point", "graphvars.vector"):
        assert at.text_input(key=key).max_chars == 5 * numbers_limit(LIMITS.max_variables)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("key", ["graphvars.point", "graphvars.vector"])
def test_a_long_point_or_vector_is_refused_with_a_message(lang: str, key: str) -> None:
    at = several(lang)
    text = ("pi," * 300)[: 2 * numbers_limit(LIMITS.max_variables)]  # within the box's bound
    box = at.text_input(key=key)
    box.input(text).run()  # as the browser types or pastes it (refused above max_chars)
    assert box.value == text
    assert not at.exception
    what = "point" if key.endswith("point") else "vector"
    says = tr("budget.numbers_too_long", lang, what=what, each=40, limit=84, got=f"{len(text):,}")
    assert says in [e.value for e in at.error]
    assert len(at.get("graphviz_chart")) == 1  # only the one-variable case's drawing


def open_link(**params: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=APP_TEST_CEILING)
    for name, value in params.items():
        at.query_params[name] = value
    at.switch_page("pages/graph.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_a_link_with_a_long_point_is_refused_with_the_message() -> None:
    text = "1," * 100  # longer than two numbers need, within what the box holds
    at = open_link(**{"graph.fn": "x*y", "graphvars.point": text})
    assert at.text_input(key="graphvars.point").value == text
    says = tr("budget.numbers_too_long", "en", what="point", each=40, limit=84, got="200")
    assert says in [e.value for e in at.error]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("key", ["graphvars.point", "graphvars.vector", "graph.fn"])
def test_a_link_longer_than_its_box_is_refused_whole(key: str, lang: str) -> None:
    """Streamlit cuts a bound box's link value to max_chars; the page must not compute with
    the cut text (x+x+...+x cut is still a function), but refuse the whole, naming its length."""
    long = "pi," * 10_000 if key.startswith("graphvars") else "+".join(["x"] * 20_000)
    params = {"lang": lang, "graph.fn": "x*y", key: long}  # Streamlit drops a query over 512 KB
    at = open_link(**params)
    box = at.text_input(key=key)
    assert box.value == long[: box.max_chars]
    if key == "graph.fn":
        says = tr("expr.too_long", lang, limit=LIMITS.max_length, length=len(long))
        assert at.get("graphviz_chart") == []  # nothing drawn for a refused function
    else:
        what = key.removeprefix("graphvars.")
        says = tr(
            "budget.numbers_too_long", lang, what=what, each=40, limit=84, got=f"{len(long):,}"
        )
        assert len(at.get("graphviz_chart")) == 1  # only the one-variable case's drawing
    assert says in [e.value for e in at.error]
    assert long not in [c.value for c in at.code]  # what is echoed is the box's text
