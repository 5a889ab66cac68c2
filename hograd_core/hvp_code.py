"""The runnable PyTorch script behind the page's "Hv three ways": the source of the functions
the page runs (:mod:`hograd_core.hvp_script`), the typed function, and one call with the point
and the direction, so a learner can paste it into Python and get the page's numbers.

The function's source comes from the one generator, :func:`.language.to_source.torch_source`,
with each variable read from the flat vector ``w`` (``w[0]``, ``w[1]``, ...): the names a learner
may type (``torch``, ``v``, ``as``) never clash with the script's own.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence

import numpy as np
import torch

from . import hvp_script as script
from .hessian import point_vector
from .language import Function
from .language.to_source import torch_source

__all__ = ["SHOWN", "flat_source", "gradient_is_constant", "hvp_snippet", "shown_source"]

#: The functions the script shows, in order, as they are written in hograd_core/hvp_script.py:
#: the page's three ways and its power iteration call the same functions.
SHOWN = (
    script.gradient,
    script.hvp_double_backward,
    script.hvp_forward_over_reverse,
    script.hvp_functional,
    script.vhp_functional,
    script.print_hvp,
)


def shown_source(functions: Sequence = SHOWN) -> str:
    """The source of ``functions`` (of :mod:`hograd_core.hvp_script`), two blank lines apart."""
    return "\n\n".join(inspect.getsource(fn) for fn in functions).rstrip("\n")


def flat_source(fn: Function) -> str:
    """``def f(w)``: ``fn`` with each variable read from the flat vector ``w``."""
    body = torch_source(fn, {name: f"w[{i}]" for i, name in enumerate(fn.variables)})
    names = ", ".join(fn.variables) + ("," if len(fn.variables) == 1 else "")
    return f"def f(w):  # w = ({names})\n    return {body}"


def _vector_source(values: np.ndarray) -> str:
    return "[" + ", ".join(repr(float(x)) for x in values) + "]"


def gradient_is_constant(fn: Function, point: np.ndarray) -> bool:
    """Whether ∇f has no graph at ``point`` (f is linear there), so grad(g @ v, w) would raise
    "element 0 of tensors does not require grad"."""
    w = torch.tensor(point, dtype=torch.float64, requires_grad=True)
    out = fn.torch({name: w[i] for i, name in enumerate(fn.variables)})
    (g,) = torch.autograd.grad(out, w, create_graph=True)
    return not g.requires_grad


def hvp_snippet(
    fn: Function,
    point: Sequence[float] | np.ndarray,
    vector: Sequence[float] | np.ndarray,
) -> str:
    """A script that computes ∇f and Hv of ``fn`` at ``point`` along ``vector`` three ways
    (double backward, forward-over-reverse, ``autograd.functional.hvp``) and vᵀH by
    ``autograd.functional.vhp``, and prints them:
    :func:`hograd_core.cpp_code.hvp_cpp` prints the same lines from C++.

    It is the source of the functions in :mod:`hograd_core.hvp_script` (``inspect.getsource``),
    which give the page's three ways, then ``f`` written by
    :func:`~hograd_core.language.to_source.torch_source`, then one call of ``print_hvp``.

    Args:
        fn: a function of 1 to 10 variables.
        point, vector: one number per variable, in the order of ``fn.variables``.

    Raises:
        BudgetError, ArgumentError: as :func:`hograd_core.hessian.hvp` for the point and vector.

    Example:
        >>> from hograd_core import parse
        >>> print(hvp_snippet(parse("x*y"), [1, 2], [1, 0]).splitlines()[-1])
        print_hvp(f, [1.0, 2.0], [1.0, 0.0])
    """
    p = point_vector(point, fn, "point")
    v = point_vector(vector, fn, "vector")
    lines = [
        "import torch",
        "",
        "",
        shown_source(),
        "",
        "",
        flat_source(fn),
        "",
        "",
        f"print_hvp(f, {_vector_source(p)}, {_vector_source(v)})",
    ]
    return "\n".join(lines) + "\n"
