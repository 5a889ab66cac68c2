"""The curvature lab's compute against independent oracles: sympy's Hessian for the typed
diagonal, torch.autograd.functional.hessian for the network's, numpy's eigenvalues of the 2x2
heavy-ball matrix for the closed-form rates, and that matrix's powers for the run."""

import math

import numpy as np
import pytest
import sympy as sp
import torch

from hograd_labs.curvature.compute import (
    DiagonalConfig,
    MomentumConfig,
    heavy_ball_matrix,
    heavy_ball_rate,
    momentum,
    network_function,
    study,
    typed_function,
)

SMALL = DiagonalConfig(probes=64, repeats=200, hidden=4, train_steps=20)
K = [15, 63]  # after 16 and 64 probes


def test_typed_study_against_sympy() -> None:
    c = SMALL
    f, names = typed_function(c.function)
    s = study(f, torch.tensor(c.point, dtype=torch.float64), names, c)
    x, y, z = sp.symbols("x y z")
    h = sp.hessian(x**2 * y + sp.sin(x * y) + z**3 * x, (x, y, z)).subs(
        dict(zip((x, y, z), c.point, strict=True))
    )
    h = np.array(h.evalf(30), dtype=np.float64)
    np.testing.assert_allclose(s.exact, np.diagonal(h), atol=1e-12)
    np.testing.assert_allclose(s.hessian, h, atol=1e-12)
    off = (h**2).sum() - (np.diagonal(h) ** 2).sum()
    np.testing.assert_allclose(s.predicted, np.sqrt(off / np.arange(1, c.probes + 1)))
    # 200 repeats: the measured RMS error is the closed form to within its sampling spread
    np.testing.assert_allclose(s.rms_error[K], s.predicted[K], rtol=0.15)
    assert s.products == (3, 3, c.probes)


def test_network_study_against_autograd_hessian() -> None:
    c = SMALL
    loss, theta = network_function(c.hidden, c.train_steps, c.seed)
    assert theta.numel() == 2 * 4 + 4 + 4 * 2 + 2
    s = study(loss, theta, tuple(map(str, range(theta.numel()))), c)
    oracle = torch.autograd.functional.hessian(loss, theta).numpy()
    np.testing.assert_allclose(s.exact, np.diagonal(oracle), atol=1e-12)
    np.testing.assert_allclose(s.rms_error[K], s.predicted[K], rtol=0.15)


@pytest.mark.parametrize("beta", [0.0, 0.3, 0.5, 0.9])
@pytest.mark.parametrize("h", [0.01, 0.3, 1.0, 1.9, 2.5, 3.0, 3.9])
def test_rate_is_the_spectral_radius(beta: float, h: float) -> None:
    radius = max(abs(np.linalg.eigvals(heavy_ball_matrix(h, beta, 1.0))))
    assert heavy_ball_rate(h, beta, 1.0) == pytest.approx(radius, rel=1e-6, abs=1e-7)
    assert (radius < 1) == (0 < h < 2 * (1 + beta))  # the stability limit


@pytest.mark.parametrize(
    "config",
    [
        MomentumConfig(),
        MomentumConfig(kappa=100, lr=0.02, beta=0.9, steps=200),
        MomentumConfig(kappa=5, lr=0.5, beta=0.0, steps=30),
    ],
)
def test_run_is_the_closed_form(config: MomentumConfig) -> None:
    run = momentum(config)
    np.testing.assert_allclose(run.eigenvalues, [1.0, config.kappa], rtol=1e-12)
    for method in ("momentum", "gd"):
        np.testing.assert_allclose(run.components[method], run.closed_form[method], atol=1e-9)
    assert run.limit == pytest.approx(2 * (1 + config.beta) / config.kappa)
    # the slower direction decays at its rate: the envelope (the largest |x_k| over a window
    # longer than one oscillation) shrinks by rho per step between the run's two halves
    slow = max(range(2), key=lambda i: run.rates["momentum"][i])
    rho = run.rates["momentum"][slow]
    c = np.abs(run.components["momentum"][:, slow])
    half, window = len(c) // 2, len(c) // 4
    ratio = c[-window:].max() / c[half - window : half].max()
    assert ratio ** (1 / (len(c) - half)) == pytest.approx(rho, rel=0.03)


def test_past_the_limit_diverges_and_below_converges() -> None:
    limit = 2 * (1 + 0.5) / 10  # 2(1 + β)/λ_max
    above = momentum(MomentumConfig(10, limit * 1.02, 0.5, 300))
    below = momentum(MomentumConfig(10, limit * 0.98, 0.5, 300))
    assert max(above.rates["momentum"]) > 1 and max(below.rates["momentum"]) < 1
    assert above.losses["momentum"][-1] > above.losses["momentum"][0]
    assert below.losses["momentum"][-1] < 1e-6 * below.losses["momentum"][0]


def test_best_tuning_is_the_closed_form() -> None:
    run = momentum(MomentumConfig(kappa=100, steps=10))
    assert run.best_rate == pytest.approx(9 / 11)
    assert run.gd_best_rate == pytest.approx(99 / 101)
    both = [heavy_ball_rate(run.best_lr, run.best_beta, lam) for lam in (1.0, 100.0)]
    np.testing.assert_allclose(both, run.best_rate, rtol=1e-6)
    assert math.isclose(run.best_beta, run.best_rate**2)
