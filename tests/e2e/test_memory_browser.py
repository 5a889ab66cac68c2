"""The memory lab and the error decoder in headless Chromium, in both languages: the numbers
the module computes, the download that is the module, a pasted message decoded, hostile text
shown as text."""

from __future__ import annotations

import inspect

import pytest

from hograd_labs.memory import compute
from hograd_labs.memory.compute import MemoryConfig
from hograd_labs.memory.figures import kib
from tests.e2e.conftest import download, screenshot, wait_for_app

pytestmark = pytest.mark.e2e

SMALL = "memory.width=8&memory.depth=2&memory.batch=32&memory.micro=2&memory.orders=2"
CONFIG = MemoryConfig(width=8, depth=2, batch=32, micro=2, orders=2)
MESSAGE = "RuntimeError: Trying to backward through the graph a second time"


def _body(page) -> str:
    body = page.inner_text("[data-testid='stMain']")
    assert page.locator("[data-testid='stException']").count() == 0
    assert "Traceback" not in body
    return body


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_memory_page_shows_the_modules_numbers(page, lang: str) -> None:
    page.goto(f"{page.base}/memory?lang={lang}&{SMALL}")
    wait_for_app(page)
    run = compute.run(CONFIG)
    page.get_by_text(kib(run.pass_bytes[0])).first.wait_for(timeout=120_000)
    # the page's later sections come in after the first: wait for its last measurement too
    page.get_by_text(run.reentrant_error[:60]).first.wait_for(timeout=120_000)
    body = _body(page)
    for size in (*run.pass_bytes, run.big_peak, run.micro_peak, run.checkpoint_forward_bytes):
        assert kib(size) in body
    assert run.reentrant_error in body
    title = "Memory under double backward" if lang == "en" else "二次反向传播的内存"
    assert title in body
    screenshot(page, f"memory-{lang}")
    for part, heading in enumerate(page.locator("[data-testid='stMain'] h2").all()[1:], 2):
        heading.scroll_into_view_if_needed()  # each measurement's section, looked at
        page.mouse.wheel(0, 500)
        screenshot(page, f"memory-{lang}-{part}")
    source = download(page, "Download .py" if lang == "en" else "下载 .py").decode()
    assert source == inspect.getsource(compute).replace(
        "    config = MemoryConfig()", f"    config = {CONFIG!r}"
    )


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_pasted_message_finds_its_case(page, lang: str) -> None:
    page.goto(f"{page.base}/backward?lang={lang}")
    wait_for_app(page)
    box = page.locator("[data-testid='stTextArea'] textarea").first
    box.fill('Traceback (most recent call last):\n  File "a.py", line 3\n' + MESSAGE)
    box.press("Control+Enter")
    wait_for_app(page)
    page.wait_for_selector("[data-testid='stGraphVizChart'] >> nth=1")
    body = _body(page)
    assert ("The graph was used and freed already" if lang == "en" else "已知的消息") in body
    assert "retain_graph=True" in body
    screenshot(page, f"decoder-{lang}")
    page.locator("[data-testid='stGraphVizChart']").nth(1).scroll_into_view_if_needed()
    screenshot(page, f"decoder-{lang}-graph")
    link = page.get_by_text(
        "Open this case on the graph page" if lang == "en" else "在计算图页面打开这个案例"
    )
    link.click()
    page.wait_for_url("**/graph?**graph.case=freed_graph**")
    wait_for_app(page)
    # the graph page runs the case: its transcript ends in the same message
    page.get_by_text(MESSAGE.split(": ")[1]).first.wait_for(timeout=120_000)
    assert page.locator("[data-testid='stException']").count() == 0


def test_hostile_text_is_shown_as_text(page) -> None:
    page.goto(f"{page.base}/backward?lang=en")
    wait_for_app(page)
    box = page.locator("[data-testid='stTextArea'] textarea").first
    box.fill("<img src=x onerror=\"document.title='hacked'\"> **bold** # heading")
    box.press("Control+Enter")
    wait_for_app(page)
    body = _body(page)
    assert "The decoder cannot place this message" in body
    assert page.title() != "hacked"
    assert page.locator("[data-testid='stMain'] img[src='x']").count() == 0
    assert page.locator("[data-testid='stMain'] strong", has_text="bold").count() == 0
