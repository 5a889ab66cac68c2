"""The 2-D charts (hograd_ui/parts/chart.py) in real Chromium: drawn by the cartesian bundle alone, in
Streamlit's chart theme, across the column's width, with a full-screen button in the reader's
language, and a clear message if the bundle cannot be loaded.

Oracle for the theme: Streamlit's own front end. Every chart of the app, the HVP page's 3-D
surface too, is drawn by hograd_ui/parts/chart.py, so a second server runs
tests/e2e/theme_oracle.py, an ``st.plotly_chart``; Streamlit merges its theme into that
figure's template in the browser, and every value of :func:`hograd_ui.parts.chart.theme` must
be the one Streamlit put there, on a page and in presentation mode (a larger root font:
Streamlit's theme is in rem).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hograd_ui.parts.chart import BASE_PX, BUNDLE, PRESENT_PX, readable, theme
from tests.e2e.conftest import running_server, type_function, wait_for_app

pytestmark = pytest.mark.e2e

_OURS = "[data-testid='stBidiComponentRegular'] .hograd-chart"
_DRAWN = f"{_OURS} .main-svg"


def _leaves(tree: dict, path: tuple = ()) -> list[tuple[tuple, object]]:
    out = []
    for key, value in tree.items():
        if isinstance(value, dict):
            out += _leaves(value, (*path, key))
        else:
            out.append(((*path, key), value))
    return out


def _families(value: object) -> list[str]:
    return list(dict.fromkeys(f.strip() for f in str(value).split(",")))  # Streamlit repeats them


@pytest.fixture(scope="module")
def oracle() -> Iterator[str]:
    """A server of tests/e2e/theme_oracle.py: Streamlit's own plotly chart."""
    with running_server("theme-oracle", "tests/e2e/theme_oracle.py") as url:
        yield url


@pytest.mark.parametrize(
    ("query", "base"),
    # projected, the numbers are the first screen and the pictures the next: the link opens
    # that screen (a PageDown pressed before the page's keys were bound scrolled instead)
    [("", BASE_PX), ("&present=1&hvp.screen=picture", PRESENT_PX)],
    ids=["page", "presentation mode"],
)
def test_the_theme_is_the_one_streamlit_gives_its_own_plotly_charts(
    page,
    oracle: str,
    query: str,
    base: float,
) -> None:
    page.goto(f"{oracle}/?present={int(base == PRESENT_PX)}")
    page.wait_for_selector("[data-testid='stPlotlyChart'] .main-svg", timeout=120_000)
    streamlit = page.evaluate(
        "() => document.querySelector('[data-testid=\"stPlotlyChart\"] .js-plotly-plot')"
        ".layout.template.layout"
    )
    page.goto(f"{page.base}/hvp?hvp.surface=true{query}")
    wait_for_app(page)
    page.wait_for_selector(_DRAWN, timeout=120_000)
    ours = page.evaluate(f"() => document.querySelector({_OURS!r}).layout.template.layout")
    leaves = _leaves(theme(base))
    drawn = dict(_leaves(readable(theme(base))))  # ours: its grey text darker, for WCAG
    assert len(leaves) > 50
    for path, value in leaves:
        theirs, mine = streamlit, ours
        for key in path:
            theirs, mine = theirs[key], mine[key]
        if value == "rgba(0, 0, 0, 0)":  # plotly.py refuses the name Streamlit uses
            assert theirs == "transparent" and mine == value, path
        elif path[-1] == "family":
            assert _families(theirs) == _families(value) == _families(mine), path
        else:
            assert theirs == pytest.approx(value) and mine == pytest.approx(drawn[path]), path


def test_a_chart_page_loads_the_cartesian_bundle_and_not_streamlits_plotly(fresh_page) -> None:
    page = fresh_page  # a context's first load: every script is requested from the server
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    page.goto(f"{page.base}/derivatives")
    page.wait_for_selector(_DRAWN, timeout=120_000)
    wait_for_app(page)
    ours = [u for u in requested if u.endswith("/app/static/" + BUNDLE.name)]
    assert len(ours) == 1  # once, however many charts
    assert not [u for u in requested if "/PlotlyChart." in u]  # Streamlit's 4.7 MB chunk
    # a second chart on the same page reuses the bundle: the Taylor tab adds one
    assert page.evaluate("() => typeof window.Plotly.react") == "function"


def test_the_chart_follows_the_columns_width(page) -> None:
    page.goto(f"{page.base}/derivatives")
    page.wait_for_selector(_DRAWN, timeout=120_000)
    width = "() => document.querySelector('.hograd-chart .main-svg').getBoundingClientRect().width"
    column = "() => document.querySelector('.hograd-chart').parentElement.clientWidth"
    wide = page.evaluate(width)
    assert wide == pytest.approx(page.evaluate(column), abs=2)
    page.set_viewport_size({"width": 900, "height": 800})
    page.wait_for_function(f"() => ({width})() < {wide - 100}", timeout=120_000)
    assert page.evaluate(width) == pytest.approx(page.evaluate(column), abs=2)


@pytest.mark.parametrize(("lang", "title"), [("en", "Full screen"), ("zh", "全屏")])
def test_full_screen_button_in_the_readers_language(page, lang: str, title: str) -> None:
    from playwright.sync_api import expect

    page.goto(f"{page.base}/derivatives?lang={lang}")
    page.wait_for_selector(_DRAWN, timeout=120_000)
    chart = page.locator(".hograd-chart").first
    chart.hover()
    button = chart.locator(f".modebar-btn[data-title^='{title}']")
    expect(button).to_have_count(1)  # the tool bar comes with the end of the drawing
    button.click()
    page.wait_for_function("() => document.fullscreenElement?.classList.contains('hograd-chart')")
    page.wait_for_function(
        "() => { const r = document.querySelector('.hograd-chart .main-svg')"
        ".getBoundingClientRect(); return Math.abs(r.height - window.innerHeight) < 2"
        " && Math.abs(r.width - window.innerWidth) < 2; }"
    )  # the whole screen
    page.evaluate("() => document.exitFullscreen()")
    page.wait_for_function(
        "() => { const b = document.querySelector('.hograd-chart');"
        " const r = b.querySelector('.main-svg').getBoundingClientRect();"
        " return r.height === Number(b.dataset.height)"
        " && Math.abs(r.width - b.parentElement.clientWidth) < 2; }"
    )  # back to the figure's own height, across the column


def test_a_rerun_redraws_the_chart_only_when_it_changed(page) -> None:
    """Streamlit does not call the component again when a run sends the same data."""
    page.goto(f"{page.base}/hvp")
    page.wait_for_selector(_DRAWN, timeout=120_000)
    wait_for_app(page)
    page.evaluate(
        "() => { const b = document.querySelector('.hograd-chart'); b.draws = 0;"
        " b.on('plotly_afterplot', () => { b.draws += 1; }); }"
    )
    draws = "() => document.querySelector('.hograd-chart').draws"
    page.get_by_role("button", name="Reset p and v").click()  # p and v are already the preset's
    wait_for_app(page)
    assert page.evaluate(draws) == 0
    type_function(page, "x^2 + 3*y^2")  # a new function: a new contour
    page.wait_for_function(f"() => ({draws})() > 0", timeout=120_000)


def test_a_bundle_that_cannot_load_is_said_not_hidden(page) -> None:
    page.route(f"**/app/static/{BUNDLE.name}", lambda route: route.abort())
    page.goto(f"{page.base}/derivatives")
    page.wait_for_selector(".hograd-chart:has-text('could not be drawn')", timeout=120_000)
    assert page.locator(".main-svg").count() == 0
