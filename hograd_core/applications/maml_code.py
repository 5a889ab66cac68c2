"""The runnable script of the MAML experiment, for the student's settings."""

from __future__ import annotations

from .common import Code, marked_code
from .maml import MAML_BUDGET, MamlConfig

__all__ = ["maml_code"]


def maml_code(config: MamlConfig, amplitude: float, phase: float, seed: int = 0) -> Code:
    """A script that trains the three starting points as :func:`~.maml.meta_train` does and
    adapts them to the sine ``amplitude``·sin(x − ``phase``). It prints ``cosine <value>`` (the
    two meta-gradients at θ₀), ``eval_<method> ...`` (the held-out losses every 10 steps) and
    ``adapt_<method> ...`` (the error on the grid after 0..5 adaptation steps)."""
    c = config
    act = "torch.relu" if c.activation == "relu" else "torch.tanh"
    steps = MAML_BUDGET.max_adapt_steps
    source = f"""import math

import torch

torch.set_num_threads(1)  # tensors this small: a second thread only adds waiting
HIDDEN, ACT = {c.hidden}, {act}  # a 1-{c.hidden}-{c.hidden}-1 network
META_STEPS, TASKS, K = {c.meta_steps}, {c.tasks}, {c.k_shot}  # K support + K query points per task
INNER_STEPS, ALPHA, OUTER_LR, SEED = {c.inner_steps}, {c.inner_lr!r}, {c.outer_lr!r}, {c.seed}
SHAPES = [(1, HIDDEN), (HIDDEN, HIDDEN), (HIDDEN, 1)]  # (fan_in, fan_out) of each layer


def sine_tasks(gen, tasks, points):
    \"\"\"Random sines A sin(x - phase), A in [0.1, 5], phase in [0, pi], x in [-5, 5].\"\"\"
    amplitude = 0.1 + 4.9 * torch.rand(tasks, generator=gen, dtype=torch.float64)
    phase = math.pi * torch.rand(tasks, generator=gen, dtype=torch.float64)
    x = -5.0 + 10.0 * torch.rand(tasks, points, 1, generator=gen, dtype=torch.float64)
    return x, amplitude[:, None, None] * torch.sin(x - phase[:, None, None])


def initial_theta(seed):
    \"\"\"Every weight in one flat vector, drawn as torch.nn.Linear does.\"\"\"
    gen, parts = torch.Generator().manual_seed(seed), []
    for fan_in, fan_out in SHAPES:
        for n in (fan_in * fan_out, fan_out):
            parts.append((torch.rand(n, generator=gen, dtype=torch.float64) * 2 - 1) / math.sqrt(fan_in))
    return torch.cat(parts)


def forward(theta, x):
    \"\"\"Each task's own copy of the network: theta (T, n), x (T, P, 1) -> (T, P, 1).\"\"\"
    blocks = iter(theta.split([n for a, b in SHAPES for n in (a * b, b)], dim=1))
    h = x
    for k, (fan_in, fan_out) in enumerate(SHAPES):
        w = next(blocks).reshape(-1, fan_in, fan_out)  # (T, fan_in, fan_out)
        b = next(blocks).unsqueeze(1)  # (T, 1, fan_out)
        h = torch.baddbmm(b, h, w)
        if k < 2:
            h = ACT(h)
    return h


def task_losses(theta, x, y):
    return ((forward(theta, x) - y) ** 2).mean(dim=(1, 2))  # one mean squared error per task


def meta_loss(theta, x, y, create_graph):
    \"\"\"Adapt a copy of theta to each task on its K support points, judge it on the K others.\"\"\"
    fast = theta.expand(x.shape[0], -1)  # one row per task, still a function of theta
    for _ in range(INNER_STEPS):
        loss = task_losses(fast, x[:, :K], y[:, :K]).sum()
        g = torch.autograd.grad(loss, fast, create_graph=create_graph)[0]  # <-- the decisive flag
        fast = fast - ALPHA * g  # with create_graph=False, g is a constant: first-order MAML
    return task_losses(fast, x[:, K:], y[:, K:]).mean()


def meta_gradient(theta, x, y, method):
    t = theta.detach().clone().requires_grad_(True)
    if method == "pretrain":  # no adaptation: theta itself on every point
        loss = task_losses(t.expand(x.shape[0], -1), x, y).mean()
    else:
        loss = meta_loss(t, x, y, create_graph=method == "second")  # <-- True only for "second"
    return loss.item(), torch.autograd.grad(loss, t)[0]


held_out = sine_tasks(torch.Generator().manual_seed(SEED + 1), 20, 2 * K)
first_batch = sine_tasks(torch.Generator().manual_seed(SEED), TASKS, 2 * K)
g2 = meta_gradient(initial_theta(SEED), *first_batch, "second")[1]
g1 = meta_gradient(initial_theta(SEED), *first_batch, "first")[1]
print("cosine", (g1 @ g2 / (g1.norm() * g2.norm())).item())

trained = {{}}
for method in ("second", "first", "pretrain"):
    gen = torch.Generator().manual_seed(SEED)  # every method sees the same tasks
    theta = initial_theta(SEED).requires_grad_(True)
    adam = torch.optim.Adam([theta], lr=OUTER_LR)
    evals = []
    for step in range(META_STEPS + 1):
        if step % 10 == 0:
            evals.append(meta_gradient(theta, *held_out, "first")[0])
            if not math.isfinite(evals[-1]):
                break
        if step == META_STEPS:
            break
        value, g = meta_gradient(theta, *sine_tasks(gen, TASKS, 2 * K), method)
        if not (math.isfinite(value) and bool(torch.isfinite(g).all())):
            break
        theta.grad = g
        adam.step()
    trained[method] = theta.detach()
    print("eval_" + method, *evals)

# a new sine: {amplitude!r} sin(x - {phase!r}), seen through K points
gen = torch.Generator().manual_seed({seed})
sx = -5.0 + 10.0 * torch.rand(1, K, 1, generator=gen, dtype=torch.float64)
sy = {amplitude!r} * torch.sin(sx - {phase!r})
grid = torch.linspace(-5.0, 5.0, 200, dtype=torch.float64).view(1, 200, 1)
truth = {amplitude!r} * torch.sin(grid - {phase!r})
for method, theta in trained.items():
    theta, errors = theta.unsqueeze(0), []
    for k in range({steps + 1}):
        with torch.no_grad():
            errors.append(((forward(theta, grid) - truth) ** 2).mean().item())
        if k < {steps}:  # plain gradient steps: adapting needs no create_graph
            t = theta.clone().requires_grad_(True)
            theta = theta - ALPHA * torch.autograd.grad(task_losses(t, sx, sy).sum(), t)[0]
    print("adapt_" + method, *errors)
"""
    return marked_code(source)
