"""PyTorch's own derivative checks, ``torch.autograd.gradcheck`` and ``gradgradcheck``, on a
typed function.

``gradcheck(f, (x,))`` compares the Jacobian that the backward pass gives (analytical) with a
central finite difference of f (numerical), entry by entry: it passes when every entry has
``|analytical - numerical| <= atol + rtol * |numerical|``. ``gradgradcheck`` does the same for
the first backward itself, ``(x, v) -> grad(f(x), x, v, create_graph=True)``, so it checks the
second derivative that ``create_graph=True`` records. Both run here in float64 with PyTorch's
default tolerances, and the verdict is PyTorch's: this module only decides where the check is
meaningful and, when PyTorch reports a mismatch, which entries differ.

Where f has no ordinary derivative (a kink of abs or relu, outside its domain, a NaN or an
infinite derivative) the finite difference and the backward formula are not two roads to one
number, so a failure would say nothing about the backward: such points are not checked, and the
result says why. "At x" means anywhere on the finite difference's stencil ``[x - eps, x + eps]``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch.autograd.gradcheck import GradcheckError

from .errors import ArgumentError, BudgetError
from .language import Binary, Call, Function, Neg, Node
from .language.parser import show
from .language.to_torch import evaluate
from .nested_autograd import BUDGET, Prober, autograd_rows, estimate_autograd, probe_graph
from .point_notes import KINKS

__all__ = [
    "EPS",
    "ATOL",
    "RTOL",
    "MAX_POINTS",
    "MAX_WORK",
    "Mismatch",
    "Check",
    "Skipped",
    "GradChecks",
    "check_callable",
    "run_gradchecks",
    "unchecked_points",
]

#: PyTorch's defaults for both checks (the verdict is the one a script calling them gets).
EPS, ATOL, RTOL = 1e-6, 1e-5, 1e-3
#: gradcheck builds the whole n-by-n Jacobian: n perturbed evaluations and n backward passes.
MAX_POINTS = 100
#: Graph nodes per point at order 2 (the probe's count) times points squared: the node visits
#: of gradgradcheck's n backward passes over the whole grid's graph. 2,000,000 is about 0.6 s
#: here (134 nodes a point, 100 points).
MAX_WORK = 2_000_000

#: Why a point was not checked.
UNDEFINED = "undefined"  # f is NaN or infinite at x: outside its domain, or a pole
EDGE = "edge"  # f is finite at x but not at x - eps or x + eps: the stencil leaves the domain
KINK = "kink"  # an abs or relu has its argument at 0, or crossing 0, within [x - eps, x + eps]
DERIVATIVE = "derivative"  # f' is NaN or infinite on the stencil
SECOND = "second"  # f'' is NaN or infinite on the stencil (gradgradcheck only)


@dataclass(frozen=True)
class Mismatch:
    """One Jacobian entry outside the tolerance.

    Attributes:
        input: which input of the checked function: 0 is x; for gradgradcheck 1 is v, the
            incoming gradient of the first backward.
        row: the output entry (a point index).
        column: the input entry (a point index).
        numerical: the central finite difference.
        analytical: what the backward pass gave.
    """

    input: int
    row: int
    column: int
    numerical: float
    analytical: float


@dataclass(frozen=True)
class Check:
    """The verdict of one PyTorch check.

    Attributes:
        name: "gradcheck" or "gradgradcheck".
        points: the points it ran on (empty: not run, every point was skipped).
        passed: PyTorch's verdict, or None if it did not run.
        message: PyTorch's own message when it failed (``GradcheckError``), else "".
        mismatches: the entries outside the tolerance, recomputed the way PyTorch compares
            them (empty when the failure was not a mismatch of values).
    """

    name: str
    points: tuple[float, ...]
    passed: bool | None
    message: str
    mismatches: tuple[Mismatch, ...]


@dataclass(frozen=True)
class Skipped:
    """A point a check did not run on, and why (:data:`UNDEFINED`, :data:`EDGE`,
    :data:`KINK`, :data:`DERIVATIVE`, :data:`SECOND`); ``piece`` names the abs or relu of a
    kink, written in the function language."""

    x: float
    reason: str
    piece: str = ""


@dataclass(frozen=True)
class GradChecks:
    """Both checks on the points asked for."""

    points: tuple[float, ...]
    gradcheck: Check
    gradgradcheck: Check
    skipped: tuple[Skipped, ...]
    eps: float = EPS
    atol: float = ATOL
    rtol: float = RTOL


# ---- private helpers --------------------------------------------------------------------------


def _jacobians(
    func: Callable[..., torch.Tensor], inputs: tuple[torch.Tensor, ...]
) -> list[tuple[np.ndarray, np.ndarray]]:
    """(numerical, analytical) Jacobian of ``func`` for each input, as gradcheck forms them:
    central differences with step EPS, and one backward pass per output entry."""
    out = func(*inputs)
    analytical = [np.zeros((out.numel(), x.numel())) for x in inputs]
    if out.requires_grad:
        for r in range(out.numel()):
            grads = torch.autograd.grad(
                out.reshape(-1)[r],
                inputs,
                retain_graph=True,
                allow_unused=True,
                materialize_grads=True,
            )
            for i, g in enumerate(grads):
                analytical[i][r] = g.detach().reshape(-1).numpy()
    pairs = []
    for i, x in enumerate(inputs):
        numerical = np.zeros_like(analytical[i])
        for c in range(x.numel()):
            ends = []
            for step in (EPS, -EPS):
                moved = [t.detach().clone().requires_grad_(t.requires_grad) for t in inputs]
                with torch.no_grad():
                    moved[i].reshape(-1)[c] += step
                ends.append(func(*moved).detach().reshape(-1).numpy())
            numerical[:, c] = (ends[0] - ends[1]) / (2 * EPS)
        pairs.append((numerical, analytical[i]))
    return pairs


def _mismatches(func: Callable[..., torch.Tensor], inputs: tuple[torch.Tensor, ...]) -> tuple:
    found = []
    for i, (numerical, analytical) in enumerate(_jacobians(func, inputs)):
        # torch.allclose(analytical, numerical): |a - n| <= atol + rtol * |n|, NaN never close
        with np.errstate(invalid="ignore"):
            close = np.abs(analytical - numerical) <= ATOL + RTOL * np.abs(numerical)
        for r, c in zip(*np.nonzero(~close), strict=True):
            found.append(
                Mismatch(i, int(r), int(c), float(numerical[r, c]), float(analytical[r, c]))
            )
    return tuple(found)


def _first_backward(func: Callable[[torch.Tensor], torch.Tensor]) -> Callable[..., torch.Tensor]:
    """(x, v) -> v·∂f/∂x with create_graph=True: the function gradgradcheck differentiates."""

    def backward(x: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        out = func(x)
        if not out.requires_grad:
            return torch.zeros_like(x)
        (g,) = torch.autograd.grad(
            out, x, v, create_graph=True, allow_unused=True, materialize_grads=True
        )
        return g

    return backward


def _run(
    name: str, func: Callable, inputs: tuple, check: Callable[[], bool], points: tuple
) -> Check:
    try:
        check()
    except GradcheckError as err:  # PyTorch's verdict "failed", in its own words
        return Check(name, points, False, str(err), _mismatches(func, inputs))
    return Check(name, points, True, "", ())


def _kinks(node: Node, out: list[Node]) -> None:
    """Every abs(...) and relu(...) in the tree (the places f can have a kink)."""
    match node:
        case Node(const=value) if value is not None:
            return
        case Call(func=func, arg=arg):
            if func in KINKS:
                out.append(node)
            _kinks(arg, out)
        case Neg(arg=arg):
            _kinks(arg, out)
        case Binary(left=left, right=right):
            _kinks(left, out)
            _kinks(right, out)


def _skipped(fn: Function, xs: np.ndarray) -> list[Skipped]:
    """Why each point where f has no ordinary first or second derivative is not checked."""
    stencil = np.stack([xs - EPS, xs, xs + EPS])  # shape (3, n)
    x = torch.tensor(stencil.reshape(-1), dtype=torch.float64, requires_grad=True)
    rows, _, _ = autograd_rows(fn, x, 2)
    f, d1, d2 = (r.detach().reshape(3, -1).numpy(force=True) for r in rows)
    var = fn.variables[0] if fn.variables else None
    kinks: list[Node] = []
    _kinks(fn.tree, kinks)
    with torch.no_grad():
        args = [evaluate(k.arg, {var: x.detach()} if var else {}).expand(x.shape) for k in kinks]
    signs = [np.sign(a.reshape(3, -1).numpy()) for a in args]
    out = []
    for j, point in enumerate(xs.tolist()):
        kink = next(
            (
                show(k)
                for k, s in zip(kinks, signs, strict=True)
                if s[1, j] == 0 or s[0, j] != s[2, j]
            ),
            "",
        )
        if not math.isfinite(f[1, j]):
            out.append(Skipped(point, UNDEFINED))
        elif not np.isfinite(f[:, j]).all():
            out.append(Skipped(point, EDGE))
        elif kink:
            out.append(Skipped(point, KINK, kink))
        elif not np.isfinite(d1[:, j]).all():
            out.append(Skipped(point, DERIVATIVE))
        elif not np.isfinite(d2[:, j]).all():
            out.append(Skipped(point, SECOND))
    return out


# ---- public API -------------------------------------------------------------------------------


def unchecked_points(fn: Function, xs: Sequence[float] | np.ndarray) -> list[Skipped]:
    """The points of ``xs`` where f (one variable at most) has no ordinary first or second
    derivative, and why: the points :func:`run_gradchecks` leaves out. No budget: the caller
    bounds ``xs`` and the function."""
    return _skipped(fn, np.asarray(xs, dtype=np.float64).reshape(-1))


def check_callable(
    func: Callable[[torch.Tensor], torch.Tensor],
    xs: Sequence[float],
    second_xs: Sequence[float] | None = None,
) -> tuple[Check, Check]:
    """``gradcheck`` of ``func`` at the points ``xs`` and ``gradgradcheck`` at ``second_xs``
    (default: ``xs``), float64, PyTorch's default tolerances; v = 1 is the incoming gradient of
    gradgradcheck's first backward (given, so no random number is drawn).

    ``func`` maps a float64 vector to a vector; it may be a custom ``torch.autograd.Function``'s
    ``apply``. No budget: :func:`run_gradchecks` bounds typed functions before calling this.
    """
    second = list(xs if second_xs is None else second_xs)
    checks = []
    for name, where in (("gradcheck", list(xs)), ("gradgradcheck", second)):
        if not where:
            checks.append(Check(name, (), None, "", ()))
            continue
        x = torch.tensor(where, dtype=torch.float64, requires_grad=True)
        if name == "gradcheck":
            checks.append(
                _run(
                    name,
                    func,
                    (x,),
                    lambda x=x: torch.autograd.gradcheck(func, (x,), eps=EPS, atol=ATOL, rtol=RTOL),
                    tuple(where),
                )
            )
            continue
        v = torch.ones_like(x, requires_grad=True)
        checks.append(
            _run(
                name,
                _first_backward(func),
                (x, v),
                lambda x=x, v=v: torch.autograd.gradgradcheck(
                    func, (x,), (v,), eps=EPS, atol=ATOL, rtol=RTOL
                ),
                tuple(where),
            )
        )
    return checks[0], checks[1]


def run_gradchecks(
    fn: Function, xs: Sequence[float] | np.ndarray, probe: Prober = probe_graph
) -> GradChecks:
    """PyTorch's ``gradcheck`` and ``gradgradcheck`` on a one-variable typed function at
    ``xs``, skipping the points where f has no ordinary derivative (see :class:`Skipped`).

    Args:
        fn: a function of at most one variable.
        xs: 1 to :data:`MAX_POINTS` finite points.
        probe: sizes the second-order graph before any check runs (see ``Prober``).

    Raises:
        ArgumentError: more than one variable, or a point that is not a finite number.
        BudgetError: too many points, or the graph too large (nodes, memory or work).

    Example:
        >>> from hograd_core import parse
        >>> r = run_gradchecks(parse("x**3"), [2.0])
        >>> r.gradcheck.passed, r.gradgradcheck.passed
        (True, True)
        >>> run_gradchecks(parse("relu(x)"), [0.0]).skipped[0].reason
        'kink'
    """
    if len(fn.variables) > 1:
        raise ArgumentError("budget.one_variable", names=", ".join(fn.variables))
    grid = np.asarray(xs, dtype=np.float64).reshape(-1)
    if not 1 <= grid.size <= MAX_POINTS:
        cls = BudgetError if grid.size > MAX_POINTS else ArgumentError
        raise cls("budget.gradcheck_points", limit=MAX_POINTS, got=grid.size)
    if not np.all(np.isfinite(grid)) or np.max(np.abs(grid)) > BUDGET.max_abs_x:
        bad = grid[
            ~np.isfinite(grid) | (np.abs(np.nan_to_num(grid, nan=np.inf)) > BUDGET.max_abs_x)
        ]
        raise ArgumentError("budget.not_finite", what="x", got=", ".join(f"{v:g}" for v in bad[:3]))
    # the second-order graph on every point of the stencil, before anything is built
    nodes, _, _ = estimate_autograd(fn, 2, 3 * grid.size, probe)
    if nodes * grid.size**2 > MAX_WORK:
        raise BudgetError(
            "budget.gradcheck_work",
            points=grid.size,
            nodes=f"{nodes:,}",
            work=f"{nodes * grid.size**2:,}",
            limit=f"{MAX_WORK:,}",
        )
    skipped = _skipped(fn, grid)
    not_first = {s.x for s in skipped if s.reason != SECOND}
    not_second = {s.x for s in skipped}
    var = fn.variables[0] if fn.variables else None

    def f(x: torch.Tensor) -> torch.Tensor:
        return fn.torch({var: x} if var else {}).expand_as(x)

    first, second = check_callable(
        f,
        [x for x in grid.tolist() if x not in not_first],
        [x for x in grid.tolist() if x not in not_second],
    )
    return GradChecks(tuple(grid.tolist()), first, second, tuple(skipped))
