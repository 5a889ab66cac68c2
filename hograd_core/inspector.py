"""The derivatives lab: the point inspector, the Taylor polynomial, the PyTorch snippet and the
cost comparison, each a plain function the page calls once.

Every number on the inspector comes from a different road to the same derivative: Taylor mode,
nested ``torch.autograd.grad``, sympy's exact derivative, and a central finite difference. When
they agree, the learner can trust each of them; where they do not (finite differences at high
order, sympy giving up on a swollen expression), the page says why.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace

import numpy as np
import torch

from .errors import BudgetError, HogradError
from .language import Function
from .language.to_source import python_name, torch_source
from .nested_autograd import (
    BUDGET,
    autograd_column,
    autograd_rows,
    derivatives,
    estimate_autograd,
    finite_differences,
)  # fmt: skip
from .symbolic import MAX_LATEX_OPS, SympyView, symbolic_derivatives, sympy_view

__all__ = [
    "Inspection", "InspectorRow", "inspect_point", "inspect_numbers", "with_sympy",
    "AutogradPart", "autograd_part", "with_autograd",
    "taylor_polynomial", "pytorch_snippet", "CostProfile", "cost_profile", "MAX_FD_ORDER", "MAX_LATEX_OPS",
]  # fmt: skip

#: Finite differences lose about three digits per order: above this they are noise.
MAX_FD_ORDER = 6


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


@dataclass(frozen=True)
class Inspection:
    x0: float
    rows: tuple[InspectorRow, ...]
    constant_from: int | None
    sympy_stopped: str | None  # None, "size" or "time"
    autograd_refused: HogradError | None  # why nested autograd was not run, if it was not
    sympy_working: bool = False  # sympy is still differentiating: its column fills in later
    autograd_working: bool = False  # nested autograd is still running elsewhere: the same


@dataclass(frozen=True)
class AutogradPart:
    """Nested autograd's column at x0: its ``values``, the ``refused`` budget error, or
    ``working`` (computed elsewhere and not in yet: hograd_serving/deferred.py)."""

    values: tuple[float, ...] = ()
    refused: HogradError | None = None
    working: bool = False


def inspect_point(
    fn: Function, x0: float, order: int, sympy: SympyView | None = None,
) -> Inspection:  # fmt: skip
    """Derivatives of orders 0..order at ``x0`` by Taylor mode, autograd, sympy and finite
    differences.

    Args:
        sympy: sympy's part, if the caller has it (the page asks the sympy worker); else it
            is worked out here, within a second.

    Raises:
        BudgetError: order or x0 out of bounds.
    """
    numbers = inspect_numbers(fn, x0, order)
    return with_sympy(numbers, sympy or sympy_view(fn, order, x0, max_seconds=1.0))


def inspect_numbers(fn: Function, x0: float, order: int, *, autograd: bool = True) -> Inspection:
    """:func:`inspect_point` without sympy's column: Taylor mode, finite differences and
    (unless ``autograd`` is False: the page has it computed elsewhere) nested autograd."""
    taylor = derivatives(fn, [x0], order, method="taylor")
    fds = finite_differences(fn, x0, range(min(order, MAX_FD_ORDER) + 1))
    rows = tuple(
        InspectorRow(
            order=k, taylor=float(taylor.values[k, 0]), autograd=None, sympy=None,
            finite_difference=fds[k] if k < len(fds) else None, latex=None, ops=None,
        )
        for k in range(order + 1)
    )  # fmt: skip
    numbers = Inspection(
        x0=float(x0), rows=rows, constant_from=taylor.constant_from, sympy_stopped=None,
        autograd_refused=None,
    )  # fmt: skip
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
    rows = tuple(
        replace(r, sympy=sympy.values[k], latex=sympy.latex[k], ops=sympy.ops[k]) if k < n else r
        for k, r in enumerate(numbers.rows)
    )
    return replace(numbers, rows=rows, sympy_stopped=sympy.stopped, sympy_working=sympy.working)


def taylor_polynomial(
    fn: Function, x0: float, order: int, xs: np.ndarray,
) -> np.ndarray:  # fmt: skip
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

# Names the snippet itself uses: a variable of the language with one of these is renamed x.
_SNIPPET_NAMES = {"torch", "y", "derivatives", "k", "d", "range", "enumerate", "print", "float"}


def pytorch_snippet(fn: Function, x0: float, order: int) -> str:
    """A runnable script that prints f and its derivatives at x0 by nested autograd, exactly
    as the inspector's autograd column computes them."""
    own = fn.variables[0] if fn.variables else "x"
    var = python_name(own, _SNIPPET_NAMES)
    expr = torch_source(fn, {own: var})
    lines = ["import torch", "",
             f"{var} = torch.tensor({float(x0)!r}, dtype=torch.float64, requires_grad=True)",
             f"y = {expr}", "", "derivatives = [y]", f"for k in range(1, {order + 1}):",
             "    if not derivatives[-1].requires_grad:",
             "        # The last derivative is constant in x: grad() would raise",
             "        # 'element 0 of tensors does not require grad'. The answer is exactly 0.",
             f"        derivatives.append(torch.zeros_like({var}))",
             "        continue",
             f"    (d,) = torch.autograd.grad(derivatives[-1], {var}, create_graph=True)",
             "    derivatives.append(d)", "",
             "for k, d in enumerate(derivatives):",
             "    print(k, d.item())"]  # fmt: skip
    return "\n".join(lines) + "\n"


# ---- cost ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CostProfile:
    """Cost of each order on ``points`` points, three ways.

    Attributes:
        orders: 0..n.
        nodes: nested-autograd graph nodes per point after each order.
        autograd_ms: cumulative time to reach each order by nested autograd on the grid.
        autograd_mb: estimated memory of that graph on the grid (8 bytes per node per point).
        taylor_ms: time for all orders 0..k in one Taylor pass on the grid.
        sympy_ms: time of sympy's derivatives up to each order (its total spread evenly over
            the orders; None past where sympy stopped).
        sympy_ops: size of sympy's k-th derivative.
    """

    points: int
    orders: tuple[int, ...]
    nodes: tuple[int, ...]
    autograd_ms: tuple[float, ...]
    autograd_mb: tuple[float, ...]
    taylor_ms: tuple[float, ...]
    sympy_ms: tuple[float | None, ...]
    sympy_ops: tuple[int | None, ...]


def cost_profile(fn: Function, order: int, points: int) -> CostProfile:
    """Measure nested autograd, Taylor mode and sympy order by order on a grid of ``points``.

    Raises:
        BudgetError: the nested-autograd graph would exceed the budget (checked first, by
            the one-point probe, before anything runs on the grid).
    """
    order = min(order, BUDGET.max_order_autograd)
    xs = np.linspace(-1.0, 1.0, points)
    _, nodes, _ = estimate_autograd(fn, order, points)  # raises before any work on the grid
    x = torch.tensor(xs, dtype=torch.float64, requires_grad=True)
    auto_ms, taylor_ms = [], []
    for k in range(order + 1):
        start = time.perf_counter()
        autograd_rows(fn, x, k)
        auto_ms.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        derivatives(fn, xs, k, method="taylor")
        taylor_ms.append((time.perf_counter() - start) * 1000)
    # sympy, one order at a time, within the same budgets as the inspector
    sym = symbolic_derivatives(fn, order, max_seconds=1.5)
    per_order = sym.seconds * 1000 / max(1, len(sym.exprs) - 1)
    sym_ms = [per_order * k if k < len(sym.exprs) else None for k in range(order + 1)]
    return CostProfile(
        points=points, orders=tuple(range(order + 1)), nodes=tuple(nodes),
        autograd_ms=tuple(auto_ms), autograd_mb=tuple(n * points * 8 / 1e6 for n in nodes),
        taylor_ms=tuple(taylor_ms), sympy_ms=tuple(sym_ms),
        sympy_ops=tuple(sym.ops[k] if k < len(sym.ops) else None for k in range(order + 1)),
    )  # fmt: skip
