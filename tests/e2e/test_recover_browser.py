"""hograd_serving/recover.js in real Chromium, on a page of its own (served by Playwright's
router, so that a reload loads it again): a broken Streamlit tree's error loads the page
again; a second one within 30 s does not (no loop); any other error does not; after 30 s the
next break does. A page "running" with nothing from its server for 60 s loads again; one that
is not running, or heard from its server lately, does not. A page whose run is over with its
main area empty for 10 s loads again; one that shows a word or a drawing there, or is
running, or has lost its server, does not. The decisions are read from the
page itself: the script writes the time of a reload it starts into sessionStorage before it
reloads, and the error event and the stall check run synchronously, so an unchanged entry
right after them means "no reload" (no waiting on the page's 5-second timer)."""

from __future__ import annotations

import pytest

from hograd_serving.head_style import RECOVER_JS

pytestmark = pytest.mark.e2e

URL = "http://recover.test/page"
PAGE = f"""<!doctype html><html><head><script>{RECOVER_JS}</script></head><body>
<div data-testid="stApp" data-test-script-state="running"></div>
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


@pytest.fixture()
def own_page(browser):
    """The page of its own, loaded once, in a context of its own (its sessionStorage)."""
    context = browser.new_context()
    context.route(URL, lambda route: route.fulfill(body=PAGE, content_type="text/html"))
    page = context.new_page()
    page.goto(URL)
    yield page
    context.close()


def test_a_broken_tree_loads_the_page_again_once_in_30_seconds(own_page) -> None:
    page = own_page
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


def _stall(page, state: str, silent_ms: int) -> tuple[str | None, str | None]:
    """The app ``state`` ("running" or "notRunning") with the server last heard ``silent_ms``
    ago; the stall check run once; the recovery's entry before and after."""
    return tuple(
        page.evaluate(
            """([state, silent, key]) => {
                document.querySelector("[data-testid='stApp']").dataset.testScriptState = state;
                window.hogradHeard = Date.now() - silent;
                const before = sessionStorage.getItem(key);
                window.hogradRecover.stalled();
                return [before, sessionStorage.getItem(key)];
            }""",
            [state, silent_ms, KEY],
        )
    )


def test_a_page_running_with_nothing_from_its_server_for_60_s_loads_again(own_page) -> None:
    page = own_page
    # the head's script saw the socket made: each one notes when the server was heard
    heard = page.evaluate(
        "() => { window.hogradHeard = 0; try { new WebSocket('ws://127.0.0.1:9/x'); }"
        " catch (e) {} return window.hogradHeard; }"
    )
    assert heard > 0
    assert _stall(page, "running", 30_000) == (None, None)  # a long run, still talking
    assert _stall(page, "notRunning", 120_000) == (None, None)  # idle, not stalled
    with page.expect_event("load"):
        before, after = _stall(page, "running", 61_000)
    assert before is None and after is not None
    assert _loads(page) == 2
    before, after = _stall(page, "running", 61_000)  # again within 30 s: left alone
    assert before == after is not None


def _blank(page, state: str, connection: str, main: str, after_ms: int) -> list:
    """The app ``state`` and ``connection``, its main area holding the HTML ``main``; the
    blank check run at a time, then again ``after_ms`` later; the recovery's entry before
    and after, and what each check returned."""
    return page.evaluate(
        """([state, connection, main, after, key]) => {
            const app = document.querySelector("[data-testid='stApp']");
            app.dataset.testScriptState = state;
            app.dataset.testConnectionState = connection;
            app.innerHTML = `<section data-testid="stMain">${main}</section>`;
            const before = sessionStorage.getItem(key);
            const t = Date.now();
            const first = window.hogradRecover.blank(t);
            const second = window.hogradRecover.blank(t + after);
            return [before, sessionStorage.getItem(key), first, second];
        }""",
        [state, connection, main, after_ms, KEY],
    )


def test_a_page_left_with_an_empty_main_area_for_10_s_loads_again(own_page) -> None:
    page = own_page
    empty = '<div data-testid="stMainBlockContainer"><div style="display:none">x</div></div>'
    for state, connection, main in [
        ("notRunning", "CONNECTED", "<h1>Hessian-vector products</h1>"),  # a page
        ("notRunning", "CONNECTED", "<p>The lecturer paused the class.</p>"),  # a notice
        ("notRunning", "CONNECTED", '<svg width="9" height="9"></svg>'),  # a drawing alone
        ("running", "CONNECTED", empty),  # its run draws it
        ("notRunning", "DISCONNECTED_FOREVER", empty),  # Streamlit says why
    ]:
        assert _blank(page, state, connection, main, 20_000) == [None, None, False, False]
    # empty and idle, but for less than 10 s: left alone (the next run is on its way)
    assert _blank(page, "notRunning", "CONNECTED", empty, 9_000) == [None, None, False, False]
    # the next check finds something drawn: the count starts again
    page.evaluate("() => document.querySelector('[data-testid=stMain]').append('Home')")
    assert page.evaluate("() => window.hogradRecover.blank(Date.now() + 60000)") is False
    with page.expect_event("load"):
        before, after, first, _ = _blank(page, "notRunning", "CONNECTED", empty, 10_000)
    assert before is None and after is not None and first is False
    assert _loads(page) == 2
    assert _blank(page, "notRunning", "CONNECTED", empty, 10_000)[:2] == [after, after]
