"""The runnable script of the gradient-statistics experiment, for the student's settings."""

from __future__ import annotations

from .common import Code, marked_code
from .gradient_stats import StatsConfig

__all__ = ["stats_code"]


def stats_code(config: StatsConfig) -> Code:
    """A script that trains the same network on the same batches and prints ``loss ...``
    (each step's loss), ``norms ...`` (each layer's weight-gradient norm at the last step) and,
    if a gradient had a NaN, ``nan_at <step>``. Set ``ANOMALY = True`` in it to run each step
    inside ``torch.autograd.detect_anomaly()``, which names the operation that made the NaN."""
    act = "torch.tanh" if config.activation == "tanh" else "torch.relu"
    loss = (
        "-torch.log(torch.softmax(h, dim=1))[torch.arange(len(yb)), yb].mean()  # can be log(0)"
        if config.naive_loss
        else "F.cross_entropy(h, yb)  # log-softmax, computed stably"
    )
    source = f"""import contextlib
import math

import torch
import torch.nn.functional as F
from sklearn.datasets import load_digits

DTYPE = torch.{config.dtype}
CLIP = {config.clip!r}  # max_norm of clip_grad_norm_; 0 switches clipping off
ANOMALY = False  # True: each step inside detect_anomaly (slow; names the op that made a NaN)

x, y = load_digits(return_X_y=True)
x = x / 16.0
order = torch.randperm(len(y), generator=torch.Generator().manual_seed(0)).numpy()
x = torch.tensor(x[order], dtype=torch.float64)[: int(0.8 * len(y))].to(DTYPE)
y = torch.tensor(y[order])[: int(0.8 * len(y))]

gen = torch.Generator().manual_seed({config.seed})
sizes = [64] + [{config.width}] * {config.depth} + [10]
params = []
for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
    w = torch.randn(fan_out, fan_in, generator=gen, dtype=torch.float64)
    params += [w * ({config.gain!r} / math.sqrt(fan_in)), torch.zeros(fan_out, dtype=torch.float64)]
params = [p.to(DTYPE).requires_grad_(True) for p in params]  # W1, b1, W2, b2, ...


def loss_of(xb, yb):
    h = xb
    for k in range(0, len(params), 2):
        h = h @ params[k].T + params[k + 1]
        if k < len(params) - 2:
            h = {act}(h)
    return {loss}


batches = torch.Generator().manual_seed({config.seed + 1})
losses = []
for step in range({config.steps}):
    idx = torch.randint(0, len(y), ({config.batch},), generator=batches)
    for p in params:
        p.grad = None
    with torch.autograd.detect_anomaly() if ANOMALY else contextlib.nullcontext():
        loss = loss_of(x[idx], y[idx])
        loss.backward()  # <-- no create_graph: statistics need first derivatives only
    losses.append(loss.item())
    norms = [params[k].grad.norm().item() for k in range(0, len(params), 2)]
    if any(torch.isnan(p.grad).any() for p in params) or not math.isfinite(loss.item()):
        print("nan_at", step)  # the NaN check: stop before the NaN reaches the weights
        break
    if CLIP > 0:
        torch.nn.utils.clip_grad_norm_(params, CLIP)
    with torch.no_grad():
        for p in params:
            p -= {config.lr!r} * p.grad
print("loss", *losses)
print("norms", *norms)
"""
    return marked_code(source)
