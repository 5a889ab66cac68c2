"""Presentation mode's legends under the plot (issue 38): on a 1920x1080 projector a chart's
legend below the plot sits under the x axis title, clear of it, and the bottom margin holds
the tick labels, the axis title and the legend without a blank band, so the plot area gets
the room. Read from the drawn SVG of each chart with a legend below, in English and Chinese
(Chinese legends are wider and wrap sooner).
"""

from __future__ import annotations

import pytest

from tests.e2e.test_slides_browser import CHART, SCREENS, screens_of

#: px: the most room allowed under the legend, and between the x axis title and the legend.
#: The margin before this rule left 70-90 px under the legend (the MAML tab's first chart).
SLACK = 40

#: Screens known to have a legend below the plot: the test fails if one has none.
BELOW = {
    "why?why.tab=maml+0",
    "why?why.tab=maml+1",
    "why?why.tab=newton+2",  # the convergence charts
    "why?why.tab=pinn+1",
    "why?why.tab=curvature+0",
    "why?why.tab=curvature&why.curv.part=gauss_newton+0",
}

#: Each chart's boxes on the screen (CSS px): the chart, its legend, the lowest x axis title,
#: the plot area (every subplot's background); null where the chart has no legend below.
BOXES_JS = """(box) => {
    const layout = box.layout || {}, legend = layout.legend || {};
    const below = (typeof legend.y === 'number' && legend.y < 0) || legend.yref === 'container';
    const drawn = box.querySelector('g.legend');
    if (!below || !drawn || layout.showlegend === false) return null;
    const rect = (e) => { const r = e.getBoundingClientRect(); return {top: r.top, bottom: r.bottom}; };
    const titles = [...box.querySelectorAll('g[class^="g-x"][class$="title"] text')]
        .filter((t) => t.textContent.trim()).map(rect);
    const plots = [...box.querySelectorAll('.cartesianlayer .subplot .bg, .cartesianlayer rect.bg')]
        .map(rect);
    const bar = box.querySelector('g.colorbar');  // a colour bar under the legend (a phone's)
    const under = bar && rect(bar).top >= rect(drawn).top ? rect(bar) : null;
    return {
        chart: rect(box), legend: rect(drawn), titles, bar: under,
        plot: {top: Math.min(...plots.map((p) => p.top)), bottom: Math.max(...plots.map((p) => p.bottom))},
        height: box._fullLayout._size.h,
    };
}"""

CHART_VIEWS = sorted({s.view for s in SCREENS if CHART in s.result})


def _problems(name: str, boxes: dict) -> list[str]:
    """What is wrong with one chart's legend below the plot (empty: nothing)."""
    out = []
    legend, chart = boxes["legend"], boxes["chart"]
    if boxes["titles"]:
        title = max(t["bottom"] for t in boxes["titles"])  # the lowest x axis title
        if legend["top"] < title - 0.5:
            out.append(f"{name}: the legend ({legend['top']:.0f} px) is on the axis title")
        elif legend["top"] - title > SLACK:
            out.append(f"{name}: {legend['top'] - title:.0f} px between axis title and legend")
    if legend["top"] < boxes["plot"]["bottom"]:
        out.append(f"{name}: the legend is on the plot")
    floor, what = (
        (bar["top"], "colour bar")
        if (bar := boxes.get("bar"))
        else (chart["bottom"], "chart's bottom")
    )
    under = floor - legend["bottom"]
    if not 0 <= under < SLACK:
        out.append(f"{name}: {under:.0f} px between the legend and the {what}")
    return out


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("view", CHART_VIEWS)
def test_a_legend_below_sits_under_the_axis_title_without_a_band(
    browser,
    server,
    view: str,
    lang: str,
) -> None:
    problems, found = [], set()
    for pg, screen in screens_of(browser, server, view, lang):
        if CHART not in screen.result:
            continue
        charts = pg.locator(screen.result.split(" >> ")[0])
        for k in range(charts.count()):
            chart = charts.nth(k)
            if not chart.is_visible():
                continue
            boxes = chart.evaluate(BOXES_JS)
            if boxes is None:
                continue
            found.add(screen.name)
            name = f"{screen.name}[{k}] {lang}"
            print(f"{name}: plot area {boxes['height']:.0f} px")  # -s: for the report
            problems += _problems(name, boxes)
    missing = {n for n in BELOW if n.startswith(view + "+")} - found
    assert not missing, f"no legend below the plot on {missing}"
    assert not problems, problems
