"""The physics-informed network tab in real Chromium: it trains, the numbers plotly drew are
the lab's, switching create_graph off shows the silent bug; screenshots in both languages."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from hograd_labs.pinn import compute as core
from tests.arrays import plotly_array
from tests.e2e.conftest import screenshot, wait_for_app

pytestmark = pytest.mark.e2e

TAB = {"en": "Physics-informed network", "zh": "物理信息神经网络"}

# The numbers of the drawn trace called ``name``: a heat map's z as rows, a line's y.
_DRAWN = (
    "([name, axis]) => { for (const p of document.querySelectorAll('.js-plotly-plot'))"
    " for (const t of (p.data || [])) if (t.name === name) { const v = t[axis];"
    " const plain = a => ArrayBuffer.isView(a) ? Array.from(a) : a;"
    " return Array.isArray(v) ? v.map(plain) : plain(v); } return null; }"
)


def _open(page, lang: str) -> None:
    page.goto(f"{page.base}/why?lang={lang}")
    wait_for_app(page, timeout=120_000)
    page.get_by_role("tab", name=TAB[lang]).click()
    wait_for_app(page, timeout=120_000)
    page.wait_for_selector(".js-plotly-plot", timeout=120_000)
    wait_for_app(page, timeout=120_000)


def _drawn(page, name: str, axis: str) -> np.ndarray:
    page.wait_for_function(
        "name => [...document.querySelectorAll('.js-plotly-plot')]"
        ".some(p => (p.data || []).some(t => t.name === name))",
        arg=name,
        timeout=120_000,
    )
    values = page.evaluate(_DRAWN, [name, axis])  # or plotly's {dtype, bdata} as sent
    if isinstance(values, dict):
        shape = [int(n) for n in str(values.get("shape", "-1")).split(",")]  # "41, 41"
        return plotly_array(values).reshape(shape)
    return np.array(values, dtype=float)


def _shot(page, name: str, chart: int = 0) -> None:
    """A screenshot with chart number ``chart`` in view (the page scrolls inside Streamlit's
    main container, so a full-page shot would show only its top)."""
    page.locator(".js-plotly-plot").nth(chart).scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    screenshot(page, name)


def _no_exception(page) -> None:
    assert page.locator("[data-testid='stException']").count() == 0
    assert "Traceback" not in page.inner_text("body")


def test_pinn_tab_trains_and_shows_the_silent_bug(page) -> None:
    _open(page, "en")
    _no_exception(page)
    good = core.run(core.preset("heat"))
    np.testing.assert_allclose(_drawn(page, "network u(x, t)", "z"), good.u, rtol=1e-12)
    np.testing.assert_allclose(_drawn(page, "network, t = 0.5", "y"), good.u[20], rtol=1e-12)
    np.testing.assert_allclose(_drawn(page, "residual", "y"), good.terms[:, 0], rtol=1e-12)
    assert "Trained with create_graph=True" in page.inner_text("body")
    _shot(page, "why-pinn-en")

    page.locator(
        "[data-testid='stMain'] [data-testid='stCheckbox']", has_text="create_graph=True"
    ).click()
    page.get_by_role("button", name="Run").click()
    wait_for_app(page, timeout=120_000)
    _no_exception(page)
    bad = core.run(replace(core.preset("heat"), create_graph=False))
    page.wait_for_function(
        "() => document.body.innerText.includes('Trying to backward through the graph')"
    )
    np.testing.assert_allclose(
        _drawn(page, "residual of the equation", "z"), bad.residual, rtol=1e-12
    )
    np.testing.assert_allclose(_drawn(page, "residual", "y"), bad.terms[:, 0], rtol=1e-12)
    _shot(page, "why-pinn-silent-en")
    _shot(page, "why-pinn-silent-slices-en", chart=1)

    _open(page, "zh")
    _no_exception(page)
    body = page.inner_text("body")
    assert "物理信息神经网络" in body and "残差" in body
    _shot(page, "why-pinn-zh")
    _shot(page, "why-pinn-slices-zh", chart=1)

    page.get_by_text("波动：u_tt = c² u_xx", exact=False).click()  # the wave preset, in Chinese
    wait_for_app(page, timeout=120_000)
    _no_exception(page)
    wave = core.run(core.preset("wave"))
    np.testing.assert_allclose(_drawn(page, "网络，t = 0.5", "y"), wave.u[20], rtol=1e-12)
    assert "u_tt" in page.inner_text("body")
    _shot(page, "why-pinn-wave-zh")
    _shot(page, "why-pinn-wave-slices-zh", chart=1)
