"""Curvature of a trained network's loss, without ever forming its Hessian.

The network and its loss come from :mod:`hograd_core.network`. All weights live in one flat
vector θ, so the Hessian-vector product is exactly the typed-function recipe, on n parameters
instead of 2::

    g  = grad(loss(θ), θ, create_graph=True)       # one forward, one backward, graph kept
    Hv = grad(g @ v, θ, retain_graph=True)          # each further HVP: one more backward

From H v alone: the top eigenvalues by Lanczos (scipy ``eigsh`` on a ``LinearOperator``) and by
power iteration, the trace by Hutchinson (E[zᵀHz] = tr H for random ±1 vectors z), and the loss
along the top eigenvector against a random direction. Up to 2,000 parameters the full Hessian
is built too (row i is the gradient of g_i), so every iterative answer can be checked.

What is computed depends on the model and the settings only, never on a time measured during
the run: the HVPs are counted against the budget before any work, and the full Hessian is
built whenever the model has at most 2,000 parameters. The timings reported are measurements
for the learner to read, with their ratio given only when it is resolved
(:func:`hograd_core.timing.resolved_ratio`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from .errors import BudgetError
from .network import DTYPE, NETWORK_BUDGET, TrainedNet, analysis_limit, analysis_loss, check_range
from .timing import resolved_ratio

__all__ = ["NetCurvature", "curvature", "full_hessian", "hessian_vector_product"]


@dataclass(frozen=True)
class NetCurvature:
    """What Hessian-vector products tell about the loss at the trained parameters.

    Attributes:
        parameters, examples: n, and the examples in the analysed loss.
        loss: the loss there.
        grad_seconds, hvp_seconds: median time of one gradient, and of one HVP on the kept
            gradient graph (the marginal cost inside Lanczos), timed interleaved.
        hvp_over_grad: the HVP's time over the gradient's, or None when the timings do not
            resolve it (:func:`hograd_core.timing.resolved_ratio`).
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
    hvp_over_grad: float | None = None


# ----------------------------------------------------------------------------------------------
# Private helpers: H v on a kept graph


class _Hessian:
    """H v for the loss at θ, by double backward on one gradient graph kept for all calls."""

    def __init__(self, loss: Callable, parameters: np.ndarray) -> None:
        self.theta = torch.tensor(parameters, dtype=DTYPE, requires_grad=True)
        self.value = loss(self.theta)
        (self.g,) = torch.autograd.grad(self.value, self.theta, create_graph=True)
        self.calls = 0

    def __call__(self, v: np.ndarray) -> np.ndarray:
        self.calls += 1
        v_t = torch.from_numpy(np.asarray(v, dtype=np.float64).reshape(-1).copy())
        (hv,) = torch.autograd.grad(self.g @ v_t, self.theta, retain_graph=True)
        return hv.numpy().copy()


# ----------------------------------------------------------------------------------------------
# Public API


def hessian_vector_product(trained: TrainedNet, vector: np.ndarray) -> np.ndarray:
    """H v of the analysed loss (a fixed batch of training examples) at the trained θ."""
    v = np.asarray(vector, dtype=np.float64).reshape(-1)
    if v.size != trained.parameters.size:
        raise BudgetError(
            "hvp.net.budget.vector_size", expected=trained.parameters.size, got=v.size
        )
    loss, _ = analysis_loss(trained)
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
    loss, _ = analysis_loss(trained)
    h = _Hessian(loss, trained.parameters)
    hessian = torch.empty((n, n), dtype=DTYPE)  # one n x n array, filled row by row
    for i in range(n):
        hessian[i] = torch.autograd.grad(h.g[i], h.theta, retain_graph=True)[0]
    out = hessian.numpy()
    for i in range(n - 1):  # symmetric up to rounding: (H + Hᵀ)/2, in place, a row at a time
        mean = (out[i, i + 1 :] + out[i + 1 :, i]) / 2
        out[i, i + 1 :] = mean
        out[i + 1 :, i] = mean
    return out


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
        Power iteration's direction converges at the rate |λ₂/λ₁| per step and its Rayleigh
        quotient at about |λ₂/λ₁|² (H is symmetric), so with close top eigenvalues 20 steps
        stay well short of λ₁; Lanczos uses the same HVPs far better.

    Raises:
        BudgetError: an argument outside its range, or more HVPs than the model's size allows
            (:func:`hograd_core.network.analysis_limit`), checked before any work.
    """
    b = NETWORK_BUDGET
    n = trained.parameters.size
    check_range("hvp.net.budget.top_k", top_k, 1, min(b.max_top_k, n - 1))
    check_range("hvp.net.budget.power_steps", power_steps, 1, b.max_power_steps)
    check_range("hvp.net.budget.probes", probes, 2, b.max_probes)
    most = analysis_limit(n)
    if power_steps + probes > most:
        raise BudgetError("hvp.net.budget.hvps", n=f"{n:,}", most=most, got=power_steps + probes)
    from scipy.sparse.linalg import ArpackNoConvergence, LinearOperator, eigsh

    gen = torch.Generator().manual_seed(int(seed))
    loss, examples = analysis_loss(trained)

    def randn() -> np.ndarray:
        return torch.randn(n, generator=gen, dtype=DTYPE).numpy()

    h = _Hessian(loss, trained.parameters)
    grad_times, hvp_times = [], []
    for _ in range(_TIMING_ROUNDS):  # one gradient vs one HVP on the kept graph, interleaved
        start = time.perf_counter()
        theta = torch.tensor(trained.parameters, requires_grad=True)
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
    zs = (torch.randint(0, 2, (probes, n), generator=gen, dtype=DTYPE) * 2 - 1).numpy()
    samples = np.array([float(z @ h(z)) for z in zs])

    # Sharp vs flat: the loss along the top eigenvector and along a random direction.
    lam = float(lanczos[0])
    reach = float(np.clip(2 * math.sqrt(2 / lam), 1e-3, 10)) if lam > 0 else 1.0
    half = _ALONG_POINTS // 2  # α = 0 exactly in the middle
    alphas = reach * np.arange(-half, half + 1) / half
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
        trace_exact = float(np.trace(hessian))
        heatmap, block = _heatmap(hessian)
        # LAPACK's divide and conquer (numpy's eigvalsh) in the array itself: no copy of H
        from scipy.linalg import eigvalsh  # imported where used, as eigsh above

        exact = eigvalsh(hessian, driver="evd", overwrite_a=True, check_finite=False)[::-1]
        del hessian
        hessian_seconds = time.perf_counter() - start
    return NetCurvature(
    parameters=n, examples=examples, loss=float(h.value.detach()),
    grad_seconds=grad_cost, hvp_seconds=hvp_cost,
    lanczos=lanczos, lanczos_hvps=lanczos_hvps, lanczos_seconds=lanczos_seconds,
    lanczos_residual=lanczos_residual, power=np.array(power), power_seconds=power_seconds,
    power_residual=power_residual, exact=exact,
    reference=float(exact[0]) if exact is not None else lam, probes=samples,
    trace=float(samples.mean()), trace_error=float(samples.std(ddof=1) / math.sqrt(probes)),
    trace_exact=trace_exact, alphas=alphas, loss_top=loss_top, loss_random=loss_random,
    model_top=model_top, heatmap=heatmap, heatmap_block=block,
    hessian_seconds=hessian_seconds, full_bytes=n * n * 8, hvp_bytes=4 * n * 8,
    hvp_over_grad=resolved_ratio(hvp_times, grad_times),
    )  # fmt: skip


#: Rounds of one gradient and one HVP, timed interleaved for the cost sentence.
_TIMING_ROUNDS = 7
#: Loss evaluations along each of the two directions of the sharp-vs-flat plot (odd: α = 0).
_ALONG_POINTS = 41


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
