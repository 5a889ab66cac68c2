"""Gradient, Hessian and Hessian-vector product of a function of several variables at a point.

The Hessian-vector product is computed the way the seed example teaches, without forming H:

    g  = grad(f, w, create_graph=True)     # the gradient, kept on the graph
    Hv = grad(g · v, w)                    # differentiate the scalar g·v once more

since ∇(∇f · v) = (∇²f) v for a constant v. The full Hessian (small n only) is built row by row
from the same gradient graph and serves as the check.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from .errors import ArgumentError, BudgetError
from .language import LIMITS, Function

__all__ = [
    "CRITICAL_TOLERANCE",
    "NUMBER_CHARS",
    "hvp",
    "HVPResult",
    "classify",
    "number_entries",
    "numbers_limit",
]

#: p counts as a critical point when every partial derivative of f there is at most this in
#: size. A bound on the gradient alone: adding a constant to f changes no verdict.
CRITICAL_TOLERANCE = 1e-8


@dataclass(frozen=True)
class HVPResult:
    """First and second order information at one point.

    Attributes:
        variables: the variable names, in the order of every vector here.
        point, vector: where, and along what, as float64 arrays of shape (n,).
        value: f(point).
        gradient: ∇f, shape (n,).
        hessian: ∇²f, shape (n, n), symmetric.
        hvp: (∇²f) v by double backward, shape (n,).
        eigenvalues, eigenvectors: of the Hessian, ascending; eigenvectors[:, i] pairs with
            eigenvalues[i]. NaN if the Hessian is not finite.
        curvature: vᵀHv / |v|², the second derivative of f along v (NaN when v = 0).
        classification: "minimum", "maximum", "saddle" or "degenerate" (from the eigenvalues;
            a statement about the point only when ``critical`` is true).
        critical: whether every |∂f/∂xᵢ| is at most ``CRITICAL_TOLERANCE`` (1e-8).
        seconds: wall time.
    """

    variables: tuple[str, ...]
    point: np.ndarray
    vector: np.ndarray
    value: float
    gradient: np.ndarray
    hessian: np.ndarray
    hvp: np.ndarray
    eigenvalues: np.ndarray
    eigenvectors: np.ndarray
    curvature: float
    classification: str
    critical: bool
    seconds: float

    @property
    def gradient_norm(self) -> float:
        """|∇f(p)|, the Euclidean norm of the gradient (NaN if it is not finite)."""
        return float(np.linalg.norm(self.gradient))


#: Characters one number of a typed point or vector may take: a float64 written out in full
#: (``-1.2345678901234567e-308`` is 24) or a short constant expression (``sqrt(2)/2``, ``-pi/4``).
NUMBER_CHARS = 40


def numbers_limit(count: int) -> int:
    """The longest text of ``count`` numbers: :data:`NUMBER_CHARS` each, ", " between."""
    return count * (NUMBER_CHARS + 2)


def number_entries(text: str, what: str, count: int) -> list[str]:
    """The comma-separated entries of ``text``, a list of at most ``count`` numbers.

    The length is checked before the text is split or read: each entry is then parsed on its
    own, so the work grows with the length, and a request that long (a pasted or linked
    megabyte) is refused at once instead of costing seconds of CPU.

    Raises:
        ArgumentError: ``text`` is longer than :func:`numbers_limit` of ``count``.
    """
    limit = numbers_limit(count)
    if len(text) > limit:
        raise ArgumentError(
            "budget.numbers_too_long",
            what=what,
            limit=f"{limit:,}",
            count=count,
            each=NUMBER_CHARS,
            got=f"{len(text):,}",
        )
    return text.split(",")


def point_vector(values: Sequence[float] | np.ndarray, fn: Function, what: str) -> np.ndarray:
    names = fn.variables
    try:
        arr = np.asarray(values, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError) as err:
        raise ArgumentError("budget.number", what=what, got=str(values)[:40]) from err
    if arr.size != len(names):
        raise BudgetError(
            f"budget.{what}_size", expected=len(names), names=", ".join(names), got=arr.size
        )
    shown = ", ".join(f"{v:g}" for v in arr[:10])
    if not np.all(np.isfinite(arr)):
        raise ArgumentError("budget.not_finite", what=what, got=shown)
    if np.any(np.abs(arr) > 1e6):  # beyond this, float64 curvature is mostly rounding
        raise ArgumentError("hvp.budget.too_large", what=what, limit="1e6", got=shown)
    return arr


def classify(eigenvalues: np.ndarray) -> str:
    """Second-derivative test from the Hessian's eigenvalues.

    Eigenvalues within 1e-9 of the largest in size count as zero: then the test cannot decide
    between a minimum, maximum or saddle ("degenerate"), unless signs already differ.
    """
    if not np.all(np.isfinite(eigenvalues)):
        return "degenerate"
    tol = 1e-9 * max(1.0, float(np.max(np.abs(eigenvalues))) if eigenvalues.size else 1.0)
    pos = eigenvalues > tol
    neg = eigenvalues < -tol
    if pos.any() and neg.any():
        return "saddle"
    if pos.all():
        return "minimum"
    if neg.all():
        return "maximum"
    return "degenerate"


def _grad(out: torch.Tensor, leaves: list[torch.Tensor], create_graph: bool) -> torch.Tensor:
    """∂out/∂leaves as one vector; zeros where out does not depend on a leaf (or on any)."""
    if not out.requires_grad:
        return torch.zeros(len(leaves), dtype=torch.float64)
    grads = torch.autograd.grad(
        out,
        leaves,
        create_graph=create_graph,
        retain_graph=True,
        allow_unused=True,
        materialize_grads=True,
    )
    return torch.stack(grads)


def hvp(
    fn: Function,
    point: Sequence[float] | np.ndarray,
    vector: Sequence[float] | np.ndarray,
) -> HVPResult:
    """Gradient, Hessian and Hessian-vector product of ``fn`` at ``point`` along ``vector``.

    Args:
        fn: a function of 1 to 10 variables.
        point: one number per variable, in the order of ``fn.variables``.
        vector: v, one number per variable.

    Returns:
        An :class:`HVPResult` with numpy float64 arrays.

    Raises:
        BudgetError: the function has no variable or more than 10, or point/vector have the
            wrong size or contain non-finite numbers (or numbers above 1e6 in size).

    Example:
        >>> import math
        >>> from hograd_core import hvp, parse
        >>> r = hvp(parse("w1**2*sin(w2)"), [1, math.pi / 2], [0.5, 1])
        >>> r.gradient.round(12).tolist(), r.hvp.round(12).tolist()
        ([2.0, 0.0], [1.0, -1.0])
    """
    if not fn.variables:
        raise ArgumentError("budget.no_variables")
    if len(fn.variables) > LIMITS.max_variables:  # parse() caps this too, unless given names
        raise BudgetError("hvp.budget.variables", limit=LIMITS.max_variables, got=len(fn.variables))
    start = time.perf_counter()
    w = point_vector(point, fn, "point")
    v = point_vector(vector, fn, "vector")
    leaves = [torch.tensor(value, dtype=torch.float64, requires_grad=True) for value in w]
    f = fn.torch(dict(zip(fn.variables, leaves, strict=True)))
    g = _grad(f, leaves, create_graph=True)  # ∇f, still on the graph
    v_t = torch.tensor(v, dtype=torch.float64)
    hv = _grad(torch.dot(g, v_t), leaves, create_graph=False)  # ∇(∇f·v) = H v
    hessian = torch.stack([_grad(g[i], leaves, create_graph=False) for i in range(len(leaves))])
    H = hessian.detach().numpy().copy()
    H = (H + H.T) / 2 if np.all(np.isfinite(H)) else H  # exact up to rounding; make it so
    n = len(leaves)
    if np.all(np.isfinite(H)):
        eigenvalues, eigenvectors = np.linalg.eigh(H)
    else:
        eigenvalues, eigenvectors = np.full(n, np.nan), np.full((n, n), np.nan)
    grad_np = g.detach().numpy().copy()
    hv_np = hv.detach().numpy().copy()
    vv = float(np.dot(v, v))
    curvature = float(np.dot(v, hv_np) / vv) if vv > 0 else math.nan
    value = float(f.detach())
    finite = bool(np.all(np.isfinite(grad_np)))
    critical = finite and bool(np.max(np.abs(grad_np)) <= CRITICAL_TOLERANCE)
    return HVPResult(
        variables=fn.variables,
        point=w,
        vector=v,
        value=value,
        gradient=grad_np,
        hessian=H,
        hvp=hv_np,
        eigenvalues=eigenvalues,
        eigenvectors=eigenvectors,
        curvature=curvature,
        classification=classify(eigenvalues),
        critical=critical,
        seconds=time.perf_counter() - start,
    )
