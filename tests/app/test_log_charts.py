"""The "why" tabs' log-scale charts read from a projector (issue 36, item 18): the MAML error
charts say what their axis measures and which line is which, in both languages; Newton's two
convergence panels are tall enough to read (250 px and more each); every log axis is labelled
at powers of ten or at 1, 2 and 5 (tests/ui/test_log_axes.py; the browser test
tests/e2e/test_present_browser.py checks that no two tick labels overlap)."""

from __future__ import annotations

import pytest

from hograd_labs.maml.compute import METHODS
from hograd_labs.maml.figures import METHOD_KEYS
from hograd_ui.i18n import tr
from tests.app.why import charts, open_tab


def _title(axis: dict) -> str:
    title = axis.get("title") or {}
    return title.get("text", "") if isinstance(title, dict) else str(title)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_maml_error_charts_name_their_axis_and_their_lines(lang: str) -> None:
    small = {"why.maml.hidden": 16, "why.maml.steps": 100, "why.maml.tasks": 4}
    _, error, evals = charts(
        open_tab("maml", lang, 60, **small)
    )  # adapted curves, errors, training
    assert tr("maml.fig.error", lang) in error["layout"]["title"]["text"]
    methods = [tr(METHOD_KEYS[m], lang) for m in METHODS]
    for fig, axis_key in ((error, "maml.fig.error_axis"), (evals, "maml.fig.loss_axis")):
        assert fig["layout"]["yaxis"]["type"] == "log"
        assert _title(fig["layout"]["yaxis"]) == tr(axis_key, lang)
        assert fig["layout"].get("showlegend", True) is not False
        shown = [t["name"] for t in fig["data"] if t.get("showlegend", True) is not False]
        assert shown == methods


def _panel_heights(fig: dict) -> list[float]:
    """Each y axis's drawn height in px: the plot area (height less margins) times its domain."""
    layout = fig["layout"]
    area = layout["height"] - layout["margin"]["t"] - layout["margin"]["b"]
    return [
        area * (ax["domain"][1] - ax["domain"][0])
        for name, ax in sorted(layout.items())
        if name.startswith("yaxis")
    ]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_newtons_convergence_panels_are_tall_enough_to_read(lang: str) -> None:
    at = open_tab("newton", lang)
    grad = tr("newton.fig.grad_norm", lang)
    specs = [
        s
        for s in charts(at)
        if any(a.get("text") == grad for a in s["layout"].get("annotations", []))
    ]
    assert len(specs) == 1
    heights = _panel_heights(specs[0])
    assert len(heights) == 2 and min(heights) >= 250, heights
    assert specs[0]["layout"]["yaxis2"]["type"] == "log"
