"""The torch.func form of a "Why" tab's script in real Chromium: the download delivers it, the
expander shows it, both in the reader's language; screenshots in tests/artifacts/."""

from __future__ import annotations

import pytest

from hograd_labs.hf.cached import script
from hograd_labs.hf.compute import HFConfig, func_form_gaps, run
from hograd_ui.i18n import tr
from tests.e2e.conftest import ARTIFACTS, download, wait_for_app


def _text(page, label: str) -> str:
    return download(page, label).decode("utf-8")


pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_hessian_free_tab_delivers_and_shows_its_torch_func_form(page, lang: str) -> None:
    page.goto(f"{page.base}/why?lang={lang}")
    wait_for_app(page, timeout=120_000)
    page.get_by_role("tab", name=tr("hf.tab", lang)).click()
    wait_for_app(page, timeout=120_000)
    page.wait_for_selector(".js-plotly-plot", timeout=120_000)
    wait_for_app(page, timeout=120_000)
    plain = _text(page, tr("downloads.py", lang))
    func = _text(page, tr("downloads.func.py", lang))
    assert plain == script(HFConfig()).source
    rel = f"{func_form_gaps(run(HFConfig()))[0]:.1e}"  # measured, as the page does
    note = "".join(f"# {line}\n" for line in tr("hf.func.note", lang, rel=rel).splitlines())
    assert func == note + script(HFConfig(), func=True).source
    compile(func, "<downloaded>", "exec")
    expander = page.locator("[data-testid='stExpander']", has_text=tr("downloads.func.title", lang))
    expander.locator("summary").click()
    code = expander.locator("[data-testid='stCode']")
    code.wait_for(state="visible")
    assert "step = hf_step_func" in code.inner_text()
    assert tr("hf.func.note", lang).splitlines()[0] in code.inner_text()
    expander.scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"why-func-hf-{lang}.png"))
    assert page.locator("[data-testid='stException']").count() == 0
