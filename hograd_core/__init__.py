"""hograd_core: the mathematics of the Higher-Order Gradient Lab, and nothing else.

What belongs here: the function language (:mod:`.language`), derivatives by nested autograd
(:mod:`.nested_autograd`) and Taylor mode (:mod:`.taylor`), sympy as an oracle
(:mod:`.symbolic`), the point inspector (:mod:`.inspector`), gradients, Hessians and
Hessian-vector products (:mod:`.hessian`, :mod:`.curvature`), the small network and its
curvature (:mod:`.network`, :mod:`.net_curvature`), the double-backward graph
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

from .curvature import CURVATURE_BUDGET, Exploration, Verdict, explore, hvp_three_ways, verdict
from .errors import ArgumentError, BudgetError, ExpressionError, HogradError
from .flaglab import FlagSettings, run_case, run_flags
from .graphs import GraphLab, graph_lab
from .hessian import HVPResult, classify, hvp
from .hvp_graph import HVPGraph, hvp_graph
from .language import CONSTANTS, FUNCTIONS, LIMITS, Function, parse
from .nested_autograd import BUDGET, DerivativeResult, derivatives, finite_difference
from .net_curvature import NetCurvature
from .network import NETWORK_BUDGET, NetConfig, TrainedNet, train

__all__ = [
    "BUDGET",
    "CURVATURE_BUDGET",
    "NETWORK_BUDGET",
    "Exploration",
    "FlagSettings",
    "GraphLab",
    "HVPGraph",
    "NetConfig",
    "NetCurvature",
    "TrainedNet",
    "Verdict",
    "explore",
    "graph_lab",
    "hvp_graph",
    "hvp_three_ways",
    "run_case",
    "run_flags",
    "train",
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
