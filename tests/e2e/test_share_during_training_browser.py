"""Share this view while a tab trains (issue 36, finding 21), in real Chromium: the box opened
during MAML's meta-training names the open tab and its settings, and opening it does not start
the training again. Every progress value the page shows is recorded as it appears (a
MutationObserver); a training started again would show a smaller value after a larger one."""

from __future__ import annotations

import re

import pytest

from hograd_labs.maml.compute import METHODS, MamlConfig
from hograd_ui.i18n import tr
from tests.e2e.conftest import screenshot, wait_for_app

pytestmark = pytest.mark.e2e

TAB = {"en": "MAML: learning to adapt", "zh": "MAML：学会快速适应"}
SEED = {"en": 731, "zh": 732}  # settings no other test trains: this test's run is not cached
STEPS = 500  # meta-steps of each method (within the budget), not the default 400
TOTAL = STEPS * len(METHODS)

#: Every "done/total" the progress bars show, in order, and "share" when the box was opened.
RECORD = """() => {
  window.__progress = [];
  const seen = () => {
    for (const bar of document.querySelectorAll('[data-testid="stProgress"]')) {
      const m = bar.innerText.match(/(\\d+)\\s*\\/\\s*(\\d+)/);
      if (m) {
        const value = [Number(m[1]), Number(m[2])];
        const last = window.__progress[window.__progress.length - 1];
        if (!last || last[0] !== value[0] || last[1] !== value[1]) window.__progress.push(value);
      }
    }
  };
  new MutationObserver(seen).observe(document.body,
    {subtree: true, childList: true, characterData: true});
}"""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_share_box_opened_while_a_tab_trains(page, lang: str) -> None:
    seed = SEED[lang]
    # the settings come from a link opened on the first tab; the MAML tab trains when opened
    page.goto(f"{page.base}/why?lang={lang}&why.maml.steps={STEPS}&why.maml.seed={seed}")
    wait_for_app(page, timeout=120_000)
    page.evaluate(RECORD)
    # this training (by its number of steps) waits after its first step until the box is read
    page.hold.write_text(str(TOTAL), encoding="ascii")
    try:
        page.get_by_role("tab", name=TAB[lang]).click()
        page.wait_for_function(
            f"() => window.__progress.some(([done, total]) => total === {TOTAL} && done > 0)",
            timeout=120_000,
        )
        page.evaluate("() => window.__progress.push('share')")
        page.get_by_text(tr("links.share", lang)).click()
        box = page.locator("[data-testid='stPopoverBody'] [data-testid='stCode']")
        box.wait_for()
        link = box.inner_text()
        # read while the training runs: its progress bar is still there, below its total
        running = page.evaluate(
            f"() => [...document.querySelectorAll('[data-testid=\"stProgress\"]')]"
            f".some(b => /\\/\\s*{TOTAL}/.test(b.innerText) && !b.innerText.includes('{TOTAL}/'))"
        )
    finally:
        page.hold.unlink(missing_ok=True)
    assert running, "the box must be opened while the training runs"
    assert "why.tab=maml" in link
    assert f"why.maml.seed={seed}" in link and f"why.maml.steps={STEPS}" in link
    screenshot(page, f"share-during-training-{lang}")
    # the training ends (its charts drawn), and was never started again
    page.wait_for_selector(".js-plotly-plot", timeout=240_000)
    wait_for_app(page, timeout=240_000)
    record = page.evaluate("() => window.__progress")
    mark = record.index("share")
    before = [done for done, total in record[:mark] if total == TOTAL]
    after = [done for done, total in record[mark + 1 :] if total == TOTAL]
    assert before and after, record  # the box was opened between two progress values
    done = before + after
    assert all(a <= b for a, b in zip(done, done[1:], strict=False)), done  # never back
    assert re.search(r"why\.tab=maml", page.url)
    assert page.locator("[data-testid='stException']").count() == 0
    # the box, open still, now holds the finished view's link: the same tab and settings
    assert "why.tab=maml" in box.inner_text()
    assert MamlConfig().meta_steps != STEPS  # the link's value is not the default
