"""hograd_core: the compute behind the Higher-Order Gradient Lab (no UI code here).

Example:
    >>> import hograd_core
    >>> fn = hograd_core.parse("x**3")
    >>> hograd_core.derivatives(fn, [2.0], 2).values[:, 0].tolist()
    [8.0, 12.0, 12.0]
"""

from .derivatives import BUDGET, DerivativeResult, derivatives, finite_difference
from .errors import BudgetError, ExpressionError, HogradError
from .hvp import HVPResult, classify, hvp
from .i18n import LANGUAGES, tr
from .language import CONSTANTS, FUNCTIONS, LIMITS, Function, parse

__all__ = [
    "BUDGET",
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
