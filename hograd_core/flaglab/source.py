"""The code a flag-lab run shows is the code it runs: functions' own source, run step by step.

A classic case's script is the body of its function in :mod:`.gallery` (:func:`body`); a
flag-lab call is the body of its function in :mod:`.calls` with the page's settings filled in
(:func:`filled`: a keyword argument at its default left out, the others written as values).
Either text is cut into steps at its blank lines (:func:`steps`) and each step is run as
written (:func:`executed`), in one namespace, with ``print`` recording what it was given.
"""

from __future__ import annotations

import ast
import inspect
import sys
import textwrap
from collections.abc import Callable

from .record import STEP_FILE, Printed

__all__ = ["STEP_FILE", "body", "executed", "filled", "steps"]

Namespace = dict[str, object]


def _definition(fn: Callable) -> ast.FunctionDef:
    source = textwrap.dedent(inspect.getsource(fn))
    node = ast.parse(source).body[0]
    assert isinstance(node, ast.FunctionDef), fn
    return node


def body(fn: Callable) -> str:
    """The body of ``fn`` as written in its source (blank lines kept), dedented, with a final
    newline; the ``def`` line is left out."""
    lines = textwrap.dedent(inspect.getsource(fn)).splitlines()
    first = _definition(fn).body[0].lineno - 1  # the def line may span several lines
    return textwrap.dedent("\n".join(lines[first:])).strip("\n") + "\n"


class _Fill(ast.NodeTransformer):
    """Keyword arguments ``name=parameter``: left out when the value is the parameter's
    default, else the value itself; other uses of a renamed parameter renamed."""

    def __init__(
        self, values: dict[str, object], defaults: dict[str, object], names: dict[str, str]
    ) -> None:
        self.values, self.defaults, self.names = values, defaults, names

    def visit_Call(self, node: ast.Call) -> ast.Call:
        self.generic_visit(node)
        kept = []
        for kw in node.keywords:
            name = kw.value.id if isinstance(kw.value, ast.Name) else None
            if name in self.values:
                if self.values[name] == self.defaults.get(name, inspect.Parameter.empty):
                    continue
                kw.value = ast.Constant(self.values[name])
            kept.append(kw)
        node.keywords = kept
        return node

    def visit_Name(self, node: ast.Name) -> ast.Name:
        if node.id in self.names:
            node.id = self.names[node.id]
        return node


def filled(fn: Callable, names: dict[str, str] | None = None, **values: object) -> str:
    """The body of ``fn`` with the settings ``values`` filled in, as :class:`_Fill` says, and
    its parameters renamed by ``names`` (``{"x": "t"}``), written back by ``ast.unparse``
    (a step of a script: no final newline).

    Example:
        >>> from hograd_core.flaglab.calls import grad_of_y
        >>> filled(grad_of_y, create_graph=True, retain_graph=None)
        'dy = torch.autograd.grad(y, x, create_graph=True)[0]\\nprint(dy)'
    """
    defaults = {
        name: p.default
        for name, p in inspect.signature(fn).parameters.items()
        if p.default is not inspect.Parameter.empty
    }
    unknown = set(values) - set(inspect.signature(fn).parameters)
    assert not unknown, (fn, unknown)
    # a setting not given is the parameter's default: left out, never a dangling name
    node = _Fill({**defaults, **values}, defaults, names or {}).visit(_definition(fn))
    return "\n".join(ast.unparse(statement) for statement in node.body)


def steps(text: str) -> list[str]:
    """``text`` cut at its blank lines; a block of imports only joins the block after it
    (with its blank line), so the first step sets up: imports, then the tensors."""
    blocks = [block for block in text.strip("\n").split("\n\n")]
    out: list[str] = []
    for block in blocks:
        if out and all(line.startswith("import ") for line in out[-1].splitlines()):
            out[-1] += "\n\n" + block
        else:
            out.append(block)
    return out


def _printed_names(code: str) -> dict[int, tuple[str, ...]]:
    """For each line with a ``print`` call, the source text of its arguments (the names the
    printed values are shown under: ``dy``, ``x.grad``, ``dz * 2``)."""
    out: dict[int, tuple[str, ...]] = {}
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "print":
            out[node.lineno] = tuple(ast.get_source_segment(code, a) or "" for a in node.args)
    return out


def executed(code: str, namespace: Namespace) -> Callable[[], Printed]:
    """A step's action: runs ``code`` as written in ``namespace`` (which keeps its variables
    for the steps after it) and returns what its ``print`` calls were given, by name."""
    names = _printed_names(code)
    compiled = compile(code, STEP_FILE, "exec")

    def run() -> Printed:
        printed: list[tuple[str, object]] = []

        def record(*objects: object) -> None:
            line = sys._getframe(1).f_lineno  # the print call's line in the step
            printed.extend(zip(names[line], objects, strict=True))

        namespace["print"] = record
        try:
            exec(compiled, namespace)  # the lab's own code: the text it shows
        finally:
            del namespace["print"]
        return tuple(printed)

    return run
