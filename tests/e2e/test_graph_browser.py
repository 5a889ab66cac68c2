"""The graph page in headless Chromium: step the graph from order 0 to 3 and watch the colours
of the drawn nodes change, pass by pass; the flag lab draws its run with and without
create_graph; its choices survive a language switch."""

from __future__ import annotations

import pytest

from hograd_ui.i18n import tr
from hograd_ui.tensor_drawing import PASS_COLOURS
from tests.e2e.conftest import screenshot, wait_for_app

pytestmark = pytest.mark.e2e

SVG = "[data-testid='stGraphVizChart'] svg"
# The fill of every node's shape in the page's graph (the first chart; the flag lab's drawings
# follow it), and of those with the newest pass's thick outline. A pass's border of 2 or more
# lines (graphviz peripheries) adds shapes filled "none" around the filled one.
FILLS = f"""() => Array.from(document.querySelector("{SVG}")
    .querySelectorAll("g.node > :is(polygon, ellipse)"))
    .map(s => [s.getAttribute("fill"), s.getAttribute("stroke-width")])"""


def node_fills(page) -> tuple[set[str], set[str]]:
    shapes = page.evaluate(FILLS)
    filled = {fill for fill, _ in shapes if fill and fill != "none"}
    thick = {fill for fill, width in shapes if width == "3.5" and fill != "none"}
    return filled, thick


RINGS = f"""() => Array.from(document.querySelector("{SVG}").querySelectorAll("g.node"))
    .map(g => [g.querySelector(":is(polygon, ellipse)[fill]:not([fill='none'])")
        ?.getAttribute("fill"), g.querySelectorAll(":is(polygon, ellipse)").length])"""


def node_rings(page) -> dict[str, set[int]]:
    """Fill -> how many lines the nodes of that fill are drawn with, as the browser drew them."""
    rings: dict[str, set[int]] = {}
    for fill, count in page.evaluate(RINGS):
        rings.setdefault(fill, set()).add(count)
    return rings


def wait_for_colours(page, colours: set[str]) -> None:
    """Wait until the drawn graph shows exactly these node colours (the chart re-renders)."""
    page.wait_for_function(
        f"""(want) => {{
            const fills = new Set(({FILLS})().map(p => p[0]).filter(f => f && f !== "none"));
            return fills.size === want.length && want.every(c => fills.has(c));
        }}""",
        arg=sorted(colours),
        timeout=120_000,
    )


def _no_exception(page) -> None:
    assert page.locator("[data-testid='stException']").count() == 0
    assert "Traceback" not in page.inner_text("body")


def test_step_the_graph_from_order_zero_to_three(page) -> None:
    page.goto(f"{page.base}/graph?lang=en")
    wait_for_app(page)
    page.wait_for_selector(SVG)
    _no_exception(page)
    wait_for_colours(page, set(PASS_COLOURS[:3]))  # opens at order 2 (double backward)
    # each pass's border survives the browser's Graphviz: 1, 1 (dotted) and 2 lines (WCAG 1.4.1)
    assert node_rings(page) == {PASS_COLOURS[k]: {n} for k, n in enumerate((1, 1, 2))}
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


def test_choices_survive_a_language_switch(page) -> None:
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
def test_flag_lab_draws_its_run(page, lang: str) -> None:
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


COUNT = {
    "en": r"Drawn: (\d+) backward functions?, (\d+) saved tensors?; freed: (\d+)\.",
    "zh": r"图中：(\d+) 个反向函数，(\d+) 个保存的张量；已释放：(\d+) 个。",
}


def drawn_counts(page, lang: str) -> list[tuple[int, int, int]]:
    """The counts written under the flag lab's two drawings (create_graph False, then True)."""
    import re

    found = re.findall(COUNT[lang], page.inner_text("body"))
    return [tuple(int(n) for n in row) for row in found]


def core_counts(create_graph: bool) -> tuple[int, int, int]:
    from hograd_core import parse
    from hograd_core.flaglab.flags import FlagSettings, run_flags

    return run_flags(parse("x**3"), 0.7, FlagSettings(create_graph=create_graph)).drawing.counts


def drawn_boxes(page, nth: int) -> int:
    """Backward-function boxes in the nth graphviz chart's SVG: one filled polygon each (the
    further lines of a pass's border are polygons filled "none")."""
    return page.evaluate(
        f"""() => document.querySelectorAll("[data-testid='stGraphVizChart']")[{nth}]
            .querySelectorAll("g.node > polygon:not([fill='none'])").length"""
    )


def settled_boxes(page, charts: tuple[int, ...], expected: tuple[int, ...]) -> tuple[int, ...]:
    """The boxes in each of `charts`, once they show `expected` or after 120 s. Graphviz draws
    each chart when its layout is ready, so just after a rerun one chart can still hold the
    drawing it had before; a page that keeps drawing the wrong graph still fails."""
    import contextlib

    from playwright.sync_api import TimeoutError as Timeout

    with contextlib.suppress(Timeout):  # the assertion after says what was drawn
        page.wait_for_function(
            """([charts, expected]) => charts.every((nth, i) => {
                const chart = document.querySelectorAll("[data-testid='stGraphVizChart']")[nth];
                return chart && chart.querySelectorAll("g.node > polygon:not([fill='none'])")
                    .length === expected[i];
            })""",
            arg=[list(charts), list(expected)],
            timeout=120_000,
        )
    return tuple(drawn_boxes(page, nth) for nth in charts)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_flip_create_graph_and_read_the_counts(page, lang: str) -> None:
    """Flip create_graph off, on and off again: the counts on the page and the boxes drawn
    equal the core's counts of the real objects, and the run shown follows the switch."""
    page.goto(f"{page.base}/graph?lang={lang}")
    wait_for_app(page)
    page.wait_for_function(
        "() => document.querySelectorAll(\"[data-testid='stGraphVizChart'] svg\").length >= 3"
    )
    off, on = core_counts(False), core_counts(True)
    assert off[0] < on[0]  # create_graph=True hangs dy's graph from y's
    this_run = "the run with the flags as set" if lang == "en" else "即按当前参数运行的那次"
    for flip, create_graph in enumerate([False, True, False]):
        if flip:
            label = "create_graph" if lang == "en" else "create_graph（记录反向传播）"
            page.get_by_text(label, exact=True).first.click()
            wait_for_app(page)
        page.wait_for_function(
            "([pattern, n]) => (document.body.innerText.match(new RegExp(pattern, 'g')) || [])"
            ".length === n",
            arg=[COUNT[lang], 2],
        )
        assert drawn_counts(page, lang) == [off, on]
        assert settled_boxes(page, (1, 2), (off[0], on[0])) == (off[0], on[0])
        # the drawing marked as the run shown above follows the switch
        assert f"create_graph={create_graph} · {this_run}" in page.inner_text("body")
        if create_graph:
            page.locator("[data-testid='stGraphVizChart']").nth(2).scroll_into_view_if_needed()
            screenshot(page, f"graph-flip-on-{lang}")
    _no_exception(page)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_hvp_graph_of_the_seed(page, lang: str) -> None:
    page.goto(f"{page.base}/graph?lang={lang}&graph.fn=w1**2*sin(w2)")
    wait_for_app(page)
    # the function's own box, by its label: the first textbox was once the vector's (CI)
    box = page.get_by_role("textbox", name=tr("graph.fn.label", lang), exact=True)
    box.fill("w1**2*sin(w2)")
    box.press("Enter")
    wait_for_app(page)
    page.wait_for_selector(SVG)
    body = page.inner_text("body")
    assert "∇f = (2, 0)" in body and "H v = (1, -1)" in body
    # 5 + 7 + 2 backward functions, as tests/core/test_hvp_graph.py works out by hand
    assert drawn_boxes(page, 0) == 14
    page.locator("[data-testid='stGraphVizChart']").first.scroll_into_view_if_needed()
    screenshot(page, f"graph-hvp-{lang}")
    _no_exception(page)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_classic_case_leaves_its_drawing(page, lang: str) -> None:
    """The in-place case: the drawing under it greys the saved tensor that was changed in
    place and marks the function that raised."""
    page.goto(f"{page.base}/graph?lang={lang}")
    wait_for_app(page)
    page.wait_for_selector(SVG)
    name = "In-place change of a saved tensor" if lang == "en" else "原地修改了被保存的张量"
    box = page.get_by_label("Case" if lang == "en" else "案例", exact=True)
    box.click()
    box.fill(name)  # the selectbox filters its options as one types
    page.keyboard.press("Enter")
    wait_for_app(page)
    words = ("changed in place", "raised here") if lang == "en" else ("原地修改", "在这里报错")
    page.wait_for_function(
        """(words) => {
            const charts = document.querySelectorAll("[data-testid='stGraphVizChart']");
            const last = charts[charts.length - 1];
            return !!last && words.every(w => last.innerText.includes(w));
        }""",
        arg=list(words),
        timeout=120_000,
    )
    page.locator("[data-testid='stGraphVizChart']").last.scroll_into_view_if_needed()
    screenshot(page, f"graph-case-inplace-{lang}")
    _no_exception(page)


def torchviz_nodes() -> int:
    """Nodes in torchviz's DOT for the page's default run (x**3 at 0.7, every flag at its
    default), made here as the server makes it."""
    import re

    from hograd_core import parse
    from hograd_core.flaglab.flags import FlagSettings, run_flags
    from hograd_labs.graph.cached import torchviz_views

    outcome = run_flags(parse("x**3"), 0.7, FlagSettings(), view=torchviz_views)
    dot = dict(outcome.views)["dot:False,False"]
    return len(re.findall(r"^\t\S+ \[label=", dot, re.M))


TORCHVIZ_TITLE = {"en": "The same tensors through torchviz", "zh": "用 torchviz 看同样的张量"}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_torchviz_view_draws_its_nodes_beside_the_other_graphs(page, lang: str) -> None:
    """Issue 36, finding 4: the torchviz view opened to an empty element after the page's other
    Graphviz charts (a label that starts with a line break, which torchviz writes for an
    unnamed tensor). Opened, it draws every node torchviz wrote for the page's run."""
    # a link that names the view's switches opens it; off, torchviz reads no saved tensor (the
    # default run freed some: with show_saved it would say so instead of drawing)
    page.goto(f"{page.base}/graph?lang={lang}&graph.tv.attrs=false&graph.tv.saved=false")
    wait_for_app(page)
    box = page.locator("[data-testid='stExpander']", has_text=TORCHVIZ_TITLE[lang])
    box.scroll_into_view_if_needed()
    nodes = box.locator("[data-testid='stGraphVizChart'] svg g.node")
    nodes.first.wait_for(timeout=120_000)
    assert nodes.count() == torchviz_nodes()  # every node torchviz wrote is drawn
    text = box.locator("[data-testid='stGraphVizChart']").inner_text()
    assert "PowBackward0" in text and "AccumulateGrad" in text
    # not alone: graphviz draws each chart when it is ready, so wait for the others to appear
    # (a page whose other charts never draw still fails here)
    charts = "[data-testid='stGraphVizChart'] svg"
    page.wait_for_function(
        f"() => document.querySelectorAll({charts!r}).length >= 4", timeout=120_000
    )
    assert page.locator(charts).count() >= 4
    _no_exception(page)
    screenshot(page, f"graph-torchviz-{lang}")
