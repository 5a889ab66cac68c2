"""The guided lesson in real Chromium: a student walks it, answers exercises right and wrong,
and the link in the address bar brings a fresh browser back to the same place; screenshots in
both languages (tests/artifacts/lesson_*.png)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest

from hograd_ui.i18n import tr
from tests.e2e.conftest import TEACHER_KEY, screenshot, wait_for_app

pytestmark = pytest.mark.e2e


def _open(page, query: str) -> None:
    page.goto(f"{page.base}/lesson?{query}")
    wait_for_app(page, timeout=120_000)


def _header(page) -> str:
    return page.locator("[data-testid='stMain'] h2").first.inner_text()


def _type(page, value: str, index: int = 0) -> None:
    box = page.locator("[data-testid='stMain'] [data-testid='stTextInput'] input").nth(index)
    box.fill(value)
    box.press("Enter")
    wait_for_app(page)


def _click(page, label: str) -> None:
    page.locator("[data-testid='stMain']").get_by_role("button", name=label, exact=True).click()
    wait_for_app(page)


def _alerts(page) -> list[str]:
    return page.locator("[data-testid='stMain'] [data-testid='stAlert']").all_inner_texts()


def _query(page) -> dict[str, list[str]]:
    return parse_qs(urlparse(page.url).query)


def _shot(page, name: str, selector: str) -> None:
    """A screenshot with ``selector`` in view (the page scrolls inside Streamlit's main block)."""
    page.locator(selector).last.scroll_into_view_if_needed()
    page.wait_for_timeout(400)
    screenshot(page, name)


def _tall_shot(page, name: str) -> None:
    """A whole step in one picture: a viewport as tall as the page's content, then back."""
    height = page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
    page.set_viewport_size({"width": 1280, "height": min(int(height) + 40, 6000)})
    page.wait_for_timeout(600)  # plotly redraws at the new size
    screenshot(page, name)
    page.set_viewport_size({"width": 1280, "height": 800})


def test_a_student_walks_the_lesson_in_english(page) -> None:
    _open(page, "lang=en")
    assert _header(page) == tr("lesson.grad.title")
    page.wait_for_selector(".js-plotly-plot")
    _shot(page, "lesson_en_step1", "[data-testid='stMain'] h2")

    _type(page, "8")  # wrong: f(2) itself
    _click(page, tr("lesson.check"))
    assert any(tr("lesson.trap.value", value="8") in a for a in _alerts(page))
    assert "done" not in _query(page)
    _click(page, tr("lesson.hint.show"))
    assert any(tr("lesson.grad.hint") in a for a in _alerts(page))
    _type(page, "12")  # right: 3·2²
    _click(page, tr("lesson.check"))
    assert any(tr("lesson.check.right") in a for a in _alerts(page))
    assert _query(page)["done"] == ["1"]
    _shot(page, "lesson_en_step1_answered", "[data-testid='stMain'] [data-testid='stAlert']")
    _tall_shot(page, "lesson_en_step1_full")

    _click(page, tr("lesson.next"))
    assert _header(page) == tr("lesson.create_graph.title")
    assert _query(page)["step"] == ["2"]
    _click(page, tr("lesson.check"))  # the starting settings run fine: not the goal yet
    assert any(tr("lesson.check.ran") in a for a in _alerts(page))
    toggle = page.locator("[data-testid='stMain'] [data-testid='stCheckbox']")
    toggle.filter(has_text="create_graph").first.locator("label").click()
    wait_for_app(page)
    assert any("does not require grad" in c for c in page.locator("code").all_inner_texts())
    assert _query(page)["lesson.create_graph.cg"] == ["false"]  # bound to the link
    _click(page, tr("lesson.check"))
    assert any(tr("lesson.check.flags_right") in a for a in _alerts(page))
    assert _query(page)["done"] == ["1,2"]
    _shot(page, "lesson_en_step2", "[data-testid='stMain'] [data-testid='stCode']")

    # the link in the address bar opens the same place in a fresh browser context
    link = page.url
    fresh = page.context.browser.new_context(viewport={"width": 1280, "height": 800})
    other = fresh.new_page()
    try:
        other.goto(link)
        wait_for_app(other, timeout=120_000)
        assert _header(other) == tr("lesson.create_graph.title")
        progress = tr("lesson.progress", done=2, total=7)
        # the bar's text is drawn once its element's code has loaded, maybe after the run ended
        from playwright.sync_api import expect

        expect(other.get_by_text(progress)).to_have_count(1)
    finally:
        fresh.close()


def test_a_teacher_opens_step_six_in_chinese(page) -> None:
    _open(page, f"lang=zh&step=6&done=1,2&key={TEACHER_KEY}")
    assert _header(page) == tr("lesson.hvp.title", "zh")
    page.wait_for_selector(".js-plotly-plot")
    assert page.get_by_text(tr("lesson.teacher.on", "zh")).count() == 1
    assert "key" not in _query(page) and TEACHER_KEY not in page.url  # out of the address bar
    _shot(page, "lesson_zh_step6", "[data-testid='stMain'] h2")
    _type(page, "(1, \u22121)", 0)  # pasted whole, with the minus sign the app prints
    read = tr("lesson.answer.read_spread", "zh", value="(1, \u22121)")
    assert page.get_by_text(read).count() == 1
    _click(page, tr("lesson.check", "zh"))
    assert any(tr("lesson.check.right", "zh") in a for a in _alerts(page))
    assert _query(page)["done"] == ["1,2,6"]
    _shot(page, "lesson_zh_step6_answered", "[data-testid='stMain'] [data-testid='stAlert']")
    _tall_shot(page, "lesson_zh_step6_full")


def test_a_bad_link_opens_the_lesson_with_a_note(page) -> None:
    _open(
        page,
        f"lang=en&step=%3Cscript%3Ealert(1)%3C%2Fscript%3E&done=1,zz&teacher=1&key={TEACHER_KEY}x",
    )
    assert _header(page) == tr("lesson.grad.title")
    note = tr("lesson.url.ignored", names="step, done", total=7)
    assert any(note in a for a in _alerts(page))
    assert any(tr("lesson.teacher.refused") in a for a in _alerts(page))
    assert page.get_by_text(tr("lesson.teacher.on")).count() == 0
    assert page.locator("[data-testid='stException']").count() == 0
    assert not {"step", "done", "teacher", "key"} & set(_query(page))


NAMES = ("grad", "create_graph", "second", "growth", "freed", "hvp", "used")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_step_draws_its_view(page, lang: str) -> None:
    """Each step opened by its link: its title, its live view (a chart, or the flag lab's
    transcript), no error; a full-height screenshot of each (tests/artifacts/lesson_*_tour_*)."""
    for number, name in enumerate(NAMES, start=1):
        _open(page, f"lang={lang}&step={number}")
        assert _header(page) == tr(f"lesson.{name}.title", lang)
        view = (
            ".js-plotly-plot" if name not in ("create_graph", "freed") else "[data-testid='stCode']"
        )
        page.wait_for_selector(f"[data-testid='stMain'] {view}", timeout=120_000)
        assert page.locator("[data-testid='stException']").count() == 0
        _tall_shot(page, f"lesson_{lang}_tour_{number}")
