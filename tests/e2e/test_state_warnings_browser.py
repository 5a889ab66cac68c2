"""A clean start and a full tour in Chromium leave no warning in the server's log (issue 37).

Streamlit logs 'The widget with key "hvp.p.w1" was created with a default value but also had
its value set via the Session State API', with a stack trace, when a widget is given a default
(``value=``, ``index=``) in a run where code set its value through ``st.session_state``: a
preset, a button, a click on a chart. It logs it once per process, so the tour runs on a
server of its own, started for it, and reads that server's log at the end. The tour: every
page and every tab, an example (preset) on each page that has them, the HVP page's Reset, a
click on its contour and an exact point, the graph page's pass buttons and exact x0, the
language switch, presentation mode on and off.
"""

from __future__ import annotations

import os

import pytest

from tests.e2e.conftest import ARTIFACTS, running_server, wait_for_app

pytestmark = pytest.mark.e2e

PAGES = ("", "derivatives", "graph", "hvp", "why", "backward", "memory", "lesson")
EXAMPLES = ("derivatives", "graph", "hvp", "backward")  # pages with examples in their first view
SLOW = 180_000  # ms: a tab may train a small network on a busy 2-core host


def _idle(pg) -> None:
    wait_for_app(pg, timeout=SLOW)


def _main(pg):
    return pg.locator("[data-testid='stMain']")


def _preset(pg) -> bool:
    """Click the second pill of the view's examples, when it has some; whether it had."""
    pills = _main(pg).locator("[data-testid='stButtonGroup'] button")
    if pills.count() < 2:
        return False
    pills.nth(1).click()
    _idle(pg)
    return True


def _tour_tabs(pg, examples: bool) -> int:
    """Open every tab of the page in turn, clicking an example in each; the examples clicked.
    ``examples``: the page's first view has them (waited for: widgets mount after the run)."""
    if examples:
        _main(pg).locator("[data-testid='stButtonGroup']").first.wait_for(timeout=SLOW)
    clicked = int(_preset(pg))
    tabs = _main(pg).get_by_role("tab")
    for i in range(tabs.count()):
        tabs = _main(pg).get_by_role("tab")  # a rerun replaces them: find them again
        if i >= tabs.count():
            break
        tabs.nth(i).click()
        _idle(pg)
        clicked += int(_preset(pg))
    return clicked


def _hvp_controls(pg) -> None:
    """The HVP page's Reset, a click on the contour (it moves p) and an exact point."""
    pg.goto(f"{pg.base}/hvp")
    _idle(pg)
    pg.wait_for_selector(".js-plotly-plot", timeout=SLOW)
    w1 = _main(pg).locator("[data-testid='stSlider']").filter(has_text="w1").first
    before = w1.locator("input[type=range]").input_value()
    plot = pg.locator(".js-plotly-plot").first
    plot.scroll_into_view_if_needed()
    box = plot.locator(".nsewdrag").first.bounding_box()
    pg.mouse.click(box["x"] + 0.2 * box["width"], box["y"] + 0.25 * box["height"])
    for _ in range(240):  # the rerun replaces the slider: poll it (120 s at most), not a handle
        pg.wait_for_timeout(500)
        if w1.locator("input[type=range]").input_value() != before:
            break
    else:
        pytest.fail(f"p did not move after the click on the contour (w1 stayed {before})")
    _idle(pg)
    exact = _main(pg).get_by_role("textbox", name="p exactly (one number per variable")
    exact.fill("1, pi/2")
    exact.press("Enter")
    _idle(pg)
    assert "1.5708" in _main(pg).inner_text()  # π/2 in the table of the numbers at p
    _main(pg).get_by_role("button", name="Reset p and v").click()
    _idle(pg)
    _main(pg).get_by_role("button", name="Replace f with the quadratic for κ = 10").click()
    _idle(pg)


def _graph_controls(pg) -> None:
    """The graph page's pass buttons and its exact x0."""
    pg.goto(f"{pg.base}/graph")
    _idle(pg)
    _main(pg).get_by_role("button", name="Next backward pass").click()
    _idle(pg)
    assert "graph.order=3" in pg.url
    exact = _main(pg).get_by_role("textbox", name="x exactly")
    exact.fill("pi/4")
    exact.press("Enter")
    _idle(pg)
    assert "graph.x0=0.785" in pg.url


def _language_and_presentation(pg) -> None:
    """Switch to Chinese and back; presentation mode on (an example clicked) and off."""
    pg.goto(f"{pg.base}/derivatives")
    _idle(pg)
    sidebar = pg.locator("[data-testid='stSidebar']")
    sidebar.get_by_text("简体中文", exact=True).click()
    _idle(pg)
    assert "任意阶导数" in _main(pg).inner_text()
    assert _preset(pg)
    sidebar.get_by_text("English", exact=True).click()
    _idle(pg)
    sidebar.get_by_text("Presentation mode", exact=True).click()
    _idle(pg)
    assert "present=1" in pg.url
    assert _preset(pg)
    pg.get_by_role("button", name="Leave presentation mode").click()
    _idle(pg)
    assert "present=1" not in pg.url


def test_a_full_tour_logs_no_session_state_warning(browser) -> None:
    name = "state-warnings"
    with running_server(name) as url:
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        pg = context.new_page()
        pg.base = url
        pg.set_default_timeout(SLOW)
        clicked = {}
        for path in PAGES:
            pg.goto(f"{url}/{path}")
            _idle(pg)
            clicked[path] = _tour_tabs(pg, path in EXAMPLES)
            assert pg.locator("[data-testid='stException']").count() == 0, path
        # the pages with examples (the function box's, the backward lab's) had them clicked
        assert all(clicked[p] for p in (*EXAMPLES, "why")), str(clicked)  # why: in its tabs
        _hvp_controls(pg)
        _graph_controls(pg)
        _language_and_presentation(pg)
        assert pg.locator("[data-testid='stException']").count() == 0
        context.close()
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    log = (ARTIFACTS / f"{name}-{worker}.log" if worker else ARTIFACTS / f"{name}.log").read_text()
    assert "Session State API" not in log, log[-3000:]
    assert "Traceback" not in log, log[-3000:]
