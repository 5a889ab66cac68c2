"""What the "Why gradients of gradients" labs still share for their figures and tables (each
lab draws its own figures: hograd_labs/<lab>/figures.py)."""

from __future__ import annotations

import math

__all__ = ["finite_or_dash"]


def finite_or_dash(x: float, digits: int = 4) -> str:
    """``x`` to ``digits`` significant digits, or a dash where it is not a finite number."""
    return f"{x:.{digits}g}" if math.isfinite(x) else "—"
