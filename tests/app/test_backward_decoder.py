"""The error decoder on the custom-Function page under AppTest: each gallery case's message
finds its case, with the fix and the graph; other text is unknown; hostile text stays text."""

from __future__ import annotations

import pytest

from hograd_core.flaglab.cases import CASES
from hograd_core.flaglab.decoder import signatures
from hograd_labs.backward.cached import gallery
from hograd_labs.backward.page import PASTE
from hograd_ui.i18n import tr
from tests.app.conftest import open_page
from tests.app.test_links import open_link, query

PAGE = "pages/backward.py"
BOX = "backward.decode"


def _paste(at, text: str):  # noqa: ANN001, ANN202
    at.text_area(key=BOX).set_value(text)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _rendered(at) -> str:  # noqa: ANN001
    """Every text the page renders as markdown (markdown, captions, alerts)."""
    kinds = ("markdown", "caption", "success", "warning", "error", "info")
    return "\n".join(str(e.value) for kind in kinds for e in at.get(kind))


def _first_messages() -> dict[str, str]:
    """One message per gallery case: the first its variants raise or warn, as the graph page
    runs them (the cases that switch process-wide state in a fresh process: PyTorch warns of
    the reference cycle once per process)."""
    first: dict[str, str] = {}
    for case, _, message in signatures(gallery()):
        first.setdefault(case, message)
    return first


@pytest.fixture(scope="module")
def at():  # noqa: ANN201
    return open_page(PAGE)


@pytest.mark.parametrize("case", list(CASES))
def test_each_cases_message_finds_it_with_the_fix_and_the_graph(at, case: str) -> None:  # noqa: ANN001
    message = _first_messages()[case]
    _paste(at, 'Traceback (most recent call last):\n  File "x.py", line 1\n' + message)
    name = tr(f"graph.case.{case}", "en").replace("*", "\\*")  # as the markdown holds it
    found = [s.value for s in at.success if "From the case" in s.value]
    assert found, _rendered(at)
    assert name in found[0] or name in _rendered(at)  # the case, or a case that shares it
    assert message in [c.value for c in at.code]  # PyTorch's words as the case raised them
    assert at.get("graphviz_chart")  # the case's graph


def test_random_text_is_unknown(at) -> None:  # noqa: ANN001
    _paste(at, "my model does not learn, please help")
    assert any("No case of the gallery produces this message" in i.value for i in at.info)
    assert not any("From the case" in s.value for s in at.success)


@pytest.mark.parametrize(
    "text",
    [
        "<script>alert(1)</script><b>bold</b>",
        "# Big heading\n**bold** [link](https://x.y)",
        "<img src=x onerror=alert(1)> RuntimeError: element 0 of tensors does not require grad and "
        "does not have a grad_fn **bold**",
    ],
)
def test_hostile_text_is_matched_but_never_rendered(at, text: str) -> None:  # noqa: ANN001
    _paste(at, text)
    rendered = _rendered(at)
    for piece in ("<script>", "<b>", "<img", "# Big heading", "**bold**", "[link]"):
        assert piece not in rendered
    assert not any(piece in h.proto.body for h in at.get("html") for piece in ("<script>", "<img"))
    if "grad_fn" in text:  # the message inside the markup is still found
        assert any("From the case" in s.value for s in at.success)


def test_a_huge_paste_is_cut_to_the_box(at) -> None:  # noqa: ANN001
    at.text_area(key=BOX).set_value("<b>x</b>" * 12_800)  # 100 kB
    at.run()
    assert not at.exception
    assert len(at.text_area(key=BOX).value) <= PASTE
    assert any("No case of the gallery" in i.value for i in at.info)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_decoder_lives_in_the_link_in_both_languages(lang: str) -> None:
    text = "RuntimeError: Trying to backward through the graph a second time"
    at = open_link(PAGE, {BOX: text}, lang)
    assert at.text_area(key=BOX).value == text
    assert query(at)[BOX] == text
    word = "From the case" if lang == "en" else "来自案例"
    assert any(word in s.value for s in at.success)


def test_the_decoder_stays_when_the_formula_is_wrong() -> None:
    at = open_link(
        PAGE,
        {
            "backward.f": "x^",
            BOX: "element 0 of tensors does not require grad and does not have a grad_fn",
        },
    )
    assert at.error  # the formula's message
    assert any("From the case" in s.value for s in at.success)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_100_kb_link_is_cut_to_the_box_and_says_so(lang: str) -> None:
    long = "<script>alert(1)</script>**x** " * 3_300  # about 100 kB
    at = open_link(PAGE, {BOX: long}, lang)
    assert at.text_area(key=BOX).value == long[:PASTE]
    says = tr("backward.decode.cut", lang, limit=f"{PASTE:,}", length=f"{len(long):,}")
    assert says in [c.value for c in at.caption]
    assert tr("backward.decode.unknown", lang) in [i.value for i in at.info]
    assert "<script>" not in _rendered(at)


def test_every_hostile_input_of_the_app_stays_text_in_the_decoder(at) -> None:  # noqa: ANN001
    from tests.app.test_hostile_inputs import BAD

    for text in BAD:
        _paste(at, text)
        held = text[:PASTE]
        if len(held.strip()) < 4:
            continue  # a few characters may well be in the page's own text
        for md in at.markdown:  # never rendered as markdown
            assert held not in md.value, text
        assert not any(held in h.proto.body for h in at.get("html")), text
