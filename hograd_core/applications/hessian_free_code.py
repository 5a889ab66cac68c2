"""The runnable script of the Hessian-free experiment, for the student's settings."""

from __future__ import annotations

import inspect

from .common import (
    MLP_LOSS_SOURCE,
    Code,
    initial_theta_source,
    marked_code,
    training_data_source,
)
from .hessian_free import HFConfig, conjugate_gradient, network_sizes

__all__ = ["hf_code"]


def hf_code(config: HFConfig) -> Code:
    """A script that trains the same network with the same Hessian-free steps and prints
    ``hf <loss after each step>``."""
    hidden = ", ".join(str(w) for w in config.hidden)
    x_in, classes = network_sizes(config)[0], network_sizes(config)[-1]
    source = f"""import math

import torch
import torch.nn.functional as F
{training_data_source(config.dataset)}
sizes = ({x_in}, {hidden}, {classes})


{MLP_LOSS_SOURCE}


{initial_theta_source(config.seed)}


{inspect.getsource(conjugate_gradient).replace("  # noqa: ANN001, ANN201", "")}

damping, losses = {config.damping!r}, [loss_of(theta).item()]
for step in range({config.steps}):
    t = theta.clone().requires_grad_(True)
    g = torch.autograd.grad(loss_of(t), t, create_graph=True)[0]  # <-- keep g's graph for H v
    hvp = lambda v: torch.autograd.grad(g @ v, t, retain_graph=True)[0]  # <-- H v: backward again
    d, used, residual, model = conjugate_gradient(hvp, g.detach(), damping, {config.cg_iters})
    with torch.no_grad():
        new_loss = loss_of(theta + d).item()
    rho = (new_loss - losses[-1]) / model if model < 0 else -math.inf
    damping = damping * 1.5 if rho < 0.25 else damping * 2 / 3 if rho > 0.75 else damping
    if rho > 0 and math.isfinite(new_loss):
        theta = theta + d
    losses.append(new_loss if rho > 0 and math.isfinite(new_loss) else losses[-1])
print("hf", *losses)
"""
    return marked_code(source)
