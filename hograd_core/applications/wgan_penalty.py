"""The gradient penalty up close: its gradient with and without ``create_graph``, its graph, and
what a critic step with it costs next to one without.

``∂GP/∂θ`` (θ the critic's weights) runs backward through the graph of ``∇_x̂ D``: the graph
that the first backward pass built because ``create_graph=True`` asked it to. Without that
flag ``∇_x̂ D`` is a plain tensor; the penalty computed from it is a constant, and adding a
constant to the critic's loss changes its gradient by exactly nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ..graphs import TensorGraph, trace_tensors
from .common import interleaved_medians
from .wgan_gp import WganConfig, check_config, gradient_penalty, init_mlp, mlp, sample_data

__all__ = ["PenaltyCheck", "StepCosts", "penalty_check", "penalty_graph", "penalty_gradient",
           "step_costs"]  # fmt: skip

NAMES = ("W1", "b1", "W2", "b2", "W3", "b3")


@dataclass(frozen=True)
class PenaltyCheck:
    """∂GP/∂θ for each of the critic's parameter tensors, taken both ways at its first weights.

    Attributes:
        names: W1, b1, ... (weights and biases, from the input).
        with_graph: ‖∂GP/∂θ_k‖ when ∇_x̂ D was taken with create_graph=True.
        without_graph: ‖∂(GP − w)/∂θ_k − ∂(−w)/∂θ_k‖ with create_graph=False: what adding the
            penalty to the loss changed in each gradient (exactly 0.0).
        penalty: the penalty's value (the same number both ways); penalty_requires_grad:
            whether it carried a path to θ, with and without create_graph.
    """

    names: tuple[str, ...]
    with_graph: tuple[float, ...]
    without_graph: tuple[float, ...]
    penalty: float
    penalty_requires_grad: tuple[bool, bool]


@dataclass(frozen=True)
class StepCosts:
    """Median seconds of one critic step (forward, backward, Adam) with the penalty and
    without it, measured in interleaved rounds on the run's settings."""

    gp_seconds: float
    plain_seconds: float
    rounds: int


def _batch(config: WganConfig, gen: torch.Generator) -> tuple[torch.Tensor, ...]:
    """The first weights of both networks and one critic batch, drawn as training draws them."""
    h = config.hidden
    critic, generator = init_mlp([2, h, h, 1], gen), init_mlp([2, h, h, 2], gen)
    real = sample_data(config.dataset, config.batch, gen)
    z = torch.randn(config.batch, 2, generator=gen, dtype=torch.float64)
    fake = mlp(generator, z).detach()
    eps = torch.rand(config.batch, 1, generator=gen, dtype=torch.float64)
    return critic, real, fake, eps


def penalty_gradient(critic, real, fake, eps, lam, create_graph):  # noqa: ANN001, ANN201
    """What the penalty adds to the gradient of the critic's loss, per parameter tensor:
    ∂(GP − w)/∂θ − ∂(−w)/∂θ, where w = mean D(real) − mean D(fake)."""
    w = mlp(critic, real).mean() - mlp(critic, fake).mean()
    gp, _ = gradient_penalty(lambda x: mlp(critic, x), real, fake, eps, lam, create_graph)
    with_gp = torch.autograd.grad(gp - w, critic, retain_graph=True)
    plain = torch.autograd.grad(-w, critic)
    return [a - b for a, b in zip(with_gp, plain, strict=True)], gp


def penalty_check(config: WganConfig) -> PenaltyCheck:
    """:func:`penalty_gradient` with and without create_graph on the run's first batch.

    Raises:
        ArgumentError, BudgetError: see :func:`.wgan_gp.check_config`.
    """
    check_config(config)
    norms, values, needs = {}, {}, {}
    for graph in (True, False):
        critic, real, fake, eps = _batch(config, torch.Generator().manual_seed(config.seed))
        grads, gp = penalty_gradient(critic, real, fake, eps, config.lam, graph)
        norms[graph] = tuple(float(g.norm()) for g in grads)
        values[graph], needs[graph] = float(gp.detach()), gp.requires_grad
    return PenaltyCheck(NAMES, norms[True], norms[False], values[True], (needs[True], needs[False]))


def penalty_graph(create_graph: bool, hidden: int = 2, points: int = 1) -> TensorGraph:
    """The graph that ``GP.backward()`` walks, for a tiny critic (2 → ``hidden`` → 1) on
    ``points`` interpolates: D(x̂) in the colour of the forward pass, ‖∇_x̂ D‖ (the first
    point's value shown) and the penalty built on it in the colour of the first backward pass.
    Without create_graph, ‖∇_x̂ D‖ and the penalty have no grad_fn and stand alone."""
    gen = torch.Generator().manual_seed(0)
    critic = init_mlp([2, hidden, 1], gen)
    x_hat = torch.randn(points, 2, generator=gen, dtype=torch.float64).requires_grad_(True)
    d = mlp(critic, x_hat).sum()
    (g,) = torch.autograd.grad(d, x_hat, create_graph=create_graph)
    norm = g.norm(dim=1)  # (points,)
    gp = 10.0 * ((norm - 1) ** 2).mean()
    roots = [(0, "D(x̂)", d, float(d.detach())), (1, "‖∇D‖", norm, float(norm.detach()[0])),
             (1, "GP", gp, float(gp.detach()))]  # fmt: skip
    leaves = [*zip(NAMES[:4], critic, strict=True), ("x̂", x_hat)]
    return trace_tensors(roots, leaves)


def step_costs(config: WganConfig, rounds: int = 15) -> StepCosts:
    """One critic step with the penalty (create_graph=True) and one without, timed side by
    side: medians of ``rounds`` interleaved rounds.

    Raises:
        ArgumentError, BudgetError: see :func:`.wgan_gp.check_config`.
    """
    check_config(config)
    critic, real, fake, eps = _batch(config, torch.Generator().manual_seed(config.seed))
    opt = torch.optim.Adam(critic, lr=config.lr, betas=(0.5, 0.9))

    def step(penalty: bool) -> None:
        w = mlp(critic, real).mean() - mlp(critic, fake).mean()
        loss = -w
        if penalty:
            gp, _ = gradient_penalty(lambda x: mlp(critic, x), real, fake, eps, config.lam)
            loss = loss + gp
        opt.zero_grad()
        loss.backward()
        opt.step()

    times = interleaved_medians({"gp": lambda: step(True), "plain": lambda: step(False)}, rounds)
    return StepCosts(times["gp"], times["plain"], rounds)
