"""The classic cases of the flag lab: the trap, then its fixes, each a script of a few steps.

Every variant's script is a function of :mod:`.gallery`; the page shows its body
(``inspect.getsource``) and :func:`run_steps` runs that same text, step by step (the blocks
between its blank lines), on one namespace. The tests also run every script on its own and
check it prints, raises and warns exactly as reported here.
Explanations and fixes are chosen by whether the variant raised (``*_error``) or ran
(``*_ok``), so the page stays truthful if a future PyTorch changes behaviour; the tests pin
today's behaviour.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import torch

from ..errors import ArgumentError
from ..graph_trace import Root
from . import gallery
from .case_drawing import drawing as trace_drawing
from .case_drawing import printed_roots, raised_at, value, watch
from .record import FlagOutcome, Isolate, StepReport, distinct, run_step
from .source import body, executed
from .source import steps as script_steps

__all__ = ["CASES", "Case", "Variant", "run_case"]

Namespace = dict[str, object]  # the script's variables, by name


@dataclass(frozen=True)
class Variant:
    """A variant of a case: its script (a function of :mod:`.gallery`, whose body is the code
    shown and run) and the explanations and fixes to show when it raised or ran.

    ``blame`` names the tensor to mark when the last step raises without entering the graph
    (``dz * 2`` on a None); a refused ``torch.autograd.grad(t, ...)`` call marks ``t`` by
    itself (:func:`.case_drawing.raised_at`).
    """

    script: Callable[[], None]
    explain_ok: tuple[str, ...] = ()
    explain_error: tuple[str, ...] = ()
    fix_ok: tuple[str, ...] = ()
    fix_error: tuple[str, ...] = ()
    blame: str = ""

    @property
    def code(self) -> str:
        """The script as the page shows it: the body of its function (``inspect.getsource``)."""
        return body(self.script)


@dataclass(frozen=True)
class Case:
    variants: dict[str, Variant]
    isolated: bool = False  # run in a fresh process: process-wide torch state or warn-once


def _keys(kind: str, *names: str) -> tuple[str, ...]:
    return tuple(f"graph.flag.{kind}.{name}" for name in names)


E, F = "explain", "fix"
g = gallery

CASES: dict[str, Case] = {
    # Second derivative without create_graph: dy is a tensor with no grad_fn, on no graph.
    "no_create_graph": Case(
        {
            "off": Variant(
                g.no_create_graph_off,
                explain_error=_keys(E, "no_create_graph"),
                fix_error=_keys(F, "create_graph"),
                explain_ok=_keys(E, "next_ok"),
            ),
            "on": Variant(
                g.no_create_graph_on,
                explain_ok=_keys(E, "next_ok"),
                explain_error=_keys(E, "no_create_graph"),
            ),
        }
    ),
    # The graph's saved tensors are freed by the first call unless retained.
    "freed_graph": Case(
        {
            "default": Variant(
                g.freed_graph_default,
                explain_error=_keys(E, "freed_default"),
                fix_error=_keys(F, "retain"),
                explain_ok=_keys(E, "retained"),
            ),
            "retain": Variant(
                g.freed_graph_retain,
                explain_ok=_keys(E, "retained"),
                explain_error=_keys(E, "freed_explicit"),
            ),
        }
    ),
    # retain_graph=None means "the same as create_graph".
    "retain_default": Case(
        {
            "create_graph": Variant(
                g.retain_default_create_graph,
                explain_ok=_keys(E, "retain_default"),
                explain_error=_keys(E, "freed_default"),
            ),
            "no_retain": Variant(
                g.retain_default_no_retain,
                explain_error=_keys(E, "freed_explicit"),
                fix_error=_keys(F, "retain"),
                explain_ok=_keys(E, "retained"),
            ),
            "no_retain_next": Variant(
                g.retain_default_no_retain_next,
                explain_error=_keys(E, "freed_forward"),
                fix_error=_keys(F, "retain_forward"),
                explain_ok=_keys(E, "next_ok"),
            ),
        }
    ),
    # An input the output does not use: an error, None, or an exact zero.
    "unused_input": Case(
        {
            "plain": Variant(
                g.unused_input_plain,
                explain_error=_keys(E, "unused_error"),
                fix_error=_keys(F, "unused"),
                explain_ok=_keys(E, "unused_none"),
            ),
            "allow_unused": Variant(
                g.unused_input_allow_unused,
                explain_error=_keys(E, "unused_none", "none_arith"),
                fix_error=_keys(F, "unused"),
                explain_ok=_keys(E, "unused_none"),
                blame="dz",
            ),
            "materialize": Variant(
                g.unused_input_materialize,
                explain_ok=_keys(E, "unused_zero"),
                explain_error=_keys(E, "unused_error"),
                blame="dz",
            ),
        }
    ),
    # dy has no grad_fn when its backward used no tensor that requires grad (2*x), so the next
    # grad raises; the zero "fix" is right only with create_graph=True (last variant: 0, not 12).
    "constant_trap": Case(
        {
            "linear": Variant(
                g.constant_trap_linear,
                explain_error=_keys(E, "constant_trap"),
                fix_error=_keys(F, "constant"),
                explain_ok=_keys(E, "next_ok"),
            ),
            "relu": Variant(
                g.constant_trap_relu,
                explain_ok=_keys(E, "relu_ok"),
                explain_error=_keys(E, "constant_trap"),
                fix_error=_keys(F, "constant"),
            ),
            "clamp": Variant(
                g.constant_trap_clamp,
                explain_error=_keys(E, "relu_clamp"),
                fix_error=_keys(F, "constant"),
                explain_ok=_keys(E, "relu_ok"),
            ),
            "fixed": Variant(
                g.constant_trap_fixed,
                explain_ok=_keys(E, "fixed_zero"),
                explain_error=_keys(E, "constant_trap"),
            ),
            "forgot": Variant(
                g.constant_trap_forgot,
                explain_ok=_keys(E, "fixed_forgot"),
                fix_ok=_keys(F, "create_graph"),
                explain_error=_keys(E, "no_create_graph"),
                fix_error=_keys(F, "create_graph"),
            ),
        }
    ),
    # .backward(create_graph=True): results land in x.grad, add up, and make a reference cycle.
    "backward_accumulates": Case(
        {
            "twice": Variant(
                g.backward_accumulates_twice,
                explain_ok=_keys(E, "accumulates", "cycle"),
                fix_ok=_keys(F, "zero_grad", "use_grad"),
                explain_error=_keys(E, "freed_default"),
            ),
            "reset": Variant(
                g.backward_accumulates_reset,
                explain_ok=_keys(E, "reset", "cycle"),
                fix_ok=_keys(F, "use_grad"),
                explain_error=_keys(E, "freed_default"),
            ),
            "grad": Variant(
                g.backward_accumulates_grad,
                explain_ok=_keys(E, "grad_returns"),
                explain_error=_keys(E, "freed_default"),
            ),
        },
        isolated=True,
    ),  # PyTorch gives the reference-cycle warning once per process
    # Changing a tensor in place after a function saved it for backward.
    "inplace": Case(
        {
            "inplace": Variant(
                g.inplace_inplace,
                explain_error=_keys(E, "inplace"),
                fix_error=_keys(F, "inplace"),
                explain_ok=_keys(E, "out_of_place"),
            ),
            "out_of_place": Variant(
                g.inplace_out_of_place,
                explain_ok=_keys(E, "out_of_place"),
                explain_error=_keys(E, "inplace"),
            ),
        }
    ),
    # NaN gradients: silent without anomaly detection, located with it.
    "nan_anomaly": Case(
        {
            "sqrt": Variant(
                g.nan_anomaly_sqrt,
                explain_error=_keys(E, "nan_silent", "anomaly"),
                fix_error=_keys(F, "nan_sqrt"),
                explain_ok=_keys(E, "nan_silent"),
            ),
            "log": Variant(
                g.nan_anomaly_log,
                explain_error=_keys(E, "nan_silent", "anomaly"),
                fix_error=_keys(F, "nan_where"),
                explain_ok=_keys(E, "nan_silent"),
            ),
            "log_fixed": Variant(
                g.nan_anomaly_log_fixed,
                explain_ok=_keys(E, "double_where"),
                explain_error=_keys(E, "anomaly"),
            ),
        },
        isolated=True,
    ),  # detect_anomaly is a process-wide switch
}


# ----------------------------------------------------------------------------------------------
# Running a case


def run_case(case: str, variant: str | None = None, isolate: Isolate | None = None) -> FlagOutcome:
    """Run one classic case of the flag lab.

    Args:
        case: a name from :data:`CASES`.
        variant: one of the case's variants (the first, the trap itself, when omitted).
        isolate: runs an isolated case (``detect_anomaly`` switches the whole process) in a
            fresh process; by default it runs here.

    Returns:
        A :class:`hograd_core.flaglab.flags.FlagOutcome`.

    Raises:
        ArgumentError: unknown case or variant.

    Example:
        >>> run_case("freed_graph").error[:44]
        'Trying to backward through the graph a secon'
    """
    if case not in CASES:
        raise ArgumentError("graph.flag.case", known=", ".join(CASES), got=case)
    variant = variant or next(iter(CASES[case].variants))
    if variant not in CASES[case].variants:
        known = ", ".join(CASES[case].variants)
        raise ArgumentError("graph.flag.variant", known=known, got=variant)
    if isolate is not None and CASES[case].isolated:
        return isolate({"kind": "case", "case": case, "variant": variant})
    return run_steps(case, variant)


def run_steps(case: str, variant: str) -> FlagOutcome:
    """Run a variant's steps in this process, on a fresh namespace, warnings recorded.

    The outcome's ``drawing`` is the graph of the tensors the run printed, traced after its
    last step as the flag lab traces its own runs: step k's results in the colour of pass k
    (``y`` always in the forward pass's), freed saved tensors greyed, and the node where the
    run raised marked (the backward function PyTorch entered last, or the refused tensor).
    """
    spec = CASES[case].variants[variant]
    code = spec.code
    parts = script_steps(code)
    namespace: Namespace = {}
    steps: list[StepReport] = []
    roots: list[Root] = []
    fired: list[object] = []  # backward functions the running step entered, in order
    line = 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for k, part in enumerate(parts):
            fired.clear()
            handles = watch(fired, namespace)
            steps.append(run_step(part, line, executed(part, namespace)))
            for handle in handles:
                handle.remove()
            if k == 0 and torch.is_tensor(namespace.get("y")):
                roots.append((0, "y", namespace["y"], value(namespace["y"])))
            else:
                roots += printed_roots(k, steps[-1], namespace)
            line += part.count("\n") + 2  # a blank line between steps
            if steps[-1].error_type:
                break
        y = namespace.get("y")
        if torch.is_tensor(y) and all(obj is not y for _, _, obj, _ in roots):
            roots.append((0, "y", y, value(y)))  # made by the step that raised
        failed = steps[-1].error_type != ""
        last = parts[len(steps) - 1]
        where = raised_at(last, spec.blame, steps[-1], fired, y) if failed else None
        drawing = trace_drawing(roots, namespace, where)
    found = tuple(_first_sentence(w) for w in distinct(caught))
    raised = bool(steps[-1].error_type)
    explain = spec.explain_error if raised else spec.explain_ok
    fixes = spec.fix_error if raised else spec.fix_ok
    return FlagOutcome(case, variant, code, tuple(steps), found, explain, fixes, drawing=drawing)


def _first_sentence(message: str) -> str:
    """detect_anomaly's warning without its traceback, which here would show hograd's frames.

    (Run as a script, the snippet's own warning shows the line of its forward pass.)
    """
    head = "Error detected in "
    return message.split(". Traceback", 1)[0] + "." if message.startswith(head) else message
