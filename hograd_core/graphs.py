"""The autograd graph of (f, f', ..., f^(k)) at one point, every node tagged with its pass.

Nested autograd builds one graph on top of another. ``y = f(x)`` records the forward pass;
``grad(y, x, create_graph=True)`` runs the first backward pass *and records it*, so dy/dx has a
``grad_fn`` of its own; the next ``grad`` records the second backward pass, and so on. Which
pass created a node follows from reachability alone::

    pass(node) = the smallest k such that node is reachable from the grad_fn of f^(k)

(everything reachable from f is the forward pass; what f' reaches beyond that was added by the
first backward; what f'' reaches beyond both, by the second ...). So the graph of order k is
exactly the nodes of passes 0..k, and one build to the highest order serves every order below.

The walk itself (one node per ``grad_fn``, saved tensors, stable names) is
:mod:`hograd_core.graph_trace`, whose names are importable from here too;
:mod:`hograd_core.graph_dot` draws the result.

Example:
    >>> from hograd_core import parse
    >>> lab = graph_lab(parse("x**3"), 2.0)
    >>> [s.nodes for s in lab.stats]   # x**3 stops growing at order 3
    [2, 5, 8, 11, 11, 11, 11]
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import torch

from .errors import ArgumentError, BudgetError
from .graph_trace import (
    GRAPH_BUDGET,
    MODIFIED,
    GraphBudget,
    GraphEdge,
    GraphNode,
    Root,
    TensorGraph,
    Tracer,
    saved_slots,
    scalar,
    trace_tensors,
)
from .language import Function

__all__ = [
    "GRAPH_BUDGET",
    "MODIFIED",
    "Root",
    "GraphBudget",
    "GraphEdge",
    "GraphLab",
    "GraphNode",
    "GraphView",
    "OrderStats",
    "TypeCount",
    "TensorGraph",
    "Trend",
    "graph_lab",
    "output_label",
    "saved_slots",
    "trace_tensors",
    "trend",
]


@dataclass(frozen=True)
class OrderStats:
    """The graph of (f, ..., f^(k)) for one k.

    Attributes:
        order: k.
        nodes: grad_fn nodes reachable from f, ..., f^(k) (what a backward through all of them
            would walk; ``AccumulateGrad`` included).
        new_nodes: nodes the k-th pass added (order 0: the forward pass).
        depth: grad_fn nodes on the longest path of that graph (from one of f, ..., f^(k) to
            the leaf's ``AccumulateGrad``): the longest chain of calls a backward must make
            one after another.
        saved_tensors: tensors saved for backward by those nodes (distinct storages).
        saved_bytes: their storage in bytes.
        seconds: wall time of the k-th pass alone (the forward for k = 0).
        value: f^(k)(x0).
        requires_grad: whether f^(k) is still on the graph (False: it is a constant).
        grad_fn: the type of f^(k)'s grad_fn, "" if it has none.
    """

    order: int
    nodes: int
    new_nodes: int
    depth: int
    saved_tensors: int
    saved_bytes: int
    seconds: float
    value: float
    requires_grad: bool
    grad_fn: str


@dataclass(frozen=True)
class TypeCount:
    """How many nodes of one type each pass added."""

    op: str
    per_pass: tuple[int, ...]

    @property
    def total(self) -> int:
        return sum(self.per_pass)


@dataclass(frozen=True)
class GraphView:
    """The graph of order ``order``: what to draw, or to summarise when it is too large.

    Attributes:
        order: k; passes 0..k are shown.
        variable: the variable's name.
        nodes, edges: nodes of passes 0..k (saved tensors only if ``show_saved``).
        ops: grad_fn nodes among them.
        per_pass: grad_fn nodes each pass added, passes 0..k.
        summary: node counts by type and pass, most frequent type first.
        drawable: whether ``len(nodes)`` is within ``GRAPH_BUDGET.max_draw``.
        show_saved: whether saved tensors are included.
    """

    order: int
    variable: str
    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]
    ops: int
    per_pass: tuple[int, ...]
    summary: tuple[TypeCount, ...]
    drawable: bool
    show_saved: bool


@dataclass(frozen=True)
class GraphLab:
    """The graph of f and its derivatives up to ``built``, every node tagged with its pass.

    Attributes:
        variable: the variable's name (x unless the function uses another).
        x0: the point.
        built: the highest order built (``requested`` unless the node budget stopped it).
        requested: the order asked for.
        nodes, edges: every node and edge up to ``built``, saved tensors included.
        stats: one :class:`OrderStats` per order 0..built.
        constant_from: the first order whose derivative is a constant with no grad_fn (the
            next ``grad`` would raise; every higher derivative is exactly 0), or None.
        stopped_nodes: when the budget stopped the build, the node count of order built + 1.
    """

    variable: str
    x0: float
    built: int
    requested: int
    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]
    stats: tuple[OrderStats, ...]
    constant_from: int | None
    stopped_nodes: int | None = None

    def view(self, order: int, *, show_saved: bool = False) -> GraphView:
        """The graph of (f, ..., f^(order)).

        Raises:
            BudgetError: ``order`` is outside 0..6, or above the order the node budget allowed.
        """
        _check_order(order)
        if order > self.built:
            raise BudgetError(
                "graph.budget.nodes",
                order=self.built + 1,
                nodes=f"{self.stopped_nodes:,}",
                limit=f"{GRAPH_BUDGET.max_nodes:,}",
                built=self.built,
            )
        keep = {
            n.name
            for n in self.nodes
            if n.pass_index <= order and (show_saved or n.kind != "saved")
        }
        nodes = tuple(n for n in self.nodes if n.name in keep)
        edges = tuple(e for e in self.edges if e.src in keep and e.dst in keep)
        ops = [n for n in nodes if n.kind == "op"]
        per_pass = tuple(sum(1 for n in ops if n.pass_index == k) for k in range(order + 1))
        counts: dict[str, list[int]] = {}
        for n in ops:
            counts.setdefault(n.label, [0] * (order + 1))[n.pass_index] += 1
        summary = tuple(
            TypeCount(op, tuple(c))
            for op, c in sorted(counts.items(), key=lambda item: (-sum(item[1]), item[0]))
        )
        return GraphView(
            order=order,
            variable=self.variable,
            nodes=nodes,
            edges=edges,
            ops=len(ops),
            per_pass=per_pass,
            summary=summary,
            show_saved=show_saved,
            drawable=len(nodes) <= GRAPH_BUDGET.max_draw,
        )


@dataclass(frozen=True)
class Trend:
    """How one count (graph nodes, or depth) changed over the orders that were built.

    Attributes:
        kind: "none" (always 0), "stopped" (unchanged since order ``since``), "growing" (each
            of the last ``span`` orders added more than the one before) or "steady" (it grew,
            but the amount added is not rising: no growth by a factor).
        values: the count at orders 0, 1, ...
        since: for "stopped", the first order of the final run of equal values.
        span: how many of the last orders ``added`` and ``ratios`` describe.
        added: the increase at each of those orders.
        ratios: count / count of the order before, at each of them (empty if one is 0).
    """

    kind: str
    values: tuple[int, ...]
    since: int = 0
    span: int = 0
    added: tuple[int, ...] = ()
    ratios: tuple[float, ...] = ()

    @property
    def rising(self) -> bool:
        """Whether each ratio is larger than the one before (the factor itself grows)."""
        pairs = list(zip(self.ratios, self.ratios[1:], strict=False))
        return bool(pairs) and all(b > a for a, b in pairs)


def trend(values: tuple[int, ...] | list[int], span: int = 3) -> Trend:
    """Classify how ``values`` (one per order) grew over the last ``span`` orders.

    Example:
        >>> trend([2, 5, 8, 11, 11, 11, 11]).since   # x**3 stops growing at order 3
        3
        >>> trend([2, 3, 7, 16, 37, 88, 217]).added  # tanh
        (21, 51, 129)
    """
    values = tuple(values)
    if not any(values):
        return Trend("none", values)
    last = len(values) - 1
    if last == 0 or values[-1] == values[-2]:
        since = last
        while since > 0 and values[since - 1] == values[-1]:
            since -= 1
        return Trend("stopped", values, since=since)
    span = min(span, last)
    tail = values[-span - 1 :]
    pairs = list(zip(tail, tail[1:], strict=False))
    added = tuple(b - a for a, b in pairs)
    ratios = tuple(b / a for a, b in pairs) if all(tail[:-1]) else ()
    growing = len(added) > 1 and all(b > a for a, b in zip(added, added[1:], strict=False))
    return Trend("growing" if growing else "steady", values, span=span, added=added, ratios=ratios)


def output_label(order: int, variable: str = "x") -> str:
    """The name of f^(order) in the drawing: ``y``, ``dy/dx``, ``d2y/dx2``, ..."""
    if order == 0:
        return "y"
    if order == 1:
        return f"dy/d{variable}"
    return f"d{order}y/d{variable}{order}"


# ----------------------------------------------------------------------------------------------
# Private helpers


def _check_order(order: object) -> None:
    valid = isinstance(order, int) and not isinstance(order, bool)
    if not valid or not 0 <= order <= GRAPH_BUDGET.max_order:
        raise BudgetError("graph.budget.order", high=GRAPH_BUDGET.max_order, got=order)


def _check(fn: Function, x0: float, order: int) -> str:
    _check_order(order)
    if len(fn.variables) > 1:
        raise ArgumentError("budget.one_variable", names=", ".join(fn.variables))
    number = isinstance(x0, int | float) and not isinstance(x0, bool)
    if not number or not math.isfinite(x0) or abs(x0) > GRAPH_BUDGET.max_abs_x:
        raise ArgumentError("graph.budget.x0", got=x0, limit=f"{GRAPH_BUDGET.max_abs_x:g}")
    return fn.variables[0] if fn.variables else "x"


def _build(fn: Function, variable: str, x0: float, order: int) -> GraphLab:
    x = torch.tensor(x0, dtype=torch.float64, requires_grad=True)  # shape (): one point
    tracer = Tracer()
    stats: list[OrderStats] = []
    constant_from = None
    stopped = None
    row = None
    depth = 0
    for k in range(order + 1):
        start = time.perf_counter()
        if k == 0:
            row = fn.torch({variable: x})
        elif row.requires_grad:
            # The step the lab teaches: one more grad, recorded for the next (create_graph).
            # materialize_grads: a row that no longer reaches x gives 0, not None.
            (row,) = torch.autograd.grad(row, x, create_graph=True, materialize_grads=True)
        else:
            # f^(k-1) is a constant with no grad_fn: grad would raise, the answer is 0.
            constant_from = k - 1 if constant_from is None else constant_from
            row = torch.zeros_like(x)
        seconds = time.perf_counter() - start
        new = tracer.walk(k, row.grad_fn)
        if len(tracer.names) > GRAPH_BUDGET.max_nodes:
            stopped = len(tracer.names)  # reported by view(k); the nodes are not described
            break
        tracer.describe(new, k)
        depth = max(depth, tracer.longest(row.grad_fn))
        output = f"out{k}"
        tracer.nodes.append(GraphNode(output, "output", k, output_label(k, variable), scalar(row)))
        if row.grad_fn is not None:
            tracer.edges.append(GraphEdge(tracer.names[row.grad_fn], output))
        stats.append(
            OrderStats(
                order=k,
                nodes=len(tracer.names),
                new_nodes=len(new),
                depth=depth,
                saved_tensors=len(tracer.storages),
                saved_bytes=tracer.saved_bytes,
                seconds=seconds,
                value=float(row.detach()),
                requires_grad=row.requires_grad,
                grad_fn=type(row.grad_fn).__name__ if row.grad_fn is not None else "",
            )
        )
    complete = len(stats) == order + 1
    if constant_from is None and complete and row is not None and not row.requires_grad:
        constant_from = order
    return GraphLab(
        variable=variable,
        x0=x0,
        built=len(stats) - 1,
        requested=order,
        nodes=tuple(tracer.nodes),
        edges=tuple(tracer.edges),
        stats=tuple(stats),
        constant_from=constant_from,
        stopped_nodes=stopped,
    )


# ----------------------------------------------------------------------------------------------
# Public API


def graph_lab(fn: Function, x0: float, order: int = GRAPH_BUDGET.max_order) -> GraphLab:
    """Build f, f', ..., f^(order) at ``x0`` by nested autograd and trace the graph pass by pass.

    Args:
        fn: a function of at most one variable (from :func:`hograd_core.parse`).
        x0: the point, a finite number within ±1e6.
        order: the highest derivative, 0..6.

    Returns:
        A :class:`GraphLab` of primitives (no tensors); ``lab.view(k)`` is the graph of order k.
        If the graph outgrows ``GRAPH_BUDGET.max_nodes`` nodes at some order, the build stops
        there: ``lab.built`` is the last order within budget and ``lab.view`` refuses higher.

    Raises:
        BudgetError: order outside 0..6, x0 not finite or too large, more than one variable.

    Note:
        Cost grows with the graph: 2-20 ms for the preset functions at order 6; a 20,000-node
        graph takes about 0.5 s (most of it reading the saved tensors of every node).
    """
    variable = _check(fn, x0, order)
    return _build(fn, variable, float(x0), order)
