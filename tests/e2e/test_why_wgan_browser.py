"""The WGAN-GP tab in real Chromium: it trains, and the points, the histogram and the penalty's
gradients drawn are the core's; screenshots in both languages."""

from __future__ import annotations

import numpy as np
import pytest

from hograd_labs.wgan.compute import WganConfig, penalty_check
from hograd_labs.wgan.compute import run as train_wgan
from hograd_labs.wgan.figures import norm_counts
from tests.e2e.conftest import screenshot, wait_for_app
from tests.e2e.test_why_browser import _no_exception, _trace

pytestmark = pytest.mark.e2e

TAB = {"en": "WGAN-GP's gradient penalty", "zh": "WGAN-GP 的梯度惩罚"}


def _open(page, lang: str) -> None:
    page.goto(f"{page.base}/why?lang={lang}")
    wait_for_app(page, timeout=120_000)
    page.get_by_role("tab", name=TAB[lang]).click()
    wait_for_app(page, timeout=120_000)
    page.wait_for_selector(".js-plotly-plot", timeout=120_000)
    wait_for_app(page, timeout=120_000)


def _shot(page, name: str, selector: str) -> None:
    """A screenshot with ``selector``'s first match at the top of the view (the page scrolls
    inside Streamlit's main container, so a full-page shot shows only what is in view)."""
    page.locator(selector).first.evaluate("e => e.scrollIntoView({block: 'start'})")
    page.wait_for_timeout(500)
    screenshot(page, name)


def test_wgan_tab_trains_and_draws_the_cores_numbers(page) -> None:
    _open(page, "en")
    _no_exception(page)
    run = train_wgan(WganConfig())
    np.testing.assert_allclose(_trace(page, "generated", "x"), run.fake[-1][:, 0], rtol=1e-12)
    np.testing.assert_allclose(_trace(page, "generated", "y"), run.fake[-1][:, 1], rtol=1e-12)
    np.testing.assert_array_equal(_trace(page, "interpolates"), norm_counts(run.norms[-1]))
    body = page.inner_text("body")
    assert "create_graph=True" in body and "The silent bug" in body
    check = penalty_check(WganConfig())
    assert f"{check.with_graph[0]:.6g}" in body  # W1's row of the table, both ways
    assert "TanhBackwardBackward0" in page.locator("[data-testid='stGraphVizChart']").inner_text()
    _shot(page, "why-wgan-form-en", "[data-testid='stTabs']")
    _shot(page, "why-wgan-en", "[data-testid='stSlider']:has-text('Snapshot')")

    page.get_by_text("penalty without create_graph (the bug)", exact=True).click()
    page.get_by_text("a ring", exact=True).click()
    page.get_by_role("button", name="Run").click()  # the form's experiment, as a student runs it
    wait_for_app(page, timeout=120_000)
    _no_exception(page)
    bug = train_wgan(WganConfig(dataset="ring", mode="gp_no_graph"))
    np.testing.assert_allclose(_trace(page, "generated", "x"), bug.fake[-1][:, 0], rtol=1e-12)
    assert "number for number" in page.inner_text("body")
    _shot(page, "why-wgan-bug-en", "[data-testid='stTable']")
    _shot(page, "why-wgan-graph-en", "[data-testid='stGraphVizChart']")
    page.get_by_text("create_graph=False", exact=True).click()
    wait_for_app(page, timeout=120_000)
    assert "(no grad_fn)" in page.locator("[data-testid='stGraphVizChart']").inner_text()
    _shot(page, "why-wgan-graph-off-en", "[data-testid='stGraphVizChart']")

    _open(page, "zh")  # a fresh session: the defaults again, in Chinese
    _no_exception(page)
    np.testing.assert_allclose(_trace(page, "生成点", "x"), run.fake[-1][:, 0], rtol=1e-12)
    assert "无声的错误" in page.inner_text("body")
    _shot(page, "why-wgan-zh", ".js-plotly-plot")
    _shot(page, "why-wgan-graph-zh", "[data-testid='stTable']")
