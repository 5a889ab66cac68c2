"""Curvature beyond one number: the Hessian's diagonal, momentum on the κ quadratics,
Gauss-Newton against the Hessian, and the Hessian's spectral density.

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

Gauss-Newton. For a loss ℓ(model(θ)) the Hessian is H = Jᵀ H_ℓ J + Σₖ (∂ℓ/∂outₖ) ∇² outₖ
(J = ∂model/∂θ). The Gauss-Newton matrix G = Jᵀ H_ℓ J keeps the first term only: positive
semi-definite when ℓ is convex in the outputs, equal to H when the model is linear in θ, and
G v costs a jvp and a vjp. Hessian-free (Martens 2010) solves (G + λI) d = −∇f by conjugate
gradients; on H, CG can meet a direction of negative curvature and must stop there.

Spectral density. Stochastic Lanczos quadrature (Ghorbani, Krishnan and Xiao 2019; PyHessian,
Yao et al. 2020): m Lanczos steps from a random unit vector give nodes θₖ and weights τₖ with
vᵀ p(H) v = Σ τₖ p(θₖ) for every polynomial p of degree below 2m; averaged over starts and
smoothed by a Gaussian, Σ τₖ N(θₖ, σ²) estimates the density of H's eigenvalues.

Two forms. The curvature here (H v, G v, the whole Hessian, and Hessian-free's gradient)
is taken by torch.func's transforms (``grad`` of ``grad``, ``vmap``, ``jvp``,
``vjp``, ``hessian``), which compose and need no flag; ``autograd = True`` below takes the
same with ``torch.autograd`` on a gradient recorded with ``create_graph=True``, one more
backward pass per H v (three per G v), and prints the same numbers up to rounding. The
training steps and the heavy ball's gradients are plain ``torch.autograd.grad`` in both.

This file is the experiment of hograd's curvature tab, whole: the page runs it on the function
typed in its box, and its download is this file with that function written in PyTorch as ``f``
and the page's settings under ``if __name__ == "__main__":``. Run it (``python curvature.py``)
and it prints what the page shows, one ``name value ...`` line each. It needs torch, numpy and
scikit-learn (for the two moons, made by it: no download). The ``# %%`` lines cut it into a
notebook's cells.
"""

# %% Settings
import math
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch.func import grad, vmap

__all__ = [
    "CHUNK",
    "NAMES",
    "CurvatureConfig",
    "DiagonalConfig",
    "DiagonalStudy",
    "HFRun",
    "MomentumConfig",
    "hessian_product_autograd",
    "ggn_product_autograd",
    "gradient_of",
    "hessian_rows",
    "run",
    "MomentumRun",
    "NetworkCurvatureConfig",
    "Regions",
    "Spectra",
    "conjugate_gradient",
    "exact_diagonal",
    "f",
    "ggn_product",
    "hessian_free",
    "hessian_product",
    "heavy_ball_matrix",
    "heavy_ball_rate",
    "hutchinson_diagonal",
    "hutchinson_variance",
    "lanczos",
    "matrix_of",
    "momentum",
    "network_function",
    "network_model",
    "quadratic",
    "quadrature",
    "regions",
    "report",
    "slq",
    "spectra",
    "study",
    "train",
    "training_data",
]

#: Products vmap runs together: a memory bound (chunk copies of one backward), not a speed-up.
CHUNK = 16


@dataclass(frozen=True)
class DiagonalConfig:
    function: str = "x^2*y + sin(x*y) + z^3*x"  # as typed on the page; f below is it in PyTorch
    point: tuple[float, ...] = (1.0, 2.0, 0.5)  # w: one number per variable, in NAMES' order
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


@dataclass(frozen=True)
class NetworkCurvatureConfig:
    hidden: int = 16  # the network: moons, 2-hidden-2, tanh, cross-entropy on 400 points
    train_steps: int = 200  # Adam steps before G, H and the spectral density are taken
    seed: int = 0  # the network's training and the Lanczos starts
    hf_iterations: int = 15  # Hessian-free steps, each one CG solve (from one Adam step in)
    cg_iterations: int = 20  # CG iterations per step at most: one G v (or H v) each
    damping: float = 0.01  # λ at the first step; Levenberg-Marquardt adapts it after each
    lanczos_steps: int = 30  # SLQ: Lanczos steps per start (one H v each)
    starts: int = 10  # SLQ: random starts (each a Rademacher vector over √n)
    width: float = 0.01  # SLQ: the Gaussian's σ, as a fraction of the Ritz values' range


# %% The function: the page writes the one typed in its box here, in PyTorch
NAMES = ("x", "y", "z")  # its variables, in the order of w


def f(w):  # w: the point, a float64 tensor of shape (len(NAMES),)
    x, y, z = w[0], w[1], w[2]
    return (((x**2) * y) + torch.sin(x * y)) + ((z**3) * x)


# %% The network: two moons, 2-hidden-2 tanh, every weight in one flat vector θ
def training_data() -> tuple[torch.Tensor, torch.Tensor]:
    """The 400 training points of 500 noisy two moons (standardised, in a fixed order from
    torch.Generator(0), the first 80 %): x (float64, 400 x 2) and the labels y (0 or 1)."""
    from sklearn.datasets import make_moons  # made by scikit-learn: no download

    x, y = make_moons(n_samples=500, noise=0.2, random_state=0)
    x = (x - x.mean(axis=0)) / x.std(axis=0)
    order = torch.randperm(len(y), generator=torch.Generator().manual_seed(0)).numpy()
    x, y = torch.tensor(x[order], dtype=torch.float64), torch.tensor(y[order], dtype=torch.long)
    return x[:400], y[:400]


def layer_blocks(sizes: tuple[int, ...]) -> list[tuple[int, int, int, int]]:
    """(start, stop) of each layer's weight matrix and then of its bias inside θ."""
    blocks, start = [], 0
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:], strict=True):
        middle = start + fan_out * fan_in
        blocks.append((start, middle, middle, middle + fan_out))
        start = middle + fan_out
    return blocks


def forward(theta: torch.Tensor, sizes: tuple[int, ...], x: torch.Tensor) -> torch.Tensor:
    """The MLP's logits; the weights are views into the flat θ, so gradients land in θ."""
    h = x  # (examples, sizes[0])
    for k, (w0, w1, b0, b1) in enumerate(layer_blocks(sizes)):
        weight = theta[w0:w1].view(sizes[k + 1], sizes[k])  # (fan_out, fan_in)
        h = torch.addmm(theta[b0:b1], h, weight.T)  # (examples, fan_out)
        if k < len(sizes) - 2:
            h = torch.tanh(h)  # smooth, so the Hessian is not mostly zeros as with ReLU
    return h


def train(hidden: int, steps: int, seed: int) -> tuple[tuple[int, ...], torch.Tensor]:
    """The network's sizes and θ after ``steps`` Adam steps (lr 0.01, torch's betas and eps) on
    mini-batches of 128, from W ~ N(0, 1/fan_in), b = 0, all drawn from torch.Generator(seed)."""
    sizes = (2, hidden, 2)
    x, y = training_data()
    gen = torch.Generator().manual_seed(int(seed))
    parts = []
    for k, (w0, w1, b0, b1) in enumerate(layer_blocks(sizes)):
        scale = 1.0 / math.sqrt(sizes[k])
        parts.append(torch.randn(w1 - w0, generator=gen, dtype=torch.float64) * scale)
        # the biases are drawn too, then zeroed: the draws are those of hograd's network page
        parts.append(torch.randn(b1 - b0, generator=gen, dtype=torch.float64) * 0.0)
    theta = torch.cat(parts).requires_grad_(True)
    lr, b1, b2, eps = 0.01, 0.9, 0.999, 1e-8
    m, v = torch.zeros_like(theta), torch.zeros_like(theta)  # Adam's running moments
    for t in range(1, steps + 1):
        idx = torch.randint(0, len(y), (128,), generator=gen)
        (g,) = torch.autograd.grad(F.cross_entropy(forward(theta, sizes, x[idx]), y[idx]), theta)
        # Adam's step, torch.optim.Adam's arithmetic written out: torch.optim's first use
        # imports torch._dynamo (about a second), too much for a server's two-layer network
        with torch.no_grad():
            m.lerp_(g, 1 - b1)
            v.mul_(b2).addcmul_(g, g, value=1 - b2)
            denom = (v.sqrt() / (1 - b2**t) ** 0.5).add_(eps)
            theta.addcdiv_(m, denom, value=-lr / (1 - b1**t))
    return sizes, theta.detach()


def network_function(hidden: int, steps: int, seed: int) -> tuple[Callable, torch.Tensor]:
    """The loss of a small trained network as a function of its flat weights θ (the mean
    cross-entropy on the 400 training points), and θ."""
    model, loss, theta = network_model(hidden, steps, seed)
    return (lambda th: loss(model(th))), theta


# %% The diagonal, exact and estimated, with what each costs
def hessian_product(f: Callable, w: torch.Tensor) -> Callable:
    """v ↦ H v, reverse over reverse: ∇(∇f·v) = H v."""
    return lambda v: grad(lambda x: grad(f)(x) @ v)(w)


def hessian_product_autograd(f: Callable, w: torch.Tensor) -> Callable:
    """The same v ↦ H v with torch.autograd: the gradient recorded (create_graph=True) once,
    then one more backward through it per product. Not vmapped: one product at a time."""
    x = w.detach().requires_grad_(True)
    (g,) = torch.autograd.grad(f(x), x, create_graph=True)  # <-- ∇f, recorded: H v = ∇(∇f·v)
    return lambda v: torch.autograd.grad(g @ v, x, retain_graph=True)[0].detach()


def hessian_rows(f: Callable, w: torch.Tensor, autograd: bool = False) -> Callable:
    """vs (k, n) ↦ the k products H vᵢ as rows: ``vmap`` over :func:`hessian_product`,
    ``CHUNK`` at a time, or (``autograd``) one backward pass of
    :func:`hessian_product_autograd` per row."""
    if autograd:
        product = hessian_product_autograd(f, w)
        return lambda vs: torch.stack([product(v) for v in vs])
    return lambda vs: vmap(hessian_product(f, w), chunk_size=CHUNK)(vs).detach()


def gradient_of(f: Callable, w: torch.Tensor, autograd: bool = False) -> torch.Tensor:
    """∇f(w): ``grad(f)(w)``, or one ``torch.autograd.grad`` (``autograd``)."""
    if autograd:
        x = w.detach().requires_grad_(True)
        return torch.autograd.grad(f(x), x)[0]
    return grad(f)(w).detach()


def exact_diagonal(f: Callable, w: torch.Tensor, autograd: bool = False) -> torch.Tensor:
    """diag(H) from the n products H eᵢ (column i of H), vmapped ``CHUNK`` at a time: as many
    products as the whole Hessian takes; what it saves is memory (n numbers kept)."""
    eye = torch.eye(w.numel(), dtype=w.dtype)
    return hessian_rows(f, w, autograd)(eye).diagonal()  # row i: H eᵢ


def hutchinson_diagonal(
    f: Callable, w: torch.Tensor, probes: int, seed: int, autograd: bool = False
) -> torch.Tensor:
    """The samples z ⊙ Hz, shape (probes, n), z of independent ±1 entries drawn from
    torch.Generator(seed): E[z ⊙ Hz] = diag(H), since (z ⊙ Hz)ᵢ = Hᵢᵢ + Σ_{j≠i} Hᵢⱼ zᵢzⱼ and
    E[zᵢzⱼ] = 0 for j ≠ i. One product per probe, whatever n is."""
    gen = torch.Generator().manual_seed(int(seed))
    z = torch.randint(0, 2, (probes, w.numel()), generator=gen).to(w.dtype) * 2 - 1
    hz = hessian_rows(f, w, autograd)(z)  # (probes, n)
    return z * hz


def hutchinson_variance(hessian: np.ndarray) -> np.ndarray:
    """The variance of one sample (z ⊙ Hz)ᵢ: Σ_{j≠i} Hᵢⱼ² (H symmetric); zero for diagonal H."""
    h = np.asarray(hessian, dtype=np.float64)
    return (h**2).sum(axis=1) - np.diagonal(h) ** 2


def full_hessian(f: Callable, w: torch.Tensor, autograd: bool = False) -> torch.Tensor:
    """torch.func.hessian (jacfwd of jacrev): all n² entries; or (``autograd``)
    torch.autograd.functional.hessian, which differentiates a gradient recorded with
    create_graph=True once per row."""
    if autograd:
        return torch.autograd.functional.hessian(f, w.detach())
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
    f: Callable,
    w: torch.Tensor,
    names: tuple[str, ...],
    config: DiagonalConfig,
    autograd: bool = False,
) -> DiagonalStudy:
    """The exact diagonal, the whole Hessian and Hutchinson's estimate of f at w."""
    exact = exact_diagonal(f, w, autograd).numpy()  # <-- n products H eᵢ, vmapped
    hessian = full_hessian(f, w, autograd).detach().numpy()
    runs = np.stack(
        [
            hutchinson_diagonal(f, w, config.probes, config.seed + r, autograd).numpy()
            for r in range(config.repeats)
        ]
    )  # <-- (repeats, probes, n): z ⊙ Hz
    k = np.arange(1, config.probes + 1)
    # a Hessian that is not finite at w (sqrt(x) at 0) gives NaN below, not an error
    with np.errstate(invalid="ignore", over="ignore"):
        return _summary(f, w, names, config, exact, hessian, runs, k, autograd)


def _summary(f, w, names, config, exact, hessian, runs, k, autograd=False) -> DiagonalStudy:
    """The errors, the closed form, the first repeat's estimate and the three timings."""
    running = np.cumsum(runs, axis=1) / k[None, :, None]  # the estimate after k probes
    errors = np.linalg.norm(running - exact, axis=2)  # (repeats, probes)
    rms = np.sqrt((errors**2).mean(axis=0))
    predicted = np.sqrt(hutchinson_variance(hessian).sum() / k)  # <-- falls like 1/√k
    first = runs[0]
    spread = (
        first.std(axis=0, ddof=1) / math.sqrt(config.probes)
        if config.probes > 1
        else (np.full(len(names), np.nan))
    )
    seconds = _medians(
        [
            lambda: exact_diagonal(f, w, autograd),
            lambda: full_hessian(f, w, autograd),
            lambda: hutchinson_diagonal(f, w, config.probes, config.seed, autograd),
        ]
    )
    n = w.numel()
    return DiagonalStudy(
        names,
        exact,
        hessian,
        first.mean(axis=0),
        spread,
        rms,
        predicted,
        (n, n, config.probes),
        seconds,
    )


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
        eigenvalues, eigenvectors: of the quadratic's Hessian (numpy's eigh), ascending.
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


def quadratic(kappa: float) -> Callable[[torch.Tensor], torch.Tensor]:
    """((x+y)² + κ(y−x)²)/4 of w = (x, y): eigenvalues 1 along (1, 1) and κ along (1, −1)."""

    def bowl(w: torch.Tensor) -> torch.Tensor:
        x, y = w[0], w[1]
        return (((x + y) ** 2) + (kappa * ((y - x) ** 2))) / 4

    return bowl


def momentum(config: MomentumConfig, autograd: bool = False) -> MomentumRun:
    """Run heavy ball (β) and plain descent (β = 0) and their closed forms."""
    bowl = quadratic(config.kappa)
    h = full_hessian(bowl, torch.tensor(config.start, dtype=torch.float64), autograd).numpy()
    lams, q = np.linalg.eigh((h + h.T) / 2)  # the eigenvectors, as the columns of q

    def gradient(x: torch.Tensor) -> torch.Tensor:
        t = x.clone().requires_grad_(True)
        return torch.autograd.grad(bowl(t), t)[0]

    def value(x: torch.Tensor) -> float:
        return float(bowl(x))

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
        config,
        lams,
        q,
        comps,
        closed,
        losses,
        rates,
        2 * (1 + config.beta) / hi,
        diverged,
        (2 / (math.sqrt(hi) + math.sqrt(lo))) ** 2,
        ((root - 1) / (root + 1)) ** 2,
        (root - 1) / (root + 1),
        (hi / lo - 1) / (hi / lo + 1),
    )


# %% Gauss-Newton against the Hessian: G v = Jᵀ H_loss J v, from a jvp and a vjp
def network_model(hidden: int, steps: int, seed: int) -> tuple[Callable, Callable, torch.Tensor]:
    """The trained network split in two: θ ↦ logits (400 x 2) and logits ↦ mean cross-entropy,
    and θ. Their composition is :func:`network_function`'s loss."""
    sizes, theta = train(hidden, steps, seed)
    x, y = training_data()
    return (lambda th: forward(th, sizes, x)), (lambda out: F.cross_entropy(out, y)), theta


def ggn_product(model: Callable, loss: Callable, w: torch.Tensor) -> Callable:
    """v ↦ G v = Jᵀ H_loss J v at w (J: ∂model/∂θ, H_loss: ∇² of loss in the outputs).

    J v is a jvp (forward), H_loss (J v) a jvp of loss's gradient at the outputs, Jᵀ(...) a vjp
    (backward): three passes, no n x n matrix. G drops the term Σ ∂loss/∂outₖ ∇²outₖ that H
    has, so G is positive semi-definite whenever the loss is convex in the outputs
    (cross-entropy, squared error), and equals H when the model is linear in θ."""
    out, pullback = torch.func.vjp(model, w)
    gradient = torch.func.grad(loss)

    def product(v: torch.Tensor) -> torch.Tensor:
        jv = torch.func.jvp(model, (w,), (v,))[1]  # J v: how the outputs move along v
        hjv = torch.func.jvp(gradient, (out,), (jv,))[1]  # H_loss J v
        return pullback(hjv)[0]  # Jᵀ H_loss J v

    return product


def ggn_product_autograd(model: Callable, loss: Callable, w: torch.Tensor) -> Callable:
    """The same v ↦ G v with torch.autograd only: three backward passes through graphs kept
    with create_graph=True. J v is the backward of Jᵀu in u (Jᵀu is linear in u, so its
    derivative along v is J v), H_loss (J v) a backward through the recorded ∇loss, Jᵀ(...)
    an ordinary backward through the model."""
    x = w.detach().requires_grad_(True)
    out = model(x)
    u = torch.zeros_like(out, requires_grad=True)
    (jtu,) = torch.autograd.grad(out, x, u, create_graph=True)  # <-- Jᵀu, recorded in u
    logits = out.detach().requires_grad_(True)
    (g_out,) = torch.autograd.grad(loss(logits), logits, create_graph=True)  # <-- ∇loss

    def product(v: torch.Tensor) -> torch.Tensor:
        (jv,) = torch.autograd.grad(jtu, u, v, retain_graph=True)  # J v
        (hjv,) = torch.autograd.grad(g_out, logits, jv, retain_graph=True)  # H_loss J v
        return torch.autograd.grad(out, x, hjv, retain_graph=True)[0]  # Jᵀ H_loss J v

    return product


def matrix_of(product: Callable, n: int, autograd: bool = False) -> np.ndarray:
    """The n x n matrix of a linear map given by its products: column i = product(eᵢ),
    vmapped, or (``autograd``) one product after another."""
    if autograd:
        eye = torch.eye(n, dtype=torch.float64)
        return torch.stack([product(e).detach() for e in eye]).numpy().T.copy()
    with warnings.catch_warnings():  # torch's first jvp loads decompositions via torch.jit.script
        warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated", DeprecationWarning)
        eye = torch.eye(n, dtype=torch.float64)
        return torch.func.vmap(product, chunk_size=16)(eye).detach().numpy().T.copy()


@dataclass(frozen=True)
class HFRun:
    """Hessian-free minimisation: per step, CG on (B + λI) d = −∇f, then Levenberg-Marquardt.

    Attributes:
        curvature: "ggn" (B = G) or "hessian" (B = H).
        losses: f after each step (losses[0]: the start).
        dampings: λ used in each step; cg_iterations: CG iterations of each step.
        negative: per step, CG met dᵀ(B + λI)d ≤ 0 and stopped there (only B = H can).
        ratios: per step, ρ = (actual decrease) / (decrease the quadratic model predicted).
        products: B v products used in all.
    """

    curvature: str
    losses: np.ndarray
    dampings: np.ndarray
    cg_iterations: np.ndarray
    negative: np.ndarray
    ratios: np.ndarray
    products: int


def conjugate_gradient(
    product: Callable, b: torch.Tensor, x0: torch.Tensor, iterations: int, tol: float = 1e-10
) -> tuple[torch.Tensor, int, bool]:
    """Solve A x = b from x0 by CG, A given by its products. Returns (x, iterations, met
    negative curvature): CG stops at a direction p with pᵀAp ≤ 0, where A is not positive
    definite and the quadratic has no minimum, returning the iterate before it."""
    x = x0.clone()
    r = b - product(x)
    p, rr = r.clone(), r @ r
    for k in range(iterations):
        ap = product(p)
        curv = p @ ap
        if curv <= 0:
            return x, k + 1, True  # <-- negative curvature: no minimum along p
        alpha = rr / curv
        x, r = x + alpha * p, r - alpha * ap
        rr_new = r @ r
        if rr_new <= tol * tol * (b @ b):
            return x, k + 1, False
        p, rr = r + (rr_new / rr) * p, rr_new
    return x, iterations, False


def hessian_free(
    model: Callable,
    loss: Callable,
    w: torch.Tensor,
    config: NetworkCurvatureConfig,
    curvature: str,
    autograd: bool = False,
) -> HFRun:
    """Martens (2010)'s Hessian-free on f = loss ∘ model from w, with B = G or B = H.

    Each step solves (B + λI) d = −∇f by CG (at most ``cg_iterations`` products), started from
    the last step's d times 0.95 (Martens' warm start); ρ = (f(w + d) − f(w)) / (∇fᵀd + ½ dᵀBd)
    then sets λ: ×3/2 when ρ < 1/4, ×2/3 when ρ > 3/4; the step is taken only if f falls.
    With B = H and no damping CG may meet negative curvature and stop early: the quadratic
    model has no minimum there. Martens' backtracking over CG's iterates is left out."""

    def f(x: torch.Tensor) -> torch.Tensor:
        return loss(model(x))

    lam, d = config.damping, torch.zeros_like(w)
    losses, dampings, iters, negative, ratios, products = [float(f(w))], [], [], [], [], 0
    for _ in range(config.hf_iterations):
        g = gradient_of(f, w, autograd)
        b = (
            (ggn_product_autograd if autograd else ggn_product)(model, loss, w)
            if curvature == "ggn"
            else (hessian_product_autograd if autograd else hessian_product)(f, w)
        )
        d, k, neg = conjugate_gradient(
            lambda v, b=b, lam=lam: b(v) + lam * v, -g, 0.95 * d, config.cg_iterations
        )
        if neg and k == 1:
            d = -g / (g @ g).sqrt()  # negative at once: steepest descent, unit length
        bd = b(d)
        products += k + 2  # CG's products, its first residual and B d
        predicted = float(g @ d + 0.5 * d @ bd)
        new = float(f(w + d))
        rho = (new - losses[-1]) / predicted if predicted < 0 else math.nan
        dampings.append(lam)
        lam = lam * 1.5 if not rho >= 0.25 else lam * 2 / 3 if rho > 0.75 else lam
        if new < losses[-1]:
            w = (w + d).detach()
        else:
            d = torch.zeros_like(w)  # rejected: the next solve starts again from 0
        losses.append(min(new, losses[-1]))
        iters.append(k)
        negative.append(neg)
        ratios.append(rho)
    return HFRun(
        curvature,
        np.array(losses),
        np.array(dampings),
        np.array(iters),
        np.array(negative),
        np.array(ratios),
        products,
    )


# %% The Hessian's spectral density by stochastic Lanczos quadrature (PyHessian's method)
def lanczos(product: Callable, v0: torch.Tensor, steps: int) -> tuple[np.ndarray, np.ndarray]:
    """``steps`` Lanczos steps from v0 (‖v0‖ = 1), each new vector orthogonalised against all
    the earlier ones (full reorthogonalisation: in floating point plain Lanczos loses
    orthogonality and repeats the outlying eigenvalues). Returns (α, β) of the tridiagonal T:
    its diagonal (steps) and off-diagonal (steps − 1); fewer if the Krylov space closes."""
    vs, alphas, betas = [v0], [], []
    for k in range(steps):
        w = product(vs[k])
        alpha = w @ vs[k]
        alphas.append(float(alpha))
        basis = torch.stack(vs)  # (k + 1, n)
        w = w - basis.T @ (basis @ w)  # <-- against every earlier vector ...
        w = w - basis.T @ (basis @ w)  # ... twice: one Gram-Schmidt pass leaves ~1e-8
        beta = float(w.norm())
        if k == steps - 1 or beta < 1e-12:
            break
        betas.append(beta)
        vs.append(w / beta)
    return np.array(alphas), np.array(betas)


def quadrature(alphas: np.ndarray, betas: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Gauss quadrature from T: nodes θₖ (T's eigenvalues) and weights τₖ (the squared first
    entries of its eigenvectors), so that v0ᵀ p(H) v0 = Σ τₖ p(θₖ) exactly for every polynomial p
    of degree up to 2·steps − 1."""
    t = np.diag(alphas) + np.diag(betas, 1) + np.diag(betas, -1)
    nodes, vectors = np.linalg.eigh(t)
    return nodes, vectors[0] ** 2


def gaussian_density(grid: np.ndarray, nodes: np.ndarray, weights: np.ndarray, sigma: float):
    """Σ weightᵢ N(grid; nodeᵢ, σ²): eigenvalues smoothed into a density."""
    z = (grid[:, None] - nodes[None, :]) / sigma
    return (np.exp(-0.5 * z * z) @ weights) / (sigma * math.sqrt(2 * math.pi))


@dataclass(frozen=True)
class Regions:
    """What the density chart names, read from SLQ's nodes and weights (pooled over starts).

    Attributes:
        bulk: (low, high), the connected stretch around the density's peak where it stays above
            1% of that peak.
        outliers: SLQ's nodes above the bulk, one per cluster (they recur in every start:
            Lanczos finds the extreme eigenvalues first), descending.
        negative_mass: the weight below 0, SLQ's estimate of the fraction of negative
            eigenvalues.
    """

    bulk: tuple[float, float]
    outliers: tuple[float, ...]
    negative_mass: float


def regions(grid: np.ndarray, density: np.ndarray, nodes: np.ndarray, weights: np.ndarray):
    """The bulk, the outliers and the negative mass of an SLQ density."""
    peak = int(np.argmax(density))
    above = density > 0.01 * density[peak]
    lo, hi = peak, peak
    while lo > 0 and above[lo - 1]:
        lo -= 1
    while hi < len(grid) - 1 and above[hi + 1]:
        hi += 1
    x, w = nodes.ravel(), weights.ravel() / weights.sum()
    outliers: list[float] = []
    for value in sorted(x[(x > grid[hi]) & (w > 1e-6)], reverse=True):
        if not outliers or outliers[-1] - value > 1e-3 * abs(value):  # a new cluster
            outliers.append(float(value))
    return Regions((float(grid[lo]), float(grid[hi])), tuple(outliers), float(w[x < 0].sum()))


@dataclass(frozen=True)
class Spectra:
    """G and H of the trained network, exactly, and H's density by SLQ beside the exact one.

    Attributes:
        ggn, hessian: the eigenvalues of G and H (numpy eigvalsh of the n x n matrices made from
            n products each), ascending.
        nodes, weights: per start (starts x steps), SLQ's quadrature nodes and weights.
        grid, density, exact_density: the x axis, SLQ's density (the mean over the starts of
            Σ τₖ N(θₖ, σ²)) and the exact one ((1/n) Σᵢ N(λᵢ, σ²)), same σ.
        sigma: the Gaussian's width; l1_error: ∫|density − exact_density|.
        trace, trace_sq: SLQ's estimates of tr(H) and tr(H²) (n Σ τₖ θₖ, n Σ τₖ θₖ² averaged
            over the starts); trace_exact, trace_sq_exact: the same from H's eigenvalues.
        trace_sd, trace_sq_sd: their standard errors from the Rademacher variance, 2 Σ_{i≠j} Aᵢⱼ²
            per start for A = H and A = H², over the starts.
        regions: the bulk, outliers and negative mass SLQ's density shows.
        hf: the Hessian-free runs on G and on H.
        products: (G's matrix, H's matrix, SLQ) H v or G v products.
    """

    ggn: np.ndarray
    hessian: np.ndarray
    nodes: np.ndarray
    weights: np.ndarray
    grid: np.ndarray
    density: np.ndarray
    exact_density: np.ndarray
    sigma: float
    l1_error: float
    trace: float
    trace_sq: float
    trace_exact: float
    trace_sq_exact: float
    trace_sd: float
    trace_sq_sd: float
    regions: Regions
    hf: tuple[HFRun, HFRun]
    products: tuple[int, int, int]


def slq(product: Callable, n: int, steps: int, starts: int, seed: int):
    """SLQ's nodes and weights, (starts, steps) each, from Rademacher starts z/√n."""
    gen = torch.Generator().manual_seed(int(seed))
    nodes, weights = [], []
    for _ in range(starts):
        z = torch.randint(0, 2, (n,), generator=gen).to(torch.float64) * 2 - 1
        theta, tau = quadrature(*lanczos(product, z / math.sqrt(n), min(steps, n)))
        nodes.append(np.pad(theta, (0, steps - len(theta))))  # a closed Krylov space: weight 0
        weights.append(np.pad(tau, (0, steps - len(tau))))
    return np.array(nodes), np.array(weights)


def rademacher_sd(a: np.ndarray, starts: int) -> float:
    """The standard error of the mean of ``starts`` samples zᵀAz (z Rademacher, A symmetric):
    Var zᵀAz = 2 Σ_{i≠j} Aᵢⱼ²."""
    return math.sqrt(2 * ((a**2).sum() - (np.diagonal(a) ** 2).sum()) / starts)


def spectra(config: NetworkCurvatureConfig, autograd: bool = False) -> Spectra:
    """Train the network, take G and H whole and H's density by SLQ, and run Hessian-free."""
    model, loss, theta = network_model(config.hidden, config.train_steps, config.seed)
    n = theta.numel()

    def f(x: torch.Tensor) -> torch.Tensor:
        return loss(model(x))

    g_product = (ggn_product_autograd if autograd else ggn_product)(model, loss, theta)
    h_product = (hessian_product_autograd if autograd else hessian_product)(f, theta)
    g_matrix = matrix_of(g_product, n, autograd)  # n products G eᵢ: J v, H_loss (J v), Jᵀ(...)
    h_matrix = matrix_of(h_product, n, autograd)  # n products H eᵢ
    h_matrix = (h_matrix + h_matrix.T) / 2  # exact up to rounding; eigvalsh reads one half
    lam_h = np.linalg.eigvalsh(h_matrix)
    nodes, weights = slq(h_product, n, config.lanczos_steps, config.starts, config.seed)
    lo, hi = float(nodes.min()), float(nodes.max())
    sigma = config.width * (hi - lo)
    grid = np.linspace(lo - 6 * sigma, hi + 6 * sigma, 2001)
    density = np.mean(
        [gaussian_density(grid, th, tau, sigma) for th, tau in zip(nodes, weights, strict=True)],
        axis=0,
    )
    exact = gaussian_density(grid, lam_h, np.full(n, 1 / n), sigma)
    l1 = float(np.abs(density - exact).sum() * (grid[1] - grid[0]))
    start = network_model(config.hidden, 1, config.seed)  # one Adam step from the start
    hf = tuple(hessian_free(*start, config, c, autograd) for c in ("ggn", "hessian"))
    return Spectra(
        np.linalg.eigvalsh(g_matrix),
        lam_h,
        nodes,
        weights,
        grid,
        density,
        exact,
        sigma,
        l1,
        float(n * (weights * nodes).sum(axis=1).mean()),
        float(n * (weights * nodes**2).sum(axis=1).mean()),
        float(lam_h.sum()),
        float((lam_h**2).sum()),
        rademacher_sd(h_matrix, config.starts),
        rademacher_sd(h_matrix @ h_matrix, config.starts),
        regions(grid, density, nodes, weights),
        hf,
        (n, n, config.starts * min(config.lanczos_steps, n)),
    )


# %% Every part at once
@dataclass(frozen=True)
class CurvatureConfig:
    """The three parts' settings: the diagonal (of f's Hessian and the network's), momentum on
    a quadratic, and the network's Gauss-Newton, spectrum and Hessian-free runs."""

    diagonal: DiagonalConfig = DiagonalConfig()
    momentum: MomentumConfig = MomentumConfig()
    network: NetworkCurvatureConfig = NetworkCurvatureConfig()


def run(
    config: CurvatureConfig,
    progress: Callable[[int, int], None] | None = None,
    autograd: bool = False,
) -> tuple[DiagonalStudy, DiagonalStudy, MomentumRun, Spectra]:
    """Every part of the tab, in the order it shows them; ``progress(done, 4)`` after each.
    The page runs the same functions one part at a time (each cached on its own settings);
    ``autograd``: every product by torch.autograd.grad instead of torch.func."""
    d = config.diagonal
    parts = [
        lambda: study(f, torch.tensor(d.point, dtype=torch.float64), NAMES, d, autograd),
        lambda: study(*_network_point(d), d, autograd),
        lambda: momentum(config.momentum, autograd),
        lambda: spectra(config.network, autograd),
    ]
    out = []
    for done, part in enumerate(parts, start=1):
        out.append(part())
        if progress is not None:
            progress(done, len(parts))
    return tuple(out)


def _network_point(d: DiagonalConfig) -> tuple[Callable, torch.Tensor, tuple[str, ...]]:
    loss, theta = network_function(d.hidden, d.train_steps, d.seed)
    return loss, theta, tuple(f"θ{i}" for i in range(theta.numel()))


# %% What the page shows, one "name value ..." line each
def report(typed: DiagonalStudy, net_study: DiagonalStudy, run: MomentumRun, sp: Spectra) -> None:
    """Print the numbers the tab shows (seconds vary from run to run, the rest does not)."""
    for name, s in (("typed", typed), ("network", net_study)):
        print(name + "_exact", *s.exact.tolist()[:10])
        print(name + "_estimate", *s.estimate.tolist()[:10])
        print(name + "_products", *s.products)
        print(name + "_seconds", *s.seconds)
        print(name + "_rms_error_last", s.rms_error[-1], "predicted", s.predicted[-1])
    print("momentum_rates", *run.rates["momentum"], "gd_rates", *run.rates["gd"])
    print("limit", run.limit, "best", run.best_lr, run.best_beta, run.best_rate)
    print("momentum_loss_last", run.losses["momentum"][-1], "gd_loss_last", run.losses["gd"][-1])
    print("ggn_min_eigenvalue", sp.ggn[0], "hessian_min_eigenvalue", sp.hessian[0])
    print("hessian_negative_eigenvalues", int((sp.hessian < 0).sum()), "of", len(sp.hessian))
    print("slq_density_l1_error", sp.l1_error, "sigma", sp.sigma)
    print("bulk", *sp.regions.bulk, "outliers", *sp.regions.outliers)
    print("negative_mass", sp.regions.negative_mass)
    print("slq_trace", sp.trace, "exact", sp.trace_exact, "standard_error", sp.trace_sd)
    print("slq_trace_sq", sp.trace_sq, "exact", sp.trace_sq_exact, "standard_error", sp.trace_sq_sd)
    for hf in sp.hf:
        print(f"hf_{hf.curvature}_losses", *hf.losses.tolist())
        print(f"hf_{hf.curvature}_negative_stops", int(hf.negative.sum()))


# %% Run it
if __name__ == "__main__":
    # the settings: the page's download writes its own on the next three lines (and f above)
    diagonal = DiagonalConfig()
    momentum_config = MomentumConfig()
    network_config = NetworkCurvatureConfig()
    autograd = False  # or True: the same products by torch.autograd.grad (create_graph=True)
    torch.set_num_threads(1)  # tensors this small: a second thread only adds waiting
    typed, net_study, momentum_run, spectra_run = run(
        CurvatureConfig(diagonal, momentum_config, network_config), autograd=autograd
    )
    report(typed, net_study, momentum_run, spectra_run)
