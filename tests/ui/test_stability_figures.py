"""The stability lab's figures take the language and presentation mode as arguments: what the
page passes is what is drawn."""

from __future__ import annotations

import pytest

from hograd_labs.stability import compute
from hograd_labs.stability.figures import quadratic_figure, sharpness_figure
from hograd_ui.i18n import tr
from hograd_ui.plotting import PROJECTOR_MIN_FONT, drawn

CONFIG = compute.StabilityConfig(quadratic_steps=20, hidden=(4,), steps=20, every=10)
RUNS = {
    "quadratic": (quadratic_figure, compute.run_quadratic(CONFIG), "xaxis"),
    "network": (sharpness_figure, compute.run(CONFIG), "xaxis2"),
}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("part", list(RUNS))
def test_the_figure_is_drawn_as_its_arguments_say(part: str, lang: str) -> None:
    draw, run, axis = RUNS[part]
    plain, shown = drawn(draw(run, lang), False), drawn(draw(run, lang), True)
    assert plain["layout"][axis]["title"]["text"] == tr("why.fig.iteration", lang)
    assert (
        "font" not in plain["layout"] or plain["layout"]["font"].get("size", 0) < PROJECTOR_MIN_FONT
    )
    assert shown["layout"]["font"]["size"] >= PROJECTOR_MIN_FONT
    assert shown["layout"]["height"] > plain["layout"]["height"]
