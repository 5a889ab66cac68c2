"""The Newton tab's preset functions, as typed in its box, and the κ quadratic's slider: which
start and settings show each one's lesson."""

from __future__ import annotations

import re
from dataclasses import dataclass

from hograd_core.hvp_examples import KAPPAS, quadratic

__all__ = ["KAPPAS", "PRESETS", "Preset", "kappa_of", "preset_for", "quadratic"]

#: quadratic(κ) with spaces removed and ** read as ^; group 1 is κ
_QUADRATIC = re.compile(r"\(\(x\+y\)\^2\+([0-9]+(?:\.[0-9]*)?(?:e[+-]?[0-9]+)?)\*\(y-x\)\^2\)/4")


def kappa_of(text: str) -> float | None:
    """κ when ``text`` is written as :func:`quadratic` (spaces and ``**`` for ``^`` aside),
    else None. Only the written form counts: an equal function written otherwise gives None."""
    match = _QUADRATIC.fullmatch(re.sub(r"\s+", "", text).replace("**", "^"))
    return float(match.group(1)) if match else None


@dataclass(frozen=True)
class Preset:
    """A function with a start point, settings that show its lesson, and its minimum value
    (None: f is unbounded below)."""

    start: tuple[float, float]
    lr: float
    steps: int
    minimum: float | None


#: The presets, by the text typed for them. The saddle function has its saddle at (0, 0) and
#: minima at (0, ±1); from (1, 0.3) pure Newton goes to the saddle and gradient descent does not.
PRESETS: dict[str, Preset] = {
    "(1 - x)^2 + 100*(y - x^2)^2": Preset((-1.2, 1.0), 0.001, 200, 0.0),
    quadratic(10): Preset((2.0, 1.0), 0.15, 100, 0.0),
    "w1**2*sin(w2)": Preset((1.0, 1.0), 0.1, 50, None),
    "x^2 + y^4/4 - y^2/2": Preset((1.0, 0.3), 0.1, 100, -0.25),
}


def preset_for(text: str) -> Preset | None:
    """The preset typed as ``text``; for any κ quadratic, the κ = 10 one with lr = 1.5/κ
    (stable: below 2/λ_max = 2/κ)."""
    if text in PRESETS:
        return PRESETS[text]
    for kappa in KAPPAS:
        if text == quadratic(kappa):
            return Preset((2.0, 1.0), 1.5 / kappa, 100, 0.0)
    return None
