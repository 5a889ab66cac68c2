"""Tracing the real autograd graph behind some tensors, every node tagged with its pass.

The extraction (micrograd's ``trace``) shared by the graph lab (:mod:`hograd_core.graphs`), the
flag lab and the Hessian-vector-product graph; :mod:`hograd_core.graph_dot` draws what it
returns. Modelled on torchviz ``make_dot``: one node per ``grad_fn``, each leaf feeding its
``AccumulateGrad``, one node per output, and the tensors each function saved for its own
backward, with the same edge directions. It departs from make_dot where a lesson needs it:
names are stable (``p2_3`` is the 4th node the 2nd pass added) instead of ``id()``; each saved
tensor gets its own node, never merged with the tensor it was saved from (torchviz issues 59,
69 and 71); tensors show their values; a saved tensor that was freed or changed in place is
read as such (PyTorch raises when it is read).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import torch

from .autograd_walk import inputs, walk

__all__ = [
    "GRAPH_BUDGET",
    "MODIFIED",
    "GraphBudget",
    "GraphEdge",
    "GraphNode",
    "Root",
    "TensorGraph",
    "Tracer",
    "saved_slots",
    "scalar",
    "trace_tensors",
]


@dataclass(frozen=True)
class GraphBudget:
    """Limits of the graph lab (each one keeps a shared server responsive)."""

    max_order: int = 6  # how fast graphs grow depends on f: x**3 stops at 11 nodes, tanh: 217
    max_nodes: int = 20_000  # grad_fn nodes walked with their saved tensors: < 1 s on 2 cores
    max_draw: int = 400  # nodes sent to graphviz: ~1 s at 500, ~40 s at 2,000 (dot, 2 cores)
    max_abs_x: float = 1e6


GRAPH_BUDGET = GraphBudget()
_SAVED = "_saved_"  # torch exposes what a backward function saved as ``_saved_<name>``


@dataclass(frozen=True)
class GraphNode:
    """One node of the drawing.

    Attributes:
        name: stable id: ``leaf`` (x), ``out<k>`` (f^(k)), ``p<pass>_<i>`` (a grad_fn, the
            i-th that pass added, in depth-first order from f^(pass)), ``<op>.<attr>`` (a
            tensor that op saved).
        kind: "leaf", "output", "op" or "saved".
        pass_index: the pass that created it: 0 forward, k the k-th backward.
        label: the op's type (``PowBackward0``), or the tensor's name (``x``, ``dy/dx``,
            ``self``).
        value: the tensor's value (tensors only; None for ops, non-scalar and freed tensors).
        nbytes: bytes of a saved tensor's storage (0 otherwise).
        freed: a saved tensor that a backward pass has freed (reading it raises).
        modified: a saved tensor changed in place after it was saved (reading it raises).
    """

    name: str
    kind: str
    pass_index: int
    label: str
    value: float | None = None
    nbytes: int = 0
    freed: bool = False
    modified: bool = False


@dataclass(frozen=True)
class GraphEdge:
    """An edge as make_dot draws it: input to consumer; ``saved`` links a saved tensor."""

    src: str
    dst: str
    saved: bool = False


class Tracer:
    """Walks the graph pass by pass (:func:`~hograd_core.autograd_walk.walk`), naming nodes in
    a fixed order (never by ``id()``)."""

    def __init__(self, leaves: dict[int, str] | None = None) -> None:
        self.leaves = leaves or {}  # id(leaf tensor) -> its name; unnamed: the one leaf x
        self.names: dict[object, str] = {}  # grad_fn -> stable name (keeps every node alive)
        self.seen: set[object] = set()  # the nodes named so far (the walk's own record)
        self.nodes: list[GraphNode] = []
        self.edges: list[GraphEdge] = []
        self.storages: set[int] = set()  # data_ptr of every saved storage seen so far
        self.saved_bytes = 0
        self.depth: dict[object, int] = {}  # grad_fn -> nodes on the longest path from it
        self.counts: dict[int, int] = {}  # nodes named so far, by pass

    def longest(self, root: object | None) -> int:
        """Nodes on the longest path from ``root`` down to a leaf (0 without a root); ``root``
        must have been walked (:meth:`walk` measures every node it names)."""
        return self.depth[root] if root is not None else 0

    def walk(self, k: int, root: object | None) -> list[object]:
        """Name the nodes reachable from ``root`` that no earlier pass reached (depth first,
        inputs in ``next_functions`` order), measure their longest paths; return them."""
        start = self.counts.get(k, 0)  # a pass may have several roots (dy and dz)
        found = walk([root], self.seen)
        for i, fn in enumerate(found.nodes):
            self.names[fn] = f"p{k}_{start + i}"
        for fn in found.finished:  # a node after its inputs: theirs are known
            self.depth[fn] = 1 + max((self.depth[nxt] for nxt in inputs(fn)), default=0)
        self.counts[k] = start + len(found.nodes)
        return found.nodes

    def describe(self, new: list[object], k: int) -> None:
        """Record the nodes of pass ``k``, their edges and their saved tensors."""
        for fn in new:
            self._describe(fn, k)

    def _describe(self, fn: object, k: int) -> None:
        name = self.names[fn]
        self.nodes.append(GraphNode(name, "op", k, type(fn).__name__))
        variable = getattr(fn, "variable", None)
        if torch.is_tensor(variable):  # AccumulateGrad: the leaf it accumulates into
            label = self.leaves.get(id(variable), "")
            leaf = f"leaf_{label}" if label else "leaf"
            self.nodes.append(GraphNode(leaf, "leaf", k, label, scalar(variable)))
            self.edges.append(GraphEdge(leaf, name))
        for nxt in inputs(fn):
            self.edges.append(GraphEdge(self.names[nxt], name))
        for label, tensor in saved_slots(fn):
            self._saved(name, label, tensor, k)

    def _saved(self, owner: str, label: str, tensor: torch.Tensor | str | None, k: int) -> None:
        name = f"{owner}.{label}"
        if tensor is None or isinstance(tensor, str):  # freed, or changed in place: unreadable
            stale = {"freed": tensor is None, "modified": tensor == MODIFIED}
            self.nodes.append(GraphNode(name, "saved", k, label, **stale))
            self.edges.append(GraphEdge(name, owner, saved=True))
            return
        storage = tensor.untyped_storage()
        nbytes = storage.nbytes()
        if storage.data_ptr() not in self.storages:
            self.storages.add(storage.data_ptr())
            self.saved_bytes += nbytes
        self.nodes.append(GraphNode(name, "saved", k, label, scalar(tensor), nbytes))
        self.edges.append(GraphEdge(name, owner, saved=True))


#: what :func:`saved_slots` gives for a saved tensor that was changed in place after it was saved
MODIFIED = "modified"


def saved_slots(fn: object) -> list[tuple[str, torch.Tensor | str | None]]:
    """What backward function ``fn`` saved for its own backward: ``(name, tensor)`` pairs.

    Read from its ``_saved_<name>`` attributes; ``tensor`` is None where a backward pass has
    freed it, and :data:`MODIFIED` where it was changed in place after it was saved (PyTorch
    raises when either is read). Slots that hold no tensor (``MulBackward0._saved_self`` when
    the other factor needs no grad) are left out.
    """
    slots: list[tuple[str, torch.Tensor | str | None]] = []
    if isinstance(fn, torch.autograd.function.BackwardCFunction):
        # a custom Function's node is its ctx: what forward passed to save_for_backward
        slots += _custom_saved(fn)
    for attr in sorted(a for a in dir(fn) if a.startswith(_SAVED)):
        label = attr[len(_SAVED) :]
        try:
            value = getattr(fn, attr)
        except RuntimeError as err:
            if "modified by an inplace operation" in str(err):
                slots.append((label, MODIFIED))
                continue
            if "freed" not in str(err):
                raise
            slots.append((label, None))
            continue
        if torch.is_tensor(value):
            slots.append((label, value))
        elif isinstance(value, tuple):
            slots += [(f"{label}[{i}]", v) for i, v in enumerate(value) if torch.is_tensor(v)]
    return slots


def _custom_saved(fn: object) -> list[tuple[str, torch.Tensor | str | None]]:
    """``saved_tensors[i]`` of a custom Function's node (None for all when freed)."""
    try:
        tensors = fn.saved_tensors  # type: ignore[attr-defined]
    except RuntimeError as err:
        if "modified by an inplace operation" in str(err):
            return [("saved_tensors", MODIFIED)]
        if "freed" not in str(err):
            raise
        return [("saved_tensors", None)]
    return [(f"saved_tensors[{i}]", t) for i, t in enumerate(tensors) if torch.is_tensor(t)]


def scalar(tensor: torch.Tensor) -> float | None:
    """The value of a one-element tensor (None for any other)."""
    return float(tensor.detach()) if tensor.numel() == 1 else None


@dataclass(frozen=True)
class TensorGraph:
    """The real graph behind the tensors of one run, each node tagged with the first root that
    reaches it: root k is drawn in the colour of pass k (``y`` forward, ``dy`` the 1st
    backward pass, ...).

    Attributes:
        nodes, edges: as in :class:`GraphView`, saved tensors always included; a saved tensor
            that a backward pass freed has ``freed`` set.
        roots: the roots' names, in order (``y``, ``dy``, ``d2y``).
        per_pass: grad_fn nodes each root added to those of the roots before it.
        bytes_per_pass: bytes of saved tensors that those nodes hold (freed ones count 0).
        raised_at: the name of the node where the run raised ("" if it did not, or if
            PyTorch raised before walking the graph).
    """

    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]
    roots: tuple[str, ...]
    per_pass: tuple[int, ...]
    bytes_per_pass: tuple[int, ...]
    raised_at: str = ""

    @property
    def drawable(self) -> bool:
        """Whether it is within ``GRAPH_BUDGET.max_draw`` nodes, as the graph page's view."""
        return len(self.nodes) <= GRAPH_BUDGET.max_draw

    @property
    def counts(self) -> tuple[int, int, int]:
        """(backward functions, saved tensors, of which freed or changed in place)."""
        saved = [n for n in self.nodes if n.kind == "saved"]
        stale = sum(1 for n in saved if n.freed or n.modified)
        return sum(1 for n in self.nodes if n.kind == "op"), len(saved), stale

    def without_saved(self) -> TensorGraph:
        """The same graph with its saved tensors and their edges left out (as torchviz's
        ``show_saved=False``); the counts per pass are unchanged."""
        saved = {n.name for n in self.nodes if n.kind == "saved"}
        return dataclasses.replace(
            self,
            nodes=tuple(n for n in self.nodes if n.name not in saved),
            edges=tuple(e for e in self.edges if e.src not in saved and e.dst not in saved),
        )


Root = tuple[int, str, object, "float | None"]  # (pass, name, tensor or None, printed value)


def trace_tensors(
    roots: list[Root], leaves: list[tuple[str, torch.Tensor]], raised_at: object = None
) -> TensorGraph:
    """Trace the graph behind ``roots`` as they are now (freed saved tensors included).

    Args:
        roots: ``(pass, name, object, value)``: the pass whose colour it gets (the call that
            made it), a tensor (or None, e.g. an unused input's gradient with
            ``allow_unused``) and the value to show (the value printed when it was made:
            ``x.grad`` changes in place when gradients accumulate). Passes in order.
        leaves: the leaves by name; a leaf that no root reaches is drawn on its own.
        raised_at: the backward function whose call raised, or the name of a root or leaf
            (PyTorch refused that tensor before walking the graph), or None.

    Returns:
        A :class:`TensorGraph` of primitives (no tensors).
    """
    tracer = Tracer({id(t): name for name, t in leaves})
    passes = 1 + max((k for k, _, _, _ in roots), default=0)
    per_pass, bytes_per_pass = [0] * passes, [0] * passes
    for i, (k, name, obj, value) in enumerate(roots):
        grad_fn = obj.grad_fn if torch.is_tensor(obj) else None
        before = tracer.saved_bytes
        new = tracer.walk(k, grad_fn)
        tracer.describe(new, k)
        per_pass[k] += len(new)
        bytes_per_pass[k] += tracer.saved_bytes - before
        tracer.nodes.append(GraphNode(f"out{i}", "output", k, name, value))
        if grad_fn is not None:
            tracer.edges.append(GraphEdge(tracer.names[grad_fn], f"out{i}"))
    drawn = {n.name for n in tracer.nodes}
    for name, tensor in leaves:
        if f"leaf_{name}" not in drawn:  # no root uses it (an unused input)
            tracer.nodes.append(GraphNode(f"leaf_{name}", "leaf", 0, name, scalar(tensor)))
    where = ""
    if raised_at in tracer.names:
        where = tracer.names[raised_at]
    elif isinstance(raised_at, str):
        outputs = {n.label: n.name for n in tracer.nodes if n.kind in ("output", "leaf")}
        where = outputs.get(raised_at, "")
    return TensorGraph(
        nodes=tuple(tracer.nodes),
        edges=tuple(tracer.edges),
        roots=tuple(name for _, name, _, _ in roots),
        per_pass=tuple(per_pass),
        bytes_per_pass=tuple(bytes_per_pass),
        raised_at=where,
    )
