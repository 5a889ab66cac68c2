"""The curvature of a small trained network's loss, read from Hessian-vector products alone.

A tanh MLP is trained with Adam on scikit-learn's bundled 8x8 digits (no download) or on a 2-D
"two moons" set. All its weights live in one flat vector θ, so the loss is a plain function of
θ and its Hessian-vector product is the typed-function recipe on n parameters instead of 2::

    g  = grad(loss(θ), θ, create_graph=True)       # one forward, one backward, graph kept
    Hv = grad(g @ v, θ, retain_graph=True)          # each further HVP: one more backward

From H v alone: the top eigenvalues by Lanczos (scipy's ``eigsh`` on a ``LinearOperator``) and
by power iteration, the trace by Hutchinson (E[zᵀHz] = tr H for random ±1 vectors z), and the
loss along the top eigenvector against a random direction. Up to ``full_hessian_max``
parameters the full Hessian is built too (row i is the gradient of g_i), so every iterative
answer can be checked.

This file is what the HVP page runs, and what it offers as a download: the download is this
file with the page's settings on the line under ``if __name__ == "__main__":``. Run it
(``python hvp_network.py``) and it prints what the page shows, one ``name value ...`` line each.
It needs torch, numpy, scipy and scikit-learn. The ``# %%`` lines cut it into a notebook's cells.
"""

# %% Settings
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

__all__ = [
    "DATASETS",
    "FuncHessian",
    "HvpConfig",
    "KeptGraph",
    "NetCurvature",
    "TrainedNet",
    "analyse",
    "forward",
    "full_hessian",
    "layer_blocks",
    "layer_sizes",
    "load_data",
    "report",
    "run",
    "train",
]

#: The data sets: "digits" (1,797 8x8 images, 10 classes), "moons" (500 2-D points, 2 classes).
DATASETS = ("digits", "moons")
DTYPE = torch.float64  # the checks against the full Hessian are then exact to ~1e-12
TIMING_ROUNDS = 7  # rounds of one gradient and one HVP, timed interleaved
ALONG_POINTS = 41  # loss evaluations along each direction of the sharp-vs-flat plot (odd: α = 0)


@dataclass(frozen=True)
class HvpConfig:
    dataset: str = "digits"  # "digits" or "moons"
    hidden: tuple[int, ...] = (16,)  # widths of the tanh hidden layers
    steps: int = 300  # Adam steps, one mini-batch each
    batch: int = 128  # examples per step
    learning_rate: float = 0.01
    seed: int = 0  # initial weights and mini-batches (a torch.Generator, no global seed)
    top_k: int = 3  # eigenvalues Lanczos finds
    power_steps: int = 20  # power-iteration steps, one HVP each
    probes: int = 30  # Hutchinson samples, one HVP each
    analysis_seed: int = 0  # start vectors, probes and the random direction
    examples: int = 512  # the analysed loss: the first this many training examples
    full_hessian_max: int = 2_000  # build the full Hessian only up to this many parameters
    lanczos_hvps: int = 400  # HVPs Lanczos may use before it reports what it has


@dataclass(frozen=True)
class TrainedNet:
    """A trained network, held as its flat parameter vector (cheap to cache and pickle).

    Attributes:
        config: what was trained.
        sizes: layer widths from input to output, e.g. (64, 16, 10).
        parameters: θ, float64, shape (n,), in the order W1, b1, W2, b2, ...
        losses: the mini-batch loss after each step.
        train_accuracy, test_accuracy: on the training data and on held-out data (20%).
        steps: steps done: always ``config.steps``.
        seconds: wall time of training (shown, never used to decide anything).
    """

    config: HvpConfig
    sizes: tuple[int, ...]
    parameters: np.ndarray
    losses: np.ndarray
    train_accuracy: float
    test_accuracy: float
    steps: int
    seconds: float


@dataclass(frozen=True)
class NetCurvature:
    """What Hessian-vector products tell about the loss at the trained parameters.

    Attributes:
        parameters, examples: n, and the examples in the analysed loss.
        loss: the loss there.
        grad_seconds, hvp_seconds: median time of one gradient, and of one HVP on the kept
            gradient graph (the marginal cost inside Lanczos), timed interleaved.
        hvp_over_grad: the HVP's time over the gradient's, or None when the timings do not
            resolve it (the two sets of timings overlap).
        lanczos: the top-k eigenvalues, descending; lanczos_hvps and lanczos_seconds its cost;
            lanczos_residual |Hu - λu| / |λ| for the top one (some eigenvalue lies this close).
        power: the Rayleigh quotient after each power-iteration step; power_residual as above.
        exact: all eigenvalues from the full Hessian, descending, or None above
            ``full_hessian_max`` parameters.
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
    hvp_over_grad: float | None = None


# %% The data and the network: all weights in one flat vector θ
def load_data(dataset: str) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
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
    x = torch.tensor(x[order], dtype=DTYPE)
    y = torch.tensor(y[order], dtype=torch.long)
    cut = int(0.8 * len(y))
    return x[:cut], y[:cut], x[cut:], y[cut:]


def layer_sizes(config: HvpConfig) -> tuple[int, ...]:
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


def forward(theta: torch.Tensor, sizes: tuple[int, ...], x: torch.Tensor) -> torch.Tensor:
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


# %% Training: Adam on mini-batches, first derivatives only
class FlatAdam:
    """Adam with torch's defaults (betas 0.9 and 0.999, eps 1e-8), the same arithmetic as
    ``torch.optim.Adam``'s single-tensor step, on the one flat θ. (torch.optim's first use
    imports torch._dynamo, 800 modules, 0.75-1.5 s once per process.)"""

    def __init__(self, theta: torch.Tensor, lr: float, betas=(0.9, 0.999), eps=1e-8) -> None:
        self.theta, self.lr, self.betas, self.eps, self.t = theta, lr, betas, eps, 0
        self.m = torch.zeros_like(theta, memory_format=torch.preserve_format)
        self.v = torch.zeros_like(theta, memory_format=torch.preserve_format)

    @torch.no_grad()
    def step(self, grad: torch.Tensor) -> None:
        b1, b2 = self.betas
        self.t += 1
        self.m.lerp_(grad, 1 - b1)
        self.v.mul_(b2).addcmul_(grad, grad, value=1 - b2)
        step_size = self.lr / (1 - b1**self.t)
        denom = (self.v.sqrt() / (1 - b2**self.t) ** 0.5).add_(self.eps)
        self.theta.addcdiv_(self.m, denom, value=-step_size)


def train(
    config: HvpConfig, progress: Callable[[int, int, float], None] | None = None
) -> TrainedNet:
    """Train the MLP with Adam on mini-batches: exactly ``config.steps`` steps.

    Args:
        config: the network and its training (the analysis fields are not read).
        progress: called as ``progress(step, total, loss)`` about 50 times (for a progress bar).
    """
    sizes = layer_sizes(config)
    x, y, x_test, y_test = load_data(config.dataset)
    start = time.perf_counter()  # shown only: training's data load is a one-off
    gen = torch.Generator().manual_seed(int(config.seed))
    parts = []  # Glorot-style initialisation: weights ~ N(0, 1/fan_in), biases 0
    for name, a, b in layer_blocks(sizes):
        k = int(name[1:])
        scale = 1.0 / math.sqrt(sizes[k - 1]) if name[0] == "W" else 0.0
        parts.append(torch.randn(b - a, generator=gen, dtype=DTYPE) * scale)
    theta = torch.cat(parts).requires_grad_(True)
    adam = FlatAdam(theta, config.learning_rate)
    losses = []
    every = max(1, config.steps // 50)
    for step in range(1, config.steps + 1):
        idx = torch.randint(0, len(y), (min(config.batch, len(y)),), generator=gen)
        loss = F.cross_entropy(forward(theta, sizes, x[idx]), y[idx])
        (grad,) = torch.autograd.grad(loss, theta)  # <-- training needs first derivatives only
        adam.step(grad)
        losses.append(float(loss.detach()))
        if progress is not None and (step % every == 0 or step == config.steps):
            progress(step, config.steps, losses[-1])
    with torch.no_grad():
        acc = float((forward(theta, sizes, x).argmax(1) == y).double().mean())
        acc_test = float((forward(theta, sizes, x_test).argmax(1) == y_test).double().mean())
    return TrainedNet(
        config,
        sizes,
        theta.detach().numpy().copy(),
        np.array(losses),
        acc,
        acc_test,
        len(losses),
        time.perf_counter() - start,
    )


# %% H v on a kept graph, and the same product by torch.func
def analysed_loss(net: TrainedNet, config: HvpConfig) -> tuple[Callable, int]:
    """The analysed loss as a function of θ, and its batch: the first ``config.examples``
    training examples (all of them if there are fewer)."""
    x, y, _, _ = load_data(net.config.dataset)
    m = min(config.examples, len(y))
    x, y = x[:m], y[:m]
    return (lambda theta: F.cross_entropy(forward(theta, net.sizes, x), y)), m


class KeptGraph:
    """H v for the loss at θ, by double backward on one gradient graph kept for all calls."""

    def __init__(self, loss: Callable, parameters: np.ndarray) -> None:
        self.theta = torch.tensor(parameters, dtype=DTYPE, requires_grad=True)
        self.value = loss(self.theta)
        (self.g,) = torch.autograd.grad(self.value, self.theta, create_graph=True)  # <-- kept
        self.calls = 0

    def __call__(self, v: np.ndarray) -> np.ndarray:
        self.calls += 1
        v_t = torch.from_numpy(np.asarray(v, dtype=np.float64).reshape(-1).copy())
        (hv,) = torch.autograd.grad(self.g @ v_t, self.theta, retain_graph=True)  # <-- H v
        return hv.numpy().copy()


class FuncHessian(KeptGraph):
    """The same H v by torch.func: forward mode over reverse, jvp(grad(loss)) at θ along v.
    No graph is kept between calls; each product differentiates the gradient afresh."""

    def __init__(self, loss: Callable, parameters: np.ndarray) -> None:
        super().__init__(loss, parameters)  # g and the loss, for the slope along a direction
        self.grad = torch.func.grad(loss)
        self.point = self.theta.detach()

    def __call__(self, v: np.ndarray) -> np.ndarray:
        self.calls += 1
        v_t = torch.from_numpy(np.asarray(v, dtype=np.float64).reshape(-1).copy())
        hv = torch.func.jvp(self.grad, (self.point,), (v_t,))[1]  # <-- d/dε ∇f(θ + εv) at 0
        return hv.detach().numpy().copy()


def full_hessian(h: KeptGraph) -> np.ndarray:
    """The n x n Hessian, row by row (row i = gradient of g_i), made exactly symmetric."""
    n = h.theta.numel()
    hessian = torch.empty((n, n), dtype=DTYPE)  # one n x n array, filled row by row
    for i in range(n):
        hessian[i] = torch.autograd.grad(h.g[i], h.theta, retain_graph=True)[0]
    out = hessian.numpy()
    for i in range(n - 1):  # symmetric up to rounding: (H + Hᵀ)/2, in place, a row at a time
        mean = (out[i, i + 1 :] + out[i + 1 :, i]) / 2
        out[i, i + 1 :] = mean
        out[i + 1 :, i] = mean
    return out


# %% What H v tells: Lanczos, power iteration, Hutchinson, sharp and flat directions
def resolved_ratio(slow: list[float], fast: list[float]) -> float | None:
    """median(slow) / median(fast), or None when the two sets of timings overlap (every one of
    one is not above every one of the other): noise could then reverse the comparison."""
    if min(slow) > max(fast) or max(slow) < min(fast):
        return float(np.median(slow) / np.median(fast))
    return None


def _residual(h: KeptGraph, u: np.ndarray, lam: float) -> float:
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


def _heatmap(hessian: np.ndarray, cells: int = 120) -> tuple[np.ndarray, int]:
    n = hessian.shape[0]
    block = max(1, math.ceil(n / cells))
    m = math.ceil(n / block)
    out = np.empty((m, m))
    for r in range(m):  # a band of ``block`` rows at a time: no second n x n array
        band = np.zeros((block, m * block))
        rows = hessian[r * block : (r + 1) * block]
        band[: rows.shape[0], :n] = rows
        tiles = band.reshape(block, m, block).transpose(1, 0, 2).reshape(m, -1)
        pick = np.abs(tiles).argmax(axis=1)  # the entry of largest size keeps its sign
        out[r] = tiles[np.arange(m), pick]
    return out, block


def analyse(config: HvpConfig, net: TrainedNet, hessian: type = KeptGraph) -> NetCurvature:
    """Top eigenvalues, trace and sharpness of the loss at ``net``, from HVPs only.

    Args:
        config: the analysis fields (top_k, power_steps, probes, analysis_seed, examples,
            full_hessian_max, lanczos_hvps); the training fields are ``net``'s.
        net: the output of :func:`train`.
        hessian: how H v is taken: :class:`KeptGraph` (double backward, as the page) or
            :class:`FuncHessian` (torch.func).

    Note:
        Power iteration's direction converges at the rate |λ₂/λ₁| per step and its Rayleigh
        quotient at about |λ₂/λ₁|² (H is symmetric), so with close top eigenvalues 20 steps
        stay well short of λ₁; Lanczos uses the same HVPs far better.
    """
    from scipy.sparse.linalg import ArpackNoConvergence, LinearOperator, eigsh

    n, top_k = net.parameters.size, config.top_k
    gen = torch.Generator().manual_seed(int(config.analysis_seed))
    loss, examples = analysed_loss(net, config)

    def randn() -> np.ndarray:
        return torch.randn(n, generator=gen, dtype=DTYPE).numpy()

    h = hessian(loss, net.parameters)
    grad_times, hvp_times = [], []
    for _ in range(TIMING_ROUNDS):  # one gradient vs one HVP on the kept graph, interleaved
        start = time.perf_counter()
        theta = torch.tensor(net.parameters, requires_grad=True)
        torch.autograd.grad(loss(theta), theta)
        grad_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        h(randn())
        hvp_times.append(time.perf_counter() - start)
    hvp_cost, grad_cost = float(np.median(hvp_times)), float(np.median(grad_times))

    # Lanczos: scipy's eigsh (ARPACK) sees H only through the LinearOperator.
    h.calls, start = 0, time.perf_counter()
    op = LinearOperator((n, n), matvec=h, dtype=np.float64)
    ncv = min(n, max(2 * top_k + 1, 20))
    try:
        vals, vecs = eigsh(
            op,
            k=top_k,
            which="LA",
            ncv=ncv,
            tol=1e-6,
            v0=randn(),
            maxiter=max(1, config.lanczos_hvps // ncv),
        )
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
    for _ in range(config.power_steps):
        hu = h(u)
        power.append(float(u @ hu))
        u = hu / np.linalg.norm(hu)
    power_seconds = time.perf_counter() - start
    power_residual = _residual(h, u, float(u @ h(u)))

    # Hutchinson: E[zᵀHz] = tr H for z with independent ±1 entries.
    zs = (torch.randint(0, 2, (config.probes, n), generator=gen, dtype=DTYPE) * 2 - 1).numpy()
    samples = np.array([float(z @ h(z)) for z in zs])

    # Sharp vs flat: the loss along the top eigenvector and along a random direction.
    lam = float(lanczos[0])
    reach = float(np.clip(2 * math.sqrt(2 / lam), 1e-3, 10)) if lam > 0 else 1.0
    half = ALONG_POINTS // 2  # α = 0 exactly in the middle
    alphas = reach * np.arange(-half, half + 1) / half
    rand = randn()
    rand /= np.linalg.norm(rand)
    loss_top = _along(loss, net.parameters, top_vec, alphas)
    loss_random = _along(loss, net.parameters, rand, alphas)
    slope = float(h.g.detach().numpy() @ top_vec)
    model_top = float(h.value.detach()) + slope * alphas + 0.5 * lam * alphas**2

    exact = heatmap = trace_exact = None
    block, hessian_seconds = 0, 0.0
    if n <= config.full_hessian_max:
        start = time.perf_counter()
        full = full_hessian(KeptGraph(loss, net.parameters))
        trace_exact = float(np.trace(full))
        heatmap, block = _heatmap(full)
        # LAPACK's divide and conquer (numpy's eigvalsh) in the array itself: no copy of H
        from scipy.linalg import eigvalsh  # imported where used, as eigsh above

        exact = eigvalsh(full, driver="evd", overwrite_a=True, check_finite=False)[::-1]
        del full
        hessian_seconds = time.perf_counter() - start
    return NetCurvature(
        parameters=n,
        examples=examples,
        loss=float(h.value.detach()),
        grad_seconds=grad_cost,
        hvp_seconds=hvp_cost,
        lanczos=lanczos,
        lanczos_hvps=lanczos_hvps,
        lanczos_seconds=lanczos_seconds,
        lanczos_residual=lanczos_residual,
        power=np.array(power),
        power_seconds=power_seconds,
        power_residual=power_residual,
        exact=exact,
        reference=float(exact[0]) if exact is not None else lam,
        probes=samples,
        trace=float(samples.mean()),
        trace_error=float(samples.std(ddof=1) / math.sqrt(config.probes)),
        trace_exact=trace_exact,
        alphas=alphas,
        loss_top=loss_top,
        loss_random=loss_random,
        model_top=model_top,
        heatmap=heatmap,
        heatmap_block=block,
        hessian_seconds=hessian_seconds,
        full_bytes=n * n * 8,
        hvp_bytes=4 * n * 8,
        hvp_over_grad=resolved_ratio(hvp_times, grad_times),
    )


def run(
    config: HvpConfig,
    progress: Callable[[int, int, float], None] | None = None,
    hessian: type = KeptGraph,
) -> tuple[TrainedNet, NetCurvature]:
    """Train ``config``'s network, then analyse its loss from HVPs (see :func:`analyse`)."""
    net = train(config, progress)
    return net, analyse(config, net, hessian)


# %% What the page shows, one "name value ..." line each
def report(net: TrainedNet, curv: NetCurvature) -> None:
    """Print the numbers the page shows (the timings vary from run to run, the rest does not)."""
    print("parameters", curv.parameters)
    print("test_accuracy", net.test_accuracy)
    print("loss", curv.loss)
    print("losses", *net.losses.tolist())
    print("lanczos", *curv.lanczos.tolist())
    print("power", *curv.power.tolist())
    print("probes", *curv.probes.tolist())
    print("trace", curv.trace, curv.trace_error)
    if curv.exact is not None:
        print("exact", *curv.exact[: curv.lanczos.size].tolist())
        print("trace_exact", curv.trace_exact)
    print("seconds_grad_hvp", curv.grad_seconds, curv.hvp_seconds)


# %% Run it
if __name__ == "__main__":
    # the settings: the page's download writes its own on the next two lines
    config = HvpConfig()
    hessian = KeptGraph  # or FuncHessian: the same H v by torch.func (jvp of grad)
    torch.set_num_threads(1)  # tensors this small: a second thread only adds waiting
    net, curv = run(config, hessian=hessian)
    report(net, curv)
