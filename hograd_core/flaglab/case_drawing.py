"""The drawing a classic case leaves: the graph of what its steps printed, traced at its end.

Step k's results take the colour of pass k (``y`` the forward pass's); the node where the script
raised is found from PyTorch's own words and from pre-hooks on the backward functions (the last
one entered before an error is the one that raised).
"""

from __future__ import annotations

import re

import torch

from ..graph_trace import Root, TensorGraph, trace_tensors
from .record import StepReport, backward_functions

__all__ = ["drawing", "printed_roots", "raised_at", "value", "watch"]

Namespace = dict[str, object]  # the snippet's variables, by name


def value(obj: object) -> float | None:
    return float(obj.detach()) if torch.is_tensor(obj) and obj.numel() == 1 else None


def watch(fired: list[object], namespace: Namespace) -> list[object]:
    """A pre-hook on every backward function the namespace's tensors lead to: the last one
    entered before an error is the one that raised."""
    handles = []
    roots = [t.grad_fn for t in namespace.values() if torch.is_tensor(t)]
    seen: set[object] = set()
    for root in roots:
        for fn in backward_functions(root):
            if fn not in seen:
                seen.add(fn)
                handles.append(fn.register_prehook(lambda grads, fn=fn: fired.append(fn)))
    return handles


def printed_roots(k: int, step: StepReport, namespace: Namespace) -> list[Root]:
    """What step ``k`` printed, as roots of the drawing (tensors and None; not booleans).

    The objects are read back from the namespace by name, so ``x.grad`` is the tensor the
    step printed (a later ``backward`` may change it in place; its printed value is kept).
    """
    out: list[Root] = []
    for report in step.results:
        name = report.name
        if name == "dz * 2":
            continue  # a new product, on no graph; the drawing shows dz itself
        obj = _lookup(namespace, name)
        if obj is None or torch.is_tensor(obj):
            out.append((0 if name == "y" else k, name, obj, report.value))
    return out


def _lookup(namespace: Namespace, name: str) -> object:
    base, _, attr = name.partition(".")
    return getattr(namespace[base], attr) if attr else namespace.get(base)


def raised_at(code: str, blame: str, report: StepReport, fired: list[object], y: object) -> object:
    """Where a failed step raised: the input PyTorch says was unused (``z``), the output it
    refused to differentiate (the first argument of the step's ``torch.autograd.grad``), the
    function anomaly detection named (in the graph of the ``y`` the step built), the backward
    function it entered last, or ``blame`` (the step's own choice)."""
    if "not have been used in the graph" in report.error:
        return "z"
    if "does not require grad" in report.error:
        found = re.search(r"torch\.autograd\.grad\((\w+)", code)
        return found.group(1) if found else ""
    named = re.match(r"Function '(\w+)' returned nan", report.error)
    if named and torch.is_tensor(y):
        hits = [fn for fn in backward_functions(y.grad_fn) if type(fn).__name__ == named[1]]
        if len(hits) == 1:
            return hits[0]
    return fired[-1] if fired else blame


def drawing(roots: list[Root], namespace: Namespace, where: object) -> TensorGraph:
    leaves = [
        (name, namespace[name]) for name in ("x", "z") if torch.is_tensor(namespace.get(name))
    ]
    return trace_tensors(roots, leaves, where)
