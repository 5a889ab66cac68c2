"""The diagonal of a Hessian, exact and estimated, without asking for the whole matrix.

Exact: the i-th column of H is the Hessian-vector product H eᵢ, and its i-th entry is Hᵢᵢ. All n
products run at once with ``vmap`` over the rows of the identity::

    columns = vmap(lambda e: grad(lambda x: grad(f)(x) @ e)(w))(I)    # row i = H eᵢ
    diagonal = columns.diagonal()

That is n products, as many as the whole Hessian takes: the exact diagonal saves memory
(a chunk of columns at a time, n numbers kept), not products.

Hutchinson (Bekas, Kokiopoulou and Saad, 2007): for z with independent entries ±1 (Rademacher),
E[z ⊙ Hz] = diag(H), because (z ⊙ Hz)ᵢ = Hᵢᵢ + Σ_{j≠i} Hᵢⱼ zᵢzⱼ and E[zᵢzⱼ] = 0 for j ≠ i. One
probe costs one product whatever n is; the variance of entry i is Σ_{j≠i} Hᵢⱼ², so the error of
the mean of N probes falls like 1/√N and is zero for a diagonal H.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch.func import grad, vmap

from .errors import ArgumentError, BudgetError
from .hessian import point_vector
from .language import LIMITS, Function

__all__ = [
    "DIAGONAL_BUDGET",
    "Diagonal",
    "exact_diagonal",
    "hutchinson_diagonal",
    "hutchinson_variance",
    "rademacher",
    "typed_diagonal",
]


@dataclass(frozen=True)
class DiagonalBudget:
    max_probes: int = 1_000  # Hutchinson probes (one Hessian-vector product each)
    max_parameters: int = 2_000  # n of an exact diagonal (n products)
    # products vmap runs together (memory: chunk copies of one backward). On the curvature
    # tab's network, 20 x 200 Hutchinson probes held 8-36 MB for a moment at 64, 0-11 MB at
    # 16, in the same CPU time (0.73-0.90 s; 3 runs each, one torch thread, 2026-12-05)
    chunk: int = 16
    max_seed: int = 10**9


DIAGONAL_BUDGET = DiagonalBudget()


def _hvp(f: Callable[[torch.Tensor], torch.Tensor], w: torch.Tensor) -> Callable:
    """v ↦ Hv at w, reverse over reverse: ∇(∇f·v) = Hv for a constant v."""
    return lambda v: grad(lambda x: grad(f)(x) @ v)(w)


def rademacher(probes: int, n: int, seed: int) -> torch.Tensor:
    """``probes`` vectors of n independent ±1 entries, float64, shape (probes, n), drawn from
    ``torch.Generator(seed)`` (no global seed)."""
    gen = torch.Generator().manual_seed(int(seed))
    return torch.randint(0, 2, (probes, n), generator=gen).to(torch.float64) * 2 - 1


def exact_diagonal(f: Callable[[torch.Tensor], torch.Tensor], w: torch.Tensor) -> torch.Tensor:
    """diag(∇²f(w)) from the n products H eᵢ, ``DIAGONAL_BUDGET.chunk`` at a time.

    Args:
        f: a scalar function of a flat float64 tensor, written in torch operations.
        w: the point, shape (n,).

    Raises:
        BudgetError: n over ``DIAGONAL_BUDGET.max_parameters``.
    """
    n = w.numel()
    if n > DIAGONAL_BUDGET.max_parameters:
        raise BudgetError("diagonal.budget.parameters", limit=DIAGONAL_BUDGET.max_parameters, got=n)
    eye = torch.eye(n, dtype=w.dtype)
    columns = vmap(_hvp(f, w), chunk_size=DIAGONAL_BUDGET.chunk)(eye)  # row i = H eᵢ
    return columns.diagonal().detach()


def hutchinson_diagonal(
    f: Callable[[torch.Tensor], torch.Tensor], w: torch.Tensor, probes: int, seed: int
) -> torch.Tensor:
    """The samples z ⊙ Hz of Hutchinson's estimate, shape (probes, n): their mean estimates
    diag(∇²f(w)), their standard deviation over √probes is its standard error.

    Raises:
        ArgumentError, BudgetError: probes outside 1..``max_probes``, seed outside 0..1e9.
    """
    b = DIAGONAL_BUDGET
    if not 1 <= probes <= b.max_probes:
        cls = BudgetError if probes > b.max_probes else ArgumentError
        raise cls("diagonal.budget.probes", limit=b.max_probes, got=probes)
    if not 0 <= seed <= b.max_seed:
        raise ArgumentError("diagonal.budget.seed", limit=f"{b.max_seed:g}", got=seed)
    z = rademacher(probes, w.numel(), seed).to(w.dtype)
    hz = vmap(_hvp(f, w), chunk_size=b.chunk)(z)  # (probes, n): one product per probe
    return (z * hz).detach()  # E[z ⊙ Hz] = diag(H)


def hutchinson_variance(hessian: np.ndarray) -> np.ndarray:
    """The variance of one Rademacher sample (z ⊙ Hz)ᵢ: Σ_{j≠i} Hᵢⱼ² (H symmetric)."""
    h = np.asarray(hessian, dtype=np.float64)
    return (h**2).sum(axis=1) - np.diagonal(h) ** 2


@dataclass(frozen=True)
class Diagonal:
    """The Hessian's diagonal of a typed function at a point.

    Attributes:
        variables, point: the names and where, as in :class:`~hograd_core.hessian.HVPResult`.
        diagonal: Hᵢᵢ from the n products H eᵢ, shape (n,).
        probes, seed: Hutchinson's settings (0 probes: no estimate).
        estimate, standard_error: the mean of the probes' z ⊙ Hz and its standard error (the
            samples' standard deviation over √probes; NaN for one probe), shape (n,); None
            without probes.
    """

    variables: tuple[str, ...]
    point: np.ndarray
    diagonal: np.ndarray
    probes: int
    seed: int
    estimate: np.ndarray | None
    standard_error: np.ndarray | None


def typed_diagonal(
    fn: Function, point: Sequence[float] | np.ndarray, probes: int = 0, seed: int = 0
) -> Diagonal:
    """The exact diagonal of ``fn``'s Hessian at ``point`` and (``probes`` > 0) Hutchinson's
    estimate of it from that many probes drawn with ``seed``.

    Raises:
        ArgumentError, BudgetError: no variable or more than 10, a bad point, probes outside
            0..1000, a seed outside 0..1e9.
    """
    if not fn.variables:
        raise ArgumentError("budget.no_variables")
    if len(fn.variables) > LIMITS.max_variables:
        raise BudgetError("hvp.budget.variables", limit=LIMITS.max_variables, got=len(fn.variables))
    w = torch.tensor(point_vector(point, fn, "point"), dtype=torch.float64)
    names = fn.variables

    def f(x: torch.Tensor) -> torch.Tensor:
        return fn.torch(dict(zip(names, x.unbind(), strict=True)))

    diagonal = exact_diagonal(f, w).numpy().copy()
    estimate = error = None
    if probes:
        samples = hutchinson_diagonal(f, w, probes, seed).numpy()
        estimate = samples.mean(axis=0)
        error = (
            samples.std(axis=0, ddof=1) / math.sqrt(probes)
            if probes > 1
            else np.full(len(names), np.nan)
        )
    return Diagonal(names, w.numpy().copy(), diagonal, int(probes), int(seed), estimate, error)
