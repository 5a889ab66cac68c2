"""The Hessian-vector product page's preset functions, each with the point, direction and
window it is shown at (the κ quadratics come from :mod:`hograd_core.hvp_examples`).

Each point is chosen for what it shows (tests/labs/test_hvp_presets.py checks every claim
against a closed form or sympy):

* ``w1**2*sin(w2)`` at (1, π/2) along (0.5, 1): the seed example, ∇f = (2, 0) and Hv = (1, −1);
  not a critical point.
* Rosenbrock's function at its minimum (1, 1): H is positive definite there, with eigenvalues
  about 0.4 and 1002, a valley far steeper across than along.
* ``x^2 - y^2`` at 0: a saddle, eigenvalues 2 and −2 (power iteration cannot choose).
* ``x^4 + y^4`` at 0: a minimum where H = 0, so the second-derivative test is inconclusive.
* ``quadratic(κ)`` at 0: eigenvalues 1 and κ along the diagonals.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from hograd_core.hvp_examples import KAPPAS, quadratic

__all__ = ["KAPPAS", "PRESETS", "Example", "example", "quadratic"]


@dataclass(frozen=True)
class Example:
    """Where an example is shown: the point p, the direction v and the window half-width r."""

    point: tuple[float, ...]
    vector: tuple[float, ...]
    radius: float


#: The preset functions, in the order they are offered, with where each is shown.
PRESETS: dict[str, Example] = {
    "w1**2*sin(w2)": Example((1.0, math.pi / 2), (0.5, 1.0), 1.5),
    "(1 - x)^2 + 100*(y - x^2)^2": Example((1.0, 1.0), (1.0, 0.0), 1.5),
    "x^2 - y^2": Example((0.0, 0.0), (1.0, 0.5), 1.5),
    "x^4 + y^4": Example((0.0, 0.0), (1.0, 1.0), 1.5),
    quadratic(10): Example((0.0, 0.0), (1.0, 0.0), 2.0),
}
_QUADRATIC = Example((0.0, 0.0), (1.0, 0.0), 2.0)


def example(text: str, variables: int) -> Example:
    """Where ``text`` is shown: a preset's or a quadratic's own example, else p = v = (1, ..., 1)
    and r = 1.5 for a function of ``variables`` variables.

    Example:
        >>> example("x*y*z", 3)
        Example(point=(1.0, 1.0, 1.0), vector=(1.0, 1.0, 1.0), radius=1.5)
    """
    if text in PRESETS:
        return PRESETS[text]
    if text in {quadratic(k) for k in KAPPAS}:
        return _QUADRATIC
    return Example((1.0,) * variables, (1.0,) * variables, 1.5)
