"""The tasks and the network of the MAML tab: random sines and a 1-h-h-1 MLP whose weights
are one flat vector per task, so that every task of a batch runs in one batched pass."""

from __future__ import annotations

import math

import torch

__all__ = [
    "AMPLITUDE", "PHASE", "X_RANGE", "forward", "initial_theta", "parameter_count", "sine_tasks",
    "task_losses",
]  # fmt: skip

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
