"""The stability limit of gradient descent: lr against 2/λ_max, on a quadratic and a network.

On a quadratic f = ½θᵀAθ, one gradient-descent step multiplies the component of θ along an
eigenvector of A (eigenvalue λ) by (1 − lr·λ). That shrinks exactly when |1 − lr·λ| < 1, for
every eigenvalue when lr < 2/λ_max; above 2/λ_max the top component grows every step. The
sharpness λ_max is found with Lanczos from Hessian-vector products only::

    g  = grad(f(θ), θ, create_graph=True)     # the gradient, its graph kept
    Hv = grad(g @ v, θ, retain_graph=True)     # H v: one more backward through it

A network's loss is not a quadratic, and its sharpness changes as it trains. Under full-batch
gradient descent it typically rises until it reaches about 2/lr and then hovers there while
the loss keeps falling, unevenly: the "edge of stability" (Cohen et al., 2021).

This file is the experiment of hograd's stability tab, whole: the page runs it (the quadratic
with :func:`run_quadratic`, the network with :func:`run`), and its download is this file with
the page's settings on the line under ``if __name__ == "__main__":``. Run it (``python
stability.py``) and it prints what the page shows, one ``name value ...`` line each. It needs
torch, numpy and scikit-learn (for the data sets, bundled with it: no download). The ``# %%``
lines cut it into a notebook's cells.
"""

# %% Settings
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from torch.func import grad, grad_and_value, jvp

__all__ = [
    "DATASETS",
    "START",
    "NetStability",
    "QuadraticRun",
    "StabilityConfig",
    "grad_and_hvp",
    "grad_and_hvp_func",
    "initial_parameters",
    "lanczos",
    "load_data",
    "mlp_loss",
    "network_sizes",
    "quadratic_loss",
    "report",
    "report_quadratic",
    "run",
    "run_quadratic",
]

DATASETS = ("digits", "moons")  # 1,797 8x8 images (10 classes); 500 2-D points (2 classes)
START = (2.0, 1.0)  # where gradient descent on the quadratic starts
LANCZOS_START = 40  # HVPs of the careful λ_max at the network's start (lambda0)


@dataclass(frozen=True)
class StabilityConfig:
    # the quadratic ((x+y)² + κ(y−x)²)/4: gradient descent from START
    kappa: float = 10.0  # κ: the Hessian's eigenvalues are 1 and κ, so 2/λ_max = 2/κ
    quadratic_lr: float = 0.19  # its learning rate: stable below 2/κ = 0.2
    quadratic_steps: int = 200
    # the network: full-batch gradient descent, its sharpness measured along the way
    dataset: str = "moons"  # "moons" or "digits"
    hidden: tuple[int, ...] = (16, 16)  # widths of the tanh hidden layers
    lr: float = 0.5
    steps: int = 500
    every: int = 20  # measure the sharpness every this many steps
    lanczos_iters: int = 12  # HVPs per measurement (warm-started from the last top vector)
    seed: int = 0  # initial weights and Lanczos's first vector (torch.Generator)


# %% Lanczos: the top eigenvalue of H, seen only through Hessian-vector products
def lanczos(hvp, v0, iters):
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


# %% One step's derivatives: the gradient, and H v only where the sharpness is measured
def grad_and_hvp(f, w, measure):
    """(f(w), ∇f(w), and v ↦ H v or None) by autograd. Gradient descent needs the gradient
    only; H v needs the gradient's own graph, kept only when ``measure`` asks for it."""
    t = w.clone().requires_grad_(True)
    value = f(t)
    (g,) = torch.autograd.grad(value, t, create_graph=measure)  # <-- kept only to measure
    if not measure:
        return value.detach(), g, None
    hvp = lambda v: torch.autograd.grad(g @ v, t, retain_graph=True)[0]  # <-- H v: backward again
    return value.detach(), g.detach(), hvp


def grad_and_hvp_func(f, w, measure):
    """:func:`grad_and_hvp` by function transforms: ∇f is ``grad(f)``, and H v is
    ``jvp(grad(f), (w,), (v,))``, forward mode through the gradient function. torch.func has
    no ``create_graph`` flag: each H v transforms f afresh."""
    g, value = grad_and_value(f)(w)
    hvp = (lambda v: jvp(grad(f), (w,), (v,))[1]) if measure else None
    return value, g, hvp


# %% The quadratic: gradient descent against 2/λ_max
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


def quadratic_loss(kappa: float) -> Callable[[torch.Tensor], torch.Tensor]:
    """f(w) = ((x+y)² + κ(y−x)²)/4 at w = (x, y): eigenvalues 1 along (1, 1), κ along (1, −1)."""

    def f(w: torch.Tensor) -> torch.Tensor:
        x, y = w[0], w[1]
        return ((x + y) ** 2 + kappa * (y - x) ** 2) / 4

    return f


def _first_rise(parts: tuple[float, float], factors: tuple[float, float]) -> int | None:
    """The first step k > 0 with f_k > f_0, where f_k = Σ parts[i]·factors[i]^(2k) (the
    quadratic's f along its eigenvectors), or None if f never rises above f_0.

    f_k is a sum of exponentials in k, so it is convex: once above f_0 it stays above. Found by
    doubling then bisection on log f_k (no overflow however large k is)."""
    start = sum(parts)

    def log_f(k: int) -> float:
        logs = [
            math.log(p) + 2 * k * math.log(r)
            for p, r in zip(parts, factors, strict=True)
            if p > 0 and r > 0
        ]
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


def run_quadratic(config: StabilityConfig, derivatives: Callable = grad_and_hvp) -> QuadraticRun:
    """Gradient descent with ``config.quadratic_lr`` on the κ quadratic from :data:`START`,
    λ_max from 2 Lanczos steps at the start (exact: the Hessian is 2x2).

    Args:
        config: kappa, quadratic_lr and quadratic_steps are read.
        derivatives: :func:`grad_and_hvp`, or :func:`grad_and_hvp_func` (torch.func).
    """
    kappa, lr = config.kappa, config.quadratic_lr
    f = quadratic_loss(kappa)
    w = torch.tensor(START, dtype=torch.float64)
    value, g, hvp = derivatives(f, w, True)
    calls = []

    def counted(v: torch.Tensor) -> torch.Tensor:
        calls.append(1)
        return hvp(v)

    tops, _ = lanczos(counted, torch.tensor([1.0, 0.3], dtype=torch.float64), 2)
    points, losses, status = [w.numpy().copy()], [float(value)], "shrinks"
    for _ in range(config.quadratic_steps):
        new = w - lr * g  # <-- gradient descent itself is first order
        value, g, _ = derivatives(f, new, False)
        if not (math.isfinite(float(value)) and bool(torch.isfinite(new).all())):
            status = "diverged"
            break
        w = new
        points.append(w.numpy().copy())
        losses.append(float(value))
    if status != "diverged":
        status = "shrinks" if losses[-1] < losses[0] else "grows"
    factors = (abs(1 - lr), abs(1 - lr * kappa))
    top = max(factors)
    regime = "edge" if abs(top - 1) <= 1e-12 else "stable" if top < 1 else "unstable"
    # f = ½(1·a² + κ·b²) with a, b the parts of θ along (1, 1)/√2 and (−1, 1)/√2
    a, b = (START[0] + START[1]) / math.sqrt(2), (START[1] - START[0]) / math.sqrt(2)
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
        kappa,
        lr,
        tops[-1],
        len(calls),
        np.array(points),
        np.array(losses),
        status,
        factors,
        regime,
        verdict,
        regrows_at,
    )


# %% The network: the data, every weight in one flat vector θ, the loss as a function of θ
def load_data(dataset: str) -> tuple[torch.Tensor, torch.Tensor]:
    """The training 80 % of ``dataset`` (a fixed split, torch.Generator(0)): x float64, y."""
    if dataset == "digits":
        from sklearn.datasets import load_digits  # bundled with scikit-learn: no download

        x, y = load_digits(return_X_y=True)
        x = x / 16.0  # pixel intensities 0..16 -> 0..1
    else:
        from sklearn.datasets import make_moons

        x, y = make_moons(n_samples=500, noise=0.2, random_state=0)
        x = (x - x.mean(axis=0)) / x.std(axis=0)
    order = torch.randperm(len(y), generator=torch.Generator().manual_seed(0)).numpy()
    cut = int(0.8 * len(y))
    return (
        torch.tensor(x[order], dtype=torch.float64)[:cut],
        torch.tensor(y[order], dtype=torch.long)[:cut],
    )


def network_sizes(config: StabilityConfig) -> tuple[int, ...]:
    """Widths from input to output: digits 64 pixels -> 10 classes, moons 2 -> 2."""
    inputs, classes = (64, 10) if config.dataset == "digits" else (2, 2)
    return (inputs, *config.hidden, classes)


def _blocks(sizes: tuple[int, ...]) -> list[tuple[int, int, int]]:
    """(start of W, start of b, end of b) of each layer inside θ: W1, b1, W2, b2, ..."""
    blocks, start = [], 0
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:], strict=False):
        blocks.append((start, start + fan_out * fan_in, start + fan_out * fan_in + fan_out))
        start = blocks[-1][2]
    return blocks


def initial_parameters(sizes: tuple[int, ...], seed: int) -> torch.Tensor:
    """θ: W ~ N(0, 1/fan_in), b = 0, from torch.Generator(seed)."""
    gen = torch.Generator().manual_seed(int(seed))
    parts = []
    for (w0, b0, b1), fan_in in zip(_blocks(sizes), sizes[:-1], strict=True):
        for size, scale in ((b0 - w0, 1.0 / math.sqrt(fan_in)), (b1 - b0, 0.0)):
            parts.append(torch.randn(size, generator=gen, dtype=torch.float64) * scale)
    return torch.cat(parts)


def mlp_loss(sizes: tuple[int, ...], x: torch.Tensor, y: torch.Tensor) -> Callable:
    """θ ↦ the cross-entropy of the tanh MLP on (x, y); its weights are views into θ."""
    blocks = _blocks(sizes)

    def loss(theta: torch.Tensor) -> torch.Tensor:
        h = x  # (examples, sizes[0])
        for k, (w0, b0, b1) in enumerate(blocks):
            weight = theta[w0:b0].view(sizes[k + 1], sizes[k])  # (fan_out, fan_in)
            h = torch.addmm(theta[b0:b1], h, weight.T)  # (examples, fan_out)
            if k < len(blocks) - 1:
                h = torch.tanh(h)  # smooth, so the Hessian is not mostly zeros as with ReLU
        return torch.nn.functional.cross_entropy(h, y)

    return loss


def saved_bytes(step: Callable[[], object]) -> int:
    """Bytes of the distinct storages autograd saves for backward while ``step()`` runs: every
    saved tensor passes through a ``saved_tensors_hooks`` pack hook, each storage counted once
    and kept alive until the count is done. For a gradient or an HVP nothing saved is freed
    before the last backward starts, so this is what its graphs hold at their largest."""
    storages: dict[int, torch.UntypedStorage] = {}

    def pack(tensor: torch.Tensor) -> torch.Tensor:
        storage = tensor.untyped_storage()
        storages.setdefault(storage.data_ptr(), storage)
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        step()
    return sum(storage.nbytes() for storage in storages.values())


def _medians(calls: dict[str, Callable[[], object]], rounds: int) -> dict[str, float]:
    """Median seconds of each call over ``rounds`` interleaved rounds (one call of each per
    round), so that a busy moment of the machine hits every call alike."""
    times: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(rounds):
        for name, call in calls.items():
            start = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - start)
    return {name: float(np.median(t)) for name, t in times.items()}


# %% Training by full-batch gradient descent, the sharpness measured along the way
@dataclass(frozen=True)
class NetStability:
    """Full-batch gradient descent on the small network, with its sharpness along the way.

    Attributes:
        losses: the loss before each step (and after the last), up to the first non-finite.
        sharpness_steps, sharpness: λ_max by Lanczos at those steps.
        lambda0: λ_max at the start (Lanczos, ``LANCZOS_START`` HVPs); 2/lambda0 is the largest
            learning rate that would be stable if the loss were the quadratic model there.
        status: "ok" or "diverged" (the loss stopped being finite at step ``len(losses) - 1``).
        hvps: HVPs used in all; grad_seconds, hvp_seconds as measured side by side (autograd).
        grad_saved_bytes, hvp_saved_bytes: memory the graphs of one gradient and of one HVP
            hold for backward at their largest (:func:`saved_bytes`), at the start.
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


def run(
    config: StabilityConfig,
    progress: Callable[[int, int], None] | None = None,
    derivatives: Callable = grad_and_hvp,
) -> NetStability:
    """Full-batch gradient descent on the network with the sharpness measured every
    ``config.every`` steps (Lanczos, warm-started from the previous top eigenvector).

    Args:
        config: the network fields are read (dataset ... seed).
        progress: called as ``progress(done, total)`` in steps, about 50 times in all.
        derivatives: :func:`grad_and_hvp`, or :func:`grad_and_hvp_func` (torch.func).
    """
    sizes = network_sizes(config)
    x, y = load_data(config.dataset)
    loss = mlp_loss(sizes, x, y)
    theta = initial_parameters(sizes, config.seed)
    n = theta.numel()
    hvps = [0]

    def counted(hvp: Callable) -> Callable:
        def count(v: torch.Tensor) -> torch.Tensor:
            hvps[0] += 1
            return hvp(v)

        return count

    # what one gradient and one HVP cost at the start, with autograd
    gen = torch.Generator().manual_seed(int(config.seed))
    v = torch.randn(n, generator=gen, dtype=torch.float64)
    t0 = theta.clone().requires_grad_(True)
    (g0,) = torch.autograd.grad(loss(t0), t0, create_graph=True)
    costs = _medians(
        {
            "grad": lambda: torch.autograd.grad(loss(t0), t0),
            "hvp": lambda: torch.autograd.grad(g0 @ v, t0, retain_graph=True),
        },
        15,
    )
    memory = {
        "grad": saved_bytes(lambda: torch.autograd.grad(loss(t0), t0)),
        "hvp": saved_bytes(
            lambda: torch.autograd.grad(
                torch.autograd.grad(loss(t0), t0, create_graph=True)[0] @ v, t0
            )
        ),
    }
    tops, v = lanczos(counted(derivatives(loss, theta, True)[2]), v, LANCZOS_START)
    lambda0 = tops[-1]

    start = time.perf_counter()
    losses, steps_at, sharpness, status = [], [], [], "ok"
    for step in range(config.steps + 1):
        measure = step % config.every == 0 and step < config.steps
        value, g, hvp = derivatives(loss, theta, measure)
        losses.append(float(value))
        if not math.isfinite(losses[-1]):
            status = "diverged"
            break
        if step == config.steps:
            break
        if measure:  # λ_max from H v: Lanczos, warm-started from the last top vector
            tops, v = lanczos(counted(hvp), v, config.lanczos_iters)
            steps_at.append(step)
            sharpness.append(tops[-1])
        theta = theta - config.lr * g  # <-- gradient descent itself is first order
        if progress is not None and (step + 1) % max(1, config.steps // 50) == 0:
            progress(step + 1, config.steps)
    return NetStability(
        config,
        n,
        np.array(losses),
        np.array(steps_at),
        np.array(sharpness),
        lambda0,
        status,
        hvps[0],
        costs["grad"],
        costs["hvp"],
        time.perf_counter() - start,
        memory["grad"],
        memory["hvp"],
    )


# %% What the page shows, one "name value ..." line each
def report_quadratic(run: QuadraticRun) -> None:
    """Print the quadratic's numbers: λ_max and the limit 2/λ_max, the verdict, f per step."""
    print("lambda_max", run.lambda_max, "stable_below", 2 / run.lambda_max)
    print("verdict", run.verdict)
    print("loss", *run.losses.tolist())


def report(run: NetStability) -> None:
    """Print the network's numbers (seconds vary from run to run, the rest does not)."""
    print("parameters", run.parameters)
    print("lambda0", run.lambda0, "stable_below", 2 / run.lambda0)
    print("status", run.status)
    print("hvps", run.hvps)
    print("seconds", run.grad_seconds, run.hvp_seconds)  # one gradient, then one HVP
    print("saved_bytes", run.grad_saved_bytes, run.hvp_saved_bytes)
    print("net_loss", *run.losses.tolist())
    print("sharpness_steps", *run.sharpness_steps.tolist())
    print("sharpness", *run.sharpness.tolist())


# %% Run it
if __name__ == "__main__":
    # the settings: the page's download writes its own on the next line
    config = StabilityConfig()
    derivatives = grad_and_hvp  # or grad_and_hvp_func: the same derivatives by torch.func
    torch.set_num_threads(1)  # tensors this small: a second thread only adds waiting
    quadratic = run_quadratic(config, derivatives)
    report_quadratic(quadratic)
    network = run(config, derivatives=derivatives)
    report(network)
