"""The curvature lab's compute against independent oracles: sympy's Hessian for the typed
diagonal, torch.autograd.functional.hessian for the network's, numpy's eigenvalues of the 2x2
heavy-ball matrix for the closed-form rates, and that matrix's powers for the run. The lab's
own copies of kernel pieces (the diagonal, the moons network) against the kernel's."""

import math

import numpy as np
import pytest
import sympy as sp
import torch

from hograd_core import diagonal as kernel
from hograd_core import network
from hograd_core.language import parse
from hograd_labs.curvature import compute
from hograd_labs.curvature.compute import (
    NAMES,
    DiagonalConfig,
    MomentumConfig,
    exact_diagonal,
    f,
    heavy_ball_matrix,
    heavy_ball_rate,
    hutchinson_diagonal,
    hutchinson_variance,
    momentum,
    network_function,
    study,
)

SMALL = DiagonalConfig(probes=64, repeats=200, hidden=4, train_steps=20)
K = [15, 63]  # after 16 and 64 probes


def test_typed_study_against_sympy() -> None:
    """The file's own f (the default function, written in PyTorch) and its study."""
    c = SMALL
    s = study(f, torch.tensor(c.point, dtype=torch.float64), NAMES, c)
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


def test_the_files_f_is_the_default_typed_function() -> None:
    fn = parse(DiagonalConfig().function)
    assert fn.variables == NAMES
    gen = torch.Generator().manual_seed(0)
    for w in torch.randn(20, len(NAMES), generator=gen, dtype=torch.float64):
        got, want = f(w), fn.torch(dict(zip(NAMES, w.unbind(), strict=True)))
        torch.testing.assert_close(got, want, rtol=1e-15, atol=0)


def test_the_moons_network_is_the_kernels() -> None:
    """The lab trains the network the kernel trains (hograd_core.network, used by the network
    page): the same data, draws and Adam steps, so the same θ and the same loss."""
    loss, theta = network_function(8, 30, 3)
    net = network.train(network.NetConfig("moons", (8,), steps=30, seed=3))
    np.testing.assert_array_equal(theta.numpy(), net.parameters)
    kernel_loss = network.loss_function(net)
    assert float(loss(theta)) == float(kernel_loss(torch.tensor(net.parameters)))


@pytest.mark.parametrize("which", ["typed", "network"])
def test_the_diagonal_is_the_kernels(which: str) -> None:
    """The lab's exact diagonal, Hutchinson samples and variance are hograd_core.diagonal's
    (the CLI's ``hvp --diagonal`` and the benchmarks use those)."""
    if which == "typed":
        fn, w = f, torch.tensor((0.3, -1.2, 2.0), dtype=torch.float64)
    else:
        fn, w = network_function(4, 20, 1)
    np.testing.assert_allclose(exact_diagonal(fn, w), kernel.exact_diagonal(fn, w), rtol=1e-13)
    np.testing.assert_allclose(
        hutchinson_diagonal(fn, w, 40, 9),
        kernel.hutchinson_diagonal(fn, w, 40, 9),
        rtol=1e-13,
        atol=1e-15,
    )
    h = compute.full_hessian(fn, w).numpy()
    np.testing.assert_allclose(hutchinson_variance(h), kernel.hutchinson_variance(h), rtol=1e-14)
    assert kernel.DIAGONAL_BUDGET.chunk == compute.CHUNK


def test_the_autograd_form_gives_torch_funcs_products() -> None:
    """H v by double backward on a recorded gradient equals the torch.func form and the
    explicit Hessian (torch.func.hessian) times v, on the file's own f and on a quadratic."""
    w = torch.tensor((1.0, 2.0, 0.5), dtype=torch.float64)
    hessian = compute.full_hessian(compute.f, w)
    gen = torch.Generator().manual_seed(3)
    for v in torch.randn(4, 3, generator=gen, dtype=torch.float64):
        by_autograd = compute.hessian_product_autograd(compute.f, w)(v)
        torch.testing.assert_close(by_autograd, compute.hessian_product(compute.f, w)(v))
        torch.testing.assert_close(by_autograd, hessian @ v)


def test_run_is_the_parts_in_order() -> None:
    """run() calls the parts the page calls one by one, and reports progress after each."""
    small = compute.CurvatureConfig(
        compute.DiagonalConfig(probes=4, repeats=2, train_steps=5),
        compute.MomentumConfig(steps=5),
        compute.NetworkCurvatureConfig(
            train_steps=5, hf_iterations=2, cg_iterations=3, lanczos_steps=4, starts=2
        ),
    )
    seen = []
    typed, net, mom, spec = compute.run(small, lambda done, total: seen.append((done, total)))
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]
    d = small.diagonal
    alone = compute.study(compute.f, torch.tensor(d.point, dtype=torch.float64), compute.NAMES, d)
    np.testing.assert_array_equal(typed.exact, alone.exact)
    np.testing.assert_array_equal(typed.estimate, alone.estimate)
    assert net.exact.size == compute.network_function(d.hidden, 5, d.seed)[1].numel()
    assert mom.losses["gd"].size == compute.momentum(small.momentum).losses["gd"].size
    np.testing.assert_array_equal(spec.hessian, compute.spectra(small.network).hessian)
