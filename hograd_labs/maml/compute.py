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

This file is the experiment of hograd's MAML tab, whole: the page runs it, and its download is
this file with the page's settings on the lines under ``if __name__ == "__main__":``. Run it
(``python maml.py``) and it prints what the page shows, one ``name value ...`` line each. It
needs only torch and numpy. The ``# %%`` lines cut it into a notebook's cells.
"""

# %% Settings
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from torch.func import grad, grad_and_value, vmap

__all__ = [
    "METHODS",
    "Adaptation",
    "MamlConfig",
    "MamlRun",
    "NewSine",
    "adapt",
    "forward",
    "graph_size",
    "initial_theta",
    "inner_loop",
    "meta_gradient",
    "meta_gradient_func",
    "parameter_count",
    "report",
    "run",
    "sine_against_held_out",
    "sine_tasks",
    "task_losses",
]

#: second-order MAML, first-order MAML (no create_graph), plain training on all tasks
METHODS = ("second", "first", "pretrain")
AMPLITUDE = (0.1, 5.0)  # the tasks' A ...
PHASE = (0.0, math.pi)  # ... and φ are drawn uniformly from these ranges,
X_RANGE = (-5.0, 5.0)  # their points x from this one
GRID = 200  # points of the curves drawn after adaptation
HELD_OUT = 20  # tasks that measure each start along meta-training


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
class NewSine:
    amplitude: float = 3.0  # A of the sine every trained start adapts to
    phase: float = 1.0  # φ
    steps: int = 5  # plain gradient steps of size α on its K points
    seed: int = 0  # the K points drawn (torch.Generator)


# %% The tasks and the network: one flat weight vector per task, every task in one batched pass
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


def task_losses(theta, x, y, hidden, activation):
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


# %% The meta-loss: create_graph=True or not is all that separates second- from first-order MAML
def inner_loop(theta, xs, ys, config, create_graph, steps):
    """Each task's copy of θ after ``steps`` gradient steps on its support points: (T, n)."""
    fast = theta.expand(xs.shape[0], -1)  # one row per task, still a function of θ
    for _ in range(steps):
        loss = task_losses(fast, xs, ys, config.hidden, config.activation).sum()
        # the sum's gradient w.r.t. each row is that task's own gradient
        (g,) = torch.autograd.grad(loss, fast, create_graph=create_graph)  # <-- the decisive flag
        fast = fast - config.inner_lr * g  # with create_graph=False, g is a constant: first order
    return fast


def query_loss(theta, batch, config, create_graph, steps=None):
    """The meta-loss: the mean query loss after adapting on the support points."""
    _, _, x, y = batch
    k = config.k_shot
    fast = inner_loop(
        theta,
        x[:, :k],
        y[:, :k],
        config,
        create_graph,
        config.inner_steps if steps is None else steps,
    )
    return task_losses(fast, x[:, k:], y[:, k:], config.hidden, config.activation).mean()


def meta_gradient(
    theta: torch.Tensor, batch: tuple, config: MamlConfig, method: str
) -> tuple[float, torch.Tensor]:
    """(loss, gradient w.r.t. θ) of one method on one batch of tasks from :func:`sine_tasks`.

    ``method``: "second" (the inner gradient taken with ``create_graph=True``), "first" (the
    same code without it) or "pretrain" (the plain loss of θ on every point).
    """
    t = theta.detach().clone().requires_grad_(True)
    if method == "pretrain":  # no adaptation: θ itself on every point of every task
        _, _, x, y = batch
        loss = task_losses(t.expand(x.shape[0], -1), x, y, config.hidden, config.activation)
        loss = loss.mean()
    else:
        loss = query_loss(
            t, batch, config, create_graph=method == "second"
        )  # <-- True only for "second"
    (g,) = torch.autograd.grad(loss, t)
    return float(loss.detach()), g


# %% The same meta-gradient with torch.func: grad inside vmap inside grad
def meta_gradient_func(
    theta: torch.Tensor, batch: tuple, config: MamlConfig, method: str
) -> tuple[float, torch.Tensor]:
    """:func:`meta_gradient` by function transforms: each task's inner step is
    ``grad(one_task_loss)``, ``vmap`` runs every task at once, and ``grad_and_value`` of the
    whole differentiates through the inner grad. torch.func has no ``create_graph`` flag (a
    transform always records what an outer one needs): first-order MAML detaches the inner
    gradient instead."""
    _, _, x, y = batch
    k, h, act = config.k_shot, config.hidden, config.activation

    def one_task_loss(fast, xs, ys):  # one task: fast (n,), xs (P, 1)
        return task_losses(fast[None], xs[None], ys[None], h, act)[0]

    def adapted_loss(th, xs, ys, second):
        """One task: adapt θ on its K support points, judge the copy on the K others."""
        fast = th
        for _ in range(config.inner_steps):
            g = grad(one_task_loss)(fast, xs[:k], ys[:k])  # the outer grad differentiates it
            fast = fast - config.inner_lr * (g if second else g.detach())  # detached: 1st order
        return one_task_loss(fast, xs[k:], ys[k:])

    def loss(th):
        if method == "pretrain":  # no adaptation: θ itself on every point
            return task_losses(th.expand(x.shape[0], -1), x, y, h, act).mean()
        per_task = vmap(adapted_loss, in_dims=(None, 0, 0, None))  # every task adapts its copy
        return per_task(th, x, y, method == "second").mean()

    g, value = grad_and_value(loss)(theta.detach())
    return float(value), g


# %% What one meta-gradient costs, with and without create_graph
def graph_size(loss: torch.Tensor) -> tuple[int, int]:
    """(grad_fn nodes, bytes of the tensors they saved for backward) of the graph behind
    ``loss``: every node reachable from ``loss.grad_fn``, each saved storage counted once.
    PyTorch shows what a node saved as its ``_saved_<name>`` attributes."""
    # Its own short walk, not hograd_core.autograd_walk: this file is the download and runs
    # with torch and numpy alone.
    seen, storages, todo = set(), {}, [loss.grad_fn]
    while todo:
        fn = todo.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        todo.extend(nxt for nxt, _ in fn.next_functions)
        for name in dir(fn):
            saved = getattr(fn, name) if name.startswith("_saved_") else None
            for tensor in saved if isinstance(saved, tuple) else (saved,):
                if torch.is_tensor(tensor):
                    storage = tensor.untyped_storage()
                    storages[storage.data_ptr()] = storage.nbytes()
    return len(seen), sum(storages.values())


def _medians(calls: dict[str, Callable[[], object]], rounds: int) -> dict[str, float]:
    """Median seconds of each call over ``rounds`` interleaved rounds (one call of each per
    round), so that a busy moment of the machine hits every call alike."""
    times: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(rounds):
        for name, call in calls.items():
            start = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - start)
    return {name: float(np.median(t)) for name, t in times.items()}


def costs(config: MamlConfig, theta: torch.Tensor, batch: tuple) -> tuple[dict, ...]:
    """Graph size and median time of one meta-gradient, with and without create_graph, and
    how far apart the two gradients point: (nodes, saved bytes, seconds, cosine, share)."""
    nodes, saved = {}, {}
    for method in ("second", "first"):
        t = theta.detach().clone().requires_grad_(True)
        loss = query_loss(t, batch, config, create_graph=method == "second")
        nodes[method], saved[method] = graph_size(loss)
    g2 = meta_gradient(theta, batch, config, "second")[1]  # also the warm-up of both routes
    g1 = meta_gradient(theta, batch, config, "first")[1]
    seconds = _medians(
        {m: (lambda m=m: meta_gradient(theta, batch, config, m)) for m in ("second", "first")}, 15
    )
    cosine = float(g1 @ g2 / (g1.norm() * g2.norm()).clamp_min(1e-300))
    share = float((g2 - g1).norm() / g2.norm().clamp_min(1e-300))
    return nodes, saved, seconds, cosine, share


# %% Meta-training: three starting points, side by side on the same tasks
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
            saved tensors in the graph of the meta-loss at θ₀ (:func:`graph_size`).
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


def run(
    config: MamlConfig,
    progress: Callable[[int, int], None] | None = None,
    eval_every: int = 10,
    gradient: Callable[..., tuple[float, torch.Tensor]] = meta_gradient,
) -> MamlRun:
    """Train second-order MAML, first-order MAML and plain pre-training from the same θ₀ on
    the same tasks (Adam with ``outer_lr``), and measure one meta-gradient both ways.

    Args:
        config: network, tasks and learning rates.
        progress: called as ``progress(done, total)`` in meta-steps, about 50 times in all.
        eval_every: meta-steps between evaluations on the held-out tasks.
        gradient: :func:`meta_gradient`, or :func:`meta_gradient_func` (the same by torch.func).
    """
    theta0 = initial_theta(config.hidden, config.seed)
    points = 2 * config.k_shot  # K support and K query points per task
    held_out = sine_tasks(torch.Generator().manual_seed(config.seed + 1), HELD_OUT, points)
    first = sine_tasks(torch.Generator().manual_seed(config.seed), config.tasks, points)
    nodes, saved, seconds, cosine, share = costs(config, theta0, first)
    total, every, done = 3 * config.meta_steps, max(1, 3 * config.meta_steps // 50), 0
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
            batch = sine_tasks(gen, config.tasks, points)
            value, g = gradient(theta, batch, config, method)
            if not (math.isfinite(value) and bool(torch.isfinite(g).all())):
                status[method] = "diverged"
                break
            theta.grad = g
            adam.step()
            done += 1
            if progress is not None and done % every == 0:
                progress(done, total)
        thetas[method] = theta.detach().numpy().copy()
        evals[method] = np.array(losses)
    return MamlRun(
        config,
        parameter_count(config.hidden),
        thetas,
        eval_steps,
        evals,
        status,
        nodes,
        saved,
        seconds,
        cosine,
        share,
        time.perf_counter() - start,
    )


# %% Adapting each trained start to a new sine: plain gradient steps, no create_graph needed
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


def adapt(result: MamlRun, sine: NewSine) -> Adaptation:
    """Adapt each trained θ of ``result`` to the sine A·sin(x − φ) by ``sine.steps`` gradient
    steps of size α on K support points drawn from ``torch.Generator(sine.seed)``."""
    c, a, phi = result.config, sine.amplitude, sine.phase
    gen = torch.Generator().manual_seed(int(sine.seed))
    sx = X_RANGE[0] + (X_RANGE[1] - X_RANGE[0]) * torch.rand(
        1, c.k_shot, 1, generator=gen, dtype=torch.float64
    )
    sy = a * torch.sin(sx - phi)
    grid = torch.linspace(*X_RANGE, GRID, dtype=torch.float64).view(1, GRID, 1)
    truth = a * torch.sin(grid - phi)
    curves, errors = {}, {}
    for method in METHODS:
        theta = torch.tensor(result.thetas[method]).unsqueeze(0)
        rows = []
        for k in range(sine.steps + 1):
            with torch.no_grad():
                rows.append(forward(theta, grid, c.hidden, c.activation).flatten())
            if k < sine.steps:
                t = theta.clone().requires_grad_(True)
                loss = task_losses(t, sx, sy, c.hidden, c.activation).sum()
                (g,) = torch.autograd.grad(loss, t)
                theta = theta - c.inner_lr * g
        curve = torch.stack(rows)
        curves[method] = curve.numpy()
        errors[method] = ((curve - truth.flatten()) ** 2).mean(dim=1).numpy()
    return Adaptation(
        float(a),
        float(phi),
        int(sine.steps),
        grid.flatten().numpy(),
        truth.flatten().numpy(),
        sx.flatten().numpy(),
        sy.flatten().numpy(),
        curves,
        errors,
    )


def sine_against_held_out(
    result: MamlRun, adaptation: Adaptation, steps: int
) -> tuple[str, str, bool] | None:
    """Which MAML start is lower on the one new sine after ``steps`` adaptation steps (the
    lower, the higher), and whether the 20 held-out tasks at the end of meta-training rank the
    two the same way; None if either comparison is a tie or not finite."""
    here = {m: float(adaptation.errors[m][steps]) for m in ("second", "first")}
    held = {m: float(result.eval_losses[m][-1]) for m in ("second", "first")}
    if not all(math.isfinite(v) for v in (*here.values(), *held.values())):
        return None
    if here["second"] == here["first"] or held["second"] == held["first"]:
        return None
    lower, higher = sorted(here, key=here.__getitem__)
    return lower, higher, min(held, key=held.__getitem__) == lower


# %% What the page shows, one "name value ..." line each
def report(result: MamlRun, adapted: Adaptation) -> None:
    """Print the run's numbers: the cost of a meta-gradient both ways (seconds vary from run
    to run, the rest does not), the held-out loss every ``eval_every`` meta-steps and the
    error on the grid after 0, 1, ... adaptation steps, per method."""
    print("parameters", result.parameters)
    for name in ("nodes", "saved_bytes", "seconds"):
        values = getattr(result, name)
        print(name, values["second"], values["first"])  # second-order, then first-order
    print("cosine", result.cosine)
    print("hessian_share", result.hessian_share)
    for method in METHODS:
        print("status_" + method, result.status[method])
        print("eval_" + method, *result.eval_losses[method].tolist())
        print("adapt_" + method, *adapted.errors[method].tolist())


# %% Run it
if __name__ == "__main__":
    # the settings: the page's download writes its own on the next three lines
    config = MamlConfig()
    sine = NewSine()
    gradient = meta_gradient  # or meta_gradient_func: the same meta-gradient by torch.func
    torch.set_num_threads(1)  # tensors this small: a second thread only adds waiting
    result = run(config, gradient=gradient)
    adapted = adapt(result, sine)
    report(result, adapted)
