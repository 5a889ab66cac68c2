"""The graph lab's own numbers: the page's presets and settings, and how the Hessian-vector
product's values are rounded for reading. The graphs themselves are traced by the kernel
(:mod:`hograd_core.graphs`, :mod:`hograd_core.hvp_graph`, :mod:`hograd_core.flaglab`), which
the command line's ``graph`` verb, the lesson and the backward lab use too."""

from __future__ import annotations

from hograd_core.flaglab import FlagSettings

__all__ = ["DECIMALS", "PRESETS", "RETAIN", "flag_settings", "shown"]

#: The function box's examples (the last has two variables: the HVP graph).
PRESETS = [
    "x**3",
    "sin(x)",
    "tanh(x)",
    "2*x",
    "relu(x)",
    "x**2",
    "exp(x)",
    "sin(x)*exp(-x**2)",
    "w1**2*sin(w2)",
]

#: retain_graph's choices, by the label the page shows (and the URL holds).
RETAIN = {"None": None, "True": True, "False": False}

#: The HVP graph's numbers, in the drawing and in the summary above it, are rounded to this
#: many decimal places: in float64 cos(π/2) is 6.1e-17, and ∂f/∂w2 of w1²·sin(w2) at (1, π/2)
#: would read 6.123e-17 beside a summary saying ∇f = (2, 0).
DECIMALS = 12


def shown(value: float) -> float:
    """``value`` rounded as the page shows it; + 0.0 turns −0 into 0."""
    return round(value, DECIMALS) + 0.0


def flag_settings(
    create_graph: bool,
    retain: str,
    allow_unused: bool,
    materialize: bool,
    unused: bool,
    action: str,
) -> FlagSettings:
    """The flag lab's toggles as the run takes them: allow_unused and materialize_grads are
    options of ``torch.autograd.grad`` only, so ``.backward()`` runs without them."""
    grad_call = action != "backward"
    return FlagSettings(
        create_graph,
        RETAIN[retain],
        allow_unused and grad_call,
        materialize and grad_call,
        unused,
        action,
    )
