"""The Hessian-vector product page through AppTest: both modes, both languages, presets, the
κ builder, a bad function, the network's budgets, what the charts carry, and that every
statement the page makes holds for the case it is shown on."""

from __future__ import annotations

import ast
import contextlib
import io
import itertools
import json
import math
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from hograd_ui.i18n import tr
from tests.app.charts import chart_elements, figure_of
from tests.apptest import APP_TEST_CEILING

PAGE = str(Path(__file__).resolve().parents[2] / "pages" / "hvp.py")


def run(lang: str = "en", mode: str = "typed", **state: object) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=APP_TEST_CEILING)
    at.session_state["lang"] = lang
    at.session_state["hvp.mode"] = mode
    for key, value in state.items():
        at.session_state[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


TABS = {
    "typed": ("hvp.tab", ("picture", "hessian", "ways", "slices", "power")),
    "network": ("hvp.net.tab", ("top", "trace", "sharp", "hessian", "training")),
}


def open_tab(at: AppTest, name: str) -> AppTest:
    """The page's tabs compute only the open one (hograd_ui/parts/ui.py lazy_tabs): open ``name``."""
    key, _ = TABS[at.session_state["hvp.mode"]]
    at.session_state[key] = name
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def every_tab(at: AppTest) -> Iterator[AppTest]:
    """Open each tab in turn (and the first again at the end)."""
    _, names = TABS[at.session_state["hvp.mode"]]
    for name in names:
        yield open_tab(at, name)
    open_tab(at, names[0])


def texts(at: AppTest, kind: str) -> list[str]:
    """The texts of every ``kind`` element ("warning", "info", ...) on every tab."""
    return [e.value for _ in every_tab(at) for e in getattr(at, kind)]


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def table(at: AppTest, index: int = 0) -> dict[str, list[str]]:
    """The page's tables in order: 0 the p, v, gradient and Hv table (a static table), 1 the
    eigen table (a data grid, in the Hessian tab)."""
    df = [*at.table, *at.dataframe][index].value
    df = df.set_index(df.columns[0])  # the row labels are a first column with a header
    return {str(row): [str(x) for x in df.loc[row]] for row in df.index}


def charts(at: AppTest) -> list[dict]:
    """Every tab's charts, in tab order."""
    return [figure_of(c) for _ in every_tab(at) for c in chart_elements(at)]


def test_only_the_open_tab_is_computed() -> None:
    at = run()
    assert len(chart_elements(at)) == 1  # the contour; the power animation is not built
    open_tab(at, "power")
    spec = figure_of(chart_elements(at)[0])
    assert len(chart_elements(at)) == 1 and len(spec["frames"]) == 31


def test_typed_mode_shows_the_seed_example() -> None:
    at = run()
    assert at.title[0].value == "Hessian-vector products and curvature"
    assert at.text_input(key="hvp.fn").value == "w1**2*sin(w2)"
    rows = table(at)
    assert rows["gradient ∇f(p)"] == ["2", "0"]  # cos(π/2) = 6e-17 is shown as 0
    assert rows["Hessian-vector product Hv"] == ["1", "-1"]
    assert metric(at, "Curvature along v") == "-0.4"
    assert metric(at, "Second-derivative test") == "not critical"
    assert not at.error
    specs = charts(at)
    assert len(specs) == 5  # contour, Hessian, times, slices, power iteration
    contour = specs[0]
    labels = {a.get("text") for a in contour["layout"]["annotations"]}
    assert {"<b>∇f</b>", "<b>v</b>", "<b>Hv</b>"} <= labels
    assert contour["layout"]["yaxis"]["scaleanchor"] == "x"  # angles drawn true
    hessian = specs[1]["data"][0]
    assert hessian["text"] == [["2", "0"], ["0", "-1"]]
    power = specs[4]
    assert len(power["frames"]) == 31  # steps 0..30, played by the figure's own button
    assert power["layout"]["updatemenus"][0]["buttons"][0]["label"].endswith("Play")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_surface_is_a_chart_named_and_described(lang: str) -> None:
    """The 3-D surface goes through the same chart as the contour: its name says which f, its
    description where p is and f(p) (1 at the seed's p = (1, π/2)); the gl3d bundle draws it.
    The grid both draw is a CSV download beside them."""
    at = run(lang, **{"hvp.surface": True})
    heads = [json.loads(e.proto.bytes) for e in chart_elements(at)]
    assert [h["bundle"] for h in heads] == ["cartesian", "gl3d"]  # the contour, the surface
    name, said = heads[1]["said"]["name"], heads[1]["said"]["description"]
    assert "w1**2*sin(w2)" in name
    point = (
        "p: at w1 = 1, w2 = 1.57, f = 1." if lang == "en" else "p：位于 w1 = 1、w2 = 1.57、f = 1。"
    )
    assert point in said and "81" in said
    assert heads[1]["figure"]["data"][0]["type"] == "surface"
    assert tr("downloads.csv.grid", lang) in [b.proto.label for b in at.get("download_button")]


def test_typed_mode_in_chinese() -> None:
    at = run("zh")
    assert re.search(r"[\u4e00-\u9fff]", at.title[0].value)
    assert metric(at, "二阶导数判别法") == "非临界点"
    assert "梯度 ∇f(p)" in table(at)
    # not a critical point, so not called a saddle: only H is said to be indefinite
    assert any("不是临界点" in info and "H 不定" in info for info in texts(at, "info"))
    assert charts(at)[4]["layout"]["updatemenus"][0]["buttons"][0]["label"].endswith("播放")


@pytest.mark.parametrize(
    ("text", "kind", "box"),
    [
        ("x^2 - y^2", "saddle point", "warning"),
        ("x^4 + y^4", "inconclusive", "warning"),
        ("(1 - x)^2 + 100*(y - x^2)^2", "local minimum", "success"),
    ],
)
def test_presets_move_p_to_their_critical_point(text: str, kind: str, box: str) -> None:
    at = run()
    at.text_input(key="hvp.fn").set_value(text).run()
    assert not at.exception
    assert at.slider(key="hvp.p.x").value == at.session_state["hvp.p.x"]
    assert metric(at, "Second-derivative test") == kind
    assert metric(at, "Gradient size |∇f(p)|") == "0"
    assert texts(at, box)


def test_degenerate_preset_says_which_test_failed() -> None:
    at = run()
    at.text_input(key="hvp.fn").set_value("x^4 + y^4").run()
    text = " ".join(texts(at, "warning"))
    assert "Inconclusive." in text and "2 eigenvalue(s) are zero" in text
    assert "Hu = 0" in text  # power iteration has nothing to iterate
    open_tab(at, "hessian")
    said = " ".join(m.value for m in at.markdown)
    assert "the second-derivative test is inconclusive" in said
    # x³ + y² is a saddle point by the usual definition: "neither" alone would deny it
    assert "x³ + y² neither a minimum nor a maximum" in said and "saddle points" in said


def use_kappa(at: AppTest, kappa: int) -> AppTest:
    at.select_slider(key="hvp.kappa").set_value(kappa).run()
    at.button(key="hvp.kappa.use").click().run()
    assert not at.exception
    return at


def test_condition_number_builder_sets_the_quadratic() -> None:
    at = use_kappa(run(), 100)
    assert at.text_input(key="hvp.fn").value == "((x+y)^2 + 100*(y-x)^2)/4"
    open_tab(at, "power")
    assert metric(at, "Largest |λ| (from H)") == "100"
    open_tab(at, "hessian")
    eig = table(at, 1)
    assert eig["e1"][0] == "1" and eig["e2"][0] == "100"


def test_sliders_move_the_point() -> None:
    at = run()
    at.slider(key="hvp.p.w1").set_value(2.0).run()
    rows = table(at)
    assert rows["point p"][0] == "2" and rows["gradient ∇f(p)"] == ["4", "0"]  # 2·w1·sin(w2)


def test_a_bad_function_shows_an_error_and_echoes_the_text_as_code() -> None:
    at = run()
    at.text_input(key="hvp.fn").set_value("sin(x").run()
    assert not at.exception
    assert at.error and "never closed" in at.error[0].value
    assert any(code.value == "sin(x" for code in at.code)


def test_markup_in_a_function_is_refused_not_rendered() -> None:
    at = run()
    at.text_input(key="hvp.fn").set_value("<b>x</b>").run()
    assert at.error and any(code.value == "<b>x</b>" for code in at.code)


def test_three_variables_have_no_contour_but_everything_else() -> None:
    at = run()
    at.text_input(key="hvp.fn").set_value("x*y*z + x^2").run()
    assert not at.exception and not at.error
    assert any("exactly two variables" in i for i in texts(at, "info"))
    assert len(charts(at)) == 4  # Hessian, times, slices, power iteration
    assert table(at)["point p"] == ["1", "1", "1"]


def test_undefined_point_does_not_crash() -> None:
    at = run()
    at.text_input(key="hvp.fn").set_value("sqrt(x) + y").run()
    at.slider(key="hvp.p.x").set_value(0.0).run()
    assert not at.exception
    assert any("not finite" in w for w in texts(at, "warning"))


def test_network_mode_trains_and_analyses() -> None:
    at = run(mode="network")
    assert metric(at, "Parameters n") == "1,210"
    assert metric(at, "Held-out accuracy").endswith("%")
    top = at.dataframe[0].value
    assert list(top.iloc[:, 0]) == [
        "Lanczos (scipy eigsh)",
        "Power iteration, 20 steps",
        "Full Hessian (numpy eigvalsh)",
    ]
    assert float(top.iloc[0, 4]) < 0.01  # Lanczos within 1% of the full Hessian
    specs = charts(at)
    assert len(specs) == 5  # power vs Lanczos, Hutchinson, directions, heatmap, training loss
    assert not at.error


def test_network_mode_in_chinese_with_the_toy_set() -> None:
    at = run("zh", "network")
    at.radio(key="hvp.net.dataset.zh").set_value("moons")
    at.button[0].click().run()
    assert not at.exception
    assert metric(at, "参数个数 n") == f"{2 * 16 + 16 + 16 * 2 + 2:,}"
    assert any("Lanczos" in str(c) for c in at.dataframe[0].value.iloc[:, 0])


def test_network_over_budget_is_refused_with_the_limit() -> None:
    at = run(mode="network")
    at.slider(key="hvp.net.layers").set_value(3)
    at.select_slider(key="hvp.net.width").set_value(512)
    at.button[0].click().run()
    assert not at.exception
    assert at.error and "563,722 parameters, over the limit of 120,000" in at.error[0].value


def test_big_network_shows_memory_instead_of_the_heatmap() -> None:
    at = run(mode="network")
    at.select_slider(key="hvp.net.width").set_value(64)
    at.slider(key="hvp.net.steps").set_value(50)
    at.button[0].click().run()
    assert not at.exception
    assert metric(at, "Parameters n") == "4,810"
    open_tab(at, "hessian")
    assert metric(at, "Full Hessian (float64)") == "185 MB"
    assert any("Above 2,000 parameters" in i.value for i in at.info)


def test_choices_survive_a_language_switch() -> None:
    at = run(mode="network")
    at.radio(key="hvp.net.dataset.en").set_value("moons")
    at.button[0].click().run()
    at.session_state["lang"] = "zh"
    at.run()
    assert not at.exception
    assert at.radio(key="hvp.mode.zh").value == "network"
    assert at.radio(key="hvp.net.dataset.zh").value == "moons"
    assert metric(at, "参数个数 n") == "82"


def test_every_key_the_page_builds_exists() -> None:
    # Keys assembled with f-strings escape the repository-wide check of literal keys.
    from hograd_core.curvature import METHODS
    from hograd_core.network import DATASETS
    from hograd_ui.i18n import catalogue

    kinds = ("minimum", "maximum", "saddle", "degenerate")
    reasons = ("positive_definite", "negative_definite", "indefinite", "zero_eigenvalue")
    reasons += ("not_finite",)
    keys = [f"hvp.kind.{k}" for k in kinds] + [f"hvp.verdict.{k}" for k in kinds]
    keys += [f"hvp.reason.{r}" for r in reasons] + [f"hvp.method.{m}" for m in METHODS]
    keys += [f"hvp.power.{s}" for s in ("zero_start", "hv_zero", "not_finite")]
    keys += [f"hvp.power.tie.{s}" for s in ("repeated", "opposite")]
    keys += [f"hvp.mode.{m}" for m in ("typed", "network")]
    keys += [f"hvp.net.dataset.{d}" for d in DATASETS]
    keys += [f"hvp.tab.{k}" for k in ("picture", "hessian", "ways", "slices", "power")]
    keys += [f"hvp.net.tab.{k}" for k in ("top", "trace", "sharp", "hessian", "training")]
    keys += [f"hvp.col.{c}" for c in ("point", "vector", "gradient", "hv")]
    keys += [f"hvp.net.col.{c}" for c in ("method", "estimate", "hvps", "time", "error")]
    assert [k for k in keys if k not in catalogue("en")] == []


def test_the_three_ways_are_timed_only_when_their_tab_is_open(monkeypatch) -> None:
    """The timing loop is most of a rerun's work on this page, and every slider move reruns
    the page: it runs for the tab that shows it, and its numbers are those of the oracle
    (the Hessian times v)."""
    from hograd_core import curvature as cv

    calls = []
    original = cv.hvp_three_ways
    monkeypatch.setattr(cv, "hvp_three_ways", lambda *a, **k: calls.append(a) or original(*a, **k))
    at = run(**{"hvp.fn": "w1**2*sin(w2) + w1/7"})  # typed by no other test: nothing cached
    at.slider(key="hvp.p.w1").set_value(1.25).run()
    assert not at.exception and calls == []
    open_tab(at, "ways")
    assert len(calls) == 1
    w1, w2, v1, v2 = (
        1.25,
        at.slider(key="hvp.p.w2").value,
        *[at.slider(key=f"hvp.v.{n}").value for n in ("w1", "w2")],
    )
    hv = (
        2 * math.sin(w2) * v1 + 2 * w1 * math.cos(w2) * v2,
        2 * w1 * math.cos(w2) * v1 - w1**2 * math.sin(w2) * v2,
    )
    shown = at.dataframe[-1].value.iloc[:, 1]
    for cell in shown:
        got = [float(x) for x in cell.strip("()").split(", ")]
        assert got == pytest.approx(hv, rel=1e-5)  # shown to 6 significant digits


# ---- every statement true for the case it is shown on (issue 14) ----------------------------


def test_the_minors_are_sufficient_not_necessary() -> None:
    """x⁴ + y⁴ has a minimum at 0 with every leading minor 0: the page must not say a minimum
    needs them positive."""
    for lang, sufficient, not_needed in (
        ("en", "sufficient", "not necessary"),
        ("zh", "足以", "并非必要"),
    ):
        at = run(lang, **{"hvp.fn": "x^4 + y^4", "hvp.tab": "hessian"})
        minors = next(m.value for m in at.markdown if "D1 = 0, D2 = 0" in m.value)
        assert sufficient in minors and not_needed in minors
        assert "needs all" not in minors and "要求它们全为正" not in minors


def test_the_power_tab_quotes_both_rates() -> None:
    """κ = 2: the angle shrinks by 0.5 per step, the Rayleigh quotient's error by 0.25."""
    at = use_kappa(run(), 2)
    open_tab(at, "power")
    rates = next(m.value for m in at.markdown if "|λ₂/λ₁| = 0.5" in m.value)
    assert "about 0.5" in rates and "about 0.25, its square" in rates


def test_kappa_one_converges_at_step_zero_and_says_why() -> None:
    """|λ₂| = |λ₁| stops power iteration only when λ₂ = −λ₁: for κ = 1 (H = I) it has
    converged at step 0, and the page says that, not that it cannot converge."""
    at = use_kappa(run(), 1)
    open_tab(at, "power")
    said = " ".join([w.value for w in at.warning] + [c.value for c in at.caption])
    assert "does not converge" not in said
    assert "repeated eigenvalue" in said
    assert "within 1e-06 of λ₁ from step 0 on" in said
    at.text_input(key="hvp.fn").set_value("x^2 - y^2").run()
    open_tab(at, "power")
    said = " ".join(w.value for w in at.warning)
    assert "λ₁ = 2 and -2 are both eigenvalues of the largest size" in said


def test_a_start_perpendicular_to_e1_is_said() -> None:
    at = use_kappa(run(), 10)
    at.slider(key="hvp.v.x").set_value(1.0)
    at.slider(key="hvp.v.y").set_value(1.0).run()
    open_tab(at, "power")
    assert any("v has no part along the eigenvectors" in w.value for w in at.warning)


def test_the_code_runs_and_gives_the_tables_numbers() -> None:
    """The script under "Hv three ways" is generated from f, p and v: run here, it prints the
    gradient and Hv the page's table shows."""
    from hograd_core.curvature import _load_forward_ad

    at = run(**{"hvp.fn": "x^2*y + exp(x - y)", "hvp.tab": "ways"})
    at.slider(key="hvp.p.x").set_value(0.35)
    at.slider(key="hvp.v.y").set_value(-0.5).run()
    source = next(c.value for c in at.code if "torch.autograd.grad" in c.value)
    assert "torch.autograd.functional.vhp" in source
    _load_forward_ad()  # torch's own first-use DeprecationWarning, silenced as the app does
    with contextlib.redirect_stdout(io.StringIO()) as out:
        exec(compile(source, "<page code>", "exec"), {})  # the page's own code
    printed = {  # "gradient [..]", "Hv [..] [..] [..]", "vH [..]"
        line.split()[0]: [ast.literal_eval(x) for x in re.findall(r"\[[^\]]*\]", line)]
        for line in out.getvalue().splitlines()
    }
    rows = table(at)
    for name, row in (("gradient", "gradient ∇f(p)"), ("Hv", "Hessian-vector product Hv")):
        shown = [float(x) for x in rows[row]]
        for got in printed[name]:
            assert got == pytest.approx(shown, rel=1e-5)  # shown to 6 digits
    assert printed["vH"][0] == pytest.approx(printed["Hv"][0], rel=1e-12)
    note = next(c.value for c in at.caption if "torch.func.hvp" in c.value)
    assert "`vhp`" in note and "twice continuously differentiable" in note


def test_the_kappa_slider_alone_does_not_replace_the_function() -> None:
    at = run()
    at.text_input(key="hvp.fn").set_value("x^3 + y^2").run()
    at.select_slider(key="hvp.kappa").set_value(100).run()
    assert at.text_input(key="hvp.fn").value == "x^3 + y^2"
    assert not any("was replaced" in c.value for c in at.caption)
    at.button(key="hvp.kappa.use").click().run()
    assert at.text_input(key="hvp.fn").value == "((x+y)^2 + 100*(y-x)^2)/4"
    assert any("f was replaced by the quadratic for κ = 100" in c.value for c in at.caption)
    at.text_input(key="hvp.fn").set_value("x*y").run()  # typed over: the note goes
    assert not any("was replaced" in c.value for c in at.caption)


def in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Train and analyse afresh, with the test's patches in place (nothing cached before)."""
    from hograd_labs.hvp.cached import analysed, trained

    trained.clear()
    analysed.clear()


class JumpyClock:
    """A clock that jumps ``gap`` seconds at every reading: a server under heavy load. Put in
    place of a module's ``time``, it counts its readings (so a test knows the module it patched
    is the one that ran) and has nothing but ``perf_counter`` (any other use of ``time`` there
    fails the test)."""

    def __init__(self, gap: float) -> None:
        self.readings = itertools.count(0.0, gap)
        self.read = 0

    def perf_counter(self) -> float:
        self.read += 1
        return next(self.readings)


def network_numbers(at: AppTest) -> dict[str, object]:
    """What a run of the network page shows, but the training's wall time."""
    shown = {m.label: m.value for m in at.metric}
    shown.pop("Training: 300 steps")  # every one of the 300 steps; the value is the clock's
    return {"metrics": shown, "top": at.dataframe[0].value.iloc[:, :3].values.tolist()}


def test_the_same_network_trains_and_analyses_the_same_under_any_load(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A lecture preset runs the same way every time: under a clock that jumps 10 s per
    reading, training takes all 300 steps and the analysis is neither refused nor cut short,
    with the same numbers as on the real clock. The clock replaces ``time`` in the module the
    page runs (hograd_labs/hvp/compute.py, training and analysis), and must be read there."""
    from hograd_labs.hvp import compute

    in_process(monkeypatch)
    reference = run(mode="network", **{"hvp.net.seed": 5})
    expected = network_numbers(reference)
    in_process(monkeypatch)
    clock = JumpyClock(10.0)
    monkeypatch.setattr(compute, "time", clock)
    at = run(mode="network", **{"hvp.net.seed": 5})
    assert not at.exception and not at.error and not at.warning
    assert clock.read > 0  # the page trained and analysed under this clock
    assert any(
        "Training: 300 steps" in m.label and float(m.value.split()[0]) >= 10 for m in at.metric
    )
    assert network_numbers(at) == expected
    assert "Full Hessian (numpy eigvalsh)" in list(at.dataframe[0].value.iloc[:, 0])


def test_the_size_and_limits_show_before_training(monkeypatch: pytest.MonkeyPatch) -> None:
    """The parameter count, the most steps and HVPs this size allows, and a refusal, all show
    as the network's shape is chosen, before anything is trained."""
    from hograd_core import network as nw
    from hograd_labs.hvp import compute

    calls: list[object] = []
    original = compute.train
    monkeypatch.setattr(compute, "train", lambda *a, **k: calls.append(a) or original(*a, **k))
    in_process(monkeypatch)
    at = run(mode="network")  # the first visit trains the default network
    assert [config.hidden for config, _ in calls] == [(16,)]
    calls.clear()
    at.select_slider(key="hvp.net.width").set_value(128)
    at.slider(key="hvp.net.layers").set_value(3).run()  # no Train pressed
    assert not at.exception and not at.error
    size = next(c.value for c in at.caption if "parameters:" in c.value)
    config = nw.NetConfig(hidden=(128, 128, 128))
    n = 64 * 128 + 128 + 2 * (128 * 128 + 128) + 128 * 10 + 10
    assert nw.count_parameters(config) == n
    assert f"{n:,} parameters: 64 → 128 → 128 → 128 → 10" in size
    assert f"at most {nw.most_steps(config):,} training steps of 128 examples" in size
    assert f"up to {nw.analysis_limit(n):,} in all" in size
    assert any("The results below are for the network trained last" in i.value for i in at.info)
    at.select_slider(key="hvp.net.width").set_value(512).run()  # 3 x 512: over the limit
    assert at.error and "563,722 parameters, over the limit of 120,000" in at.error[0].value
    assert calls == []  # nothing trained for either


def test_ratios_too_small_to_time_are_not_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    from hograd_core import curvature as cv
    from hograd_labs.hvp import compute

    asked: list[int] = []  # the page's rule was asked: the patch is on the code that runs
    in_process(monkeypatch)
    monkeypatch.setattr(compute, "resolved_ratio", lambda top, bottom: asked.append(1))
    at = run(mode="network", **{"hvp.net.seed": 6})
    assert asked
    said = " ".join(m.value for m in at.markdown)
    assert "too small to time here" in said and "× a gradient" not in said
    monkeypatch.setattr(cv, "resolved_ratio", lambda top, bottom: None)
    at = run(**{"hvp.fn": "x*y + y^3/7", "hvp.tab": "ways"})  # typed by no other test
    assert list(at.dataframe[-1].value.iloc[:, 3]) == ["—", "—", "—"]
    # a new user's sentence: what the dash means, what was measured, why, what to do
    (said,) = [c.value for c in at.caption if "dash" in c.value]
    assert not said.startswith("—")
    for method in at.dataframe[-1].value.iloc[:, 0]:
        assert f"“{method}”" in said
    assert "called 15 times" in said and "move p or v" in said and "chart below" in said


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(
    ("text", "point"),
    [
        ("-1, pi/3", (-1.0, math.pi / 3)),
        ("\u22121.23, 0.7", (-1.23, 0.7)),
        ("（1.23，－0.7）", (1.23, -0.7)),
        ("[0.5; sqrt(2)]", (0.5, math.sqrt(2))),
    ],
)
def test_a_point_off_the_slider_grid_is_typed_exactly(
    text: str, point: tuple[float, float], lang: str
) -> None:
    """The sliders step by 0.05; a typed point is used as typed. Oracle: for w1²·sin(w2),
    H = [[2 sin w2, 2 w1 cos w2], [2 w1 cos w2, −w1² sin w2]], applied to v = (0.5, 1)."""
    at = run(lang)
    at.text_input(key="hvp.p.exact").input(text).run()
    assert not at.exception and not at.error
    assert (at.slider(key="hvp.p.w1").value, at.slider(key="hvp.p.w2").value) == point
    a, b = point
    hv = (
        0.5 * 2 * math.sin(b) + 2 * a * math.cos(b),
        0.5 * 2 * a * math.cos(b) - a * a * math.sin(b),
    )
    rows = list(table(at).values())
    assert [float(x) for x in rows[0]] == pytest.approx(point, rel=1e-5)
    assert [float(x) for x in rows[3]] == pytest.approx(hv, rel=1e-5)


def test_a_typed_point_outside_the_sliders_is_refused() -> None:
    at = run()
    at.text_input(key="hvp.p.exact").input("4, 0").run()
    assert [e.value for e in at.error] == [
        "(4, 0) is outside the sliders' range, -3 to 3; a point inside it is taken."
    ]
    assert at.slider(key="hvp.p.w1").value == 1.0


def test_the_three_ways_table_and_code_are_the_shown_functions(monkeypatch) -> None:
    """The "Hv three ways" table comes from hograd_core/hvp_script.py's functions (a spy that
    triples forward-over-reverse's answer changes that row, and only that row), and the code
    under it is their source."""
    import inspect

    from hograd_core import hvp_script as script
    from hograd_core.hvp_code import SHOWN

    original = script.hvp_forward_over_reverse
    monkeypatch.setattr(script, "hvp_forward_over_reverse", lambda *a: 3 * original(*a))
    at = run(**{"hvp.fn": "w1**2*sin(w2) + w2/9"})  # typed by no other test: nothing cached
    open_tab(at, "ways")
    w1, w2, v1, v2 = (
        *[at.slider(key=f"hvp.p.{n}").value for n in ("w1", "w2")],
        *[at.slider(key=f"hvp.v.{n}").value for n in ("w1", "w2")],
    )
    hv = (
        2 * math.sin(w2) * v1 + 2 * w1 * math.cos(w2) * v2,
        2 * w1 * math.cos(w2) * v1 - w1**2 * math.sin(w2) * v2,
    )
    shown = [
        [float(x) for x in cell.strip("()").split(", ")]
        for cell in at.dataframe[-1].value.iloc[:, 1]
    ]
    assert shown[0] == pytest.approx(hv, rel=1e-5) and shown[2] == pytest.approx(hv, rel=1e-5)
    assert shown[1] == pytest.approx([3 * x for x in hv], rel=1e-5)
    source = next(c.value for c in at.code if "def print_hvp" in c.value)
    assert all(inspect.getsource(fn) in source for fn in SHOWN)
