"""A small neural network to analyse: its configuration, budget, data, loss and training.

A small tanh MLP is trained on scikit-learn's bundled digits (8x8 images, no
download) or on a 2-D "two moons" toy set. All its weights live in one flat vector θ, so the
loss is a plain function of θ and its Hessian-vector products are the typed-function recipe on
n parameters instead of 2.

What H v then tells about the loss (Lanczos, power iteration, Hutchinson, the full Hessian up
to 2,000 parameters) is the HVP lab's: ``hograd_labs/hvp/compute.py``, which the page runs and
offers as its download; its limits are these (``hograd_labs/hvp/cached.check_analysis``).

Every limit is a count decided from the configuration before any work (parameters, steps x
batch x parameters, Hessian-vector products), never a time measured during the run: the same
configuration trains the same steps to the same weights, and is refused or not, whatever the
load on the server.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from .errors import ArgumentError, BudgetError

__all__ = [
    "DATASETS",
    "NETWORK_BUDGET",
    "NetConfig",
    "NetworkBudget",
    "TrainedNet",
    "analysis_examples",
    "analysis_limit",
    "check_config",
    "count_parameters",
    "initial_parameters",
    "layer_blocks",
    "layer_sizes",
    "loss_function",
    "most_steps",
    "train",
]

#: The data sets: "digits" (1,797 8x8 images, 10 classes), "moons" (500 2-D points, 2 classes).
DATASETS: tuple[str, ...] = ("digits", "moons")
DTYPE = torch.float64  # the checks against the full Hessian are then exact to ~1e-12


@dataclass(frozen=True)
class NetConfig:
    """One small network and how to train it (defaults: 1,210 parameters, 300 steps)."""

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
    # The work of a training, counted before it starts: parameters x steps x batch (one step
    # costs about parameters x batch multiply-adds, times a few). The 100,234-parameter model
    # may take 311 steps of 128 examples (the page's default of 300 fits); measured on one idle
    # core of the 2-core server, 3.2 ms a step, so about 1 s.
    max_train_work: float = 4e9
    analysis_examples: int = 512  # the loss whose Hessian is analysed: a fixed training batch
    # ... halved (256, 128, ...) until parameters x examples is at most this: one HVP costs
    # about n x examples x 6 flops, so every model up to 25k parameters analyses 512 examples,
    # 50k analyse 256 and the 100k model 128, and one HVP costs the same ~6 ms on all of them
    analysis_work: float = 13e6
    full_hessian_max: int = 2_000  # build H (and its heatmap) only up to this many parameters
    max_top_k: int = 6
    max_power_steps: int = 100
    max_probes: int = 200  # Hutchinson samples
    max_lanczos_hvps: int = 400  # HVPs Lanczos may use before it reports what it has
    # HVPs per analysis, counted in HVPs of the largest size above (parameters x examples =
    # analysis_work): ~0.8 s with everything else the analysis does. Of those, power steps +
    # probes may take 61 at 100k parameters (the page's defaults take 50); smaller models get
    # proportionally more HVPs, and are bounded by the sliders instead.
    max_hvps: int = 100
    lanczos_allowance: int = 40  # HVPs set aside for Lanczos (21 for the top one, 33 for six),
    # its residual and the timings


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
        steps: steps done: always ``config.steps`` (every limit is checked before training).
        seconds: wall time of training (shown, never used to decide anything).
    """

    config: NetConfig
    sizes: tuple[int, ...]
    parameters: np.ndarray
    losses: np.ndarray
    train_accuracy: float
    test_accuracy: float
    steps: int
    seconds: float


# ----------------------------------------------------------------------------------------------
# Private helpers: data, the loss as a function of θ, and the budget checks


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


def initial_parameters(sizes: tuple[int, ...], seed: int) -> torch.Tensor:
    """θ as :func:`train` draws it: W ~ N(0, 1/fan_in), b = 0, from torch.Generator(seed)."""
    gen = torch.Generator().manual_seed(int(seed))
    parts = []
    for name, a, b in layer_blocks(sizes):
        k = int(name[1:])
        scale = 1.0 / math.sqrt(sizes[k - 1]) if name[0] == "W" else 0.0
        parts.append(torch.randn(b - a, generator=gen, dtype=DTYPE) * scale)
    return torch.cat(parts)


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


def mlp_loss(sizes: tuple[int, ...], x: torch.Tensor, y: torch.Tensor) -> Callable:
    return lambda theta: F.cross_entropy(_forward(theta, sizes, x), y)


def analysis_examples(parameters: int) -> int:
    """How many training examples the analysed loss of a model this size averages over: 512,
    halved until parameters x examples is within ``NETWORK_BUDGET.analysis_work`` (at least 1)."""
    b = NETWORK_BUDGET
    m = b.analysis_examples
    while m > 1 and parameters * m > b.analysis_work:
        m //= 2
    return m


def analysis_limit(parameters: int) -> int:
    """The most power-iteration steps plus Hutchinson probes the analysis of a model this size
    may ask for: ``max_hvps`` HVPs of the largest analysed size (parameters x examples =
    ``analysis_work``), less ``lanczos_allowance`` for Lanczos (at least 0)."""
    b = NETWORK_BUDGET
    work = parameters * analysis_examples(parameters)
    return max(0, int(b.max_hvps * b.analysis_work // work) - b.lanczos_allowance)


def most_steps(config: NetConfig) -> int:
    """The most training steps ``config``'s network may take at its batch size: parameters x
    steps x batch within ``max_train_work``, and at most ``max_steps``."""
    b = NETWORK_BUDGET
    work = count_parameters(config) * max(1, config.batch)
    return int(min(b.max_steps, b.max_train_work // work))


def analysis_loss(trained: TrainedNet, examples: int | None = None) -> tuple[Callable, int]:
    """The analysed loss and its batch: the first ``examples`` training examples (default:
    :func:`analysis_examples` for this model's size)."""
    x, y, _, _ = load_data(trained.config.dataset)
    m = min(examples or analysis_examples(trained.parameters.size), len(y))
    return mlp_loss(trained.sizes, x[:m], y[:m]), m


def loss_function(trained: TrainedNet) -> Callable[[torch.Tensor], torch.Tensor]:
    """The analysed loss as a function of a flat float64 θ of shape (n,): the mean
    cross-entropy on a fixed batch of training examples (512, fewer on models over 25k
    parameters; for tests and benchmarks)."""
    return analysis_loss(trained)[0]


def check_range(key: str, got: float, low: float, high: float, **extra: object) -> None:
    """Refuse ``got`` outside [low, high] with the message ``key`` (NaN is refused too)."""
    if not (low <= got <= high):
        cls = BudgetError if got > high else ArgumentError  # NaN and too small: ArgumentError
        raise cls(key, low=low, high=high, got=got, **extra)


def check_dataset(dataset: str) -> None:
    """Refuse a data set the network page does not have (ArgumentError naming the known ones)."""
    if dataset not in DATASETS:
        raise ArgumentError(
            "hvp.net.dataset_unknown", got=str(dataset)[:40], known=", ".join(DATASETS)
        )


def check_config(config: NetConfig) -> None:
    """Refuse ``config`` if it is over :data:`NETWORK_BUDGET`: a pure check of the numbers in
    it, the same on any machine under any load.

    Raises:
        ArgumentError: an unknown data set, or a number below its range.
        BudgetError: a number above its range, too many parameters, or more steps than the
            network's size allows (:func:`most_steps`).
    """
    b = NETWORK_BUDGET
    check_dataset(config.dataset)
    check_range("hvp.net.budget.layers", len(config.hidden), 1, b.max_layers)
    for width in config.hidden:
        check_range("hvp.net.budget.width", width, 1, b.max_width)
    check_range("hvp.net.budget.steps", config.steps, 1, b.max_steps)
    check_range("hvp.net.budget.batch", config.batch, 1, b.max_batch)
    check_range("hvp.net.budget.learning_rate", config.learning_rate, 1e-5, 1.0)
    n = count_parameters(config)
    if n > b.max_parameters:
        raise BudgetError("hvp.net.budget.parameters", got=f"{n:,}", limit=f"{b.max_parameters:,}")
    most = most_steps(config)
    if config.steps > most:
        raise BudgetError(
            "hvp.net.budget.work",
            n=f"{n:,}",
            batch=config.batch,
            most=f"{most:,}",
            got=f"{config.steps:,}",
        )


# ----------------------------------------------------------------------------------------------
# Public API


class FlatAdam:
    """Adam with torch's defaults (betas 0.9 and 0.999, eps 1e-8), the same arithmetic as
    ``torch.optim.Adam``'s single-tensor step. Not torch.optim itself: its first use imports
    torch._dynamo, 800 modules, 0.75-1.5 s and ~37 MB once per server, all to train a
    two-layer network."""

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
    config: NetConfig, progress: Callable[[int, int, float], None] | None = None
) -> TrainedNet:
    """Train the MLP with Adam on mini-batches: exactly ``config.steps`` steps.

    Args:
        config: the network and its training.
        progress: called as ``progress(step, total, loss)`` about 50 times (for a progress bar).

    Raises:
        BudgetError: the configuration exceeds :data:`NETWORK_BUDGET` (checked before any work,
            by :func:`check_config`).

    Example:
        >>> from hograd_core.network import NetConfig, train
        >>> net = train(NetConfig(steps=100))
        >>> net.parameters.shape, net.test_accuracy > 0.8
        ((1210,), True)
    """
    check_config(config)
    sizes = layer_sizes(config)
    x, y, x_test, y_test = load_data(config.dataset)
    start = time.perf_counter()  # shown only: training's data load is a one-off
    gen = torch.Generator().manual_seed(int(config.seed))
    # Glorot-style initialisation: weights ~ N(0, 1/fan_in), biases 0.
    parts = []
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
        loss = F.cross_entropy(_forward(theta, sizes, x[idx]), y[idx])
        (grad,) = torch.autograd.grad(loss, theta)
        adam.step(grad)
        losses.append(float(loss.detach()))
        if progress is not None and (step % every == 0 or step == config.steps):
            progress(step, config.steps, losses[-1])
    with torch.no_grad():
        acc = float((_forward(theta, sizes, x).argmax(1) == y).double().mean())
        acc_test = float((_forward(theta, sizes, x_test).argmax(1) == y_test).double().mean())
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
