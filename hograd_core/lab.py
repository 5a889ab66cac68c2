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

from .derivatives import (
    BUDGET,
    autograd_column,
    autograd_rows,
    derivatives,
    estimate_autograd,
    finite_differences,
)  # fmt: skip
from .errors import BudgetError, HogradError
from .language import Binary, Call, Const, Function, Neg, Node, Num, Var
from .symbolic import MAX_LATEX_OPS, SympyView, symbolic_derivatives, sympy_view

__all__ = [
    "Inspection", "InspectorRow", "inspect_point", "inspect_numbers", "with_sympy",
    "AutogradPart", "autograd_part", "with_autograd",
    "taylor_polynomial", "pytorch_snippet", "torch_source", "CostProfile", "cost_profile", "MAX_FD_ORDER", "MAX_LATEX_OPS",
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
    autograd_refused: str | None  # the budget message, if nested autograd was not run
    sympy_working: bool = False  # sympy is still differentiating: its column fills in later
    autograd_working: bool = False  # nested autograd is still running elsewhere: the same


@dataclass(frozen=True)
class AutogradPart:
    """Nested autograd's column at x0: its ``values``, the ``refused`` budget error, or
    ``working`` (computed elsewhere and not in yet: hograd_core/background.py)."""

    values: tuple[float, ...] = ()
    refused: HogradError | None = None
    working: bool = False


def inspect_point(
    fn: Function, x0: float, order: int, lang: str = "en", sympy: SympyView | None = None,
) -> Inspection:  # fmt: skip
    """Derivatives of orders 0..order at ``x0`` by Taylor mode, autograd, sympy and finite
    differences.

    Args:
        sympy: sympy's part, if the caller has it (the page asks the sympy worker); else it
            is worked out here, within a second.

    Raises:
        BudgetError: order or x0 out of bounds.
    """
    numbers = inspect_numbers(fn, x0, order, lang)
    return with_sympy(numbers, sympy or sympy_view(fn, order, x0, max_seconds=1.0))


def inspect_numbers(
    fn: Function, x0: float, order: int, lang: str = "en", *, autograd: bool = True
) -> Inspection:
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
    return with_autograd(numbers, autograd_part(fn, x0, order), lang) if autograd else numbers


def autograd_part(fn: Function, x0: float, order: int) -> AutogradPart:
    """Nested autograd's column at ``x0``, to ``order`` or the autograd limit, here and now."""
    try:
        values = autograd_column(fn, x0, min(order, BUDGET.max_order_autograd))
    except BudgetError as err:
        return AutogradPart(refused=err)
    return AutogradPart(values=tuple(values))


def with_autograd(numbers: Inspection, part: AutogradPart, lang: str = "en") -> Inspection:
    """``numbers`` with nested autograd's column from ``part``, its refusal in ``lang``."""
    n = len(part.values)
    rows = tuple(
        replace(r, autograd=part.values[k]) if k < n else r for k, r in enumerate(numbers.rows)
    )
    refused = None if part.refused is None else part.refused.message(lang)
    return replace(numbers, rows=rows, autograd_refused=refused, autograd_working=part.working)


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

_TORCH_NAMES = {
    "sin": "torch.sin", "cos": "torch.cos", "tan": "torch.tan", "asin": "torch.asin",
    "acos": "torch.acos", "atan": "torch.atan", "sinh": "torch.sinh", "cosh": "torch.cosh",
    "tanh": "torch.tanh", "exp": "torch.exp", "log": "torch.log", "sqrt": "torch.sqrt",
    "abs": "torch.abs", "sigmoid": "torch.sigmoid", "relu": "torch.relu", "erf": "torch.erf",
}  # fmt: skip


def torch_source(node: Node) -> str:
    """Python source computing ``node`` with torch (from the validated tree, never the text)."""
    if isinstance(node, Num):
        return repr(node.value)
    if isinstance(node, Var):
        return node.name
    if isinstance(node, Const):
        return "math.pi" if node.name == "pi" else "math.e"
    if isinstance(node, Neg):
        return f"-{_atom(node.arg)}"
    if isinstance(node, Call):
        inner = torch_source(node.arg)
        if node.func == "softplus":
            return f"torch.logaddexp({inner}, torch.tensor(0.0, dtype=torch.float64))"
        return f"{_TORCH_NAMES[node.func]}({inner})"
    assert isinstance(node, Binary)
    left, right = _atom(node.left), _atom(node.right)
    if node.op == "**" and node.left.const is not None and node.right.const is not None:
        # keep constant powers in float64 tensors, never Python's exact integer arithmetic
        return f"torch.tensor({left}, dtype=torch.float64) ** {right}"
    if node.op == "**" and node.left.const is not None:
        left = f"torch.tensor({left}, dtype=torch.float64)"
    sep = "" if node.op == "**" else " "
    return f"{left}{sep}{node.op}{sep}{right}"


def _atom(node: Node) -> str:
    source = torch_source(node)
    if isinstance(node, Binary | Neg) or (isinstance(node, Num) and node.value < 0):
        return f"({source})"
    return source


def pytorch_snippet(fn: Function, x0: float, order: int) -> str:
    """A runnable script that prints f and its derivatives at x0 by nested autograd, exactly
    as the inspector's autograd column computes them."""
    var = fn.variables[0] if fn.variables else "x"
    expr = torch_source(fn.tree)
    uses_math = "math." in expr
    lines = ["import math" if uses_math else None, "import torch", "",
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
             "    print(k, float(d))"]  # fmt: skip
    return "\n".join(line for line in lines if line is not None) + "\n"


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
