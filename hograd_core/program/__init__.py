"""Run a short autograd program as written, line by line, safely (the code lab's kernel).

:func:`run_program` parses the text with :mod:`ast`, refuses it whole if any construct is
outside the subset (:mod:`.checks`), then interprets it statement by statement
(:mod:`.interpret`) and records after each top-level statement what it printed, every
variable and the autograd graph behind each tensor (:mod:`.record`). A statement that raises
ends the run there, as Python would, with Python's own message at its line.

The run changes no state that outlives it: the random generator is restored afterwards
(``torch.manual_seed`` in a program seeds it for that program only), and so is grad mode.
The time and memory a run may take are bounded from outside, by the child process
``hograd_serving.code_child`` runs it in.

Example:
    >>> lines = run_program("import torch\\nx = torch.tensor(2.0)\\nprint(x * 3)")
    >>> lines[-1].output
    'tensor(6.)\\n'
"""

from __future__ import annotations

import ast
import traceback
import warnings
from collections.abc import Callable

import torch

from ..errors import HogradError
from ..graph_trace import TensorGraph
from .checks import BUDGET, ProgramBudget, ProgramError, check_text, check_tree
from .interpret import Interpreter
from .record import MAX_GRAPHS, LineRecord, RunError, Variable, graph_of, line_from, variable

__all__ = [
    "BUDGET",
    "LineRecord",
    "ProgramBudget",
    "ProgramError",
    "RunError",
    "Variable",
    "line_from",
    "parse_program",
    "run_program",
]


#: Variables a line's record lists (the first assigned).
MAX_VARIABLES = 30
#: Graph nodes a run's records hold in all; later graphs are recorded by their size.
MAX_DRAWN = 20_000
#: Characters of a warning a record keeps.
MAX_WARNING = 400


def parse_program(text: str, budget: ProgramBudget = BUDGET) -> ast.Module:
    """The checked syntax tree of a program.

    Raises:
        BudgetError: the text is too long or nested too deep.
        ProgramError: a construct outside the subset (the first one, with its line).
        SyntaxError: the text is not Python (Python's own error).
    """
    check_text(text, budget)
    try:
        tree = ast.parse(text, filename="<program>", mode="exec")  # named as Python names it
    except (RecursionError, MemoryError):
        raise ProgramError("code.refuse.syntax", line=0, construct="nesting") from None
    check_tree(tree, budget)
    return tree


def _error_text(err: BaseException) -> str:
    return "".join(traceback.format_exception_only(type(err), err)).rstrip("\n")


def run_program(
    text: str,
    budget: ProgramBudget = BUDGET,
    on_line: Callable[[LineRecord], None] | None = None,
) -> list[LineRecord]:
    """Run ``text`` and record each top-level statement.

    A program that cannot be parsed or is refused gives one record (line 0 for a refusal of
    the whole text) with the error and no output: nothing of it ran.

    Args:
        text: the program.
        budget: its limits.
        on_line: called with each record as soon as it is made (a child process streams them).

    Returns:
        The records, in order; the last one has ``error`` set if the run stopped early.
    """
    out: list[LineRecord] = []

    def emit(record: LineRecord) -> None:
        out.append(record)
        if on_line is not None:
            on_line(record)

    try:
        tree = parse_program(text, budget)
    except SyntaxError as err:
        emit(
            LineRecord(
                err.lineno or 0,
                err.lineno or 0,
                "",
                "",
                (),
                (),
                RunError(err.lineno or 0, _error_text(err)),
            )
        )
        return out
    except HogradError as err:
        line = int(err.params.get("line", 0))  # type: ignore[arg-type]
        emit(
            LineRecord(
                line, line, "", "", (), (), RunError(line, key=err.key, params=_plain(err.params))
            )
        )
        return out
    lines = text.splitlines()
    printed: list[str] = []
    interp = Interpreter(budget, printed.append)
    caught = warnings.catch_warnings(record=True)
    with torch.random.fork_rng(devices=[]), torch.enable_grad(), caught as shown:
        warnings.simplefilter("always")
        for stmt in tree.body:
            error = None
            try:
                interp.execute(stmt, interp.scope)
            except HogradError as err:
                line = int(err.params.get("line", interp.line))  # type: ignore[arg-type]
                error = RunError(
                    line, key=err.key, params=_plain(err.params), variable=interp.raised_on
                )
            except RecursionError:
                error = RunError(
                    interp.line,
                    key="code.budget.depth",
                    params={"name": "", "limit": budget.max_depth},
                )
            except MemoryError:
                error = RunError(interp.line, key="code.budget.memory", params={})
            except Exception as err:  # the program's own error, as Python shows it
                error = RunError(interp.line, _error_text(err), variable=interp.raised_on)
            end = stmt.end_lineno or stmt.lineno
            source = "\n".join(lines[stmt.lineno - 1 : end])
            said = tuple(f"{w.category.__name__}: {w.message}"[:MAX_WARNING] for w in shown[:4])
            shown.clear()
            emit(_record(interp, stmt.lineno, end, source, "".join(printed), error, said))
            printed.clear()
            if error is not None:
                break
    return out


def _plain(params: dict) -> dict:
    return {k: v if isinstance(v, int | float | str) else str(v) for k, v in params.items()}


def _record(
    interp: Interpreter,
    line: int,
    end: int,
    source: str,
    output: str,
    error: RunError | None,
    said: tuple[str, ...],
) -> LineRecord:
    names = dict(interp.scope.names)
    shown = {n: v for n, v in names.items() if not _hidden(v)}
    variables = tuple(variable(n, v) for n, v in list(shown.items())[:MAX_VARIABLES])
    graphs = []
    raised = error.variable if error is not None else ""
    for name in sorted(shown, key=lambda n: n != raised)[: MAX_GRAPHS + 1]:
        graph = graph_of(name, shown, interp.pass_of, raised if name == raised else "")
        if isinstance(graph, TensorGraph):
            interp.drawn += len(graph.nodes)
            if interp.drawn > MAX_DRAWN:  # the run's records stay small: sizes only from here
                graph = len(graph.nodes)
        if graph is not None and len(graphs) < MAX_GRAPHS:
            graphs.append((name, graph))
    return LineRecord(line, end, source, output, variables, tuple(graphs), error, said)


def _hidden(value: object) -> bool:
    """Modules and torch's functions: not variables of the program."""
    from .interpret import Namespace, _Allowed, _Builtin

    return isinstance(value, Namespace | _Allowed | _Builtin)
