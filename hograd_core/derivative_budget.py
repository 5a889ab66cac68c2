"""The limits of one derivatives request, apart from the code that enforces them
(:mod:`.nested_autograd`), so that a page which only names them (the home page's text says
how far each method goes) does not load the methods themselves."""

from dataclasses import dataclass

__all__ = ["BUDGET", "MAX_FD_ORDER", "Budget"]


@dataclass(frozen=True)
class Budget:
    """Limits on one derivatives request (each exists to keep a shared server responsive)."""

    max_order_autograd: int = 10  # nested autograd: for most functions the graph multiplies
    max_order_taylor: int = 30  # Taylor mode: memory grows only linearly with the order
    max_points: int = 5000
    max_abs_x: float = 1e6
    max_nodes: int = 100_000  # graph nodes per point, counted by the probe (presets: <= 31k)
    max_megabytes: float = 200.0  # estimated autograd memory for the whole grid


BUDGET = Budget()
#: The highest order the inspector shows a finite difference for. The central stencils of
#: finite_differences lose digits as the order rises, about 1.5 per order: for
#: sin(x)*exp(-x**2) at 0.5 they keep about 11, 8, 6, 5, 4 and 3 correct digits at orders 1 to 6
#: (tests/core/test_inspector.py measures them against sympy); above 6 little is left.
MAX_FD_ORDER = 6
