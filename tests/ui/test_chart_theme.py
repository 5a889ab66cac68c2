"""hograd_ui/parts/chart.py: the figure the chart component draws, and the bundle it draws it with.

Oracles: plotly's own validation (the themed template must be a valid plotly template), the
figure before theming (nothing of it may change but the template and the title's weight), the
version of plotly.js the plotly package ships (the bundle must be that version). What the theme's
values are is checked against Streamlit's front end in tests/e2e/test_chart_browser.py.
"""

from __future__ import annotations

import json
import re
import tomllib

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
import pytest
from plotly.offline import get_plotlyjs_version

from hograd_ui.parts.chart import (
    BASE_PX,
    BUNDLE,
    PRESENT_PX,
    THEME,
    chart,
    readable,
    theme,
    themed,
)
from hograd_ui.parts.present import PRESENTATION_CSS
from hograd_ui.plotting import TEMPLATE, for_projector, new_figure, plain_figure
from tests.arrays import plotly_array


def _leaves(tree: dict, path: tuple = ()) -> list[tuple[tuple, object]]:
    out = []
    for key, value in tree.items():
        out += _leaves(value, (*path, key)) if isinstance(value, dict) else [((*path, key), value)]
    return out


def _at(tree: dict, path: tuple) -> object:
    for key in path:
        tree = tree[key]
    return tree


def _figures() -> list:
    xs = np.linspace(0, 1, 5)
    layout = {"title": {"text": "f and f′"}, "xaxis": {"title": {"text": "x"}}, "height": 300}
    data = [{"type": "scatter", "x": xs, "y": xs**2, "name": "f"}]
    return [plain_figure(data, **layout), new_figure(data, **layout)]


@pytest.mark.parametrize("index", [0, 1], ids=["plain figure", "go.Figure"])
def test_the_theme_is_merged_into_the_house_template_and_nothing_else_changes(index: int) -> None:
    fig = _figures()[index]
    before = fig.to_dict()
    after = themed(before)
    template = after["layout"]["template"]["layout"]
    for path, value in _leaves(readable(THEME)):
        assert _at(template, path) == value, path  # the theme wins inside the template
    ours = {path for path, _ in _leaves(THEME)}
    for path, value in _leaves(TEMPLATE["layout"]):
        if path not in ours:
            assert _at(template, path) == value, path  # the rest of plotly_white is kept
    assert after["layout"]["title"]["text"] == "<b>f and f′</b>"  # bold, as Streamlit draws it
    for key in set(before["layout"]) - {"template", "title"}:
        assert after["layout"][key] == before["layout"][key], key  # the figure's own choices
    assert after["data"] is before["data"] or after["data"] == before["data"]
    assert before["layout"]["title"]["text"] == "f and f′"  # the input is not changed


def test_the_themed_figure_is_valid_for_plotly() -> None:
    for fig in _figures():
        go.Figure(themed(fig.to_dict()))  # validates every property; raises on an unknown one


def test_a_string_title_and_no_title() -> None:
    assert themed({"layout": {"title": "T"}})["layout"]["title"] == {"text": "<b>T</b>"}
    assert "title" not in themed({"layout": {}})["layout"]
    assert themed({"layout": {"title": {"text": ""}}})["layout"]["title"] == {"text": ""}


def test_presentation_mode_sizes_still_win_over_the_theme() -> None:
    spec = themed(for_projector(_figures()[0].to_dict()))
    # layout-level fonts beat the template's in plotly: the projector's, not the theme's
    assert spec["layout"]["xaxis"]["tickfont"]["size"] >= 20 > THEME["xaxis"]["tickfont"]["size"]
    assert spec["layout"]["font"]["size"] >= 20


def test_the_json_the_component_receives_round_trips() -> None:
    fig = _figures()[0]
    sent = json.loads(pio.to_json(themed(fig.to_dict()), validate=False))
    assert list(plotly_array(sent["data"][0]["y"])) == pytest.approx([0, 0.0625, 0.25, 0.5625, 1])
    go.Figure(sent)  # and plotly takes it back


def test_the_bundle_is_the_plotly_js_the_plotly_package_checks_figures_against() -> None:
    head = BUNDLE.read_text(encoding="utf-8")[:300]
    version = re.search(r"plotly\.js \(cartesian - minified\) v(\S+)", head)
    assert version and version.group(1) == get_plotlyjs_version()
    assert BUNDLE.name == f"plotly-cartesian-{get_plotlyjs_version()}.min.js"
    assert BUNDLE.with_suffix("").with_suffix(".LICENSE").exists()  # MIT: its notice ships too
    assert (
        f'"app/static/{BUNDLE.name}"'
        in (BUNDLE.parents[1] / "hograd_ui" / "parts" / "chart.js").read_text()
    )


def test_the_root_font_sizes_are_the_apps() -> None:
    """Streamlit's theme is measured in rem: 17 px on a page (.streamlit/config.toml), 26 px in
    presentation mode (its CSS); at 26 px every rem-sized value grows by 26/17."""
    config = tomllib.loads((BUNDLE.parents[1] / ".streamlit" / "config.toml").read_text())
    assert config["theme"]["baseFontSize"] == BASE_PX
    assert f"html {{ font-size: {PRESENT_PX:g}px !important; }}" in PRESENTATION_CSS
    big = theme(PRESENT_PX)
    assert big["margin"]["pad"] == 13 and big["xaxis"]["title"]["standoff"] == 32.5
    assert big["xaxis"]["gridcolor"] == THEME["xaxis"]["gridcolor"]  # colours do not scale
    plain = _figures()[0].to_dict()
    assert themed(plain, PRESENT_PX)["layout"]["template"]["layout"]["margin"]["pad"] == 13


def test_a_pick_without_a_key_is_refused_before_anything_is_drawn() -> None:
    with pytest.raises(ValueError, match="on_pick needs a key"):
        chart(_figures()[0], on_pick=lambda x, y: None)
