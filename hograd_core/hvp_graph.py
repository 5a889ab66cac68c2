"""The double-backward graph of a Hessian-vector product, every node tagged with its pass.

For f of several variables w = (w1, ..., wn), the product Hv is two backward passes through
one recorded graph (reverse over reverse)::

    f  = f(w)                                  pass 0: the forward pass
    g  = grad(f, w, create_graph=True)         pass 1: the 1st backward, recorded
    gv = g · v                                 pass 2: a forward step on g (v is a constant)
    Hv = grad(gv, w)                           pass 3: the 2nd backward, through passes 0-2

since ∇(∇f·v) = H v. A node belongs to the first of these results that reaches it, as on the
one-variable graph (:mod:`hograd_core.graphs`): what g reaches beyond f's graph was recorded by
the first backward, and so on. The graph drawn is the real one, traced from the tensors after
the second call (which, with the default retain_graph=False, frees what it walked: those saved
tensors are drawn as freed).

Example:
    >>> import math
    >>> from hograd_core import parse
    >>> r = hvp_graph(parse("w1**2*sin(w2)"), "1, pi/2", "0.5, 1")
    >>> [round(v, 12) for v in r.gradient], [round(v, 12) for v in r.hvp]
    ([2.0, 0.0], [1.0, -1.0])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from .autograd_walk import walk
from .errors import ArgumentError, BudgetError, ExpressionError
from .graphs import GRAPH_BUDGET, TensorGraph, TypeCount, trace_tensors
from .hessian import number_entries, point_vector
from .language import LIMITS, Function, parse
from .language.to_source import python_name, torch_source

__all__ = ["HVP_PASSES", "HVPGraph", "hvp_graph", "numbers"]

#: What each pass of the drawing is, in order (the pass index is the position).
HVP_PASSES = ("forward", "grad", "dot", "hvp")


@dataclass(frozen=True)
class HVPGraph:
    """The graph of f, g = ∇f, g·v and Hv at one point.

    Attributes:
        variables: the variables, in the order of the point and v.
        point, vector: w and v.
        value: f(w).
        gradient: g = ∇f(w), one number per variable.
        hvp: H v, one number per variable.
        graph: the traced graph (roots ``f``, ``df/dw1``..., ``g·v``, ``(Hv)_w1``...; passes as
            in :data:`HVP_PASSES`).
        summary: backward functions by type (rows) and pass (columns), most frequent first.
        constant_gradient: g has no graph (f is linear, or constant, in w): g·v has no grad_fn,
            the second call would raise, and Hv is exactly 0 (drawn with no history).
        code: the PyTorch script of these calls (:func:`hvp_code`).
        reaches: whether a variable reaches f's graph, and g·v's (the scripts write zeros
            where a ``grad`` call would raise; the second is ``not constant_gradient``).
    """

    variables: tuple[str, ...]
    point: tuple[float, ...]
    vector: tuple[float, ...]
    value: float
    gradient: tuple[float, ...]
    hvp: tuple[float, ...]
    graph: TensorGraph
    summary: tuple[TypeCount, ...]
    constant_gradient: bool
    code: str = ""
    reaches: tuple[bool, bool] = (True, True)

    @property
    def saved_states(self) -> tuple[int, int]:
        """(freed, kept): saved tensors in the graph that a backward pass freed, and the rest."""
        saved = [n for n in self.graph.nodes if n.kind == "saved"]
        freed = sum(1 for n in saved if n.freed)
        return freed, len(saved) - freed


def numbers(text: str | Sequence[float], what: str, fn: Function) -> np.ndarray:
    """One number per variable of ``fn`` from a comma list (``"1, pi/2"``) or a sequence.

    Each entry of a list may be a constant expression of the function language (``pi/2``,
    ``-1e-3``, ``sqrt(2)``), evaluated in float64.

    This is where every point and vector typed as text is read: the graph page's boxes, their
    links (``?graphvars.point=``) and the command line's ``--at`` and ``--vector``.

    Raises:
        ArgumentError: the text is longer than ``len(fn.variables)`` numbers need
            (:func:`~hograd_core.hessian.numbers_limit`), checked before it is split; an entry
            is empty, not a constant, not finite, or above 1e6 in size.
        BudgetError: the count differs from the number of variables.
    """
    if isinstance(text, str):
        values = []
        for part in number_entries(text, what, max(len(fn.variables), 1)):
            entry = part.strip()
            try:
                values.append(float(entry))  # 1e7 and inf too: point_vector says what is wrong
                continue
            except ValueError:
                pass
            try:
                constant = parse(entry) if entry else None
            except ExpressionError:
                constant = None
            if constant is None or constant.variables:
                raise ArgumentError("budget.number", what=what, got=entry[:40] or "(empty)")
            values.append(float(constant.torch({}).detach()))
        text = values
    return point_vector(text, fn, what)


def _check(fn: Function) -> None:
    if not fn.variables:
        raise ArgumentError("budget.no_variables")
    if len(fn.variables) > LIMITS.max_variables:  # parse() caps this too, unless given names
        limit, got = LIMITS.max_variables, len(fn.variables)
        raise BudgetError("hvp.budget.variables", limit=limit, got=got)


def _summary(graph: TensorGraph) -> tuple[TypeCount, ...]:
    counts: dict[str, list[int]] = {}
    for node in graph.nodes:
        if node.kind == "op":
            counts.setdefault(node.label, [0] * len(HVP_PASSES))[node.pass_index] += 1
    ranked = sorted(counts.items(), key=lambda item: (-sum(item[1]), item[0]))
    return tuple(TypeCount(op, tuple(c)) for op, c in ranked)


def hvp_graph(
    fn: Function,
    point: str | Sequence[float],
    vector: str | Sequence[float],
    record_second: bool = False,
) -> HVPGraph:
    """Compute Hv at ``point`` by double backward and trace the graph it built, pass by pass.

    Args:
        fn: a function of 1 to 10 variables.
        point: w, one number per variable (a comma list such as ``"1, pi/2"``, or numbers).
        vector: v, likewise.
        record_second: call the second grad with ``create_graph=True`` too, so its backward
            functions are recorded (and drawn as pass 3); by default it is not recorded, as
            in ``grad(g·v, w)``, so Hv has no grad_fn and the call frees the saved tensors it
            used (retain_graph defaults to create_graph).

    Returns:
        An :class:`HVPGraph` of primitives (no tensors).

    Raises:
        ArgumentError: no variable, or a number that is not one (see :func:`numbers`).
        BudgetError: more than 10 variables, a list of the wrong length, or a graph of more
            than ``GRAPH_BUDGET.max_nodes`` nodes.

    Note:
        The parser's limits (150 tree nodes) keep the two backward passes to a few thousand
        nodes; the count is still checked before the graph is read for drawing.
    """
    _check(fn)
    w = numbers(point, "point", fn)
    v = numbers(vector, "vector", fn)
    names = fn.variables
    leaves = [torch.tensor(value, dtype=torch.float64, requires_grad=True) for value in w]
    f = fn.torch(dict(zip(names, leaves, strict=True)))
    if not f.requires_grad:  # no variable reaches f's graph: every derivative is 0
        g = [torch.zeros((), dtype=torch.float64) for _ in leaves]
    else:  # pass 1: the first backward, recorded (create_graph) so it can be differentiated
        g = list(torch.autograd.grad(f, leaves, create_graph=True, materialize_grads=True))
    gv = torch.dot(torch.stack(g), torch.tensor(v, dtype=torch.float64))  # pass 2
    if gv.requires_grad:  # pass 3: ∇(∇f·v) = H v
        hv = list(
            torch.autograd.grad(gv, leaves, create_graph=record_second, materialize_grads=True)
        )
    else:  # g is a constant (f linear in w): the second call would raise; Hv is exactly 0
        hv = [torch.zeros((), dtype=torch.float64) for _ in leaves]
    roots = [(0, "f", f, float(f.detach()))]
    roots += [(1, f"df/d{n}", t, float(t.detach())) for n, t in zip(names, g, strict=True)]
    roots.append((2, "g·v", gv, float(gv.detach())))
    roots += [(3, f"(Hv)_{n}", t, float(t.detach())) for n, t in zip(names, hv, strict=True)]
    walked = _count([f, gv, *hv])
    if walked > GRAPH_BUDGET.max_nodes:
        limit = f"{GRAPH_BUDGET.max_nodes:,}"
        raise BudgetError("graphvars.budget.nodes", nodes=f"{walked:,}", limit=limit)
    graph = trace_tensors(roots, list(zip(names, leaves, strict=True)))
    return HVPGraph(
        variables=names,
        point=tuple(float(a) for a in w),
        vector=tuple(float(a) for a in v),
        value=float(f.detach()),
        gradient=tuple(float(t.detach()) for t in g),
        hvp=tuple(float(t.detach()) for t in hv),
        graph=graph,
        summary=_summary(graph),
        constant_gradient=not gv.requires_grad,
        code=hvp_code(fn, w, v, record_second, (f.requires_grad, gv.requires_grad)),
        reaches=(f.requires_grad, gv.requires_grad),
    )


_RESERVED = {"torch", "f", "g", "gv", "hv", "v", "w"}


def hvp_code(
    fn: Function,
    point: np.ndarray,
    vector: np.ndarray,
    record_second: bool,
    reaches: tuple[bool, bool] = (True, True),
) -> str:
    """The script that makes :func:`hvp_graph`'s calls, on the function's own names, and prints
    its numbers (f, ∇f, g·v, Hv as Python floats and lists, as its C++ twin
    :func:`hograd_core.cpp_code.hvp_graph_cpp` prints them).

    ``materialize_grads=True`` makes an input f does not use give 0 instead of an error.
    ``reaches``: whether a variable reaches f's graph, and g's (the second is False when f is
    linear in w): where not, that ``grad`` call would raise, and the script says the
    derivatives are exactly 0 instead, as :func:`hvp_graph` does.
    """
    names: dict[str, str] = {}
    for name in fn.variables:  # a renamed one takes a name no other variable has or gets
        others = set(fn.variables) - {name}
        names[name] = python_name(name, _RESERVED | others | set(names.values()))
    leaf = "{} = torch.tensor({!r}, dtype=torch.float64, requires_grad=True)"
    lines = ["import torch", ""]
    lines += [leaf.format(names[n], float(a)) for n, a in zip(fn.variables, point, strict=True)]
    w = "(" + ", ".join(names.values()) + ("," if len(names) == 1 else "") + ")"
    v = ", ".join(repr(float(a)) for a in vector)
    second = ", create_graph=True" if record_second else ""
    zeros = f"tuple(torch.zeros_like(t) for t in {w})"
    lines.append(f"f = {torch_source(fn, names)}")
    if reaches[0]:
        lines.append(f"g = torch.autograd.grad(f, {w}, create_graph=True, materialize_grads=True)")
    else:
        lines.append(f"g = {zeros}  # no variable reaches f: grad() would raise; ∇f = 0")
    lines.append(f"gv = torch.dot(torch.stack(g), torch.tensor([{v}], dtype=torch.float64))")
    if reaches[1]:
        lines.append(f"hv = torch.autograd.grad(gv, {w}{second}, materialize_grads=True)  # H v")
    else:
        lines.append(f"hv = {zeros}  # ∇f has no graph (f linear): grad() would raise; Hv = 0")
    lines += [
        'print("f", f.item())',
        'print("gradient", torch.stack(g).tolist())',
        'print("g·v", gv.item())',
        'print("Hv", torch.stack(hv).tolist())',
    ]
    return "\n".join(lines) + "\n"


def _count(roots: list[torch.Tensor]) -> int:
    """Backward functions reachable from the roots (everything the drawing walks)."""
    return len(walk([t.grad_fn for t in roots]).nodes)
