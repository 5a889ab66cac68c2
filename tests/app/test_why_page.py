"""The page "Why gradients of gradients" through AppTest: every tab in both languages, the
numbers its charts carry against the core, the lessons shown as messages, refused settings,
the scenario buttons, detect_anomaly in a separate process, and the downloads."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from streamlit.testing.v1 import AppTest

from hograd_core import parse
from hograd_labs.hf import compute as hf
from hograd_labs.newton import compute as newton
from hograd_labs.newton import presets
from hograd_labs.newton.cached import torch_function
from hograd_labs.newton.compute import RaceConfig
from hograd_labs.stability import compute as sb
from hograd_labs.stats import compute as gs
from tests.app.why import charts, open_tab
from tests.arrays import plotly_array

TABS = ("newton", "hf", "stability", "stats")


def run(tab: str, lang: str = "en", **state: object) -> AppTest:
    return open_tab(tab, lang, 60, **state)


def traces(chart: dict, name: str) -> list[dict]:
    return [d for d in chart["data"] if d.get("name") == name]


def texts(at: AppTest, kind: str) -> str:
    return "\n".join(e.value for e in getattr(at, kind))


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("tab", TABS)
def test_every_tab_runs_in_both_languages(tab: str, lang: str) -> None:
    at = run(tab, lang)
    assert at.title[0].value == (
        "Why gradients of gradients" if lang == "en" else "为什么需要高阶梯度"
    )
    assert charts(at), "every tab draws a chart"
    # the tab's script: the code view with line numbers (its torch.func form may follow it)
    script = [c.value for c in at.code if c.proto.show_line_numbers][-1]
    assert "import torch" in script and "# <-- " in script
    marked = [line for line in script.splitlines() if "# <-- " in line]
    assert any("create_graph" in line or "backward()" in line for line in marked)
    assert any("# <--" in c.value or "<--" in c.value for c in at.caption)
    if lang == "zh":
        assert "标有 # <-- 的行" in texts(at, "caption")


def test_only_the_open_tab_runs() -> None:
    at = run("newton")
    assert len(charts(at)) == 2  # the paths and the convergence, nothing from the other tabs
    labels = [b.proto.label for b in at.get("download_button")]  # its script, in two forms
    assert labels == [
        "Download .py",
        "Download the torch.func form (.py)",
        "Download this view as a notebook (.ipynb)",
    ]


def test_newton_chart_holds_the_cores_paths() -> None:
    at = run("newton")
    text = at.text_input(key="why.newton.fn").value
    preset = presets.PRESETS[text]
    config = RaceConfig(preset.start, preset.steps, preset.lr, methods=("gd", "newton"))
    race = newton.run(config, f=torch_function(parse(text)))
    paths = charts(at)[0]
    for path in race.paths:
        (trace,) = traces(paths, "gradient descent" if path.method == "gd" else "Newton")
        np.testing.assert_allclose(plotly_array(trace["x"]), path.points[:, 0], rtol=1e-12)
        np.testing.assert_allclose(plotly_array(trace["y"]), path.points[:, 1], rtol=1e-12)
    table = at.table[0].value
    assert list(table.iloc[:, 1]) == ["out of steps", "converged"]  # Rosenbrock: GD is slow


def test_newton_on_the_saddle_warns_and_the_trust_region_escapes() -> None:
    at = run("newton", **{"why.newton.fn": "x^2 + y^4/4 - y^2/2", "why.newton.trust": True})
    warning = texts(at, "warning")
    assert "Pure Newton stopped where ∇f = 0 but not at a minimum" in warning
    assert "saddle" in warning
    kinds = list(at.table[0].value.iloc[:, 5])
    assert kinds == ["local minimum", "saddle point", "local minimum"]  # gd, Newton, trust


def test_newton_gradient_descent_diverges_with_a_message() -> None:
    at = run("newton", **{"why.newton.fn": presets.quadratic(10)})
    at.number_input(key="why.newton.lr").set_value(0.25).run()  # 2/λ_max = 0.2
    assert "gradient descent diverged at step" in texts(at, "warning")
    assert "2/λ_max" in texts(at, "warning")


def test_newton_refuses_a_function_of_one_variable() -> None:
    at = run("newton", "zh", **{"why.newton.fn": "x^2"})
    assert "两个变量" in texts(at, "error")
    at = run("newton", **{"why.newton.fn": "x^2"})
    assert "expected a function of 2 variables, got 1" in texts(at, "error")


def test_newton_kappa_slider_writes_the_quadratic() -> None:
    at = run("newton", **{"why.newton.fn": presets.quadratic(10)})  # in use on the quadratic only
    at.select_slider(key="why.newton.kappa").set_value(100).run()
    assert at.text_input(key="why.newton.fn").value == presets.quadratic(100)
    assert at.number_input(key="why.newton.lr").value == pytest.approx(0.015)
    table = at.table[0].value
    assert table.iloc[1, 2] == "1"  # Newton: one iteration on a quadratic


def test_hf_chart_holds_the_cores_losses() -> None:
    at = run("hf")
    run_ = hf.run(hf.HFConfig())
    (trace,) = traces(charts(at)[0], "Hessian-free Newton")
    np.testing.assert_allclose(plotly_array(trace["y"]), run_.hf_losses, rtol=1e-12)
    np.testing.assert_allclose(plotly_array(trace["x"]), run_.hf_passes)
    (sgd,) = traces(charts(at)[0], "SGD")
    # the whole first-order run: its length is a count (gradients + 2 per HVP), not a wall time
    np.testing.assert_allclose(plotly_array(sgd["y"]), run_.sgd_losses, rtol=1e-12)
    assert len(run_.sgd_losses) == len(run_.hvps) + 2 * int(run_.hvps.sum()) + 1
    assert f"{run_.hvps.mean():.1f}" in [m.value for m in at.metric]


def test_hf_refuses_a_network_over_the_budget() -> None:
    at = run("hf", **{"why.hf.data.en": "digits", "why.hf.layers": 2, "why.hf.width": 64})
    assert "parameters: expected 1 to 5000, got 8970" in texts(at, "error")
    at = run("hf", "zh", **{"why.hf.data.zh": "digits", "why.hf.layers": 2, "why.hf.width": 64})
    assert "8970" in texts(at, "error") and "应在" in texts(at, "error")


def test_hf_seconds_axis() -> None:
    at = run("hf", **{"why.hf.axis": "seconds"})
    (trace,) = traces(charts(at)[0], "Hessian-free Newton")
    seconds = plotly_array(trace["x"])
    assert seconds[0] == 0 and np.all(np.diff(seconds) > 0)


@pytest.mark.parametrize(
    ("lr", "kind", "words"),
    [
        (0.19, "success", "f shrinks"),
        (0.2, "info", "exactly 2/λ_max"),
        (0.21, "warning", "f grows"),
    ],
)
def test_stability_quadratic_on_both_sides_of_the_limit(lr: float, kind: str, words: str) -> None:
    at = run("stability", **{"why.stability.lr": lr})
    assert words in texts(at, kind)
    quad = sb.run_quadratic(sb.StabilityConfig(quadratic_lr=lr))
    (trace,) = charts(at)[0]["data"]
    np.testing.assert_allclose(plotly_array(trace["y"]), quad.losses, rtol=1e-12)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(("kappa", "lr", "steps"), [(2, 1.002, 200), (10, 0.201, 10)])
def test_stability_an_unstable_rate_whose_f_fell_is_a_warning(kappa, lr, steps, lang) -> None:
    """The verdict comes from lr against 2/λ_max; the fall is named as temporary, with the
    step from which f is above its start again (the core's closed form)."""
    at = run(
        "stability",
        lang,
        **{"why.stability.kappa": kappa, "why.stability.lr": lr, "why.stability.steps": steps},
    )
    quad = sb.run_quadratic(sb.StabilityConfig(kappa=kappa, quadratic_lr=lr, quadratic_steps=steps))
    assert quad.verdict == "fell_for_now" and not at.success
    said = texts(at, "warning")
    assert f"{quad.regrows_at:,}" in said
    assert ("only for now" if lang == "en" else "只是暂时下降") in said


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_stability_at_kappa_one_the_edge_has_no_flat_part(lang: str) -> None:
    at = run("stability", lang, **{"why.stability.kappa": 1, "why.stability.lr": 2.0})
    said = texts(at, "info")
    assert ("no flat part" if lang == "en" else "没有平缓方向") in said
    assert "once the flat part is gone" not in said and "分量消失" not in said


def test_stability_notebook_caption_names_the_fall_first() -> None:
    """Above the limit the curve may fall before it climbs (κ > 1): both captions say so."""
    from hograd_ui.i18n import tr

    assert "may fall first" in tr("stability.nb.figure", "en")
    assert "可能先下降" in tr("stability.nb.figure", "zh")


def test_stability_quadratic_overflow_stops_cleanly() -> None:
    at = run(
        "stability",
        **{"why.stability.kappa": 1000, "why.stability.lr": 2.5, "why.stability.steps": 1000},
    )
    assert "overflowed to inf" in texts(at, "warning")


def test_stability_network_chart_holds_the_cores_sharpness() -> None:
    at = run("stability", **{"why.stability.part": "network"})
    core = sb.run(sb.StabilityConfig())
    chart = charts(at)[0]
    (sharp,) = traces(chart, "λ_max")
    np.testing.assert_allclose(plotly_array(sharp["y"]), core.sharpness, rtol=1e-12)
    assert chart["layout"]["shapes"][0]["y0"] == pytest.approx(2 / 0.5)
    assert "2/lr = 4" in texts(at, "info")


def test_stability_network_refuses_a_large_network() -> None:
    at = run(
        "stability",
        **{
            "why.stability.part": "network",
            "why.stability.data.en": "digits",
            "why.stability.layers": 3,
            "why.stability.width": 64,
        },
    )
    assert "parameters: expected 1 to 5000, got 13130" in texts(at, "error")


def test_stats_healthy_by_default() -> None:
    at = run("stats")
    assert "found no NaN in 100 steps" in texts(at, "success")
    norms = charts(at)[0]
    stats = gs.run(gs.SCENARIOS["healthy"])
    (w1,) = traces(norms, "W1")
    np.testing.assert_allclose(plotly_array(w1["y"]), stats.layer_norms[:, 0], rtol=1e-12)
    assert len(at.get("download_button")) >= 2


def test_stats_scenario_explode_shows_the_nan_and_detect_anomaly_agrees() -> None:
    at = run("stats")
    at.button(key="why.stats.use.explode").click().run()
    assert not at.exception
    error = texts(at, "error")
    assert "NaN check: at step" in error and "W1" in error
    stats = gs.run(gs.SCENARIOS["explode"])
    node, output = stats.nan_source
    assert f"**{node}**" in texts(at, "markdown")
    at.button(key="why.stats.anomaly").click().run()  # a fresh Python process: a few seconds
    assert not at.exception
    assert at.code[0].value == f"Function '{node}' returned nan values in its {output}th output."
    assert not torch.is_anomaly_enabled()  # never switched on in this process


def test_stats_float32_nan_in_chinese() -> None:
    at = run("stats", "zh")
    at.button(key="why.stats.use.nan32").click().run()
    assert "NaN 检查" in texts(at, "error")
    assert "在 float32 中，NaN 检查在第 0 步停止了运行" in texts(at, "markdown")


def test_stats_refuses_too_much_work() -> None:
    at = run(
        "stats",
        **{
            "why.stats.depth": 12,
            "why.stats.width": 128,
            "why.stats.steps": 300,
            "why.stats.batch": 256,
        },
    )
    assert "gradient statistics:" in texts(at, "error") and "over the limit" in texts(at, "error")


def test_a_form_radio_keeps_its_choice_across_a_language_switch() -> None:
    at = run("hf", **{"why.hf.data.en": "digits"})
    assert at.session_state["why.hf.data"] == "digits"
    at.session_state["lang"] = "zh"
    at.run()
    assert at.radio(key="why.hf.data.zh").value == "digits"


def without_tensorboard(monkeypatch: pytest.MonkeyPatch) -> None:
    """As on a deployment with requirements.txt only: every import of tensorboard fails."""
    for name in ("tensorboard", "torch.utils.tensorboard"):
        monkeypatch.setitem(sys.modules, name, None)  # None in sys.modules: ImportError
    with pytest.raises(ImportError):
        import tensorboard  # noqa: F401
    with pytest.raises(ImportError):
        from torch.utils.tensorboard import SummaryWriter  # noqa: F401


def test_the_tensorboard_download_is_offered_without_tensorboard(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    without_tensorboard(monkeypatch)
    at = run("stats")
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels[:3] == [
        "Download CSV",
        "Download JSON (with histograms)",
        "Download TensorBoard event files (.zip)",
    ]


def test_the_tensorboard_files_read_back(monkeypatch: pytest.MonkeyPatch) -> None:
    import io as _io
    import tempfile
    import zipfile

    from hograd_labs.stats.figures import tensorboard_archive

    stats = gs.run(gs.StatsConfig(depth=3, width=8, steps=20))
    with monkeypatch.context() as blocked:  # written with requirements.txt only
        without_tensorboard(blocked)
        archive = tensorboard_archive(stats, wall_time=1_700_000_000.5)
    # read back by tensorboard's own reader (a test-only package)
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    with tempfile.TemporaryDirectory() as folder:
        zipfile.ZipFile(_io.BytesIO(archive)).extractall(folder)
        events = EventAccumulator(
            str(Path(folder) / "gradient-stats"), size_guidance={"histograms": 0, "scalars": 0}
        )
        events.Reload()
    want = {
        "loss/float64": stats.losses,
        "loss/float32": stats.other_losses,
        "grad_norm/total": stats.total_norms,
    }
    want |= {f"grad_norm/{n}": stats.layer_norms[:, k] for k, n in enumerate(stats.layer_names)}
    assert set(events.Tags()["scalars"]) == set(want)
    for tag, values in want.items():  # every scalar, with its step and value (float32)
        got = events.Scalars(tag)
        assert [e.step for e in got] == list(range(len(values))), tag
        np.testing.assert_array_equal([e.value for e in got], np.float32(values), err_msg=tag)
        assert {e.wall_time for e in got} == {1_700_000_000.5}
    hist = events.Histograms("grad_abs/W1")
    assert [h.step for h in hist] == list(stats.hist_steps)
    first = hist[0].histogram_value
    assert first.num == 64 * 8  # every entry of W1 (64 inputs x 8 units)
    assert list(first.bucket)[1:] == stats.hist_counts[0, 0].tolist()
    assert first.bucket[0] == stats.hist_zeros[0, 0]


def test_newton_start_where_f_is_undefined_says_so() -> None:
    at = run("newton", **{"why.newton.fn": "log(x) + y^2"})
    at.number_input(key="why.newton.x0").set_value(-1.0).run()
    assert not at.exception
    assert "not a finite number at the start point" in texts(at, "warning")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_tabs_script_is_folded_until_asked_for(lang: str) -> None:
    """The script (and its torch.func form) is sent only once its expander is opened; its
    downloads are there either way. Opened, the script is the .py the tab offers."""
    folded = open_tab("newton", lang, unfold=False)
    assert not folded.code  # no script, no torch.func form: no highlighter to load
    assert len(folded.get("download_button")) == 3  # .py, torch.func .py, notebook
    unfolded = open_tab("newton", lang)
    scripts = [c.value for c in unfolded.code]
    assert len(scripts) == 2 and "create_graph=True" in scripts[0]
    assert "torch.func" in scripts[1]
    marked = next(c.value for c in unfolded.caption if "# <--" in c.value)  # names the lines
    lines = scripts[0].splitlines()
    numbers = [int(n) for n in re.findall(r"\d+", marked.split("# <--")[1])]
    assert numbers and all("# <--" in lines[n - 1] for n in numbers)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("scenario", ["healthy", "explode", "nan32", "nan32_in_float64"])
def test_stats_precision_sentence_fits_each_case(scenario: str, lang: str) -> None:
    """Neither, one (either way round) or both precisions non-finite: each its own sentence,
    with the step at which each was stopped, and never a NaN printed as a difference."""
    at = run("stats", lang)
    name = scenario.removesuffix("_in_float64")
    at.button(key=f"why.stats.use.{name}").click().run()
    if scenario.endswith("_in_float64"):
        at.session_state[f"why.stats.dtype.{lang}"] = "float64"  # the form's radio
        at.run()
    config = gs.SCENARIOS[name]
    if scenario.endswith("_in_float64"):
        config = gs.StatsConfig(**{**config.__dict__, "dtype": "float64"})
    stats = gs.run(config)
    if scenario.endswith("_in_float64"):  # the page ran float64: its own run has no NaN
        assert stats.nan_step is None and stats.other_nan_step == 0 and at.success
    said = "\n".join(m.value for m in at.markdown)
    assert "at most nan" not in said and "相差 nan" not in said
    steps = {stats.config.dtype: stats.nan_step, stats.other_dtype: stats.other_nan_step}
    sentence = [line for line in said.split("\n") if "float32" in line and "float64" in line]
    assert sentence, said
    both = all(v is not None for v in steps.values())
    neither = all(v is None for v in steps.values())
    if neither:
        assert ("Both precisions stayed finite" if lang == "en" else "两种精度在全部") in said
    elif both:
        assert ("Neither precision stayed finite" if lang == "en" else "都没有保持有限") in said
        for dtype, step in steps.items():  # each precision named with its own step
            word = (
                f"the {dtype} run at step {step}" if lang == "en" else f"第 {step} 步停止了 {dtype}"
            )
            assert word in said.replace("stopped the ", "the "), (word, said)
    else:
        bad = next(d for d, v in steps.items() if v is not None)
        good = next(d for d, v in steps.items() if v is None)
        assert (
            f"In {bad} the NaN check stopped the run at step {steps[bad]}"
            if lang == "en"
            else f"在 {bad} 中，NaN 检查在第 {steps[bad]} 步停止了运行"
        ) in said
        assert (
            f"in {good} the same run stayed finite" if lang == "en" else f"在 {good} 中"
        ) in said


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_stats_vanish_preset_is_labelled_for_what_it_shows(lang: str) -> None:
    """Not depth or the start (it starts from the healthy weights): a step too large, which
    saturates the tanh units; the caption gives the share of saturated units."""
    at = run("stats", lang)
    label = at.button(key="why.stats.use.vanish").label
    assert ("saturation" if lang == "en" else "饱和") in label and "lr 2" in label
    at.button(key="why.stats.use.vanish").click().run()
    sat = gs.run(gs.SCENARIOS["vanish"]).saturated
    said = "\n".join(c.value for c in at.caption)
    assert (
        f"{sat[-1]:.1%}" in said and ("Saturated tanh" if lang == "en" else "饱和的 tanh") in said
    )


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_hf_says_how_far_the_torch_func_form_is_and_what_cg_runs_on(lang: str) -> None:
    """The relative difference quoted (caption and the form's note) is the measured one, and
    the intro names Martens' Gauss-Newton matrix against the H used here."""
    at = run("hf", lang)
    last, most = hf.func_form_gaps(hf.run(hf.HFConfig()))
    captions = "\n".join(c.value for c in at.caption)
    assert f"{last:.1e}" in captions and f"{most:.1e}" in captions
    func = at.code[-1].value
    assert f"{last:.1e}" in func and "agree to rounding" not in func
    intro = "\n".join(m.value for m in at.markdown)
    assert "Gauss-Newton" in intro and "Martens" in intro
    assert ("negative curvature" if lang == "en" else "负曲率") in intro
