"""Newton's method against gradient descent on a typed function of two variables.

Gradient descent steps along −∇f with a fixed learning rate η. Newton's method jumps to the
stationary point of the quadratic model f(θ) + ∇fᵀp + ½pᵀHp::

    θ ← θ − H⁻¹∇f                 # needs H: the gradient of the gradient (create_graph=True)

On a quadratic the model *is* f, so one Newton step lands on the minimum whatever the
condition number; gradient descent needs many steps when κ is large. Away from a quadratic the
model's stationary point can be a saddle or a maximum, and pure Newton goes there just as
readily. Two repairs are offered: damping, θ ← θ − (H + λI)⁻¹∇f, and a trust region, the
minimiser of the model within a radius that grows or shrinks with how well the model predicted
the last step.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from ..curvature import Grid, grid
from ..errors import ArgumentError
from ..hessian import classify
from ..language import Function
from .common import check, interleaved_medians, saved_bytes

__all__ = [
    "METHODS", "PRESETS", "NewtonPath", "NewtonRace", "Preset", "RaceConfig", "kappa_of",
    "preset_for", "quadratic", "race", "trust_region_step",
]  # fmt: skip

#: gd: θ − η∇f; newton: θ − H⁻¹∇f; damped: θ − (H + λI)⁻¹∇f; trust: the trust-region step.
METHODS: tuple[str, ...] = ("gd", "newton", "damped", "trust")
MAX_STEPS = 500
MAX_RADIUS = 10.0  # the trust region never grows past this
_TOO_FAR = 1e6  # |θ| beyond this counts as diverged


def quadratic(kappa: float) -> str:
    """((x+y)² + κ(y−x)²)/4: Hessian eigenvalues 1 along (1, 1) and κ along (1, −1)."""
    return f"((x+y)^2 + {kappa:g}*(y-x)^2)/4"


#: quadratic(κ) with spaces removed and ** read as ^; group 1 is κ
_QUADRATIC = re.compile(r"\(\(x\+y\)\^2\+([0-9]+(?:\.[0-9]*)?(?:e[+-]?[0-9]+)?)\*\(y-x\)\^2\)/4")


def kappa_of(text: str) -> float | None:
    """κ when ``text`` is written as :func:`quadratic` (spaces and ``**`` for ``^`` aside),
    else None. Only the written form counts: an equal function written otherwise gives None."""
    match = _QUADRATIC.fullmatch(re.sub(r"\s+", "", text).replace("**", "^"))
    return float(match.group(1)) if match else None


@dataclass(frozen=True)
class Preset:
    """A function with a start point, settings that show its lesson, and its minimum value
    (None: f is unbounded below)."""

    start: tuple[float, float]
    lr: float
    steps: int
    minimum: float | None


#: The presets, by the text typed for them. The saddle function has its saddle at (0, 0) and
#: minima at (0, ±1); from (1, 0.3) pure Newton goes to the saddle and gradient descent does not.
PRESETS: dict[str, Preset] = {
    "(1 - x)^2 + 100*(y - x^2)^2": Preset((-1.2, 1.0), 0.001, 200, 0.0),
    quadratic(10): Preset((2.0, 1.0), 0.15, 100, 0.0),
    "w1**2*sin(w2)": Preset((1.0, 1.0), 0.1, 50, None),
    "x^2 + y^4/4 - y^2/2": Preset((1.0, 0.3), 0.1, 100, -0.25),
}


def preset_for(text: str) -> Preset | None:
    """The preset typed as ``text``; for any κ quadratic, the κ = 10 one with lr = 1.5/κ
    (stable: below 2/λ_max = 2/κ)."""
    if text in PRESETS:
        return PRESETS[text]
    for kappa in (1, 2, 5, 10, 100, 1000):
        if text == quadratic(kappa):
            return Preset((2.0, 1.0), 1.5 / kappa, 100, 0.0)
    return None


@dataclass(frozen=True)
class RaceConfig:
    start: tuple[float, float] = (-1.2, 1.0)
    steps: int = 100  # the most steps per method
    lr: float = 0.001  # gradient descent's learning rate η
    damping: float = 1.0  # λ of damped Newton
    radius: float = 0.5  # the trust region's first radius
    tol: float = 1e-8  # |∇f| at or below this counts as converged
    methods: tuple[str, ...] = ("gd", "newton")


@dataclass(frozen=True)
class NewtonPath:
    """One method's path.

    Attributes:
        method: a name from :data:`METHODS`.
        points: θ_0, θ_1, ..., shape (k+1, 2); a rejected trust-region step repeats a point.
        values, grad_norms: f and |∇f| at each point.
        status: "converged" (|∇f| ≤ tol), "steps" (ran out of steps), "diverged" (f, ∇f or H
            not finite, or |θ| > 1e6; the point that did it is not kept) or "singular" (the
            matrix to invert has no inverse: a condition number over 1e12).
        converged_at: the first step with |∇f| ≤ tol, or None.
        end_eigenvalues, end_kind: H's eigenvalues at the last point and, if the path
            converged there (|∇f| ≤ tol), what they make it (hessian.classify: "minimum",
            "saddle", "maximum", "degenerate"); "not_critical" if it did not converge.
        seconds: wall time of the whole path.
        radii: the trust radius before each step (trust region only, else empty).
        stopped_at: the step at which the path ended: 0 if f or ∇f is not finite at the start;
            for "diverged", the step whose new point was not kept.
    """

    method: str
    points: np.ndarray
    values: np.ndarray
    grad_norms: np.ndarray
    status: str
    converged_at: int | None
    end_eigenvalues: np.ndarray
    end_kind: str
    seconds: float
    radii: np.ndarray
    stopped_at: int


@dataclass(frozen=True)
class NewtonRace:
    """Every method asked for, from one start, and what one step of each costs.

    Attributes:
        gd_step_seconds, newton_step_seconds: median time of one gradient-descent step and of
            one Newton step (gradient with its graph kept, two more backward passes for H, a
            2 x 2 solve) at the start, from 15 interleaved rounds.
        gd_saved_bytes, newton_saved_bytes: memory the graphs of those two steps hold for
            backward at their largest (``common.saved_bytes``).
        grid: f on a square window around the paths (points more than 10 from the start
            are left out of it: a diverging path leaves the picture).
    """

    text: str
    variables: tuple[str, str]
    config: RaceConfig
    paths: tuple[NewtonPath, ...]
    minimum: float | None
    gd_step_seconds: float
    newton_step_seconds: float
    grid: Grid
    gd_saved_bytes: int
    newton_saved_bytes: int


# ----------------------------------------------------------------------------------------------
# Private helpers


def _check(fn: Function, config: RaceConfig) -> None:
    if len(fn.variables) != 2:
        raise ArgumentError("why.newton.two_variables", got=len(fn.variables))
    check("steps", config.steps, 1, MAX_STEPS)
    check("lr", config.lr, 1e-6, 10.0)
    check("damping", config.damping, 0.0, 1e4)
    check("radius", config.radius, 1e-3, MAX_RADIUS)
    check("tol", config.tol, 1e-14, 1e-2)
    for value in config.start:
        check("start", value, -100.0, 100.0)
    if not config.methods or any(m not in METHODS for m in config.methods):
        raise ArgumentError("why.newton.methods", got=", ".join(config.methods)[:60])


def _derivatives(
    f: Callable[[torch.Tensor], torch.Tensor], w: torch.Tensor, second: bool
) -> tuple[float, torch.Tensor, torch.Tensor | None]:
    """f(w), ∇f(w) and, if ``second``, H(w): each row of H is the gradient of one entry of
    ∇f, which exists because ∇f was built with create_graph=True."""
    w = w.detach().requires_grad_(True)
    value = f(w)
    zeros = torch.zeros(2, 2, dtype=torch.float64)
    if not value.requires_grad:  # f does not depend on w at all
        return float(value.detach()), torch.zeros(2, dtype=torch.float64), zeros if second else None
    (g,) = torch.autograd.grad(value, w, create_graph=second)
    if not second:
        return float(value.detach()), g, None
    if not g.requires_grad:  # f is linear: H = 0
        return float(value.detach()), g.detach(), zeros
    rows = [
        torch.autograd.grad(g[i], w, retain_graph=True, allow_unused=True, materialize_grads=True)[0]
        for i in range(2)
    ]  # fmt: skip
    return float(value.detach()), g.detach(), torch.stack(rows)


def trust_region_step(g: torch.Tensor, H: torch.Tensor, radius: float) -> torch.Tensor:
    """The step p that minimises the model gᵀp + ½pᵀHp over |p| ≤ radius, exactly.

    In H's eigenbasis (H = Q diag(lam) Qᵀ, a = Qᵀg) the minimiser is p(s) = −Q (a / (lam + s))
    for the smallest s ≥ max(0, −lam_min) with |p(s)| ≤ radius: s = 0 (the Newton step) when H
    is positive definite and that step fits, else |p(s)| = radius, found by bisection since
    |p(s)| shrinks as s grows. If g has no component along the lowest eigenvector (at a saddle,
    say) p(s) may stay inside the region; the rest of the radius then goes along that
    eigenvector: the "hard case", and the way out of a saddle.
    """
    lam, Q = torch.linalg.eigh(H)  # lam ascending
    a = Q.T @ g
    if lam[0] > 0:
        p = -Q @ (a / lam)
        if p.norm() <= radius:
            return p
    low = max(0.0, -float(lam[0]))
    if abs(float(a[0])) <= 1e-10 * float(g.norm()):  # the hard case, or nearly
        rest = torch.where(lam + low > 1e-12 * float(lam.abs().max()), lam + low, torch.inf)
        inside = -(a / rest)  # no component along the lowest eigenvector
        if inside.norm() <= radius:
            e0 = torch.zeros_like(a)
            e0[0] = 1.0
            return Q @ (inside + math.sqrt(radius**2 - float(inside.norm()) ** 2) * e0)
    high = low + float(lam.abs().max()) + float(g.norm()) / radius  # |p(high)| <= radius
    for _ in range(100):  # bisection on s: |p(s)| = radius
        mid = (low + high) / 2
        if float((a / (lam + mid)).norm()) > radius:
            low = mid
        else:
            high = mid
    return -Q @ (a / (lam + high))


def _singular(m: torch.Tensor) -> bool:
    # not "cond > 1e12": the condition number of the zero matrix (f linear) is NaN
    return not bool(torch.isfinite(m).all()) or not float(torch.linalg.cond(m)) <= 1e12


def _path(fn: Function, method: str, config: RaceConfig) -> NewtonPath:
    names = fn.variables

    def f(w: torch.Tensor) -> torch.Tensor:
        return fn.torch({names[0]: w[0], names[1]: w[1]})

    start = time.perf_counter()
    second = method != "gd"
    w = torch.tensor(config.start, dtype=torch.float64)
    value, g, H = _derivatives(f, w, second)
    points, values, norms, radii = [w.numpy().copy()], [value], [float(g.norm())], []
    radius, status, converged_at = config.radius, "steps", None
    eye = torch.eye(2, dtype=torch.float64)
    for step in range(config.steps + 1):
        stopped_at = step
        if not (math.isfinite(value) and bool(torch.isfinite(g).all())):
            status = "diverged"  # only at the start: a new point is checked before it is kept
            break
        if norms[-1] <= config.tol:
            status, converged_at = "converged", step
            break
        if step == config.steps:
            break
        if method == "gd":
            new = w - config.lr * g
        elif method in ("newton", "damped"):
            m = H if method == "newton" else H + config.damping * eye
            if _singular(m):
                status = "singular"
                break
            new = w - torch.linalg.solve(m, g)
        else:
            if not bool(torch.isfinite(H).all()):
                status = "diverged"
                break
            radii.append(radius)
            p = trust_region_step(g, H, radius)
            predicted = -float(g @ p + 0.5 * p @ H @ p)
            actual = value - float(f(p + w).detach())
            rho = actual / predicted if predicted > 0 else -1.0
            if rho < 0.25:
                radius *= 0.25
            elif rho > 0.75 and float(p.norm()) >= 0.99 * radius:
                radius = min(2 * radius, MAX_RADIUS)
            new = w + p if rho > 0.1 else w
        if not bool(torch.isfinite(new).all()) or float(new.abs().max()) > _TOO_FAR:
            status, stopped_at = "diverged", step + 1
            break
        new_value, new_g, new_H = _derivatives(f, new, second)
        if not (math.isfinite(new_value) and bool(torch.isfinite(new_g).all())):
            status, stopped_at = "diverged", step + 1
            break
        w, value, g, H = new, new_value, new_g, new_H
        points.append(w.numpy().copy())
        values.append(value)
        norms.append(float(g.norm()))
    seconds = time.perf_counter() - start
    _, _, H_end = _derivatives(f, w, True)
    eig = H_end.numpy().copy()
    eig = np.linalg.eigvalsh((eig + eig.T) / 2) if np.all(np.isfinite(eig)) else np.full(2, np.nan)
    kind = classify(eig) if status == "converged" else "not_critical"
    return NewtonPath(
        method, np.array(points), np.array(values), np.array(norms), status, converged_at,
        eig, kind, seconds, np.array(radii), stopped_at,
    )  # fmt: skip


# ----------------------------------------------------------------------------------------------
# Public API


def race(
    fn: Function, config: RaceConfig, progress: Callable[[int, int], None] | None = None
) -> NewtonRace:
    """Run each method of ``config.methods`` from ``config.start`` on ``fn``.

    Args:
        fn: a parsed function of exactly two variables.
        config: start, steps, learning rate, damping, trust radius, tolerance, methods.
        progress: called as ``progress(done, total)`` after each method.

    Raises:
        ArgumentError: not two variables, an unknown method, a setting outside its range.
        BudgetError: more steps than :data:`MAX_STEPS` (checked before any work).

    Example:
        >>> from hograd_core import parse
        >>> r = race(parse(quadratic(100)), RaceConfig(start=(2.0, 1.0), methods=("newton",)))
        >>> r.paths[0].converged_at, r.paths[0].points[1].round(12).tolist()
        (1, [0.0, 0.0])
    """
    _check(fn, config)
    paths = []
    for i, method in enumerate(config.methods):
        paths.append(_path(fn, method, config))
        if progress is not None:
            progress(i + 1, len(config.methods))
    names = fn.variables

    def f(w: torch.Tensor) -> torch.Tensor:
        return fn.torch({names[0]: w[0], names[1]: w[1]})

    w0 = torch.tensor(config.start, dtype=torch.float64)

    def newton_step() -> None:
        _, g, H = _derivatives(f, w0, True)
        torch.linalg.solve_ex(H, g)  # _ex: no exception if H happens to be singular here

    steps = {"gd": lambda: _derivatives(f, w0, False), "newton": newton_step}
    costs = interleaved_medians(steps, 15)
    memory = {name: saved_bytes(step) for name, step in steps.items()}
    preset = preset_for(fn.text)
    every = np.concatenate([p.points for p in paths])
    near = every[np.max(np.abs(every - np.array(config.start)), axis=1) <= 10.0]
    low, high = near.min(axis=0), near.max(axis=0)
    radius = max(0.6 * float(np.max(high - low)), 0.5)  # 20 % margin, at least ±0.5
    picture = grid(fn, (low + high) / 2, radius, 81)
    return NewtonRace(
        fn.text, (names[0], names[1]), config, tuple(paths), preset and preset.minimum,
        costs["gd"], costs["newton"], picture, memory["gd"], memory["newton"],
    )  # fmt: skip
