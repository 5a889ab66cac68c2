"""axe-core over every page, tab and mode in real Chromium: no violation of any impact.

axe-core is vendored (tests/e2e/vendor/axe-core/, version and licence beside it), so the test
needs no network. It runs on the whole document, Streamlit's own frame included: the audit of
issue 49 found no violation in Streamlit's code, so nothing is excluded. One browser context
per language, reused by every state of that language.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from hograd_ui.i18n import tr
from tests.e2e.conftest import wait_for_app

pytestmark = pytest.mark.e2e

AXE = Path(__file__).resolve().parent / "vendor" / "axe-core" / "axe.min.js"
PAGES = ["", "derivatives", "graph", "hvp", "why", "backward", "memory", "code", "lesson"]
WHY_TABS = ["hf", "stability", "stats", "maml", "pinn", "wgan", "curvature"]
HVP_TABS = ["hessian", "ways", "slices", "power"]
STATES = (
    [(lang, page) for lang in ("en", "zh") for page in PAGES]
    + [("en", f"why?why.tab={tab}") for tab in WHY_TABS]
    + [("en", f"hvp?hvp.tab={tab}") for tab in HVP_TABS]
    + [("en", "derivatives?present=1"), ("zh", "hvp?present=1")]
    + [(lang, "hvp?hvp.surface=true") for lang in ("en", "zh")]  # the 3-D surface shown
)
#: WCAG 2.0, 2.1 and 2.2 A and AA, and axe's best practices (heading order, landmarks).
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]


@pytest.fixture(scope="module")
def contexts(browser) -> Iterator[dict[str, object]]:
    made: dict[str, object] = {}
    yield made
    for context in made.values():
        context.close()


def _page(contexts, browser, lang: str):
    if lang not in contexts:
        context = browser.new_context(viewport={"width": 1366, "height": 768})
        context.new_page().set_default_timeout(60_000)
        contexts[lang] = context
    return contexts[lang].pages[0]


_STALE = "() => !document.querySelector('[data-stale=\"true\"]')"


def _settled(pg) -> None:
    """The script run finished, no element left faded as stale by a rerun (axe would read
    its faded text) and every chart drawn (a chart draws after the run ends)."""
    wait_for_app(pg, timeout=120_000)
    pg.wait_for_function(_STALE, timeout=60_000)
    pg.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=\"stMain\"] .hograd-chart')]"
        ".every(c => c.querySelector('.main-svg'))",
        timeout=60_000,
    )
    pg.wait_for_timeout(500)


def violations(pg) -> list[dict]:
    """axe's violations on the page as it stands: rule, impact and each node's selector."""
    if not pg.evaluate("() => typeof window.axe === 'object'"):
        pg.add_script_tag(path=str(AXE))
    return pg.evaluate(
        """async tags => {
            const r = await axe.run(document, {runOnly: {type: 'tag', values: tags}});
            return r.violations.map(v => ({id: v.id, impact: v.impact,
                nodes: v.nodes.map(n => [n.target.join(' '), n.failureSummary.slice(0, 300)])}));
        }""",
        TAGS,
    )


@pytest.mark.parametrize(
    ("lang", "view"), STATES, ids=[f"{lang}-{view or 'home'}" for lang, view in STATES]
)
def test_no_axe_violation(contexts, browser, server, lang: str, view: str) -> None:
    pg = _page(contexts, browser, lang)
    pg.goto(f"{server}/{view}{'&' if '?' in view else '?'}lang={lang}")
    _settled(pg)
    found = violations(pg)
    # what a rerun or a fade in progress showed goes; a violation stays (asked again for 60 s:
    # on a busy machine a rerun can outlast a few seconds)
    for _ in range(30):
        if not found:
            break
        pg.wait_for_timeout(2_000)
        _settled(pg)
        found = violations(pg)
    assert found == [], "\n".join(
        f"{v['id']} ({v['impact']}): {n[0]}\n    {n[1]}" for v in found for n in v["nodes"]
    )


@pytest.mark.parametrize(
    ("lang", "view", "tag", "page", "tab"),
    [
        ("zh", "hvp", "zh-Hans", "app.page.hvp", "hvp.tab.picture"),
        ("en", "why?why.tab=maml", "en", "app.page.why", "maml.tab"),
    ],
)
def test_language_and_title_follow_the_page(
    contexts, browser, server, lang: str, view: str, tag: str, page: str, tab: str
) -> None:
    """<html lang> is the student's language (WCAG 3.1.1); the title names the tab and the
    page (2.4.2)."""
    pg = _page(contexts, browser, lang)
    pg.goto(f"{server}/{view}{'&' if '?' in view else '?'}lang={lang}")
    _settled(pg)
    pg.wait_for_function("tag => document.documentElement.lang === tag", arg=tag, timeout=30_000)
    assert pg.title() == f"{tr(tab, lang)} · {tr(page, lang)} · hograd"


def test_a_chart_is_a_figure_named_and_described(contexts, browser, server) -> None:
    """What a screen reader gets for the derivatives chart (WCAG 1.1.1): read from the
    accessibility tree (the computed name and description), not from the DOM's text."""
    from playwright.sync_api import expect

    pg = _page(contexts, browser, "en")
    pg.goto(f"{server}/derivatives?lang=en")
    _settled(pg)
    chart = pg.get_by_role("figure").first
    expect(chart).to_have_accessible_name(re.compile(r"^Chart: .+"))
    expect(chart).to_have_accessible_description(re.compile(r"f′: values from -?[0-9.e-]+ to "))
    assert "said" not in (chart.aria_snapshot() or "")  # the description is not drawn text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_3d_surface_is_a_figure_named_and_described(contexts, browser, server, lang) -> None:
    """The HVP page's 3-D surface, drawn by the same chart as the 2-D ones (WCAG 1.1.1): named
    for its function, described with where p is and f(p), as the accessibility tree gives it."""
    from playwright.sync_api import expect

    pg = _page(contexts, browser, lang)
    pg.goto(f"{server}/hvp?hvp.surface=true&lang={lang}")
    _settled(pg)
    name = tr("hvp.fig.surface", lang, fn="w1**2*sin(w2)")
    surface = pg.get_by_role("figure", name=tr("chart.said.name", lang, title=name))
    point = tr("chart.said.point3", lang, name="p", x="w1", y="w2", z="f", a=1, b=1.57, c=1)
    expect(surface).to_have_accessible_description(re.compile(re.escape(point)))


def test_play_is_reached_and_pressed_by_keyboard(contexts, browser, server) -> None:
    pg = _page(contexts, browser, "en")
    pg.goto(f"{server}/hvp?hvp.tab=power&lang=en")
    _settled(pg)
    play = pg.get_by_role("button", name=re.compile("Play"))
    play.focus()
    assert pg.evaluate("() => document.activeElement.getAttribute('tabindex')") == "0"
    pg.keyboard.press("Enter")  # the animation runs: the slider leaves its first step
    pg.wait_for_function(
        "() => [...document.querySelectorAll('.js-plotly-plot')]"
        ".some(p => p._fullLayout && p._fullLayout.sliders && p._fullLayout.sliders[0].active > 0)",
        timeout=60_000,
    )


def test_a_focused_page_link_has_a_visible_ring(contexts, browser, server) -> None:
    pg = _page(contexts, browser, "en")
    pg.goto(f"{server}/?lang=en")
    _settled(pg)
    link = pg.locator("[data-testid='stSidebarNav'] a").nth(1)
    for _ in range(60):  # Tab through the page until the link has the focus
        pg.keyboard.press("Tab")
        if link.evaluate("a => a === document.activeElement"):
            break
    ring = link.evaluate(
        "a => { const s = getComputedStyle(a); return [s.outlineStyle, s.outlineWidth, s.outlineColor]; }"
    )
    assert ring == ["solid", "3px", "rgb(176, 58, 10)"]  # a11y.FOCUS: 5.5:1 on the sidebar


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_graph_is_named_described_and_told_pass_by_pass(
    contexts, browser, server, lang: str
) -> None:
    """What a screen reader gets for the graph lab's drawing, read from Chromium's
    accessibility tree: an image named and described from the graph, and the narration, a
    group whose Next button the keyboard reaches and presses, the new step in a live region."""
    from playwright.sync_api import expect

    pg = _page(contexts, browser, lang)
    pg.goto(f"{server}/graph?graph.order=2&lang={lang}")
    _settled(pg)
    drawing = pg.get_by_role(
        "img",
        name=re.compile(r"^" + re.escape(tr("drawing.said.name", lang, ops="", passes="")[:6])),
    )
    expect(drawing.first).to_have_accessible_name(re.compile(r"[0-9]"))
    longest = tr("drawing.said.longest", lang, functions="").rstrip(".。 ")
    expect(drawing.first).to_have_accessible_description(re.compile(re.escape(longest)))
    told = pg.get_by_role("group", name=tr("graph.said.title", lang)).first
    expect(told).to_be_visible()
    first = tr("drawing.step.step", lang, name=tr("pass.0", lang).capitalize(), i=1, n=3)
    second = tr("drawing.step.step", lang, name=tr("pass.1", lang), i=2, n=3)
    live = told.locator("[aria-live='polite']")
    expect(live).to_contain_text(first)
    step = told.get_by_role("button", name=tr("drawing.step.next", lang))
    for _ in range(200):  # Tab through the page until Next has the focus
        pg.keyboard.press("Tab")
        if step.evaluate("b => b === document.activeElement"):
            break
    else:
        raise AssertionError("Tab never reached the Next button")
    pg.keyboard.press("Enter")
    expect(live).to_contain_text(second)
    tree = told.aria_snapshot()
    assert second in tree and tr("drawing.step.prev", lang) in tree  # names a reader hears
    assert live.get_attribute("aria-atomic") == "true"


def _no_violation(pg) -> None:
    """axe over the page as it stands, again after a rerun's fade if it found something."""
    _settled(pg)
    found = violations(pg)
    for _ in range(2):
        if not found:
            break
        pg.wait_for_timeout(2_000)
        _settled(pg)
        found = violations(pg)
    assert found == [], "\n".join(
        f"{v['id']} ({v['impact']}): {n[0]}\n    {n[1]}" for v in found for n in v["nodes"]
    )


def _tab_to(pg, target) -> None:
    """Press Tab until ``target`` has the focus (the keyboard alone, as a student without a
    mouse moves)."""
    for _ in range(200):
        pg.keyboard.press("Tab")
        if target.evaluate("el => el === document.activeElement"):
            return
    raise AssertionError("Tab never reached the element")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_class_panel_and_a_student_by_keyboard(browser, server, lang: str) -> None:
    """The lecturer's class panel with a class open; then a student who joins it and answers
    with the keyboard alone (Tab, typing, Enter): axe finds nothing at each state."""
    from urllib.parse import parse_qs, urlparse

    from playwright.sync_api import expect

    from tests.e2e.conftest import TEACHER_KEY

    made = []
    try:
        teacher = browser.new_context(viewport={"width": 1366, "height": 768})
        made.append(teacher)
        lecturer = teacher.new_page()
        lecturer.set_default_timeout(120_000)
        lecturer.goto(f"{server}/lesson?lang={lang}&key={TEACHER_KEY}")
        wait_for_app(lecturer, timeout=120_000)
        main = lecturer.locator("[data-testid='stMain']")
        main.get_by_role("button", name=tr("classroom.open", lang)).click()
        wait_for_app(lecturer)
        link_box = main.locator("[data-testid='stCode']", has_text="class=")
        expect(link_box).to_have_count(1)
        expect(main.get_by_role("img", name=re.compile("class="))).to_have_count(1)  # the QR
        _no_violation(lecturer)
        link = link_box.inner_text().strip()
        code = parse_qs(urlparse(link).query)["class"][0]

        context = browser.new_context(viewport={"width": 1366, "height": 768})
        made.append(context)
        student = context.new_page()
        student.set_default_timeout(120_000)
        student.goto(f"{link}{'&' if '?' in link else '?'}lang={lang}")
        wait_for_app(student, timeout=120_000)
        expect(student.get_by_text(tr("classroom.join.title", lang, code=code))).to_be_visible()
        _no_violation(student)  # the join form
        box = student.locator("[data-testid='stMain']").get_by_role(
            "textbox", name=tr("classroom.nickname", lang)
        )
        _tab_to(student, box)
        student.keyboard.type(f"Kb {lang}")
        join = student.locator("[data-testid='stFormSubmitButton'] button")
        _tab_to(student, join)
        student.keyboard.press("Enter")
        wait_for_app(student)
        expect(student.locator("[data-testid='stProgress']")).to_have_count(1)  # joined
        _no_violation(student)  # the lesson's first step, in the class
    finally:
        for context in made:
            context.close()


_ICON_COLOURS = (
    "() => [...document.querySelectorAll('[data-testid=\"stIconMaterial\"]')]"
    ".map(e => getComputedStyle(e).color)"
)
#: What decides the icons' colour, for a failure's message: the root's classes, whether the
#: hiding rule is in a stylesheet, the icon font's faces.
_ICON_STATE = """() => ({
  root: document.documentElement.className,
  rule: [...document.styleSheets].some(s => { try {
    return [...s.cssRules].some(r => r.cssText.includes('hograd-icons')) } catch (e) { return false } }),
  faces: [...document.fonts].filter(f => f.family.includes('Material')).map(f => f.status),
})"""


def test_an_icon_is_never_read_as_its_name_while_its_font_is_late(browser, server) -> None:
    """Streamlit's icons are words in a font of ligatures ("login", "double_arrow_right"):
    while the font has not come (held back here, as a loaded host or slow Wi-Fi does) every
    icon is transparent, its room kept, from Streamlit's first icons on (before the app's first
    run); once the font is in, every icon shows. And a font that never comes (aborted, its face
    in error) leaves no word behind."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    held = []
    try:
        pg = context.new_page()
        pg.set_default_timeout(120_000)
        pg.route("**/MaterialSymbols-Rounded*", lambda route: held.append(route))  # held back
        pg.goto(f"{server}/?lang=en", wait_until="domcontentloaded")  # "load" awaits the font
        # the rule is in the page's own head (hograd_serving/head_style.py), before any run
        assert pg.evaluate(
            "[...document.head.querySelectorAll('style')]"
            ".some(s => s.textContent.includes('hograd-icons'))"
        )
        pg.wait_for_function(f"() => ({_ICON_COLOURS})().length > 0")  # Streamlit's first icons
        first = pg.evaluate(_ICON_COLOURS)
        assert set(first) == {"rgba(0, 0, 0, 0)"}, (first, pg.evaluate(_ICON_STATE))
        wait_for_app(pg)
        pg.wait_for_function(f"() => ({_ICON_COLOURS})().length > 0")
        colours = pg.evaluate(_ICON_COLOURS)
        state = pg.evaluate(_ICON_STATE)
        assert held and set(colours) == {"rgba(0, 0, 0, 0)"}, (colours, state)  # none seen
        assert not pg.evaluate("document.documentElement.classList.contains('hograd-icons')")
        for route in held:
            route.continue_()
        pg.wait_for_function("document.documentElement.classList.contains('hograd-icons')")
        colours = pg.evaluate(_ICON_COLOURS)
        assert colours and "rgba(0, 0, 0, 0)" not in colours, colours
    finally:
        context.close()
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    try:
        pg = context.new_page()
        pg.set_default_timeout(120_000)
        pg.route("**/MaterialSymbols-Rounded*", lambda route: route.abort())
        pg.goto(f"{server}/?lang=zh")
        wait_for_app(pg)
        pg.wait_for_function(f"() => ({_ICON_COLOURS})().length > 0")
        colours, state = pg.evaluate(_ICON_COLOURS), pg.evaluate(_ICON_STATE)
        assert set(colours) == {"rgba(0, 0, 0, 0)"}, (colours, state)
    finally:
        context.close()
