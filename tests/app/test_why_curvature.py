"""The curvature tab of "Why gradients of gradients" through AppTest: both languages and all
four parts, the numbers its charts carry against the lab's compute, a refused setting."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from hograd_core.errors import BudgetError
from hograd_core.language import parse
from hograd_labs.curvature.cached import check_spectra, torch_function
from hograd_labs.curvature.compute import (
    DiagonalConfig,
    MomentumConfig,
    NetworkCurvatureConfig,
    heavy_ball_rate,
    momentum,
    spectra,
    study,
)
from tests.app.why import charts, open_tab
from tests.arrays import plotly_array
from tests.english import raises


def texts(at, kind: str) -> str:
    return "\n".join(e.value for e in getattr(at, kind))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_diagonal_part_draws_the_exact_diagonal(lang: str) -> None:
    at = open_tab("curvature", lang, 90, **{"why.curv.probes": 50, "why.curv.repeats": 5})
    assert not at.error, texts(at, "error")
    specs = charts(at)
    assert len(specs) == 4  # diagonal and error, for the typed function and the network
    c = DiagonalConfig(probes=50, repeats=5)
    fn = parse(c.function)
    oracle = study(torch_function(fn), torch.tensor(c.point, dtype=torch.float64), fn.variables, c)
    exact = [d for d in specs[0]["data"] if d["marker"].get("symbol") == "line-ew-open"][0]
    np.testing.assert_allclose(plotly_array(exact["y"]), oracle.exact, rtol=1e-12)
    measured = specs[1]["data"]
    np.testing.assert_allclose(plotly_array(measured[1]["y"]), oracle.predicted, rtol=1e-12)
    assert "u_xx + u_yy" in texts(at, "markdown")  # the physics-informed note


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_momentum_part_shows_rates_and_the_limit(lang: str) -> None:
    state = {
        "why.curv.part": "momentum",
        "why.curv.kappa": 100,
        "why.curv.lr": 0.02,
        "why.curv.beta": 0.8,
    }
    at = open_tab("curvature", lang, **state)
    assert not at.error, texts(at, "error")
    run = momentum(MomentumConfig(100.0, 0.02, 0.8))
    assert "0.036" in texts(at, "success") or "0.036" in texts(at, "metric")  # 2(1 + 0.8)/100
    components, rates = charts(at)
    rate = rates["data"][0]
    h = plotly_array(rate["x"])
    np.testing.assert_allclose(plotly_array(rate["y"]), [heavy_ball_rate(x, 0.8, 1.0) for x in h])
    marks = rates["data"][2]
    np.testing.assert_allclose(plotly_array(marks["y"]), run.rates["momentum"], rtol=1e-12)
    closed = np.abs(run.closed_form["momentum"][:, 1])
    np.testing.assert_allclose(plotly_array(components["data"][2]["y"]), closed, rtol=1e-12)


def test_past_the_limit_warns() -> None:
    at = open_tab(
        "curvature", "en", **{"why.curv.part": "momentum", "why.curv.lr": 0.4, "why.curv.beta": 0.3}
    )
    assert "is not below the limit 0.26" in texts(at, "warning")


def test_a_refused_point_says_why() -> None:
    at = open_tab("curvature", "en", **{"why.curv.point": "1, 2"})
    assert "point" in texts(at, "error") and not at.exception


def test_a_hessian_that_is_not_finite_is_said_not_drawn() -> None:
    state = {
        "why.curv.fn": "sqrt(x)*y",
        "why.curv.point": "0, 1",
        "why.curv.probes": 10,
        "why.curv.repeats": 2,
    }
    at = open_tab("curvature", "en", **state)
    assert "not finite at this point" in texts(at, "warning")
    assert not at.error


SMALL_NET = {"why.curv.net_hidden": 4, "why.curv.net_train": 100}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_gauss_newton_part_draws_both_spectra_and_both_runs(lang: str) -> None:
    state = {"why.curv.part": "gauss_newton", **SMALL_NET, "why.curv.cg": 10}
    at = open_tab("curvature", lang, 120, **state)
    assert not at.error, texts(at, "error")
    spectrum, hf = charts(at)
    sp = spectra(NetworkCurvatureConfig(hidden=4, train_steps=100, cg_iterations=10))
    h, g = spectrum["data"]
    np.testing.assert_allclose(plotly_array(h["customdata"]), sp.hessian, rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(plotly_array(g["customdata"]), sp.ggn, rtol=1e-9, atol=1e-15)
    assert plotly_array(g["customdata"]).min() > -1e-12 and plotly_array(h["customdata"]).min() < 0
    np.testing.assert_allclose(plotly_array(hf["data"][0]["y"]), sp.hf[0].losses, rtol=1e-9)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_density_part_names_outliers_bulk_and_negatives(lang: str) -> None:
    state = {"why.curv.part": "density", **SMALL_NET, "why.curv.starts": 5}
    at = open_tab("curvature", lang, 120, **state)
    assert not at.error, texts(at, "error")
    (density,) = charts(at)
    sp = spectra(NetworkCurvatureConfig(hidden=4, train_steps=100, starts=5))
    hist, exact, slq = density["data"]
    np.testing.assert_allclose(plotly_array(hist["x"]), sp.hessian, rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(
        plotly_array(slq["y"]), np.maximum(sp.density, 1e-4 * sp.exact_density.max()), rtol=1e-9
    )
    words = [a["text"] for a in density["layout"]["annotations"]]
    key = {"en": ("bulk", "negative eigenvalues", "outlier"), "zh": ("主体", "负特征值", "离群值")}
    assert all(any(w in x for x in words) for w in key[lang])


def test_an_over_budget_network_setting_is_refused() -> None:
    with raises(BudgetError, match="Gauss-Newton and spectral density"):
        check_spectra(
            NetworkCurvatureConfig(
                hidden=32, lanczos_steps=80, starts=30, hf_iterations=30, cg_iterations=50
            )
        )
