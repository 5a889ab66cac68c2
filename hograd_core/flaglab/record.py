"""What a flag-lab run records: each step's code, what it printed or raised, and the outcome.

Shared by the flag lab's own runs (:mod:`.flags`) and the classic cases (:mod:`.cases`); every
result is made of primitives, so it can be cached, pickled and sent between processes.
"""

from __future__ import annotations

import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import torch

from ..autograd_walk import walk
from ..graph_trace import TensorGraph

__all__ = [
    "ERRORS",
    "STEP_FILE",
    "FlagOutcome",
    "Isolate",
    "Printed",
    "StepReport",
    "TensorReport",
    "View",
    "backward_functions",
    "distinct",
    "report",
    "run_step",
]

ERRORS = (RuntimeError, ValueError, TypeError)  # what misused autograd calls raise

#: The file name a step's code is compiled under (:mod:`.source`): the line that raised is
#: read from the traceback's frame with this name.
STEP_FILE = "<flag lab step>"


@dataclass(frozen=True)
class TensorReport:
    """One printed result: ``value`` None means the result was None (not a tensor)."""

    name: str
    value: float | None
    requires_grad: bool
    grad_fn: str  # type of its grad_fn, "" if it has none


@dataclass(frozen=True)
class StepReport:
    """One step of a snippet: its code, what it printed, or the error it raised.

    Attributes:
        code: the lines of the snippet this step is.
        output: what its ``print`` calls printed, one string per call.
        results: the printed tensors, for display.
        error_type: e.g. "RuntimeError", "" if the step ran.
        error: PyTorch's own message, "" if the step ran.
        error_line: the line of the whole snippet that raised (1-based), 0 if none.
    """

    code: str
    output: tuple[str, ...] = ()
    results: tuple[TensorReport, ...] = ()
    error_type: str = ""
    error: str = ""
    error_line: int = 0


@dataclass(frozen=True)
class FlagOutcome:
    """A run of the flag lab.

    Attributes:
        case: "flags" for :func:`run_flags`, else the case name.
        variant: the variant of the case (for "flags", a summary of the settings).
        snippet: the exact runnable code (``import torch`` included): its steps joined by
            blank lines.
        steps: the steps that ran; the last one may have raised.
        warnings: distinct warning messages raised while it ran, in order.
        explain: translation keys of the explanations, most important first.
        fixes: translation keys of the fixes (empty when nothing needs fixing).
        params: values for the placeholders of those texts, read from the real graph (which
            backward functions it has, which saved tensors the run freed), as (name, value).
        drawing: the graph of the run's real tensors after it ran (y, the first call's results,
            the second's), traced as the graph page traces; None for the classic cases.
        first_call: backward functions the first call added to the graph, and the bytes of
            the tensors they saved, counted right after it (0, 0 without create_graph).
        views: what the caller's ``view`` function made of the run's tensors (see
            :func:`run_flags`), as (name, text) pairs; empty without one.
    """

    case: str
    variant: str
    snippet: str
    steps: tuple[StepReport, ...]
    warnings: tuple[str, ...]
    explain: tuple[str, ...]
    fixes: tuple[str, ...]
    params: tuple[tuple[str, str], ...] = ()
    drawing: TensorGraph | None = None
    first_call: tuple[int, int] = (0, 0)
    views: tuple[tuple[str, str], ...] = ()

    @property
    def raised(self) -> bool:
        return bool(self.steps and self.steps[-1].error_type)

    @property
    def error(self) -> str:
        return self.steps[-1].error if self.raised else ""

    def transcript(self) -> str:
        """The run as an interactive session: ``>>>`` code, what it printed, the error."""
        out: list[str] = []
        start = 1
        for step in self.steps:
            printed = list(step.output)
            for number, text in enumerate(step.code.splitlines(), start=start):
                if step.error_line and number > step.error_line:
                    break
                if text.strip() and not text.startswith("import "):
                    more = text[:1].isspace() or text.startswith(("else", "elif"))
                    out.append(("... " if more else ">>> ") + text)
                if text.startswith("print(") and printed:
                    out.append(printed.pop(0))
            out.extend(printed)
            if step.error_type:
                out.append(f"{step.error_type}: {step.error}")
            start += step.code.count("\n") + 2  # steps are separated by one blank line
        return "\n".join(out)


def report(name: str, obj: object) -> TensorReport | None:
    """A :class:`TensorReport` of a printed object (None for anything but None or a scalar)."""
    if obj is None:
        return TensorReport(name, None, False, "")
    if not torch.is_tensor(obj) or obj.numel() != 1:
        return None
    grad_fn = type(obj.grad_fn).__name__ if obj.grad_fn is not None else ""
    return TensorReport(name, float(obj.detach()), obj.requires_grad, grad_fn)


def distinct(caught: list[warnings.WarningMessage]) -> tuple[str, ...]:
    """The messages of recorded warnings, each once, in order."""
    return tuple(dict.fromkeys(str(item.message) for item in caught))


Printed = tuple[tuple[str, object], ...]  # (name in the snippet, object) for one print call


def run_step(code: str, start: int, action: Callable[[], Printed]) -> StepReport:
    """Run one step of a script; ``action`` runs it (:func:`.source.executed`) and returns
    what it printed.

    ``start`` is the step's first line in the whole script. The line that raised is the
    step's line that PyTorch's error passed through last (the frame compiled under
    :data:`STEP_FILE`).
    """
    try:
        printed = action()
    except ERRORS as err:
        frames = [f for f in traceback.extract_tb(err.__traceback__) if f.filename == STEP_FILE]
        line = start + (frames[-1].lineno - 1 if frames else 0)
        return StepReport(code, error_type=type(err).__name__, error=str(err), error_line=line)
    text = " ".join(str(obj) for _, obj in printed)  # what print(a, b) writes
    reports = tuple(r for r in (report(n, o) for n, o in printed) if r is not None)
    return StepReport(code, (text,) if printed else (), reports)


def backward_functions(root: object | None) -> list[object]:
    """Every backward function reachable from ``root`` (depth first, each once)."""
    return walk([root]).nodes


#: Looks at a run's real tensors at its end: gets the results by name (``y``, ``dy``, ...,
#: those that are tensors, in order) and the leaves by name, returns (name, text) pairs (for
#: the page: torchviz's DOT source of the same objects). Passed in by the caller.
View = Callable[
    [tuple[tuple[str, torch.Tensor], ...], tuple[tuple[str, torch.Tensor], ...]],
    tuple[tuple[str, str], ...],
]

#: Runs a flag-lab request (a JSON-able dict, see :mod:`hograd_core.flaglab.isolated`) in a
#: fresh process and returns its outcome; the server passes one in, the core never starts one.
Isolate = Callable[[dict], "FlagOutcome"]
