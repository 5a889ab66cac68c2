"""The stability limit: Lanczos against numpy's eigvalsh, gradient descent on the quadratic
against its closed form θ_k = Q diag((1 − lr·λ)^k) Qᵀ θ_0 on both sides of lr = 2/λ_max, and the
network's sharpness against the explicit Hessian along a replayed run (written again on the
network page's own loss, hograd_core.network), and the torch.func form against autograd."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from hograd_core import ArgumentError, BudgetError
from hograd_core.curvature import _load_forward_ad
from hograd_core.network import load_data, mlp_loss
from hograd_labs.stability.cached import check_network, check_quadratic
from hograd_labs.stability.compute import (
    StabilityConfig,
    grad_and_hvp_func,
    initial_parameters,
    lanczos,
    run,
    run_quadratic,
)
from tests.english import raises


def quadratic_gd(kappa: float, lr: float, steps: int, derivatives=None):
    config = StabilityConfig(kappa=kappa, quadratic_lr=lr, quadratic_steps=steps)
    return run_quadratic(config) if derivatives is None else run_quadratic(config, derivatives)


net_stability = run


@pytest.mark.parametrize("seed", range(4))
def test_lanczos_finds_the_top_eigenvalue(seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(30, 30))
    a = torch.tensor((a + a.T) / 2)
    tops, vec = lanczos(lambda v: a @ v, torch.tensor(rng.normal(size=30)), 30)
    top = np.linalg.eigvalsh(a.numpy())[-1]
    assert tops[-1] == pytest.approx(top, rel=1e-10)
    assert np.all(np.diff(tops) >= -1e-12) and np.all(np.array(tops) <= top + 1e-10)
    assert float(torch.linalg.norm(a @ vec - tops[-1] * vec)) < 1e-8  # an eigenvector


Q = np.array([[1.0, 1.0], [-1.0, 1.0]]) / math.sqrt(2)  # eigenvectors κ: (1, −1), 1: (1, 1)


@pytest.mark.parametrize("kappa", [1.0, 10.0, 100.0])
@pytest.mark.parametrize("side", [-1, 1])
def test_gd_on_the_quadratic_diverges_exactly_above_two_over_lambda(kappa, side) -> None:
    lr = 2 / kappa * (1 + side * 1e-3)
    run = quadratic_gd(kappa, lr, 1000)
    assert run.lambda_max == pytest.approx(kappa, rel=1e-12) and run.lanczos_hvps <= 2
    assert run.status == ("grows" if side > 0 else "shrinks")
    assert run.regime == ("unstable" if side > 0 else "stable")
    lam = np.array([kappa, 1.0])
    k = np.arange(len(run.points))[:, None]
    closed = (Q.T @ np.array([2.0, 1.0]))[None, :] * (1 - lr * lam)[None, :] ** k
    np.testing.assert_allclose(run.points, closed @ Q.T, rtol=1e-9, atol=1e-12)
    assert run.factors == pytest.approx((abs(1 - lr), abs(1 - lr * kappa)))


def test_exactly_at_two_over_lambda_the_steep_part_keeps_its_size() -> None:
    run = quadratic_gd(4.0, 0.5, 100)  # 1 − 0.5·4 = −1
    assert run.regime == "edge" and run.factors[1] == 1.0
    steep = run.points @ Q[:, 0]  # the component along (1, −1)/√2
    np.testing.assert_allclose(np.abs(steep), abs(steep[0]), rtol=1e-12)
    assert np.all(np.sign(steep[1:]) == -np.sign(steep[:-1]))


def test_a_huge_learning_rate_stops_cleanly_at_overflow() -> None:
    run = quadratic_gd(1000.0, 10.0, 1000)  # the top component x 9,999 per step
    assert run.status == "diverged"
    assert np.all(np.isfinite(run.losses)) and 10 < len(run.losses) < 200


def replay(config: StabilityConfig) -> tuple[list[float], list[torch.Tensor]]:
    """The same full-batch gradient descent, written again: losses and θ at each step."""
    x, y, _, _ = load_data(config.dataset)
    sizes = (2, *config.hidden, 2)
    loss = mlp_loss(sizes, x, y)
    theta, losses, thetas = initial_parameters(sizes, config.seed), [], []
    for _ in range(config.steps + 1):
        thetas.append(theta)
        losses.append(loss(theta).item())
        theta = theta - config.lr * torch.func.grad(loss)(theta)
    return losses, thetas, loss


def test_the_networks_losses_and_sharpness_against_the_explicit_hessian() -> None:
    config = StabilityConfig(lr=0.5, steps=200, every=50)
    run = net_stability(config)
    losses, thetas, loss = replay(config)
    np.testing.assert_allclose(run.losses, losses, rtol=1e-10)
    assert list(run.sharpness_steps) == [0, 50, 100, 150]
    for step, sharp in zip(run.sharpness_steps, run.sharpness, strict=True):
        top = np.linalg.eigvalsh(torch.autograd.functional.hessian(loss, thetas[step]).numpy())[-1]
        assert sharp == pytest.approx(top, rel=1e-4)
        if step == 0:
            assert run.lambda0 == pytest.approx(top, rel=1e-10)


def test_sharpness_rises_to_about_two_over_lr_on_the_default_settings() -> None:
    run = net_stability(StabilityConfig())  # moons, 16-16, lr 0.5, 500 steps
    limit = 2 / run.config.lr
    assert run.lambda0 < 0.8 * limit  # stable at the start ...
    assert run.sharpness.max() > limit  # ... sharpens past 2/lr ...
    assert abs(run.sharpness[-1] - limit) < 0.15 * limit  # ... and hovers about it
    assert run.status == "ok" and run.losses[-1] < 0.2 * run.losses[0]


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: check_quadratic(StabilityConfig(kappa=0.5)), ArgumentError, "kappa"),
        (lambda: check_quadratic(StabilityConfig(quadratic_steps=5000)), BudgetError, "steps"),
        (lambda: check_quadratic(StabilityConfig(quadratic_lr=math.inf)), ArgumentError, "lr"),
        (lambda: check_network(StabilityConfig(steps=2000)), BudgetError, "steps"),
        (
            lambda: check_network(StabilityConfig(dataset="digits", hidden=(64, 64, 64))),
            BudgetError,
            "parameters",
        ),
        (
            lambda: check_network(
                StabilityConfig(
                    dataset="digits", hidden=(32,), steps=1000, every=1, lanczos_iters=40
                )
            ),
            BudgetError,
            "passes",
        ),
        (lambda: check_network(StabilityConfig(dataset="iris")), ArgumentError, "iris"),
    ],
)
def test_refusals_come_before_any_work(call, error, match) -> None:
    with raises(error, match=match):
        call()


def closed_form_f(kappa: float, lr: float, k: int) -> float:
    """f after k steps from (2, 1): ½Σ λ·c²·|1 − lr·λ|^(2k), c the start's part along each
    eigenvector (λ = 1 along (1, 1)/√2, λ = κ along (−1, 1)/√2)."""
    parts = ((1.0, 3 / math.sqrt(2)), (kappa, -1 / math.sqrt(2)))
    return sum(0.5 * lam * c * c * abs(1 - lr * lam) ** (2 * k) for lam, c in parts)


@pytest.mark.parametrize("kappa", [1.0, 2.0, 4.0, 10.0, 100.0])
@pytest.mark.parametrize("m", [0.5, 0.99, 1.0, 1.001, 1.002, 1.01, 1.1, 1.5])
@pytest.mark.parametrize("steps", [10, 200])
def test_the_verdict_follows_lr_against_two_over_lambda_not_the_run(kappa, m, steps) -> None:
    """Stable exactly when every |1 − lr·λ| < 1 (closed form), whatever f did in the run; an
    unstable run whose f fell says so, and f does pass its start at the step it names."""
    lr = 2 / kappa * m
    run = quadratic_gd(kappa, lr, steps)
    top = max(abs(1 - lr), abs(1 - lr * kappa))
    if abs(top - 1) <= 1e-12:
        assert run.verdict == ("edge_even" if kappa == 1 else "edge")
    elif top < 1:
        assert run.verdict == "stable"
    else:
        fell = closed_form_f(kappa, lr, steps) < closed_form_f(kappa, lr, 0)
        assert run.verdict in (("fell_for_now",) if fell else ("grows", "diverged"))
    if run.verdict != "fell_for_now":
        assert run.regrows_at is None
        return
    k = run.regrows_at
    f0 = closed_form_f(kappa, lr, 0)
    assert k > steps and closed_form_f(kappa, lr, k) > f0 >= closed_form_f(kappa, lr, k - 1)
    if k + 20 <= 1000:  # the claim, run: more steps make f grow, past its start from step k on
        longer = quadratic_gd(kappa, lr, k + 20)
        assert longer.losses[k - 1] <= longer.losses[0] < longer.losses[k]
        assert np.all(np.diff(longer.losses[k:]) > 0)


def test_an_unstable_rate_whose_f_fell_is_not_called_stable() -> None:
    """κ = 2, lr = 1.002: f falls 2.75 → 2.469 in 200 steps (the flat part dies at once), yet
    the steep part grows by 1.004 per step and f passes 2.75 again at step 214."""
    run = quadratic_gd(2.0, 1.002, 200)
    assert run.losses[-1] < run.losses[0] and run.regime == "unstable"
    assert (run.verdict, run.regrows_at) == ("fell_for_now", 214)
    assert quadratic_gd(10.0, 0.201, 10).verdict == "fell_for_now"
    even = quadratic_gd(1.0, 2.0, 50)  # no flat part: f stays at its start
    assert even.verdict == "edge_even" and np.all(even.losses == even.losses[0])


@pytest.mark.parametrize(("kappa", "lr"), [(10.0, 0.19), (10.0, 0.21), (2.0, 1.002)])
def test_the_torch_func_form_runs_the_same_quadratic(kappa: float, lr: float) -> None:
    """jvp(grad(f)) for H v and grad(f) for the steps: the same numbers as autograd's."""
    _load_forward_ad()  # torch's own first-use DeprecationWarning, silenced as the app does
    plain, func = quadratic_gd(kappa, lr, 200), quadratic_gd(kappa, lr, 200, grad_and_hvp_func)
    assert func.lambda_max == pytest.approx(plain.lambda_max, rel=1e-13)
    np.testing.assert_allclose(func.losses, plain.losses, rtol=1e-12)
    assert (func.verdict, func.regrows_at) == (plain.verdict, plain.regrows_at)


def test_the_torch_func_form_measures_the_same_sharpness() -> None:
    _load_forward_ad()
    config = StabilityConfig(lr=1.0, steps=60, every=20, lanczos_iters=8)
    plain, func = run(config), run(config, derivatives=grad_and_hvp_func)
    np.testing.assert_allclose(func.losses, plain.losses, rtol=1e-10)
    np.testing.assert_allclose(func.sharpness, plain.sharpness, rtol=1e-9)
    assert func.lambda0 == pytest.approx(plain.lambda0, rel=1e-9)
    assert func.hvps == plain.hvps
