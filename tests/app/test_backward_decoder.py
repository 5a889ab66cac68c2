"""The error decoder on the custom-Function page under AppTest: each gallery case's message
finds its entry, how sure, why, the fix and the case's graph; a message no gallery case raises
gets its entry without a graph; other text is unknown; hostile text stays text."""

from __future__ import annotations

import pytest

from hograd_core.flaglab.cases import CASES
from hograd_core.flaglab.decoder import decode, signatures
from hograd_labs.backward.page import PASTE
from hograd_serving.cached import case_for
from hograd_ui.i18n import tr
from tests.app.conftest import open_page
from tests.app.test_links import open_link, query

PAGE = "pages/backward.py"
BOX = "backward.decode"


def _paste(at, text: str):
    at.text_area(key=BOX).set_value(text)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _rendered(at) -> str:
    """Every text the page renders as markdown (markdown, captions, alerts)."""
    kinds = ("markdown", "caption", "success", "warning", "error", "info")
    return "\n".join(str(e.value) for kind in kinds for e in at.get(kind))


def _first_messages() -> dict[str, str]:
    """One message per gallery case: the first its variants raise or warn, as the graph page
    runs them (the cases that switch process-wide state in a fresh process: PyTorch warns of
    the reference cycle once per process)."""
    runs = {(c, v): case_for(c, v) for c, case in CASES.items() for v in case.variants}
    first: dict[str, str] = {}
    for case, _, message in signatures(runs):
        first.setdefault(case, message)
    return first


@pytest.fixture(scope="module")
def at():
    return open_page(PAGE)


FOUND = ("Known message", "已知的消息")


def _lab_graphs(at) -> int:
    """How many graphs the page draws above the decoder (its lab's own)."""
    text = at.text_area(key=BOX).value
    _paste(at, "nothing to decode here")
    count = len(at.get("graphviz_chart"))
    _paste(at, text)
    return count


@pytest.mark.parametrize("case", list(CASES))
def test_each_cases_message_finds_its_entry_with_the_fix_and_a_graph(at, case: str) -> None:
    message = _first_messages()[case]
    _paste(at, 'Traceback (most recent call last):\n  File "x.py", line 1\n' + message)
    entry = decode(message)
    title = tr(f"decoder.{entry.id}", "en").replace("*", "\\*")
    assert any(title in s.value for s in at.success if s.value.startswith(FOUND[0])), _rendered(at)
    sure = "backward.decode.sure.exact" if entry.sure == "exact" else "backward.decode.sure.general"
    assert tr(sure, "en") in [c.value for c in at.caption]
    assert entry.found in [c.value for c in at.code]  # the pasted words, as text
    assert len(at.get("graphviz_chart")) == _lab_graphs(at) + 1  # and the gallery case's


def test_a_message_no_gallery_case_raises_gets_its_entry_and_no_graph(at) -> None:
    _paste(at, "RuntimeError: Function 'DivBackward0' returned nan values in its 1th output.")
    assert any(tr("decoder.nan_div", "en") in s.value for s in at.success)
    why = [i.value for i in at.info if i.value.startswith("**Why:**")]
    assert why and "`DivBackward0`" in why[0] and "`1`" in why[0]  # the facts, as code
    assert tr("backward.decode.sure.exact", "en") in [c.value for c in at.caption]
    assert len(at.get("graphviz_chart")) == _lab_graphs(at)  # the lab's own only


def test_a_cut_message_is_a_partial_match(at) -> None:
    _paste(at, "Trying to backward through the graph")
    assert tr("backward.decode.sure.part", "en") in [c.value for c in at.caption]


def test_random_text_is_unknown(at) -> None:
    _paste(at, "my model does not learn, please help")
    assert tr("backward.decode.unknown", "en") in [i.value for i in at.info]
    assert not any(s.value.startswith(FOUND[0]) for s in at.success)


@pytest.mark.parametrize(
    "text",
    [
        "<script>alert(1)</script><b>bold</b>",
        "# Big heading\n**bold** [link](https://x.y)",
        "<img src=x onerror=alert(1)> RuntimeError: element 0 of tensors does not require grad and "
        "does not have a grad_fn **bold**",
    ],
)
def test_hostile_text_is_matched_but_never_rendered(at, text: str) -> None:
    _paste(at, text)
    rendered = _rendered(at)
    for piece in ("<script>", "<b>", "<img", "# Big heading", "**bold**", "[link]"):
        assert piece not in rendered
    assert not any(piece in h.proto.body for h in at.get("html") for piece in ("<script>", "<img"))
    if "grad_fn" in text:  # the message inside the markup is still found
        assert any(s.value.startswith(FOUND[0]) for s in at.success)


def test_a_huge_paste_is_cut_to_the_box(at) -> None:
    at.text_area(key=BOX).set_value("<b>x</b>" * 12_800)  # 100 kB
    at.run()
    assert not at.exception
    assert len(at.text_area(key=BOX).value) <= PASTE
    assert tr("backward.decode.unknown", "en") in [i.value for i in at.info]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_decoder_lives_in_the_link_in_both_languages(lang: str) -> None:
    text = "RuntimeError: Trying to backward through the graph a second time"
    at = open_link(PAGE, {BOX: text}, lang)
    assert at.text_area(key=BOX).value == text
    assert query(at)[BOX] == text
    word = FOUND[0] if lang == "en" else FOUND[1]
    assert any(s.value.startswith(word) for s in at.success)


def test_the_decoder_stays_when_the_formula_is_wrong() -> None:
    at = open_link(
        PAGE,
        {
            "backward.f": "x^",
            BOX: "element 0 of tensors does not require grad and does not have a grad_fn",
        },
    )
    assert at.error  # the formula's message
    assert any(s.value.startswith(FOUND[0]) for s in at.success)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_100_kb_link_is_cut_to_the_box_and_says_so(lang: str) -> None:
    long = "<script>alert(1)</script>**x** " * 3_300  # about 100 kB
    at = open_link(PAGE, {BOX: long}, lang)
    assert at.text_area(key=BOX).value == long[:PASTE]
    says = tr("backward.decode.cut", lang, limit=f"{PASTE:,}", length=f"{len(long):,}")
    assert says in [c.value for c in at.caption]
    assert tr("backward.decode.unknown", lang) in [i.value for i in at.info]
    assert "<script>" not in _rendered(at)


def test_every_hostile_input_of_the_app_stays_text_in_the_decoder(at) -> None:
    from tests.app.test_hostile_inputs import BAD

    for text in BAD:
        _paste(at, text)
        held = text[:PASTE]
        if len(held.strip()) < 4:
            continue  # a few characters may well be in the page's own text
        for md in at.markdown:  # never rendered as markdown
            assert held not in md.value, text
        assert not any(held in h.proto.body for h in at.get("html")), text
