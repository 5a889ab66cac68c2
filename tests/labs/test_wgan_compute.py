"""The WGAN-GP lab's compute: the penalty's gradient against finite differences of a NumPy
re-implementation, exactly zero without create_graph, torch.func's penalty against autograd's,
training modes, the penalty's graph (cached.penalty_graph) and the budget (cached.check_config)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from hograd_core.curvature import _load_forward_ad
from hograd_core.errors import ArgumentError, BudgetError
from hograd_labs.wgan import compute
from hograd_labs.wgan.cached import check_config, penalty_graph
from hograd_labs.wgan.compute import (
    MODES,
    WganConfig,
    gradient_penalty,
    gradient_penalty_func,
    init_mlp,
    penalty_check,
    penalty_gradient,
    sample_data,
    step_costs,
)
from tests.english import raises

train_wgan = compute.run

SMALL = WganConfig(steps=12, batch=32, hidden=8, snapshots=3)


def numpy_penalty(params: list[np.ndarray], x_hat: np.ndarray, lam: float) -> float:
    """λ·mean (‖∇_x D‖ − 1)² for a tanh MLP, ∇_x D by hand (chain rule written out)."""
    acts, h = [], x_hat
    for i in range(0, len(params) - 2, 2):
        h = np.tanh(h @ params[i].T + params[i + 1])
        acts.append(h)
    delta = np.broadcast_to(params[-2], (len(x_hat), params[-2].shape[1]))  # ∂D/∂(last tanh)
    for k in range(len(acts) - 1, -1, -1):
        delta = (delta * (1 - acts[k] ** 2)) @ params[2 * k]  # through tanh, then the layer
    norms = np.sqrt((delta**2).sum(axis=1))
    return lam * float(((norms - 1) ** 2).mean())


def tiny_batch(hidden: tuple[int, ...], seed: int = 3) -> tuple:
    gen = torch.Generator().manual_seed(seed)
    critic = init_mlp([2, *hidden, 1], gen)
    real = sample_data("moons", 6, gen)
    fake = torch.randn(6, 2, generator=gen, dtype=torch.float64)
    eps = torch.rand(6, 1, generator=gen, dtype=torch.float64)
    return critic, real, fake, eps


@pytest.mark.parametrize("hidden", [(3,), (4, 3)])
def test_the_penalty_gradient_equals_central_differences(hidden: tuple[int, ...]) -> None:
    critic, real, fake, eps = tiny_batch(hidden)
    added, gp = penalty_gradient(critic, real, fake, eps, 10.0, create_graph=True)
    x_hat = (eps * real + (1 - eps) * fake).numpy()
    params = [p.detach().numpy().copy() for p in critic]
    assert numpy_penalty(params, x_hat, 10.0) == pytest.approx(gp.item(), rel=1e-12)
    step = 1e-6
    for k, p in enumerate(params):
        fd = np.zeros_like(p)
        for idx in np.ndindex(p.shape):
            up = [q.copy() for q in params]
            down = [q.copy() for q in params]
            up[k][idx] += step
            down[k][idx] -= step
            fd[idx] = (numpy_penalty(up, x_hat, 10.0) - numpy_penalty(down, x_hat, 10.0)) / (
                2 * step
            )
        np.testing.assert_allclose(added[k].numpy(), fd, rtol=1e-6, atol=1e-8)
    assert float(added[-1].abs().max()) == 0.0  # the output bias never moves ∇_x D
    assert float(added[0].abs().max()) > 0.1


@pytest.mark.parametrize("hidden", [(3,), (4, 3)])
def test_without_create_graph_the_penalty_adds_exactly_nothing(hidden: tuple[int, ...]) -> None:
    critic, real, fake, eps = tiny_batch(hidden)
    added, gp = penalty_gradient(critic, real, fake, eps, 10.0, create_graph=False)
    assert not gp.requires_grad and gp.item() > 0  # the penalty is there, as a constant
    for g in added:
        assert torch.equal(g, torch.zeros_like(g))


def test_the_page_check_shows_both_ways() -> None:
    check = penalty_check(WganConfig())
    assert check.without_graph == (0.0,) * 6
    assert all(v > 0 for v in check.with_graph[:5]) and check.with_graph[5] == 0.0
    assert check.penalty_requires_grad == (True, False) and check.penalty > 0


def test_the_silent_bug_trains_exactly_as_no_penalty() -> None:
    runs = {mode: train_wgan(WganConfig(mode=mode, steps=40)) for mode in MODES}
    bug, off, on = runs["gp_no_graph"], runs["none"], runs["gp"]
    np.testing.assert_array_equal(bug.wasserstein, off.wasserstein)
    np.testing.assert_array_equal(bug.fake, off.fake)
    np.testing.assert_array_equal(bug.critic, off.critic)
    assert bug.penalty.min() > 0 and off.penalty.max() == 0  # computed, yet no effect
    assert not np.array_equal(on.fake, off.fake)
    for run in runs.values():
        assert run.status == "ok" and run.fake.shape == (11, 400, 2)
        assert run.critic.shape == (11, 41, 41) and run.norms.shape == (11, 400)
        np.testing.assert_array_equal(run.snap_steps, np.linspace(0, 40, 11).round())


def test_the_penalty_pulls_the_gradient_norms_to_one() -> None:
    on = train_wgan(WganConfig(mode="gp"))
    off = train_wgan(WganConfig(mode="none"))
    clip = train_wgan(WganConfig(mode="clip"))
    gap = {
        name: np.median(abs(r.norms[-1] - 1))
        for name, r in (("gp", on), ("none", off), ("clip", clip))
    }
    assert gap["gp"] < 0.2 < gap["none"] and gap["clip"] > 0.9  # clipped: a nearly flat critic
    real_radius = np.linalg.norm(on.real, axis=1).mean()
    radius = [abs(np.linalg.norm(f, axis=1).mean() - real_radius) for f in on.fake]
    assert radius[-1] < 0.5 * radius[0]  # the generated points moved out to the data's circle


def test_the_critic_on_the_grid_is_the_critic() -> None:
    run = train_wgan(SMALL)
    gen = torch.Generator().manual_seed(0)
    critic = init_mlp([2, 8, 8, 1], gen)  # the first weights: snapshot 0
    x, y = np.meshgrid(run.grid, run.grid)
    points = torch.tensor(np.stack([x.ravel(), y.ravel()], 1))
    h = points
    for i in range(0, 6, 2):
        h = h @ critic[i].detach().T + critic[i + 1].detach()
        h = torch.tanh(h) if i < 4 else h
    np.testing.assert_allclose(run.critic[0], h.reshape(41, 41).numpy(), rtol=1e-12)


def test_the_graph_reaches_the_weights_only_with_create_graph() -> None:
    def reached(graph) -> set[str]:
        edges: dict[str, set[str]] = {}
        for e in graph.edges:
            if not e.saved:
                edges.setdefault(e.dst, set()).add(e.src)
        gp = next(n.name for n in graph.nodes if n.label == "GP")
        seen, stack = set(), [gp]
        while stack:
            for src in edges.get(stack.pop(), ()):
                if src not in seen:
                    seen.add(src)
                    stack.append(src)
        return {n.label for n in graph.nodes if n.kind == "leaf" and n.name in seen}

    on, off = penalty_graph(True), penalty_graph(False)
    assert reached(on) == {"W1", "b1", "W2", "x̂"}  # not b2: it does not move ∇_x D
    assert reached(off) == set() and off.per_pass[1] == 0 < on.per_pass[1]
    assert "TanhBackwardBackward0" in {n.label for n in on.nodes}
    assert on.drawable and off.drawable


def test_the_step_costs_are_measured_side_by_side() -> None:
    costs = step_costs(SMALL, rounds=3)
    assert costs.rounds == 3 and costs.gp_seconds > 0 and costs.plain_seconds > 0


@pytest.mark.parametrize(
    ("config", "error", "match"),
    [
        (WganConfig(steps=2000), BudgetError, "steps"),
        (WganConfig(steps=1000), BudgetError, "work units"),
        (WganConfig(batch=4096), BudgetError, "batch"),
        (WganConfig(hidden=1), ArgumentError, "hidden"),
        (WganConfig(lam=-1.0), ArgumentError, "lambda"),
        (WganConfig(lam=float("nan")), ArgumentError, "lambda"),
        (WganConfig(n_critic=50), BudgetError, "n_critic"),
        (WganConfig(dataset="spiral"), ArgumentError, "spiral"),
        (WganConfig(mode="adam"), ArgumentError, "gp_no_graph"),
    ],
)
def test_refusals_come_before_any_work(config: WganConfig, error: type, match: str) -> None:
    with raises(error, match=match):
        check_config(config)


def test_a_run_that_meets_a_nan_stops_there(monkeypatch: pytest.MonkeyPatch) -> None:
    """Within the allowed ranges the tanh networks stay finite, so a NaN is injected into the
    data from the 8th critic batch on (in generator step 1): the run must stop there."""
    calls = []

    def poisoned(name, n, gen, dtype=torch.float64):
        calls.append(n)
        x = sample_data(name, n, gen, dtype)
        return x * float("nan") if len(calls) > 8 else x  # 1: shown; 2-6: step 0; 7-11: step 1

    monkeypatch.setattr(compute, "sample_data", poisoned)
    run = train_wgan(WganConfig(steps=20, n_critic=5, snapshots=5))
    assert run.status == "diverged"
    assert len(run.wasserstein) == 2 and np.isnan(run.wasserstein[-1])  # step 2 met the NaN
    assert np.isfinite(run.wasserstein[0]) and run.snap_steps.tolist() == [0]


@pytest.mark.parametrize("create_graph", [True, False])
def test_torch_func_penalty_equals_autograds(create_graph: bool) -> None:
    """gradient_penalty_func (vmap of grad(D) at one point) against gradient_penalty (one
    torch.autograd.grad of the summed critic): the same penalty and norms, the same gradient
    of the penalty w.r.t. the weights, and without the flag the same exact zeros."""
    _load_forward_ad()
    critic, real, fake, eps = tiny_batch((4, 3))
    auto = penalty_gradient(critic, real, fake, eps, 10.0, create_graph)
    func = penalty_gradient(critic, real, fake, eps, 10.0, create_graph, gradient_penalty_func)
    assert func[1].item() == pytest.approx(auto[1].item(), rel=1e-13)
    assert func[1].requires_grad == auto[1].requires_grad == create_graph
    for a, b in zip(auto[0], func[0], strict=True):
        torch.testing.assert_close(b, a, rtol=1e-12, atol=1e-14)
        assert create_graph or torch.equal(b, torch.zeros_like(b))
    d = lambda x: compute.mlp(critic, x)
    _, n1 = gradient_penalty(d, real, fake, eps, 1.0, create_graph)
    _, n2 = gradient_penalty_func(d, real, fake, eps, 1.0, create_graph)
    torch.testing.assert_close(n2, n1, rtol=1e-13, atol=0)


def test_a_run_by_torch_func_trains_like_the_autograd_run() -> None:
    _load_forward_ad()
    config = WganConfig(steps=15, batch=32, hidden=16, dataset="ring")
    plain, func = train_wgan(config), train_wgan(config, penalty=gradient_penalty_func)
    np.testing.assert_allclose(func.wasserstein, plain.wasserstein, rtol=1e-12)
    np.testing.assert_allclose(func.penalty, plain.penalty, rtol=1e-12)
    np.testing.assert_allclose(func.fake, plain.fake, rtol=1e-12, atol=1e-13)
