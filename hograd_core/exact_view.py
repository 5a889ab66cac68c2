"""What sympy's work comes back as, with no sympy in it: plain numbers and strings.

The server never runs sympy (it runs in a child process that can be stopped:
hograd_serving/exact.py). What it gets back, and what the kernel's numeric modules read
(:mod:`.inspector`), is defined here, so that importing it loads neither sympy nor mpmath.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MAX_LATEX_OPS", "MAX_OPS", "SympyView"]

#: Symbolic derivatives longer than this many operations are summarised, not printed.
MAX_LATEX_OPS = 80
#: sympy stops differentiating once a derivative has this many operations (expression swell).
MAX_OPS = 3000


@dataclass(frozen=True)
class SympyView:
    """What sympy has of one function's derivatives at one point, so far: plain numbers and
    strings (no sympy objects), cheap to send between processes and to cache.

    Attributes:
        values: f^(k)(x0) for k = 0..len(values) - 1, evaluated to 30 digits (NaN where the
            value is not a real number).
        latex: each derivative's LaTeX, None where it is longer than ``MAX_LATEX_OPS``.
        ops: each derivative's ``count_ops``.
        stopped: why sympy goes no further than ``len(values) - 1`` although more was asked:
            "size" (the expression swelled past ``MAX_OPS``), "time" (the function used up its
            time), "memory", or None.
        working: sympy is still differentiating toward the order asked; ask again later.
        below_float64: per value, its 30 digits as text ("1.8e-653") where it is not 0 but
            float64 holds it as 0 (below float64's smallest positive number, 4.9e-324), else
            None.
    """

    values: tuple[float, ...] = ()
    latex: tuple[str | None, ...] = ()
    ops: tuple[int, ...] = ()
    stopped: str | None = None
    working: bool = False
    below_float64: tuple[str | None, ...] = ()
