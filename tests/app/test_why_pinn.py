"""The physics-informed network tab through AppTest: both languages, the charts against the
lab's run, the silent bug without create_graph shown as a warning, the wave preset, and a
refused setting explained in both languages."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from hograd_labs.pinn import compute as core
from hograd_labs.pinn.cached import script as lab_script
from hograd_labs.pinn.figures import SLICE_SYMBOLS
from hograd_ui.plot_kit import finite_or_dash
from tests.app.charts import chart_elements
from tests.app.why import charts, open_tab
from tests.arrays import plotly_array


def run(lang: str = "en", **state: object) -> AppTest:
    return open_tab("pinn", lang, 90, **state)


def grid(z: object) -> np.ndarray:
    """A heat map's z as the 41 x 41 grid (base64 in the chart's JSON, or nested lists)."""
    return plotly_array(z).reshape(41, 41) if isinstance(z, dict) else np.array(z, dtype=float)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_tab_trains_the_heat_preset_and_draws_the_cores_run(lang: str) -> None:
    at = run(lang)
    expected = core.run(core.preset("heat"))
    maps, slices, losses = charts(at)
    u = maps["data"][0]
    assert u["type"] == "heatmap"
    np.testing.assert_allclose(grid(u["z"]), expected.u, rtol=1e-12)
    first = slices["data"][0]
    np.testing.assert_allclose(plotly_array(first["y"]), expected.u[0], rtol=1e-12)
    # each time its own marker, filled on the network's line and open on the exact one's
    symbols = [t["marker"]["symbol"] for t in slices["data"]]
    assert symbols[0::2] == list(SLICE_SYMBOLS)
    assert symbols[1::2] == [f"{s}-open" for s in SLICE_SYMBOLS]
    np.testing.assert_allclose(
        plotly_array(losses["data"][0]["y"]), expected.terms[:, 0], rtol=1e-12
    )
    assert at.success and not at.warning
    script = at.code[-2].value  # [-1]: its torch.func form
    assert script == lab_script(core.preset("heat")).source.rstrip()  # run in tests/labs
    assert "create_graph=keep" in script and "    config = PinnConfig(equation='heat'" in script
    words = {"en": "physics-informed network", "zh": "物理信息神经网络"}[lang]
    assert words in "\n".join(m.value for m in at.markdown)
    assert f"{expected.parameters:,}" in [m.value for m in at.metric]
    said = {"en": "needs the diagonal, not the whole Hessian", "zh": "需要的是对角线"}[lang]
    assert said in "\n".join(m.value for m in at.markdown)  # u_xx: one product per point


def test_without_create_graph_the_tab_warns_and_quotes_pytorch() -> None:
    at = run("zh", **{"why.pinn.create_graph": False})
    bad = core.run(replace(core.preset("heat"), create_graph=False))
    assert at.warning and "retain_graph=True" in at.warning[0].value
    assert bad.omission_error in [c.value for c in at.code]  # word for word
    maps = charts(at)[0]
    residual = maps["data"][2]
    np.testing.assert_allclose(grid(residual["z"]), bad.residual, rtol=1e-12)
    script = at.code[-2].value  # the download carries the flag as the page's setting
    assert f"    config = {replace(core.preset('heat'), create_graph=False)!r}" in script


WORDS = {
    "en": {
        "trained": "trained, its gradient reaches the weights",
        "partly": "only through u_t",
        "constant": "never trained",
        "weight0": "its weight is 0",
    },
    "zh": {
        "trained": "得到训练，它的梯度能到达权重",
        "partly": "只通过 u_t 得到训练",
        "constant": "从未被训练",
        "weight0": "权重为 0",
    },
}
TERMS = {"en": {"residual": "the equation's residual"}, "zh": {"residual": "方程残差"}}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(
    ("equation", "keep", "w_res"),
    [
        ("heat", True, 1.0),
        ("heat", False, 1.0),
        ("wave", True, 1.0),
        ("wave", False, 1.0),
        ("heat", True, 0.0),
    ],
)
def test_the_tab_says_what_each_term_got(equation, keep, w_res, lang) -> None:
    """One line per term of the loss, with the core's word for it (checked against the run's
    gradients in tests/core) and the run's own start and end values; with the residual's
    weight 0 nothing says the optimiser pushed the residual down."""
    state = {
        "why.pinn.equation": equation,
        "why.pinn.create_graph": keep,
        "why.pinn.steps": 100,
        "why.pinn.w0": w_res,
    }
    at = run(lang, **state)
    config = replace(core.preset(equation), steps=100, create_graph=keep, w_residual=w_res)
    expected = core.run(config)
    said = "\n".join(m.value for m in at.markdown)
    lines = [line for line in said.splitlines() if line.startswith("- **")]
    rows = core.fit_summary(expected)
    assert len(lines) == len(rows)
    for line, (term, how, a, b) in zip(lines, rows, strict=True):
        name = TERMS[lang].get(term)
        assert name is None or f"**{name}**" in line
        assert WORDS[lang][how] in line, (line, how)
        assert f"{finite_or_dash(a, 3)} → {finite_or_dash(b, 3)}" in line
    boxes = "\n".join(b.value for b in [*at.success, *at.warning])
    assert "push the residual down" not in boxes
    if w_res == 0:
        assert WORDS[lang]["weight0"] in lines[0]


def test_the_wave_preset_starts_from_its_own_steps() -> None:
    at = run()
    at.radio(key="why.pinn.equation.en").set_value("wave").run()
    assert not at.exception
    assert at.slider(key="why.pinn.steps").value == core.preset("wave").steps
    expected = core.run(core.preset("wave"))
    slices = charts(at)[1]
    np.testing.assert_allclose(
        plotly_array(slices["data"][-1]["y"]), expected.exact[40], rtol=1e-12
    )
    assert "u_tt" in at.code[-2].value


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_network_over_the_budget_is_refused_with_a_reason(lang: str) -> None:
    at = run(lang, **{"why.pinn.width": 64, "why.pinn.depth": 4})
    words = {
        "en": "parameters: expected 1 to 10000, got 12737",
        "zh": "parameters：应在 1 到 10000 之间，实际为 12737",
    }[lang]
    assert at.error and words in at.error[0].value
    assert not chart_elements(at)


def test_the_chosen_equation_survives_a_language_switch() -> None:
    at = run()
    at.radio(key="why.pinn.equation.en").set_value("wave").run()
    at.session_state["lang"] = "zh"
    at.run()
    assert not at.exception
    assert at.radio(key="why.pinn.equation.zh").value == "wave"
    assert any(o.startswith("波动") for o in at.radio(key="why.pinn.equation.zh").options)
    assert "u_tt" in at.code[-2].value
    assert at.slider(key="why.pinn.steps").value == core.preset("wave").steps
