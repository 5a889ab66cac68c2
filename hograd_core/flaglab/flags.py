"""The flag lab: the flags of ``torch.autograd.grad`` and the errors learners meet, run for real.

Two halves, both returning what PyTorch really did (values, or its own error text and
warnings) together with the exact code that did it:

* :func:`run_flags` (here) - the toggles (``create_graph``, ``retain_graph``, ``allow_unused``,
  ``materialize_grads``, an input y does not use) and an action (take the next derivative,
  call grad again on the same graph, use ``.backward()`` twice) on the user's own function.
  The set-up (``y = f(x)``) is written from the parsed function by the one PyTorch source
  generator and built with ``Function.torch``; the two calls after it are the bodies of the
  functions in :mod:`.calls` with the settings filled in, run as written
  (:mod:`.source`), and the tests run every snippet and compare.
* :func:`hograd_core.flaglab.cases.run_case` - the classic traps, fixed code run as written.

Every run builds a fresh graph and records warnings with ``warnings.catch_warnings`` so none
escapes. Two things run in a fresh child process instead: ``detect_anomaly`` (a switch for the
whole process, which would slow down, and fail on NaN, every other session of the server) and
``.backward(create_graph=True)``, whose reference-cycle warning PyTorch gives once per process
(``TORCH_WARN_ONCE``): in a long-lived server only the first learner would ever see it.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace

import torch

from ..errors import ArgumentError
from ..graph_trace import Root, saved_slots, trace_tensors
from ..language import Function
from ..language.to_source import python_name, torch_source
from . import calls
from .record import (
    FlagOutcome,
    Isolate,
    Printed,
    StepReport,
    TensorReport,
    View,
    backward_functions,
    distinct,
    run_step,
)
from .settings import ACTIONS, FlagSettings
from .source import executed, filled

__all__ = [
    "ACTIONS",
    "FlagOutcome",
    "FlagSettings",
    "StepReport",
    "TensorReport",
    "run_flags",
    "run_flags_here",
    "Isolate",
    "View",
    "torch_source",
]

# ----------------------------------------------------------------------------------------------
# Code generation: the snippet's set-up writes the function with the one PyTorch source generator
# (:func:`hograd_core.language.to_source.torch_source`), so it runs what Function.torch runs.

# Names the snippet itself uses: a variable of the language with one of these is renamed x.
_RESERVED = {"torch", "print", "y", "z", "dy", "dz", "d2y", "dy_again"}


def _python_name(fn: Function) -> str:
    """The variable's name in the snippet: the user's own unless it would clash."""
    return python_name(fn.variables[0] if fn.variables else "x", _RESERVED)


# ----------------------------------------------------------------------------------------------
# The calls: the code shown is the code run


def _calls(s: FlagSettings, name: str) -> list[str]:
    """The two calls of a run, each the body of its function in :mod:`.calls` with the
    settings filled in and the variable named ``name``; the code shown and run."""
    names = {"x": name}
    if s.action == "backward":  # .backward() has no allow_unused or materialize_grads
        twice = calls.backward_of_y_with_z if s.unused_input else calls.backward_of_y
        code = filled(twice, names, create_graph=s.create_graph, retain_graph=s.retain_graph)
        return [code, code]
    first = filled(
        calls.grad_of_y_and_z if s.unused_input else calls.grad_of_y,
        names,
        create_graph=s.create_graph,
        retain_graph=s.retain_graph,
        allow_unused=True if s.allow_unused else None,  # PyTorch's own default is None
        materialize_grads=s.materialize_grads,
    )
    second = filled(calls.next_derivative if s.action == "next" else calls.grad_again, names)
    return [first, second]


@dataclass(frozen=True)
class GraphFacts:
    """What y's graph held after the run, read from its backward functions.

    Attributes:
        ops: the types of its backward functions, in walk order, each once.
        saved: whether any of them saved a tensor for its backward.
        freed: ``Op (name)`` of every saved tensor a backward pass freed, each once.
        dy_reaches_freed: whether the graph of dy (if it has one) leads back to a backward
            function whose saved tensors were freed.
    """

    ops: tuple[str, ...]
    saved: bool
    freed: tuple[str, ...]
    dy_reaches_freed: bool


def read_graph(y: torch.Tensor, dy: object) -> GraphFacts:
    """Read y's graph after a run: what its backward functions saved, and what was freed."""
    nodes = backward_functions(y.grad_fn)
    slots = {fn: saved_slots(fn) for fn in nodes}
    lost = {fn for fn, found in slots.items() if any(t is None for _, t in found)}
    freed = dict.fromkeys(
        f"{type(fn).__name__} ({label})" for fn in nodes for label, t in slots[fn] if t is None
    )
    reach = backward_functions(dy.grad_fn) if torch.is_tensor(dy) else []
    return GraphFacts(
        ops=tuple(dict.fromkeys(type(fn).__name__ for fn in nodes)),
        saved=any(slots.values()),
        freed=tuple(freed),
        dy_reaches_freed=any(fn in lost for fn in reach),
    )


# ----------------------------------------------------------------------------------------------
# Public API


def run_flags(
    fn: Function,
    x0: float,
    settings: FlagSettings,
    isolate: Isolate | None = None,
    view: View | None = None,
) -> FlagOutcome:
    """Take the first derivative of ``fn`` at ``x0`` with the given flags, then the action.

    Args:
        fn: a function of at most one variable.
        x0: the point (finite, within ±1e6).
        settings: the toggles and the action.
        isolate: runs a request in a fresh process and returns its outcome (see the module
            doc for which runs need one); by default they run here, and a warning that
            PyTorch gives once per process shows only on the first such run.
        view: called with the run's real tensors at its end (see :data:`View`); its answer
            is ``outcome.views``. A run sent to ``isolate`` is replayed here for it (the same
            calls on fresh tensors), as no function crosses to the other process.

    Returns:
        A :class:`FlagOutcome` with PyTorch's results or error, the warnings, the
        explanation and fix keys, and the snippet that reproduces it.

    Raises:
        ArgumentError: more than one variable, x0 not finite, or an unknown action.

    Example:
        >>> from hograd_core import parse
        >>> from hograd_core.flaglab import FlagSettings, run_flags
        >>> run_flags(parse("x**3"), 2.0, FlagSettings()).error
        'element 0 of tensors does not require grad and does not have a grad_fn'
    """
    if settings.action not in ACTIONS:
        raise ArgumentError("graph.flag.action", known=", ".join(ACTIONS), got=settings.action)
    if len(fn.variables) > 1:
        raise ArgumentError("budget.one_variable", names=", ".join(fn.variables))
    if not math.isfinite(x0) or abs(x0) > 1e6:
        raise ArgumentError("graph.budget.x0", got=x0, limit="1e+06")
    if isolate is not None and settings.action == "backward" and settings.create_graph:
        outcome = isolate(
            {
                "kind": "flags",
                "text": fn.text,
                "variables": list(fn.variables),
                "x0": float(x0),
                "settings": asdict(settings),
            }
        )
        if view is None:
            return outcome
        return replace(outcome, views=run_flags_here(fn, float(x0), settings, view).views)
    return run_flags_here(fn, float(x0), settings, view)


def run_flags_here(
    fn: Function, x0: float, s: FlagSettings, view: View | None = None
) -> FlagOutcome:
    name = _python_name(fn)
    leaf = "torch.tensor({}, dtype=torch.float64, requires_grad=True)"
    setup = f"import torch\n\n{name} = {leaf.format(repr(x0))}\n"
    setup += f"z = {leaf.format('1.0')}\n" if s.unused_input else ""
    setup += f"y = {torch_source(fn, {fn.variables[0]: name} if fn.variables else None)}"
    line = setup.count("\n") + 3  # first line of the first step after the set-up
    steps = [StepReport(setup)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        x = torch.tensor(x0, dtype=torch.float64, requires_grad=True)
        z = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
        y = fn.torch({fn.variables[0]: x} if fn.variables else {})
        # the set-up's names: the calls run as written on these (the code shown)
        namespace: dict[str, object] = {"torch": torch, name: x, "y": y}
        namespace |= {"z": z} if s.unused_input else {}
        plan = _calls(s, name)
        roots: list[Root] = [(0, "y", y, _value(y))]
        leaves = [(name, x), ("z", z)] if s.unused_input else [(name, x)]
        fired: list[object] = []  # backward functions the last call entered, in order
        first_call = (0, 0)
        for k, code in enumerate(plan, start=1):
            watching = _watch(fired, y, namespace.get("dy"), x.grad) if k > 1 else []
            steps.append(run_step(code, line, _recorded(executed(code, namespace), k, roots)))
            for handle in watching:
                handle.remove()
            line += code.count("\n") + 2
            if steps[-1].error_type:
                break
            if k == 1:  # what the first call added, before a second call can free it
                after = trace_tensors(roots, leaves)
                first_call = (sum(after.per_pass[1:]), sum(after.bytes_per_pass[1:]))
        facts = read_graph(y, namespace.get("dy"))
        where = fired[-1] if fired and steps[-1].error_type else _refused(s, steps)
        drawing = trace_tensors(roots, leaves, where)
        made = {label: obj for _, label, obj, _ in roots if torch.is_tensor(obj)}  # last wins
        views = view(tuple(made.items()), tuple(leaves)) if view is not None else ()
    found = distinct(caught)
    explain, fixes = _explain(s, steps[1:], found, facts)
    snippet = "\n\n".join(step.code for step in steps) + "\n"
    summary = f"{s.create_graph},{s.retain_graph},{s.allow_unused},{s.materialize_grads},{s.unused_input},{s.action}"
    params = (("ops", ", ".join(facts.ops)), ("freed", ", ".join(facts.freed)))
    return FlagOutcome(
        "flags",
        summary,
        snippet,
        tuple(steps),
        found,
        explain,
        fixes,
        params,
        drawing,
        first_call,
        views,
    )


def _value(obj: object) -> float | None:
    return float(obj.detach()) if torch.is_tensor(obj) and obj.numel() == 1 else None


def _recorded(action: Callable[[], Printed], k: int, roots: list[Root]) -> Callable[[], Printed]:
    """``action``, and what it printed appended to ``roots`` as pass ``k`` (values as printed:
    ``x.grad`` may change in place later)."""

    def run() -> Printed:
        printed = action()
        roots.extend((k, label, obj, _value(obj)) for label, obj in printed)
        return printed

    return run


def _watch(fired: list[object], *tensors: object) -> list[object]:
    """Note every backward function of these tensors' graphs that a call enters: the last
    one entered before an error is the one that raised (its pre-hook runs first)."""
    handles = []
    for tensor in tensors:
        if torch.is_tensor(tensor):
            for fn in backward_functions(tensor.grad_fn):
                handles.append(fn.register_prehook(lambda grads, fn=fn: fired.append(fn)))
    return handles


def _refused(s: FlagSettings, steps: list[StepReport]) -> str:
    """The tensor PyTorch refused before walking any graph: the output with no grad_fn that a
    call was asked to differentiate, or the unused input; "" if none."""
    last = steps[-1]
    if "does not require grad" in last.error:
        return "dy" if len(steps) == 3 and s.action == "next" else "y"
    if "not have been used in the graph" in last.error:
        return "z"
    return ""


def _explain(
    s: FlagSettings, steps: list[StepReport], found: tuple[str, ...], facts: GraphFacts
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Choose the explanations and fixes from what happened and what the graph holds, not
    from what was expected."""
    explain, fixes = _explain_steps(s, steps, facts)
    if any("reference cycle" in w for w in found):  # whenever PyTorch gave the warning
        explain += ("graph.flag.explain.cycle",)
        fixes += ("graph.flag.fix.use_grad",)
    return explain, fixes


def _explain_steps(
    s: FlagSettings, steps: list[StepReport], facts: GraphFacts
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    key = "graph.flag.explain.{}".format
    fix = "graph.flag.fix.{}".format
    first = steps[0]
    if "does not require grad" in first.error:
        return (key("const_output"),), (fix("const_output"),)
    if "not have been used in the graph" in first.error:
        return (key("unused_error"),), (fix("unused"),)
    notes: list[str] = [key("backward_grad")] if s.action == "backward" else []
    if s.unused_input and s.action == "backward":
        notes.append(key("unused_backward"))
    elif s.unused_input:
        notes.append(key("unused_zero" if s.materialize_grads else "unused_none"))
    second = steps[1]
    if "second time" in second.error:
        if s.action == "next":  # create_graph=True, retain_graph=False: forward graph freed
            return (key("freed_forward"), key("freed_here"), *notes), (fix("retain_forward"),)
        name = "freed_default" if s.retain_graph is None else "freed_explicit"
        return (key(name), key("freed_here"), *notes), (fix("retain"),)
    if "does not require grad" in second.error:
        if s.create_graph:
            return (key("constant_trap"), *notes), (fix("constant"),)
        return (key("no_create_graph"), *notes), (fix("create_graph"),)
    if s.action == "next":
        # retain_graph=False freed the forward graph's saved tensors; dy's graph avoids them
        kept = (key("not_needed"),) if facts.freed and not facts.dy_reaches_freed else ()
        return (key("next_ok"), *kept, *notes), ()
    retained = s.create_graph if s.retain_graph is None else s.retain_graph
    if retained:
        why = (key("retain_default" if s.retain_graph is None else "retained"),)
    else:  # the second call ran on a graph that was not kept: there was nothing to free
        # y = x itself has no graph at all ("no_graph"): no function to name
        name = "nothing_saved" if facts.ops else "no_graph"
        why = (key(name),) if not facts.saved else ()
    if s.action == "again":
        return (*why, *notes), ()
    return (*why, key("accumulates"), *notes), (fix("zero_grad"),)
