"""hograd_core: the mathematics of the Higher-Order Gradient Lab, and nothing else.

What belongs here: the function language (:mod:`.language`), derivatives by nested autograd
(:mod:`.nested_autograd`) and Taylor mode (:mod:`.taylor`), sympy as an oracle
(:mod:`.symbolic`), the point inspector (:mod:`.inspector`) and PyTorch's gradcheck on a
typed function (:mod:`.grad_checks`), gradients, Hessians and
Hessian-vector products (:mod:`.hessian`, :mod:`.curvature`), the small network
(:mod:`.network`), the double-backward graph
(:mod:`.graphs`), the flag lab (:mod:`.flaglab`) and the errors (:mod:`.errors`).

What does not: processes, threads, locks, caches shared between users, plotting, UI strings
and Streamlit (they live in hograd_serving and hograd_ui, which import this package; an
import-linter contract in pyproject.toml keeps it so). Budgets are checked here, as pure
checks before any work. A caller that wants work done in another process passes a function
in (``probe=`` of :func:`derivatives`, ``isolate=`` of :func:`run_flags`); this package never
reads a setting that someone else changed.

Example:
    >>> import hograd_core
    >>> fn = hograd_core.parse("x**3")
    >>> hograd_core.derivatives(fn, [2.0], 2).values[:, 0].tolist()
    [8.0, 12.0, 12.0]
"""

import importlib
from typing import Any

# Each public name and the module that defines it. Imported when first used (PEP 562): a
# process that needs only the function language and sympy (the exact column's child process,
# hograd_serving/exact_child.py) never loads torch.
_WHERE = {
    "CURVATURE_BUDGET": "curvature",
    "Exploration": "curvature",
    "Verdict": "curvature",
    "explore": "curvature",
    "hvp_three_ways": "curvature",
    "verdict": "curvature",
    "ArgumentError": "errors",
    "BudgetError": "errors",
    "ExpressionError": "errors",
    "HogradError": "errors",
    "FlagSettings": "flaglab",
    "run_case": "flaglab",
    "run_flags": "flaglab",
    "GraphLab": "graphs",
    "graph_lab": "graphs",
    "trend": "graphs",
    "HVPResult": "hessian",
    "classify": "hessian",
    "hvp": "hessian",
    "HVPGraph": "hvp_graph",
    "hvp_graph": "hvp_graph",
    "CONSTANTS": "language",
    "FUNCTIONS": "language",
    "LIMITS": "language",
    "Function": "language",
    "parse": "language",
    "BUDGET": "derivative_budget",
    "DerivativeResult": "nested_autograd",
    "derivatives": "nested_autograd",
    "finite_difference": "nested_autograd",
    "NETWORK_BUDGET": "network",
    "NetConfig": "network",
    "TrainedNet": "network",
    "train": "network",
}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'hograd_core' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    globals()[name] = value  # looked up once
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_WHERE])


__all__ = [
    "BUDGET",
    "CURVATURE_BUDGET",
    "NETWORK_BUDGET",
    "Exploration",
    "FlagSettings",
    "GraphLab",
    "HVPGraph",
    "NetConfig",
    "TrainedNet",
    "Verdict",
    "explore",
    "graph_lab",
    "hvp_graph",
    "hvp_three_ways",
    "run_case",
    "run_flags",
    "train",
    "trend",
    "verdict",
    "CONSTANTS",
    "FUNCTIONS",
    "LIMITS",
    "ArgumentError",
    "BudgetError",
    "DerivativeResult",
    "ExpressionError",
    "Function",
    "HVPResult",
    "HogradError",
    "classify",
    "derivatives",
    "finite_difference",
    "hvp",
    "parse",
]
