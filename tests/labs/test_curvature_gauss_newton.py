"""Gauss-Newton against the Hessian, and the Hessian's spectral density by stochastic Lanczos
quadrature, against oracles the lab did not write: torch.func.hessian and jacrev (G = Jᵀ H_loss J
built whole), numpy's eigvalsh and solve, and closed forms (a linear model's G = H = XᵀX/m,
Gauss quadrature's exactness on polynomials, the Rademacher variance 2 Σ_{i≠j} Aᵢⱼ²)."""

import math
import warnings
from dataclasses import replace

import numpy as np
import pytest
import torch

from hograd_labs.curvature.compute import (
    NetworkCurvatureConfig,
    conjugate_gradient,
    ggn_product,
    hessian_free,
    hessian_product,
    lanczos,
    matrix_of,
    network_model,
    quadrature,
    spectra,
)

SMALL = NetworkCurvatureConfig(hidden=4, train_steps=100, hf_iterations=8, cg_iterations=15)


def whole_hessian(f, w):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated", DeprecationWarning)
        return torch.func.hessian(f)(w).numpy()


def test_linear_model_with_squared_loss_has_g_equal_to_h() -> None:
    gen = torch.Generator().manual_seed(3)
    x = torch.randn(30, 5, generator=gen, dtype=torch.float64)
    y = torch.randn(30, generator=gen, dtype=torch.float64)
    w = torch.randn(5, generator=gen, dtype=torch.float64)

    def model(th: torch.Tensor) -> torch.Tensor:
        return x @ th

    def loss(out: torch.Tensor) -> torch.Tensor:
        return ((out - y) ** 2).mean() / 2

    g = matrix_of(ggn_product(model, loss, w), 5)
    h = whole_hessian(lambda th: loss(model(th)), w)
    np.testing.assert_allclose(g, h, atol=1e-13)
    np.testing.assert_allclose(g, x.T.numpy() @ x.numpy() / 30, atol=1e-13)  # XᵀX/m


def test_network_g_is_jt_hloss_j_and_psd_while_h_is_not() -> None:
    model, loss, theta = network_model(SMALL.hidden, SMALL.train_steps, SMALL.seed)
    n = theta.numel()
    g = matrix_of(ggn_product(model, loss, theta), n)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated", DeprecationWarning)
        jac = torch.func.jacrev(model)(theta).reshape(-1, n).numpy()  # (400·2, n)
    out = model(theta).detach()
    h_loss = whole_hessian(loss, out).reshape(out.numel(), out.numel())
    np.testing.assert_allclose(g, jac.T @ h_loss @ jac, atol=1e-12)
    h = matrix_of(hessian_product(lambda th: loss(model(th)), theta), n)
    np.testing.assert_allclose(h, whole_hessian(lambda th: loss(model(th)), theta), atol=1e-12)
    lam_g, lam_h = np.linalg.eigvalsh(g), np.linalg.eigvalsh((h + h.T) / 2)
    assert lam_g[0] > -1e-12 * lam_g[-1]  # G: positive semi-definite
    assert lam_h[0] < -1e-4  # H: a direction of negative curvature
    assert np.abs(g - h).max() > 1e-3  # a network is not linear in θ: G is not H


def test_cg_solves_and_stops_at_negative_curvature() -> None:
    gen = torch.Generator().manual_seed(0)
    m = torch.randn(6, 6, generator=gen, dtype=torch.float64)
    a = m @ m.T + 6 * torch.eye(6, dtype=torch.float64)
    b = torch.randn(6, generator=gen, dtype=torch.float64)
    x, k, neg = conjugate_gradient(lambda v: a @ v, b, torch.zeros(6, dtype=torch.float64), 20)
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(a.numpy(), b.numpy()), atol=1e-9)
    assert not neg and k <= 6  # n steps at most in exact arithmetic
    indefinite = torch.diag(torch.tensor([1.0, -3.0], dtype=torch.float64))
    ones = torch.ones(2, dtype=torch.float64)
    x, k, neg = conjugate_gradient(lambda v: indefinite @ v, ones, torch.zeros(2).double(), 20)
    assert neg and k == 1 and x.abs().max() == 0  # pᵀAp = 1 − 3 < 0 at once: x0 returned


def test_hessian_free_on_g_never_meets_negative_curvature() -> None:
    start = network_model(SMALL.hidden, 1, SMALL.seed)
    on_g = hessian_free(*start, SMALL, "ggn")
    on_h = hessian_free(*start, SMALL, "hessian")
    assert not on_g.negative.any()  # G + λI is positive definite
    assert on_h.negative.any()  # H + 0.01 I is not, here
    for run in (on_g, on_h):
        assert (np.diff(run.losses) <= 0).all()  # only steps that lower f are taken
    assert on_g.losses[-1] < 0.5 * on_g.losses[0]


def test_lanczos_quadrature_is_exact_on_low_degree_polynomials() -> None:
    gen = torch.Generator().manual_seed(1)
    q, _ = torch.linalg.qr(torch.randn(40, 40, generator=gen, dtype=torch.float64))
    lam = torch.linspace(-1, 3, 40, dtype=torch.float64)
    a = q @ torch.diag(lam) @ q.T
    z = torch.randint(0, 2, (40,), generator=gen).double() * 2 - 1
    v = z / math.sqrt(40)
    nodes, weights = quadrature(*lanczos(lambda u: a @ u, v, 5))
    for p in range(2 * 5):  # vᵀAᵖv = Σ τₖ θₖᵖ for p up to 2·steps − 1
        exact = float(v @ torch.linalg.matrix_power(a, p) @ v)
        assert (weights * nodes**p).sum() == pytest.approx(exact, rel=1e-9, abs=1e-12)
    nodes, weights = quadrature(*lanczos(lambda u: a @ u, v, 40))
    np.testing.assert_allclose(nodes, lam.numpy(), atol=1e-10)  # all 40 steps: every eigenvalue


def test_slq_moments_and_density_against_the_exact_spectrum() -> None:
    s = spectra(SMALL)
    n = len(s.hessian)
    assert s.ggn[0] > -1e-12 * s.ggn[-1] and s.hessian[0] < 0
    # tr(H) and tr(H²): SLQ's estimate is Hutchinson's, within 4 standard errors
    assert abs(s.trace - s.trace_exact) < 4 * s.trace_sd
    assert abs(s.trace_sq - s.trace_sq_exact) < 4 * s.trace_sq_sd
    assert s.trace_exact == pytest.approx(np.trace(whole_hessian(*_f(SMALL))), rel=1e-10)
    dx = s.grid[1] - s.grid[0]
    assert s.exact_density.sum() * dx == pytest.approx(1, abs=1e-3)
    assert s.density.sum() * dx == pytest.approx(1, abs=1e-3)
    assert s.l1_error < 0.3
    # the outliers SLQ names are eigvalsh's largest eigenvalues; the bulk holds the rest
    top = s.regions.outliers
    assert len(top) >= 1
    np.testing.assert_allclose(top, s.hessian[::-1][: len(top)], rtol=1e-6)
    assert s.regions.bulk[0] <= s.hessian[0] and s.hessian[-len(top) - 1] <= s.regions.bulk[1]
    # with as many Lanczos steps as parameters, a start's nodes are H's distinct eigenvalues
    # (the softmax's shift invariance makes 0 a multiple one: Lanczos finds it once)
    full = NetworkCurvatureConfig(
        hidden=4, train_steps=100, lanczos_steps=n, starts=1, hf_iterations=1, cg_iterations=1
    )
    one = spectra(full)
    nodes = one.nodes[0][one.weights[0] > 0]
    distinct = np.unique(np.round(s.hessian, 9))
    assert len(nodes) == len(distinct) < n
    np.testing.assert_allclose(np.sort(nodes), distinct, atol=1e-9)
    # the density's error is the starts' sampling error: more starts, less of it
    few, many = (spectra(replace(SMALL, starts=k, hf_iterations=1)).l1_error for k in (2, 40))
    assert many < few


def _f(config: NetworkCurvatureConfig):
    model, loss, theta = network_model(config.hidden, config.train_steps, config.seed)
    return (lambda th: loss(model(th))), theta
