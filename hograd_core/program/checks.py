"""The program runner's checks: the syntax it accepts and the budgets, before any work.

:func:`check_tree` reads the whole parsed program before its first line runs and refuses any
construct outside the subset (a ``while`` loop, a class, a dunder, ``import os``, ``torch.load``,
``getattr``): nothing of such a program runs. The budget checks (:func:`elements`,
:func:`int_power`, ...) are called by the interpreter before each operation that could take
much time or memory, with the sizes it is about to ask for.
"""

from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass

from ..errors import BudgetError, HogradError
from . import allow

__all__ = [
    "BUDGET",
    "ProgramBudget",
    "ProgramError",
    "check_text",
    "check_tree",
    "elements",
    "format_spec",
]


class ProgramError(HogradError):
    """A construct outside the subset of Python and PyTorch the program runner runs."""


@dataclass(frozen=True)
class ProgramBudget:
    """Limits of one program's run, each checked before the work it bounds."""

    max_chars: int = 6_000  # characters of the program
    max_lines: int = 200  # lines of the program
    max_nesting: int = 40  # depth of its syntax tree (the interpreter recurses on it)
    max_elements: int = 1_000_000  # elements of one tensor (8 MB in float64)
    max_total_elements: int = 50_000_000  # elements of every tensor made, in all
    max_loop: int = 10_000  # length of a range()
    max_steps: int = 200_000  # statements, calls and comprehension items, in all
    max_depth: int = 16  # calls of the program's own functions in progress
    max_graph: int = 20_000  # autograd nodes behind what a differentiating call differentiates
    max_output: int = 20_000  # characters printed
    max_int_bits: int = 65_536  # bits of an integer result (about 20,000 digits)
    max_sequence: int = 100_000  # items of one list, tuple or string
    max_total_items: int = 2_000_000  # items of every list, tuple or string made, in all
    max_width: int = 1_000  # a width or precision in a format spec


BUDGET = ProgramBudget()

#: Syntax the runner executes; any other node type is refused with its name.
NODES = frozenset(
    {
        ast.Module, ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Import, ast.ImportFrom, ast.alias,
        ast.If, ast.For, ast.FunctionDef, ast.Lambda, ast.Return, ast.Pass, ast.Break,
        ast.Continue, ast.With, ast.withitem, ast.Assert, ast.Delete, ast.arguments, ast.arg,
        ast.Name, ast.Constant, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.Call,
        ast.keyword, ast.Attribute, ast.Subscript, ast.Slice, ast.Tuple, ast.List, ast.Dict,
        ast.ListComp, ast.DictComp, ast.GeneratorExp, ast.comprehension, ast.IfExp,
        ast.JoinedStr, ast.FormattedValue, ast.Starred, ast.Load, ast.Store, ast.Del,
        ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.MatMult,
        ast.LShift, ast.RShift, ast.BitAnd, ast.BitOr, ast.BitXor, ast.USub, ast.UAdd,
        ast.Not, ast.Invert, ast.And, ast.Or, ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt,
        ast.GtE, ast.Is, ast.IsNot, ast.In, ast.NotIn,
    }
)  # fmt: skip

#: What the learner is told a refused node is ("a while loop").
NODE_NAMES = {
    "While": "while",
    "ClassDef": "class",
    "Try": "try",
    "TryStar": "try",
    "Raise": "raise",
    "Global": "global",
    "Nonlocal": "nonlocal",
    "Yield": "yield",
    "YieldFrom": "yield from",
    "Await": "await",
    "AsyncFunctionDef": "async def",
    "AsyncFor": "async for",
    "AsyncWith": "async with",
    "NamedExpr": ":=",
    "Match": "match",
    "SetComp": "set comprehension",
    "Set": "set",
}

#: Refusals that say what to write instead: a while loop as a bounded for loop, and no
#: try/except (an error already stops the run with Python's message at its line).
_HINTED = {
    ast.While: "code.refuse.while",
    ast.Try: "code.refuse.try",
    ast.TryStar: "code.refuse.try",
}

#: Every attribute name that some allowed value has: any other is refused before the run.
_ATTRIBUTE_NAMES = frozenset(
    {n.rsplit(".", 1)[1] for n in allow.NAMES if "." in n}
    | {a for names in allow.ATTRIBUTES.values() for a in names}
    | {m for names in allow.METHODS.values() for m in names}
)
_DIGITS = re.compile(r"\d+")


def _refuse(key: str, node: ast.AST | None = None, **params: object) -> ProgramError:
    line = getattr(node, "lineno", 0)
    return ProgramError(key, line=line, **params)


def check_text(text: str, budget: ProgramBudget = BUDGET) -> None:
    """Refuse a program longer than the budget, before it is parsed."""
    if len(text) > budget.max_chars:
        raise BudgetError("code.budget.chars", limit=f"{budget.max_chars:,}", got=f"{len(text):,}")
    lines = text.count("\n") + 1
    if lines > budget.max_lines:
        raise BudgetError("code.budget.lines", limit=budget.max_lines, got=lines)


def _dotted(node: ast.AST) -> str | None:
    """``torch.autograd.grad`` for that chain of attributes on a name, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


def _name(name: str, node: ast.AST) -> None:
    if name.startswith("__") or name in allow.REFUSED_NAMES:
        raise _refuse("code.refuse.name", node, name=name)


def _import(node: ast.Import | ast.ImportFrom, modules: dict[str, str]) -> None:
    """Check an import and note the names it binds to modules."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name not in allow.MODULES:
                raise _refuse("code.refuse.import", node, name=alias.name)
            bound = alias.asname or alias.name.split(".")[0]
            modules[bound] = alias.name if alias.asname else bound
        return
    module = node.module or ""
    if any(alias.name == "*" for alias in node.names):
        raise _refuse("code.refuse.syntax", node, construct=f"from {module} import *")
    if node.level or module not in allow.MODULES:
        raise _refuse("code.refuse.import", node, name="." * node.level + module)
    for alias in node.names:
        full = f"{module}.{alias.name}"
        if full not in allow.NAMES:
            raise _refuse("code.refuse.import", node, name=full)
        if full in allow.MODULES:
            modules[alias.asname or alias.name] = full


def _resolved(node: ast.Attribute, modules: dict[str, str]) -> str | None:
    """``th.__version__`` as ``torch.__version__`` when ``th`` names torch."""
    path = _dotted(node)
    if path is None:
        return None
    root, _, rest = path.partition(".")
    return f"{modules[root]}.{rest}" if root in modules else None


def _chain(node: ast.Attribute, modules: dict[str, str]) -> None:
    """Refuse ``torch.load``: a name of a module that the allow-list does not hold."""
    path = _dotted(node)
    if path is None:
        return
    root, *rest = path.split(".")
    if root not in modules:
        return
    where = modules[root]
    for part in rest:
        full = f"{where}.{part}"
        if full not in allow.NAMES:
            raise _refuse("code.refuse.attribute", node, name=full)
        if full not in allow.MODULES:
            return  # past the modules: what follows is an attribute of a value
        where = full


def _children(node: ast.AST) -> list[ast.AST]:
    """A node's children, its type hints left out: the runner never evaluates a hint
    (``def f(x: torch.Tensor) -> float``, ``lr: float = 0.1``), so they are not checked."""
    hints = {id(getattr(node, name, None)) for name in ("annotation", "returns")} - {id(None)}
    return [child for child in ast.iter_child_nodes(node) if id(child) not in hints]


def check_tree(tree: ast.Module, budget: ProgramBudget = BUDGET) -> None:
    """Refuse the program if any node of it is outside the subset (before anything runs).

    Raises:
        ProgramError: the first refused construct, with its line.
        BudgetError: the syntax tree is nested deeper than ``budget.max_nesting``.
    """
    modules = {"torch": "torch", "math": "math"}  # names bound to modules by imports
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            _import(node, modules)
    found: list[tuple[int, int, int, ast.AST]] = []
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > budget.max_nesting:
            raise BudgetError("code.budget.nesting", limit=budget.max_nesting)
        where = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0), -depth)
        found.append((*where, node))  # type: ignore[arg-type]
        stack.extend((child, depth + 1) for child in _children(node))
    # a keyword argument outside the list is refused here when the call is of torch or a
    # builtin by name (``torch.ones(1, device=...)``, ``print(file=...)``); any other call
    # (``f(x, a=2)`` of the program's own function, ``"{n}".format(n=1)``, a method) is
    # checked when it is made: its callee is known then (interpret.Interpreter.call)
    named = {
        id(k)
        for *_, n in found
        if isinstance(n, ast.Call) and _outside(n.func, modules)
        for k in n.keywords
    }
    # in reading order, the innermost first where several start together: ``open(...).read``
    # is refused for ``open``
    for *_, node in sorted(found, key=lambda f: f[:3]):
        _check_node(node, modules, named)


def _outside(func: ast.expr, modules: dict[str, str]) -> bool:
    """Whether a call's function is torch's, math's or a builtin, by its spelling
    (``dict(lr=0.1, steps=5)`` takes any names)."""
    if isinstance(func, ast.Name):
        return func.id in allow.BUILTINS and func.id != "dict"
    path = _dotted(func)
    return path is not None and path.split(".")[0] in modules


def _check_node(node: ast.AST, modules: dict[str, str], named: set[int]) -> None:
    kind = type(node)
    if kind in _HINTED:  # refused with a hint of what to write instead
        raise _refuse(_HINTED[kind], node, construct=NODE_NAMES[kind.__name__])
    if kind not in NODES:
        name = NODE_NAMES.get(kind.__name__, kind.__name__)
        raise _refuse("code.refuse.syntax", node, construct=name)
    if isinstance(node, ast.Name):
        _name(node.id, node)
    elif isinstance(node, ast.Attribute):
        version = node.attr == "__version__" and _resolved(node, modules) == "torch.__version__"
        if not version and (node.attr.startswith("_") or node.attr not in _ATTRIBUTE_NAMES):
            raise _refuse("code.refuse.attribute", node, name="." + node.attr)
        _chain(node, modules)
    elif isinstance(node, ast.keyword):
        if node.arg is None:
            raise _refuse("code.refuse.syntax", node, construct="**")
        if node.arg not in allow.KEYWORDS and id(node) in named:
            raise _refuse("code.refuse.keyword", node, name=node.arg)
    elif isinstance(node, ast.FunctionDef):
        _name(node.name, node)
        if node.decorator_list:
            decorator = node.decorator_list[0]
            raise _refuse("code.refuse.syntax", decorator, construct="@" + ast.unparse(decorator))
    elif isinstance(node, ast.arguments):
        if node.vararg is not None:
            raise _refuse("code.refuse.syntax", node.vararg, construct="*" + node.vararg.arg)
        if node.kwarg is not None:
            raise _refuse("code.refuse.syntax", node.kwarg, construct="**" + node.kwarg.arg)
    elif isinstance(node, ast.arg):
        _name(node.arg, node)
    elif isinstance(node, ast.AnnAssign) and not isinstance(node.target, ast.Name):
        raise _refuse("code.refuse.syntax", node, construct=ast.unparse(node.target) + ":")
    elif isinstance(node, ast.alias):
        _name(node.asname or node.name, node)
    elif isinstance(node, ast.Constant) and isinstance(node.value, bytes | complex):
        raise _refuse("code.refuse.syntax", node, construct=type(node.value).__name__)
    elif isinstance(node, ast.With):
        if any(item.optional_vars is not None for item in node.items):
            raise _refuse("code.refuse.syntax", node, construct="with ... as")
    elif isinstance(node, ast.comprehension) and node.is_async:
        raise _refuse("code.refuse.syntax", node, construct="async for")


def elements(call: str, count: int, budget: ProgramBudget = BUDGET) -> None:
    """Refuse a tensor of ``count`` elements (before it is made)."""
    if count > budget.max_elements:
        raise BudgetError(
            "code.budget.elements", call=call, got=f"{count:,}", limit=f"{budget.max_elements:,}"
        )


def format_spec(spec: str, budget: ProgramBudget = BUDGET) -> None:
    """Refuse a width or precision past ``budget.max_width`` (``{x:>100000}``)."""
    for digits in _DIGITS.findall(spec):
        if len(digits) > 6 or int(digits) > budget.max_width:
            raise BudgetError("code.budget.width", got=digits[:12], limit=budget.max_width)


def int_bits(a: int, b: int, op: str, budget: ProgramBudget = BUDGET) -> None:
    """Refuse an integer operation whose result would pass ``budget.max_int_bits``."""
    if op == "**":
        bits = 0 if abs(a) <= 1 or b <= 0 else a.bit_length() * b
    elif op == "*":
        bits = a.bit_length() + b.bit_length()
    else:  # <<
        bits = a.bit_length() + max(b, 0) if a else 0
    if bits > budget.max_int_bits:
        raise BudgetError("code.budget.int", op=op, limit=f"{budget.max_int_bits:,}")


def product(sizes: object) -> int:
    """The number of elements of a shape given as numbers (negative sizes count as 0)."""
    return math.prod(max(int(s), 0) for s in sizes)  # type: ignore[union-attr]
