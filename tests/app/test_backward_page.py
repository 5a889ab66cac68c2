"""The custom-Function lab under AppTest: each variant, the slips, bad input, both languages."""

from __future__ import annotations

import pytest

from tests.app.conftest import open_page
from tests.app.test_links import notes, open_link, query

PAGE = "pages/backward.py"


def _texts(at: object) -> str:
    parts = [
        e.value
        for kind in ("markdown", "caption", "success", "warning", "error", "info")
        for e in at.get(kind)
    ]
    return "\n".join(str(p) for p in parts)


def _set(at: object, f: str, b: str, variant: str | None = None) -> object:
    at.text_input(key="backward.f").set_value(f)
    at.text_input(key="backward.b").set_value(b)
    if variant is not None:
        at.session_state["backward.variant"] = variant
    return at.run()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_tanh_as_written_passes_both_checks_and_shows_the_function_class(lang: str) -> None:
    at = open_page(PAGE, lang)
    assert not at.exception
    code = [c.value for c in at.code if "class MyFunc(torch.autograd.Function)" in c.value]
    assert code and "ctx.save_for_backward(y)" in code[0]
    assert "return (1 - (y ** 2)) * g" in code[0]  # to_source's PyTorch form of the formula
    assert len(at.success) >= 3  # the backward is f′; gradcheck and gradgradcheck passed
    assert at.get("graphviz_chart") and "MyFuncBackward" in at.get("graphviz_chart")[0].proto.spec


@pytest.mark.parametrize(
    ("variant", "says"),
    [
        ("detached", "PyTorch raised nothing"),
        ("once", "trying to differentiate twice"),
        ("second_function", "class MyFuncGrad(torch.autograd.Function)"),
    ],
)
def test_each_variant_in_one_click(variant: str, says: str) -> None:
    at = _set(open_page(PAGE), "x^3", "3*x^2*g", variant)
    assert not at.exception
    everything = _texts(at) + "\n".join(c.value for c in at.code)
    if variant == "detached":
        assert any("raised nothing" in w.value for w in at.warning)
        assert any("`gradgradcheck` failed" in e.value for e in at.error)
    elif variant == "once":
        assert any(
            c.value == "trying to differentiate twice a function that was marked with "
            "@once_differentiable"
            for c in at.code
        )
    else:
        assert says in everything
        assert not at.error


@pytest.mark.parametrize(
    ("f", "b", "says"),
    [
        ("x^3", "3*x^2", "does not use g"),
        ("x^3", "2*x*g", "is not f′"),
        ("sin(x)", "sqrt(1 - y^2)*g", "right up to sign"),
    ],
)
def test_each_slip_has_its_message(f: str, b: str, says: str) -> None:
    at = _set(open_page(PAGE), f, b)
    assert not at.exception
    assert says in _texts(at)


def test_bad_input_is_a_message_not_a_traceback() -> None:
    at = _set(open_page(PAGE), "x^3", "3*x^2*q")
    assert not at.exception
    assert any("the variable 'q'" in e.value for e in at.error)


LINK = {
    "backward.f": ("x^3", "x^3"),
    "backward.b": ("3*x^2*g", "3*x^2*g"),
    "backward.range": (["-1", "1.5"], (-1.0, 1.5)),
    "backward.points": ("5", 5),
    "backward.variant": ("once", "once"),
    "backward.x0": ("1.2", 1.2),
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_link_opens_the_view_and_writes_the_same_link(lang: str) -> None:
    at = open_link(PAGE, {k: url for k, (url, _) in LINK.items()}, lang)
    assert not at.exception
    assert {k: at.session_state[k] for k in LINK} == {k: v for k, (_, v) in LINK.items()}
    assert notes(at) == []
    assert query(open_page(PAGE, lang)) == {}  # the default view: only the language
    again = open_link(PAGE, query(at), lang)
    assert query(again) == query(at)
    assert any("trying to differentiate twice" in c.value for c in again.code)


def test_a_grid_larger_than_the_budget_is_ignored_with_a_note() -> None:
    at = open_link(PAGE, {"backward.points": "26"})
    assert not at.exception
    assert at.session_state["backward.points"] == 9 and notes(at)


@pytest.mark.parametrize("variant", ["detached", "once"])
def test_the_penalty_with_the_usual_g_loses_its_term_and_says_so(variant: str) -> None:
    at = _set(open_page(PAGE), "x^3", "3*x^2*g", variant)
    assert not at.exception
    assert any("penalty's term 2 f′ f″ is lost" in w.value for w in at.warning)
    assert any("does not require grad" in c.value for c in at.code)
    if variant == "once":  # the two messages, connected
        assert "allow_unused=True" in _texts(at)
