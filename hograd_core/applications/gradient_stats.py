"""Gradient statistics of a deep network: per-layer norms and histograms, clipping, NaN checks,
float32 against float64.

A deep MLP (tanh or ReLU) is trained on the digits with mini-batch SGD, and after every
backward pass the run records what TensorBoard would show: the norm of each layer's weight
gradient and, at a few steps, the histogram of its entries' sizes. Backpropagation multiplies
one factor per layer, so norms that shrink (vanishing) or grow (exploding) layer after layer
show up as a fan of lines on a log scale.

The NaN check is the one to put in a training loop: ``torch.isnan(p.grad).any()`` for every
parameter after ``backward()``. To find the operation that made the first NaN, this module
walks the step's autograd graph with a hook on every node and reports the first node, in the
order backward runs them, whose output holds a NaN: the check ``torch.autograd.detect_anomaly``
makes, without switching on its process-wide mode (every session of the app shares one
process). :func:`anomaly_message` runs the real ``detect_anomaly``; call it only in a process
of its own.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import numpy as np
import torch
import torch.nn.functional as F

from ..errors import ArgumentError
from ..network import load_data
from .common import check, check_work

__all__ = [
    "BINS", "SCENARIOS", "STATS_BUDGET", "GradientStats", "StatsConfig", "anomaly_message",
    "gradient_stats", "stats_csv", "stats_json",
]  # fmt: skip

#: Edges of the histograms of log10 |g| (entries exactly 0 are counted apart).
BINS = np.linspace(-16.0, 4.0, 41)
DTYPES = {"float32": torch.float32, "float64": torch.float64}


@dataclass(frozen=True)
class StatsBudget:
    max_depth: int = 12
    max_width: int = 128
    max_steps: int = 300
    max_batch: int = 256
    max_work: float = 2.5e9  # parameters x batch x steps x 2 (both precisions): ~1 s here


STATS_BUDGET = StatsBudget()


@dataclass(frozen=True)
class StatsConfig:
    activation: str = "tanh"  # "tanh" or "relu"
    depth: int = 10  # hidden layers
    width: int = 32
    lr: float = 0.1  # plain SGD
    steps: int = 100
    batch: int = 128
    gain: float = 1.0  # initial W ~ N(0, gain² / fan_in)
    clip: float = 0.0  # max_norm of torch.nn.utils.clip_grad_norm_; 0: no clipping
    dtype: str = "float64"
    naive_loss: bool = False  # -log(softmax(z)) written out instead of F.cross_entropy
    seed: int = 0


#: Settings that show each lesson (the page's scenario buttons).
SCENARIOS: dict[str, StatsConfig] = {
    "healthy": StatsConfig(),
    # the healthy start with lr 2: the steps drive the tanh units into saturation (tanh' near 0),
    # and then the early layers' gradients vanish and the loss rises (not depth or the start)
    "vanish": StatsConfig(activation="tanh", lr=2.0),
    "explode": StatsConfig(activation="relu", gain=2.0, lr=0.2),  # grows until inf, then NaN
    # logits so far apart that float32's softmax underflows to 0, and log(0) = -inf; float64's
    # does not (exp(-104) is below float32's smallest number, far above float64's)
    "nan32": StatsConfig(activation="relu", gain=2.1, lr=0.01, naive_loss=True, dtype="float32"),
}


@dataclass(frozen=True)
class GradientStats:
    """One training run's gradient statistics, and the same run in the other precision.

    Attributes:
        losses: the mini-batch loss at each step done.
        layer_norms: |∂L/∂W_k| per step and layer, shape (steps, layers), before clipping.
        total_norms: the norm of all gradients together (what clip_grad_norm_ returns).
        clipped: whether clipping scaled the step's gradients down.
        hist_steps: the steps with histograms; hist_counts[i, k] counts layer k's entries by
            log10 |g| over :data:`BINS` (the first and last bins also hold the entries beyond
            them); hist_zeros[i, k] counts entries exactly 0.
        abs_stats: per histogram, per layer: min, max, count, sum, sum of squares of |g| (for
            TensorBoard's histograms).
        nan_step: the first step whose loss or gradients were not finite, or None. Training
            stops there, before the update.
        nan_layers: the parameters whose gradient had a NaN then ("W3", "b3", ...).
        nan_source: the first backward node that returned a NaN ("SoftmaxBackward0") and the
            index of that output, or None.
        nan_in_loss: the loss itself was inf or NaN at ``nan_step``.
        other_dtype, other_losses, other_nan_step: the same run in the other precision.
        saturated: per step, the share of hidden tanh units with |h| > 0.99 (tanh′ < 0.02) on
            the step's batch, over all hidden layers; empty for ReLU.
    """

    config: StatsConfig
    layer_names: tuple[str, ...]
    losses: np.ndarray
    layer_norms: np.ndarray
    total_norms: np.ndarray
    clipped: np.ndarray
    hist_steps: np.ndarray
    hist_counts: np.ndarray
    hist_zeros: np.ndarray
    abs_stats: np.ndarray
    nan_step: int | None
    nan_layers: tuple[str, ...]
    nan_source: tuple[str, int] | None
    nan_in_loss: bool
    other_dtype: str
    other_losses: np.ndarray
    other_nan_step: int | None
    saturated: np.ndarray = field(default_factory=lambda: np.zeros(0))


# ----------------------------------------------------------------------------------------------
# Private helpers


def _check(config: StatsConfig) -> None:
    b = STATS_BUDGET
    if config.activation not in ("tanh", "relu"):
        raise ArgumentError("why.stats.activation", got=str(config.activation)[:20])
    if config.dtype not in DTYPES:
        raise ArgumentError("why.stats.dtype", got=str(config.dtype)[:20])
    check("depth", config.depth, 1, b.max_depth)
    check("width", config.width, 2, b.max_width)
    check("steps", config.steps, 1, b.max_steps)
    check("batch", config.batch, 1, b.max_batch)
    check("lr", config.lr, 1e-5, 100.0)
    check("gain", config.gain, 0.1, 5.0)
    check("clip", config.clip, 0.0, 1e6)
    n = 64 * config.width + (config.depth - 1) * config.width**2 + 10 * config.width
    check_work("why.stats.budget.work", n * config.batch * config.steps * 2, b.max_work)


def _parameters(config: StatsConfig, dtype: torch.dtype) -> list[torch.Tensor]:
    """[W1, b1, W2, b2, ...] drawn in float64 from torch.Generator(seed), then cast: both
    precisions start from the same numbers (rounded to float32 for float32)."""
    gen = torch.Generator().manual_seed(int(config.seed))
    sizes = [64, *[config.width] * config.depth, 10]
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:], strict=False):
        w = torch.randn(fan_out, fan_in, generator=gen, dtype=torch.float64)
        params += [w * (config.gain / math.sqrt(fan_in)), torch.zeros(fan_out, dtype=torch.float64)]
    return [p.to(dtype).requires_grad_(True) for p in params]


def _loss(config: StatsConfig, params: list[torch.Tensor], x: torch.Tensor, y: torch.Tensor,
          saturated: list[float] | None = None):  # fmt: skip  # noqa: ANN202
    """The mini-batch loss; with ``saturated`` (tanh only), the share of hidden units with
    |h| > 0.99 is appended to it."""
    act = torch.tanh if config.activation == "tanh" else torch.relu
    h, counts = x, [0, 0]
    for k in range(0, len(params), 2):
        h = h @ params[k].T + params[k + 1]
        if k < len(params) - 2:
            h = act(h)
            counts[0] += int((h.detach().abs() > 0.99).sum())
            counts[1] += h.numel()
    if saturated is not None and config.activation == "tanh":
        saturated.append(counts[0] / counts[1])
    if config.naive_loss:  # log of a softmax that can underflow to 0
        return -torch.log(torch.softmax(h, dim=1))[torch.arange(len(y)), y].mean()
    return F.cross_entropy(h, y)  # log-softmax computed stably


def _first_nan_node(loss: torch.Tensor, params: list[torch.Tensor]) -> tuple[str, int] | None:
    """Run backward with a hook on every node; the first node (in the order backward calls
    them) that returns a NaN, and which of its outputs: anomaly detection's check_nan."""
    found: list[tuple[str, int]] = []
    seen, stack, handles = set(), [loss.grad_fn], []

    def hook(node):  # noqa: ANN001, ANN202
        def check_outputs(grad_inputs, grad_outputs):  # noqa: ANN001, ANN202
            for i, g in enumerate(grad_inputs):
                if not found and g is not None and bool(torch.isnan(g).any()):
                    found.append((type(node).__name__, i))

        return check_outputs

    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        handles.append(node.register_hook(hook(node)))
        stack += [nxt for nxt, _ in node.next_functions]
    try:
        torch.autograd.grad(loss, params, allow_unused=True)
    finally:
        for h in handles:
            h.remove()
    return found[0] if found else None


def _train(config: StatsConfig, dtype: torch.dtype, progress: Callable | None, anomaly_at=None):  # noqa: ANN001, ANN202
    x_all, y_all, _, _ = load_data("digits")
    x_all = x_all.to(dtype)
    params = _parameters(config, dtype)
    gen = torch.Generator().manual_seed(int(config.seed) + 1)
    layers = len(params) // 2
    record_at = set(np.linspace(0, config.steps - 1, min(10, config.steps)).round().astype(int))
    out = {k: [] for k in ("losses", "norms", "totals", "clipped", "hist_steps", "counts",
                           "zeros", "abs_stats", "saturated")}  # fmt: skip
    nan = {"step": None, "layers": (), "source": None, "in_loss": False}
    for step in range(config.steps):
        idx = torch.randint(0, len(y_all), (config.batch,), generator=gen)
        for p in params:
            p.grad = None
        if step == anomaly_at:
            with torch.autograd.detect_anomaly(check_nan=True):
                _loss(config, params, x_all[idx], y_all[idx]).backward()
            return None
        loss = _loss(config, params, x_all[idx], y_all[idx], out["saturated"])
        loss.backward(retain_graph=True)  # kept only to locate a NaN, should there be one
        out["losses"].append(float(loss.detach()))
        out["norms"].append([float(params[2 * k].grad.norm()) for k in range(layers)])
        bad = [i for i, p in enumerate(params) if bool(torch.isnan(p.grad).any())]
        if bad or not math.isfinite(out["losses"][-1]):
            names = tuple(f"{'Wb'[i % 2]}{i // 2 + 1}" for i in bad)
            nan = {"step": step, "layers": names, "source": _first_nan_node(loss, params),
                   "in_loss": not math.isfinite(out["losses"][-1])}  # fmt: skip
            out["totals"].append(math.nan)
            out["clipped"].append(False)
            break
        if config.clip > 0:
            total = float(torch.nn.utils.clip_grad_norm_(params, config.clip))
        else:
            total = float(torch.linalg.vector_norm(torch.stack([p.grad.norm() for p in params])))
        out["totals"].append(total)
        out["clipped"].append(config.clip > 0 and total > config.clip)
        if step in record_at:
            out["hist_steps"].append(step)
            for k in range(layers):
                g = params[2 * k].grad.detach().abs().double().reshape(-1)
                nonzero = g[g > 0]
                sizes = np.clip(np.log10(nonzero.numpy()), BINS[0], BINS[-1])  # ends hold the rest
                out["counts"].append(np.histogram(sizes, BINS)[0])
                out["zeros"].append(int((g == 0).sum()))
                out["abs_stats"].append([float(g.min()), float(g.max()), g.numel(),
                                         float(g.sum()), float((g * g).sum())])  # fmt: skip
        with torch.no_grad():
            for p in params:
                p -= config.lr * p.grad
        if progress is not None:
            progress()
    hist = len(out["hist_steps"])
    return out, nan, hist, layers


# ----------------------------------------------------------------------------------------------
# Public API


def gradient_stats(
    config: StatsConfig, progress: Callable[[int, int], None] | None = None
) -> GradientStats:
    """Train and record the gradient statistics, in ``config.dtype`` and in the other one.

    Raises:
        ArgumentError: an unknown activation or precision, a setting out of range.
        BudgetError: a network, batch or run over :data:`STATS_BUDGET` (before any work).
    """
    _check(config)
    other = "float32" if config.dtype == "float64" else "float64"
    done, total = [0], 2 * config.steps

    def tick() -> None:
        done[0] += 1
        if progress is not None and done[0] % max(1, total // 50) == 0:
            progress(done[0], total)

    out, nan, hist, layers = _train(config, DTYPES[config.dtype], tick)
    other_out, other_nan, _, _ = _train(config, DTYPES[other], tick)
    shape = (hist, layers)
    return GradientStats(
        config, tuple(f"W{k + 1}" for k in range(layers)), np.array(out["losses"]),
        np.array(out["norms"]), np.array(out["totals"]), np.array(out["clipped"], dtype=bool),
        np.array(out["hist_steps"], dtype=int),
        np.array(out["counts"], dtype=int).reshape(*shape, len(BINS) - 1),
        np.array(out["zeros"], dtype=int).reshape(shape),
        np.array(out["abs_stats"]).reshape(*shape, 5), nan["step"], nan["layers"],
        nan["source"], nan["in_loss"], other, np.array(other_out["losses"]), other_nan["step"],
        np.array(out["saturated"]),
    )  # fmt: skip


def anomaly_message(config: StatsConfig) -> str | None:
    """What ``torch.autograd.detect_anomaly()`` says about the first step with a NaN gradient:
    the run is replayed to that step, which then runs inside the anomaly mode.

    Note:
        Anomaly mode is a switch for the whole process, not for one thread: every autograd
        call of every thread runs slower and checks for NaN while it is on. Call this only in
        a process of its own (the app runs it in a fresh one).

    Returns:
        The first line of its error ("Function 'X' returned nan values in its 0th output."),
        or None if this run has no NaN gradient.
    """
    _check(config)
    out, nan, _, _ = _train(config, DTYPES[config.dtype], None)
    if nan["step"] is None:
        return None
    with warnings.catch_warnings():  # the mode's own notice, and the forward traceback
        warnings.simplefilter("ignore")
        try:
            _train(config, DTYPES[config.dtype], None, anomaly_at=nan["step"])
        except RuntimeError as err:
            return str(err).splitlines()[0]
    return None


def stats_csv(stats: GradientStats) -> str:
    """One row per step: step, loss, total gradient norm, clipped, then each layer's norm."""
    head = ["step", "loss", "total_norm", "clipped", *(f"norm_{n}" for n in stats.layer_names)]
    rows = [",".join(head)]
    for i, loss in enumerate(stats.losses):
        norms = stats.layer_norms[i] if i < len(stats.layer_norms) else []
        cells = [i, repr(float(loss)), repr(float(stats.total_norms[i])), int(stats.clipped[i])]
        rows.append(",".join(str(c) for c in [*cells, *(repr(float(v)) for v in norms)]))
    return "\n".join(rows) + "\n"


def stats_json(stats: GradientStats) -> str:
    """Everything the run recorded, histograms included, as JSON (NaN and inf as null)."""

    def plain(value):  # noqa: ANN001, ANN202
        if isinstance(value, np.ndarray):
            return plain(value.tolist())
        if isinstance(value, list | tuple):
            return [plain(v) for v in value]
        if isinstance(value, float) and not math.isfinite(value):
            return None
        return value

    data = {k: plain(v) for k, v in asdict(stats).items() if k != "config"}
    return json.dumps({"config": asdict(stats.config), "bins": BINS.tolist(), **data})
