"""What a run records after each top-level statement: its output, the variables, the graphs.

Primitives only (floats, strings, tuples), so that a record crosses a process boundary as
JSON and is cached by the app: the tensors stay in the process that ran the program.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import torch

from ..autograd_walk import walk
from ..graph_trace import GRAPH_BUDGET, GraphEdge, GraphNode, TensorGraph, scalar, trace_tensors

__all__ = ["MAX_VALUES", "LineRecord", "RunError", "Variable", "graph_of", "variable"]

#: Tensors of at most this many elements have their values recorded (and drawn in the table).
MAX_VALUES = 64
#: Characters of a value's printed form that a record keeps.
MAX_TEXT = 400
#: Variables whose graphs a line records (the first ones with a graph).
MAX_GRAPHS = 12


@dataclass(frozen=True)
class Variable:
    """One name of the program after a line.

    Attributes:
        name: the name.
        kind: "tensor", "number", "bool", "none", "str", "function", "module" or "other".
        text: ``str(value)`` (cut to :data:`MAX_TEXT` characters).
        shape, dtype: of a tensor (``()`` and "" otherwise).
        values: a tensor's elements, flattened, when it has at most :data:`MAX_VALUES`.
        requires_grad, is_leaf: of a tensor.
        grad_fn: the type of its ``grad_fn`` (``PowBackward0``), "" for None.
        grad: the elements of its ``.grad`` (None when ``.grad`` is None or too large).
        grad_text: ``str(x.grad)``, "None" when it is None.
    """

    name: str
    kind: str
    text: str
    shape: tuple[int, ...] = ()
    dtype: str = ""
    values: tuple[float, ...] | None = None
    requires_grad: bool = False
    is_leaf: bool = True
    grad_fn: str = ""
    grad: tuple[float, ...] | None = None
    grad_text: str = "None"


@dataclass(frozen=True)
class RunError:
    """Why the run stopped at a line.

    Attributes:
        line: the line that raised (the innermost: inside a function, the function's line).
        text: what Python prints as the traceback's last line(s) ("RuntimeError: ...");
            empty for a refusal.
        key, params: a refusal or a budget (a ``HogradError``'s key and parameters); "" else.
        variable: the name of the first argument of the call that raised ("" if none).
    """

    line: int
    text: str = ""
    key: str = ""
    params: dict = dataclasses.field(default_factory=dict)
    variable: str = ""


@dataclass(frozen=True)
class LineRecord:
    """One top-level statement and what it did."""

    line: int
    end_line: int
    source: str
    output: str
    variables: tuple[Variable, ...]
    graphs: tuple[tuple[str, TensorGraph | int], ...]  # name -> graph, or its size if too large
    error: RunError | None = None
    warnings: tuple[str, ...] = ()  # "UserWarning: ..." as Python would show them


def _cut(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + "…"


def _text(value: object) -> str:
    """``str(value)``, cut; "…" for a list nested past Python's recursion limit."""
    try:
        return _cut(str(value))
    except RecursionError:
        return "…"


def _flat(t: torch.Tensor) -> tuple[float, ...] | None:
    if t.numel() > MAX_VALUES or t.is_complex():
        return None
    return tuple(float(v) for v in t.detach().reshape(-1).tolist())


def variable(name: str, value: object) -> Variable:
    """The record of one name's value."""
    if isinstance(value, torch.Tensor):
        grad = value.grad if value.is_leaf else None
        return Variable(
            name=name,
            kind="tensor",
            text=_cut(str(value)),
            shape=tuple(value.shape),
            dtype=str(value.dtype),
            values=_flat(value),
            requires_grad=value.requires_grad,
            is_leaf=value.is_leaf,
            grad_fn="" if value.grad_fn is None else type(value.grad_fn).__name__,
            grad=None if grad is None else _flat(grad),
            grad_text="None" if grad is None else _cut(str(grad)),
        )
    if isinstance(value, bool):
        kind = "bool"
    elif isinstance(value, int | float):
        kind = "number"
    elif value is None:
        kind = "none"
    elif isinstance(value, str):
        kind = "str"
    elif isinstance(value, torch.nn.Module):
        kind = "module"
    elif callable(value):
        kind = "function"
    else:
        kind = "other"
    values = (float(value),) if kind == "number" else None
    return Variable(name=name, kind=kind, text=_text(value), values=values)


def graph_of(
    name: str, names: dict[str, object], pass_of: object, raised: str = ""
) -> TensorGraph | int | None:
    """The graph reachable from tensor ``names[name]``, the tensors of ``names`` it passes
    through drawn as outputs in the colour of their pass; its node count if it is too large
    to draw, None if the variable has no graph (a tensor that needs no gradient)."""
    target = names[name]
    if not isinstance(target, torch.Tensor):
        return None
    if target.grad_fn is None and not target.requires_grad and name != raised:
        return None
    if target.grad_fn is None:  # a leaf, or a tensor with no graph (raised on)
        if target.requires_grad:
            return trace_tensors([], [(name, target)])
        return trace_tensors([(min(pass_of(target), 6), name, target, scalar(target))], [], name)  # type: ignore[operator]
    found = walk([target.grad_fn]).nodes
    if len(found) > GRAPH_BUDGET.max_draw:
        return len(found)
    reached = set(found)
    accumulated = {id(getattr(n, "variable", None)) for n in found}
    roots, leaves = [], []
    for other, value in names.items():
        if not isinstance(value, torch.Tensor):
            continue
        if other == name or _shares(value, reached, pass_of(value) < pass_of(target)):  # type: ignore[operator]
            roots.append((min(pass_of(value), 6), other, value, scalar(value)))  # type: ignore[operator]
        if value.is_leaf and value.requires_grad and (id(value) in accumulated or other == name):
            leaves.append((other, value))
    roots.sort(key=lambda r: r[0])
    graph = trace_tensors(roots, leaves, raised or None)
    if not graph.drawable:
        return len(graph.nodes)
    sized = {r[1]: r[2] for r in roots}
    nodes = tuple(_label(n, sized) for n in graph.nodes)
    return dataclasses.replace(graph, nodes=nodes)


def _shares(value: torch.Tensor, reached: set[object], earlier: bool) -> bool:
    """Whether ``value``'s graph is part of the drawing: its ``grad_fn`` is reached, or it
    was made by an earlier pass and shares a node with what is reached (``y = x**3`` beside
    ``dy/dx``, both through ``x``'s AccumulateGrad), as the graph page shows the forward graph
    beside the backward pass that differentiated it."""
    if value.grad_fn is None:
        return False
    if value.grad_fn in reached:
        return True
    if not earlier:
        return False
    nodes = walk([value.grad_fn]).nodes
    return len(nodes) <= GRAPH_BUDGET.max_draw and any(n in reached for n in nodes)


def _label(node: GraphNode, tensors: dict[str, torch.Tensor]) -> GraphNode:
    """A root with more than one element: drawn with its shape, not as None."""
    t = tensors.get(node.label)
    if node.kind == "output" and t is not None and t.numel() != 1:
        return dataclasses.replace(node, kind="leaf", label=f"{node.label} {list(t.shape)}")
    return node


def graph_from(data: dict) -> TensorGraph:
    """A :class:`TensorGraph` from its JSON form (``dataclasses.asdict``)."""
    return TensorGraph(
        nodes=tuple(GraphNode(**n) for n in data["nodes"]),
        edges=tuple(GraphEdge(**e) for e in data["edges"]),
        roots=tuple(data["roots"]),
        per_pass=tuple(data["per_pass"]),
        bytes_per_pass=tuple(data["bytes_per_pass"]),
        raised_at=data["raised_at"],
    )


def line_from(data: dict) -> LineRecord:
    """A :class:`LineRecord` from its JSON form."""
    error = data.get("error")
    return LineRecord(
        line=data["line"],
        end_line=data["end_line"],
        source=data["source"],
        output=data["output"],
        variables=tuple(
            Variable(
                **{
                    **v,
                    "shape": tuple(v["shape"]),
                    "values": None if v["values"] is None else tuple(v["values"]),
                    "grad": None if v["grad"] is None else tuple(v["grad"]),
                }
            )
            for v in data["variables"]
        ),
        graphs=tuple(
            (name, g if isinstance(g, int) else graph_from(g)) for name, g in data["graphs"]
        ),
        error=None if error is None else RunError(**error),
        warnings=tuple(data.get("warnings", ())),
    )
