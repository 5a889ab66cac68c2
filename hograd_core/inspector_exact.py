"""The point inspector with sympy's column worked out here and now, in this process.

For scripts, tests and benchmarks. The app never calls it: its sympy column comes from a child
process that can be stopped (hograd_serving/exact.py), and an import-linter contract keeps
every module the server loads from importing this one.
"""

from __future__ import annotations

from .exact_view import SympyView
from .inspector import COST_SECONDS, Inspection, SympyCosts, inspect_numbers, with_sympy
from .language import Function
from .symbolic import symbolic_derivatives, sympy_view

__all__ = ["inspect_point", "sympy_costs"]


def inspect_point(
    fn: Function,
    x0: float,
    order: int,
    sympy: SympyView | None = None,
) -> Inspection:
    """Derivatives of orders 0..order at ``x0`` by Taylor mode, autograd, sympy and finite
    differences.

    Args:
        sympy: sympy's part, if the caller has it; else it is worked out here, within a
            second.

    Raises:
        BudgetError: order or x0 out of bounds.
    """
    numbers = inspect_numbers(fn, x0, order)
    return with_sympy(numbers, sympy or sympy_view(fn, order, x0, max_seconds=1.0))


def sympy_costs(fn: Function, order: int) -> SympyCosts:
    """sympy's ``diff`` times and sizes to ``order``, here and now, on a symbol its cache has
    never seen, within ``COST_SECONDS``."""
    sym = symbolic_derivatives(fn, order, max_seconds=COST_SECONDS, fresh=True)
    return [1000.0 * s for s in sym.diff_seconds], list(sym.ops)
