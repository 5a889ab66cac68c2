"""Newton's method against gradient descent on a function of two variables.

Gradient descent steps along −∇f with a fixed learning rate η. Newton's method jumps to the
stationary point of the quadratic model f(θ) + ∇fᵀp + ½pᵀHp::

    θ ← θ − H⁻¹∇f                 # needs H: the gradient of the gradient (create_graph=True)

On a quadratic the model *is* f, so one Newton step lands on the minimum whatever the
condition number; gradient descent needs many steps when κ is large. Away from a quadratic the
model's stationary point can be a saddle or a maximum, and pure Newton goes there just as
readily. Two repairs are offered: damping, θ ← θ − (H + λI)⁻¹∇f, and a trust region, the
minimiser of the model within a radius that grows or shrinks with how well the model predicted
the last step.

This file is the experiment of hograd's Newton tab, whole: the page runs it on the function
typed in its box, and its download is this file with that function written in PyTorch as
``f`` and the page's settings on the line under ``if __name__ == "__main__":``. Run it
(``python newton.py``) and it prints what the page shows, one line per method. It needs only
torch and numpy. The ``# %%`` lines cut it into a notebook's cells.
"""

# %% Settings
import math
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from torch.func import grad, hessian

__all__ = [
    "MAX_RADIUS",
    "MAX_STEPS",
    "METHODS",
    "NewtonPath",
    "NewtonRace",
    "RaceConfig",
    "classify",
    "derivatives",
    "derivatives_func",
    "f",
    "path",
    "report",
    "run",
    "saved_bytes",
    "trust_region_step",
    "window",
]

#: gd: θ − η∇f; newton: θ − H⁻¹∇f; damped: θ − (H + λI)⁻¹∇f; trust: the trust-region step.
METHODS: tuple[str, ...] = ("gd", "newton", "damped", "trust")
MAX_STEPS = 500
MAX_RADIUS = 10.0  # the trust region never grows past this
TOO_FAR = 1e6  # |θ| beyond this counts as diverged


@dataclass(frozen=True)
class RaceConfig:
    start: tuple[float, float] = (-1.2, 1.0)  # θ₀ = (x, y)
    steps: int = 100  # the most steps per method
    lr: float = 0.001  # gradient descent's learning rate η
    damping: float = 1.0  # λ of damped Newton
    radius: float = 0.5  # the trust region's first radius
    tol: float = 1e-8  # |∇f| at or below this counts as converged
    methods: tuple[str, ...] = ("gd", "newton")  # any of METHODS


# %% The function: the page writes the one typed in its box here, in PyTorch
def f(w):  # w: the point, a float64 tensor of shape (2,)
    x, y = w[0], w[1]
    return ((1 - x) ** 2) + (100 * ((y - (x**2)) ** 2))


# %% f, ∇f and H at a point: H is the gradient of the gradient, so ∇f keeps its graph
def derivatives(
    f: Callable[[torch.Tensor], torch.Tensor], w: torch.Tensor, second: bool
) -> tuple[float, torch.Tensor, torch.Tensor | None]:
    """f(w), ∇f(w) and, if ``second``, H(w): each row of H is the gradient of one entry of
    ∇f, which exists because ∇f was built with create_graph=True."""
    w = w.detach().requires_grad_(True)
    value = f(w)
    zeros = torch.zeros(2, 2, dtype=torch.float64)
    if not value.requires_grad:  # f does not depend on w at all
        return float(value.detach()), torch.zeros(2, dtype=torch.float64), zeros if second else None
    (g,) = torch.autograd.grad(value, w, create_graph=second)  # <-- True only when H is needed
    if not second:
        return float(value.detach()), g, None
    if not g.requires_grad:  # f is linear: H = 0
        return float(value.detach()), g.detach(), zeros
    rows = [
        torch.autograd.grad(g[i], w, retain_graph=True, allow_unused=True, materialize_grads=True)[
            0
        ]
        for i in range(2)
    ]  # <-- H: one more backward pass per entry of ∇f
    return float(value.detach()), g.detach(), torch.stack(rows)


# %% The same with torch.func: grad(f) and hessian(f), no create_graph flag
def _quiet_forward_ad() -> None:
    """hessian(f) is jacfwd(jacrev(f)); torch's first forward-mode call imports its
    decompositions, and that import calls ``torch.jit.script``, which torch itself deprecates:
    import them once, quietly."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated", DeprecationWarning)
        from torch._decomp import decompositions_for_jvp  # noqa: F401


def derivatives_func(
    f: Callable[[torch.Tensor], torch.Tensor], w: torch.Tensor, second: bool
) -> tuple[float, torch.Tensor, torch.Tensor | None]:
    """:func:`derivatives` by function transforms: ``grad(f)`` and ``hessian(f)`` (forward
    mode over reverse mode). torch.func has no ``create_graph`` flag: a transform records what
    an outer one needs."""
    _quiet_forward_ad()
    w = w.detach()
    return float(f(w)), grad(f)(w), hessian(f)(w) if second else None


# %% The trust-region step: the model's minimiser within a radius, exactly
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


def classify(eigenvalues: np.ndarray) -> str:
    """Second-derivative test from the Hessian's eigenvalues. Eigenvalues within 1e-9 of the
    largest in size count as zero: then the test cannot decide between a minimum, maximum or
    saddle ("degenerate"), unless signs already differ."""
    if not np.all(np.isfinite(eigenvalues)):
        return "degenerate"
    tol = 1e-9 * max(1.0, float(np.max(np.abs(eigenvalues))) if eigenvalues.size else 1.0)
    pos = eigenvalues > tol
    neg = eigenvalues < -tol
    if pos.any() and neg.any():
        return "saddle"
    if pos.all():
        return "minimum"
    if neg.all():
        return "maximum"
    return "degenerate"


# %% One method's path from the start
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
            converged there (|∇f| ≤ tol), what they make it (:func:`classify`: "minimum",
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


def _singular(m: torch.Tensor) -> bool:
    # not "cond > 1e12": the condition number of the zero matrix (f linear) is NaN
    return not bool(torch.isfinite(m).all()) or not float(torch.linalg.cond(m)) <= 1e12


def path(
    f: Callable, method: str, config: RaceConfig, derivatives_of: Callable = derivatives
) -> NewtonPath:
    """Run ``method`` from ``config.start`` on ``f`` for at most ``config.steps`` steps."""
    start = time.perf_counter()
    second = method != "gd"
    w = torch.tensor(config.start, dtype=torch.float64)
    value, g, H = derivatives_of(f, w, second)
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
        if not bool(torch.isfinite(new).all()) or float(new.abs().max()) > TOO_FAR:
            status, stopped_at = "diverged", step + 1
            break
        new_value, new_g, new_H = derivatives_of(f, new, second)
        if not (math.isfinite(new_value) and bool(torch.isfinite(new_g).all())):
            status, stopped_at = "diverged", step + 1
            break
        w, value, g, H = new, new_value, new_g, new_H
        points.append(w.numpy().copy())
        values.append(value)
        norms.append(float(g.norm()))
    seconds = time.perf_counter() - start
    _, _, H_end = derivatives_of(f, w, True)
    eig = H_end.numpy().copy()
    eig = np.linalg.eigvalsh((eig + eig.T) / 2) if np.all(np.isfinite(eig)) else np.full(2, np.nan)
    kind = classify(eig) if status == "converged" else "not_critical"
    return NewtonPath(
        method,
        np.array(points),
        np.array(values),
        np.array(norms),
        status,
        converged_at,
        eig,
        kind,
        seconds,
        np.array(radii),
        stopped_at,
    )


# %% What one step costs: time and the memory its graphs hold
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
    cannot hide it)."""
    storages: dict[int, torch.UntypedStorage] = {}

    def pack(tensor: torch.Tensor) -> torch.Tensor:
        storage = tensor.untyped_storage()
        storages.setdefault(storage.data_ptr(), storage)
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        step()
    return sum(storage.nbytes() for storage in storages.values())


# %% The race: every method asked for, from one start
@dataclass(frozen=True)
class NewtonRace:
    """Every method asked for, from one start, and what one step of each costs.

    Attributes:
        paths: one :class:`NewtonPath` per method of ``config.methods``, in that order.
        gd_step_seconds, newton_step_seconds: median time of one gradient-descent step and of
            one Newton step (gradient with its graph kept, two more backward passes for H, a
            2 x 2 solve) at the start, from 15 interleaved rounds.
        gd_saved_bytes, newton_saved_bytes: memory the graphs of those two steps hold for
            backward at their largest (:func:`saved_bytes`).
    """

    config: RaceConfig
    paths: tuple[NewtonPath, ...]
    gd_step_seconds: float
    newton_step_seconds: float
    gd_saved_bytes: int
    newton_saved_bytes: int


def run(
    config: RaceConfig,
    progress: Callable[[int, int], None] | None = None,
    f: Callable[[torch.Tensor], torch.Tensor] = f,
    derivatives_of: Callable = derivatives,
) -> NewtonRace:
    """Run each method of ``config.methods`` from ``config.start`` on ``f``, then measure one
    gradient-descent step and one Newton step at the start.

    Args:
        config: start, steps, learning rate, damping, trust radius, tolerance, methods.
        progress: called as ``progress(done, total)`` after each method.
        f: the function of w = (x, y), a float64 tensor of shape (2,).
        derivatives_of: :func:`derivatives`, or :func:`derivatives_func` (the same by
            torch.func). The costs are measured with :func:`derivatives`: what a step with
            ``create_graph=True`` costs against one without.
    """
    paths = []
    for i, method in enumerate(config.methods):
        paths.append(path(f, method, config, derivatives_of))
        if progress is not None:
            progress(i + 1, len(config.methods))
    w0 = torch.tensor(config.start, dtype=torch.float64)

    def newton_step() -> None:
        _, g, H = derivatives(f, w0, True)
        torch.linalg.solve_ex(H, g)  # _ex: no exception if H happens to be singular here

    steps = {"gd": lambda: derivatives(f, w0, False), "newton": newton_step}
    costs = medians(steps, 15)
    memory = {name: saved_bytes(step) for name, step in steps.items()}
    return NewtonRace(
        config, tuple(paths), costs["gd"], costs["newton"], memory["gd"], memory["newton"]
    )


def window(race: NewtonRace) -> tuple[np.ndarray, float]:
    """The centre and half-width of a square around every path: 20 % margin, at least ±0.5;
    points more than 10 from the start are left out (a diverging path leaves the picture)."""
    every = np.concatenate([p.points for p in race.paths])
    near = every[np.max(np.abs(every - np.array(race.config.start)), axis=1) <= 10.0]
    low, high = near.min(axis=0), near.max(axis=0)
    return (low + high) / 2, max(0.6 * float(np.max(high - low)), 0.5)


# %% What the page shows, one line per method
def report(race: NewtonRace) -> None:
    """Print each method's path: its status, the step it ended at, the last point, f and |∇f|
    there and what H makes it; then what one step costs (seconds vary from run to run)."""
    for p in race.paths:
        x, y = p.points[-1].tolist()
        print(p.method, p.status, p.stopped_at, x, y, p.values[-1], p.grad_norms[-1], p.end_kind)
    print("saved_bytes", race.gd_saved_bytes, race.newton_saved_bytes)  # gd, Newton
    print("seconds", race.gd_step_seconds, race.newton_step_seconds)


# %% Run it
if __name__ == "__main__":
    # the settings: the page's download writes its own on the next line (and f above)
    config = RaceConfig()
    derivatives_of = derivatives  # or derivatives_func: the same with torch.func
    torch.set_num_threads(1)  # 2 variables: a second thread only adds waiting
    result = run(config, f=f, derivatives_of=derivatives_of)
    report(result)
