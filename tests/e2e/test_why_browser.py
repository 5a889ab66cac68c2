"""The page "Why gradients of gradients" in real Chromium: each tab runs its experiment, and the
numbers plotly drew are checked against the core's; screenshots in both languages."""

from __future__ import annotations

import numpy as np
import pytest

from hograd_core import parse
from hograd_labs.hf import compute as hf
from hograd_labs.newton import compute as nt
from hograd_labs.newton import presets
from hograd_labs.newton.cached import torch_function
from hograd_labs.stability import compute as sb
from hograd_labs.stats import compute as gs
from tests.arrays import plotly_array
from tests.e2e.conftest import screenshot, wait_for_app

pytestmark = pytest.mark.e2e

TABS = {
    "en": {
        "hf": "Hessian-free Newton",
        "stability": "The stability limit",
        "stats": "Gradient statistics",
    },
    "zh": {"hf": "无 Hessian 牛顿法", "stability": "稳定性极限", "stats": "梯度统计"},
}


def _open(page, lang: str = "en", tab: str | None = None) -> None:
    page.goto(f"{page.base}/why?lang={lang}")
    wait_for_app(page, timeout=120_000)
    if tab is not None:
        page.get_by_role("tab", name=TABS[lang][tab]).click()
        wait_for_app(page, timeout=120_000)
    page.wait_for_selector(".js-plotly-plot", timeout=120_000)
    wait_for_app(page, timeout=120_000)


def _trace(page, name: str, axis: str = "y") -> np.ndarray:
    """The numbers of the drawn trace called ``name`` (as plotly.js holds them)."""
    page.wait_for_function(
        "name => [...document.querySelectorAll('.js-plotly-plot')]"
        ".some(p => (p.data || []).some(t => t.name === name))",
        arg=name,
        timeout=120_000,
    )
    values = page.evaluate(
        "([name, axis]) => { for (const p of document.querySelectorAll('.js-plotly-plot'))"
        " for (const t of (p.data || [])) if (t.name === name) { const v = t[axis];"
        " return ArrayBuffer.isView(v) ? Array.from(v, x => Number.isNaN(x) ? null : x) : v; }"
        " return null; }",
        [name, axis],
    )  # a list, or plotly's {dtype, bdata} as the server sent it
    if isinstance(values, list):
        return np.array([np.nan if v is None else v for v in values], dtype=float)
    return plotly_array(values)


def _shot(page, name: str, selector: str = ".js-plotly-plot") -> None:
    """A screenshot with the experiment in view (the page scrolls inside Streamlit's main
    container, so a full-page shot would show only its top)."""
    page.locator(selector).first.scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    screenshot(page, name)


def _no_exception(page) -> None:
    assert page.locator("[data-testid='stException']").count() == 0
    assert "Traceback" not in page.inner_text("body")


def test_newton_tab(page) -> None:
    _open(page)
    _no_exception(page)
    text = next(iter(presets.PRESETS))  # the first preset: Rosenbrock
    p = presets.PRESETS[text]
    race = nt.run(
        nt.RaceConfig(start=p.start, steps=p.steps, lr=p.lr), f=torch_function(parse(text))
    )
    newton = next(q for q in race.paths if q.method == "newton")
    np.testing.assert_allclose(_trace(page, "Newton", "x"), newton.points[:, 0], rtol=1e-12)
    np.testing.assert_allclose(_trace(page, "Newton", "y"), newton.points[:, 1], rtol=1e-12)
    assert "create_graph=True" in page.inner_text("body")
    _shot(page, "why-newton-en")
    _open(page, "zh")
    _no_exception(page)
    assert "牛顿法与梯度下降" in page.inner_text("body")
    _shot(page, "why-newton-zh")


def test_hessian_free_tab(page) -> None:
    _open(page, tab="hf")
    page.get_by_role("button", name="Run").click()  # the form's experiment, as a student runs it
    wait_for_app(page, timeout=120_000)
    _no_exception(page)
    run = hf.run(hf.HFConfig())
    np.testing.assert_allclose(_trace(page, "Hessian-free Newton"), run.hf_losses, rtol=1e-12)
    passes = int(run.hf_passes[-1])  # beyond them the run goes on for wall time: not repeatable
    np.testing.assert_allclose(
        _trace(page, "Adam")[: passes + 1], run.adam_losses[: passes + 1], rtol=1e-12
    )
    _shot(page, "why-hf-en")
    _open(page, "zh", tab="hf")
    _no_exception(page)
    assert "每步 HVP 次数" in page.inner_text("body")
    _shot(page, "why-hf-zh")


def test_stability_tab(page) -> None:
    _open(page, tab="stability")
    _no_exception(page)
    quad = sb.run_quadratic(sb.StabilityConfig())
    np.testing.assert_allclose(_trace(page, "gradient descent"), quad.losses, rtol=1e-12)
    assert "f shrinks" in page.inner_text("body")
    _shot(page, "why-stability-quadratic-en")
    page.get_by_text("the small network", exact=True).click()
    wait_for_app(page, timeout=120_000)
    run = sb.run(sb.StabilityConfig())
    np.testing.assert_allclose(_trace(page, "λ_max"), run.sharpness, rtol=1e-12)
    _no_exception(page)
    _shot(page, "why-stability-network-en")
    _open(page, "zh", tab="stability")
    _no_exception(page)
    assert "稳定性极限" in page.inner_text("body")
    _shot(page, "why-stability-zh")


def test_gradient_statistics_tab(page) -> None:
    _open(page, tab="stats")
    page.get_by_role("button", name="exploding (ReLU, gain 2, lr 0.2)").click()
    wait_for_app(page, timeout=120_000)
    _no_exception(page)
    stats = gs.run(gs.SCENARIOS["explode"])
    drawn = _trace(page, "W1")
    expected = np.where(np.isfinite(stats.layer_norms[:, 0]), stats.layer_norms[:, 0], np.nan)
    np.testing.assert_allclose(drawn, expected, rtol=1e-12)
    body = page.inner_text("body")
    assert f"NaN check: at step {stats.nan_step}" in body and stats.nan_source[0] in body
    _shot(page, "why-stats-en", "[data-testid='stAlert']")
    _open(page, "zh", tab="stats")
    page.get_by_role("button", name="float32 中的 NaN（softmax 取对数）").click()
    wait_for_app(page, timeout=120_000)
    _no_exception(page)
    assert "LogBackward0" in page.inner_text("body")
    _shot(page, "why-stats-zh", "[data-testid='stAlert']")
