"""The graph page in headless Chromium: step the graph from order 0 to 3 and watch the colours
of the drawn nodes change, pass by pass; the flag lab draws its run with and without
create_graph; its choices survive a language switch."""

from __future__ import annotations

import pytest

from hograd_ui.graph_figures import PASS_COLOURS
from tests.e2e.conftest import screenshot, wait_for_app

pytestmark = pytest.mark.e2e

SVG = "[data-testid='stGraphVizChart'] svg"
# The fill of every node's shape in the page's graph (the first chart; the flag lab's drawings
# follow it), and of those with the newest pass's thick outline.
FILLS = f"""() => Array.from(document.querySelector("{SVG}")
    .querySelectorAll("g.node > :is(polygon, ellipse)"))
    .map(s => [s.getAttribute("fill"), s.getAttribute("stroke-width")])"""


def node_fills(page) -> tuple[set[str], set[str]]:  # noqa: ANN001
    shapes = page.evaluate(FILLS)
    filled = {fill for fill, _ in shapes if fill and fill != "none"}
    thick = {fill for fill, width in shapes if width == "3.5"}
    return filled, thick


def wait_for_colours(page, colours: set[str]) -> None:  # noqa: ANN001
    """Wait until the drawn graph shows exactly these node colours (the chart re-renders)."""
    page.wait_for_function(
        f"""(want) => {{
            const fills = new Set(({FILLS})().map(p => p[0]).filter(f => f && f !== "none"));
            return fills.size === want.length && want.every(c => fills.has(c));
        }}""",
        arg=sorted(colours),
        timeout=30_000,
    )


def _no_exception(page) -> None:  # noqa: ANN001
    assert page.locator("[data-testid='stException']").count() == 0
    assert "Traceback" not in page.inner_text("body")


def test_step_the_graph_from_order_zero_to_three(page) -> None:  # noqa: ANN001
    page.goto(f"{page.base}/graph?lang=en")
    wait_for_app(page)
    page.wait_for_selector(SVG)
    _no_exception(page)
    wait_for_colours(page, set(PASS_COLOURS[:3]))  # opens at order 2 (double backward)
    for _ in range(2):
        page.get_by_role("button", name="One pass back").click()
        wait_for_app(page)
    wait_for_colours(page, {PASS_COLOURS[0]})
    filled, thick = node_fills(page)
    assert filled == {PASS_COLOURS[0]} and thick == {PASS_COLOURS[0]}  # the forward pass only
    screenshot(page, "graph-order0-en")
    for order in (1, 2, 3):
        page.get_by_role("button", name="Next backward pass").click()
        wait_for_app(page)
        wait_for_colours(page, set(PASS_COLOURS[: order + 1]))
        filled, thick = node_fills(page)
        assert thick == {PASS_COLOURS[order]}, order  # only the newest pass is outlined
        body = page.inner_text("body")
        assert f"Order {order} at x = 0.7" in body
        screenshot(page, f"graph-order{order}-en")
    _no_exception(page)


def test_choices_survive_a_language_switch(page) -> None:  # noqa: ANN001
    page.goto(f"{page.base}/graph?lang=en")
    wait_for_app(page)
    page.wait_for_selector(SVG)
    page.get_by_text("call grad again on the same graph").click()
    wait_for_app(page)
    page.get_by_role("radio", name="left to right").click()
    wait_for_app(page)
    page.get_by_role("radio", name="True", exact=True).click()  # retain_graph=True
    wait_for_app(page)
    page.get_by_text("简体中文").click()
    wait_for_app(page)
    page.wait_for_selector(SVG)
    assert page.get_by_role("radio", name="在同一个计算图上再调用一次 grad").is_checked()
    assert page.get_by_role("radio", name="从左到右").is_checked()
    assert page.get_by_role("radio", name="True", exact=True).is_checked()
    assert "retain_graph=True 保留了计算图保存的张量" in page.inner_text("body")
    assert page.locator("[data-testid='stGraphVizChart']").count() >= 3  # graph, 2 flag drawings
    assert "二次反向传播计算图实验室" in page.inner_text("body")
    _no_exception(page)
    screenshot(page, "graph-zh")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_flag_lab_draws_its_run(page, lang: str) -> None:  # noqa: ANN001
    page.goto(f"{page.base}/graph?lang={lang}")
    wait_for_app(page)
    page.wait_for_selector(SVG)
    charts = page.locator("[data-testid='stGraphVizChart']")
    charts.nth(2).scroll_into_view_if_needed()
    page.wait_for_function(
        "() => document.querySelectorAll(\"[data-testid='stGraphVizChart'] svg\").length >= 3"
    )
    off, on = charts.nth(1).inner_text(), charts.nth(2).inner_text()
    assert "(no grad_fn)" in off and "MulBackward0" not in off  # dy stands alone
    assert "MulBackward1" in on  # the recorded first backward pass: x**3's pow_backward
    freed = "saved tensor freed" if lang == "en" else "保存的张量已释放"
    assert freed in off  # retain_graph defaulted to False: the first call freed PowBackward0's x
    _no_exception(page)
    screenshot(page, f"graph-flags-{lang}")
