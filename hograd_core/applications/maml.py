"""MAML on sine waves: the outer loop differentiates through the inner loop's gradient step.

Each task is a sine y = A·sin(x − φ) (A in [0.1, 5], φ in [0, π], x in [−5, 5]) seen through K
points. MAML looks for one set of starting weights θ from which a few gradient steps on a new
task's K points fit that task well (Finn et al., 2017). For one inner step of size α::

    θ'_i = θ − α ∇L_i^s(θ)                       # adapt to task i on its support points
    meta-loss = mean_i L_i^q(θ'_i)               # judged on other points of the same task
    ∇_θ meta-loss = mean_i (I − α H_i^s(θ)) ∇L_i^q(θ'_i)

where H_i^s is the Hessian of the support loss. The factor (I − α H) is the derivative of the
inner step, and autograd can only form it if the inner gradient was taken with
``create_graph=True``. Without it the inner gradient is a constant, the factor becomes I, and
the same program silently computes first-order MAML: the term −α H_i^s ∇L_i^q is gone.

The tasks and the network: a 1-h-h-1 MLP whose weights are one flat vector per task, so every
task of a meta-batch adapts in one batched pass.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from ..errors import ArgumentError
from ..graphs import trace_tensors
from .common import check, check_work, interleaved_medians

__all__ = [
    "MAML_BUDGET", "METHODS", "Adaptation", "MamlConfig", "MamlRun", "adapt", "forward",
    "initial_theta", "meta_gradient", "meta_train", "parameter_count", "sine_tasks",
    "sine_against_held_out",
]  # fmt: skip

#: second-order MAML, first-order MAML (no create_graph), plain training on all tasks
METHODS = ("second", "first", "pretrain")
GRID = 200  # points of the curves drawn after adaptation


AMPLITUDE = (0.1, 5.0)
PHASE = (0.0, math.pi)
X_RANGE = (-5.0, 5.0)


def _shapes(hidden: int) -> list[tuple[int, int]]:
    return [(1, hidden), (hidden, hidden), (hidden, 1)]  # (fan_in, fan_out) per layer


def parameter_count(hidden: int) -> int:
    """Weights and biases of the 1-h-h-1 network."""
    return sum(a * b + b for a, b in _shapes(hidden))


def initial_theta(hidden: int, seed: int) -> torch.Tensor:
    """θ as ``torch.nn.Linear`` draws it: weights and biases uniform in ±1/√fan_in, from
    ``torch.Generator(seed)``; each weight block stored (fan_in, fan_out)."""
    gen = torch.Generator().manual_seed(int(seed))
    parts = []
    for fan_in, fan_out in _shapes(hidden):
        bound = 1 / math.sqrt(fan_in)
        for n in (fan_in * fan_out, fan_out):
            parts.append((torch.rand(n, generator=gen, dtype=torch.float64) * 2 - 1) * bound)
    return torch.cat(parts)


def forward(theta: torch.Tensor, x: torch.Tensor, hidden: int, activation: str) -> torch.Tensor:
    """The network of each task on its own points: θ (T, n), x (T, P, 1) -> (T, P, 1)."""
    act = torch.relu if activation == "relu" else torch.tanh
    shapes = _shapes(hidden)
    # split, not slices: the backward of a slice writes into a zeroed copy of all of θ (one per
    # slice), the backward of split joins the pieces once
    blocks = iter(theta.split([n for a, b in shapes for n in (a * b, b)], dim=1))
    h = x
    for k, (fan_in, fan_out) in enumerate(shapes):
        w = next(blocks).reshape(-1, fan_in, fan_out)
        b = next(blocks).unsqueeze(1)  # (T, 1, fan_out)
        h = torch.baddbmm(b, h, w)  # (T, P, fan_out)
        if k < 2:
            h = act(h)
    return h


def task_losses(theta, x, y, hidden, activation):  # noqa: ANN001, ANN201
    """Mean squared error of each task, shape (T,)."""
    return ((forward(theta, x, hidden, activation) - y) ** 2).mean(dim=(1, 2))


def sine_tasks(gen: torch.Generator, tasks: int, points: int) -> tuple[torch.Tensor, ...]:
    """``tasks`` random sines and ``points`` random x each: (amplitude (T,), phase (T,),
    x (T, P, 1), y (T, P, 1)), all drawn from ``gen``."""
    amplitude = AMPLITUDE[0] + (AMPLITUDE[1] - AMPLITUDE[0]) * torch.rand(
        tasks, generator=gen, dtype=torch.float64
    )
    phase = PHASE[1] * torch.rand(tasks, generator=gen, dtype=torch.float64)
    x = X_RANGE[0] + (X_RANGE[1] - X_RANGE[0]) * torch.rand(
        tasks, points, 1, generator=gen, dtype=torch.float64
    )
    y = amplitude[:, None, None] * torch.sin(x - phase[:, None, None])
    return amplitude, phase, x, y


@dataclass(frozen=True)
class MamlBudget:
    max_hidden: int = 64
    max_meta_steps: int = 800
    max_tasks: int = 16
    max_k: int = 20
    max_inner_steps: int = 3
    max_adapt_steps: int = 5
    # (parameters x tasks x points + PASS_COST) x passes, summed over the meta-steps of the three
    # methods and the evaluations (see _work). Measured here, one pass costs about 0.13 ms
    # however small the network (PASS_COST) and 1 ms per 4.5e9 units of the rest: the default
    # settings are 4.5e9 units, about 1 s of CPU; the largest allowed runs took 0.85-1.2 s.
    max_work: float = 6e9


MAML_BUDGET = MamlBudget()
#: the fixed cost of one pass (launching its few dozen small operations) in work units
PASS_COST = 600_000


@dataclass(frozen=True)
class MamlConfig:
    hidden: int = 40  # width of both hidden layers: 1-h-h-1 (Finn et al.: 40)
    activation: str = "relu"  # "relu" (Finn et al.) or "tanh"
    meta_steps: int = 400  # outer (Adam) steps of each method
    tasks: int = 8  # tasks per meta-batch
    k_shot: int = 10  # support points per task (and as many query points)
    inner_steps: int = 1  # inner gradient steps during meta-training
    inner_lr: float = 0.02  # α, also used when adapting to the new sine
    outer_lr: float = 0.01  # Adam's learning rate for θ
    seed: int = 0  # initial weights and the tasks drawn (torch.Generator)


@dataclass(frozen=True)
class MamlRun:
    """Three starting points trained side by side on the same tasks, and what a meta-step costs.

    Attributes:
        thetas: per method (``METHODS``), the trained flat weight vector θ.
        eval_steps, eval_losses: every ``eval_every`` steps, per method, the mean query loss
            of 20 held-out tasks after ``inner_steps`` steps of size α from that θ (the
            quantity MAML minimises; for "pretrain" it is measured, not trained for).
        status: per method, "ok" or "diverged" (a loss stopped being finite; training stopped).
        nodes, saved_bytes: per ``("second", "first")``, the grad_fn nodes and the bytes of
            saved tensors in the graph of the meta-loss at θ₀, walked node by node.
        seconds: per ``("second", "first")``, the median time of one meta-gradient at θ₀
            (15 interleaved rounds).
        cosine: the cosine between the second- and first-order meta-gradients at θ₀;
            hessian_share |g₂ − g₁| / |g₂| there: the part first-order MAML leaves out.
        train_seconds: wall time of the three trainings.
    """

    config: MamlConfig
    parameters: int
    thetas: dict[str, np.ndarray]
    eval_steps: np.ndarray
    eval_losses: dict[str, np.ndarray]
    status: dict[str, str]
    nodes: dict[str, int]
    saved_bytes: dict[str, int]
    seconds: dict[str, float]
    cosine: float
    hessian_share: float
    train_seconds: float


@dataclass(frozen=True)
class Adaptation:
    """Each trained θ adapted to one new sine by plain gradient steps on its K support points.

    Attributes:
        xs, truth: the grid on [−5, 5] and A·sin(x − φ) on it.
        support_x, support_y: the K points the adaptation sees.
        curves: per method, shape (steps + 1, GRID): the network after 0, 1, ... steps.
        errors: per method, shape (steps + 1,): mean squared error against the truth on the grid.
    """

    amplitude: float
    phase: float
    steps: int
    xs: np.ndarray
    truth: np.ndarray
    support_x: np.ndarray
    support_y: np.ndarray
    curves: dict[str, np.ndarray]
    errors: dict[str, np.ndarray]

    def blew_up(self, method: str, step: int) -> bool:
        """Whether ``method``'s error after ``step`` steps is not finite or over 100 times
        both its error before adapting and the sine's mean square (steps that overshoot)."""
        error, before = float(self.errors[method][step]), float(self.errors[method][0])
        scale = max(before, float(np.mean(self.truth**2)))
        return not math.isfinite(error) or error > 100 * scale


# ----------------------------------------------------------------------------------------------
# Private helpers


def _inner(theta, xs, ys, config, create_graph, steps):  # noqa: ANN001, ANN202
    """Each task's copy of θ after ``steps`` gradient steps on its support points: (T, n)."""
    fast = theta.expand(xs.shape[0], -1)  # one row per task, still a function of θ
    for _ in range(steps):
        loss = task_losses(fast, xs, ys, config.hidden, config.activation).sum()
        # the sum's gradient w.r.t. each row is that task's own gradient
        (g,) = torch.autograd.grad(loss, fast, create_graph=create_graph)
        fast = fast - config.inner_lr * g
    return fast


def _query_loss(theta, batch, config, create_graph, steps=None):  # noqa: ANN001, ANN202
    """The meta-loss: the mean query loss after adapting on the support points."""
    _, _, x, y = batch
    k = config.k_shot
    fast = _inner(theta, x[:, :k], y[:, :k], config, create_graph,
                  config.inner_steps if steps is None else steps)  # fmt: skip
    return task_losses(fast, x[:, k:], y[:, k:], config.hidden, config.activation).mean()


def _plain_loss(theta, batch, config):  # noqa: ANN001, ANN202
    """Pre-training: θ itself on every point of every task (no adaptation)."""
    _, _, x, y = batch
    return task_losses(theta.expand(x.shape[0], -1), x, y, config.hidden, config.activation).mean()


def _check(config: MamlConfig, eval_every: int = 10) -> int:
    b = MAML_BUDGET
    if config.activation not in ("relu", "tanh"):
        raise ArgumentError("maml.activation", got=str(config.activation)[:40])
    check("hidden", config.hidden, 1, b.max_hidden)
    check("meta_steps", config.meta_steps, 1, b.max_meta_steps)
    check("tasks", config.tasks, 1, b.max_tasks)
    check("k_shot", config.k_shot, 1, b.max_k)
    check("inner_steps", config.inner_steps, 1, b.max_inner_steps)
    check("inner_lr", config.inner_lr, 1e-4, 1.0)
    check("outer_lr", config.outer_lr, 1e-5, 0.1)
    check("seed", config.seed, 0, 10**6)
    n = parameter_count(config.hidden)
    check("eval_every", eval_every, 1, b.max_meta_steps)
    check_work("maml.budget.work", _work(config, n, eval_every), b.max_work)
    return n


def _work(config: MamlConfig, n: int, eval_every: int) -> float:
    """Counted work: (n x points + PASS_COST) per pass. A meta-step of second-order MAML makes
    3 passes per inner step (forward, backward kept as a graph, and the backward through that
    backward) plus 2 for the query, first-order 2 per inner step plus 2, pre-training 2; each
    evaluation (every ``eval_every`` steps, per method) 2 per inner step plus 2 on 20 tasks."""
    s, points = config.inner_steps, 2 * config.k_shot
    step = (3 * s + 2 + 2 * s + 2 + 2) * (n * config.tasks * points + PASS_COST)
    evaluation = 3 * (2 * s + 2) * (n * 20 * points + PASS_COST)
    return float(config.meta_steps * step + (config.meta_steps // eval_every + 1) * evaluation)


# ----------------------------------------------------------------------------------------------
# Public API


def meta_gradient(
    theta: torch.Tensor, batch: tuple, config: MamlConfig, method: str
) -> tuple[float, torch.Tensor]:
    """(loss, gradient w.r.t. θ) of one method on one batch of tasks from :func:`sine_tasks`.

    ``method``: "second" (the inner gradient taken with ``create_graph=True``), "first" (the
    same code without it) or "pretrain" (the plain loss of θ on every point).
    """
    t = theta.detach().clone().requires_grad_(True)
    if method == "pretrain":
        loss = _plain_loss(t, batch, config)
    else:
        loss = _query_loss(t, batch, config, create_graph=method == "second")
    (g,) = torch.autograd.grad(loss, t)
    return float(loss.detach()), g


def _costs(config: MamlConfig, theta: torch.Tensor, batch: tuple) -> tuple[dict, ...]:
    """Graph size (walked) and time of one meta-gradient, with and without create_graph."""
    nodes, saved = {}, {}
    for method in ("second", "first"):
        t = theta.detach().clone().requires_grad_(True)
        loss = _query_loss(t, batch, config, create_graph=method == "second")
        graph = trace_tensors([(0, "meta-loss", loss, float(loss.detach()))], [("θ", t)])
        nodes[method], saved[method] = graph.per_pass[0], graph.bytes_per_pass[0]
    g2 = meta_gradient(theta, batch, config, "second")[1]  # also the warm-up of both routes
    g1 = meta_gradient(theta, batch, config, "first")[1]
    seconds = interleaved_medians(
        {m: (lambda m=m: meta_gradient(theta, batch, config, m)) for m in ("second", "first")}, 15
    )
    cosine = float(g1 @ g2 / (g1.norm() * g2.norm()).clamp_min(1e-300))
    share = float((g2 - g1).norm() / g2.norm().clamp_min(1e-300))
    return nodes, saved, seconds, cosine, share


def meta_train(
    config: MamlConfig, progress: Callable[[int, int], None] | None = None, eval_every: int = 10
) -> MamlRun:
    """Train second-order MAML, first-order MAML and plain pre-training from the same θ₀ on
    the same tasks (Adam with ``outer_lr``), and measure one meta-gradient both ways.

    Args:
        config: network, tasks and learning rates.
        progress: called as ``progress(done, total)`` in meta-steps, about 50 times in all.
        eval_every: meta-steps between evaluations on the held-out tasks.

    Raises:
        ArgumentError: an unknown activation or a setting out of its range.
        BudgetError: a setting above its limit, or more work than ``MAML_BUDGET.max_work``
            (checked before any work).
    """
    n = _check(config, eval_every)
    theta0 = initial_theta(config.hidden, config.seed)
    held_out = sine_tasks(torch.Generator().manual_seed(config.seed + 1), 20, 2 * config.k_shot)
    first = sine_tasks(torch.Generator().manual_seed(config.seed), config.tasks, 2 * config.k_shot)
    nodes, saved, seconds, cosine, share = _costs(config, theta0, first)
    total, every, done = 3 * config.meta_steps, max(1, 3 * config.meta_steps // 50), [0]
    thetas, evals, status = {}, {}, {}
    eval_steps = np.arange(0, config.meta_steps + 1, eval_every)
    start = time.perf_counter()
    for method in METHODS:
        gen = torch.Generator().manual_seed(config.seed)  # every method sees the same tasks
        theta = theta0.clone().requires_grad_(True)
        adam = torch.optim.Adam([theta], lr=config.outer_lr)
        losses, status[method] = [], "ok"
        for step in range(config.meta_steps + 1):
            if step % eval_every == 0:
                losses.append(meta_gradient(theta, held_out, config, "first")[0])
                if not math.isfinite(losses[-1]):
                    status[method] = "diverged"
                    break
            if step == config.meta_steps:
                break
            batch = sine_tasks(gen, config.tasks, 2 * config.k_shot)
            value, g = meta_gradient(theta, batch, config, method)
            if not (math.isfinite(value) and bool(torch.isfinite(g).all())):
                status[method] = "diverged"
                break
            theta.grad = g
            adam.step()
            done[0] += 1
            if progress is not None and done[0] % every == 0:
                progress(done[0], total)
        thetas[method] = theta.detach().numpy().copy()
        evals[method] = np.array(losses)
    return MamlRun(
        config, n, thetas, eval_steps, evals, status, nodes, saved, seconds, cosine, share,
        time.perf_counter() - start,
    )  # fmt: skip


def adapt(
    run: MamlRun, amplitude: float, phase: float, steps: int = MAML_BUDGET.max_adapt_steps,
    seed: int = 0,
) -> Adaptation:  # fmt: skip
    """Adapt each trained θ of ``run`` to the sine A·sin(x − φ) by ``steps`` gradient steps of
    size α on K support points drawn from ``torch.Generator(seed)``.

    Raises:
        ArgumentError, BudgetError: amplitude outside 0.1..5, phase outside 0..π, steps
            outside 0..5.
    """
    for name, got, (low, high) in (("amplitude", amplitude, AMPLITUDE), ("phase", phase, PHASE)):
        if not (math.isfinite(got) and low <= got <= high):  # a shape, not an amount of work
            raise ArgumentError("why.budget.range", name=name, low=low, high=round(high, 4),
                                got=got)  # fmt: skip
    check("steps", steps, 0, MAML_BUDGET.max_adapt_steps)
    check("seed", seed, 0, 10**6)
    c = run.config
    gen = torch.Generator().manual_seed(int(seed))
    sx = X_RANGE[0] + (X_RANGE[1] - X_RANGE[0]) * torch.rand(
        1, c.k_shot, 1, generator=gen, dtype=torch.float64
    )
    sy = amplitude * torch.sin(sx - phase)
    grid = torch.linspace(*X_RANGE, GRID, dtype=torch.float64).view(1, GRID, 1)
    truth = amplitude * torch.sin(grid - phase)
    curves, errors = {}, {}
    for method in METHODS:
        theta = torch.tensor(run.thetas[method]).unsqueeze(0)
        rows = []
        for k in range(steps + 1):
            with torch.no_grad():
                rows.append(forward(theta, grid, c.hidden, c.activation).flatten())
            if k < steps:
                t = theta.clone().requires_grad_(True)
                loss = task_losses(t, sx, sy, c.hidden, c.activation).sum()
                (g,) = torch.autograd.grad(loss, t)
                theta = theta - c.inner_lr * g
        curve = torch.stack(rows)
        curves[method] = curve.numpy()
        errors[method] = ((curve - truth.flatten()) ** 2).mean(dim=1).numpy()
    return Adaptation(
        float(amplitude), float(phase), int(steps), grid.flatten().numpy(),
        truth.flatten().numpy(), sx.flatten().numpy(), sy.flatten().numpy(), curves, errors,
    )  # fmt: skip


def sine_against_held_out(
    run: MamlRun, adaptation: Adaptation, steps: int
) -> tuple[str, str, bool] | None:
    """Which MAML start is lower on the one new sine after ``steps`` adaptation steps (the
    lower, the higher), and whether the 20 held-out tasks at the end of meta-training rank the
    two the same way; None if either comparison is a tie or not finite."""
    here = {m: float(adaptation.errors[m][steps]) for m in ("second", "first")}
    held = {m: float(run.eval_losses[m][-1]) for m in ("second", "first")}
    if not all(math.isfinite(v) for v in (*here.values(), *held.values())):
        return None
    if here["second"] == here["first"] or held["second"] == held["first"]:
        return None
    lower, higher = sorted(here, key=here.__getitem__)
    return lower, higher, min(held, key=held.__getitem__) == lower
