"""The derivatives lab: the point inspector, the Taylor polynomial, the PyTorch snippet and the
cost comparison, each a plain function the page calls once.

Every number on the inspector comes from a different road to the same derivative: Taylor mode,
nested ``torch.autograd.grad``, sympy's exact derivative, and a central finite difference. When
they agree, the learner can trust each of them; where they do not (finite differences at high
order, sympy giving up on a swollen expression, a point where f has no derivative and each
method follows its own convention), the page says why: :func:`agrees` is the one test of
agreement, :func:`disagreements` lists every order that fails it.
"""

from __future__ import annotations

import inspect
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np
import torch

from . import derivatives_script as script
from .errors import BudgetError, HogradError
from .exact_view import MAX_LATEX_OPS, SympyView
from .language import Binary, Call, Function, Neg, Node
from .language.to_source import python_name, torch_source
from .nested_autograd import (
    BUDGET,
    MAX_FD_ORDER,
    autograd_column,
    autograd_rows,
    derivatives,
    estimate_autograd,
    finite_differences,
)
from .point_notes import TORCH_FORMULAS, PointNote, point_notes
from .series_radius import SeriesRadius, series_radius

__all__ = [
    "Inspection",
    "InspectorRow",
    "inspect_numbers",
    "with_sympy",
    "AutogradPart",
    "autograd_part",
    "with_autograd",
    "AGREE_RTOL",
    "TINY",
    "agrees",
    "lost_to_underflow",
    "Disagreement",
    "disagreements",
    "disagreement_cause",
    "TaylorView",
    "taylor_view",
    "taylor_polynomial",
    "pytorch_snippet",
    "CostProfile",
    "cost_profile",
    "MAX_FD_ORDER",
    "MAX_LATEX_OPS",
]

#: Two answers for one derivative agree when they differ by at most this much, relative to the
#: reference (absolute below 1 in size): float64 rounding of an exact derivative stays far
#: below it, a different convention or a dropped term far above.
AGREE_RTOL = 1e-8


@dataclass(frozen=True)
class InspectorRow:
    """One order at x0, by four methods (None where a method was not run)."""

    order: int
    taylor: float
    autograd: float | None
    sympy: float | None
    finite_difference: float | None
    latex: str | None  # sympy's derivative, when short enough to read
    ops: int | None  # sympy's count_ops of that derivative
    # sympy's value as text ("1.8e-653") where its 30 digits have a number that is not 0 but
    # float64 holds as 0 (below its smallest positive number, 4.9e-324); else None
    below_float64: str | None = None

    @property
    def reference(self) -> float:
        """The best value of this order: sympy's, or Taylor mode's where sympy has none, or
        has 0 and Taylor mode a number below 1e-30 (sympy's 30 digits cannot hold
        tanh'(48.8) = 1.6e-42 next to the terms near 1 it is the difference of)."""
        if self.sympy is None or (self.sympy == 0 and 0 < abs(self.taylor) < 1e-30):
            return self.taylor
        return self.sympy

    @property
    def underflow(self) -> tuple[str, ...]:
        """The methods whose value here is 0 or subnormal while :attr:`reference` is not 0
        (:func:`lost_to_underflow`), or while the exact value is not 0 but below what float64
        holds (:attr:`below_float64`: then every column holds 0, sympy's float too)."""
        shown = {"taylor": self.taylor, "autograd": self.autograd, "sympy": self.sympy}
        if self.below_float64 is not None:  # the truth is not 0, and no float64 but 0 is nearer
            return tuple(m for m, v in shown.items() if v is not None and v == 0)
        truth = self.reference
        return tuple(m for m, v in shown.items() if v is not None and lost_to_underflow(v, truth))


@dataclass(frozen=True)
class Inspection:
    x0: float
    rows: tuple[InspectorRow, ...]
    constant_from: int | None
    sympy_stopped: str | None  # None, "size" or "time"
    autograd_refused: HogradError | None  # why nested autograd was not run, if it was not
    sympy_working: bool = False  # sympy is still differentiating: its column fills in later
    autograd_working: bool = False  # nested autograd is still running elsewhere: the same
    notes: tuple[PointNote, ...] = ()  # pieces of f without an ordinary derivative at x0


@dataclass(frozen=True)
class AutogradPart:
    """Nested autograd's column at x0: its ``values``, the ``refused`` budget error, or
    ``working`` (computed elsewhere and not in yet: hograd_serving/deferred.py)."""

    values: tuple[float, ...] = ()
    refused: HogradError | None = None
    working: bool = False


def inspect_numbers(fn: Function, x0: float, order: int, *, autograd: bool = True) -> Inspection:
    """:func:`hograd_core.inspector_exact.inspect_point` without sympy's column: Taylor mode, finite differences and
    (unless ``autograd`` is False: the page has it computed elsewhere) nested autograd."""
    taylor = derivatives(fn, [x0], order, method="taylor")
    fds = finite_differences(fn, x0, range(min(order, MAX_FD_ORDER) + 1))
    rows = tuple(
        InspectorRow(
            order=k,
            taylor=float(taylor.values[k, 0]),
            autograd=None,
            sympy=None,
            finite_difference=fds[k] if k < len(fds) else None,
            latex=None,
            ops=None,
        )
        for k in range(order + 1)
    )
    numbers = Inspection(
        x0=float(x0),
        rows=rows,
        constant_from=taylor.constant_from,
        sympy_stopped=None,
        autograd_refused=None,
        notes=point_notes(fn, x0),
    )
    return with_autograd(numbers, autograd_part(fn, x0, order)) if autograd else numbers


def autograd_part(fn: Function, x0: float, order: int) -> AutogradPart:
    """Nested autograd's column at ``x0``, to ``order`` or the autograd limit, here and now."""
    try:
        values = autograd_column(fn, x0, min(order, BUDGET.max_order_autograd))
    except BudgetError as err:
        return AutogradPart(refused=err)
    return AutogradPart(values=tuple(values))


def with_autograd(numbers: Inspection, part: AutogradPart) -> Inspection:
    """``numbers`` with nested autograd's column, or its refusal, from ``part``."""
    n = len(part.values)
    rows = tuple(
        replace(r, autograd=part.values[k]) if k < n else r for k, r in enumerate(numbers.rows)
    )
    return replace(numbers, rows=rows, autograd_refused=part.refused, autograd_working=part.working)


def with_sympy(numbers: Inspection, sympy: SympyView) -> Inspection:
    """``numbers`` (from :func:`inspect_numbers`) with sympy's column filled in as far as
    ``sympy`` goes."""
    n = len(sympy.values)
    below = (*sympy.below_float64, *[None] * n)[:n]
    rows = tuple(
        replace(
            r,
            sympy=sympy.values[k],
            latex=sympy.latex[k],
            ops=sympy.ops[k],
            below_float64=below[k],
        )
        if k < n
        else r
        for k, r in enumerate(numbers.rows)
    )
    return replace(numbers, rows=rows, sympy_stopped=sympy.stopped, sympy_working=sympy.working)


#: The smallest normal float64 (2.2e-308): below it a number has lost digits (subnormal) or
#: became 0, although the exact value is not 0.
TINY = float(np.finfo(np.float64).tiny)


def lost_to_underflow(value: float, truth: float) -> bool:
    """Whether ``value`` is 0 or subnormal while ``truth`` is a number that is not 0: an
    exact-looking 0 that float64 rounding made (tanh' at 48.8 computed as 1 - tanh² is 0; the
    truth is 1.6e-42), or a truth itself below float64's normal range.

    Example:
        >>> lost_to_underflow(0.0, 1.6e-42), lost_to_underflow(0.0, 0.0), lost_to_underflow(1.0, 1.0)
        (True, False, False)
    """
    if not (math.isfinite(value) and math.isfinite(truth)) or truth == 0:
        return False
    return abs(value) < TINY


def agrees(value: float, reference: float, rtol: float = AGREE_RTOL) -> bool:
    """Whether ``value`` is ``reference`` up to ``rtol`` (relative; absolute below 1 in size).

    NaN agrees only with NaN, and an infinity only with the same infinity: sqrt(x**2) at 0 has
    NaN by nested autograd and 0 by sympy, and that is a disagreement.

    Example:
        >>> agrees(1.0 + 1e-12, 1.0), agrees(math.nan, 0.0), agrees(math.nan, math.nan)
        (True, False, True)
    """
    if math.isnan(value) or math.isnan(reference):
        return math.isnan(value) and math.isnan(reference)
    if math.isinf(value) or math.isinf(reference):
        return value == reference
    return abs(value - reference) <= rtol * max(1.0, abs(reference))


@dataclass(frozen=True)
class Disagreement:
    """One order at which a method's value fails :func:`agrees` with the reference's."""

    order: int
    method: str  # "taylor" or "autograd"
    value: float
    reference: str  # "sympy", or "taylor" where sympy has no value for this order
    expected: float


def disagreements(inspection: Inspection) -> tuple[Disagreement, ...]:
    """Every order at which Taylor mode or nested autograd differs from sympy; where sympy's
    column is empty (stopped, still working), nested autograd is compared with Taylor mode."""
    out = []
    for r in inspection.rows:
        if r.sympy is not None:
            pairs = [("taylor", r.taylor), ("autograd", r.autograd)]
            reference, expected = "sympy", r.sympy
        else:
            pairs, reference, expected = [("autograd", r.autograd)], "taylor", r.taylor
        for method, value in pairs:
            if value is not None and not agrees(value, expected):
                out.append(Disagreement(r.order, method, value, reference, expected))
    return tuple(out)


def disagreement_cause(fn: Function, inspection: Inspection) -> str:
    """The likely reason for :func:`disagreements` at x0: "convention" (a piece of f has no
    ordinary derivative there, ``inspection.notes``: each method follows its own convention),
    "torch_formula" (PyTorch's own formulas for the derivatives of a piece lose digits there:
    i0 near 0, the polygamma family left of 0; :data:`~hograd_core.point_notes.TORCH_FORMULAS`),
    "power" (f has a power whose base and
    exponent both depend on the variable: PyTorch's backward of pow drops a term where an
    exponent is exactly 0, pytorch/pytorch issue 89757, as for x**x at 1 and 2), or "other"."""
    if any(note.kind not in TORCH_FORMULAS for note in inspection.notes):
        return "convention"
    if inspection.notes:
        return "torch_formula"
    stack = [fn.tree]
    while stack:
        match stack.pop():
            case Binary(op="**", left=Node(const=None), right=Node(const=None)):
                return "power"
            case Binary(left=left, right=right):
                stack += [left, right]
            case Neg(arg=arg) | Call(arg=arg):
                stack.append(arg)
    return "other"


@dataclass(frozen=True)
class TaylorView:
    """The Taylor tab: the polynomial of degree ``order`` at ``x0`` on a grid, and how far the
    series it comes from converges."""

    x0: float
    order: int
    polynomial: np.ndarray
    radius: SeriesRadius


def taylor_view(fn: Function, x0: float, order: int, xs: np.ndarray) -> TaylorView:
    """:func:`taylor_polynomial` on ``xs`` with the series' radius of convergence at ``x0``."""
    poly = taylor_polynomial(fn, x0, order, xs)
    return TaylorView(float(x0), order, poly, series_radius(fn, x0))


def taylor_polynomial(
    fn: Function,
    x0: float,
    order: int,
    xs: np.ndarray,
) -> np.ndarray:
    """T_n(x) = Σ_k f^(k)(x0)/k! (x - x0)^k on ``xs``: what the derivatives at one point know
    about the whole function."""
    coeffs = derivatives(fn, [x0], order, method="taylor").values[:, 0]
    dx = np.asarray(xs, dtype=np.float64) - x0
    out = np.zeros_like(dx)
    # Horner's rule on c_k = f^(k)(x0) / k!
    for k in range(order, -1, -1):
        out = out * dx + coeffs[k] / math.factorial(k)
    return out


# ---- the PyTorch snippet ---------------------------------------------------------------------

#: The functions the snippet shows, as they are written in hograd_core/derivatives_script.py:
#: the page's nested-autograd numbers come from the same ``nested_derivatives``.
_SHOWN = (script.nodes, script.nested_derivatives, script.print_derivatives)


def _shown_source() -> str:
    return "\n\n".join(inspect.getsource(fn) for fn in _SHOWN)


def pytorch_snippet(fn: Function, x0: float, order: int) -> str:
    """A runnable script that prints f and its derivatives at x0 by nested autograd, each as
    ``k value grad_fn nodes`` (the name of its ``grad_fn``, and how many autograd nodes a
    backward through it would walk): :func:`hograd_core.cpp_code.derivatives_cpp` prints the
    same lines from C++.

    It is the source of the functions in :mod:`hograd_core.derivatives_script`
    (``inspect.getsource``), whose ``nested_derivatives`` gives the inspector's autograd
    column, then ``f`` written by :func:`~hograd_core.language.to_source.torch_source` (the
    variable renamed where it would hide a name of the script), then one call.

    The comment in ``nested_derivatives`` states the rule its shortcut relies on, with its
    conditions: a derivative has no ``grad_fn`` (``requires_grad`` is False) when the backward
    that made it used no tensor that requires grad. With ``create_graph=True`` and the
    built-in functions of the language, that happens only when it no longer depends on x, so
    the next derivative is exactly 0. Without ``create_graph=True`` (or through a custom
    function whose backward is not itself differentiable: marked ``once_differentiable``, or
    using ``x.detach()``) a derivative that does depend on x has no ``grad_fn`` either, and
    the same shortcut would print 0: x**3 at 2 would give f'' = 0.0 instead of 12.
    """
    own = fn.variables[0] if fn.variables else "x"
    var = python_name(own, {"torch", "f", *(shown.__name__ for shown in _SHOWN)})
    lines = [
        "import torch",
        "",
        "",
        _shown_source().rstrip("\n"),
        "",
        "",
        f"def f({var}):",
        f"    return {torch_source(fn, {own: var})}",
        "",
        "",
        f"print_derivatives(f, {float(x0)!r}, {order})",
    ]
    return "\n".join(lines) + "\n"


# ---- cost ------------------------------------------------------------------------------------


#: Time each method may spend on its repeated runs in one measurement (at least one run).
COST_SECONDS = 1.5
#: Runs per order, at most; the chart shows their median.
COST_RUNS = 5


@dataclass(frozen=True)
class CostProfile:
    """Cost of each order on ``points`` points of [``low``, ``high``], three ways, measured.

    Attributes:
        orders: 0..n.
        nodes: nested-autograd graph nodes per point after each order (the probe's count).
        autograd_ms: time to build orders 0..k by nested autograd on the grid: the median over
            ``autograd_runs`` builds to order n, each timed after every order.
        autograd_mb: estimated memory of that graph on the grid (8 bytes per node per point).
        taylor_ms: time for all orders 0..k in one Taylor pass on the grid: the median of
            ``taylor_runs`` runs for each k.
        sympy_ms: time of sympy's ``diff`` calls up to order k, one run each (a repeat would
            time sympy's cache of results); None past where sympy stopped.
        sympy_ops: size of sympy's k-th derivative.
    """

    points: int
    low: float
    high: float
    orders: tuple[int, ...]
    nodes: tuple[int, ...]
    autograd_ms: tuple[float, ...]
    autograd_mb: tuple[float, ...]
    taylor_ms: tuple[float, ...]
    sympy_ms: tuple[float | None, ...]
    sympy_ops: tuple[int | None, ...]
    autograd_runs: int
    taylor_runs: int


def _repeat(run: Callable[[], list[float]], seconds: float) -> tuple[list[float], int]:
    """Medians of what ``run`` returns (times, one per order), over up to ``COST_RUNS`` runs
    that start within ``seconds``, and how many runs that was."""
    results, start = [], time.perf_counter()
    while len(results) < COST_RUNS and (not results or time.perf_counter() - start < seconds):
        results.append(run())
    return [float(m) for m in np.median(np.array(results), axis=0)], len(results)


#: sympy's time per ``diff`` call (ms) and size for orders 0..k, as far as it got.
SympyCosts = tuple[Sequence[float], Sequence[int]]


def cost_profile(
    fn: Function,
    order: int,
    points: int,
    low: float = -1.0,
    high: float = 1.0,
    *,
    sympy: Callable[[Function, int], SympyCosts],
) -> CostProfile:
    """Measure nested autograd, Taylor mode and sympy order by order on ``points`` points
    from ``low`` to ``high`` (the student's range).

    Args:
        sympy: gives sympy's cost: the app reads it from the child process that works out
            sympy's column, where it can be stopped; a script may pass
            :func:`hograd_core.inspector_exact.sympy_costs`, which runs sympy here.

    Raises:
        BudgetError: the nested-autograd graph would exceed the budget (checked first, by
            the one-point probe, before anything runs on the grid).
    """
    order = min(order, BUDGET.max_order_autograd)
    xs = np.linspace(low, high, points)
    _, nodes, _ = estimate_autograd(fn, order, points)  # raises before any work on the grid
    x = torch.tensor(xs, dtype=torch.float64, requires_grad=True)

    def autograd_run() -> list[float]:
        clock = [time.perf_counter()]
        autograd_rows(fn, x, order, clock=clock)  # one build, timed after each order
        return [(t - clock[0]) * 1000 for t in clock[1:]]

    def taylor_run() -> list[float]:
        times = []
        for k in range(order + 1):
            start = time.perf_counter()
            derivatives(fn, xs, k, method="taylor")
            times.append((time.perf_counter() - start) * 1000)
        return times

    auto_ms, auto_runs = _repeat(autograd_run, COST_SECONDS)
    taylor_ms, taylor_runs = _repeat(taylor_run, COST_SECONDS)
    diff_ms, ops = sympy(fn, order)  # one run each: a repeat would time sympy's cache
    reached = np.cumsum(diff_ms)
    sym_ms = [float(reached[k]) if k < len(diff_ms) else None for k in range(order + 1)]
    return CostProfile(
        points=points,
        low=float(low),
        high=float(high),
        orders=tuple(range(order + 1)),
        nodes=tuple(nodes),
        autograd_ms=tuple(auto_ms),
        autograd_mb=tuple(n * points * 8 / 1e6 for n in nodes),
        taylor_ms=tuple(taylor_ms),
        sympy_ms=tuple(sym_ms),
        sympy_ops=tuple(ops[k] if k < len(ops) else None for k in range(order + 1)),
        autograd_runs=auto_runs,
        taylor_runs=taylor_runs,
    )
