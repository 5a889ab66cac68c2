"""Curvature of a typed function at a point: Hv three ways, the second-derivative test, power
iteration, 1-D slices along the eigenvectors and the 2-D picture.

Everything here is built on one idea: H v is the gradient of the scalar ∇f·v, so it costs about
two gradients and never needs the n x n matrix H. Three ways to compute it, all in PyTorch::

    g  = grad(f(w), w, create_graph=True); Hv = grad(g @ v, w)    # double backward
    Hv = torch.func.jvp(torch.func.grad(f), (w,), (v,))[1]        # forward-over-reverse
    Hv = torch.autograd.functional.hvp(f, w, v)[1]                # the "double-backward trick"

Power iteration needs nothing but H u, so it runs on the gradient graph kept from one forward
pass: u ← Hu/|Hu|. When one eigenvalue λ₁ is larger in size than every other and the start has
a part along its eigenvector, the Rayleigh quotient uᵀHu converges to λ₁.
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

from . import hvp_script as script
from .errors import ArgumentError, BudgetError
from .hessian import HVPResult, hvp, point_vector
from .language import Function
from .timing import resolved_ratio

__all__ = [
    "CONVERGED",
    "CURVATURE_BUDGET",
    "METHODS",
    "TIE",
    "CurvatureBudget",
    "Exploration",
    "Grid",
    "PowerIteration",
    "Slices",
    "ThreeWays",
    "Verdict",
    "explore",
    "grid",
    "hvp_three_ways",
    "power_iteration",
    "slices",
    "verdict",
]

#: The three ways of computing H v, in the order they are shown.
METHODS: tuple[str, ...] = ("double_backward", "forward_over_reverse", "functional_hvp")
#: Two eigenvalues closer than this, relative to the largest in size, count as equal (a tie).
TIE = 1e-9
#: Power iteration has converged from the step where the Rayleigh quotient stays within this,
#: relative to max(1, |λ₁|), of λ₁.
CONVERGED = 1e-6


@dataclass(frozen=True)
class CurvatureBudget:
    """Limits on one request (each keeps the page responsive for a whole class)."""

    max_power_steps: int = 100  # one HVP each
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
        relative: shape (3,), each method's time over the fastest's (the median of the
            per-round ratios), or NaN where the rounds disagree too much to tell
            (:func:`hograd_core.timing.resolved_ratio`).
    """

    reference: np.ndarray
    values: np.ndarray
    max_error: np.ndarray
    seconds: np.ndarray
    repeats: int
    relative: np.ndarray


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
        alignment: shape (steps + 1,), the length of u_k's part in the eigenspace of the
            target (|u_k · e| when that eigenspace is one line; 1 = inside it).
        target: λ₁, the eigenvalue of largest size (the positive one of ±λ₁), from the full
            Hessian as the check.
        target_vector: a unit eigenvector of λ₁.
        ratio: |λ₂| / |λ₁|, with λ₂ the eigenvalue of largest size other than λ₁ (0 if
            every eigenvalue equals λ₁). When it is below 1, the angle between u_k and λ₁'s
            eigenspace shrinks by about this factor per step and, H being symmetric, the
            Rayleigh quotient's error by about its square.
        converged_at: the first step from which the Rayleigh quotient stays within
            ``CONVERGED`` (relative to max(1, |λ₁|)) of λ₁, or None.
        status: "ok", "zero_start" (v = 0), "hv_zero" (H u = 0: u lies in the null space of
            H) or "not_finite".
        tie: None; "repeated" when λ₁ is a repeated eigenvalue (its eigenspace has
            ``multiplicity`` > 1 dimensions: u settles on v's part in it, not on one fixed
            e); "opposite" when −λ₁ is an eigenvalue too (ratio 1: u alternates between two
            directions and the Rayleigh quotient need not reach λ₁).
        multiplicity: the dimension of λ₁'s eigenspace.
        orthogonal: the start has no part (under 1e-9) along the eigenvectors of the
            eigenvalues of largest size: in exact arithmetic the iteration never gets one.
    """

    iterates: np.ndarray
    rayleigh: np.ndarray
    alignment: np.ndarray
    target: float
    target_vector: np.ndarray
    ratio: float
    converged_at: int | None
    status: str
    tie: str | None = None
    multiplicity: int = 1
    orthogonal: bool = False

    @property
    def direction_rate(self) -> float:
        """About how much the angle to λ₁'s eigenspace shrinks per step: |λ₂/λ₁|."""
        return self.ratio

    @property
    def value_rate(self) -> float:
        """About how much the Rayleigh quotient's error shrinks per step: |λ₂/λ₁|² (H is
        symmetric, so the error is quadratic in the angle)."""
        return self.ratio**2

    @property
    def last(self) -> int:
        """The last step with a finite Rayleigh quotient (0 if there is none)."""
        finite = np.nonzero(np.isfinite(self.rayleigh))[0]
        return int(finite[-1]) if finite.size else 0


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
    backward through the kept graph, as often as needed (the shown script's functions)."""
    w = torch.tensor(point, dtype=torch.float64, requires_grad=True)
    g = script.gradient(_flat(fn), w)

    def times(u: np.ndarray) -> np.ndarray:
        hu = script.hvp_double_backward(g, w, torch.from_numpy(u.copy()))  # ∇(∇f·u) = H u
        return hu.detach().numpy().copy()

    return times


# The three ways, as the timing loop calls them: each calls the function the page's script
# shows (hograd_core/hvp_script.py), looked up when called.


def _double_backward(f: Callable, w: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    w = w.detach().requires_grad_(True)
    return script.hvp_double_backward(script.gradient(f, w), w, v)


def _forward_over_reverse(f: Callable, w: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    _load_forward_ad()
    return script.hvp_forward_over_reverse(f, w, v)


def _functional(f: Callable, w: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    return script.hvp_functional(f, w, v)


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
        There is no ``torch.func.hvp``; PyTorch's docs call ``autograd.functional.hvp``
        significantly slower than ``autograd.functional.vhp`` and recommend ``vhp`` for a
        function that is twice continuously differentiable (then vᵀH = (Hv)ᵀ). On tiny
        functions the times are mostly Python overhead: measure on your own function. A ratio
        of two times is reported only where the rounds resolve it (``relative``).

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
    return ThreeWays(reference, values, error, np.median(times, axis=1), repeats, relative(times))


def relative(times: np.ndarray) -> np.ndarray:
    """Each row's time over the fastest row's (by median), from rounds timed interleaved:
    ``times`` has shape (methods, rounds). NaN where the ratio is not resolved."""
    fastest = int(np.argmin(np.median(times, axis=1)))
    out = [resolved_ratio(row, times[fastest]) for row in times]
    return np.array([math.nan if r is None else r for r in out])


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
        "minimum": "positive_definite",
        "maximum": "negative_definite",
        "saddle": "indefinite",
        "degenerate": "zero_eigenvalue",
    }[result.classification]
    return Verdict(
        result.classification, reason, result.critical, minors, pos, neg, n - pos - neg, tol
    )


def _top(lam: np.ndarray, vecs: np.ndarray) -> tuple[float, np.ndarray, float, str | None, int]:
    """λ₁ (the positive one of ±λ₁), a unit eigenvector, |λ₂/λ₁|, the tie, λ₁'s multiplicity.

    λ₂ is the eigenvalue of largest size other than λ₁: −λ₁ if it is one (ratio 1), and
    eigenvalues within ``TIE`` of λ₁ are λ₁ itself (its eigenspace), not λ₂.
    """
    order = np.lexsort((-lam, -np.abs(lam)))  # largest size first; of ±λ, the positive
    target = float(lam[order[0]])
    size = abs(target)
    if size == 0:  # H = 0: no direction at all
        return target, vecs[:, order[0]], 0.0, None, lam.size
    same = np.abs(lam - target) <= TIE * size
    others = np.abs(lam[~same])
    ratio = float(others.max() / size) if others.size else 0.0
    tie = "opposite" if ratio >= 1 - TIE else "repeated" if same.sum() > 1 else None
    return target, vecs[:, order[0]], min(ratio, 1.0), tie, int(same.sum())


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
    tie, multiplicity = None, 1
    if np.all(np.isfinite(lam)):
        target, target_vector, ratio, tie, multiplicity = _top(lam, vecs)
        size = max(abs(target), 1e-300)
        space = vecs[:, np.abs(lam - target) <= TIE * size]  # λ₁'s eigenspace
        largest = vecs[:, np.abs(np.abs(lam) - abs(target)) <= TIE * size]  # of ±λ₁
    else:
        target, target_vector, ratio = math.nan, np.full(n, np.nan), math.nan
        space = largest = None
    iterates = np.full((steps + 1, n), np.nan)
    rayleigh = np.full(steps + 1, np.nan)
    times = _gradient_graph(fn, result.point)
    norm = float(np.linalg.norm(result.vector))
    status = "zero_start" if norm == 0 else "ok"
    u = result.vector / norm if norm else None
    orthogonal = bool(
        u is not None
        and largest is not None
        and target != 0
        and np.linalg.norm(largest.T @ u) <= 1e-9
    )
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
    if space is not None:  # the length of each u_k's part in λ₁'s eigenspace
        alignment = np.linalg.norm(iterates @ space, axis=1)
    else:
        alignment = np.full(steps + 1, np.nan)
    converged_at = None
    close = np.abs(rayleigh - target) <= CONVERGED * max(1.0, abs(target))
    for k in range(steps + 1):
        if np.all(close[k:]):
            converged_at = k
            break
    return PowerIteration(
        iterates,
        rayleigh,
        alignment,
        target,
        target_vector,
        ratio,
        converged_at,
        status,
        tie,
        multiplicity,
        orthogonal,
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
    p = point_vector(point, fn, "point")
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
