"""The one walk over autograd graphs: every backward function reachable from some roots, once.

A tensor made by an operation that needs a gradient has a ``grad_fn``: the backward function
of that operation, a node of the graph a backward pass walks. Its ``next_functions`` are its
edges, ``(node, input_nr)`` pairs, one per input of the operation, in the order of the inputs:

* ``None`` for an input that needs no gradient (a constant), which is not a node;
* ``AccumulateGrad`` for a leaf that needs one (``x``): the node that adds into ``x.grad``,
  with no edges of its own.

Every part of the kernel that reads a graph (nested autograd's node count, the graph lab's
tracer, the flag lab, the Hessian-vector-product graph) walks it with :func:`walk`; code shown
to learners carries its own five-line loop, so that it runs with torch alone.
"""

from __future__ import annotations

from collections.abc import Iterable, MutableSet
from dataclasses import dataclass, field

__all__ = ["Walk", "inputs", "walk"]

_DONE = object()  # on the stack below a node's inputs: all of them are walked when it is popped


def inputs(node: object) -> list[object]:
    """The nodes ``node``'s inputs come from, in the order of its ``next_functions`` (the
    edges of the drawing: input to consumer); ``None`` edges are left out."""
    return [nxt for nxt, _ in node.next_functions if nxt is not None]  # type: ignore[attr-defined]


@dataclass
class Walk:
    """The nodes a :func:`walk` found, in two orders.

    Attributes:
        nodes: each new node once, depth first from the roots in their order: a node, then
            everything reachable through its first input, then through its second, ...
            (pre-order; the root first).
        finished: the same nodes, each after all of its inputs (post-order: a leaf's
            ``AccumulateGrad`` first, the root last), the order to compute a property of a
            node from its inputs' in.
    """

    nodes: list[object] = field(default_factory=list)
    finished: list[object] = field(default_factory=list)


def walk(roots: Iterable[object | None], seen: MutableSet[object] | None = None) -> Walk:
    """Every node reachable from ``roots`` (``grad_fn`` objects; ``None`` is skipped) that is
    not in ``seen``, each once; each is added to ``seen``.

    Passing the same ``seen`` to several calls walks the nodes new since the last one (the
    graph after each backward pass: one walk of the final graph in all, not one per pass).

    Note:
        ``seen`` holds the node objects themselves (hashed and compared by identity), keeping
        each alive while it is: PyTorch makes a node's Python wrapper on demand and frees it
        with its last reference, so a set of bare ``id()``s could take a new wrapper at a
        reused address for a node already seen. The walk is pure Python, about 0.5 us a node.

    Example:
        >>> import torch
        >>> x = torch.tensor(2.0, requires_grad=True)
        >>> [type(n).__name__ for n in walk([(x**3).grad_fn]).nodes]
        ['PowBackward0', 'AccumulateGrad']
    """
    seen = set() if seen is None else seen
    out = Walk()
    visit, finish, mark = out.nodes.append, out.finished.append, seen.add
    stack: list[object] = list(roots)[::-1]  # the first root on top
    push, pop = stack.append, stack.pop
    while stack:
        node = pop()
        if node is _DONE:
            finish(pop())
            continue
        if node is None or node in seen:
            continue
        mark(node)
        visit(node)
        push(node)
        push(_DONE)
        for nxt, _ in reversed(node.next_functions):  # type: ignore[attr-defined]
            push(nxt)  # the first input on top: walked first
    return out
