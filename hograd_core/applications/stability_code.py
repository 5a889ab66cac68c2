"""The runnable scripts of the stability experiments (the quadratic and the network), for the
student's settings."""

from __future__ import annotations

import inspect

from ..hvp_examples import quadratic
from ..language import parse
from ..language.to_source import torch_source
from .common import (
    MLP_LOSS_SOURCE,
    Code,
    initial_theta_source,
    marked_code,
    training_data_source,
)
from .stability import STABILITY_BUDGET, StabilityConfig, lanczos, network_sizes

__all__ = ["quadratic_code", "stability_code"]


def quadratic_code(kappa: float, lr: float, steps: int, start=(2.0, 1.0)) -> Code:  # noqa: ANN001
    """A script that runs :func:`quadratic_gd`'s gradient descent and prints ``lambda_max``
    and ``loss ...`` (f at each step, up to the first non-finite)."""
    body = torch_source(parse(quadratic(kappa)))
    source = f"""import math

import numpy as np
import torch


def f(w):
    x, y = w[0], w[1]
    return {body}


{inspect.getsource(lanczos).replace("  # noqa: ANN001, ANN202", "").replace("  # noqa: ANN001, ANN201", "")}

w0 = torch.tensor({list(start)!r}, dtype=torch.float64, requires_grad=True)
g0 = torch.autograd.grad(f(w0), w0, create_graph=True)[0]  # <-- kept: H v = grad(g0 . v)
tops, _ = lanczos(lambda v: torch.autograd.grad(g0 @ v, w0, retain_graph=True)[0],
                  torch.tensor([1.0, 0.3], dtype=torch.float64), 2)
print("lambda_max", tops[-1], "stable_below", 2 / tops[-1])

w, losses = torch.tensor({list(start)!r}, dtype=torch.float64), []
losses.append(f(w).item())
for step in range({steps}):
    t = w.clone().requires_grad_(True)
    g = torch.autograd.grad(f(t), t)[0]  # <-- gradient descent needs no create_graph
    new = w - {lr!r} * g
    if not math.isfinite(f(new).item()):
        break  # overflowed: stop at the last finite value
    w = new
    losses.append(f(w).item())
print("loss", *losses)
"""
    return marked_code(source)


def stability_code(config: StabilityConfig) -> Code:
    """A script that runs the same gradient descent and prints ``loss ...`` (the loss before
    each step) and ``sharpness ...`` (λ_max at every ``every``-th step)."""
    sizes = network_sizes(config)
    source = f"""import math

import numpy as np
import torch
import torch.nn.functional as F
{training_data_source(config.dataset)}
sizes = {sizes!r}


{MLP_LOSS_SOURCE}


{inspect.getsource(lanczos).replace("  # noqa: ANN001, ANN201", "")}

{initial_theta_source(config.seed)}
gen = torch.Generator().manual_seed({config.seed})
v = torch.randn(theta.numel(), generator=gen, dtype=torch.float64)
t = theta.clone().requires_grad_(True)
g = torch.autograd.grad(loss_of(t), t, create_graph=True)[0]
tops, v = lanczos(lambda u: torch.autograd.grad(g @ u, t, retain_graph=True)[0], v, {STABILITY_BUDGET.max_lanczos})
print("lambda0", tops[-1], "stable_below", 2 / tops[-1])
losses, sharpness = [], []
for step in range({config.steps + 1}):
    t = theta.clone().requires_grad_(True)
    loss = loss_of(t)
    losses.append(loss.item())
    if not math.isfinite(losses[-1]) or step == {config.steps}:
        break
    measure = step % {config.every} == 0
    g = torch.autograd.grad(loss, t, create_graph=measure)[0]  # <-- create_graph only to measure
    if measure:  # lambda_max from H v = grad(g . v): Lanczos, warm-started
        tops, v = lanczos(lambda u: torch.autograd.grad(g @ u, t, retain_graph=True)[0], v, {config.lanczos_iters})
        sharpness.append(tops[-1])
    theta = theta - {config.lr!r} * g.detach()  # <-- gradient descent itself is first order
print("loss", *losses)
print("sharpness", *sharpness)
"""
    return marked_code(source)
