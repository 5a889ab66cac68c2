"""The quadratics of a chosen condition number, shared by the labs that teach conditioning
(the Hessian-vector product page's κ builder, the Newton and curvature labs, the lesson). The
HVP page's preset list is its lab's (hograd_labs/hvp/presets.py)."""

from __future__ import annotations

__all__ = ["KAPPAS", "quadratic"]

#: The condition numbers the κ builders offer.
KAPPAS: tuple[int, ...] = (1, 2, 5, 10, 100, 1000)


def quadratic(kappa: float) -> str:
    """((x+y)² + κ(y−x)²)/4: eigenvalues 1 along (1, 1) and κ along (1, −1), everywhere.

    Example:
        >>> quadratic(10)
        '((x+y)^2 + 10*(y-x)^2)/4'
    """
    return f"((x+y)^2 + {kappa:g}*(y-x)^2)/4"
