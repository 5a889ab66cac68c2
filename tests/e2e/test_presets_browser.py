"""A preset's pill shows the function as typed: a pill's label is markdown, where
``x^2*y + sin(x*y)`` would set ``y + sin(x`` in italics and lose two stars."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import wait_for_app

ROOT = Path(__file__).resolve().parents[2]


def presets(path: str) -> list[str]:
    """The ``PRESETS`` of a page module (a list, or a dict's keys), read with ast, not run."""
    for node in ast.parse((ROOT / path).read_text()).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "PRESETS":
            return list(ast.literal_eval(node.value))
    raise AssertionError(f"{path} has no PRESETS")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_preset_pill_reads_as_typed(page, lang: str) -> None:
    typed = presets("hograd_labs/curvature/page.py")
    page.goto(f"{page.base}/why?why.tab=curvature&lang={lang}")
    wait_for_app(page, timeout=120_000)
    pills = page.locator("[data-testid='stMain'] [data-testid='stButtonGroup'] button")
    expect(pills.nth(len(typed) - 1)).to_be_visible(timeout=120_000)  # drawn, then read
    shown = [text.strip() for text in pills.all_inner_texts()]
    assert shown[: len(typed)] == typed
    pills.nth(1).click()  # the pill still picks its preset: a box holds it once its run ends
    page.wait_for_function(
        "t => [...document.querySelectorAll(\"[data-testid='stMain'] [data-testid='stTextInput']"
        ' input")].some(b => b.value === t)',
        arg=typed[1],
        timeout=120_000,
    )
