"""What every application shares: range checks, the generated code, timing side by side."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from ..errors import ArgumentError, BudgetError

__all__ = ["Code", "check", "check_work", "interleaved_medians", "marked_code", "saved_bytes"]

#: The comment that marks the line of the generated code where the order of the derivative is
#: decided (``create_graph=True``, or its absence).
MARK = "# <-- "


@dataclass(frozen=True)
class Code:
    """Runnable PyTorch source generated for one experiment's settings.

    Attributes:
        source: the script; it prints its results as ``name value value ...`` lines.
        marked: the 1-based line numbers that carry the ``# <--`` comment: where
            ``create_graph=True`` is passed, or deliberately not.
    """

    source: str
    marked: tuple[int, ...]


def marked_code(source: str) -> Code:
    """``source`` with the numbers of its ``# <--`` lines."""
    lines = source.splitlines()
    return Code(source, tuple(i for i, line in enumerate(lines, start=1) if MARK in line))


def check(name: str, got: float, low: float, high: float) -> None:
    """Refuse ``got`` outside [low, high]: BudgetError above ``high`` (more work than allowed),
    ArgumentError below ``low`` or NaN. ``name`` is the argument as the code calls it."""
    if isinstance(got, float) and not math.isfinite(got):
        raise ArgumentError("why.budget.range", name=name, low=low, high=high, got=got)
    if not (low <= got <= high):
        cls = BudgetError if got > high else ArgumentError
        raise cls("why.budget.range", name=name, low=low, high=high, got=got)


def check_work(key: str, work: float, limit: float) -> None:
    """Refuse a run whose counted work units exceed ``limit``; the message ``key`` says what
    the units count."""
    if work > limit:
        raise BudgetError(key, work=f"{work:,.0f}", limit=f"{limit:,.0f}")


def interleaved_medians(calls: dict[str, Callable[[], object]], rounds: int) -> dict[str, float]:
    """Median seconds of each call, measured in ``rounds`` interleaved rounds (one call of each
    per round), so that a busy moment of the machine hits every call alike."""
    times: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(rounds):
        for name, call in calls.items():
            start = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - start)
    return {name: float(np.median(t)) for name, t in times.items()}


def saved_bytes(step: Callable[[], object]) -> int:
    """Bytes of the distinct storages autograd saves for backward while ``step()`` runs.

    Every tensor an operation saves for its backward passes through a
    ``torch.autograd.graph.saved_tensors_hooks`` pack hook; storages are counted once (a weight
    saved by two operations is one storage) and kept alive until the count is done, so a freed
    address reused by a later tensor cannot hide it. For a step that builds its graphs and then
    runs its last backward pass (a gradient: forward, then backward; an HVP: forward, gradient
    with ``create_graph=True``, then the backward of g·v) nothing saved is freed before that
    last pass starts, so this is the memory the step's graphs hold at their largest. The
    weights and data themselves count where an operation saves them.

    Example:
        >>> x = torch.ones(1000, dtype=torch.float64, requires_grad=True)
        >>> saved_bytes(lambda: (x * x).sum().backward())  # mul saves x (once: same storage)
        8000
    """
    storages: dict[int, torch.UntypedStorage] = {}

    def pack(tensor: torch.Tensor) -> torch.Tensor:
        storage = tensor.untyped_storage()
        storages.setdefault(storage.data_ptr(), storage)
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        step()
    return sum(storage.nbytes() for storage in storages.values())
