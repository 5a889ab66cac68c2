"""Curvature of a typed function at a point: Hv three ways, the second-derivative test, power
iteration, 1-D slices along the eigenvectors and the 2-D picture.

Everything here is built on one idea: H v is the gradient of the scalar ∇f·v, so it costs about
two gradients and never needs the n x n matrix H. Three ways to compute it, all in PyTorch::

    g  = grad(f(w), w, create_graph=True); Hv = grad(g @ v, w)    # double backward
    Hv = torch.func.jvp(torch.func.grad(f), (w,), (v,))[1]        # forward-over-reverse
    Hv = torch.autograd.functional.hvp(f, w, v)[1]                # the "double-backward trick"

Power iteration needs nothing but H u, so it runs on the gradient graph kept from one forward
pass: u ← Hu/|Hu|, and the Rayleigh quotient uᵀHu converges to the eigenvalue of largest size.
"""

from __future__ import annotations

import functools
import math
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from .errors import ArgumentError, BudgetError
from .hessian import HVPResult, _vector, hvp
from .language import Function

__all__ = [
    "CURVATURE_BUDGET", "METHODS", "CurvatureBudget", "Exploration", "Grid", "PowerIteration",
    "Slices", "ThreeWays", "Verdict", "explore", "grid", "hvp_three_ways", "power_iteration",
    "slices", "verdict",
]  # fmt: skip

#: The three ways of computing H v, in the order they are shown.
METHODS: tuple[str, ...] = ("double_backward", "forward_over_reverse", "functional_hvp")


@dataclass(frozen=True)
class CurvatureBudget:
    """Limits on one request (each keeps the page responsive for a whole class)."""

    max_power_steps: int = 100  # one HVP each; every example here converges long before
    max_repeats: int = 50  # timing repeats per method
    max_samples: int = 401  # points on one slice
    max_grid: int = 121  # points per side of the contour grid (121² evaluations)
    max_radius: float = 100.0  # half-width of the window around the point


CURVATURE_BUDGET = CurvatureBudget()


@dataclass(frozen=True)
class ThreeWays:
    """H v by three PyTorch routes, checked against H·v and timed side by side.

    Attributes:
        reference: H·v with H built row by row (the check), shape (n,).
        values: shape (3, n), row i from ``METHODS[i]``.
        max_error: shape (3,), the largest |Hv - H·v| component of each method.
        seconds: shape (3,), median time of one call, measured interleaved.
        repeats: calls per method.
    """

    reference: np.ndarray
    values: np.ndarray
    max_error: np.ndarray
    seconds: np.ndarray
    repeats: int


@dataclass(frozen=True)
class Verdict:
    """The second-derivative test, with the reason it gave its answer.

    Attributes:
        kind: "minimum", "maximum", "saddle" or "degenerate".
        reason: "positive_definite", "negative_definite", "indefinite", "zero_eigenvalue" or
            "not_finite": which property of the Hessian decided (or made the test fail).
        critical: whether ∇f = 0; if not, ``kind`` describes the shape of the curvature only.
        minors: leading principal minors D1..Dn (Sylvester's criterion; D2 = fxx fyy - fxy²).
        positive, negative, zero: how many eigenvalues have each sign (zero: within tolerance).
        tolerance: eigenvalues smaller than this in size count as zero.
    """

    kind: str
    reason: str
    critical: bool
    minors: tuple[float, ...]
    positive: int
    negative: int
    zero: int
    tolerance: float


@dataclass(frozen=True)
class PowerIteration:
    """u_{k+1} = H u_k / |H u_k| from u_0 = v/|v|, one HVP per step.

    Attributes:
        iterates: shape (steps + 1, n), unit vectors u_0..u_K (NaN after a breakdown).
        rayleigh: shape (steps + 1,), u_kᵀ H u_k.
        alignment: shape (steps + 1,), |u_k · e| with e the target eigenvector (1 = aligned).
        target: the eigenvalue of largest size (from the full Hessian, as the check).
        target_vector: its unit eigenvector.
        ratio: |λ₂| / |λ₁|; the error shrinks by about this factor per step (1: no progress).
        converged_at: the first step from which the Rayleigh quotient stays within 1e-6
            (relative) of the target, or None.
        status: "ok", "zero_start" (v = 0), "hv_zero" (H u = 0: u lies in the null space of
            H) or "not_finite".
    """

    iterates: np.ndarray
    rayleigh: np.ndarray
    alignment: np.ndarray
    target: float
    target_vector: np.ndarray
    ratio: float
    converged_at: int | None
    status: str


@dataclass(frozen=True)
class Slices:
    """f along each eigenvector, next to the quadratic model the Hessian predicts.

    Attributes:
        t: shape (m,), the distance from the point along the unit eigenvector.
        eigenvalues: shape (n,), ascending; directions[:, i] is the i-th eigenvector.
        values: shape (n, m), f(p + t e_i).
        model: shape (n, m), f(p) + t ∇f·e_i + ½ t² λ_i.
    """

    t: np.ndarray
    eigenvalues: np.ndarray
    directions: np.ndarray
    values: np.ndarray
    model: np.ndarray


@dataclass(frozen=True)
class Grid:
    """f on a square window around a point of a two-variable function (NaN where undefined).

    Attributes:
        x: shape (k,); y: shape (k,); z: shape (k, k) with z[j, i] = f(x[i], y[j]).
    """

    x: np.ndarray
    y: np.ndarray
    z: np.ndarray


@dataclass(frozen=True)
class Exploration:
    """Everything the typed-function view shows, from one call."""

    result: HVPResult
    verdict: Verdict
    ways: ThreeWays | None  # None when asked without (the timing loop is most of the cost)
    power: PowerIteration
    slices: Slices
    grid: Grid | None  # only for functions of two variables


# ----------------------------------------------------------------------------------------------
# Private helpers


def _check(key: str, value: float, low: float, high: float) -> None:
    """Refuse ``value`` outside [low, high] with the message ``key`` (NaN is refused too)."""
    if not (low <= value <= high):
        cls = BudgetError if value > high else ArgumentError  # NaN and too small: ArgumentError
        raise cls(key, low=low, high=high, got=value)


def _flat(fn: Function) -> Callable[[torch.Tensor], torch.Tensor]:
    """f as a function of one vector w of shape (n,), the form torch.func transforms need."""
    names = fn.variables
    return lambda w: fn.torch({name: w[i] for i, name in enumerate(names)})


def _values(fn: Function, points: np.ndarray) -> np.ndarray:
    """f at many points at once: ``points`` has shape (m, n); returns shape (m,), inf -> NaN."""
    env = {name: torch.from_numpy(points[:, i].copy()) for i, name in enumerate(fn.variables)}
    with torch.no_grad():
        out = fn.torch(env).detach().numpy().astype(np.float64)
    out = np.broadcast_to(out, (points.shape[0],)).copy()
    out[~np.isfinite(out)] = np.nan
    return out


def _gradient_graph(fn: Function, point: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """One forward pass and one backward with create_graph=True; then u -> H u by a second
    backward through the kept graph (retain_graph=True), as often as needed."""
    w = torch.tensor(point, dtype=torch.float64, requires_grad=True)
    out = _flat(fn)(w)
    g = torch.autograd.grad(out, w, create_graph=True)[0] if out.requires_grad else None

    def times(u: np.ndarray) -> np.ndarray:
        if g is None or not g.requires_grad:  # ∇f does not depend on w: H = 0
            return np.zeros_like(u)
        u_t = torch.from_numpy(u.copy())
        (hu,) = torch.autograd.grad(g @ u_t, w, retain_graph=True)  # ∇(∇f·u) = H u
        return hu.numpy().copy()

    return times


def _double_backward(f: Callable, w: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    w = w.detach().requires_grad_(True)
    out = f(w)
    if not out.requires_grad:
        return torch.zeros_like(w)
    (g,) = torch.autograd.grad(out, w, create_graph=True)  # ∇f, kept on the graph
    if not g.requires_grad:
        return torch.zeros_like(w)
    return torch.autograd.grad(g @ v, w)[0]  # ∇(∇f·v) = H v


def _forward_over_reverse(f: Callable, w: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    _load_forward_ad()
    return torch.func.jvp(torch.func.grad(f), (w,), (v,))[1]  # d/dε ∇f(w + εv) at ε = 0


def _functional(f: Callable, w: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    return torch.autograd.functional.hvp(f, w, v)[1]


_WAYS = (_double_backward, _forward_over_reverse, _functional)


@functools.cache
def _load_forward_ad() -> None:
    """Import torch's forward-AD decompositions once, quietly, on the first jvp (0.4 s).

    The first ``torch.func.jvp`` imports them, and that import calls ``torch.jit.script``,
    which torch 2.13 itself deprecates: a DeprecationWarning from inside torch, on the first
    call only, that the test suite (warnings are errors) would otherwise report as ours.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated", DeprecationWarning)
        from torch._decomp import decompositions_for_jvp  # noqa: F401


# ----------------------------------------------------------------------------------------------
# Public API


def hvp_three_ways(
    fn: Function, point: Sequence[float], vector: Sequence[float], repeats: int = 15
) -> ThreeWays:
    """H v by double backward, forward-over-reverse and ``torch.autograd.functional.hvp``.

    The three are timed interleaved (one call of each per round, ``repeats`` rounds) so a busy
    machine slows them alike; the median of each is reported.

    Note:
        There is no ``torch.func.hvp``; PyTorch's docs call ``autograd.functional.hvp`` slower
        than ``vhp`` (it differentiates twice more to turn a vJp into a Jv). On tiny functions
        the times are mostly Python overhead: measure on your own function.

        Not safe to run from two threads at once: torch keeps one forward-AD level per
        process, not per thread, and two concurrent ``jvp`` calls fail ("no level exists").
        A server serialises the calls (hograd_serving.cached does).

    Raises:
        BudgetError: wrong sizes, non-finite numbers, or ``repeats`` outside 1..50.
    """
    _check("hvp.budget.repeats", repeats, 1, CURVATURE_BUDGET.max_repeats)
    result = hvp(fn, point, vector)
    f = _flat(fn)
    w = torch.from_numpy(result.point.copy())
    v = torch.from_numpy(result.vector.copy())
    times = np.zeros((len(_WAYS), repeats))
    values = np.zeros((len(_WAYS), w.numel()))
    for r in range(repeats):
        for i, way in enumerate(_WAYS):
            start = time.perf_counter()
            out = way(f, w, v)
            times[i, r] = time.perf_counter() - start
            values[i] = out.detach().numpy()
    reference = result.hessian @ result.vector
    with np.errstate(invalid="ignore"):
        error = np.max(np.abs(values - reference), axis=1)
    return ThreeWays(reference, values, error, np.median(times, axis=1), repeats)


def verdict(result: HVPResult) -> Verdict:
    """The second-derivative test on ``result.hessian``, saying which property decided it."""
    lam = result.eigenvalues
    n = lam.size
    if not np.all(np.isfinite(lam)):
        return Verdict("degenerate", "not_finite", result.critical, (), 0, 0, 0, math.nan)
    tol = 1e-9 * max(1.0, float(np.max(np.abs(lam))))  # the same tolerance as classify()
    pos, neg = int(np.sum(lam > tol)), int(np.sum(lam < -tol))
    minors = tuple(float(np.linalg.det(result.hessian[:k, :k])) for k in range(1, n + 1))
    reason = {
        "minimum": "positive_definite", "maximum": "negative_definite", "saddle": "indefinite",
        "degenerate": "zero_eigenvalue",
    }[result.classification]  # fmt: skip
    return Verdict(
        result.classification, reason, result.critical, minors, pos, neg, n - pos - neg, tol
    )


def power_iteration(
    fn: Function, point: Sequence[float], start: Sequence[float], steps: int = 30
) -> PowerIteration:
    """Power iteration on H from ``start``, using only Hessian-vector products.

    Raises:
        BudgetError: wrong sizes, non-finite numbers, or ``steps`` outside 1..100.
    """
    _check("hvp.budget.steps", steps, 1, CURVATURE_BUDGET.max_power_steps)
    result = hvp(fn, point, start)
    n = len(fn.variables)
    lam, vecs = result.eigenvalues, result.eigenvectors
    if np.all(np.isfinite(lam)):
        order = np.argsort(-np.abs(lam), kind="stable")
        target, target_vector = float(lam[order[0]]), vecs[:, order[0]]
        ratio = float(abs(lam[order[1]]) / abs(lam[order[0]])) if n > 1 and lam[order[0]] else 0.0
    else:
        target, target_vector, ratio = math.nan, np.full(n, np.nan), math.nan
    iterates = np.full((steps + 1, n), np.nan)
    rayleigh = np.full(steps + 1, np.nan)
    times = _gradient_graph(fn, result.point)
    norm = float(np.linalg.norm(result.vector))
    status = "zero_start" if norm == 0 else "ok"
    u = result.vector / norm if norm else None
    for k in range(steps + 1):
        if u is None:
            break
        iterates[k] = u
        hu = times(u)
        if not np.all(np.isfinite(hu)):
            status = "not_finite"
            break
        rayleigh[k] = float(u @ hu)  # uᵀHu, the curvature along u
        size = float(np.linalg.norm(hu))
        if size <= 1e-300:
            status = "hv_zero"
            break
        u = hu / size
    alignment = np.abs(iterates @ target_vector) if np.all(np.isfinite(target_vector)) else (
        np.full(steps + 1, np.nan)
    )  # fmt: skip
    converged_at = None
    close = np.abs(rayleigh - target) <= 1e-6 * max(1.0, abs(target))
    for k in range(steps + 1):
        if np.all(close[k:]):
            converged_at = k
            break
    return PowerIteration(
        iterates, rayleigh, alignment, target, target_vector, ratio, converged_at, status
    )


def slices(fn: Function, point: Sequence[float], radius: float = 1.0, samples: int = 101) -> Slices:
    """f along each eigenvector of H through ``point``, and the quadratic model there.

    Raises:
        BudgetError: bad point, ``radius`` outside (0, 100] or ``samples`` outside 3..401.
    """
    _check("hvp.budget.radius", radius, 1e-6, CURVATURE_BUDGET.max_radius)
    _check("hvp.budget.samples", samples, 3, CURVATURE_BUDGET.max_samples)
    result = hvp(fn, point, np.zeros(len(fn.variables)))
    t = np.linspace(-radius, radius, int(samples))
    lam, vecs = result.eigenvalues, result.eigenvectors
    n = lam.size
    values = np.full((n, t.size), np.nan)
    model = np.full((n, t.size), np.nan)
    if np.all(np.isfinite(vecs)):
        for i in range(n):
            e = vecs[:, i]
            values[i] = _values(fn, result.point + t[:, None] * e)  # shape (m, n) -> (m,)
            slope = float(result.gradient @ e)
            model[i] = result.value + slope * t + 0.5 * lam[i] * t**2
    return Slices(t, lam, vecs, values, model)


def grid(fn: Function, point: Sequence[float], radius: float = 1.5, points: int = 81) -> Grid:
    """f on the square [x0 ± radius] x [y0 ± radius] for a function of two variables.

    Raises:
        BudgetError: not two variables, bad point, ``radius`` or ``points`` out of range.
    """
    if len(fn.variables) != 2:
        raise ArgumentError("hvp.budget.two_variables", got=len(fn.variables))
    _check("hvp.budget.radius", radius, 1e-6, CURVATURE_BUDGET.max_radius)
    _check("hvp.budget.grid", points, 5, CURVATURE_BUDGET.max_grid)
    p = _vector(point, fn, "point")
    x = np.linspace(p[0] - radius, p[0] + radius, int(points))
    y = np.linspace(p[1] - radius, p[1] + radius, int(points))
    xx, yy = np.meshgrid(x, y)  # shape (k, k): rows follow y
    z = _values(fn, np.stack([xx.ravel(), yy.ravel()], axis=1)).reshape(xx.shape)
    return Grid(x, y, z)


def explore(
    fn: Function,
    point: Sequence[float],
    vector: Sequence[float],
    *,
    radius: float = 1.5,
    power_steps: int = 30,
    repeats: int = 15,
    with_ways: bool = True,
) -> Exploration:
    """Everything the page shows about ``fn`` at ``point`` along ``vector``, in one call.

    ``with_ways=False`` leaves out :func:`hvp_three_ways`, whose timing loop is ~80 % of the
    call (a page computes it only when its tab is open).

    Raises:
        BudgetError: as :func:`hvp`, :func:`power_iteration`, :func:`slices` and :func:`grid`.
    """
    result = hvp(fn, point, vector)
    return Exploration(
        result=result,
        verdict=verdict(result),
        ways=hvp_three_ways(fn, point, vector, repeats) if with_ways else None,
        power=power_iteration(fn, point, vector, power_steps),
        slices=slices(fn, point, radius),
        grid=grid(fn, point, radius) if len(fn.variables) == 2 else None,
    )
