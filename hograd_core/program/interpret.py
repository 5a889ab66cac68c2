"""The program runner: a short autograd program, run node by node against the allow-lists.

The program is parsed with :mod:`ast`, checked whole (:func:`.checks.check_tree`), then each
statement is interpreted here: names are looked up in the program's own scopes, torch and math
only through :data:`.allow.NAMES`, attributes and methods only those :mod:`.allow` lists for
the value's kind. Nothing is handed to ``eval``, ``exec`` or ``compile``; the operations
themselves are PyTorch's and Python's own (``operator.add``, ``torch.sin``, ``format``), so
what a program prints and raises is what CPython prints and raises for the same text.

Budgets are checked before the work they bound: sizes of new tensors and of broadcast results,
range lengths, integer sizes, sequence lengths, format widths, calls in progress, the graph
behind a differentiating call, the characters printed.
"""

from __future__ import annotations

import ast
import builtins
import math
import operator
import string
import sys
import weakref
from collections.abc import Iterator
from dataclasses import dataclass

import torch

from ..autograd_walk import inputs
from ..errors import BudgetError
from . import allow
from .binding import bind
from .checks import BUDGET, ProgramBudget, ProgramError, elements, format_spec, int_bits, product

__all__ = ["Interpreter", "Namespace", "UserFunction"]

_BINARY = {
    ast.Add: ("+", operator.add, operator.iadd),
    ast.Sub: ("-", operator.sub, operator.isub),
    ast.Mult: ("*", operator.mul, operator.imul),
    ast.Div: ("/", operator.truediv, operator.itruediv),
    ast.FloorDiv: ("//", operator.floordiv, operator.ifloordiv),
    ast.Mod: ("%", operator.mod, operator.imod),
    ast.Pow: ("**", operator.pow, operator.ipow),
    ast.MatMult: ("@", operator.matmul, operator.imatmul),
    ast.LShift: ("<<", operator.lshift, operator.ilshift),
    ast.RShift: (">>", operator.rshift, operator.irshift),
    ast.BitAnd: ("&", operator.and_, operator.iand),
    ast.BitOr: ("|", operator.or_, operator.ior),
    ast.BitXor: ("^", operator.xor, operator.ixor),
}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_}
_UNARY[ast.Invert] = operator.invert
_COMPARE = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}
#: Python's plain values: an allowed name they lack raises Python's own AttributeError.
_PLAIN = (type(None), bool, int, float, str, list, tuple, dict, range)
_CONTEXTS = (torch.no_grad, torch.enable_grad, torch.set_grad_enabled, torch.inference_mode)
_MATMUL = frozenset({"torch.matmul", "torch.mm", "torch.mv", "matmul", "mm", "mv"})
_SQUARE = frozenset(
    {
        "torch.autograd.functional.hessian",
        "torch.autograd.functional.jacobian",
        "torch.func.hessian",
    }
)


@dataclass(frozen=True)
class Namespace:
    """A module the program imported (``torch``, ``torch.nn``): its attributes are looked up
    in the allow-list, never in the module's own dictionary."""

    path: str

    def __repr__(self) -> str:
        return f"<module '{self.path}'>"


@dataclass(frozen=True)
class _Allowed:
    """An allowed function, class or constant of torch or math, with its dotted name."""

    path: str
    obj: object

    def __repr__(self) -> str:
        return repr(self.obj)


@dataclass(frozen=True)
class _Builtin:
    name: str

    def __repr__(self) -> str:
        return f"<built-in function {self.name}>"


@dataclass(frozen=True)
class _Method:
    """A method of a value, bound by the interpreter after checking its name."""

    obj: object
    name: str

    def __repr__(self) -> str:  # as Python shows it: <built-in method sum of Tensor object ...>
        return repr(getattr(self.obj, self.name))


@dataclass(frozen=True)
class _Returned:
    """A function that an allowed call returned (``torch.func.grad(f)``, ``vjp``'s)."""

    fn: object
    name: str

    def __call__(self, *args: object, **kwargs: object) -> object:
        return self.fn(*args, **kwargs)  # type: ignore[operator]

    def __repr__(self) -> str:  # as Python shows it: <function grad.<locals>.wrapper at 0x...>
        return repr(self.fn)


class _Return(Exception):
    def __init__(self, value: object) -> None:
        self.value = value


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class Scope:
    """The names of the program (the outermost scope) or of one call of its functions.

    ``owner`` is the qualified name of the function whose call this is ("" outermost): a
    function defined inside is called ``owner.<locals>.name`` in Python's messages.
    ``local`` holds the names the function's body assigns: Python's compiler makes them
    local for the whole body, so reading one before it is assigned is an error even when an
    outer scope has that name.
    """

    def __init__(
        self,
        names: dict[str, object],
        parent: Scope | None = None,
        owner: str = "",
        local: frozenset[str] = frozenset(),
    ) -> None:
        self.names, self.parent, self.local = names, parent, local
        self.owner = parent.owner if parent is not None and not owner else owner

    def find(self, name: str, line: int = 0) -> object:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            if name in scope.local:
                if scope is self:
                    raise UnboundLocalError(
                        f"cannot access local variable '{name}' where it is not associated "
                        "with a value"
                    )
                raise NameError(
                    f"cannot access free variable '{name}' where it is not associated with a "
                    "value in enclosing scope"
                )
            scope = scope.parent
        if name in allow.BUILTINS:
            return _Builtin(name)
        if hasattr(builtins, name):  # Python has it, the subset does not: say so, not NameError
            raise ProgramError("code.refuse.name", line=line, name=name)
        raise NameError(f"name '{name}' is not defined")


class UserFunction:
    """A ``def`` or ``lambda`` of the program. Calling it (the program, or torch.func on its
    behalf) runs its body through the interpreter."""

    def __init__(
        self, interp: Interpreter, name: str, node: ast.FunctionDef | ast.Lambda, scope: Scope
    ) -> None:
        self.interp, self.__name__, self.node, self.scope = interp, name, node, scope
        self.qualname = f"{scope.owner}.<locals>.{name}" if scope.owner else name
        self.__qualname__ = self.qualname  # what functools.wraps copies (torch.func.grad(f))
        args = node.args
        self.positional_only = [a.arg for a in args.posonlyargs]
        self.params = self.positional_only + [a.arg for a in args.args]
        self.keyword_only = [a.arg for a in args.kwonlyargs]
        self.defaults = [interp.ev(d, scope) for d in args.defaults]
        interp.own_params.update(self.params + self.keyword_only)
        self.local = frozenset(self.params + self.keyword_only) | _assigned(node)
        self.keyword_defaults = {
            a.arg: interp.ev(d, scope)
            for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)
            if d is not None
        }

    def __call__(self, *args: object, **kwargs: object) -> object:
        return self.interp.call_user(self, list(args), kwargs)

    def __repr__(self) -> str:  # as Python shows it
        return f"<function {self.qualname} at {id(self):#x}>"


def _assigned(node: ast.FunctionDef | ast.Lambda) -> frozenset[str]:
    """The names a function's body binds (its locals), not those of functions and
    comprehensions inside it, which have scopes of their own."""
    if isinstance(node, ast.Lambda):
        return frozenset()
    found: set[str] = set()
    stack: list[ast.AST] = list(node.body)
    while stack:
        child = stack.pop()
        if isinstance(child, ast.FunctionDef):
            found.add(child.name)
            stack.extend(child.args.defaults + child.args.kw_defaults)  # evaluated here
            continue
        if isinstance(child, ast.Lambda | ast.ListComp | ast.DictComp | ast.GeneratorExp):
            continue
        if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store | ast.Del):
            found.add(child.id)
        elif isinstance(child, ast.alias):
            found.add(child.asname or child.name.split(".")[0])
        stack.extend(ast.iter_child_nodes(child))
    return frozenset(found)


def _kind(value: object) -> str:
    if isinstance(value, torch.Tensor):
        return "tensor"
    if isinstance(value, torch.autograd.graph.Node):
        return "node"
    if isinstance(value, torch.nn.Module):
        return "module"
    if isinstance(value, torch.optim.Optimizer):
        return "optimizer"
    if type(value).__module__ == "torch.return_types":
        return "minmax"
    if isinstance(value, torch.utils.hooks.RemovableHandle):
        return "handle"
    if isinstance(value, str):  # torch.__version__ is a str of its own type
        return "str"
    return {list: "list", dict: "dict"}.get(type(value), "other")


def _lookup(path: str) -> object:
    """The object behind an allowed dotted name (from the allow-list only)."""
    root, *rest = path.split(".")
    obj: object = torch if root == "torch" else math
    for part in rest:
        obj = getattr(obj, part)
    return obj


def _tensors(values: object) -> Iterator[torch.Tensor]:
    """The tensors among some arguments, one level into lists and tuples."""
    for v in values:  # type: ignore[attr-defined]
        if isinstance(v, torch.Tensor):
            yield v
        elif isinstance(v, list | tuple):
            yield from (t for t in v if isinstance(t, torch.Tensor))


def _number(value: object) -> float | None:
    if isinstance(value, bool | int | float):
        return float(value)
    if isinstance(value, torch.Tensor) and value.numel() == 1:
        return float(value.detach())
    return None


class Interpreter:
    """Runs the statements of one program in one outermost scope.

    Args:
        budget: the limits of the run.
        write: where printed text goes (called with each piece, as ``print`` writes it).
    """

    def __init__(self, budget: ProgramBudget = BUDGET, write: object = None) -> None:
        self.budget = budget
        self.write = write or (lambda text: None)
        self.scope = Scope({})
        self.line = 0  # the line of the statement running now (the innermost)
        self.steps = self.depth = self.printed = self.items = self.made = 0
        self.passes: dict[int, tuple[weakref.ref, int]] = {}  # id(tensor) -> (ref, pass)
        self.calls = 0  # differentiating calls made so far
        self.raised_on = ""  # the name of the first argument of the call that raised
        self.drawn = 0  # graph nodes recorded so far (hograd_core.program._record)
        self.own_params: set[str] = set()  # parameter names of the program's functions

    # ---- passes: which backward pass made a tensor (its colour in the drawing) -------------

    def pass_of(self, value: object) -> int:
        if not isinstance(value, torch.Tensor):
            return 0
        ref, k = self.passes.get(id(value), (None, 0))
        return k if ref is not None and ref() is value else 0

    def _mark(self, value: object, k: int) -> None:
        if isinstance(value, torch.Tensor):
            if k and self.pass_of(value) < k:
                self.passes[id(value)] = (weakref.ref(value), k)
        elif isinstance(value, list | tuple):
            for v in value:
                self._mark(v, k)

    # ---- budgets ---------------------------------------------------------------------------

    def tick(self) -> None:
        self.steps += 1
        if self.steps > self.budget.max_steps:
            raise BudgetError("code.budget.steps", limit=f"{self.budget.max_steps:,}")

    def _sequence(self, n: int) -> None:
        if n > self.budget.max_sequence:
            raise BudgetError(
                "code.budget.sequence", got=f"{n:,}", limit=f"{self.budget.max_sequence:,}"
            )
        self.items += n
        if self.items > self.budget.max_total_items:
            raise BudgetError("code.budget.items", limit=f"{self.budget.max_total_items:,}")

    def _made(self, value: object, call: str) -> None:
        """Count a new tensor's elements (a view's too: the next operation would make it)."""
        if isinstance(value, torch.Tensor):
            elements(call, value.numel(), self.budget)
            self.made += value.numel()
            if self.made > self.budget.max_total_elements:
                raise BudgetError("code.budget.made", limit=f"{self.budget.max_total_elements:,}")
        elif isinstance(value, list | tuple):
            for v in value:
                self._made(v, call)

    def _before(self, call: str, args: list, kwargs: dict) -> None:
        """The size of what a torch call will make, checked before torch is called."""
        short = call.rsplit(".", 1)[-1]
        tensors = list(_tensors([*args, *kwargs.values()]))
        if call.startswith("torch.") and short in {"ones", "zeros", "rand", "randn", "full"}:
            sizes = kwargs.get("size", args[0] if short == "full" and args else args)
            if len(sizes) == 1 and isinstance(sizes[0], list | tuple | torch.Size):
                sizes = sizes[0]
            if isinstance(sizes, list | tuple | torch.Size):
                numbers = [_number(s) for s in sizes]
                if all(n is not None and math.isfinite(n) for n in numbers):
                    elements(call, product(numbers), self.budget)
        elif call == "torch.linspace":
            steps = kwargs.get("steps", args[2] if len(args) > 2 else None)
            if isinstance(steps, int):
                elements(call, steps, self.budget)
        elif call == "torch.arange":
            self._arange(call, args, kwargs)
        elif call == "torch.eye":
            n = [_number(a) for a in args[:2]] + [_number(kwargs.get(k)) for k in "nm"]
            sizes = [int(s) for s in n if s is not None and math.isfinite(s)]
            if sizes:
                elements(call, product(sizes if len(sizes) > 1 else sizes * 2), self.budget)
        elif call == "torch.nn.Linear":
            sizes = [*args[:2], kwargs.get("in_features", 1), kwargs.get("out_features", 1)]
            if all(isinstance(s, int) for s in sizes):
                elements(call, product(sizes), self.budget)
        elif short in {"stack", "cat"}:
            elements(call, sum(t.numel() for t in tensors), self.budget)
        elif short in _MATMUL or short in {"outer", "expand"}:
            self._product(call, short, args)
        elif call == "torch.einsum":
            self._einsum(call, args)
        elif call in _SQUARE or call.startswith("torch.func.jac"):
            n = sum(t.numel() for t in tensors)
            elements(call, n * n, self.budget)
        elif len(tensors) > 1:
            try:
                shape = torch.broadcast_shapes(*(t.shape for t in tensors))
            except RuntimeError:
                return  # torch raises its own error when called
            elements(call, product(shape), self.budget)

    def _arange(self, call: str, args: list, kwargs: dict) -> None:
        nums = [_number(a) for a in args[:3]]
        if len(nums) == 1:
            nums = [0.0, nums[0]]
        start = _number(kwargs.get("start", nums[0] if nums else 0.0))
        end = _number(kwargs.get("end", nums[1] if len(nums) > 1 else None))
        step = _number(kwargs.get("step", nums[2] if len(nums) > 2 else 1.0))
        if None in (start, end, step) or step == 0:
            return
        count = (end - start) / step  # type: ignore[operator]
        if math.isfinite(count):
            elements(call, max(math.ceil(count), 0), self.budget)

    def _product(self, call: str, short: str, args: list) -> None:
        if short == "expand":
            sizes = args[1:] if len(args) > 1 else []
            if len(sizes) == 1 and isinstance(sizes[0], list | tuple):
                sizes = list(sizes[0])
            if all(isinstance(s, int) for s in sizes):
                elements(call, product(sizes), self.budget)
            return
        a, b = (args + [None, None])[:2]
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
            return
        if short == "outer":
            elements(call, a.numel() * b.numel(), self.budget)
            return
        try:  # the result's shape, from tensors that hold no data
            meta = torch.matmul(
                torch.empty(a.shape, device="meta"), torch.empty(b.shape, device="meta")
            )
        except RuntimeError:
            return
        elements(call, meta.numel(), self.budget)

    def _einsum(self, call: str, args: list) -> None:
        """The size of an einsum's result, worked out on tensors that hold no data."""
        if not args or not isinstance(args[0], str):
            return  # torch raises its own error
        operands = args[1:]
        if len(operands) == 1 and isinstance(operands[0], list | tuple):
            operands = list(operands[0])
        if not all(isinstance(t, torch.Tensor) for t in operands):
            return
        try:
            meta = torch.einsum(args[0], *(torch.empty(t.shape, device="meta") for t in operands))
        except RuntimeError:
            return  # torch raises its own error when called
        elements(call, meta.numel(), self.budget)

    def _graph(self, call: str, roots: list) -> None:
        """Refuse to differentiate a graph of more than ``max_graph`` nodes (counted up to
        one past it)."""
        seen: set[object] = set()
        stack = [t.grad_fn for t in _tensors(roots) if t.grad_fn is not None]
        while stack:
            node = stack.pop()
            if node in seen:
                continue
            seen.add(node)
            if len(seen) > self.budget.max_graph:
                raise BudgetError(
                    "code.budget.graph", call=call, limit=f"{self.budget.max_graph:,}"
                )
            stack.extend(inputs(node))

    # ---- statements ------------------------------------------------------------------------

    def run(self, body: list[ast.stmt], scope: Scope | None = None) -> None:
        for stmt in body:
            self.execute(stmt, scope or self.scope)

    def execute(self, stmt: ast.stmt, scope: Scope) -> None:
        self.tick()
        self.line = stmt.lineno
        getattr(self, "_" + type(stmt).__name__)(stmt, scope)

    def _Expr(self, node: ast.Expr, scope: Scope) -> None:
        self.ev(node.value, scope)

    def _Pass(self, node: ast.Pass, scope: Scope) -> None:
        pass

    def _Break(self, node: ast.Break, scope: Scope) -> None:
        raise _Break

    def _Continue(self, node: ast.Continue, scope: Scope) -> None:
        raise _Continue

    def _Return(self, node: ast.Return, scope: Scope) -> None:
        raise _Return(None if node.value is None else self.ev(node.value, scope))

    def _Import(self, node: ast.Import, scope: Scope) -> None:
        for alias in node.names:  # checked by check_tree: allowed modules only
            if alias.asname:
                scope.names[alias.asname] = Namespace(alias.name)
            else:
                root = alias.name.split(".")[0]
                scope.names[root] = Namespace(root)

    def _ImportFrom(self, node: ast.ImportFrom, scope: Scope) -> None:
        for alias in node.names:
            path = f"{node.module}.{alias.name}"
            scope.names[alias.asname or alias.name] = self._named(path)

    def _named(self, path: str) -> object:
        if path not in allow.NAMES:
            raise ProgramError("code.refuse.attribute", line=self.line, name=path)
        if path in allow.MODULES:
            return Namespace(path)
        obj = _lookup(path)
        if isinstance(obj, bool | int | float | str | torch.dtype):
            return obj  # torch.pi, math.e, torch.float64, torch.__version__
        return _Allowed(path, obj)

    def _Assign(self, node: ast.Assign, scope: Scope) -> None:
        value = self.ev(node.value, scope)
        for target in node.targets:
            self.assign(target, value, scope)

    def _AnnAssign(self, node: ast.AnnAssign, scope: Scope) -> None:
        """``lr: float = 0.1``: the hint is not evaluated (checks.check_tree skips it)."""
        if node.value is not None:
            self.assign(node.target, self.ev(node.value, scope), scope)

    def _AugAssign(self, node: ast.AugAssign, scope: Scope) -> None:
        symbol, _, inplace = _BINARY[type(node.op)]
        target = node.target
        if isinstance(target, ast.Name):
            old = scope.find(target.id, target.lineno)
            self.assign(
                target, self.binary(symbol, inplace, old, self.ev(node.value, scope)), scope
            )
        elif isinstance(target, ast.Attribute):
            obj = self.ev(target.value, scope)
            old = self.attribute(obj, target.attr)
            new = self.binary(symbol, inplace, old, self.ev(node.value, scope))
            self.set_attribute(obj, target.attr, new)
        else:
            assert isinstance(target, ast.Subscript)
            obj, key = self.ev(target.value, scope), self.ev(target.slice, scope)
            new = self.binary(
                symbol, inplace, operator.getitem(obj, key), self.ev(node.value, scope)
            )
            operator.setitem(obj, key, new)

    def assign(self, target: ast.expr, value: object, scope: Scope) -> None:
        if isinstance(target, ast.Name):
            scope.names[target.id] = value
        elif isinstance(target, ast.Tuple | ast.List):
            if any(isinstance(t, ast.Starred) for t in target.elts):
                raise ProgramError("code.refuse.syntax", line=self.line, construct="a, *b = ...")
            items = self._items(value)
            if len(items) > len(target.elts):  # Python says how many it got from 3.14 on
                got = f", got {len(items)}" if sys.version_info >= (3, 14) else ""
                raise ValueError(f"too many values to unpack (expected {len(target.elts)}{got})")
            if len(items) < len(target.elts):
                detail = f"(expected {len(target.elts)}, got {len(items)})"
                raise ValueError(f"not enough values to unpack {detail}")
            for t, v in zip(target.elts, items, strict=True):
                self.assign(t, v, scope)
        elif isinstance(target, ast.Attribute):
            self.set_attribute(self.ev(target.value, scope), target.attr, value)
        elif isinstance(target, ast.Subscript):
            obj, key = self.ev(target.value, scope), self.ev(target.slice, scope)
            if isinstance(obj, dict):
                self._sequence(len(obj) + 1)
            operator.setitem(obj, key, value)
        else:
            raise ProgramError("code.refuse.syntax", line=self.line, construct="assignment")

    def _items(self, value: object) -> list:
        if (
            isinstance(value, torch.Tensor)
            and value.dim()
            and value.shape[0] > self.budget.max_sequence
        ):
            self._sequence(value.shape[0])
        if isinstance(value, range):
            self._range(value)
        items = list(value)  # type: ignore[call-overload]
        self._sequence(len(items))
        return items

    def set_attribute(self, obj: object, name: str, value: object) -> None:
        tensor = isinstance(obj, torch.Tensor) and name in allow.SETTABLE
        layer = isinstance(obj, torch.nn.Module) and name in ("weight", "bias")
        if not (tensor or layer):
            raise ProgramError("code.refuse.set", line=self.line, name=name)
        # a layer checks what it is given itself (a Parameter or None, else its TypeError)
        setattr(obj, name, value)

    def _Delete(self, node: ast.Delete, scope: Scope) -> None:
        for target in node.targets:
            if not isinstance(target, ast.Name):
                what = "del " + ast.unparse(target)  # del xs[0], del x.grad
                raise ProgramError("code.refuse.syntax", line=self.line, construct=what)
            if target.id not in scope.names:
                scope.find(target.id, target.lineno)  # Python's error for that name
                raise NameError(f"name '{target.id}' is not defined")
            del scope.names[target.id]

    def _If(self, node: ast.If, scope: Scope) -> None:
        self.run(node.body if self.ev(node.test, scope) else node.orelse, scope)

    def _Assert(self, node: ast.Assert, scope: Scope) -> None:
        if not self.ev(node.test, scope):
            if node.msg is None:
                raise AssertionError
            raise AssertionError(self.ev(node.msg, scope))

    def _range(self, value: range) -> None:
        if len(value) > self.budget.max_loop:
            raise BudgetError(
                "code.budget.loop", got=f"{len(value):,}", limit=f"{self.budget.max_loop:,}"
            )

    def _For(self, node: ast.For, scope: Scope) -> None:
        items = self._items(self.ev(node.iter, scope))
        for item in items:
            self.tick()
            self.line = node.lineno
            self.assign(node.target, item, scope)
            try:
                self.run(node.body, scope)
            except _Break:
                return
            except _Continue:
                continue
        self.run(node.orelse, scope)

    def _With(self, node: ast.With, scope: Scope) -> None:
        managers = [self.ev(item.context_expr, scope) for item in node.items]
        if not all(isinstance(m, _CONTEXTS) for m in managers):
            raise ProgramError(
                "code.refuse.syntax", line=self.line, construct="with (other than torch.no_grad())"
            )
        if len(managers) != 1:
            raise ProgramError("code.refuse.syntax", line=self.line, construct="with a, b")
        with managers[0]:
            self.run(node.body, scope)

    def _FunctionDef(self, node: ast.FunctionDef, scope: Scope) -> None:
        scope.names[node.name] = UserFunction(self, node.name, node, scope)

    # ---- calls of the program's own functions ---------------------------------------------

    def call_user(self, fn: UserFunction, args: list, kwargs: dict) -> object:
        names = bind(fn, args, kwargs)
        self.depth += 1
        self.tick()
        if self.depth > self.budget.max_depth:
            raise BudgetError("code.budget.depth", name=fn.__name__, limit=self.budget.max_depth)
        line = self.line
        inner = Scope(names, fn.scope, owner=fn.qualname, local=fn.local)
        try:
            if isinstance(fn.node, ast.Lambda):
                value = self.ev(fn.node.body, inner)
            else:
                try:
                    self.run(fn.node.body, inner)
                    value = None
                except _Return as ret:
                    value = ret.value
        finally:
            self.depth -= 1
        self.line = line  # back in the caller (an error inside keeps the inner line)
        return value

    # ---- expressions -----------------------------------------------------------------------

    def ev(self, node: ast.expr, scope: Scope) -> object:
        return getattr(self, "_e" + type(node).__name__)(node, scope)

    def _eConstant(self, node: ast.Constant, scope: Scope) -> object:
        return node.value

    def _eName(self, node: ast.Name, scope: Scope) -> object:
        return scope.find(node.id, node.lineno)

    def _eTuple(self, node: ast.Tuple, scope: Scope) -> object:
        return tuple(self._elements(node.elts, scope))

    def _eList(self, node: ast.List, scope: Scope) -> object:
        return self._elements(node.elts, scope)

    def _elements(self, elts: list[ast.expr], scope: Scope) -> list:
        out = []
        for e in elts:
            if isinstance(e, ast.Starred):
                out.extend(self._items(self.ev(e.value, scope)))
            else:
                out.append(self.ev(e, scope))
        self._sequence(len(out))
        return out

    def _eDict(self, node: ast.Dict, scope: Scope) -> object:
        if any(k is None for k in node.keys):
            raise ProgramError("code.refuse.syntax", line=self.line, construct="**")
        self._sequence(len(node.keys))
        return {
            self.ev(k, scope): self.ev(v, scope)
            for k, v in zip(node.keys, node.values, strict=True)
        }  # type: ignore[arg-type]

    def _eSlice(self, node: ast.Slice, scope: Scope) -> object:
        part = [
            None if p is None else self.ev(p, scope) for p in (node.lower, node.upper, node.step)
        ]
        return slice(*part)

    def _eSubscript(self, node: ast.Subscript, scope: Scope) -> object:
        value, key = self.ev(node.value, scope), self.ev(node.slice, scope)
        self.line = node.lineno  # where Python places an error of this operation
        result = operator.getitem(value, key)
        if isinstance(value, torch.Tensor):
            self._made(result, "[]")
            self._mark(result, self.pass_of(value))
        return result

    def _eIfExp(self, node: ast.IfExp, scope: Scope) -> object:
        return self.ev(node.body if self.ev(node.test, scope) else node.orelse, scope)

    def _eBoolOp(self, node: ast.BoolOp, scope: Scope) -> object:
        *first, last = node.values
        for operand in first:  # the last operand is the value, its truth never asked
            value = self.ev(operand, scope)
            if isinstance(node.op, ast.And) and not value:
                return value
            if isinstance(node.op, ast.Or) and value:
                return value
        return self.ev(last, scope)

    def _eUnaryOp(self, node: ast.UnaryOp, scope: Scope) -> object:
        value = self.ev(node.operand, scope)
        self.line = node.lineno
        result = _UNARY[type(node.op)](value)
        self._mark(result, self.pass_of(value))
        return result

    def _eCompare(self, node: ast.Compare, scope: Scope) -> object:
        left = self.ev(node.left, scope)
        result: object = True
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            right = self.ev(right_node, scope)
            self.line = node.lineno
            if isinstance(left, torch.Tensor) or isinstance(right, torch.Tensor):
                self._before("==", [left, right], {})
            result = _COMPARE[type(op)](left, right)
            if len(node.ops) == 1:
                return result
            if not result:  # a chain: bool() of each link, as Python does
                return result
            left = right
        return result

    def _eBinOp(self, node: ast.BinOp, scope: Scope) -> object:
        symbol, fn, _ = _BINARY[type(node.op)]
        a, b = self.ev(node.left, scope), self.ev(node.right, scope)
        self.line = node.lineno
        return self.binary(symbol, fn, a, b)

    def binary(self, symbol: str, fn: object, a: object, b: object) -> object:
        """``a <symbol> b`` by Python's own operator, its size checked first."""
        ints = isinstance(a, int) and isinstance(b, int)
        if ints and symbol in ("**", "*", "<<"):
            int_bits(a, b, symbol, self.budget)  # type: ignore[arg-type]
        elif symbol == "*" and isinstance(a, str | list | tuple) and isinstance(b, int):
            self._sequence(len(a) * max(b, 0))
        elif symbol == "*" and isinstance(b, str | list | tuple) and isinstance(a, int):
            self._sequence(len(b) * max(a, 0))
        elif (
            symbol == "+"
            and isinstance(a, str | list | tuple)
            and isinstance(b, str | list | tuple)
        ):
            self._sequence(len(a) + len(b))
        elif symbol == "%" and isinstance(a, str):
            format_spec(a, self.budget)
        elif isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
            self._before("matmul" if symbol == "@" else symbol, [a, b], {})
        result = fn(a, b)  # type: ignore[operator]
        if isinstance(result, str):
            self._sequence(len(result))
        self._made(result, symbol)
        self._mark(result, max(self.pass_of(a), self.pass_of(b)))
        return result

    def _eJoinedStr(self, node: ast.JoinedStr, scope: Scope) -> object:
        parts = []
        for value in node.values:
            parts.append(self.ev(value, scope))
        text = "".join(parts)  # type: ignore[arg-type]
        self._sequence(len(text))
        return text

    def _eFormattedValue(self, node: ast.FormattedValue, scope: Scope) -> object:
        value = self.ev(node.value, scope)
        if node.conversion == ord("r"):
            value = repr(value)
        elif node.conversion == ord("s"):
            value = str(value)
        elif node.conversion == ord("a"):
            value = ascii(value)
        spec = "" if node.format_spec is None else self.ev(node.format_spec, scope)
        self.line = node.lineno
        format_spec(spec, self.budget)  # type: ignore[arg-type]
        return format(value, spec)  # type: ignore[arg-type]

    def _eAttribute(self, node: ast.Attribute, scope: Scope) -> object:
        value = self.ev(node.value, scope)
        self.line = node.end_lineno or node.lineno  # Python places it at the name's line
        return self.attribute(value, node.attr)

    def attribute(self, obj: object, name: str) -> object:
        """``obj.name``, if the allow-list has ``name`` for a value of ``obj``'s kind."""
        if isinstance(obj, Namespace):
            return self._named(f"{obj.path}.{name}")
        kind = _kind(obj)
        if name in allow.ATTRIBUTES.get(kind, ()):
            value = getattr(obj, name)
            if name == "grad" and isinstance(value, torch.Tensor):
                self._mark(value, self.pass_of(obj) + 1)
            return value
        if name in allow.METHODS.get(kind, ()):
            return _Method(obj, name)
        if isinstance(obj, _PLAIN) and not hasattr(type(obj), name):
            # a name the subset allows on some value, missing on this one (``x.grad.zero_()``
            # with ``x.grad`` None): Python's own AttributeError, raised by Python
            getattr(obj, name)
        shown = {"other": type(obj).__name__}.get(kind, kind)
        raise ProgramError("code.refuse.method", line=self.line, name=name, kind=shown)

    def _eLambda(self, node: ast.Lambda, scope: Scope) -> object:
        return UserFunction(self, "<lambda>", node, scope)

    def _eListComp(self, node: ast.ListComp, scope: Scope) -> object:
        out: list = []
        self._comprehension(
            node.generators, 0, Scope({}, scope), lambda s: out.append(self.ev(node.elt, s))
        )
        return out

    def _eGeneratorExp(self, node: ast.GeneratorExp, scope: Scope) -> object:
        """Lazy, as Python's: ``any(p.grad.abs().sum() > 0 for p in params)`` stops at the
        first true item, before a later item could raise. Like Python, the first iterable
        is evaluated at once. The generator is one of this module's (its frame holds the
        interpreter), which is safe because no name reaches a generator's attributes
        (``gi_frame`` and the like are in no allow-list)."""
        first = self._items(self.ev(node.generators[0].iter, scope))
        made = self._lazy(node.generators, 0, Scope({}, scope), node.elt, first)
        made.__name__ = made.__qualname__ = "<genexpr>"  # type: ignore[attr-defined]
        return made

    def _lazy(
        self,
        gens: list[ast.comprehension],
        i: int,
        scope: Scope,
        elt: ast.expr,
        items: list | None = None,
    ) -> Iterator[object]:
        if i == len(gens):
            self.tick()
            self._sequence(1)
            yield self.ev(elt, scope)
            return
        gen = gens[i]
        for item in items if items is not None else self._items(self.ev(gen.iter, scope)):
            self.assign(gen.target, item, scope)
            if all(self.ev(cond, scope) for cond in gen.ifs):
                yield from self._lazy(gens, i + 1, scope, elt)

    def _eDictComp(self, node: ast.DictComp, scope: Scope) -> object:
        out: dict = {}

        def put(s: Scope) -> None:
            out[self.ev(node.key, s)] = self.ev(node.value, s)

        self._comprehension(node.generators, 0, Scope({}, scope), put)
        return out

    def _comprehension(
        self, gens: list[ast.comprehension], i: int, scope: Scope, emit: object
    ) -> None:
        if i == len(gens):
            self.tick()
            self._sequence(1)
            emit(scope)  # type: ignore[operator]
            return
        gen = gens[i]
        for item in self._items(self.ev(gen.iter, scope)):
            self.assign(gen.target, item, scope)
            if all(self.ev(cond, scope) for cond in gen.ifs):
                self._comprehension(gens, i + 1, scope, emit)

    # ---- calls -----------------------------------------------------------------------------

    def _eCall(self, node: ast.Call, scope: Scope) -> object:
        fn = self.ev(node.func, scope)
        args = self._elements(node.args, scope)
        kwargs = {k.arg: self.ev(k.value, scope) for k in node.keywords}
        first = node.args[0] if node.args else (node.keywords[0].value if node.keywords else None)
        if isinstance(node.func, ast.Attribute) and isinstance(fn, _Method):
            first = node.func.value  # x.backward(): x is what it works on
        # Python places an error of a call at its start, of a method call at the method's name
        attr = isinstance(node.func, ast.Attribute)
        self.line = (node.func.end_lineno if attr else None) or node.lineno
        try:
            return self.call(fn, args, kwargs)  # type: ignore[arg-type]
        except Exception:
            if not self.raised_on and isinstance(first, ast.Name):
                self.raised_on = first.id
            raise

    def call(self, fn: object, args: list, kwargs: dict) -> object:
        self.tick()
        if isinstance(fn, UserFunction):
            return fn(*args, **kwargs)
        if isinstance(fn, _Method) and fn.name == "format" and isinstance(fn.obj, str):
            return self._format(fn.obj, args, kwargs)
        for key in kwargs:  # the program's own parameters may be named only for its functions
            own = isinstance(fn, _Returned) and key in self.own_params  # grad(f)(x, a=1)
            free = isinstance(fn, _Builtin) and fn.name == "dict"  # dict(lr=0.1)
            if key not in allow.KEYWORDS and not (own or free):
                raise ProgramError("code.refuse.keyword", line=self.line, name=key)
        if isinstance(fn, _Builtin):
            return self._builtin(fn.name, args, kwargs)
        if isinstance(fn, _Allowed):
            return self._torch(fn.path, fn.obj, args, kwargs)
        if isinstance(fn, _Method):
            return self._torch(
                fn.name, getattr(fn.obj, fn.name), [fn.obj, *args], kwargs, bound=True
            )
        if isinstance(fn, _Returned):
            return self._torch(fn.name, fn.fn, args, kwargs)
        if isinstance(fn, torch.nn.Module):
            return self._torch(type(fn).__name__, fn, args, kwargs)
        raise TypeError(f"'{type(fn).__name__}' object is not callable")

    def _torch(
        self, call: str, obj: object, args: list, kwargs: dict, bound: bool = False
    ) -> object:
        """An allowed function or method of torch or math: checked, called, its results
        wrapped (functions it returns) and marked with their pass."""
        no_arguments = (torch.no_grad, torch.enable_grad)
        if isinstance(obj, type) and issubclass(obj, no_arguments) and (args or kwargs):
            raise TypeError(f"{obj.__name__}() takes no arguments")
        self._before(call, args, kwargs)
        differentiates = call in allow.DIFFERENTIATORS or call == "backward"
        if differentiates:
            self.calls += 1
            self._graph(call, [*args[:1], kwargs.get("outputs"), kwargs.get("tensors")])
        if call == "append":
            self._sequence(len(args[0]) + 1)
        # jacrev(torch.sin) gets torch.sin; x.register_hook(print) gets a call of the
        # interpreter's print
        passed = [a.obj if isinstance(a, _Allowed) else self._callback(a) for a in args]
        result = obj(*(passed[1:] if bound else passed), **kwargs)  # type: ignore[operator]
        self._made(result, call)
        k = max((self.pass_of(t) for t in _tensors([*args, *kwargs.values()])), default=0)
        if differentiates:
            k += 1
            if call == "backward" or call.endswith("autograd.backward"):
                self._mark_grads(k)
        self._mark(result, min(k, 6))
        return self._wrap(result, call)

    def _mark_grads(self, k: int) -> None:
        for value in self.scope.names.values():
            if isinstance(value, torch.Tensor) and value.is_leaf and value.grad is not None:
                self._mark(value.grad, min(k, 6))
            if isinstance(value, torch.nn.Module):
                for p in value.parameters():
                    if p.grad is not None:
                        self._mark(p.grad, min(k, 6))

    def _wrap(self, result: object, call: str) -> object:
        if isinstance(result, tuple) and type(result) is tuple:
            return tuple(self._wrap(r, call) for r in result)
        if callable(result) and not isinstance(
            result, (torch.Tensor, torch.nn.Module, UserFunction, _Returned, *_CONTEXTS)
        ):
            return _Returned(result, call)  # torch.func.hessian: its size checked by name
        return result

    def _callback(self, value: object) -> object:
        if isinstance(value, _Builtin | _Allowed | _Method):
            return lambda *args, **kwargs: self.call(value, list(args), kwargs)
        return value

    def _format(self, template: str, args: list, kwargs: dict, auto: list | None = None) -> str:
        """``template.format(*args, **kwargs)`` with fields by position or name only: a field
        that reads an attribute or an item (``{0.__class__}``, ``{0[k]}``) is refused."""
        counter = [0, False] if auto is None else auto  # next automatic index, manual seen
        out = []
        for literal, field, spec, conversion in string.Formatter().parse(template):
            out.append(literal)
            if field is None:
                continue
            if field == "":
                if counter[1]:
                    raise ValueError(
                        "cannot switch from manual field specification to automatic field numbering"
                    )
                key: int | str = counter[0]
                counter[0] += 1  # type: ignore[operator]
            elif field.isdigit() or field.isidentifier():
                if counter[0]:
                    raise ValueError(
                        "cannot switch from automatic field numbering to manual field specification"
                    )
                counter[1] = True
                key = int(field) if field.isdigit() else field
            else:
                raise ProgramError("code.refuse.field", line=self.line, name=field)
            if isinstance(key, int):
                if key >= len(args):
                    raise IndexError(
                        f"Replacement index {key} out of range for positional args tuple"
                    )
                value = args[key]
            else:
                value = kwargs[key]
            if conversion:
                value = {"r": repr, "s": str, "a": ascii}[conversion](value)
            if spec and "{" in spec:
                spec = self._format(spec, args, kwargs, counter)
            format_spec(spec or "", self.budget)
            out.append(format(value, spec or ""))
            self._sequence(sum(map(len, out)))
        return "".join(out)

    def _builtin(self, name: str, args: list, kwargs: dict) -> object:
        if name in ("map", "filter", "sorted", "min", "max"):
            # a function they call (map(float, xs), sorted(xs, key=abs)) is called back
            # through the interpreter, with its checks
            args = [self._callback(a) for a in args]
            kwargs = {k: self._callback(v) for k, v in kwargs.items()}
        if name == "print":
            for key in kwargs:
                if key not in ("sep", "end", "flush"):
                    raise TypeError(f"'{key}' is an invalid keyword argument for print()")
            sep, end = kwargs.get("sep", " "), kwargs.get("end", "\n")
            sep = " " if sep is None else sep
            end = "\n" if end is None else end
            if not isinstance(sep, str):
                raise TypeError(f"sep must be None or a string, not {type(sep).__name__}")
            if not isinstance(end, str):
                raise TypeError(f"end must be None or a string, not {type(end).__name__}")
            text = sep.join(str(a) for a in args) + end
            self.printed += len(text)
            if self.printed > self.budget.max_output:
                raise BudgetError("code.budget.output", limit=f"{self.budget.max_output:,}")
            self.write(text)  # type: ignore[operator]
            return None
        if name == "pow" and len(args) == 2 and not kwargs:  # pow(a, b) is a ** b, its size checked
            return self.binary("**", operator.pow, *args)
        if name == "range":
            value = range(*args, **kwargs)
            self._range(value)
            return value
        if name in ("list", "tuple", "sorted", "reversed", "dict", "enumerate", "zip"):
            for a in args:
                if isinstance(a, range):
                    self._range(a)
                elif isinstance(a, torch.Tensor) and a.dim():
                    self._sequence(a.shape[0])
        result = getattr(builtins, name)(*args, **kwargs)
        if isinstance(result, list | tuple | str | dict):
            self._sequence(len(result))
        return result
