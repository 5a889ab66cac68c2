"""The MAML tab in real Chromium: a student trains (the form's Run), moves the adaptation
slider, and the curves plotly drew are checked against the core's; screenshots in both
languages."""

from __future__ import annotations

import numpy as np
import pytest

from hograd_labs.maml.compute import METHODS, MamlConfig, NewSine, adapt
from hograd_labs.maml.compute import run as meta_train
from hograd_ui.i18n import tr
from tests.arrays import plotly_array
from tests.e2e.conftest import screenshot, wait_for_app

pytestmark = pytest.mark.e2e

TAB = {"en": "MAML: learning to adapt", "zh": "MAML：学会快速适应"}
NAMES = {
    "en": {
        "second": "second-order MAML",
        "first": "first-order MAML",
        "pretrain": "pre-training on all tasks",
    },
    "zh": {"second": "二阶 MAML", "first": "一阶 MAML", "pretrain": "在所有任务上预训练"},
}


def _open(page, lang: str, query: str = "") -> None:
    page.goto(f"{page.base}/why?lang={lang}{query}")
    wait_for_app(page, timeout=120_000)
    page.get_by_role("tab", name=TAB[lang]).click()
    wait_for_app(page, timeout=120_000)
    page.wait_for_selector(".js-plotly-plot", timeout=120_000)
    wait_for_app(page, timeout=120_000)


def _trace(page, name: str, axis: str = "y") -> np.ndarray:
    """The numbers of the drawn trace called ``name`` (as plotly.js holds them)."""
    values = page.evaluate(
        "([name, axis]) => { for (const p of document.querySelectorAll('.js-plotly-plot'))"
        " for (const t of (p.data || [])) if (t.name === name) { const v = t[axis];"
        " return ArrayBuffer.isView(v) ? Array.from(v) : v; }"
        " return null; }",
        [name, axis],
    )
    assert values is not None, name
    return np.asarray(values, dtype=float) if isinstance(values, list) else plotly_array(values)


def _title_of_first_chart(page) -> str:
    return page.evaluate(
        "() => { const p = document.querySelector('.js-plotly-plot'); return p.layout.title.text; }"
    )


def _no_exception(page) -> None:
    assert page.locator("[data-testid='stException']").count() == 0
    assert "Traceback" not in page.inner_text("body")


def _shot(page, name: str, selector: str = ".js-plotly-plot") -> None:
    """A screenshot with ``selector`` in view (the page scrolls inside Streamlit's main
    container, so a full-page shot would show only its top)."""
    page.locator(selector).first.scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    screenshot(page, name)


def test_maml_tab_trains_and_draws_the_cores_curves(page) -> None:
    # a smaller run than the default, as a link would set it, then trained with Run
    _open(page, "en", "&why.maml.hidden=16&why.maml.tasks=4")
    page.get_by_role("button", name="Run").click()
    wait_for_app(page, timeout=120_000)
    _no_exception(page)
    run = meta_train(MamlConfig(hidden=16, tasks=4))
    a = adapt(run, NewSine(3.0, 1.0))
    for method in METHODS:
        drawn = _trace(page, NAMES["en"][method])
        np.testing.assert_allclose(drawn[:200], a.curves[method][1], rtol=1e-12)
    # the adaptation slider: focus its thumb and step it up with the keyboard, 1 -> 4
    slider = page.get_by_role("slider", name="adaptation steps")
    slider.focus()
    for _ in range(3):
        slider.press("ArrowRight")
    wait_for_app(page, timeout=120_000)
    page.wait_for_function(
        "() => document.querySelector('.js-plotly-plot').layout.title.text.includes('4')",
        timeout=120_000,
    )
    assert "after 4 adaptation step(s)" in _title_of_first_chart(page)
    for method in METHODS:
        np.testing.assert_allclose(
            _trace(page, NAMES["en"][method]), a.curves[method][4], rtol=1e-12
        )
    script = page.locator("[data-testid='stExpander']", has_text=tr("downloads.script.title", "en"))
    script.locator("summary").click()  # the script is folded until asked for
    wait_for_app(page, timeout=120_000)
    script.locator("[data-testid='stCode']").wait_for()
    body = page.inner_text("body")
    assert "create_graph=create_graph" in body and "What first-order MAML leaves out" in body
    _shot(page, "why-maml-en")
    _shot(page, "why-maml-cost-en", "[data-testid='stMetric']")
    _shot(page, "why-maml-training-en", ".js-plotly-plot >> nth=2")
    _open(page, "zh", "&why.maml.hidden=16&why.maml.tasks=4")
    page.get_by_role("button", name="运行").click()
    wait_for_app(page, timeout=120_000)
    _no_exception(page)
    np.testing.assert_allclose(
        _trace(page, NAMES["zh"]["second"]), a.curves["second"][1], rtol=1e-12
    )
    assert "一阶 MAML 丢掉了什么" in page.inner_text("body")
    _shot(page, "why-maml-zh")
    _shot(page, "why-maml-cost-zh", "[data-testid='stMetric']")
