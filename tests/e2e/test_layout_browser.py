"""No label is cut short: on every page and tab, in both languages, on a 1024-pixel-wide window
(a small laptop, or a larger one zoomed) and in presentation mode on a 1920x1080 projector, no
text ends in an ellipsis because its box is too narrow (Streamlit cuts metric labels and
values, buttons, checkboxes and page links that way; hograd_ui/parts/present.py's WRAP_CSS wraps them)."""

from __future__ import annotations

import pytest

from benchmarks.first_screens import DRAWN_JS
from tests.e2e.conftest import wait_for_app

VIEWS = (
    "",
    "derivatives",
    "graph",
    "hvp",
    "hvp?hvp.mode=network",
    "lesson",
    *(
        f"why?why.tab={tab}"
        for tab in ("newton", "hf", "stability", "stats", "maml", "pinn", "wgan", "curvature")
    ),
)

#: How many elements the page holds: settled is when this stops changing between two idle checks
#: (the front end loads an element type's code when the first such element arrives, and can
#: draw it after the run has ended: the HVP page's metrics appear a moment after it is idle).
COUNT_JS = "() => document.querySelectorAll('[data-testid=\"stMain\"] *').length"


def _settle(pg) -> None:
    """Idle, every chart drawn, and the number of elements the same over two idle checks."""
    before = -1
    for _ in range(30):
        wait_for_app(pg)
        pg.wait_for_function(DRAWN_JS, timeout=120_000, polling=100)
        now = pg.evaluate(COUNT_JS)
        if now == before:
            return
        before = now
    raise AssertionError(f"{pg.url}: the page kept changing")


#: The texts of the elements in the page that the browser shows cut short: an ellipsis by CSS
#: and more text than the box holds.
CUT_JS = """() => [...document.querySelectorAll(
        '[data-testid="stMain"] *, [data-testid="stSidebar"] *')]
    .filter(e => getComputedStyle(e).textOverflow === 'ellipsis'
                 && e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1)
    .map(e => e.innerText.slice(0, 80))"""

#: A label that cannot fit, put into the page for a moment: the check must find it.
PROBE_JS = """() => {
    const d = document.createElement('div');
    d.style.cssText = 'width: 40px; overflow: hidden; white-space: nowrap; text-overflow: ellipsis';
    d.innerText = 'a label far too long for its forty pixels';
    document.querySelector('[data-testid="stMain"]').appendChild(d);
    const found = (__CUT__)();
    d.remove();
    return found;
}""".replace("__CUT__", CUT_JS)


def _cut(browser, url: str, width: int, height: int, query: str) -> dict[str, list[str]]:
    """The cut texts of every view, by view (views with none left out)."""
    ctx = browser.new_context(viewport={"width": width, "height": height})
    try:
        pg = ctx.new_page()
        pg.set_default_timeout(120_000)
        found = {}
        for i, view in enumerate(VIEWS):
            pg.goto(f"{url}/{view}{'&' if '?' in view else '?'}{query}")
            _settle(pg)
            if i == 0:
                probe = pg.evaluate(PROBE_JS)
                assert "a label far too long for its forty pixels" in probe, probe
            cut = pg.evaluate(CUT_JS)
            if cut:
                found[view or "home"] = sorted(set(cut))
        return found
    finally:
        ctx.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_label_is_cut_short_on_a_1024_pixel_window(browser, server, lang: str) -> None:
    assert _cut(browser, server, 1024, 768, f"lang={lang}") == {}


def test_no_label_is_cut_short_in_presentation_mode(browser, server) -> None:
    """English, whose labels are the longer ones, with presentation mode's larger type."""
    assert _cut(browser, server, 1920, 1080, "lang=en&present=1") == {}


def test_presentation_mode_keeps_white_on_the_primary_buttons(browser, server) -> None:
    """Presentation mode turns the page's text black for contrast, but not on an orange primary
    button (white on it is 5.2:1, black 4.1:1): the form's Run button and the graph page's."""
    ctx = browser.new_context(viewport={"width": 1920, "height": 1080})
    try:
        pg = ctx.new_page()
        colours = {}
        for view in ("why?why.tab=maml", "graph"):
            pg.goto(f"{server}/{view}{'&' if '?' in view else '?'}present=1")
            _settle(pg)
            colours[view] = pg.evaluate(
                """() => [...document.querySelectorAll(
                    '[data-testid^="stBaseButton-primary"] [data-testid="stMarkdownContainer"] p,'
                    + ' [data-testid="stMain"] [data-testid="stMarkdownContainer"] > p')]
                  .map(p => [!!p.closest('[data-testid^="stBaseButton-primary"]'),
                             getComputedStyle(p).color])"""
            )
    finally:
        ctx.close()
    for view, found in colours.items():
        on_buttons = {c for primary, c in found if primary}
        elsewhere = {c for primary, c in found if not primary}
        assert on_buttons == {"rgb(255, 255, 255)"}, (view, found)
        assert elsewhere == {"rgb(0, 0, 0)"}, (view, found)
