"""The MAML lab's compute module: the second-order meta-gradient against central finite
differences of the post-adaptation loss (written again with torch.func, task by task), the
first-order one against it minus the Hessian term (Hessian-vector products by forward-over-reverse
``torch.func.jvp(torch.func.grad(...))``, not the module's double backward), its torch.func form
against both, the walked graph against a plain count and the kernel's tracer, adaptation against
hand-written gradient steps, and the budgets checked before any work."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from hograd_core import ArgumentError, BudgetError
from hograd_core.curvature import _load_forward_ad
from hograd_core.graphs import trace_tensors
from hograd_labs.maml import cached, compute
from hograd_labs.maml.cached import check_config, check_sine
from hograd_labs.maml.compute import (
    METHODS,
    MamlConfig,
    NewSine,
    adapt,
    forward,
    graph_size,
    initial_theta,
    meta_gradient,
    meta_gradient_func,
    query_loss,
    sine_tasks,
)
from hograd_labs.maml.compute import run as meta_train
from tests.english import raises

TINY = MamlConfig(hidden=3, activation="tanh", tasks=3, k_shot=4, inner_lr=0.3)


def batch_for(config: MamlConfig, seed: int = 5) -> tuple:
    return sine_tasks(torch.Generator().manual_seed(seed), config.tasks, 2 * config.k_shot)


def start(config: MamlConfig, seed: int = 1) -> torch.Tensor:
    """A θ away from the initial one (so that no layer is symmetric)."""
    theta = initial_theta(config.hidden, 0)
    gen = torch.Generator().manual_seed(seed)
    return theta + 0.3 * torch.randn(theta.shape, generator=gen, dtype=torch.float64)


def task_loss(config: MamlConfig, x: torch.Tensor, y: torch.Tensor):
    """One task's loss as a function of a flat θ (n,), for torch.func."""
    return lambda theta: (
        (forward(theta[None], x[None], config.hidden, config.activation) - y[None]) ** 2
    ).mean()


def post_adaptation(config: MamlConfig, batch: tuple, theta: torch.Tensor) -> float:
    """The meta-loss written again: task by task, the inner gradient by torch.func.grad."""
    _, _, x, y = batch
    k, total = config.k_shot, 0.0
    for i in range(config.tasks):
        fast = theta
        for _ in range(config.inner_steps):
            step = torch.func.grad(task_loss(config, x[i, :k], y[i, :k]))(fast)
            fast = fast - config.inner_lr * step
        total += float(task_loss(config, x[i, k:], y[i, k:])(fast))
    return total / config.tasks


@pytest.mark.parametrize("inner_steps", [1, 2])
def test_second_order_meta_gradient_is_the_derivative_of_the_post_adaptation_loss(
    inner_steps: int,
) -> None:
    config = MamlConfig(**{**TINY.__dict__, "inner_steps": inner_steps})
    batch, theta = batch_for(config), start(config)
    value, g = meta_gradient(theta, batch, config, "second")
    assert value == pytest.approx(post_adaptation(config, batch, theta), rel=1e-12)
    h = 1e-5
    fd = np.array(
        [
            (
                post_adaptation(config, batch, theta + h * e)
                - post_adaptation(config, batch, theta - h * e)
            )
            / (2 * h)
            for e in torch.eye(theta.numel(), dtype=torch.float64)
        ]
    )
    assert theta.numel() == 22  # 1-3-3-1: (3 + 3) + (9 + 3) + (3 + 1)
    np.testing.assert_allclose(g.numpy(), fd, rtol=1e-6, atol=1e-8)
    _, g1 = meta_gradient(theta, batch, config, "first")
    assert np.abs(g1.numpy() - fd).max() > 1e3 * np.abs(g.numpy() - fd).max()  # not close


def hvp(f, theta: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """H v by forward-over-reverse: the directional derivative of ∇f along v."""
    _load_forward_ad()  # torch's own first-use DeprecationWarning, silenced as the app does
    return torch.func.jvp(torch.func.grad(f), (theta,), (v,))[1]


@pytest.mark.parametrize("activation", ["tanh", "relu"])
@pytest.mark.parametrize("inner_steps", [1, 2, 3])
def test_first_order_drops_exactly_the_hessian_term(activation: str, inner_steps: int) -> None:
    """∇ meta-loss = mean_i (I − αH(θ_0))…(I − αH(θ_{s−1})) ∇L^q(θ_s); first order keeps
    only ∇L^q(θ_s). The difference is built here from HVPs, innermost step first."""
    config = MamlConfig(
        hidden=6, activation=activation, tasks=3, k_shot=5, inner_lr=0.2, inner_steps=inner_steps
    )
    batch, theta = batch_for(config, 7), start(config, 2)
    _, _, x, y = batch
    k, expected = config.k_shot, torch.zeros_like(theta)
    for i in range(config.tasks):
        support = task_loss(config, x[i, :k], y[i, :k])
        query = task_loss(config, x[i, k:], y[i, k:])
        points = [theta]
        for _ in range(inner_steps):
            points.append(points[-1] - config.inner_lr * torch.func.grad(support)(points[-1]))
        v = torch.func.grad(query)(points[-1])
        u = v
        for p in reversed(points[:-1]):  # apply (I − αH(θ_j)) from the last step back
            u = u - config.inner_lr * hvp(support, p, u)
        expected += (u - v) / config.tasks  # the Hessian terms alone
    _, g2 = meta_gradient(theta, batch, config, "second")
    _, g1 = meta_gradient(theta, batch, config, "first")
    assert float(expected.norm()) > 1e-3 * float(g2.norm())  # a term that matters
    np.testing.assert_allclose((g2 - g1).numpy(), expected.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("inner_steps", [1, 2])
def test_the_torch_func_form_takes_the_same_meta_gradient(method: str, inner_steps: int) -> None:
    """meta_gradient_func (grad inside vmap inside grad, first order by detach) against the
    double-backward form that the finite-difference and HVP tests above check."""
    config = MamlConfig(**{**TINY.__dict__, "inner_steps": inner_steps})
    batch, theta = batch_for(config), start(config)
    value, g = meta_gradient(theta, batch, config, method)
    value_func, g_func = meta_gradient_func(theta, batch, config, method)
    assert value_func == pytest.approx(value, rel=1e-13)
    np.testing.assert_allclose(g_func.numpy(), g.numpy(), rtol=1e-11, atol=1e-14)


def grad_fn_count(root: object) -> int:
    """Backward nodes reachable from ``root`` (a plain breadth-first walk)."""
    seen, todo = set(), [root]
    while todo:
        fn = todo.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        todo.extend(nxt for nxt, _ in fn.next_functions)
    return len(seen)


def test_the_graph_sizes_are_walked_from_the_real_meta_loss() -> None:
    config = MamlConfig(hidden=8, tasks=2, k_shot=3, meta_steps=2)
    run = meta_train(config)
    batch = sine_tasks(torch.Generator().manual_seed(config.seed), config.tasks, 6)
    theta = initial_theta(8, config.seed).requires_grad_(True)
    for method in ("second", "first"):
        loss = query_loss(theta, batch, config, create_graph=method == "second")
        assert run.nodes[method] == grad_fn_count(loss.grad_fn)
        # the kernel's tracer (the graph page's walk) counts the same nodes and saved bytes
        traced = trace_tensors([(0, "meta-loss", loss, None)], [("θ", theta)])
        assert graph_size(loss) == (traced.per_pass[0], traced.bytes_per_pass[0])
        assert (run.nodes[method], run.saved_bytes[method]) == graph_size(loss)
    assert run.nodes["second"] > 2 * run.nodes["first"]
    assert run.saved_bytes["second"] > run.saved_bytes["first"] > 0
    assert set(run.seconds) == {"second", "first"} and min(run.seconds.values()) > 0
    g2 = meta_gradient(theta, batch, config, "second")[1]
    g1 = meta_gradient(theta, batch, config, "first")[1]
    assert run.cosine == pytest.approx(float(g1 @ g2 / (g1.norm() * g2.norm())), rel=1e-12)
    assert run.hessian_share == pytest.approx(float((g2 - g1).norm() / g2.norm()), rel=1e-12)


def test_meta_training_replayed_with_torch_optim_and_the_same_tasks() -> None:
    config = MamlConfig(hidden=8, tasks=3, k_shot=4, meta_steps=20)
    run = meta_train(config, eval_every=5)
    assert list(run.eval_steps) == [0, 5, 10, 15, 20]
    for method in METHODS:
        gen = torch.Generator().manual_seed(config.seed)
        theta = initial_theta(8, config.seed).requires_grad_(True)
        adam = torch.optim.Adam([theta], lr=config.outer_lr)
        for _ in range(config.meta_steps):
            adam.zero_grad()
            _, g = meta_gradient(theta, sine_tasks(gen, 3, 8), config, method)
            theta.grad = g
            adam.step()
        np.testing.assert_allclose(run.thetas[method], theta.detach().numpy(), rtol=1e-12)
        assert run.status[method] == "ok" and len(run.eval_losses[method]) == 5


def test_on_the_default_settings_second_order_adapts_best() -> None:
    """What the page's text says about its default run (a fixed seed, so a fixed outcome): on
    average over tasks, not on every sine (the page says so too)."""
    run = meta_train(MamlConfig())
    final = {m: run.eval_losses[m][-1] for m in METHODS}
    assert final["second"] < final["first"] < final["pretrain"]
    errors = {
        m: np.mean(
            [adapt(run, NewSine(a, p)).errors[m] for a in (1, 3, 5) for p in (0.5, 1.5, 2.5)],
            axis=0,
        )
        for m in METHODS
    }
    for k in (1, 5):
        assert errors["second"][k] < errors["first"][k] < errors["pretrain"][k]
    one = {m: adapt(run, NewSine(3.0, 1.5)).errors[m][1] for m in METHODS}
    assert one["first"] < one["second"]  # one sine where first order does better after a step


def test_adaptation_is_plain_gradient_steps_on_the_support_points() -> None:
    config = MamlConfig(hidden=8, tasks=2, k_shot=5, meta_steps=3)
    run = meta_train(config)
    a = adapt(run, NewSine(2.0, 0.5, steps=3, seed=4))
    np.testing.assert_allclose(a.support_y, 2.0 * np.sin(a.support_x - 0.5), rtol=1e-14)
    np.testing.assert_allclose(a.truth, 2.0 * np.sin(np.linspace(-5, 5, 200) - 0.5), atol=1e-14)
    x, y = torch.tensor(a.support_x)[:, None], torch.tensor(a.support_y)[:, None]
    grid = torch.tensor(a.xs)[None, :, None]
    for method in METHODS:
        theta = torch.tensor(run.thetas[method])
        for k in range(4):
            curve = forward(theta[None], grid, 8, "relu").flatten().detach().numpy()
            np.testing.assert_allclose(a.curves[method][k], curve, rtol=1e-12, atol=1e-14)
            assert a.errors[method][k] == pytest.approx(np.mean((curve - a.truth) ** 2), rel=1e-12)
            theta = theta - config.inner_lr * torch.func.grad(task_loss(config, x, y))(theta)


@pytest.mark.parametrize(
    ("config", "error", "match"),
    [
        (MamlConfig(hidden=65), BudgetError, "hidden: expected 1 to 64, got 65"),
        (MamlConfig(meta_steps=0), ArgumentError, "meta_steps"),
        (MamlConfig(meta_steps=801), BudgetError, "meta_steps"),
        (MamlConfig(tasks=17), BudgetError, "tasks"),
        (MamlConfig(k_shot=21), BudgetError, "k_shot"),
        (MamlConfig(inner_steps=4), BudgetError, "inner_steps"),
        (MamlConfig(inner_lr=math.nan), ArgumentError, "inner_lr"),
        (MamlConfig(outer_lr=0.0), ArgumentError, "outer_lr"),
        (MamlConfig(activation="gelu"), ArgumentError, "gelu"),
        (MamlConfig(hidden=64, tasks=16, k_shot=20, meta_steps=800), BudgetError, "work units"),
    ],
)
def test_refusals_come_before_any_work(config, error, match, monkeypatch) -> None:
    with raises(error, match=match):
        check_config(config)
    calls = []  # the page's cached call refuses before it trains (or draws a progress bar)
    monkeypatch.setattr(compute, "run", lambda *args, **kwargs: calls.append(args))
    with raises(error, match=match):
        cached.why_maml(config)
    assert not calls


@pytest.mark.parametrize(
    ("amplitude", "phase", "steps", "match"),
    [
        (5.5, 1.0, 5, "amplitude"),
        (0.0, 1.0, 5, "amplitude"),
        (1.0, 3.5, 5, "phase"),
        (1.0, math.nan, 5, "phase"),
        (1.0, 1.0, 6, "steps"),
    ],
)
def test_the_new_sine_is_checked(amplitude: float, phase: float, steps: int, match: str) -> None:
    with raises((ArgumentError, BudgetError), match=match):
        check_sine(NewSine(amplitude, phase, steps))
    check_sine(NewSine(5.0, math.pi, 5))  # the ends of the ranges are allowed


def test_pre_training_ends_near_the_mean_of_the_training_sines() -> None:
    """What the page says: the mean of A·sin(x − φ) over A ~ U[0.1, 5], φ ~ U[0, π] is
    −(2·2.55/π)·cos x (the phases do not cancel), and pre-training ends near it."""
    rng = np.random.default_rng(0)
    a, phi = rng.uniform(0.1, 5, 200_000), rng.uniform(0, np.pi, 200_000)
    xs = np.linspace(-5, 5, 11)
    mean = (a[:, None] * np.sin(xs[None, :] - phi[:, None])).mean(axis=0)
    closed = -2 * 2.55 / np.pi * np.cos(xs)
    np.testing.assert_allclose(mean, closed, atol=0.03)  # Monte Carlo against the closed form
    curve = adapt(meta_train(MamlConfig()), NewSine(1.0, 1.0)).curves["pretrain"][0]
    closed = -2 * 2.55 / np.pi * np.cos(np.linspace(-5, 5, 200))
    assert np.sqrt(np.mean((curve - closed) ** 2)) < 0.3 * np.sqrt(np.mean(closed**2))


def test_an_inner_step_too_large_is_detected_as_blowing_up() -> None:
    run = meta_train(MamlConfig(inner_lr=1.0, inner_steps=3, meta_steps=50))
    a = adapt(run, NewSine(3.0, 1.0))
    assert a.blew_up("pretrain", 5) and a.errors["pretrain"][5] > 1e10
    assert not a.blew_up("pretrain", 0)
    calm = adapt(meta_train(MamlConfig(hidden=8, meta_steps=20)), NewSine(3.0, 1.0))
    assert not any(calm.blew_up(m, k) for m in METHODS for k in range(6))


def poisoned_tasks(monkeypatch: pytest.MonkeyPatch, from_call: int) -> None:
    """From its ``from_call``-th call on, sine_tasks hands out targets of 1e300·y: the losses
    overflow to inf, as a run whose weights blow up would."""
    real, calls = compute.sine_tasks, [0]

    def tasks(gen: torch.Generator, n: int, points: int) -> tuple:
        calls[0] += 1
        amplitude, phase, x, y = real(gen, n, points)
        return amplitude, phase, x, y * (1e300 if calls[0] >= from_call else 1.0)

    monkeypatch.setattr(compute, "sine_tasks", tasks)


def test_a_run_whose_loss_stops_being_finite_stops_there(monkeypatch: pytest.MonkeyPatch) -> None:
    poisoned_tasks(monkeypatch, from_call=3 + 5)  # held-out, first batch, then 5 steps of "second"
    run = meta_train(MamlConfig(hidden=8, meta_steps=20, seed=7), eval_every=2)
    assert run.status["second"] == "diverged"
    assert len(run.eval_losses["second"]) == 3  # steps 0, 2, 4 evaluated; step 5 overflowed
    assert np.all(np.isfinite(run.eval_losses["second"]))
    assert np.all(np.isfinite(run.thetas["second"]))
    assert run.status["first"] == run.status["pretrain"] == "diverged"  # all later tasks too
