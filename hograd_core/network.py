"""Curvature of a real neural network's loss, without ever forming its Hessian.

A small tanh MLP is trained for a few seconds on scikit-learn's bundled digits (8x8 images, no
download) or on a 2-D "two moons" toy set. All its weights live in one flat vector θ, so the
Hessian-vector product is exactly the typed-function recipe, on n parameters instead of 2::

    g  = grad(loss(θ), θ, create_graph=True)       # one forward, one backward, graph kept
    Hv = grad(g @ v, θ, retain_graph=True)          # each further HVP: one more backward

From H v alone: the top eigenvalues by Lanczos (scipy ``eigsh`` on a ``LinearOperator``) and by
power iteration, the trace by Hutchinson (E[zᵀHz] = tr H for random ±1 vectors z), and the loss
along the top eigenvector against a random direction. Up to 2,000 parameters the full Hessian
is built too (row i is the gradient of g_i), so every iterative answer can be checked.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from .errors import BudgetError
from .gate import heavy_work

__all__ = [
    "DATASETS", "NETWORK_BUDGET", "NetConfig", "NetCurvature", "NetworkBudget", "TrainedNet",
    "count_parameters", "curvature", "full_hessian", "hessian_vector_product", "layer_blocks",
    "layer_sizes", "loss_function", "train",
]  # fmt: skip

#: The data sets: "digits" (1,797 8x8 images, 10 classes), "moons" (500 2-D points, 2 classes).
DATASETS: tuple[str, ...] = ("digits", "moons")
_DTYPE = torch.float64  # the checks against the full Hessian are then exact to ~1e-12


@dataclass(frozen=True)
class NetConfig:
    """One small network and how to train it (defaults: 1,210 parameters, about a second)."""

    dataset: str = "digits"
    hidden: tuple[int, ...] = (16,)  # widths of the tanh hidden layers
    steps: int = 300  # Adam steps, one mini-batch each
    batch: int = 128  # examples per step
    learning_rate: float = 0.01
    seed: int = 0  # initial weights and mini-batches (a torch.Generator, no global seed)


@dataclass(frozen=True)
class NetworkBudget:
    """Limits checked before any work (training and Lanczos run on a shared 2-core server)."""

    max_parameters: int = 120_000  # the ~100k benchmark model (64-512-128-10) fits
    max_layers: int = 3
    max_width: int = 512
    max_steps: int = 2_000
    max_batch: int = 512
    max_seconds: float = 2.0  # training stops here and says so (a class shares the server)
    analysis_examples: int = 512  # the loss whose Hessian is analysed: a fixed training batch
    full_hessian_max: int = 2_000  # build H (and its heatmap) only up to this many parameters
    max_top_k: int = 6
    max_power_steps: int = 100
    max_probes: int = 200  # Hutchinson samples
    max_lanczos_hvps: int = 400  # HVPs Lanczos may use before it reports what it has
    # HVPs x parameters per analysis: an HVP costs about n x examples x 6 flops, so this keeps
    # the analysis of the largest model to a few seconds (100k parameters: ~250 HVPs).
    max_hvp_work: float = 25e6
    lanczos_allowance: int = 60  # HVPs set aside for Lanczos, its residual and the timings


NETWORK_BUDGET = NetworkBudget()


@dataclass(frozen=True)
class TrainedNet:
    """A trained network, held as its flat parameter vector (cheap to cache and pickle).

    Attributes:
        config: what was trained.
        sizes: layer widths from input to output, e.g. (64, 16, 10).
        parameters: θ, float64, shape (n,), in the order W1, b1, W2, b2, ...
        losses: the mini-batch loss after each step.
        train_accuracy, test_accuracy: on the training data and on held-out data (20%).
        steps: steps done; fewer than asked if the time cap stopped training.
        stopped_by_time: whether the cap of ``NETWORK_BUDGET.max_seconds`` ended training.
        seconds: wall time of training.
    """

    config: NetConfig
    sizes: tuple[int, ...]
    parameters: np.ndarray
    losses: np.ndarray
    train_accuracy: float
    test_accuracy: float
    steps: int
    stopped_by_time: bool
    seconds: float


@dataclass(frozen=True)
class NetCurvature:
    """What Hessian-vector products tell about the loss at the trained parameters.

    Attributes:
        parameters, examples: n, and the examples in the analysed loss.
        loss: the loss there.
        grad_seconds, hvp_seconds: median time of one gradient, and of one HVP on the kept
            gradient graph (the marginal cost inside Lanczos).
        lanczos: the top-k eigenvalues, descending; lanczos_hvps and lanczos_seconds its cost;
            lanczos_residual |Hu - λu| / |λ| for the top one (some eigenvalue lies this close).
        power: the Rayleigh quotient after each power-iteration step; power_residual as above.
        exact: all eigenvalues from the full Hessian, descending, or None above 2,000 params.
        reference: the best top eigenvalue known (exact if built, else Lanczos).
        probes: zᵀHz for each Hutchinson probe; trace and trace_error (one standard error);
            trace_exact from the full Hessian or None.
        alphas, loss_top, loss_random: the loss at θ + α d for d the top eigenvector and a
            random unit direction; model_top the quadratic loss + α g·d + ½ α² λ_top.
        heatmap: the full Hessian reduced to at most 120 x 120 cells (each cell: the entry of
            largest size in its block of ``heatmap_block`` x ``heatmap_block``), or None.
        full_bytes: memory the full float64 Hessian needs (n² x 8 bytes); hvp_bytes: memory of
            the vectors one HVP handles (θ, g, v, Hv: 4n x 8 bytes).
    """

    parameters: int
    examples: int
    loss: float
    grad_seconds: float
    hvp_seconds: float
    lanczos: np.ndarray
    lanczos_hvps: int
    lanczos_seconds: float
    lanczos_residual: float
    power: np.ndarray
    power_seconds: float
    power_residual: float
    exact: np.ndarray | None
    reference: float
    probes: np.ndarray
    trace: float
    trace_error: float
    trace_exact: float | None
    alphas: np.ndarray
    loss_top: np.ndarray
    loss_random: np.ndarray
    model_top: np.ndarray
    heatmap: np.ndarray | None
    heatmap_block: int
    hessian_seconds: float
    full_bytes: int
    hvp_bytes: int


# ----------------------------------------------------------------------------------------------
# Private helpers: data, the loss as a function of θ, and H v on a kept graph


def _data(dataset: str) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """(X_train, y_train, X_test, y_test); a fixed 80/20 split, whatever the seed."""
    if dataset == "digits":
        from sklearn.datasets import load_digits

        x, y = load_digits(return_X_y=True)  # bundled with scikit-learn: no download
        x = x / 16.0  # pixel intensities 0..16 -> 0..1
    else:
        from sklearn.datasets import make_moons

        x, y = make_moons(n_samples=500, noise=0.2, random_state=0)
        x = (x - x.mean(axis=0)) / x.std(axis=0)
    order = torch.randperm(len(y), generator=torch.Generator().manual_seed(0)).numpy()
    x = torch.tensor(x[order], dtype=_DTYPE)
    y = torch.tensor(y[order], dtype=torch.long)
    cut = int(0.8 * len(y))
    return x[:cut], y[:cut], x[cut:], y[cut:]


def layer_sizes(config: NetConfig) -> tuple[int, ...]:
    """Widths from input to output: digits 64 pixels -> 10 classes, moons 2 -> 2."""
    inputs, classes = (64, 10) if config.dataset == "digits" else (2, 2)
    return (inputs, *config.hidden, classes)


def layer_blocks(sizes: tuple[int, ...]) -> tuple[tuple[str, int, int], ...]:
    """(name, start, stop) of each weight matrix and bias inside θ: W1, b1, W2, b2, ..."""
    blocks, start = [], 0
    for k, (fan_in, fan_out) in enumerate(zip(sizes[:-1], sizes[1:], strict=False), start=1):
        blocks.append((f"W{k}", start, start + fan_out * fan_in))
        start += fan_out * fan_in
        blocks.append((f"b{k}", start, start + fan_out))
        start += fan_out
    return tuple(blocks)


def count_parameters(config: NetConfig) -> int:
    return layer_blocks(layer_sizes(config))[-1][2]


def _forward(theta: torch.Tensor, sizes: tuple[int, ...], x: torch.Tensor) -> torch.Tensor:
    """The MLP's logits; the weights are views into the flat θ, so gradients land in θ."""
    h = x  # (batch, sizes[0])
    layers = len(sizes) - 1
    blocks = layer_blocks(sizes)
    for k in range(layers):
        (_, w0, w1), (_, b0, b1) = blocks[2 * k], blocks[2 * k + 1]
        weight = theta[w0:w1].view(sizes[k + 1], sizes[k])  # (fan_out, fan_in)
        h = torch.addmm(theta[b0:b1], h, weight.T)  # (batch, fan_out)
        if k < layers - 1:
            h = torch.tanh(h)  # smooth, so the Hessian is not mostly zeros as with ReLU
    return h


def _loss_fn(sizes: tuple[int, ...], x: torch.Tensor, y: torch.Tensor) -> Callable:
    return lambda theta: F.cross_entropy(_forward(theta, sizes, x), y)


def _analysis_loss(trained: TrainedNet) -> tuple[Callable, int]:
    x, y, _, _ = _data(trained.config.dataset)
    m = min(NETWORK_BUDGET.analysis_examples, len(y))
    return _loss_fn(trained.sizes, x[:m], y[:m]), m


def loss_function(trained: TrainedNet) -> Callable[[torch.Tensor], torch.Tensor]:
    """The analysed loss as a function of a flat float64 θ of shape (n,): the mean
    cross-entropy on a fixed batch of up to 512 training examples (for tests and benchmarks)."""
    return _analysis_loss(trained)[0]


class _Hessian:
    """H v for the loss at θ, by double backward on one gradient graph kept for all calls."""

    def __init__(self, loss: Callable, parameters: np.ndarray) -> None:
        self.theta = torch.tensor(parameters, dtype=_DTYPE, requires_grad=True)
        self.value = loss(self.theta)
        (self.g,) = torch.autograd.grad(self.value, self.theta, create_graph=True)
        self.calls = 0

    def __call__(self, v: np.ndarray) -> np.ndarray:
        self.calls += 1
        v_t = torch.from_numpy(np.asarray(v, dtype=np.float64).reshape(-1).copy())
        (hv,) = torch.autograd.grad(self.g @ v_t, self.theta, retain_graph=True)
        return hv.numpy().copy()


def _check(key: str, got: float, low: float, high: float, **extra: object) -> None:
    """Refuse ``got`` outside [low, high] with the message ``key`` (NaN is refused too)."""
    if not (low <= got <= high):
        raise BudgetError(key, low=low, high=high, got=got, **extra)


def _check_config(config: NetConfig) -> None:
    b = NETWORK_BUDGET
    if config.dataset not in DATASETS:
        raise BudgetError(
            "hvp.net.dataset_unknown", got=str(config.dataset)[:40], known=", ".join(DATASETS)
        )
    _check("hvp.net.budget.layers", len(config.hidden), 1, b.max_layers)
    for width in config.hidden:
        _check("hvp.net.budget.width", width, 1, b.max_width)
    _check("hvp.net.budget.steps", config.steps, 1, b.max_steps, seconds=b.max_seconds)
    _check("hvp.net.budget.batch", config.batch, 1, b.max_batch)
    _check("hvp.net.budget.learning_rate", config.learning_rate, 1e-5, 1.0)
    n = count_parameters(config)
    if n > b.max_parameters:
        raise BudgetError("hvp.net.budget.parameters", got=f"{n:,}", limit=f"{b.max_parameters:,}")


# ----------------------------------------------------------------------------------------------
# Public API


def train(
    config: NetConfig, progress: Callable[[int, int, float], None] | None = None
) -> TrainedNet:
    """Train the MLP with Adam on mini-batches, within the step and time caps.

    Args:
        config: the network and its training.
        progress: called as ``progress(step, total, loss)`` about 50 times (for a progress bar).

    Raises:
        BudgetError: the configuration exceeds :data:`NETWORK_BUDGET` (checked before any work).
        BusyError: every heavy-work slot is taken.

    Example:
        >>> net = train(NetConfig(steps=100))
        >>> net.parameters.shape, net.test_accuracy > 0.8
        ((1210,), True)
    """
    _check_config(config)
    with heavy_work():
        sizes = layer_sizes(config)
        x, y, x_test, y_test = _data(config.dataset)
        start = time.perf_counter()  # the cap is on training; the data load is a one-off
        gen = torch.Generator().manual_seed(int(config.seed))
        # Glorot-style initialisation: weights ~ N(0, 1/fan_in), biases 0.
        parts = []
        for name, a, b in layer_blocks(sizes):
            k = int(name[1:])
            scale = 1.0 / math.sqrt(sizes[k - 1]) if name[0] == "W" else 0.0
            parts.append(torch.randn(b - a, generator=gen, dtype=_DTYPE) * scale)
        theta = torch.cat(parts).requires_grad_(True)
        opt = torch.optim.Adam([theta], lr=config.learning_rate)
        losses = []
        every = max(1, config.steps // 50)
        stopped = False
        for step in range(1, config.steps + 1):
            idx = torch.randint(0, len(y), (min(config.batch, len(y)),), generator=gen)
            loss = F.cross_entropy(_forward(theta, sizes, x[idx]), y[idx])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            losses.append(float(loss.detach()))
            if progress is not None and (step % every == 0 or step == config.steps):
                progress(step, config.steps, losses[-1])
            if time.perf_counter() - start > NETWORK_BUDGET.max_seconds:
                stopped = step < config.steps
                break
        with torch.no_grad():
            acc = float((_forward(theta, sizes, x).argmax(1) == y).double().mean())
            acc_test = float((_forward(theta, sizes, x_test).argmax(1) == y_test).double().mean())
        return TrainedNet(
            config, sizes, theta.detach().numpy().copy(), np.array(losses), acc, acc_test,
            len(losses), stopped, time.perf_counter() - start,
        )  # fmt: skip


def hessian_vector_product(trained: TrainedNet, vector: np.ndarray) -> np.ndarray:
    """H v of the analysed loss (a fixed batch of training examples) at the trained θ."""
    v = np.asarray(vector, dtype=np.float64).reshape(-1)
    if v.size != trained.parameters.size:
        raise BudgetError(
            "hvp.net.budget.vector_size", expected=trained.parameters.size, got=v.size
        )
    loss, _ = _analysis_loss(trained)
    return _Hessian(loss, trained.parameters)(v)


def full_hessian(trained: TrainedNet) -> np.ndarray:
    """The n x n Hessian, row by row (row i = gradient of g_i); only up to 2,000 parameters.

    Raises:
        BudgetError: more than ``NETWORK_BUDGET.full_hessian_max`` parameters.
    """
    n = trained.parameters.size
    if n > NETWORK_BUDGET.full_hessian_max:
        limit = NETWORK_BUDGET.full_hessian_max
        raise BudgetError(
            "hvp.net.budget.full_hessian", got=f"{n:,}", limit=f"{limit:,}",
            gigabytes=f"{n * n * 8 / 1e9:.2g}",
        )  # fmt: skip
    loss, _ = _analysis_loss(trained)
    h = _Hessian(loss, trained.parameters)
    rows = [
        torch.autograd.grad(h.g[i], h.theta, retain_graph=True)[0] for i in range(n)
    ]  # fmt: skip
    hessian = torch.stack(rows).numpy()
    return (hessian + hessian.T) / 2  # symmetric up to rounding; make it exactly so


def _heatmap(hessian: np.ndarray, cells: int = 120) -> tuple[np.ndarray, int]:
    n = hessian.shape[0]
    block = max(1, math.ceil(n / cells))
    m = math.ceil(n / block)
    padded = np.zeros((m * block, m * block))
    padded[:n, :n] = hessian
    tiles = padded.reshape(m, block, m, block).transpose(0, 2, 1, 3).reshape(m, m, -1)
    pick = np.abs(tiles).argmax(axis=2)  # the entry of largest size keeps its sign
    return np.take_along_axis(tiles, pick[..., None], axis=2)[..., 0], block


def curvature(
    trained: TrainedNet,
    *,
    top_k: int = 3,
    power_steps: int = 20,
    probes: int = 30,
    seed: int = 0,
) -> NetCurvature:
    """Top eigenvalues, trace and sharpness of the loss at ``trained``, from HVPs only.

    Args:
        trained: the output of :func:`train`.
        top_k: eigenvalues Lanczos finds (1..6).
        power_steps: power-iteration steps (1..100), one HVP each.
        probes: Hutchinson samples (2..200), one HVP each.
        seed: for the random start vectors, probes and direction (a torch.Generator).

    Note:
        Power iteration converges at the rate |λ₂/λ₁| per step, so with close top eigenvalues
        20 steps stay well short of λ₁; Lanczos uses the same HVPs far better.

    Raises:
        BudgetError: an argument outside its range, or more HVPs than the model's size allows
            (``NETWORK_BUDGET.max_hvp_work``). BusyError: no heavy-work slot.
    """
    b = NETWORK_BUDGET
    n = trained.parameters.size
    _check("hvp.net.budget.top_k", top_k, 1, min(b.max_top_k, n - 1))
    _check("hvp.net.budget.power_steps", power_steps, 1, b.max_power_steps)
    _check("hvp.net.budget.probes", probes, 2, b.max_probes)
    most = int(b.max_hvp_work // n) - b.lanczos_allowance
    if power_steps + probes > most:
        raise BudgetError(
            "hvp.net.budget.hvps", n=f"{n:,}", most=max(most, 0), got=power_steps + probes
        )
    from scipy.sparse.linalg import ArpackNoConvergence, LinearOperator, eigsh

    with heavy_work():
        gen = torch.Generator().manual_seed(int(seed))
        loss, examples = _analysis_loss(trained)

        def randn() -> np.ndarray:
            return torch.randn(n, generator=gen, dtype=_DTYPE).numpy()

        grad_times, hvp_times = [], []
        for _ in range(5):  # the cost of one gradient vs one HVP on the kept graph
            start = time.perf_counter()
            theta = torch.tensor(trained.parameters, requires_grad=True)
            torch.autograd.grad(loss(theta), theta)
            grad_times.append(time.perf_counter() - start)
        h = _Hessian(loss, trained.parameters)
        for _ in range(5):
            start = time.perf_counter()
            h(randn())
            hvp_times.append(time.perf_counter() - start)

        # Lanczos: scipy's eigsh (ARPACK) sees H only through the LinearOperator.
        h.calls, start = 0, time.perf_counter()
        op = LinearOperator((n, n), matvec=h, dtype=np.float64)
        ncv = min(n, max(2 * top_k + 1, 20))
        try:
            vals, vecs = eigsh(op, k=top_k, which="LA", ncv=ncv, tol=1e-6, v0=randn(),
                               maxiter=max(1, b.max_lanczos_hvps // ncv))  # fmt: skip
        except ArpackNoConvergence as err:  # keep what converged within the HVP budget
            vals, vecs = err.eigenvalues, err.eigenvectors
        if vals.size:
            order = np.argsort(vals)[::-1]
            lanczos, top_vec = vals[order], vecs[:, order[0]]
        else:  # nothing converged: say so with NaN rather than a wrong number
            lanczos, top_vec = np.full(1, np.nan), np.full(n, np.nan)
        lanczos_hvps, lanczos_seconds = h.calls, time.perf_counter() - start
        lanczos_residual = _residual(h, top_vec, float(lanczos[0]))

        # Power iteration: u <- Hu/|Hu|, Rayleigh quotient uᵀHu after each step.
        start, u, power = time.perf_counter(), randn(), []
        u /= np.linalg.norm(u)
        for _ in range(power_steps):
            hu = h(u)
            power.append(float(u @ hu))
            u = hu / np.linalg.norm(hu)
        power_seconds = time.perf_counter() - start
        power_residual = _residual(h, u, float(u @ h(u)))

        # Hutchinson: E[zᵀHz] = tr H for z with independent ±1 entries.
        zs = (torch.randint(0, 2, (probes, n), generator=gen, dtype=_DTYPE) * 2 - 1).numpy()
        samples = np.array([float(z @ h(z)) for z in zs])

        # Sharp vs flat: the loss along the top eigenvector and along a random direction.
        lam = float(lanczos[0])
        reach = float(np.clip(2 * math.sqrt(2 / lam), 1e-3, 10)) if lam > 0 else 1.0
        alphas = reach * np.arange(-20, 21) / 20  # 41 points, α = 0 exactly in the middle
        rand = randn()
        rand /= np.linalg.norm(rand)
        loss_top = _along(loss, trained.parameters, top_vec, alphas)
        loss_random = _along(loss, trained.parameters, rand, alphas)
        slope = float(h.g.detach().numpy() @ top_vec)
        model_top = float(h.value.detach()) + slope * alphas + 0.5 * lam * alphas**2

        exact = heatmap = trace_exact = None
        block, hessian_seconds = 0, 0.0
        if n <= b.full_hessian_max:
            start = time.perf_counter()
            hessian = full_hessian(trained)
            exact = np.linalg.eigvalsh(hessian)[::-1]
            trace_exact = float(np.trace(hessian))
            heatmap, block = _heatmap(hessian)
            hessian_seconds = time.perf_counter() - start
    return NetCurvature(
        parameters=n, examples=examples, loss=float(h.value.detach()),
        grad_seconds=float(np.median(grad_times)), hvp_seconds=float(np.median(hvp_times)),
        lanczos=lanczos, lanczos_hvps=lanczos_hvps, lanczos_seconds=lanczos_seconds,
        lanczos_residual=lanczos_residual, power=np.array(power), power_seconds=power_seconds,
        power_residual=power_residual, exact=exact,
        reference=float(exact[0]) if exact is not None else lam, probes=samples,
        trace=float(samples.mean()), trace_error=float(samples.std(ddof=1) / math.sqrt(probes)),
        trace_exact=trace_exact, alphas=alphas, loss_top=loss_top, loss_random=loss_random,
        model_top=model_top, heatmap=heatmap, heatmap_block=block,
        hessian_seconds=hessian_seconds, full_bytes=n * n * 8, hvp_bytes=4 * n * 8,
    )  # fmt: skip


def _residual(h: _Hessian, u: np.ndarray, lam: float) -> float:
    """|Hu - λu| / |λ| for a unit u: H has an eigenvalue within this (relative) distance of λ."""
    if not (np.all(np.isfinite(u)) and math.isfinite(lam) and lam != 0):
        return math.nan
    return float(np.linalg.norm(h(u) - lam * u) / abs(lam))


def _along(loss: Callable, theta: np.ndarray, d: np.ndarray, alphas: np.ndarray) -> np.ndarray:
    if not np.all(np.isfinite(d)):
        return np.full(alphas.size, np.nan)
    base = torch.from_numpy(theta.copy())
    d_t = torch.from_numpy(d.copy())
    with torch.no_grad():
        return np.array([float(loss(base + a * d_t)) for a in alphas])
