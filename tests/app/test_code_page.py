"""The code page: the seed runs line by line, an edit shows PyTorch's error at its line with
the graph that caused it, a link carries the program, a bad link is refused in words."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from hograd_labs.code.compute import encode
from hograd_labs.code.presets import PRESETS
from hograd_ui.i18n import tr
from tests.app.conftest import APP
from tests.apptest import APP_TEST_CEILING


def _open(lang: str = "en", program: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=APP_TEST_CEILING)
    at.query_params["lang"] = lang
    if program is not None:
        at.query_params["code.p"] = program
    at.switch_page("pages/code.py")  # a link opened in a new browser
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _codes(at: AppTest) -> list[str]:
    return [c.value.rstrip("\n") for c in at.code]


def test_the_seed_runs_and_an_edit_shows_the_error_at_line_6() -> None:
    at = _open()
    codes = _codes(at)
    assert "dy/dx at x=2.0: 12.0" in codes and "False" in codes
    assert any("torch::autograd::grad({y}, {x}" in c for c in codes)  # the C++ form
    assert at.query_params["code.p"] == encode(PRESETS["x3"])
    at.text_area(key="code.text").set_value(PRESETS["x3_no_create_graph"])
    at.button[0].click().run()
    assert not at.exception
    assert any("Line 6" in e.value for e in at.error)
    assert any(
        c.startswith("RuntimeError: element 0 of tensors does not require grad") for c in _codes(at)
    )
    # the state after line 6: the graph of grad_y_x, the tensor PyTorch refused, outlined
    assert at.selectbox[0].value == 6
    assert at.selectbox[1].value == "grad_y_x"
    dot = at.get("graphviz_chart")[0].proto.spec
    assert "grad_y_x" in dot and "no grad_fn" in dot
    assert at.query_params["code.p"] == encode(PRESETS["x3_no_create_graph"])


def test_a_link_opens_its_program_in_chinese() -> None:
    at = _open("zh", encode(PRESETS["hvp"]))
    assert at.text_area(key="code.text").value == PRESETS["hvp"]
    assert any(c.startswith("Hv = tensor([ 1.0000, -1.0000])") for c in _codes(at))
    assert "逐行" in at.title[0].value
    ignored = tr("links.ignored.title", "zh")
    assert not any(ignored in w.value for w in at.warning)  # the link check knows ?code.p=


def test_a_bad_link_is_refused_in_words() -> None:
    at = _open("en", "not-a-program!")
    assert any("could not be read" in e.value for e in at.error)
    assert at.text_area(key="code.text").value == PRESETS["x3"]


def test_hostile_text_is_shown_as_code_and_refused() -> None:
    """A program that tries an escape and holds markdown and HTML: refused before it runs, its
    text shown only as code, never rendered."""
    at = _open()
    text = 'print("**bold** <b>x</b>")\nprint(().__class__.__bases__[0].__subclasses__())\n'
    at.text_area(key="code.text").set_value(text)
    at.button[0].click().run()
    assert not at.exception
    assert any("`.__subclasses__` is not allowed" in e.value or "__" in e.value for e in at.error)
    for md in at.markdown:
        assert "<b>x</b>" not in md.value and "**bold**" not in md.value
    assert not any("bold" in c for c in _codes(at)[:-1] if not c.startswith("print"))


def test_the_graph_shown_first_follows_the_line_chosen_under_it() -> None:
    """``?code.screen=graph`` off the projector draws the graph's screen first (the frame's
    ``first``: on a phone it is then on the first screen), and a line chosen in the variables'
    screen, drawn after it, is the line of the graph in the same run."""
    at = AppTest.from_file(APP, default_timeout=APP_TEST_CEILING)
    at.query_params["lang"] = "en"
    at.query_params["code.screen"] = "graph"
    at.switch_page("pages/code.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    variable, line = at.selectbox[0], at.selectbox[1]  # the document's order: the graph first
    assert line.label == tr("code.step", "en") and line.value == 7  # the last line
    assert variable.label == tr("code.variable", "en", line=7)
    line.set_value(3).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.selectbox[0].label == tr("code.variable", "en", line=3)
    assert at.query_params["code.screen"] == "graph"
