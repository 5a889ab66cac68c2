"""The runnable PyTorch script behind the page's "Hv three ways": the typed function, the point
and the direction written out, then the three routes (and ``vhp``), so a learner can paste it
into Python and get the page's numbers.

The function's source comes from the one generator, :func:`.language.to_source.torch_source`,
with each variable read from the flat vector ``w`` (``w[0]``, ``w[1]``, ...): the names a learner
may type (``torch``, ``v``, ``as``) never clash with the script's own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import torch

from .hessian import point_vector
from .language import Function
from .language.to_source import torch_source

__all__ = ["COMMENTS", "gradient_is_constant", "hvp_snippet"]

#: The comments a caller may pass (in its own language), one per line of the three ways.
#: "constant" replaces "one" where ∇f does not depend on w (then H = 0 and Hv = 0).
COMMENTS: tuple[str, ...] = ("kept", "one", "constant", "two", "three", "vhp")


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
    comments: Mapping[str, str] | None = None,
) -> str:
    """A script that computes ∇f and Hv of ``fn`` at ``point`` along ``vector`` three ways
    (double backward, forward-over-reverse, ``autograd.functional.hvp``) and vᵀH by
    ``autograd.functional.vhp``, and prints them.

    Args:
        fn: a function of 1 to 10 variables.
        point, vector: one number per variable, in the order of ``fn.variables``.
        comments: a comment for each line of the three ways, keyed by :data:`COMMENTS`
            (missing keys: the line's number only).

    Raises:
        BudgetError, ArgumentError: as :func:`hograd_core.hessian.hvp` for the point and vector.

    Example:
        >>> from hograd_core import parse
        >>> print(hvp_snippet(parse("x*y"), [1, 2], [1, 0]).splitlines()[3])
        def f(w):  # w = (x, y)
    """
    p = point_vector(point, fn, "point")
    v = point_vector(vector, fn, "vector")
    note = dict(comments or {})

    def said(key: str, line: str, number: str = "") -> list[str]:
        """``line``, under its comment (on a line of its own: long comments stay readable)."""
        text = " ".join(part for part in (number, note.get(key, "")) if part)
        return [f"# {text}", line] if text else [line]

    body = torch_source(fn, {name: f"w[{i}]" for i, name in enumerate(fn.variables)})
    names = ", ".join(fn.variables) + ("," if len(fn.variables) == 1 else "")
    constant = gradient_is_constant(fn, p)
    second = "torch.zeros_like(w)" if constant else "torch.autograd.grad(g @ v, w)[0]"
    lines = [
        "import torch",
        "",
        "",
        f"def f(w):  # w = ({names})",
        f"    return {body}",
        "",
        "",
        f"w = torch.tensor({_vector_source(p)}, dtype=torch.float64, requires_grad=True)",
        f"v = torch.tensor({_vector_source(v)}, dtype=torch.float64)",
        "",
        *said("kept", "g = torch.autograd.grad(f(w), w, create_graph=True)[0]"),
        *said("constant" if constant else "one", f"hv = {second}", "1."),
        "",
        *said("two", "hv2 = torch.func.jvp(torch.func.grad(f), (w.detach(),), (v,))[1]", "2."),
        "",
        *said("three", "hv3 = torch.autograd.functional.hvp(f, w.detach(), v)[1]", "3."),
        *said("vhp", "vh = torch.autograd.functional.vhp(f, w.detach(), v)[1]"),
        "",
        'print("gradient", g.tolist())',
        'print("Hv", hv.tolist(), hv2.tolist(), hv3.tolist())',
        'print("vH", vh.tolist())',
    ]
    return "\n".join(lines) + "\n"
