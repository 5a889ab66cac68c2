"""Gradient statistics of a deep network: per-layer norms and histograms, clipping, NaN checks,
float32 against float64.

A deep MLP (tanh or ReLU) is trained on scikit-learn's 8x8 digits with mini-batch SGD, and
after every backward pass the run records what TensorBoard would show: the norm of each layer's
weight gradient and, at a few steps, the histogram of its entries' sizes. Backpropagation
multiplies one factor per layer, so norms that shrink (vanishing) or grow (exploding) layer
after layer show up as a fan of lines on a log scale.

The NaN check is the one to put in a training loop: ``torch.isnan(p.grad).any()`` for every
parameter after ``backward()``. To find the operation that made the first NaN, this file walks
the step's autograd graph with a hook on every node and reports the first node, in the order
backward runs them, whose output holds a NaN: the check ``torch.autograd.detect_anomaly`` makes,
without switching on its process-wide mode (every session of the app shares one process).
:func:`anomaly_message` runs the real ``detect_anomaly``; call it only in a process of its own.

This file is the experiment of hograd's gradient-statistics tab, whole: the page runs it, and
its download is this file with the page's settings on the line under ``if __name__ ==
"__main__":``. Run it (``python stats.py``) and it prints what the page shows, one ``name value
...`` line each. It needs torch, numpy and scikit-learn (for the digits, bundled with it: no
download). The ``# %%`` lines cut it into a notebook's cells.
"""

# %% Settings
import json
import math
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import numpy as np
import torch
import torch.nn.functional as F
from torch.func import grad_and_value

__all__ = [
    "BINS",
    "DTYPES",
    "SCENARIOS",
    "GradientStats",
    "StatsConfig",
    "anomaly_message",
    "digits",
    "first_nan_node",
    "gradients",
    "gradients_func",
    "initial_parameters",
    "loss_of",
    "report",
    "run",
    "stats_csv",
    "stats_json",
]

#: Edges of the histograms of log10 |g| (entries exactly 0 are counted apart).
BINS = np.linspace(-16.0, 4.0, 41)
DTYPES = {"float32": torch.float32, "float64": torch.float64}


@dataclass(frozen=True)
class StatsConfig:
    activation: str = "tanh"  # "tanh" or "relu"
    depth: int = 10  # hidden layers
    width: int = 32  # units in each hidden layer
    lr: float = 0.1  # plain SGD
    steps: int = 100  # SGD steps
    batch: int = 128  # examples per mini-batch
    gain: float = 1.0  # initial W ~ N(0, gain² / fan_in)
    clip: float = 0.0  # max_norm of torch.nn.utils.clip_grad_norm_; 0: no clipping
    dtype: str = "float64"  # "float64" or "float32"; the run is repeated in the other one
    naive_loss: bool = False  # -log(softmax(z)) written out instead of F.cross_entropy
    seed: int = 0  # initial weights (torch.Generator(seed)) and batches (seed + 1)


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


# %% The data and the network: [W1, b1, W2, b2, ...], both precisions from the same numbers
def digits() -> tuple[torch.Tensor, torch.Tensor]:
    """The training part of scikit-learn's digits: x (1437, 64) in float64 (pixels 0..16 scaled
    to 0..1), y (1437,); the same fixed 80/20 split (torch.Generator(0)) as hograd's other
    pages."""
    from sklearn.datasets import load_digits  # bundled with scikit-learn: no download

    x, y = load_digits(return_X_y=True)
    x = x / 16.0
    order = torch.randperm(len(y), generator=torch.Generator().manual_seed(0)).numpy()
    cut = int(0.8 * len(y))
    x = torch.tensor(x[order], dtype=torch.float64)[:cut]
    return x, torch.tensor(y[order], dtype=torch.long)[:cut]


def initial_parameters(config: StatsConfig, dtype: torch.dtype) -> list[torch.Tensor]:
    """[W1, b1, W2, b2, ...] drawn in float64 from torch.Generator(seed), then cast: both
    precisions start from the same numbers (rounded to float32 for float32)."""
    gen = torch.Generator().manual_seed(int(config.seed))
    sizes = [64, *[config.width] * config.depth, 10]
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:], strict=False):
        w = torch.randn(fan_out, fan_in, generator=gen, dtype=torch.float64)  # (out, in)
        params += [w * (config.gain / math.sqrt(fan_in)), torch.zeros(fan_out, dtype=torch.float64)]
    return [p.to(dtype).requires_grad_(True) for p in params]


def loss_of(config, params, x, y, saturated=None):
    """The mini-batch loss; with ``saturated`` (a list, tanh only), the share of hidden units
    with |h| > 0.99 (tanh′ < 0.02) is appended to it."""
    act = torch.tanh if config.activation == "tanh" else torch.relu
    h, counts = x, [0, 0]  # x (B, 64)
    for k in range(0, len(params), 2):
        h = h @ params[k].T + params[k + 1]  # (B, fan_out)
        if k < len(params) - 2:
            h = act(h)
            counts[0] += int((h.detach().abs() > 0.99).sum())
            counts[1] += h.numel()
    if saturated is not None and config.activation == "tanh":
        saturated.append(counts[0] / counts[1])
    if config.naive_loss:  # log of a softmax that can underflow to 0
        return -torch.log(torch.softmax(h, dim=1))[torch.arange(len(y)), y].mean()
    return F.cross_entropy(h, y)  # log-softmax computed stably


# %% One step's gradients: first derivatives only, by autograd or by torch.func
def gradients(config, params, x, y, saturated=None):
    """(loss, [∂L/∂W1, ∂L/∂b1, ...]) of one mini-batch by ``loss.backward()``."""
    for p in params:
        p.grad = None
    loss = loss_of(config, params, x, y, saturated)
    loss.backward()  # <-- no create_graph: statistics need first derivatives only
    return float(loss.detach()), [p.grad for p in params]


def gradients_func(config, params, x, y, saturated=None):
    """:func:`gradients` by ``torch.func.grad_and_value``: the loss as a function of the
    weights, its gradients returned, not stored in ``.grad``. For an ``nn.Module``,
    ``torch.func.functional_call(model, params, (x,))`` plays ``loss_of``'s part."""
    counts: list[float] = []  # the saturation count, read outside the transform
    value_and_grads = grad_and_value(lambda ps: loss_of(config, ps, x, y, counts))
    grads, loss = value_and_grads([p.detach() for p in params])
    if saturated is not None:
        saturated.extend(counts)
    return float(loss), list(grads)


# %% Where the first NaN came from: a hook on every node of the backward graph
def first_nan_node(loss: torch.Tensor, params: list[torch.Tensor]) -> tuple[str, int] | None:
    """Run backward with a hook on every node; the first node (in the order backward calls
    them) that returns a NaN, and which of its outputs: anomaly detection's check_nan."""
    found: list[tuple[str, int]] = []
    seen, stack, handles = set(), [loss.grad_fn], []

    def hook(node):
        def check_outputs(grad_inputs, grad_outputs):
            for i, g in enumerate(grad_inputs):
                if not found and g is not None and bool(torch.isnan(g).any()):
                    found.append((type(node).__name__, i))

        return check_outputs

    # Its own short walk, not hograd_core.autograd_walk: this file is the download and runs
    # with torch and numpy alone.
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


# %% Training, recording what TensorBoard would show
def _train(config, dtype, progress=None, anomaly_at=None, gradient=gradients):
    x_all, y_all = digits()
    x_all = x_all.to(dtype)
    params = initial_parameters(config, dtype)
    gen = torch.Generator().manual_seed(int(config.seed) + 1)
    layers = len(params) // 2
    record_at = set(np.linspace(0, config.steps - 1, min(10, config.steps)).round().astype(int))
    out = {
        k: []
        for k in (
            "losses",
            "norms",
            "totals",
            "clipped",
            "hist_steps",
            "counts",
            "zeros",
            "abs_stats",
            "saturated",
        )
    }
    nan = {"step": None, "layers": (), "source": None, "in_loss": False}
    for step in range(config.steps):
        idx = torch.randint(0, len(y_all), (config.batch,), generator=gen)
        if step == anomaly_at:
            for p in params:
                p.grad = None
            with torch.autograd.detect_anomaly(check_nan=True):
                loss_of(config, params, x_all[idx], y_all[idx]).backward()
            return None
        loss, grads = gradient(config, params, x_all[idx], y_all[idx], out["saturated"])
        for p, g in zip(params, grads, strict=True):
            p.grad = g
        out["losses"].append(loss)
        out["norms"].append([float(params[2 * k].grad.norm()) for k in range(layers)])
        bad = [i for i, p in enumerate(params) if bool(torch.isnan(p.grad).any())]
        if bad or not math.isfinite(loss):  # <-- the NaN check: stop before the update
            names = tuple(f"{'Wb'[i % 2]}{i // 2 + 1}" for i in bad)
            again = loss_of(config, params, x_all[idx], y_all[idx])  # the step's graph, again
            nan = {
                "step": step,
                "layers": names,
                "source": first_nan_node(again, params),
                "in_loss": not math.isfinite(loss),
            }
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
                out["abs_stats"].append(
                    [
                        float(g.min()),
                        float(g.max()),
                        g.numel(),
                        float(g.sum()),
                        float((g * g).sum()),
                    ]
                )
        with torch.no_grad():
            for p in params:
                p -= config.lr * p.grad
        if progress is not None:
            progress()
    hist = len(out["hist_steps"])
    return out, nan, hist, layers


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


def run(
    config: StatsConfig,
    progress: Callable[[int, int], None] | None = None,
    gradient: Callable = gradients,
) -> GradientStats:
    """Train and record the gradient statistics, in ``config.dtype`` and in the other one.

    Args:
        config: the network, the training and the precision.
        progress: called as ``progress(done, total)`` in steps of both runs, about 50 times.
        gradient: :func:`gradients`, or :func:`gradients_func` (the same by torch.func).
    """
    other = "float32" if config.dtype == "float64" else "float64"
    done, total = [0], 2 * config.steps

    def tick() -> None:
        done[0] += 1
        if progress is not None and done[0] % max(1, total // 50) == 0:
            progress(done[0], total)

    out, nan, hist, layers = _train(config, DTYPES[config.dtype], tick, gradient=gradient)
    other_out, other_nan, _, _ = _train(config, DTYPES[other], tick, gradient=gradient)
    shape = (hist, layers)
    return GradientStats(
        config,
        tuple(f"W{k + 1}" for k in range(layers)),
        np.array(out["losses"]),
        np.array(out["norms"]),
        np.array(out["totals"]),
        np.array(out["clipped"], dtype=bool),
        np.array(out["hist_steps"], dtype=int),
        np.array(out["counts"], dtype=int).reshape(*shape, len(BINS) - 1),
        np.array(out["zeros"], dtype=int).reshape(shape),
        np.array(out["abs_stats"]).reshape(*shape, 5),
        nan["step"],
        nan["layers"],
        nan["source"],
        nan["in_loss"],
        other,
        np.array(other_out["losses"]),
        other_nan["step"],
        np.array(out["saturated"]),
    )


# %% What detect_anomaly says: the run replayed to its first NaN, that step in anomaly mode
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
    out, nan, _, _ = _train(config, DTYPES[config.dtype])
    if nan["step"] is None:
        return None
    with warnings.catch_warnings():  # the mode's own notice, and the forward traceback
        warnings.simplefilter("ignore")
        try:
            _train(config, DTYPES[config.dtype], anomaly_at=nan["step"])
        except RuntimeError as err:
            return str(err).splitlines()[0]
    return None


# %% The run as files: CSV (one row per step) and JSON (everything, histograms included)
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

    def plain(value):
        if isinstance(value, np.ndarray):
            return plain(value.tolist())
        if isinstance(value, list | tuple):
            return [plain(v) for v in value]
        if isinstance(value, float) and not math.isfinite(value):
            return None
        return value

    data = {k: plain(v) for k, v in asdict(stats).items() if k != "config"}
    return json.dumps({"config": asdict(stats.config), "bins": BINS.tolist(), **data})


# %% What the page shows, one "name value ..." line each
def report(stats: GradientStats) -> None:
    """Print the run's numbers: each step's loss in both precisions, each layer's weight-
    gradient norm at the last step, where the NaN check stopped each run ("none" if it did
    not) and what the NaN locator found, and the share of saturated tanh units per step."""
    print("loss", *stats.losses.tolist())
    print("loss_" + stats.other_dtype, *stats.other_losses.tolist())
    print("norms", *stats.layer_norms[-1].tolist())  # W1, W2, ... at the last step
    print("clipped", int(stats.clipped.sum()))
    print("nan_step", "none" if stats.nan_step is None else stats.nan_step)
    print("nan_layers", *stats.nan_layers or ("none",))
    print("nan_source", *stats.nan_source or ("none",))
    print("other_nan_step", "none" if stats.other_nan_step is None else stats.other_nan_step)
    if stats.saturated.size:
        print("saturated", *stats.saturated.tolist())


# %% Run it
if __name__ == "__main__":
    # the settings: the page's download writes its own on the next line
    config = StatsConfig()
    gradient = gradients  # or gradients_func: the same gradients by torch.func
    anomaly = False  # True: also replay the first NaN step inside detect_anomaly (slow)
    torch.set_num_threads(1)  # tensors this small: a second thread only adds waiting
    stats = run(config, gradient=gradient)
    report(stats)
    if anomaly:
        print("anomaly", anomaly_message(config))
