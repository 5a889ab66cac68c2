"""Curvature beyond one number: the Hessian's diagonal, and momentum on the κ quadratics.

The diagonal. diag(H) is what a diagonal preconditioner divides by, and what a physics-informed
loss needs for u_xx + u_yy (the Laplacian is the trace of the Hessian in the inputs: the sum of
its diagonal, not the whole matrix). Exactly it takes n Hessian-vector products, H eᵢ for each
unit vector, batched with ``vmap``: as many products as the whole Hessian. Hutchinson's estimate
E[z ⊙ Hz] (z of random ±1 entries) takes one product per probe whatever n is; its error falls
like 1/√probes, with the constant Σ_{j≠i} Hᵢⱼ² known in closed form.

Momentum. Heavy-ball gradient descent, x_{k+1} = x_k − lr ∇f(x_k) + β (x_k − x_{k−1}), on the
quadratic ((x+y)² + κ(y−x)²)/4 (Hessian eigenvalues 1 and κ). Along an eigenvector of eigenvalue
λ the pair (x_k, x_{k−1}) is multiplied by M(λ) = [[1 + β − lr λ, −β], [1, 0]] each step, so the
run is M(λ)^k in closed form, its rate the spectral radius of M(λ), and it converges iff
0 < lr λ < 2(1 + β) for every λ (0 ≤ β < 1): the limit lr < 2(1 + β)/λ_max (Goh, "Why Momentum
Really Works", Distill 2017).

This file is the experiment of hograd's curvature tab, whole: the page runs it, and its download
is this file with the page's settings under ``if __name__ == "__main__":``. It needs torch,
numpy and hograd_core (this project: the typed-function language and the diagonal kernel).
"""

# %% Settings
import math
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from hograd_core import network as nw
from hograd_core.diagonal import exact_diagonal, hutchinson_diagonal, hutchinson_variance
from hograd_core.hessian import hvp
from hograd_core.hvp_examples import quadratic
from hograd_core.language import parse

__all__ = [
    "DiagonalConfig", "DiagonalStudy", "MomentumConfig", "MomentumRun", "heavy_ball_matrix",
    "heavy_ball_rate", "momentum", "network_function", "report", "study", "typed_function",
]  # fmt: skip


@dataclass(frozen=True)
class DiagonalConfig:
    function: str = "x^2*y + sin(x*y) + z^3*x"  # typed in hograd's function language
    point: tuple[float, ...] = (1.0, 2.0, 0.5)  # one number per variable, in name order
    probes: int = 200  # Hutchinson probes; the error is measured after 1, 2, ..., probes
    repeats: int = 20  # independent runs of `probes` probes (seeds seed, seed + 1, ...)
    seed: int = 0  # the probes (torch.Generator) and the network's training
    hidden: int = 16  # the network: moons, 2-hidden-2, tanh, cross-entropy on 400 points
    train_steps: int = 200  # Adam steps before its Hessian is taken


@dataclass(frozen=True)
class MomentumConfig:
    kappa: float = 10.0  # the quadratic's condition number: eigenvalues 1 and κ
    lr: float = 0.15  # step size
    beta: float = 0.3  # momentum β (0: plain gradient descent)
    steps: int = 100  # steps of each run
    start: tuple[float, float] = (2.0, 1.0)  # x₀ (and x₋₁ = x₀: no velocity at first)


# %% The diagonal, exact and estimated, with what each costs
def typed_function(text: str) -> tuple[Callable[[torch.Tensor], torch.Tensor], tuple[str, ...]]:
    """A typed function as f(w) of a flat float64 tensor, and its variables' names."""
    fn = parse(text)
    names = fn.variables
    return (lambda w: fn.torch(dict(zip(names, w.unbind(), strict=True)))), names


def network_function(hidden: int, steps: int, seed: int) -> tuple[Callable, torch.Tensor]:
    """The loss of a small trained network as a function of its flat weights θ, and θ."""
    net = nw.train(nw.NetConfig("moons", (hidden,), steps=steps, seed=seed))
    return nw.loss_function(net), torch.tensor(net.parameters)


def full_hessian(f: Callable, w: torch.Tensor) -> torch.Tensor:
    """torch.func.hessian (jacfwd of jacrev): all n² entries."""
    with warnings.catch_warnings():  # torch's first jvp loads decompositions via torch.jit.script
        warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated", DeprecationWarning)
        return torch.func.hessian(f)(w)


@dataclass(frozen=True)
class DiagonalStudy:
    """The diagonal of one Hessian three ways, and Hutchinson's error against the probes.

    Attributes:
        exact: diag(H) from the n products H eᵢ; hessian: torch.func.hessian's whole H.
        estimate, standard_error: the first repeat's mean of all its probes, and the standard
            deviation of its samples over √probes.
        rms_error: per k = 1..probes, the root mean square over the repeats of |estimate_k −
            exact| (Euclidean norm over the n entries).
        predicted: √(Σᵢ Σ_{j≠i} Hᵢⱼ² / k), the closed form of that error.
        products: Hessian-vector products of (exact diagonal, whole Hessian, Hutchinson).
        seconds: the median time of each of those three (3 interleaved rounds).
    """

    names: tuple[str, ...]
    exact: np.ndarray
    hessian: np.ndarray
    estimate: np.ndarray
    standard_error: np.ndarray
    rms_error: np.ndarray
    predicted: np.ndarray
    products: tuple[int, int, int]
    seconds: tuple[float, float, float]


def _medians(calls: list[Callable[[], object]], rounds: int = 3) -> tuple[float, ...]:
    """Median seconds of each call, over ``rounds`` interleaved rounds."""
    times: list[list[float]] = [[] for _ in calls]
    for _ in range(rounds):
        for spent, call in zip(times, calls, strict=True):
            start = time.perf_counter()
            call()
            spent.append(time.perf_counter() - start)
    return tuple(float(np.median(t)) for t in times)


def study(
    f: Callable, w: torch.Tensor, names: tuple[str, ...], config: DiagonalConfig
) -> DiagonalStudy:
    """The exact diagonal, the whole Hessian and Hutchinson's estimate of f at w."""
    exact = exact_diagonal(f, w).numpy()  # <-- n products H eᵢ, vmapped
    hessian = full_hessian(f, w).detach().numpy()
    runs = np.stack([hutchinson_diagonal(f, w, config.probes, config.seed + r).numpy()
                     for r in range(config.repeats)])  # <-- (repeats, probes, n): z ⊙ Hz  # fmt: skip
    k = np.arange(1, config.probes + 1)
    # a Hessian that is not finite at w (sqrt(x) at 0) gives NaN below, not an error
    with np.errstate(invalid="ignore", over="ignore"):
        return _summary(f, w, names, config, exact, hessian, runs, k)


def _summary(f, w, names, config, exact, hessian, runs, k) -> DiagonalStudy:  # noqa: ANN001
    """The errors, the closed form, the first repeat's estimate and the three timings."""
    running = np.cumsum(runs, axis=1) / k[None, :, None]  # the estimate after k probes
    errors = np.linalg.norm(running - exact, axis=2)  # (repeats, probes)
    rms = np.sqrt((errors**2).mean(axis=0))
    predicted = np.sqrt(hutchinson_variance(hessian).sum() / k)  # <-- falls like 1/√k
    first = runs[0]
    spread = first.std(axis=0, ddof=1) / math.sqrt(config.probes) if config.probes > 1 else (
        np.full(len(names), np.nan))  # fmt: skip
    seconds = _medians([lambda: exact_diagonal(f, w), lambda: full_hessian(f, w),
                        lambda: hutchinson_diagonal(f, w, config.probes, config.seed)])  # fmt: skip
    n = w.numel()
    return DiagonalStudy(names, exact, hessian, first.mean(axis=0), spread, rms, predicted,
                         (n, n, config.probes), seconds)  # fmt: skip


# %% Momentum: the 2x2 matrix of each eigen-direction, and a run beside it
def heavy_ball_matrix(lr: float, beta: float, lam: float) -> np.ndarray:
    """M(λ): (x_{k+1}, x_k) = M(λ) (x_k, x_{k−1}) along an eigenvector of eigenvalue λ."""
    return np.array([[1 + beta - lr * lam, -beta], [1.0, 0.0]])


def heavy_ball_rate(lr: float, beta: float, lam: float) -> float:
    """The spectral radius of M(λ), from μ² − (1 + β − lr λ) μ + β = 0: √β when the roots are
    complex (the two have |μ|² = β), else the larger |root|."""
    b = 1 + beta - lr * lam
    disc = b * b - 4 * beta
    if disc < 0:
        return math.sqrt(beta)  # <-- complex roots: the rate does not depend on lr λ
    return (abs(b) + math.sqrt(disc)) / 2


@dataclass(frozen=True)
class MomentumRun:
    """Heavy ball and plain gradient descent (same lr) on the κ quadratic.

    Attributes:
        eigenvalues, eigenvectors: of the quadratic's Hessian (hograd_core.hessian), ascending.
        components: per method ("momentum", "gd"), shape (steps + 1, 2): x_k along each
            eigenvector (the run); closed_form: the same from M(λ)^k (x₀, x₀).
        losses: per method, f(x_k); rates: per method, the rate of each eigen-direction.
        limit: 2(1 + β)/λ_max, the largest stable lr; diverged: per method, a value left the
            float range (the run stops there).
        best_lr, best_beta, best_rate: the tuning that minimises the slower rate, and that rate,
            (√κ − 1)/(√κ + 1), against plain descent's best (κ − 1)/(κ + 1) (gd_best_rate).
    """

    config: MomentumConfig
    eigenvalues: np.ndarray
    eigenvectors: np.ndarray
    components: dict[str, np.ndarray]
    closed_form: dict[str, np.ndarray]
    losses: dict[str, np.ndarray]
    rates: dict[str, tuple[float, float]]
    limit: float
    diverged: dict[str, bool]
    best_lr: float
    best_beta: float
    best_rate: float
    gd_best_rate: float


def momentum(config: MomentumConfig) -> MomentumRun:
    """Run heavy ball (β) and plain descent (β = 0) and their closed forms."""
    fn = parse(quadratic(config.kappa))
    names = fn.variables
    h = hvp(fn, config.start, (1.0, 0.0))  # the quadratic's Hessian and its eigenvectors
    lams, q = h.eigenvalues, h.eigenvectors

    def gradient(x: torch.Tensor) -> torch.Tensor:
        t = x.clone().requires_grad_(True)
        return torch.autograd.grad(fn.torch(dict(zip(names, t.unbind(), strict=True))), t)[0]

    def value(x: torch.Tensor) -> float:
        return float(fn.torch(dict(zip(names, x.unbind(), strict=True))))

    comps, closed, losses, rates, diverged = {}, {}, {}, {}, {}
    for method, beta in (("momentum", config.beta), ("gd", 0.0)):
        x = prev = torch.tensor(config.start, dtype=torch.float64)
        points, diverged[method] = [x.numpy().copy()], False
        for _ in range(config.steps):
            x, prev = x - config.lr * gradient(x) + beta * (x - prev), x  # <-- the heavy ball
            if not bool(torch.isfinite(x).all()) or float(x.abs().max()) > 1e150:
                diverged[method] = True
                break
            points.append(x.numpy().copy())
        comps[method] = np.array(points) @ q  # x_k along each eigenvector
        a0 = np.asarray(config.start) @ q
        rows = [np.array([1.0, 1.0]) * a0]
        mats = [heavy_ball_matrix(config.lr, beta, lam) for lam in lams]
        state = [np.array([a, a]) for a in a0]  # (x₀, x₋₁) = (x₀, x₀)
        for _ in range(len(points) - 1):
            state = [m @ s for m, s in zip(mats, state, strict=True)]
            rows.append(np.array([s[0] for s in state]))
        closed[method] = np.array(rows)
        losses[method] = np.array([value(torch.tensor(p)) for p in points])
        rates[method] = tuple(heavy_ball_rate(config.lr, beta, lam) for lam in lams)
    lo, hi = float(lams[0]), float(lams[-1])
    root = math.sqrt(hi / lo)
    return MomentumRun(
        config, lams, q, comps, closed, losses, rates, 2 * (1 + config.beta) / hi, diverged,
        (2 / (math.sqrt(hi) + math.sqrt(lo))) ** 2, ((root - 1) / (root + 1)) ** 2,
        (root - 1) / (root + 1), (hi / lo - 1) / (hi / lo + 1),
    )  # fmt: skip


# %% What the page shows, one "name value ..." line each
def report(typed: DiagonalStudy, network: DiagonalStudy, run: MomentumRun) -> None:
    """Print the numbers the tab shows (seconds vary from run to run, the rest does not)."""
    for name, s in (("typed", typed), ("network", network)):
        print(name + "_exact", *s.exact.tolist()[:10])
        print(name + "_estimate", *s.estimate.tolist()[:10])
        print(name + "_products", *s.products)
        print(name + "_seconds", *s.seconds)
        print(name + "_rms_error_last", s.rms_error[-1], "predicted", s.predicted[-1])
    print("momentum_rates", *run.rates["momentum"], "gd_rates", *run.rates["gd"])
    print("limit", run.limit, "best", run.best_lr, run.best_beta, run.best_rate)
    print("momentum_loss_last", run.losses["momentum"][-1], "gd_loss_last", run.losses["gd"][-1])


# %% Run it
if __name__ == "__main__":
    # the settings: the page's download writes its own on the next two lines
    diagonal = DiagonalConfig()
    momentum_config = MomentumConfig()
    torch.set_num_threads(1)  # tensors this small: a second thread only adds waiting
    f, names = typed_function(diagonal.function)
    typed = study(f, torch.tensor(diagonal.point, dtype=torch.float64), names, diagonal)
    loss, theta = network_function(diagonal.hidden, diagonal.train_steps, diagonal.seed)
    network = study(loss, theta, tuple(f"θ{i}" for i in range(theta.numel())), diagonal)
    report(typed, network, momentum(momentum_config))
