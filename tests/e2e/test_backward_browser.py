"""The custom-Function lab in headless Chromium: each variant one click away, with what it
shows (the graph's nodes, PyTorch's words), kept in the link; the script downloads as shown."""

from __future__ import annotations

import pytest

from hograd_labs.backward.compute import lab, script
from tests.e2e.conftest import download, screenshot, wait_for_app

pytestmark = pytest.mark.e2e

SVG = "[data-testid='stGraphVizChart'] svg"
OPEN = "backward?lang=en&backward.f=x%5E3&backward.b=3*x%5E2*g"
LABELS = {
    "written": "As written",
    "detached": "On detached tensors",
    "once": "@once_differentiable",
    "second_function": "Double backward as a second Function",
}


def _open(page, variant: str) -> str:
    page.goto(f"{page.base}/{OPEN}")
    wait_for_app(page)
    page.wait_for_selector(SVG)
    if variant != "written":  # one click
        page.get_by_role("radio", name=LABELS[variant], exact=True).click()
        wait_for_app(page)
        page.wait_for_url(f"**backward.variant={variant}**")
    body = page.inner_text("[data-testid='stMain']")
    assert page.locator("[data-testid='stException']").count() == 0
    assert "Traceback" not in body
    return body


def _graph_text(page) -> str:
    page.wait_for_selector(SVG)
    return page.inner_text(SVG) if page.locator(SVG).count() else ""


def test_as_written(page) -> None:
    body = _open(page, "written")
    assert "gradcheck passed on 9 points" in body and "gradgradcheck passed on 9 points" in body
    assert "Saved for backward: x" in body
    assert "MyFuncBackward" in page.locator(SVG).first.text_content()
    source = download(page, "Download .py").decode()
    want = script("x^3", "3*x^2*g", lab("x^3", "3*x^2*g", [-2 + 0.5 * i for i in range(9)]).run)
    assert source == want  # the file is the script the page shows, made from what ran
    screenshot(page, "backward-written-en")


def test_detached(page) -> None:
    body = _open(page, "detached")
    assert "The second backward pass raised nothing" in body
    assert "gradgradcheck failed on 9 points" in body and "Jacobian mismatch" in body
    assert "d²y/dx² = None" in page.locator(SVG).first.text_content()
    screenshot(page, "backward-detached-en")


def test_once_differentiable(page) -> None:
    body = _open(page, "once")
    assert (
        "trying to differentiate twice a function that was marked with @once_differentiable" in body
    )
    assert "raised here" in page.locator(SVG).first.text_content()  # the Error node
    screenshot(page, "backward-once-en")


def test_second_function(page) -> None:
    body = _open(page, "second_function")
    assert "class MyFuncGrad(torch.autograd.Function)" in body
    assert "gradgradcheck passed on 9 points" in body
    assert "MyFuncGradBackward" in page.locator(SVG).first.text_content()
    screenshot(page, "backward-second-en")
