"""Links in a real browser (issue 18): hostile URLs on every page end in a note or the page's
own message, never a traceback; a view set by hand is in the URL and a fresh browser on a fresh
server opens it the same; the share box holds the URL; presentation mode at 1920x1080."""

from __future__ import annotations

import contextlib
from urllib.parse import quote

import numpy as np
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from hograd_core.flaglab.cases import run_case
from hograd_labs.pinn import compute as pinn
from hograd_ui.i18n import tr
from tests.e2e.conftest import (
    FUNCTION_BOX,
    lent,
    running_server,
    screenshot,
    type_function,
    wait_for_app,
)
from tests.e2e.test_why_pinn_browser import _drawn

pytestmark = pytest.mark.e2e

NOTE = {"en": "Part of the link you opened was not used", "zh": "你打开的链接中有一部分没有被使用"}
SCRIPT = "<script>window.__pwned=1</script>"
IMG = "<img src=x onerror=window.__pwned=1>"
TEN_KB = "x+" * 5000 + "x"  # 10,001 characters

#: (page, query string, what must show: "note" or "error"). Values are quoted as a browser
#: would send them; each line is one hostile link.
HOSTILE: list[tuple[str, str, str]] = [
    # home: names no page has, a bad language, script in a value
    ("", "foo=bar", "note"),
    ("", f"lang={quote(SCRIPT)}", "note"),
    ("", f"{quote(IMG)}=1", "note"),
    ("", "lang=zh&lang=xx", "note"),
    # derivatives: out of range, not numbers, not options, text as HTML, 10 kB, repeated
    ("derivatives", "deriv.order=99", "note"),
    ("derivatives", "deriv.order=-1", "note"),
    ("derivatives", "deriv.order=four", "note"),
    ("derivatives", "deriv.order=1e400", "note"),
    ("derivatives", "deriv.order=3&deriv.order=5", "note"),
    ("derivatives", "deriv.range=5", "note"),
    ("derivatives", "deriv.range=-20&deriv.range=20", "note"),
    ("derivatives", "deriv.range=2&deriv.range=-2", "error"),
    ("derivatives", "deriv.points=7", "note"),
    ("derivatives", "deriv.points=1e9", "note"),
    ("derivatives", "deriv.x0=1e9", "note"),
    ("derivatives", "deriv.x0=nan", "note"),
    ("derivatives", "deriv.method=evil", "note"),
    ("derivatives", f"deriv.tab={quote(IMG)}", "note"),
    ("derivatives", "deriv.separate=maybe", "note"),
    ("derivatives", f"deriv.fn={quote(SCRIPT)}", "error"),
    ("derivatives", f"deriv.fn={quote(TEN_KB)}", "error"),
    ("derivatives", "deriv.fn=sin(x", "error"),
    ("derivatives", "deriv.fn=__import__('os')", "error"),
    ("derivatives", "deriv.fn=x%00y", "error"),
    ("derivatives", f"deriv.tab={quote(TEN_KB)}", "note"),
    ("derivatives", f"{quote(TEN_KB[:3000])}=1", "note"),
    # graph: order over its limit, x0 not finite, options that are not options, flags not bool
    ("graph", "graph.order=11", "note"),
    ("graph", "graph.order=2.5.1", "note"),
    ("graph", "graph.x0=inf", "note"),
    ("graph", "graph.x0=1e308", "note"),
    ("graph", "graph.direction=DOWN", "note"),
    ("graph", "graph.flag.retain_graph=maybe", "note"),
    ("graph", "graph.flag.action=explode", "note"),
    ("graph", "graph.flag.create_graph=1", "note"),
    ("graph", "graph.case=../../etc/passwd", "note"),
    ("graph", "graph.case=inplace&graph.variant.inplace=sideways", "note"),
    ("graph", "graph.direction=lr", "note"),  # option names are case-sensitive
    ("graph", f"graph.fn={quote(IMG)}", "error"),
    ("graph", f"graph.fn={quote(TEN_KB)}", "error"),
    ("graph", "graph.fn=x**", "error"),
    ("graph", "graph.saved=true&graph.saved=false&graph.highlight=no", "note"),
    # hvp: both modes, sliders out of range, a network over its limits, unknown tabs
    ("hvp", "hvp.mode=hack", "note"),
    ("hvp", "hvp.p.w1=100", "note"),
    ("hvp", "hvp.v.w2=abc", "note"),
    ("hvp", "hvp.radius=0", "note"),
    ("hvp", "hvp.kappa=7", "note"),
    ("hvp", "hvp.tab=secret", "note"),
    ("hvp", f"hvp.fn={quote(SCRIPT)}", "error"),
    ("hvp", "hvp.fn=x+y+z+w+v+u+t+s+r+q+p", "error"),
    ("hvp", "hvp.mode=network&hvp.net.layers=99", "note"),
    ("hvp", "hvp.mode=network&hvp.net.width=3", "note"),
    ("hvp", "hvp.mode=network&hvp.net.steps=-5", "note"),
    ("hvp", "hvp.mode=network&hvp.net.seed=abc", "note"),
    ("hvp", "hvp.mode=network&hvp.net.tab=nope", "note"),
    # why: unknown tab, each tab's settings out of range or not numbers
    ("why", "why.tab=nope", "note"),
    ("why", "why.newton.x0=1e9", "note"),
    ("why", "why.newton.lr=0", "note"),
    ("why", f"why.newton.fn={quote(SCRIPT)}", "error"),
    ("why", "why.tab=hf&why.hf.seed=abc", "note"),
    ("why", "why.tab=hf&why.hf.data=evil", "note"),
    ("why", "why.tab=stability&why.stability.lr=99", "note"),
    ("why", "why.tab=stats&why.stats.depth=99", "note"),
    ("why", "why.tab=stats&why.stats.activation=sigmoid", "note"),
    # forms (issue 18): settings read by their fields, in the view or in one not drawn yet
    ("hvp", "hvp.mode=network&hvp.net.seed=inf", "note"),
    ("hvp", "hvp.mode=network&hvp.net.probes=20&hvp.net.probes=30", "note"),
    ("hvp", "hvp.net.steps=abc", "note"),  # typed mode: the network form is not drawn
    ("hvp", f"hvp.net.top_k={quote(SCRIPT)}", "note"),
    ("hvp", "hvp.zzz=1", "note"),  # the page's prefix, but no view has it
    ("why", "why.tab=maml&why.maml.seed=-inf", "note"),
    ("why", "why.tab=wgan&why.wgan.mode=evil", "note"),
    ("why", "why.tab=pinn&why.pinn.steps=1e400", "note"),
    ("why", "why.tab=pinn&why.pinn.equation=burgers", "note"),
    ("why", f"why.maml.steps={quote('**bold**')}", "note"),  # the MAML tab is closed
    ("why", "why.stats.gain=99&why.tab=newton", "note"),
    ("why", f"why.hf.width={quote(IMG)}", "note"),
    # Streamlit's own embed options and presentation mode combine with a bad value
    ("derivatives", "embed=true&present=1&deriv.order=50", "note"),
]


def _check_no_trace(pg) -> None:
    assert pg.locator("[data-testid='stException']").count() == 0
    body = pg.inner_text("body")
    assert "Traceback" not in body
    assert pg.evaluate("() => window.__pwned === undefined")
    main = pg.locator("[data-testid='stMain']")
    assert main.locator("script").count() == 0
    assert main.locator("img[src='x']").count() == 0


def test_there_are_at_least_fifty_hostile_links_on_every_page() -> None:
    assert len(HOSTILE) >= 50
    assert {p for p, _, _ in HOSTILE} == {"", "derivatives", "graph", "hvp", "why"}


@pytest.mark.parametrize(("path", "params", "shows"), HOSTILE)
def test_a_hostile_link_gets_a_note_or_the_pages_message(page, path, params, shows) -> None:
    lang = "zh" if sum(map(ord, params)) % 2 else "en"  # both languages, fixed per link
    if "lang=" not in params:
        params = f"{params}&lang={lang}"
    else:
        lang = "en"  # a bad language falls back to English
    page.goto(f"{page.base}/{path}?{params}")
    wait_for_app(page)
    _check_no_trace(page)
    if shows == "note":  # a page that works in the background reruns: its note comes back
        notes = page.locator("[data-testid='stAlert']", has_text=NOTE[lang])
        expect(notes).to_have_count(1)
    else:
        assert page.locator("[data-testid='stAlertContentError']").count() >= 1


# ---- a view set by hand is a link, and the link opens the same view elsewhere ------------------


def _view(pg) -> dict[str, object]:
    """What the derivatives page shows: the function, the sliders, the open tab, the chart."""
    main = pg.locator("[data-testid='stMain']")
    pg.wait_for_selector(".js-plotly-plot .legendtext")  # the chart is drawn
    sliders = main.locator("[data-testid='stSlider'] input[type=range]")
    return {
        "fn": pg.locator(FUNCTION_BOX).first.input_value(),
        "sliders": [sliders.nth(i).input_value() for i in range(sliders.count())],
        "tab": main.locator("[role='tab'][aria-selected='true']").first.inner_text(),
        "method": main.locator("[data-testid='stRadio'] input:checked").first.get_attribute(
            "value"
        ),
        "traces": pg.evaluate(
            "() => [...document.querySelectorAll('.js-plotly-plot')].map("
            "p => p.data.map(t => t.name + ':' + (t.x.length ?? t.x.bdata)).join(','))"
        ),
        "katex": main.locator(".katex-mathml").first.inner_text(),
    }


def test_a_view_set_by_hand_opens_the_same_in_a_fresh_browser_on_a_fresh_server(
    page, browser
) -> None:
    page.goto(f"{page.base}/derivatives?lang=zh")
    wait_for_app(page)
    type_function(page, "tanh(x)")
    order = page.get_by_role("slider").first  # "Highest order", 4 by default
    for _ in range(3):  # 4 -> 7, as a student would with the arrow keys
        order.press("ArrowRight")  # each press reruns the page: wait, or a press can be lost
        wait_for_app(page)
    page.get_by_text("Taylor 模式（hograd 自有）").click()
    wait_for_app(page)
    page.get_by_role("tab", name="查看 PyTorch 代码").click()
    wait_for_app(page)
    link = page.url
    assert "deriv.order=7" in link and "deriv.fn=tanh" in link and "deriv.tab=code" in link
    seen = _view(page)
    assert seen["fn"] == "tanh(x)" and seen["sliders"][0] == "7"

    page.get_by_text("分享当前视图").click()  # the share box holds the same link
    wait_for_app(page)  # opening it reruns the box (a fragment)
    shared = page.locator("[data-testid='stPopoverBody'] [data-testid='stCode']").inner_text()
    assert shared.strip() == link

    with running_server("links-fresh") as fresh:  # another server, never asked before
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        try:
            other = context.new_page()
            other.set_default_timeout(120_000)
            other.goto(link.replace(page.base, fresh))
            wait_for_app(other)
            _check_no_trace(other)
            assert _view(other) == seen
            assert other.url.split("?")[1] == link.split("?")[1]
        finally:
            context.close()


# ---- presentation mode ----------------------------------------------------------------------------

PRESENT = [
    ("", "home"),
    ("derivatives", "derivatives"),
    ("graph", "graph"),
    ("hvp", "hvp"),
    ("why", "why"),
]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(("path", "name"), PRESENT)
def test_presentation_mode_at_1920x1080(browser, server, path: str, name: str, lang: str) -> None:
    with lent(browser, viewport={"width": 1920, "height": 1080}) as pg:
        pg.goto(f"{server}/{path}?present=1&lang={lang}")
        wait_for_app(pg)
        _check_no_trace(pg)
        expect(pg.locator("[data-testid='stSidebar']")).to_be_hidden()
        title = pg.locator("[data-testid='stMain'] h1").first
        assert float(title.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")) >= 48
        # the first paragraph of text, not a button's label (app.py draws the leave button
        # first; a label is the projector's smallest text, 20 px, checked below)
        body = "[data-testid='stMain'] [data-testid='stMarkdownContainer'] p:not(button p)"
        text = pg.locator(body).first
        assert float(text.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")) >= 22
        label = pg.locator("[class*='st-key-links-leave'] button p").first
        assert float(label.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")) >= 20
        screenshot(pg, f"present-{name}-{lang}")
        charts = pg.locator(".js-plotly-plot")
        if charts.count():
            charts.first.scroll_into_view_if_needed()
            pg.wait_for_timeout(300)  # the scroll settles; the screenshot is only looked at
            ticks = pg.locator(".js-plotly-plot .xtick text").first
            if ticks.count():
                assert float(ticks.evaluate("e => parseFloat(e.style.fontSize)")) >= 20
            screenshot(pg, f"present-{name}-{lang}-chart")
        pg.locator("[class*='st-key-links-leave'] button").click()  # leaves presentation mode
        wait_for_app(pg)
        assert "present=" not in pg.url


def test_presentation_mode_combines_with_embed(browser, server) -> None:
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    try:
        pg = context.new_page()
        pg.goto(f"{server}/graph?present=1&embed=true&lang=en&graph.order=3")
        wait_for_app(pg)
        _check_no_trace(pg)
        assert "embed=true" in pg.url and "present=1" in pg.url
        # projected, the settings fold into the row above the graph (slides): open them
        pg.get_by_role("button", name=tr("present.controls", "en")).first.click()
        order = pg.locator("[data-testid='stSlider'] input[type=range]")
        assert order.first.input_value() == "3"
        screenshot(pg, "present-graph-embed")
    finally:
        context.close()


# ---- forms: the URL changes when Run is pressed, and a link with form values is computed -------


def _form_url(pg) -> str:
    return pg.url.split("?", 1)[1] if "?" in pg.url else ""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_editing_a_form_leaves_the_url_until_it_is_submitted(page, lang: str) -> None:
    page.goto(f"{page.base}/hvp?hvp.mode=network&lang={lang}")
    wait_for_app(page, timeout=120_000)
    page.wait_for_selector("[data-testid='stMetric']", timeout=120_000)
    before = _form_url(page)
    form = page.locator("[data-testid='stForm']")
    steps = form.get_by_role("slider").first  # 300 by default, in steps of 50
    steps.focus()
    steps.press("ArrowRight")
    steps.press("ArrowRight")
    seed = form.locator("input[type='number']").first
    seed.fill("7")
    seed.press("Tab")
    page.wait_for_timeout(1000)  # nothing is awaited: the URL must simply not change
    assert _form_url(page) == before and "hvp.net" not in before
    assert steps.input_value() == "400"  # the edit is in the widget
    form.locator("[data-testid='stFormSubmitButton'] button").click()
    page.wait_for_function("() => location.search.includes('hvp.net.steps=400')")
    wait_for_app(page, timeout=120_000)
    assert "hvp.net.seed=7" in page.url
    _check_no_trace(page)
    page.get_by_text("Share this view" if lang == "en" else "分享当前视图").click()
    wait_for_app(page, timeout=120_000)  # opening it reruns the box (a fragment)
    box = page.locator("[data-testid='stPopoverBody']")
    assert "hvp.net.steps=400" in box.locator("[data-testid='stCode']").inner_text()
    expect(box).to_contain_text(tr("links.forms.share", lang))  # when a form joins the link
    screenshot(page, f"links-form-submitted-{lang}")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_link_with_form_values_shows_them_and_their_results(page, lang: str) -> None:
    query = "why.tab=stats&why.stats.depth=3&why.stats.steps=20&why.stats.activation=relu"
    page.goto(f"{page.base}/why?{query}&lang={lang}")
    wait_for_app(page, timeout=120_000)
    _check_no_trace(page)
    form = page.locator("[data-testid='stForm']")
    sliders = form.get_by_role("slider")
    assert sliders.nth(0).input_value() == "3"  # depth
    assert sliders.nth(2).input_value() == "20"  # steps
    assert form.get_by_role("radio", name="ReLU").is_checked()
    main = page.locator("[data-testid='stMain']")
    # the run's charts, no Run pressed: drawn once its training, in the background, is done
    expect(main.locator(".js-plotly-plot").nth(1)).to_be_attached()
    note = NOTE[lang]
    assert page.locator("[data-testid='stAlert']", has_text=note).count() == 0
    assert all(part in page.url for part in query.split("&"))
    screenshot(page, f"links-form-link-{lang}")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_bad_setting_of_a_mode_not_drawn_is_noted_when_it_opens(page, lang: str) -> None:
    page.goto(f"{page.base}/hvp?hvp.net.layers=99&hvp.net.width=8&lang={lang}")
    wait_for_app(page)
    note = page.locator("[data-testid='stAlert']", has_text=NOTE[lang])
    assert note.count() == 0 and "hvp.net.layers=99" in page.url  # waits for its view
    page.get_by_text("A neural network" if lang == "en" else "神经网络", exact=True).click()
    wait_for_app(page, timeout=120_000)
    page.wait_for_selector("[data-testid='stMetric']", timeout=120_000)
    # The note comes with the network's view, seconds after its first metric on a slow host,
    # and its code block (the setting not used) may be drawn a moment after the note itself:
    # wait for each, then read them.
    expect(note).to_have_count(1, timeout=120_000)
    code = page.locator("[data-testid='stMain'] [data-testid='stCode']", has_text="layers=99")
    expect(code).to_have_count(1, timeout=120_000)
    codes = page.locator("[data-testid='stMain'] [data-testid='stCode']").all_inner_texts()
    assert "hvp.net.layers=99" in [c.strip() for c in codes]
    assert "hvp.net.layers" not in page.url and "hvp.net.width=8" in page.url
    _check_no_trace(page)
    screenshot(page, f"links-later-note-{lang}")


# ---- a choice with translated labels is its option's name in the link, in any language ----------

CHART = "[data-testid='stMain'] [data-testid='stGraphVizChart']"
GRAPHVIZ = f"{CHART} svg"


ASPECT = f"""wide => {{
    const svg = document.querySelector("{CHART}")?.querySelector("svg");
    if (!svg || !svg.getAttribute("viewBox")) return false;
    const [, , w, h] = svg.getAttribute("viewBox").split(" ").map(Number);
    return wide ? w / h > 3 : w / h < 3;
}}"""


def _aspect(pg, wide: bool) -> float:
    """Width over height of the page's first graph (left to right is wide, top to bottom not).

    The page's first chart, then its drawing: graphviz draws each chart when it is ready, so the
    first svg on the page may for a moment belong to a later chart (the flag lab's), or be the
    drawing of the run before. Waits for the expected shape, then reads it.
    """
    with contextlib.suppress(PlaywrightTimeout):  # the caller's assertion reports what stayed
        pg.wait_for_function(ASPECT, arg=wide, timeout=120_000)
    svg = pg.locator(CHART).first.locator("svg")
    _, _, width, height = map(float, svg.get_attribute("viewBox").split())
    return width / height


def _shows_layout_and_case(pg, lang: str) -> None:
    """The graph laid out left to right and the in-place case's run, with their own labels."""
    layout = pg.get_by_role("radio", name=tr("graph.direction.LR", lang), exact=True)
    expect(layout).to_have_attribute("aria-checked", "true")
    assert (
        _aspect(pg, wide=True) > 3
    )  # x**3 at order 2: 587 x 121 pt left to right, 448 x 269 top down
    case = pg.locator("[data-testid='stMain'] [data-testid='stSelectbox']").first
    expect(case.get_by_role("combobox")).to_have_value(tr("graph.case.inplace", lang))
    last = run_case("inplace").transcript().splitlines()[-1]  # PyTorch's in-place error
    # the case's run: in the flag lab's own child, so it may come in a later run of the page
    expect(
        pg.locator("[data-testid='stMain'] [data-testid='stCode']", has_text=last)
    ).not_to_have_count(0)
    assert pg.locator("[data-testid='stAlert']", has_text=NOTE[lang]).count() == 0
    _check_no_trace(pg)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_link_names_the_graph_layout_and_case_the_same_in_both_languages(page, lang: str) -> None:
    page.goto(f"{page.base}/graph?lang={lang}")
    wait_for_app(page)
    assert _aspect(page, wide=False) < 3  # top to bottom by default
    page.goto(f"{page.base}/graph?graph.direction=LR&graph.case=inplace&lang={lang}")
    wait_for_app(page)
    _shows_layout_and_case(page, lang)
    assert "graph.direction=LR" in page.url and "graph.case=inplace" in page.url
    page.locator(GRAPHVIZ).first.scroll_into_view_if_needed()
    screenshot(page, f"links-graph-named-{lang}")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_older_link_with_labels_opens_the_same_layout_and_case(page, lang: str) -> None:
    """Links made while the labels were written into the URL, in the other language."""
    other = "zh" if lang == "en" else "en"
    labels = (quote(tr("graph.direction.LR", other)), quote(tr("graph.case.inplace", other)))
    page.goto(f"{page.base}/graph?graph.direction={labels[0]}&graph.case={labels[1]}&lang={lang}")
    wait_for_app(page)
    _shows_layout_and_case(page, lang)
    page.wait_for_function(
        "() => location.search.includes('graph.direction=LR')"
        " && location.search.includes('graph.case=inplace')"
    )  # the link now says the names


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_link_names_the_pinn_equation_the_same_in_both_languages(page, lang: str) -> None:
    page.goto(f"{page.base}/why?why.tab=pinn&why.pinn.equation=wave&lang={lang}")
    wait_for_app(page, timeout=120_000)
    _check_no_trace(page)
    expect(page.get_by_role("radio", name=tr("pinn.equation.wave", lang))).to_be_checked()
    wave = pinn.preset("wave")
    name = {"en": "exact, t = ", "zh": "精确解，t = "}[lang] + f"{wave.t_max:g}"
    x, u = _drawn(page, name, "x"), _drawn(page, name, "y")
    np.testing.assert_allclose(
        u, np.sin(np.pi * x) * np.cos(wave.coefficient * np.pi * wave.t_max), atol=1e-12
    )
    assert u.min() < -0.5  # the wave swung below zero; the heat equation's never does
    steps = page.locator(
        "[data-testid='stForm'] [data-testid='stSlider']", has_text=tr("why.newton.steps", lang)
    ).get_by_role("slider")
    expect(steps).to_have_value(str(wave.steps))  # the wave's own steps
    assert page.locator("[data-testid='stAlert']", has_text=NOTE[lang]).count() == 0
    assert "why.pinn.equation=wave" in page.url
    page.locator(".js-plotly-plot").nth(1).scroll_into_view_if_needed()
    page.wait_for_timeout(500)  # the scroll settles; the screenshot is only looked at
    screenshot(page, f"links-pinn-wave-{lang}")
