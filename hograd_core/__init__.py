"""hograd_core: the compute behind the Higher-Order Gradient Lab (no UI code here).

Example:
    >>> import hograd_core
    >>> fn = hograd_core.parse("x**3")
    >>> hograd_core.derivatives(fn, [2.0], 2).values[:, 0].tolist()
    [8.0, 12.0, 12.0]
"""

from .curvature import CURVATURE_BUDGET, Exploration, Verdict, explore, hvp_three_ways, verdict
from .derivatives import BUDGET, DerivativeResult, derivatives, finite_difference
from .errors import BudgetError, ExpressionError, HogradError
from .flaglab import FlagSettings, run_flags
from .flaglab_cases import run_case
from .gate import BusyError
from .graphs import GraphLab, graph_lab
from .hvp import HVPResult, classify, hvp
from .i18n import LANGUAGES, tr
from .language import CONSTANTS, FUNCTIONS, LIMITS, Function, parse
from .net_curvature import NetCurvature
from .network import NETWORK_BUDGET, NetConfig, TrainedNet, train

__all__ = [
    "BUDGET",
    "CURVATURE_BUDGET",
    "NETWORK_BUDGET",
    "BusyError",
    "Exploration",
    "FlagSettings",
    "GraphLab",
    "NetConfig",
    "NetCurvature",
    "TrainedNet",
    "Verdict",
    "explore",
    "graph_lab",
    "hvp_three_ways",
    "run_case",
    "run_flags",
    "train",
    "verdict",
    "CONSTANTS",
    "FUNCTIONS",
    "LANGUAGES",
    "LIMITS",
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
    "tr",
]
