"""The WGAN-GP tab of "Why gradients of gradients" through AppTest: both languages, the
numbers its charts and table carry against the core, the penalty's graphs, the silent bug's
mode, the snapshot slider and a refused setting."""

from __future__ import annotations

import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from hograd_labs.wgan.cached import penalty_graph
from hograd_labs.wgan.cached import script as wgan_code
from hograd_labs.wgan.compute import WganConfig, penalty_check
from hograd_labs.wgan.compute import run as train_wgan
from hograd_labs.wgan.figures import norm_counts
from hograd_ui.i18n import tr
from hograd_ui.tensor_drawing import flag_dot
from tests.app.charts import chart_elements, figure_of
from tests.app.why import open_tab
from tests.arrays import plotly_array


def run(lang: str = "en", **state: object) -> AppTest:
    return open_tab("wgan", lang, 90, **state)


def trace(at: AppTest, name: str, axis: str = "y") -> np.ndarray:
    for chart in chart_elements(at):
        for data in figure_of(chart)["data"]:
            if data.get("name") == name:
                value = data[axis]
                return plotly_array(value) if isinstance(value, dict) else np.array(value)
    raise AssertionError(f"no trace {name!r}")


@pytest.mark.parametrize(("lang", "words"), [("en", "The silent bug"), ("zh", "无声的错误")])
def test_the_tab_draws_the_cores_run_in_both_languages(lang: str, words: str) -> None:
    at = run(lang)
    core = train_wgan(WganConfig())
    generated = "generated" if lang == "en" else "生成点"
    np.testing.assert_array_equal(trace(at, generated, "x"), core.fake[-1][:, 0])
    np.testing.assert_array_equal(trace(at, generated, "y"), core.fake[-1][:, 1])
    bars = "interpolates" if lang == "en" else "插值点"
    np.testing.assert_array_equal(trace(at, bars), norm_counts(core.norms[-1]))
    np.testing.assert_array_equal(trace(at, bars).sum(), 400)
    (curves,) = [f for f in map(figure_of, chart_elements(at)) if "yaxis2" in f["layout"]]
    assert [curves["layout"][a]["title"]["text"] for a in ("yaxis", "yaxis2")] == [
        tr("wgan.fig.gap_axis", lang),
        tr("wgan.fig.penalty_axis", lang),
    ]
    assert words in "\n".join(s.value for s in at.header)
    table = at.table[0].value
    check = penalty_check(WganConfig())
    assert list(table.iloc[:, 0]) == [f"{v:.6g}" for v in check.with_graph]
    assert list(table.iloc[:, 1]) == ["0"] * 6
    script = at.code[-2].value  # [-1]: its torch.func form
    assert script == wgan_code(WganConfig()).source.rstrip()  # run in tests/labs
    assert "create_graph=create_graph)  # <--" in script and "    config = WganConfig(" in script
    (on,) = [g.proto.spec for g in at.get("graphviz_chart")]
    assert on == flag_dot(penalty_graph(True), lang) and "TanhBackwardBackward0" in on
    at = run(lang, **{"why.wgan.graph": "False"})  # a fresh run: AppTest would send the zh
    # form radios back formatted in English
    (off,) = [g.proto.spec for g in at.get("graphviz_chart")]
    assert off == flag_dot(penalty_graph(False), lang) and "(no grad_fn)" in off


def test_the_bug_mode_trains_as_no_penalty_and_says_so() -> None:
    at = run(**{"why.wgan.mode.en": "gp_no_graph"})
    assert "number for number" in at.warning[0].value
    off = train_wgan(WganConfig(mode="none"))
    np.testing.assert_array_equal(trace(at, "generated", "x"), off.fake[-1][:, 0])
    assert f"    config = {WganConfig(mode='gp_no_graph')!r}" in at.code[-2].value  # the setting
    at.session_state["lang"] = "zh"  # the choice survives a language switch
    at.run()
    assert "逐个数字" in at.warning[0].value


def test_the_snapshot_slider_shows_an_earlier_state() -> None:
    at = run(**{"why.wgan.data.en": "ring", "why.wgan.steps": 50})
    core = train_wgan(WganConfig(dataset="ring", steps=50))
    slider = at.select_slider(key="why.wgan.at.50")
    assert list(slider.options) == [str(s) for s in core.snap_steps]
    slider.set_value(0).run()
    np.testing.assert_array_equal(trace(at, "generated", "x"), core.fake[0][:, 0])
    np.testing.assert_array_equal(trace(at, "interpolates"), norm_counts(core.norms[0]))


@pytest.mark.parametrize(("lang", "words"), [("en", "over the limit"), ("zh", "超过上限")])
def test_a_run_over_the_budget_is_refused_with_a_reason(lang: str, words: str) -> None:
    at = run(lang, **{"why.wgan.steps": 1000, "why.wgan.batch": 512})
    assert words in at.error[0].value
    assert not chart_elements(at) and not at.code


@pytest.mark.parametrize(
    ("data", "mode", "box", "words"),
    [("moons", "clip", "info", "nearly flat"), ("ring", "none", "warning", "far past")],
)
def test_the_other_modes_draw_and_explain(data: str, mode: str, box: str, words: str) -> None:
    at = run(**{"why.wgan.data.en": data, "why.wgan.mode.en": mode, "why.wgan.steps": 60})
    assert words in getattr(at, box)[0].value
    core = train_wgan(WganConfig(dataset=data, mode=mode, steps=60))
    np.testing.assert_array_equal(trace(at, "data", "x"), core.real[:, 0])
    np.testing.assert_array_equal(trace(at, "generated", "y"), core.fake[-1][:, 1])
    assert at.table[0].value.iloc[:, 1].tolist() == ["0"] * 6


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("steps", [200, 30])
def test_the_gap_is_shown_smoothed_and_named_a_noisy_lower_bound(lang: str, steps: int) -> None:
    """One step's gap is one mini-batch's (−0.474 at the default's last step, negative at 38 %
    of its steps): the metric averages the last 50 steps (all of a shorter run), and its help
    says what that estimates."""
    at = run(lang, **{"why.wgan.steps": steps})
    core = train_wgan(WganConfig(steps=steps))
    window = min(50, steps)
    (metric,) = [
        m for m in at.metric if str(window) in m.label and ("gap" in m.label or "差值" in m.label)
    ]
    assert metric.value == f"{np.mean(core.wasserstein[-window:]):.3g}"
    negative = f"{np.mean(core.wasserstein < 0):.0%}"
    assert negative in metric.help and f"{core.wasserstein[-1]:.3g}" in metric.help
    assert ("lower bound" if lang == "en" else "下界") in metric.help
    boxes = "\n".join(b.value for b in at.info)
    assert ("estimate of the distance" not in boxes) and ("仍是距离的" not in boxes)


@pytest.mark.parametrize("create_graph", [True, False])
def test_every_node_of_the_penalty_graph_says_something_after_its_equals(create_graph) -> None:
    """W1 and x̂ hold more than one number: drawn by name, never as "W1 = " with nothing."""
    dot = flag_dot(penalty_graph(create_graph), "en")
    labels = [label.strip('"') for label in re.findall(r'label=("[^"]*"|[^ \]]+)', dot)]
    assert labels and not [label for label in labels if re.search(r"= *(\\n|$)", label)]
    assert {"W1", "x̂"} <= set(labels)
