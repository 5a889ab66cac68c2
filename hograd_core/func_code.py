"""The ``torch.func`` form of the pages' PyTorch code: the same numbers by composing transforms.

Where the plain scripts call ``torch.autograd.grad(..., create_graph=True)`` once per order,
these compose functions: ``grad(grad(f))`` is the second derivative, ``hessian(f)`` is
``jacfwd(jacrev(f))``, ``vmap`` maps one of them over many points at once. The function's
source comes from the one generator, :func:`.language.to_source.torch_source`.

Comments are passed in by the caller (in its own language), keyed by :data:`DERIV_COMMENTS`
and :data:`HESSIAN_COMMENTS`; a missing key leaves its line without a comment.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .hessian import point_vector
from .language import Function
from .language.to_source import python_name, torch_source

__all__ = [
    "DERIV_COMMENTS",
    "HESSIAN_COMMENTS",
    "derivatives_func_code",
    "hessian_func_code",
]

#: Comment keys of :func:`derivatives_func_code`.
DERIV_COMMENTS: tuple[str, ...] = ("compose", "at_x0", "vmap")
#: Comment keys of :func:`hessian_func_code`.
HESSIAN_COMMENTS: tuple[str, ...] = ("grad", "hessian", "jacfwd", "hvp", "vmap", "eigh")

# Names the derivative script uses itself: a variable called one of these is renamed x.
_DERIV_NAMES = {
    "torch",
    "grad",
    "vmap",
    "f",
    "derivatives",
    "d",
    "k",
    "x0",
    "xs",
    "curves",
    "range",
    "enumerate",
    "print",
}


def _commented(note: Mapping[str, str], key: str, indent: str = "") -> list[str]:
    text = note.get(key, "")
    return [f"{indent}# {line}" for line in text.splitlines()] if text else []


def _vector_source(values: np.ndarray) -> str:
    return "[" + ", ".join(repr(float(x)) for x in values) + "]"


def derivatives_func_code(
    fn: Function,
    x0: float,
    order: int,
    grid: tuple[float, float, int] | None = None,
    comments: Mapping[str, str] | None = None,
) -> str:
    """A script that computes f and its derivatives to ``order`` with ``torch.func.grad``
    composed ``order`` times, at ``x0`` and, with ``grid``, with ``vmap`` over the points.

    Args:
        fn: a function of at most one variable.
        x0: the point of the printed values.
        order: the highest derivative (the script has no limit of its own: the cost of each
            ``grad`` grows with the order as nested autograd's does).
        grid: (low, high, points) of ``torch.linspace``, as the page's chart; None for none.
        comments: comments keyed by :data:`DERIV_COMMENTS`.

    Returns:
        Python source needing only ``torch``. With ``grid`` it leaves ``curves``, shape
        (order + 1, points): row k is the k-th derivative at every point.

    Example:
        >>> from hograd_core import parse
        >>> "grad(derivatives[-1])" in derivatives_func_code(parse("x**3"), 2.0, 2)
        True
    """
    note = dict(comments or {})
    own = fn.variables[0] if fn.variables else "x"
    var = python_name(own, _DERIV_NAMES)
    lines = [
        "import torch",
        "from torch.func import grad, vmap",
        "",
        "",
        f"def f({var}):",
        f"    return {torch_source(fn, {own: var})}",
        "",
        "",
        *_commented(note, "compose"),
        "derivatives = [f]",
        f"for k in range({order}):",
        "    derivatives.append(grad(derivatives[-1]))",
        "",
        *_commented(note, "at_x0"),
        f"x0 = torch.tensor({float(x0)!r}, dtype=torch.float64)",
        "for k, d in enumerate(derivatives):",
        "    print(k, d(x0).item())",
    ]
    if grid is not None:
        low, high, points = grid
        lines += [
            "",
            *_commented(note, "vmap"),
            f"xs = torch.linspace({float(low)!r}, {float(high)!r}, {int(points)}, "
            "dtype=torch.float64)",
            "curves = torch.stack([vmap(d)(xs) for d in derivatives])  # (orders, points)",
            "print(curves.shape)",
        ]
    return "\n".join(lines) + "\n"


def hessian_func_code(
    fn: Function,
    point: Sequence[float] | np.ndarray,
    vector: Sequence[float] | np.ndarray,
    comments: Mapping[str, str] | None = None,
) -> str:
    """A script that computes ∇f, the Hessian (``torch.func.hessian`` and
    ``jacfwd(jacrev(f))``), Hv by ``jvp(grad(f))``, the Hessian again by ``vmap`` of that Hv
    over the basis vectors, and its eigenvalues and eigenvectors, at ``point``.

    Args:
        fn: a function of 1 to 10 variables, each read from the flat vector ``w``.
        point, vector: one number per variable, in the order of ``fn.variables``.
        comments: comments keyed by :data:`HESSIAN_COMMENTS`.

    Returns:
        Python source needing only ``torch``; it leaves ``g``, ``H``, ``H2``, ``H3``, ``hv``,
        ``eigenvalues`` and ``eigenvectors`` (columns, ascending as ``torch.linalg.eigh``).

    Raises:
        BudgetError, ArgumentError: as :func:`hograd_core.hessian.hvp` for the point and vector.
    """
    p = point_vector(point, fn, "point")
    v = point_vector(vector, fn, "vector")
    note = dict(comments or {})
    body = torch_source(fn, {name: f"w[{i}]" for i, name in enumerate(fn.variables)})
    names = ", ".join(fn.variables) + ("," if len(fn.variables) == 1 else "")
    lines = [
        "import torch",
        "from torch.func import grad, hessian, jacfwd, jacrev, jvp, vmap",
        "",
        "",
        f"def f(w):  # w = ({names})",
        f"    return {body}",
        "",
        "",
        f"w = torch.tensor({_vector_source(p)}, dtype=torch.float64)",
        f"v = torch.tensor({_vector_source(v)}, dtype=torch.float64)",
        "",
        *_commented(note, "grad"),
        "g = grad(f)(w)",
        *_commented(note, "hessian"),
        "H = hessian(f)(w)",
        *_commented(note, "jacfwd"),
        "H2 = jacfwd(jacrev(f))(w)",
        "",
        *_commented(note, "hvp"),
        "",
        "",
        "def hvp(u):",
        "    return jvp(grad(f), (w,), (u,))[1]",
        "",
        "",
        "hv = hvp(v)",
        *_commented(note, "vmap"),
        f"H3 = vmap(hvp)(torch.eye({len(p)}, dtype=torch.float64))",
        *_commented(note, "eigh"),
        "eigenvalues, eigenvectors = torch.linalg.eigh(H)",
        "",
        'print("gradient", g.tolist())',
        'print("H", H.tolist())',
        'print("Hv", hv.tolist())',
        'print("eigenvalues", eigenvalues.tolist())',
    ]
    return "\n".join(lines) + "\n"
