"""Hessian-free Newton on a small network: Newton steps from Hessian-vector products only.

A network's Hessian has n² entries (1.5 million for a 1,210-parameter digits model), but
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

SGD and Adam then train the same network from the same start for the same counted work: one
gradient per Hessian-free step plus ``HVP_GRADIENTS`` gradients per HVP.

This file is the experiment of hograd's Hessian-free tab, whole: the page runs it, and its
download is this file with the page's settings on the line under ``if __name__ ==
"__main__":``. Run it (``python hf.py``) and it prints what the page shows, one ``name value
...`` line each. It needs torch, numpy and scikit-learn (for the data sets, bundled with it: no
download). The ``# %%`` lines cut it into a notebook's cells.
"""

# %% Settings
import math
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import torch
import torch.nn.functional as F
from torch.func import grad, jvp

__all__ = [
    "HVP_GRADIENTS",
    "FlatAdam",
    "HFConfig",
    "HFRun",
    "conjugate_gradient",
    "first_order_passes",
    "func_form_gaps",
    "hf_step",
    "hf_step_func",
    "initial_parameters",
    "layer_blocks",
    "mlp_loss",
    "network_sizes",
    "report",
    "run",
    "saved_bytes",
    "training_data",
]

#: What one HVP counts as when the first-order runs get Hessian-free's work: this many gradients.
#: A count, not a measured time, so that a run does not depend on the machine's load. One HVP is
#: a forward and a backward pass through the gradient's graph: measured at 1.1-1.8 times a
#: gradient's time (hograd's docs/performance.md, ``hvp_over_grad``).
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


# %% The data and the network: every weight in one flat vector θ
def training_data(dataset: str) -> tuple[torch.Tensor, torch.Tensor]:
    """The training 80 % of ``dataset`` as hograd's network page splits it (a fixed order from
    torch.Generator(0), whatever the seed): x (float64), y (class labels)."""
    if dataset == "digits":
        from sklearn.datasets import load_digits

        x, y = load_digits(return_X_y=True)  # 8x8 images, bundled with scikit-learn
        x = x / 16.0  # pixel intensities 0..16 -> 0..1
    else:
        from sklearn.datasets import make_moons

        x, y = make_moons(n_samples=500, noise=0.2, random_state=0)
        x = (x - x.mean(axis=0)) / x.std(axis=0)
    order = torch.randperm(len(y), generator=torch.Generator().manual_seed(0)).numpy()
    cut = int(0.8 * len(y))
    x = torch.tensor(x[order], dtype=torch.float64)
    return x[:cut], torch.tensor(y[order], dtype=torch.long)[:cut]


def network_sizes(config: HFConfig) -> tuple[int, ...]:
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


def mlp_loss(sizes: tuple[int, ...], x: torch.Tensor, y: torch.Tensor) -> Callable:
    """The mean cross-entropy of the tanh MLP as a function of θ; the weights are views into
    the flat θ, so gradients land in θ."""

    def loss(theta: torch.Tensor) -> torch.Tensor:
        h = x  # (examples, sizes[0])
        blocks = layer_blocks(sizes)
        for k in range(len(sizes) - 1):
            (_, w0, w1), (_, b0, b1) = blocks[2 * k], blocks[2 * k + 1]
            weight = theta[w0:w1].view(sizes[k + 1], sizes[k])  # (fan_out, fan_in)
            h = torch.addmm(theta[b0:b1], h, weight.T)  # (examples, fan_out)
            if k < len(sizes) - 2:
                h = torch.tanh(h)  # smooth: the Hessian is not mostly zeros as with ReLU
        return F.cross_entropy(h, y)

    return loss


def initial_parameters(sizes: tuple[int, ...], seed: int) -> torch.Tensor:
    """θ as the network page draws it: W ~ N(0, 1/fan_in), b = 0, from torch.Generator(seed)."""
    gen = torch.Generator().manual_seed(int(seed))
    parts = []
    for name, a, b in layer_blocks(sizes):
        k = int(name[1:])
        scale = 1.0 / math.sqrt(sizes[k - 1]) if name[0] == "W" else 0.0
        parts.append(torch.randn(b - a, generator=gen, dtype=torch.float64) * scale)
    return torch.cat(parts)


# %% Conjugate gradient: (H + λI) d = −g with H seen only through products H v
def conjugate_gradient(hvp, g, damping, max_iters, tol=1e-8):
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


# %% One Hessian-free step: H v as one more backward pass through the gradient's graph
def hf_step(loss, theta, damping, cg_iters, tick=None):
    """One Hessian-free step at θ: (loss(θ), d, HVPs used, CG residual, model decrease,
    loss(θ + d)); d is None if the loss or its gradient is not finite at θ. ``tick()`` is
    called before each HVP."""
    t = theta.clone().requires_grad_(True)
    value = loss(t)
    (g,) = torch.autograd.grad(value, t, create_graph=True)  # <-- kept: H v = grad(g·v)
    if not (math.isfinite(float(value.detach())) and bool(torch.isfinite(g).all())):
        return float(value.detach()), None, 0, math.nan, 0.0, math.nan

    def hvp(vec: torch.Tensor) -> torch.Tensor:
        if tick is not None:
            tick()
        return torch.autograd.grad(g @ vec, t, retain_graph=True)[0]  # <-- H v: backward again

    d, used, residual, model = conjugate_gradient(hvp, g.detach(), damping, cg_iters)
    with torch.no_grad():
        new_loss = float(loss(theta + d))
    return float(value.detach()), d, used, residual, model, new_loss


# %% The same step with torch.func: H v by forward mode through the gradient function
def _quiet_forward_ad() -> None:
    """torch's first jvp imports its forward-AD decompositions, and that import calls
    ``torch.jit.script``, which torch itself deprecates: import them once, quietly."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated", DeprecationWarning)
        from torch._decomp import decompositions_for_jvp  # noqa: F401


def hf_step_func(loss, theta, damping, cg_iters, tick=None):
    """:func:`hf_step` by function transforms: g = ``grad(loss)(θ)`` and H v =
    ``jvp(grad(loss), (θ,), (v,))[1]``, forward mode over reverse mode, where :func:`hf_step`
    differentiates g·v once more (reverse over reverse). torch.func has no ``create_graph``
    flag: a transform records what an outer one needs. Both give H v without forming H, equal
    up to rounding, which CG amplifies step by step."""
    _quiet_forward_ad()
    value = float(loss(theta))
    g = grad(loss)(theta)
    if not (math.isfinite(value) and bool(torch.isfinite(g).all())):
        return value, None, 0, math.nan, 0.0, math.nan

    def hvp(vec: torch.Tensor) -> torch.Tensor:
        if tick is not None:
            tick()
        return jvp(grad(loss), (theta,), (vec,))[1]  # H v: forward mode through grad

    d, used, residual, model = conjugate_gradient(hvp, g, damping, cg_iters)
    with torch.no_grad():
        new_loss = float(loss(theta + d))
    return value, d, used, residual, model, new_loss


# %% First-order runs for the same counted work: SGD and Adam, full batch
def first_order_passes(gradients: int, hvps: int) -> int:
    """The steps each first-order run takes: Hessian-free's ``gradients`` and ``hvps``, each HVP
    counted as ``HVP_GRADIENTS`` gradients."""
    return gradients + HVP_GRADIENTS * hvps


class FlatAdam:
    """Adam with torch's defaults (betas 0.9 and 0.999, eps 1e-8), the same arithmetic as
    ``torch.optim.Adam``'s single-tensor step, on one flat θ (torch.optim's first use imports
    torch._dynamo: about a second, to train a two-layer network)."""

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


def _sgd(lr: float) -> Callable:
    def make(theta: torch.Tensor) -> Callable:
        def update(g: torch.Tensor) -> None:
            with torch.no_grad():
                theta.sub_(lr * g)

        return update

    return make


def _first_order(loss, theta0, passes, step, progress):
    """``passes`` steps (fewer if the loss stops being finite): (losses, seconds, status)."""
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


# %% What one gradient and one HVP cost: time and the memory their graphs hold
def medians(calls: dict[str, Callable[[], object]], rounds: int) -> dict[str, float]:
    """Median seconds of each call over ``rounds`` interleaved rounds (one call of each per
    round), so that a busy moment of the machine hits every call alike."""
    times: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(rounds):
        for name, call in calls.items():
            start = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - start)
    return {name: float(np.median(t)) for name, t in times.items()}


def saved_bytes(step: Callable[[], object]) -> int:
    """Bytes of the distinct storages autograd saves for backward while ``step()`` runs: every
    tensor an operation saves passes through a ``saved_tensors_hooks`` pack hook; each storage
    is counted once and kept alive until the count is done (a freed address reused later
    cannot hide it). For a gradient or an HVP, nothing saved is freed before the last backward
    pass starts, so this is what the step's graphs hold at their largest."""
    storages: dict[int, torch.UntypedStorage] = {}

    def pack(tensor: torch.Tensor) -> torch.Tensor:
        storage = tensor.untyped_storage()
        storages.setdefault(storage.data_ptr(), storage)
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        step()
    return sum(storage.nbytes() for storage in storages.values())


# %% The run: Hessian-free steps, then SGD and Adam for the same counted work
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
            hold for backward at their largest (:func:`saved_bytes`), at the start point.
        thetas, directions: θ at each step and the CG direction there (only if ``keep``).
        func_losses: the same Hessian-free steps by :func:`hf_step_func` (H v by forward mode
            through the gradient); the same as ``hf_losses`` up to rounding.
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


def _hessian_free(loss, theta0, config, step, tick=lambda: None, keep=False):
    """``config.steps`` steps of ``step`` (:func:`hf_step` or :func:`hf_step_func`) from θ₀,
    λ adapted by the Levenberg-Marquardt rule: a dict of per-step lists."""
    theta, lam = theta0.clone(), config.damping
    out = {
        name: []
        for name in (
            "losses",
            "hvps",
            "lams",
            "residuals",
            "rhos",
            "accepted",
            "thetas",
            "directions",
            "seconds",
        )
    }
    out["passes"], out["status"], start = [0], "ok", time.perf_counter()
    for _ in range(config.steps):
        tick()  # the gradient
        value, d, used, residual, model, new_loss = step(loss, theta, lam, config.cg_iters, tick)
        if not out["losses"]:
            out["losses"].append(value)
            out["seconds"].append(0.0)
        if d is None:
            out["status"] = "diverged"
            break
        if keep:
            out["thetas"].append(theta.numpy().copy())
            out["directions"].append(d.numpy().copy())
        rho = (new_loss - out["losses"][-1]) / model if model < 0 else -math.inf
        accepted = bool(rho > 0 and math.isfinite(new_loss))
        for name, v in (
            ("hvps", used),
            ("lams", lam),
            ("residuals", residual),
            ("rhos", rho),
            ("accepted", accepted),
        ):
            out[name].append(v)
        if rho < 0.25:  # Levenberg-Marquardt: trust the quadratic model less ...
            lam *= 1.5
        elif rho > 0.75:  # ... or more
            lam *= 2 / 3
        if accepted:
            theta = theta + d
        out["losses"].append(new_loss if accepted else out["losses"][-1])
        out["passes"].append(out["passes"][-1] + 1 + used)
        out["seconds"].append(time.perf_counter() - start)
    return out


def run(
    config: HFConfig,
    progress: Callable[[int, int], None] | None = None,
    step: Callable = hf_step,
    keep: bool = False,
) -> HFRun:
    """Train with Hessian-free Newton, then with SGD and Adam for its work counted in
    gradients (:func:`first_order_passes`); measure one gradient and one HVP at the start.

    Args:
        config: network, data and settings.
        progress: called as ``progress(done, total)`` in passes, about 50 times in all.
        step: :func:`hf_step`, or :func:`hf_step_func` (the same step by torch.func).
        keep: also return θ and the CG direction of every step (for the tests).
    """
    sizes = network_sizes(config)
    x, y = training_data(config.dataset)
    loss = mlp_loss(sizes, x, y)
    theta0 = initial_parameters(sizes, config.seed)
    n = theta0.numel()
    # at most: the Hessian-free passes, then each first-order run's (first_order_passes)
    total = config.steps * (1 + config.cg_iters + 2 * (1 + HVP_GRADIENTS * config.cg_iters))
    every, done = max(1, total // 50), [0]

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
    costs = medians(
        {
            "grad": lambda: torch.autograd.grad(loss(t), t),
            "hvp": lambda: torch.autograd.grad(g_kept @ v, t, retain_graph=True),
        },
        15,
    )

    hf = _hessian_free(loss, theta0, config, step, tick, keep)
    budget = first_order_passes(len(hf["hvps"]), sum(hf["hvps"]))  # a gradient per step taken
    sgd = _first_order(loss, theta0, budget, _sgd(config.sgd_lr), tick)
    adam = _first_order(loss, theta0, budget, lambda th: FlatAdam(th, config.adam_lr).step, tick)
    func = _hessian_free(loss, theta0, config, hf_step_func)
    losses = hf["losses"]
    return HFRun(
        config,
        n,
        len(y),
        np.array(losses),
        np.array(hf["passes"][: len(losses)]),
        np.array(hf["seconds"][: len(losses)]),
        np.array(hf["hvps"]),
        np.array(hf["lams"]),
        np.array(hf["residuals"]),
        np.array(hf["rhos"]),
        np.array(hf["accepted"]),
        sgd[0],
        sgd[1],
        adam[0],
        adam[1],
        {"hf": hf["status"], "sgd": sgd[2], "adam": adam[2]},
        costs["grad"],
        costs["hvp"],
        memory["grad"],
        memory["hvp"],
        tuple(hf["thetas"]),
        tuple(hf["directions"]),
        np.array(func["losses"]),
    )


def func_form_gaps(result: HFRun) -> tuple[float, float]:
    """|func − plain| / |plain| between ``result.func_losses`` and ``result.hf_losses``: after
    the last step, and the largest over the steps (NaN if there is nothing to compare)."""
    n = min(len(result.hf_losses), len(result.func_losses))
    if n == 0:
        return math.nan, math.nan
    plain, func = result.hf_losses[:n], result.func_losses[:n]
    gaps = np.abs(func - plain) / np.maximum(np.abs(plain), 1e-300)
    return float(gaps[-1]), float(gaps.max())


# %% What the page shows, one "name value ..." line each
def report(result: HFRun) -> None:
    """Print the run's numbers: the losses after each step or pass, CG's work per step, and
    what one gradient and one HVP cost (seconds vary from run to run, the rest does not)."""
    print("parameters", result.parameters)
    print("hf_losses", *result.hf_losses.tolist())
    print("hf_passes", *result.hf_passes.tolist())
    print("hvps", *result.hvps.tolist())
    print("rho", *result.rho.tolist())
    print("sgd_losses", *result.sgd_losses.tolist())
    print("adam_losses", *result.adam_losses.tolist())
    print("status", result.status["hf"], result.status["sgd"], result.status["adam"])
    print("saved_bytes", result.grad_saved_bytes, result.hvp_saved_bytes)  # gradient, HVP
    print("seconds", result.grad_seconds, result.hvp_seconds)
    print("func_gap", *func_form_gaps(result))  # after the last step, the largest


# %% Run it
if __name__ == "__main__":
    # the settings: the page's download writes its own on the next line
    config = HFConfig()
    step = hf_step  # or hf_step_func: the same step with torch.func's grad and jvp
    torch.set_num_threads(1)  # a network this small: a second thread only adds waiting
    result = run(config, step=step)
    report(result)
