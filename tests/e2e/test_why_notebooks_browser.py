"""The notebook downloads of "Why gradients of gradients" and of the HVP page's network mode in
real Chromium: the click delivers a valid notebook whose code is the script the page shows and
whose prose is in the page's language. Screenshots of the download rows go to tests/artifacts/.
(The notebooks' numbers are checked in a kernel by tests/core and tests/app.)"""

from __future__ import annotations

import nbformat
import pytest

from hograd_ui.i18n import tr
from hograd_ui.notebook import percent_cells
from tests.e2e.conftest import ARTIFACTS, download, wait_for_app


def _text(page, label: str) -> str:
    return download(page, label).decode("utf-8")


pytestmark = pytest.mark.e2e


def _shot(page, label: str, name: str) -> None:
    button = page.locator("[data-testid='stDownloadButton']", has_text=label).first
    button.scroll_into_view_if_needed()
    page.evaluate("window.scrollBy(0, 200)")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_newton_tab_notebook_downloads(page, lang: str) -> None:
    page.goto(f"{page.base}/why?lang={lang}")
    wait_for_app(page, timeout=120_000)
    page.wait_for_selector(".js-plotly-plot", timeout=120_000)
    wait_for_app(page, timeout=120_000)
    label = tr("downloads.notebook", lang)
    _shot(page, label, f"why-notebook-newton-{lang}")
    nb = nbformat.reads(_text(page, label), as_version=4)
    assert nb.cells[0].source == tr("newton.nb.title", lang).strip("\n")
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    script = _text(page, tr("downloads.py", lang))
    assert code[: len(percent_cells(script))] == percent_cells(script)  # the .py, cut at # %%
    assert page.locator("[data-testid='stException']").count() == 0


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_hvp_network_notebook_downloads(page, lang: str) -> None:
    page.goto(f"{page.base}/hvp?lang={lang}&hvp.mode=network&hvp.net.steps=50")
    wait_for_app(page, timeout=120_000)
    page.wait_for_selector(".js-plotly-plot", timeout=120_000)
    wait_for_app(page, timeout=120_000)
    page.get_by_text(tr("hvp.net.nb.code", lang)).click()  # open the script's expander
    wait_for_app(page)
    label = tr("downloads.notebook", lang)
    _shot(page, label, f"hvp-network-notebook-{lang}")
    nb = nbformat.reads(_text(page, label), as_version=4)
    nbformat.validate(nb)
    assert nb.cells[0].source == tr("hvp.net.nb.title", lang, limit="2,000").strip("\n")
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    script = _text(page, tr("downloads.py", lang))  # the lab's compute.py, its settings filled
    assert "steps=50" in script
    assert code[: len(percent_cells(script))] == percent_cells(script)  # the .py, cut at # %%
    assert page.locator("[data-testid='stException']").count() == 0
