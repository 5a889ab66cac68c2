"""An independent walk of autograd graphs for the tests: every backward function reachable
from some roots, each once, in the order a depth-first search finds them."""

from __future__ import annotations

import torch


def walk(*roots: object) -> list[object]:
    """The backward functions reachable from ``roots`` (``grad_fn`` objects; None is skipped)."""
    seen: dict[object, None] = {}
    stack = list(roots)
    while stack:
        fn = stack.pop()
        if fn is not None and fn not in seen:
            seen[fn] = None
            stack.extend(nxt for nxt, _ in fn.next_functions)
    return list(seen)


def walk_tensors(tensors: list[object]) -> list[object]:
    """The backward functions reachable from the ``grad_fn`` of each tensor in ``tensors``."""
    return walk(*(t.grad_fn for t in tensors if torch.is_tensor(t)))
