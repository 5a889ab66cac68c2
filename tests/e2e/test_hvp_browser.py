"""The Hessian-vector product page in real Chromium: both modes, both languages, a click on the
contour that moves p, the power-iteration animation, the verdict and code tabs, and the κ
builder's button."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import FUNCTION_BOX, screenshot, type_function, wait_for_app

pytestmark = pytest.mark.e2e


def _open(page, query: str = "") -> None:
    page.goto(f"{page.base}/hvp{query}")
    wait_for_app(page)
    page.wait_for_selector("[data-testid='stMetric']", timeout=120_000)
    page.wait_for_selector(".js-plotly-plot", timeout=120_000)
    wait_for_app(page)


def _no_exception(page) -> None:
    assert page.locator("[data-testid='stException']").count() == 0
    assert "Traceback" not in page.inner_text("body")


def _network(page, label: str) -> None:
    page.get_by_text(label, exact=True).click()
    wait_for_app(page, timeout=120_000)
    page.wait_for_selector("[data-testid='stMetric']", timeout=120_000)
    wait_for_app(page, timeout=120_000)


def test_typed_function_mode(page) -> None:
    _open(page)
    _no_exception(page)
    body = page.inner_text("body")
    assert "Hessian-vector products and curvature" in body
    assert "Curvature along v" in body and "not critical" in body
    assert page.locator(".js-plotly-plot").count() >= 1
    screenshot(page, "hvp-typed-en")


def test_click_on_the_contour_moves_p(page) -> None:
    _open(page)
    w1 = page.locator("[data-testid='stSlider']").filter(has_text="w1").first  # p's, then v's
    before = w1.locator("input[type=range]").input_value()
    plot = page.locator(".js-plotly-plot").first
    plot.scroll_into_view_if_needed()
    box = plot.locator(".nsewdrag").first.bounding_box()
    page.mouse.click(box["x"] + 0.2 * box["width"], box["y"] + 0.25 * box["height"])
    for _ in range(240):  # the rerun replaces the slider: poll it (120 s at most), not a handle
        page.wait_for_timeout(500)
        if w1.locator("input[type=range]").input_value() != before:
            break
    else:
        pytest.fail(f"p did not move after the click (w1 stayed {before})")
    wait_for_app(page)
    _no_exception(page)


def test_power_iteration_plays(page) -> None:
    _open(page)
    page.get_by_role("tab", name="Power iteration").click()
    page.get_by_text("Play", exact=False).first.click()
    page.wait_for_function(
        "() => [...document.querySelectorAll('.gtitle')]"
        ".some(t => /step ([1-9]|[1-3][0-9]):/.test(t.textContent))",
        timeout=120_000,
    )  # the figure's title follows the animation frame by frame
    _no_exception(page)
    screenshot(page, "hvp-power-en")


def test_network_mode(page) -> None:
    _open(page)
    _network(page, "A neural network")
    _no_exception(page)
    body = page.inner_text("body")
    assert "1,210" in body and "Lanczos" in body
    assert page.locator(".js-plotly-plot").count() >= 1
    screenshot(page, "hvp-network-en")


def test_chinese_both_modes(page) -> None:
    _open(page, "?lang=zh")
    _no_exception(page)
    assert "Hessian-向量积与曲率" in page.inner_text("body")
    screenshot(page, "hvp-typed-zh")
    _network(page, "神经网络")
    _no_exception(page)
    assert "参数个数 n" in page.inner_text("body")
    screenshot(page, "hvp-network-zh")


def _tab(page, name: str) -> None:
    page.get_by_role("tab", name=name).click()
    wait_for_app(page)


def test_verdict_and_code_tabs(page) -> None:
    _open(page)
    _tab(page, "Hessian and eigenvalues")
    body = page.inner_text("body")
    assert "Not a critical point." in body and "Saddle" not in body
    assert "sufficient for a strict local minimum or maximum, but not necessary" in body
    screenshot(page, "hvp-hessian-en")
    _tab(page, "Hv three ways")
    code = page.locator("[data-testid='stCode']").first.inner_text()
    assert "def f(w):" in code and "torch.autograd.functional.vhp" in code
    _no_exception(page)
    screenshot(page, "hvp-ways-en")


def test_the_kappa_button_replaces_f_and_says_so(page) -> None:
    _open(page)
    type_function(page, "x^3 + y^2")
    box = page.locator(FUNCTION_BOX).first
    assert box.input_value() == "x^3 + y^2"
    page.get_by_role("button", name="Replace f with the quadratic for κ = 10").click()
    wait_for_app(page)
    assert box.input_value() == "((x+y)^2 + 10*(y-x)^2)/4"
    assert "f was replaced by the quadratic for κ = 10" in page.inner_text("body")
    _tab(page, "Power iteration")
    assert "about 0.01, its square" in page.inner_text("body")  # |λ₂/λ₁|² = (1/10)²
    _no_exception(page)
    screenshot(page, "hvp-kappa-power-en")


def test_chinese_verdict_and_power(page) -> None:
    _open(page, "?lang=zh")
    _tab(page, "Hessian 与特征值")
    body = page.inner_text("body")
    assert "不是临界点。" in body and "并非必要" in body
    screenshot(page, "hvp-hessian-zh")
    _tab(page, "幂迭代")
    assert "即它的平方" in page.inner_text("body")
    _no_exception(page)
    screenshot(page, "hvp-power-zh")
