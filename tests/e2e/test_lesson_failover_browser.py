"""The lesson's progress survives a server that dies while the student is on another page
(issue 35, finding 5), in real Chromium: finish a step, open the derivatives page from the
sidebar, stop the server, start another one (a restart, or the other replica), open the same
path and query there, then the lesson: the step is still done. Screenshots in both languages
(tests/artifacts/failover_*.png)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest

from hograd_ui.i18n import tr
from tests.e2e.conftest import running_server, screenshot, wait_for_app

pytestmark = pytest.mark.e2e


def _progress(page) -> str:
    return page.locator("[data-testid='stMain'] [data-testid='stProgress']").first.inner_text()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_progress_survives_a_restart_while_on_another_page(browser, lang: str) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(120_000)
    with running_server(f"failover_{lang}_first") as first:
        page.goto(f"{first}/lesson?lang={lang}")
        wait_for_app(page, timeout=120_000)
        box = page.locator("[data-testid='stMain'] [data-testid='stTextInput'] input").first
        box.fill("12")  # f'(2) for x**3
        box.press("Enter")
        wait_for_app(page)
        main = page.locator("[data-testid='stMain']")
        main.get_by_role("button", name=tr("lesson.check", lang), exact=True).click()
        wait_for_app(page)
        assert tr("lesson.progress", lang, done=1, total=7) in _progress(page)
        sidebar = page.locator("[data-testid='stSidebarNav']")
        sidebar.get_by_text(tr("app.page.derivatives", lang), exact=True).click()
        wait_for_app(page)
        link = urlparse(page.url)
        assert link.path.endswith("/derivatives")
        assert parse_qs(link.query)["done"] == ["1"]
        screenshot(page, f"failover_{lang}_derivatives")
    # the first server is gone; the browser's address is all that is left of the session
    with running_server(f"failover_{lang}_second") as second:
        page.goto(f"{second}{link.path}?{link.query}")
        wait_for_app(page, timeout=120_000)
        assert parse_qs(urlparse(page.url).query)["done"] == ["1"]
        sidebar = page.locator("[data-testid='stSidebarNav']")
        sidebar.get_by_text(tr("lesson.page", lang), exact=True).click()
        wait_for_app(page)
        assert tr("lesson.progress", lang, done=1, total=7) in _progress(page)
        screenshot(page, f"failover_{lang}_lesson")
    context.close()
