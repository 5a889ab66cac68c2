"""Hessian-free Newton on the small network: Newton steps from Hessian-vector products only.

A network's Hessian has n² entries (1.5 million for the 1,210-parameter digits model), but
conjugate gradient (CG) solves (H + λI) d = −g touching H only through products H v, and each
of those is one more backward pass through the gradient's graph::

    g  = grad(loss(θ), θ, create_graph=True)     # the graph of g is kept ...
    Hv = grad(g @ v, θ, retain_graph=True)        # ... so H v is one more backward pass

CG on an n x n symmetric positive definite system reaches the exact solution in at most n
products (in exact arithmetic), and usually a good one in far fewer. λ (damping) keeps the
step short where the quadratic model is poor; after each step it is adapted with the
Levenberg-Marquardt rule from ρ = actual decrease / predicted decrease, as in Martens (2010).
Unlike Martens, who runs CG on the Gauss-Newton matrix G (positive semi-definite, so G + λI is
positive definite and CG is always defined), this runs CG on the Hessian H itself, which can
have negative eigenvalues away from a minimum: CG stops when it meets a direction of negative
curvature of H + λI and keeps its last iterate.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import torch

from ..curvature import _load_forward_ad
from ..network import FlatAdam, check_dataset, layer_blocks, load_data, mlp_loss
from .common import check, check_work, interleaved_medians, saved_bytes

__all__ = [
    "HF_BUDGET", "HVP_GRADIENTS", "HFConfig", "HFRun", "conjugate_gradient", "first_order_passes",
    "func_form_gaps", "hessian_free", "hf_step", "initial_parameters",
]  # fmt: skip


@dataclass(frozen=True)
class HFBudget:
    max_parameters: int = 5_000
    max_layers: int = 2
    max_width: int = 64
    max_steps: int = 50
    max_cg: int = 60
    # parameters x examples x (gradients + HVPs) of the Hessian-free run: one unit is about a
    # multiply-add, 1.5e9 about 0.6 s here; each first-order run makes at most twice as many
    # passes (HVP_GRADIENTS), each a plain gradient
    max_work: float = 1.5e9


HF_BUDGET = HFBudget()

#: What one HVP counts as when the first-order runs get Hessian-free's work: this many gradients.
#: A count, not a measured time, so that a cached run does not depend on the server's load at
#: its first request. One HVP is a forward and a backward pass through the gradient's graph:
#: measured here at 1.1-1.8 times a gradient's time (docs/performance.md, ``hvp_over_grad``).
HVP_GRADIENTS = 2


@dataclass(frozen=True)
class HFConfig:
    dataset: str = "moons"  # "moons" (400 training points) or "digits" (1,437)
    hidden: tuple[int, ...] = (16,)  # tanh hidden layers, as on the network page
    steps: int = 15  # Hessian-free steps
    cg_iters: int = 20  # the most HVPs (CG iterations) per step
    damping: float = 1.0  # λ at the first step
    sgd_lr: float = 0.5  # learning rate of full-batch SGD
    adam_lr: float = 0.01  # learning rate of full-batch Adam
    seed: int = 0  # initial weights (a torch.Generator)


@dataclass(frozen=True)
class HFRun:
    """A Hessian-free run and two first-order runs given as many passes.

    Every method trains on the whole training set (full batch) from the same start. A pass is
    one gradient or one HVP: each Hessian-free step costs 1 gradient and up to ``cg_iters`` HVPs.

    Attributes:
        parameters, examples: n, and the examples in the loss.
        hf_losses: the loss before the first step and after each step, shape (steps + 1,).
        hf_passes, hf_seconds: passes and wall time used up to each of those points.
        hvps, damping, residuals, rho, accepted: per step, the HVPs CG used, λ, CG's relative
            residual |(H + λI)d + g| / |g|, ρ and whether the step was taken (ρ > 0).
        sgd_losses, adam_losses: the loss before each pass and after the last (one step is one
            pass); sgd_seconds, adam_seconds the time up to each point (measured, shown only).
            Each first-order run takes Hessian-free's work in gradients: one per Hessian-free
            step plus ``HVP_GRADIENTS`` per HVP (:func:`first_order_passes`), a count fixed by
            the Hessian-free run alone, so the two can be compared pass for pass and for the
            same counted work.
        status: per method ("hf", "sgd", "adam"), "ok" or "diverged" (the loss stopped being
            finite; the run stops there).
        grad_seconds, hvp_seconds: median time of one gradient and of one HVP (15 interleaved
            rounds at the start point).
        grad_saved_bytes, hvp_saved_bytes: memory the graphs of one gradient and of one HVP
            hold for backward at their largest (``common.saved_bytes``), at the start point.
        thetas, directions: θ at each step and the CG direction there (only if ``keep``).
        func_losses: the same Hessian-free steps with H v by forward mode through the gradient,
            ``jvp(grad(loss), (θ,), (v,))[1]`` (the torch.func form's product); the same as
            ``hf_losses`` up to rounding, which CG amplifies step by step.
    """

    config: HFConfig
    parameters: int
    examples: int
    hf_losses: np.ndarray
    hf_passes: np.ndarray
    hf_seconds: np.ndarray
    hvps: np.ndarray
    damping: np.ndarray
    residuals: np.ndarray
    rho: np.ndarray
    accepted: np.ndarray
    sgd_losses: np.ndarray
    sgd_seconds: np.ndarray
    adam_losses: np.ndarray
    adam_seconds: np.ndarray
    status: dict[str, str]
    grad_seconds: float
    hvp_seconds: float
    grad_saved_bytes: int
    hvp_saved_bytes: int
    thetas: tuple[np.ndarray, ...] = ()
    directions: tuple[np.ndarray, ...] = ()
    func_losses: np.ndarray = field(default_factory=lambda: np.zeros(0))


# ----------------------------------------------------------------------------------------------
# Private helpers


def conjugate_gradient(hvp, g, damping, max_iters, tol=1e-8):  # noqa: ANN001, ANN201
    """Solve (H + damping·I) d = −g by conjugate gradient, H seen only through ``hvp(v)``.

    Returns (d, HVPs used, relative residual, model) where model = gᵀd + ½dᵀHd, the decrease
    the quadratic model predicts, from quantities CG already has: with r = −g − (H + λI)d,
    dᵀ(H + λI)d = −dᵀ(g + r). Stops at |r| ≤ tol·|g|, after ``max_iters`` products, or on a
    direction of negative curvature (then d is the last iterate: no step if that is the first).

    Note:
        In exact arithmetic CG solves an n x n positive definite system in at most n products
        (as many as H + λI has distinct eigenvalues). In float64 its directions slowly lose
        their orthogonality, and with a large condition number it can need more than n.
    """
    d = torch.zeros_like(g)
    r = -g  # the residual of d = 0
    p = r.clone()
    rr = float(r @ r)
    used = 0
    while used < max_iters and math.sqrt(rr) > tol * float(g.norm()):
        Ap = hvp(p) + damping * p
        used += 1
        curvature = float(p @ Ap)
        if curvature <= 0:  # H + λI is not positive definite along p: CG's step is undefined
            break
        alpha = rr / curvature
        d = d + alpha * p
        r = r - alpha * Ap
        rr_new = float(r @ r)
        p = r + (rr_new / rr) * p
        rr = rr_new
    model = float(g @ d) - 0.5 * float(d @ (g + r)) - 0.5 * damping * float(d @ d)
    return d, used, math.sqrt(rr) / max(float(g.norm()), 1e-300), model


def hf_step(loss, theta, damping, cg_iters, tick=None):  # noqa: ANN001, ANN201
    """One Hessian-free step at θ: (loss(θ), d, HVPs used, CG residual, model decrease,
    loss(θ + d)); d is None if the loss or its gradient is not finite at θ."""
    t = theta.clone().requires_grad_(True)
    value = loss(t)
    (g,) = torch.autograd.grad(value, t, create_graph=True)  # kept: H v = grad(g·v)
    if not (math.isfinite(float(value.detach())) and bool(torch.isfinite(g).all())):
        return float(value.detach()), None, 0, math.nan, 0.0, math.nan

    def hvp(vec: torch.Tensor) -> torch.Tensor:
        if tick is not None:
            tick()
        return torch.autograd.grad(g @ vec, t, retain_graph=True)[0]

    d, used, residual, model = conjugate_gradient(hvp, g.detach(), damping, cg_iters)
    with torch.no_grad():
        new_loss = float(loss(theta + d))
    return float(value.detach()), d, used, residual, model, new_loss


def hf_losses_by_jvp(loss, theta0, config):  # noqa: ANN001, ANN201
    """The losses of the same Hessian-free steps (damping schedule and acceptance included)
    with H v = ``jvp(grad(loss), (θ,), (v,))[1]``: forward mode through the gradient, as the
    torch.func form computes it, instead of a second backward pass."""
    _load_forward_ad()  # torch's first jvp imports its decompositions: quietly, once
    theta, lam = theta0.clone(), config.damping
    losses = [float(loss(theta))]
    grad = torch.func.grad(loss)
    for _ in range(config.steps):
        g = grad(theta)
        if not (math.isfinite(losses[-1]) and bool(torch.isfinite(g).all())):
            break
        point = theta

        def hvp(v: torch.Tensor, point: torch.Tensor = point) -> torch.Tensor:
            return torch.func.jvp(grad, (point,), (v,))[1]

        d, _, _, model = conjugate_gradient(hvp, g, lam, config.cg_iters)
        with torch.no_grad():
            new_loss = float(loss(theta + d))
        rho = (new_loss - losses[-1]) / model if model < 0 else -math.inf
        lam = lam * 1.5 if rho < 0.25 else lam * 2 / 3 if rho > 0.75 else lam
        accepted = rho > 0 and math.isfinite(new_loss)
        if accepted:
            theta = theta + d
        losses.append(new_loss if accepted else losses[-1])
    return np.array(losses)


def initial_parameters(sizes: tuple[int, ...], seed: int) -> torch.Tensor:
    """θ as the network page draws it: W ~ N(0, 1/fan_in), b = 0, from torch.Generator(seed)."""
    gen = torch.Generator().manual_seed(int(seed))
    parts = []
    for name, a, b in layer_blocks(sizes):
        k = int(name[1:])
        scale = 1.0 / math.sqrt(sizes[k - 1]) if name[0] == "W" else 0.0
        parts.append(torch.randn(b - a, generator=gen, dtype=torch.float64) * scale)
    return torch.cat(parts)


def network_sizes(config: HFConfig) -> tuple[int, ...]:
    inputs, classes = (64, 10) if config.dataset == "digits" else (2, 2)
    return (inputs, *config.hidden, classes)


def _check(config: HFConfig) -> tuple[int, int]:
    b = HF_BUDGET
    check_dataset(config.dataset)
    check("hidden layers", len(config.hidden), 1, b.max_layers)
    for width in config.hidden:
        check("width", width, 1, b.max_width)
    check("steps", config.steps, 1, b.max_steps)
    check("cg_iters", config.cg_iters, 1, b.max_cg)
    check("damping", config.damping, 1e-4, 1e4)
    check("sgd_lr", config.sgd_lr, 1e-5, 100.0)
    check("adam_lr", config.adam_lr, 1e-5, 1.0)
    n = layer_blocks(network_sizes(config))[-1][2]
    check("parameters", n, 1, b.max_parameters)
    examples = 1437 if config.dataset == "digits" else 400
    passes = config.steps * (1 + config.cg_iters)
    check_work("why.hf.budget.work", n * examples * passes, b.max_work)
    return n, examples


def first_order_passes(gradients: int, hvps: int) -> int:
    """The steps each first-order run takes: Hessian-free's ``gradients`` and ``hvps``, each HVP
    counted as ``HVP_GRADIENTS`` gradients."""
    return gradients + HVP_GRADIENTS * hvps


def _first_order(loss, theta0, passes, step, progress):  # noqa: ANN001, ANN202
    """``passes`` steps (fewer if the loss stops being finite)."""
    theta = theta0.clone().requires_grad_(True)
    update = step(theta)
    losses, seconds, status, start = [], [], "ok", time.perf_counter()
    for _ in range(passes):
        value = loss(theta)
        losses.append(float(value.detach()))
        seconds.append(time.perf_counter() - start)
        if not math.isfinite(losses[-1]):
            status = "diverged"
            break
        (g,) = torch.autograd.grad(value, theta)
        update(g)
        progress()
    else:
        with torch.no_grad():
            losses.append(float(loss(theta)))
        seconds.append(time.perf_counter() - start)
        status = "ok" if math.isfinite(losses[-1]) else "diverged"
    return np.array(losses), np.array(seconds), status


def _sgd(lr: float) -> Callable:
    def make(theta: torch.Tensor) -> Callable:
        def update(g: torch.Tensor) -> None:
            with torch.no_grad():
                theta.sub_(lr * g)

        return update

    return make


# ----------------------------------------------------------------------------------------------
# Public API


def hessian_free(
    config: HFConfig, progress: Callable[[int, int], None] | None = None, keep: bool = False
) -> HFRun:
    """Train with Hessian-free Newton, then with SGD and Adam for its work counted in
    gradients (:func:`first_order_passes`).

    Args:
        config: network, data and settings.
        progress: called as ``progress(done, total)`` in passes, about 50 times in all.
        keep: also return θ and the CG direction of every step (for the tests).

    Raises:
        ArgumentError: an unknown data set or a setting out of its range.
        BudgetError: too many parameters, steps or CG iterations, or more work than
            ``HF_BUDGET.max_work`` (checked before any work).
    """
    n, examples = _check(config)
    sizes = network_sizes(config)
    x, y, _, _ = load_data(config.dataset)
    loss = mlp_loss(sizes, x, y)
    theta0 = initial_parameters(sizes, config.seed)
    # at most: the Hessian-free passes, then each first-order run's (first_order_passes)
    total = config.steps * (1 + config.cg_iters + 2 * (1 + HVP_GRADIENTS * config.cg_iters))
    every = max(1, total // 50)
    done = [0]

    def tick(k: int = 1) -> None:
        before, done[0] = done[0], done[0] + k
        if progress is not None and (done[0] // every != before // every):
            progress(min(done[0], total), total)

    t = theta0.clone().requires_grad_(True)
    (g_kept,) = torch.autograd.grad(loss(t), t, create_graph=True)
    v = torch.ones(n, dtype=torch.float64)
    memory = {
        "grad": saved_bytes(lambda: torch.autograd.grad(loss(t), t)),
        "hvp": saved_bytes(
            lambda: torch.autograd.grad(
                torch.autograd.grad(loss(t), t, create_graph=True)[0] @ v, t
            )
        ),
    }
    costs = interleaved_medians({
        "grad": lambda: torch.autograd.grad(loss(t), t),
        "hvp": lambda: torch.autograd.grad(g_kept @ v, t, retain_graph=True),
    }, 15)  # fmt: skip

    theta, lam = theta0.clone(), config.damping
    losses, passes, seconds = [], [0], [0.0]
    hvps, lams, residuals, rhos, accepted, thetas, directions = [], [], [], [], [], [], []
    status, start = "ok", time.perf_counter()
    for _ in range(config.steps):
        tick()  # the gradient
        value, d, used, residual, model, new_loss = hf_step(loss, theta, lam, config.cg_iters, tick)
        if not losses:
            losses.append(value)
        if d is None:
            status = "diverged"
            break
        if keep:
            thetas.append(theta.numpy().copy())
            directions.append(d.numpy().copy())
        rho = (new_loss - losses[-1]) / model if model < 0 else -math.inf
        hvps.append(used)
        lams.append(lam)
        residuals.append(residual)
        rhos.append(rho)
        accepted.append(bool(rho > 0 and math.isfinite(new_loss)))
        if rho < 0.25:  # Levenberg-Marquardt: trust the quadratic model less ...
            lam *= 1.5
        elif rho > 0.75:  # ... or more
            lam *= 2 / 3
        if accepted[-1]:
            theta = theta + d
        losses.append(new_loss if accepted[-1] else losses[-1])
        passes.append(passes[-1] + 1 + used)
        seconds.append(time.perf_counter() - start)
    budget = first_order_passes(len(hvps), sum(hvps))  # a gradient per step taken, and its HVPs
    sgd = _first_order(loss, theta0, budget, _sgd(config.sgd_lr), tick)
    adam = _first_order(loss, theta0, budget, lambda th: FlatAdam(th, config.adam_lr).step, tick)
    return HFRun(
        config, n, examples, np.array(losses), np.array(passes[: len(losses)]),
        np.array(seconds[: len(losses)]), np.array(hvps), np.array(lams), np.array(residuals),
        np.array(rhos), np.array(accepted), sgd[0], sgd[1], adam[0], adam[1],
        {"hf": status, "sgd": sgd[2], "adam": adam[2]}, costs["grad"], costs["hvp"],
        memory["grad"], memory["hvp"], tuple(thetas), tuple(directions),
        hf_losses_by_jvp(loss, theta0, config),
    )  # fmt: skip


def func_form_gaps(run: HFRun) -> tuple[float, float]:
    """|func − plain| / |plain| between ``run.func_losses`` and ``run.hf_losses``: after the
    last step, and the largest over the steps (NaN if there is nothing to compare)."""
    n = min(len(run.hf_losses), len(run.func_losses))
    if n == 0:
        return math.nan, math.nan
    plain, func = run.hf_losses[:n], run.func_losses[:n]
    gaps = np.abs(func - plain) / np.maximum(np.abs(plain), 1e-300)
    return float(gaps[-1]), float(gaps.max())
