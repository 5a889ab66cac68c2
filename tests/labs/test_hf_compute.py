"""The Hessian-free lab's compute: conjugate gradient against closed-form linear algebra, every
CG direction of a real run against the same CG written in NumPy on the explicit Hessian
(torch.autograd.functional.hessian, row by row, not HVPs), and the standalone file's data,
network and optimisers against the network page's and torch.optim's."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from hograd_core import ArgumentError, BudgetError
from hograd_core.graphs import saved_slots
from hograd_core.network import NetConfig, layer_sizes, load_data, mlp_loss
from hograd_labs.hf import compute as hf_module
from hograd_labs.hf.cached import check_config
from hograd_labs.hf.compute import (
    HFConfig,
    conjugate_gradient,
    func_form_gaps,
    hf_step_func,
    initial_parameters,
    saved_bytes,
)
from hograd_labs.hf.compute import run as hessian_free
from tests.english import raises


def spd(n: int, kappa: float, seed: int) -> np.ndarray:
    """A random symmetric positive definite matrix with condition number kappa."""
    rng = np.random.default_rng(seed)
    q, _ = np.linalg.qr(rng.normal(size=(n, n)))
    return q @ np.diag(np.geomspace(1, kappa, n)) @ q.T


#: (n, κ) where float64 CG keeps the exact-arithmetic promise of at most n products. With
#: κ = 100 and n = 20 or 50 rounding spoils the orthogonality of CG's directions and it needs
#: more (24 and 65 here): see test_cg_in_floating_point_can_need_more_than_n.
WITHIN_N = [(n, k) for n in (2, 5, 20, 50) for k in (1.0, 10.0)] + [(2, 100.0), (5, 100.0)]


@pytest.mark.parametrize(("n", "kappa"), WITHIN_N)
def test_cg_reaches_1e10_in_at_most_n_products(n: int, kappa: float) -> None:
    a = spd(n, kappa, seed=n)
    g = torch.tensor(np.random.default_rng(1).normal(size=n))
    calls = []

    def hvp(v: torch.Tensor) -> torch.Tensor:
        calls.append(1)
        return torch.tensor(a) @ v

    d, used, residual, model = conjugate_gradient(hvp, g, 0.0, max_iters=n, tol=1e-10)
    true_residual = np.linalg.norm(a @ d.numpy() + g.numpy()) / np.linalg.norm(g.numpy())
    assert used == len(calls) <= n
    assert true_residual <= 1e-10
    np.testing.assert_allclose(d.numpy(), np.linalg.solve(a, -g.numpy()), rtol=1e-8)
    exact_model = g.numpy() @ d.numpy() + 0.5 * d.numpy() @ a @ d.numpy()
    assert model == pytest.approx(exact_model, rel=1e-9)


def test_cg_needs_one_product_per_distinct_eigenvalue() -> None:
    rng = np.random.default_rng(0)
    q, _ = np.linalg.qr(rng.normal(size=(50, 50)))
    a = torch.tensor(q @ np.diag(np.repeat([1.0, 7.0, 30.0], [20, 20, 10])) @ q.T)
    d, used, residual, _ = conjugate_gradient(
        lambda v: a @ v, torch.tensor(rng.normal(size=50)), 0.0, 50, 1e-10
    )
    assert used == 3 and residual <= 1e-10


def test_cg_in_floating_point_can_need_more_than_n() -> None:
    a = torch.tensor(spd(50, 100.0, seed=50))
    g = torch.tensor(np.random.default_rng(1).normal(size=50))
    _, used, residual, _ = conjugate_gradient(lambda v: a @ v, g, 0.0, 50, 1e-10)
    assert used == 50 and residual > 1e-10  # not yet, after n products
    _, used, residual, _ = conjugate_gradient(lambda v: a @ v, g, 0.0, 100, 1e-10)
    assert 50 < used <= 100 and residual <= 1e-10


def test_cg_stops_on_negative_curvature_without_a_step() -> None:
    a = torch.tensor([[-1.0, 0.0], [0.0, 2.0]], dtype=torch.float64)
    d, used, _, model = conjugate_gradient(
        lambda v: a @ v, torch.tensor([1.0, 0.0], dtype=torch.float64), 0.5, 10
    )
    assert used == 1 and torch.equal(d, torch.zeros(2)) and model == 0.0


def numpy_cg(h: np.ndarray, g: np.ndarray, lam: float, iters: int, tol: float = 1e-8):
    """Textbook CG (Nocedal and Wright, Algorithm 5.2) on the explicit matrix H + λI."""
    a = h + lam * np.eye(len(g))
    d, r = np.zeros_like(g), -g.copy()
    p = r.copy()
    for _ in range(iters):
        if np.linalg.norm(r) <= tol * np.linalg.norm(g) or p @ a @ p <= 0:
            break
        alpha = (r @ r) / (p @ a @ p)
        d, r_new = d + alpha * p, r - alpha * (a @ p)
        p = r_new + (r_new @ r_new) / (r @ r) * p
        r = r_new
    return d


@pytest.mark.parametrize(
    ("dataset", "hidden", "steps"), [("moons", (16,), 12), ("digits", (8,), 3)]
)
def test_every_cg_direction_equals_the_explicit_hessians(dataset, hidden, steps) -> None:
    config = HFConfig(dataset=dataset, hidden=hidden, steps=steps, cg_iters=25)
    run = hessian_free(config, keep=True)
    assert run.parameters <= 2_000
    x, y, _, _ = load_data(dataset)
    loss = mlp_loss(layer_sizes(NetConfig(dataset, hidden)), x, y)
    v = torch.tensor(np.random.default_rng(0).normal(size=run.parameters))
    for theta, d, lam in zip(run.thetas, run.directions, run.damping, strict=True):
        t = torch.tensor(theta, requires_grad=True)
        h = torch.autograd.functional.hessian(loss, t).numpy()  # n backward passes, row by row
        (g,) = torch.autograd.grad(loss(t), t, create_graph=True)
        (hv,) = torch.autograd.grad(g @ v, t)  # the HVP that CG calls
        np.testing.assert_allclose(hv.numpy(), h @ v.numpy(), rtol=1e-10, atol=1e-13)
        expected = numpy_cg(h, g.detach().numpy(), lam, config.cg_iters)
        # CG amplifies the rounding in which H v and h @ v differ (1e-16) by up to its
        # condition number per step: up to 1e-7 on these steps when 25 products leave CG
        # unconverged at κ(H + λI) ≈ 130
        np.testing.assert_allclose(d, expected, rtol=0, atol=1e-6 * np.abs(expected).max())


def test_accepted_steps_lower_the_loss_and_damping_follows_rho() -> None:
    run = hessian_free(HFConfig(steps=10))
    assert np.all(np.diff(run.hf_losses) <= 0)
    for k in range(len(run.rho) - 1):
        ratio = run.damping[k + 1] / run.damping[k]
        expected = 1.5 if run.rho[k] < 0.25 else 2 / 3 if run.rho[k] > 0.75 else 1.0
        assert ratio == pytest.approx(expected)
    assert run.hf_passes[-1] == 10 + run.hvps.sum()


@pytest.mark.parametrize("clock", ["fast", "slow"])
def test_first_order_runs_get_a_counted_budget_whatever_the_clock(
    clock: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each first-order run takes Hessian-free's gradients plus two per HVP, a count: on a
    clock where every reading is 1 ms later (a fast server) or 10 s later (a loaded one) the
    runs are the same, pass for pass (a run that stopped at Hessian-free's wall time was not)."""
    reference = hessian_free(HFConfig(steps=6))
    ticks = iter(range(10**9))
    step = 1e-3 if clock == "fast" else 10.0
    monkeypatch.setattr(hf_module.time, "perf_counter", lambda: next(ticks) * step)
    run = hessian_free(HFConfig(steps=6))
    np.testing.assert_array_equal(run.hf_losses, reference.hf_losses)
    budget = len(run.hvps) + 2 * int(run.hvps.sum())
    assert budget > run.hf_passes[-1]
    for losses, seconds, same in (
        (run.sgd_losses, run.sgd_seconds, reference.sgd_losses),
        (run.adam_losses, run.adam_seconds, reference.adam_losses),
    ):
        assert len(losses) == len(seconds) == budget + 1  # the loss before each pass, and after
        np.testing.assert_array_equal(losses, same)
        assert np.all(np.diff(seconds) >= 0)


def test_adam_and_sgd_match_torch_optim() -> None:
    run = hessian_free(HFConfig(steps=1, cg_iters=4, sgd_lr=0.3, adam_lr=0.02))
    x, y, _, _ = load_data("moons")
    loss = mlp_loss(layer_sizes(NetConfig("moons", (16,))), x, y)
    for name, make, expected in (
        ("sgd", lambda p: torch.optim.SGD([p], lr=0.3), run.sgd_losses),
        ("adam", lambda p: torch.optim.Adam([p], lr=0.02), run.adam_losses),
    ):
        theta = initial_parameters((2, 16, 2), 0).requires_grad_(True)
        opt, losses = make(theta), []
        for _ in range(len(expected) - 1):
            opt.zero_grad()
            value = loss(theta)
            losses.append(value.item())
            value.backward()
            opt.step()
        losses.append(loss(theta).item())
        np.testing.assert_allclose(losses, expected, rtol=1e-10, err_msg=name)


def _walked_bytes(*outputs: torch.Tensor) -> int:
    """Distinct saved storages found by walking the graphs' ``_saved_*`` attributes."""
    storages, seen, stack = {}, set(), [o.grad_fn for o in outputs]
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        for _, tensor in saved_slots(fn):
            storage = tensor.untyped_storage()
            storages[storage.data_ptr()] = storage.nbytes()
        stack.extend(nxt for nxt, _ in fn.next_functions)
    return sum(storages.values())


def test_saved_bytes_equal_a_walk_of_the_real_graphs() -> None:
    """The pack-hook count of compute.saved_bytes against an independent walk of the graphs."""
    loss = mlp_loss(layer_sizes(NetConfig("moons", (16,))), *load_data("moons")[:2])
    t = initial_parameters((2, 16, 2), 0).requires_grad_(True)
    v = torch.ones_like(t)
    kept = {}

    def gradient() -> None:
        kept["loss"] = loss(t)

    def hvp() -> None:
        kept["loss"] = loss(t)
        (kept["g"],) = torch.autograd.grad(kept["loss"], t, create_graph=True)
        kept["gv"] = kept["g"] @ v  # what the last backward pass of an HVP starts from

    assert saved_bytes(gradient) == _walked_bytes(kept["loss"]) > 0
    assert saved_bytes(hvp) == _walked_bytes(kept["loss"], kept["gv"])
    assert saved_bytes(hvp) > saved_bytes(gradient)
    run = hessian_free(HFConfig(steps=1, cg_iters=2))
    assert run.grad_saved_bytes == saved_bytes(gradient)  # the backward pass saves nothing more
    assert run.hvp_saved_bytes == saved_bytes(hvp)


def test_initial_parameters_are_the_network_pages() -> None:
    from hograd_core.network import train

    net = train(NetConfig("moons", (16,), steps=1, learning_rate=1e-5))
    start = initial_parameters((2, 16, 2), 0).numpy()
    assert np.max(np.abs(net.parameters - start)) < 1e-4  # one Adam step of 1e-5 apart


@pytest.mark.parametrize(
    ("config", "error", "match"),
    [
        (HFConfig(dataset="mnist"), ArgumentError, "mnist"),
        (HFConfig(dataset="digits", hidden=(64, 64)), BudgetError, "width|parameters"),
        (HFConfig(dataset="digits", hidden=(50, 50)), BudgetError, "parameters"),
        (HFConfig(dataset="digits", hidden=(32,), steps=50, cg_iters=60), BudgetError, "passes"),
        (HFConfig(steps=0), ArgumentError, "steps"),
        (HFConfig(damping=math.nan), ArgumentError, "damping"),
    ],
)
def test_refusals_come_before_any_work(config, error, match) -> None:
    with raises(error, match=match):
        check_config(config)


@pytest.mark.parametrize("dataset", ["moons", "digits"])
def test_the_files_data_and_loss_are_the_network_pages(dataset: str) -> None:
    """The standalone file loads the data and builds the loss itself (it may not import
    hograd): the same tensors and the same loss, bit for bit, as the network page's."""
    x, y = hf_module.training_data(dataset)
    kx, ky, _, _ = load_data(dataset)
    assert torch.equal(x, kx) and torch.equal(y, ky)
    config = HFConfig(dataset=dataset, hidden=(8, 4))
    sizes = hf_module.network_sizes(config)
    assert sizes == layer_sizes(NetConfig(dataset, (8, 4)))
    theta = initial_parameters(sizes, 3)
    assert torch.equal(hf_module.mlp_loss(sizes, x, y)(theta), mlp_loss(sizes, kx, ky)(theta))


def test_the_torch_func_step_takes_the_same_steps_and_its_gap_is_measured() -> None:
    """The page's claim about the torch.func form: the run's ``func_losses`` are the losses of
    a whole run by hf_step_func (H v = jvp(grad(loss))); how far they are from the plain run's
    is measured (relative 1e-5 at the defaults, not 1e-16: CG amplifies the HVP's rounding)."""
    config = HFConfig()
    run = hessian_free(config)
    by_func = hessian_free(config, step=hf_step_func)
    np.testing.assert_array_equal(run.func_losses, by_func.hf_losses)
    np.testing.assert_array_equal(by_func.func_losses, by_func.hf_losses)
    last, most = func_form_gaps(run)
    gaps = np.abs(by_func.hf_losses - run.hf_losses) / np.abs(run.hf_losses)
    assert last == pytest.approx(gaps[-1], rel=1e-12, abs=1e-15) and most == gaps.max()
    assert most > 1e-9  # far beyond one rounding (1e-16): amplified by CG


def test_the_hessian_cg_runs_on_is_indefinite_unlike_gauss_newton() -> None:
    """The intro's claim: CG runs on H, which here has negative eigenvalues (Martens' G would
    be positive semi-definite): at the default start λ_min(H) < 0."""
    config = HFConfig()
    sizes = hf_module.network_sizes(config)
    x, y, _, _ = load_data(config.dataset)
    h = torch.autograd.functional.hessian(
        mlp_loss(sizes, x, y), initial_parameters(sizes, config.seed)
    )
    assert np.linalg.eigvalsh(h.numpy())[0] < -0.1
