"""The code page in a real browser: the seed runs, a preset link opens its program, and the
page is screenshotted on a laptop and a phone, in English and Chinese."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import screenshot, wait_for_app

pytestmark = pytest.mark.e2e


def _code_text(pg) -> str:
    return pg.locator("[data-testid='stMain'] [data-testid='stCode']").all_inner_texts()


def _wait_run(pg) -> None:
    """Until the program ran (its child process takes seconds to start)."""
    pg.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stSpinner\"]')", timeout=120_000
    )
    wait_for_app(pg, 120_000)


def test_the_seed_and_a_preset_link(page) -> None:
    page.goto(f"{page.base}/code?lang=en")
    wait_for_app(page, 120_000)
    _wait_run(page)
    texts = "\n".join(_code_text(page))
    assert "dy/dx at x=2.0: 12.0" in texts and "False" in texts
    page.get_by_test_id("stPageLink-NavLink").filter(has_text="Hessian-vector product").click()
    _wait_run(page)
    page.wait_for_function(
        "() => document.body.innerText.includes('Hv = tensor([ 1.0000, -1.0000])')",
        timeout=120_000,
    )
    assert "code.p=" in page.url


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(("width", "height"), [(1366, 768), (390, 844)])
def test_screenshots(browser, server, lang: str, width: int, height: int) -> None:
    context = browser.new_context(viewport={"width": width, "height": height})
    pg = context.new_page()
    try:
        pg.goto(f"{server}/code?lang={lang}")
        wait_for_app(pg, 120_000)
        _wait_run(pg)
        path = screenshot(pg, f"code-{lang}-{width}x{height}")
        assert path.exists()
        for part, testid in (("lines", "stCode"), ("graph", "stGraphVizChart")):
            pg.locator(f"[data-testid='{testid}']").last.scroll_into_view_if_needed()
            pg.wait_for_timeout(300)
            screenshot(pg, f"code-{lang}-{width}x{height}-{part}")
        overflow = pg.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 1, f"the page is {overflow}px wider than the {width}px screen"
    finally:
        context.close()
