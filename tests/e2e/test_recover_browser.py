"""hograd_serving/recover.js in real Chromium, on a page of its own (served by Playwright's
router, so that a reload loads it again): a broken Streamlit tree's error loads the page
again; a second one within 30 s does not (no loop); any other error does not; after 30 s the
next break does. The decision is read from the page itself: the script writes the time of a
reload it starts into sessionStorage before it reloads, and the error event is handled
synchronously, so an unchanged entry right after the event means "no reload"."""

from __future__ import annotations

import pytest

from hograd_serving.head_style import RECOVER_JS

pytestmark = pytest.mark.e2e

URL = "http://recover.test/page"
PAGE = f"""<!doctype html><html><head><script>{RECOVER_JS}</script></head><body>
<script>sessionStorage.setItem("loads", String(Number(sessionStorage.getItem("loads") || 0) + 1));
</script></body></html>"""
BREAK = "Bad delta path index 8 (should be between [0, 2])"
KEY = "hograd.recovered"


def _fire(page, message: str) -> tuple[str | None, str | None]:
    """Dispatch an error event with ``message``; the recovery's entry before and after."""
    return tuple(
        page.evaluate(
            """([message, key]) => {
                const before = sessionStorage.getItem(key);
                window.dispatchEvent(new ErrorEvent("error", { message }));
                return [before, sessionStorage.getItem(key)];
            }""",
            [message, KEY],
        )
    )


def _loads(page) -> int:
    return int(page.evaluate("() => sessionStorage.getItem('loads')"))


def test_a_broken_tree_loads_the_page_again_once_in_30_seconds(browser) -> None:
    context = browser.new_context()
    try:
        context.route(URL, lambda route: route.fulfill(body=PAGE, content_type="text/html"))
        page = context.new_page()
        page.goto(URL)
        assert _loads(page) == 1

        assert _fire(page, "TypeError: x is undefined") == (None, None)  # not ours to mend
        with page.expect_event("load"):
            before, after = _fire(page, BREAK)
        assert before is None and after is not None
        assert _loads(page) == 2

        before, after = _fire(page, "Cannot set a node at a delta path")  # within 30 s
        assert before == after is not None

        page.evaluate(f"() => sessionStorage.setItem('{KEY}', String(Date.now() - 31000))")
        with page.expect_event("load"):
            before, after = _fire(page, "Error: " + BREAK)
        assert int(after) > int(before)
        assert _loads(page) == 3
    finally:
        context.close()
