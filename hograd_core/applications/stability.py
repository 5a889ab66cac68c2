"""The stability limit of gradient descent: lr against 2/λ_max, on a quadratic and a network.

On a quadratic f = ½θᵀAθ, one gradient-descent step multiplies the component of θ along an
eigenvector of A (eigenvalue λ) by (1 − lr·λ). That shrinks exactly when |1 − lr·λ| < 1, for
every eigenvalue when lr < 2/λ_max; above 2/λ_max the top component grows every step. The
sharpness λ_max is found with Lanczos from Hessian-vector products only.

A network's loss is not a quadratic, and its sharpness changes as it trains. Under full-batch
gradient descent it typically rises until it reaches about 2/lr and then hovers there while
the loss keeps falling, unevenly: the "edge of stability" (Cohen et al., 2021).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from ..hvp_examples import quadratic
from ..language import parse
from ..network import check_dataset, initial_parameters, layer_blocks, load_data, mlp_loss
from .common import check, check_work, interleaved_medians, saved_bytes

__all__ = [
    "STABILITY_BUDGET", "NetStability", "QuadraticRun", "StabilityConfig", "lanczos",
    "net_stability", "quadratic_gd",
]  # fmt: skip


@dataclass(frozen=True)
class StabilityBudget:
    max_steps: int = 1_000
    max_lanczos: int = 40
    max_parameters: int = 5_000
    max_work: float = 1.5e9  # parameters x examples x passes (a gradient or an HVP each)


STABILITY_BUDGET = StabilityBudget()


def lanczos(hvp, v0, iters):  # noqa: ANN001, ANN201
    """The top eigenvalue of a symmetric H seen only through ``hvp(v)``, by ``iters`` steps
    of Lanczos with full reorthogonalisation.

    Returns (the largest Ritz value after each step, its Ritz vector). Lanczos builds an
    orthonormal basis V of the Krylov space span(v0, Hv0, H²v0, ...) in which H is the
    tridiagonal T = VᵀHV; the largest eigenvalue of T approaches λ_max from below.
    """
    basis, alphas, betas, tops = [v0 / v0.norm()], [], [], []
    for _ in range(iters):
        w = hvp(basis[-1])
        alphas.append(float(w @ basis[-1]))
        for u in basis:  # orthogonal to every earlier vector, twice for rounding
            w = w - float(w @ u) * u
        for u in basis:
            w = w - float(w @ u) * u
        k = len(alphas)
        t = np.diag(alphas) + np.diag(betas[: k - 1], 1) + np.diag(betas[: k - 1], -1)
        values, vectors = np.linalg.eigh(t)
        tops.append(float(values[-1]))
        beta = float(w.norm())
        if beta <= 1e-12 * max(abs(a) for a in alphas) or k == iters:
            break  # the Krylov space is whole: T's eigenvalues are H's
        betas.append(beta)
        basis.append(w / beta)
    top = sum(float(c) * u for c, u in zip(vectors[:, -1], basis, strict=False))
    return tops, top


@dataclass(frozen=True)
class QuadraticRun:
    """Gradient descent on ((x+y)² + κ(y−x)²)/4, whose Hessian has eigenvalues 1 and κ.

    Attributes:
        lambda_max: from Lanczos on HVPs; lanczos_hvps the products it took.
        points, losses: θ and f at each step; the run stops at the first non-finite f.
        status: "shrinks" (f at the end below f at the start), "grows" or "diverged" (f
            overflowed to inf: the last point kept is the last finite one).
        factors: |1 − lr·λ| for λ = 1 and κ, the factor each eigen-component is multiplied by
            per step (closed form).
        regime: "stable" (every factor below 1: lr < 2/λ_max), "edge" (lr = 2/λ_max to 1e-12:
            the steep component keeps its size and flips sign) or "unstable" (lr > 2/λ_max).
        verdict: what the page says, from the regime first and the run second: "stable";
            "edge" (κ > 1: the flat part dies out, the steep part keeps its size); "edge_even"
            (κ = 1: every eigenvalue is λ_max, there is no flat part and f stays put);
            "fell_for_now" (unstable, yet f ended below its start: the flat part shrank faster
            than the steep part grew); "grows" (unstable, f ended at or above its start);
            "diverged" (unstable, f overflowed).
        regrows_at: for "fell_for_now", the first step at which f is above its start again
            (closed form); None otherwise.
    """

    kappa: float
    lr: float
    lambda_max: float
    lanczos_hvps: int
    points: np.ndarray
    losses: np.ndarray
    status: str
    factors: tuple[float, float]
    regime: str
    verdict: str
    regrows_at: int | None


@dataclass(frozen=True)
class StabilityConfig:
    dataset: str = "moons"
    hidden: tuple[int, ...] = (16, 16)
    lr: float = 0.5
    steps: int = 500
    every: int = 20  # measure the sharpness every this many steps
    lanczos_iters: int = 12  # HVPs per measurement (warm-started from the last top vector)
    seed: int = 0


@dataclass(frozen=True)
class NetStability:
    """Full-batch gradient descent on the small network, with its sharpness along the way.

    Attributes:
        losses: the loss before each step (and after the last), up to the first non-finite.
        sharpness_steps, sharpness: λ_max by Lanczos at those steps.
        lambda0: λ_max at the start (Lanczos, ``max_lanczos`` HVPs); 2/lambda0 is the largest
            learning rate that would be stable if the loss were the quadratic model there.
        status: "ok" or "diverged" (the loss stopped being finite at step ``len(losses) - 1``).
        hvps: HVPs used in all; grad_seconds, hvp_seconds as measured side by side.
        grad_saved_bytes, hvp_saved_bytes: memory the graphs of one gradient and of one HVP
            hold for backward at their largest (``common.saved_bytes``), at the start.
    """

    config: StabilityConfig
    parameters: int
    losses: np.ndarray
    sharpness_steps: np.ndarray
    sharpness: np.ndarray
    lambda0: float
    status: str
    hvps: int
    grad_seconds: float
    hvp_seconds: float
    seconds: float
    grad_saved_bytes: int
    hvp_saved_bytes: int


# ----------------------------------------------------------------------------------------------
# Private helpers


def _first_rise(parts: tuple[float, float], factors: tuple[float, float]) -> int | None:
    """The first step k > 0 with f_k > f_0, where f_k = Σ parts[i]·factors[i]^(2k) (the
    quadratic's f along its eigenvectors), or None if f never rises above f_0.

    f_k is a sum of exponentials in k, so it is convex: once above f_0 it stays above. Found by
    doubling then bisection on log f_k (no overflow however large k is)."""
    start = sum(parts)

    def log_f(k: int) -> float:
        logs = [math.log(p) + 2 * k * math.log(r) for p, r in zip(parts, factors, strict=True)
                if p > 0 and r > 0]  # fmt: skip
        if not logs:
            return -math.inf
        top = max(logs)
        return top + math.log(sum(math.exp(v - top) for v in logs))

    if not any(p > 0 and r > 1 for p, r in zip(parts, factors, strict=True)):
        return None  # nothing grows
    target, high = math.log(start), 1
    while log_f(high) <= target:
        high *= 2
    low = high // 2  # f_low <= f_0 (or low = 0)
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if log_f(mid) <= target else (low, mid)
    return high


# ----------------------------------------------------------------------------------------------
# Public API


def quadratic_gd(kappa: float, lr: float, steps: int, start=(2.0, 1.0)) -> QuadraticRun:  # noqa: ANN001
    """Gradient descent with learning rate ``lr`` on the κ quadratic (a typed function).

    Raises:
        ArgumentError, BudgetError: κ outside 1..1000, lr outside (0, 10], steps over 1,000.
    """
    check("kappa", kappa, 1.0, 1000.0)
    check("lr", lr, 1e-6, 10.0)
    check("steps", steps, 1, STABILITY_BUDGET.max_steps)
    fn = parse(quadratic(kappa))
    names = fn.variables

    def f(w: torch.Tensor) -> torch.Tensor:
        return fn.torch({names[0]: w[0], names[1]: w[1]})

    w0 = torch.tensor(start, dtype=torch.float64, requires_grad=True)
    (g0,) = torch.autograd.grad(f(w0), w0, create_graph=True)
    calls = []

    def hvp(v: torch.Tensor) -> torch.Tensor:
        calls.append(1)
        return torch.autograd.grad(g0 @ v, w0, retain_graph=True)[0]

    tops, _ = lanczos(hvp, torch.tensor([1.0, 0.3], dtype=torch.float64), 2)
    w = torch.tensor(start, dtype=torch.float64)
    points, losses, status = [w.numpy().copy()], [float(f(w))], "shrinks"
    for _ in range(steps):
        t = w.clone().requires_grad_(True)
        (g,) = torch.autograd.grad(f(t), t)
        new = w - lr * g
        value = float(f(new))
        if not (math.isfinite(value) and bool(torch.isfinite(new).all())):
            status = "diverged"
            break
        w = new
        points.append(w.numpy().copy())
        losses.append(value)
    if status != "diverged":
        status = "shrinks" if losses[-1] < losses[0] else "grows"
    factors = (abs(1 - lr), abs(1 - lr * kappa))
    top = max(factors)
    regime = "edge" if abs(top - 1) <= 1e-12 else "stable" if top < 1 else "unstable"
    # f = ½(1·a² + κ·b²) with a, b the parts of θ along (1, 1)/√2 and (−1, 1)/√2
    a, b = (start[0] + start[1]) / math.sqrt(2), (start[1] - start[0]) / math.sqrt(2)
    regrows_at = None
    if regime == "stable":
        verdict = "stable"
    elif regime == "edge":
        verdict = "edge_even" if kappa == 1 else "edge"
    elif status == "diverged":
        verdict = "diverged"
    elif losses[-1] < losses[0]:
        verdict = "fell_for_now"
        regrows_at = _first_rise((a * a / 2, kappa * b * b / 2), factors)
    else:
        verdict = "grows"
    return QuadraticRun(
        kappa, lr, tops[-1], len(calls), np.array(points), np.array(losses), status, factors,
        regime, verdict, regrows_at,
    )  # fmt: skip


def network_sizes(config: StabilityConfig) -> tuple[int, ...]:
    inputs, classes = (64, 10) if config.dataset == "digits" else (2, 2)
    return (inputs, *config.hidden, classes)


def net_stability(
    config: StabilityConfig, progress: Callable[[int, int], None] | None = None
) -> NetStability:
    """Full-batch gradient descent on the network with the sharpness measured every
    ``config.every`` steps (Lanczos, warm-started from the previous top eigenvector).

    Raises:
        ArgumentError, BudgetError: a setting out of range, or more work than
            ``STABILITY_BUDGET.max_work`` (checked before any work).
    """
    b = STABILITY_BUDGET
    check_dataset(config.dataset)
    check("hidden layers", len(config.hidden), 1, 3)
    for width in config.hidden:
        check("width", width, 1, 64)
    check("lr", config.lr, 1e-4, 100.0)
    check("steps", config.steps, 1, b.max_steps)
    check("every", config.every, 1, config.steps)
    check("lanczos_iters", config.lanczos_iters, 2, b.max_lanczos)
    sizes = network_sizes(config)
    n = layer_blocks(sizes)[-1][2]
    check("parameters", n, 1, b.max_parameters)
    x, y, _, _ = load_data(config.dataset)
    measures = config.steps // config.every + 1
    passes = config.steps + measures * config.lanczos_iters + b.max_lanczos
    check_work("why.stability.budget.work", n * len(y) * passes, b.max_work)

    loss = mlp_loss(sizes, x, y)
    theta = initial_parameters(sizes, config.seed)
    t0 = theta.clone().requires_grad_(True)
    (g0,) = torch.autograd.grad(loss(t0), t0, create_graph=True)
    hvps = [0]

    def hvp_at(g: torch.Tensor, t: torch.Tensor) -> Callable:
        def hvp(v: torch.Tensor) -> torch.Tensor:
            hvps[0] += 1
            return torch.autograd.grad(g @ v, t, retain_graph=True)[0]

        return hvp

    gen = torch.Generator().manual_seed(int(config.seed))
    v = torch.randn(n, generator=gen, dtype=torch.float64)
    costs = interleaved_medians({
        "grad": lambda: torch.autograd.grad(loss(t0), t0),
        "hvp": lambda: torch.autograd.grad(g0 @ v, t0, retain_graph=True),
    }, 15)  # fmt: skip
    memory = {
        "grad": saved_bytes(lambda: torch.autograd.grad(loss(t0), t0)),
        "hvp": saved_bytes(lambda: torch.autograd.grad(
            torch.autograd.grad(loss(t0), t0, create_graph=True)[0] @ v, t0
        )),
    }  # fmt: skip
    tops, v = lanczos(hvp_at(g0, t0), v, b.max_lanczos)
    lambda0 = tops[-1]

    start = time.perf_counter()
    losses, steps_at, sharpness, status = [], [], [], "ok"
    for step in range(config.steps + 1):
        t = theta.clone().requires_grad_(True)
        value = loss(t)
        losses.append(float(value.detach()))
        if not math.isfinite(losses[-1]):
            status = "diverged"
            break
        if step == config.steps:
            break
        measure = step % config.every == 0
        (g,) = torch.autograd.grad(value, t, create_graph=measure)  # kept only to measure
        if measure:
            tops, v = lanczos(hvp_at(g, t), v, config.lanczos_iters)
            steps_at.append(step)
            sharpness.append(tops[-1])
        theta = theta - config.lr * g.detach()
        if progress is not None and (step + 1) % max(1, config.steps // 50) == 0:
            progress(step + 1, config.steps)
    return NetStability(
        config, n, np.array(losses), np.array(steps_at), np.array(sharpness), lambda0, status,
        hvps[0], costs["grad"], costs["hvp"], time.perf_counter() - start, memory["grad"],
        memory["hvp"],
    )  # fmt: skip
