"""The same program in C++ (LibTorch), for the straight-line subset without ``nn``.

Generated from the checked syntax tree, statement by statement, as the derivatives page's C++
tab is (:mod:`hograd_core.cpp_code`, whose helpers print a double as Python does): tensors
made with ``torch.tensor``, arithmetic, elementwise and reduction functions,
``torch.autograd.grad(...)[0]`` with ``create_graph``, ``.backward()``, and ``print`` of text,
numbers (``.item()``) and booleans (``.requires_grad``), each printed line the same as
Python's. Anything else (a loop, a function, ``nn``, printing a whole tensor) gives None: the
page then says the C++ form covers a smaller subset.
"""

from __future__ import annotations

import ast
import json

from ..cpp_code import _INCLUDES, HELPERS, _header, _main
from . import parse_program

__all__ = ["program_cpp"]

_FUNCTIONS = {"sin", "cos", "tan", "exp", "log", "tanh", "sigmoid", "sqrt", "abs", "relu"}
_METHODS = _FUNCTIONS | {"sum", "mean", "detach", "clone", "square", "neg"}
_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}
_RESERVED = {"py", "py_list", "op", "nodes", "main", "int", "double", "auto", "new", "delete"}


class _Unsupported(Exception):
    pass


class _Writer:
    def __init__(self) -> None:
        self.kinds: dict[str, str] = {}  # name -> "tensor", "double", "int" or "bool"
        self.body: list[str] = []

    def name(self, name: str) -> str:
        return name + "_" if name in _RESERVED else name

    def expr(self, node: ast.expr) -> tuple[str, str]:
        """C++ source of an expression, and its kind."""
        if isinstance(node, ast.Constant) and type(node.value) in (int, float, bool):
            if isinstance(node.value, bool):
                return ("true" if node.value else "false"), "bool"
            kind = "int" if isinstance(node.value, int) else "double"
            return repr(node.value) if kind == "int" else repr(float(node.value)), kind
        if isinstance(node, ast.Name) and node.id in self.kinds:
            return self.name(node.id), self.kinds[node.id]
        if isinstance(node, ast.Attribute):
            return self._attribute(node)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            code, kind = self.expr(node.operand)
            return f"(-{code})", kind
        if isinstance(node, ast.BinOp):
            return self._binary(node)
        if isinstance(node, ast.Call):
            return self._call(node)
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            index = node.slice.value
            grad = (
                isinstance(node.value, ast.Call)
                and _dotted(node.value.func) == "torch.autograd.grad"
            )
            if grad and index == 0:
                return self._grad(node.value), "tensor"  # type: ignore[arg-type]
            if grad:
                raise _Unsupported
            code, kind = self.expr(node.value)
            if kind == "tensor" and isinstance(index, int):
                return f"{code}[{index}]", "tensor"
        raise _Unsupported

    def _attribute(self, node: ast.Attribute) -> tuple[str, str]:
        if _dotted(node) == "torch.pi":
            return "3.141592653589793", "double"
        code, kind = self.expr(node.value)
        if kind == "tensor" and node.attr == "requires_grad":
            return f"{code}.requires_grad()", "bool"
        if kind == "tensor" and node.attr == "grad":
            return f"{code}.grad()", "tensor"
        raise _Unsupported

    def _binary(self, node: ast.BinOp) -> tuple[str, str]:
        (a, ka), (b, kb) = self.expr(node.left), self.expr(node.right)
        tensor = "tensor" in (ka, kb)
        if isinstance(node.op, ast.Pow):
            return (
                (f"torch::pow({a}, {b})", "tensor") if tensor else (f"std::pow({a}, {b})", "double")
            )
        if type(node.op) not in _OPS or "bool" in (ka, kb):
            raise _Unsupported
        if not tensor and ka == kb == "int" and not isinstance(node.op, ast.Div):
            return f"({a} {_OPS[type(node.op)]} {b})", "int"
        return f"({a} {_OPS[type(node.op)]} {b})", "tensor" if tensor else "double"

    def _call(self, node: ast.Call) -> tuple[str, str]:
        path = _dotted(node.func)
        if path == "torch.tensor":
            return self._tensor(node), "tensor"
        if path is not None and path.startswith("torch.") and path[6:] in _FUNCTIONS | {"dot"}:
            args = [self.expr(a) for a in node.args]
            if node.keywords or any(k != "tensor" for _, k in args):
                raise _Unsupported
            return f"torch::{path[6:]}({', '.join(c for c, _ in args)})", "tensor"
        if isinstance(node.func, ast.Attribute) and not node.args and not node.keywords:
            code, kind = self.expr(node.func.value)
            if kind == "tensor" and node.func.attr in _METHODS:
                return f"{code}.{node.func.attr}()", "tensor"
            if kind == "tensor" and node.func.attr == "item":
                return f"{code}.item<double>()", "double"
        raise _Unsupported

    def _tensor(self, node: ast.Call) -> str:
        if len(node.args) != 1 or any(k.arg != "requires_grad" for k in node.keywords):
            raise _Unsupported
        data = node.args[0]
        items = data.elts if isinstance(data, ast.List) else [data]
        values = []
        for item in items:
            code, kind = self.expr(item)
            if kind not in ("double", "int"):
                raise _Unsupported
            values.append(f"double({code})")
        grad = any(
            isinstance(k.value, ast.Constant) and k.value.value is True for k in node.keywords
        )
        options = f"torch::dtype(torch::kFloat32).requires_grad({'true' if grad else 'false'})"
        inner = values[0] if not isinstance(data, ast.List) else "{" + ", ".join(values) + "}"
        return f"torch::tensor({inner}, {options})"

    def _grad(self, node: ast.Call) -> str:
        names = ["outputs", "inputs", "grad_outputs", "retain_graph", "create_graph"]
        given = dict(zip(names, node.args, strict=False))
        for k in node.keywords:
            if k.arg not in names or k.arg in given:
                raise _Unsupported
            given[k.arg] = k.value
        if "grad_outputs" in given or "retain_graph" in given:
            raise _Unsupported
        outputs, kind_o = self.expr(given["outputs"])
        inputs, kind_i = self.expr(given["inputs"])
        create = "false"
        if "create_graph" in given:
            create, kind_c = self.expr(given["create_graph"])
            if kind_c != "bool":
                raise _Unsupported
        if kind_o != "tensor" or kind_i != "tensor":
            raise _Unsupported
        return (
            f"torch::autograd::grad({{{outputs}}}, {{{inputs}}}, {{}}, std::nullopt, {create})[0]"
        )

    def text(self, node: ast.expr) -> str:
        """A std::string of what Python's print writes for ``node``."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return f"std::string({json.dumps(node.value)})"
        if isinstance(node, ast.JoinedStr):
            parts = [
                self.text(v.value if isinstance(v, ast.FormattedValue) else v)
                for v in node.values
                if not (isinstance(v, ast.FormattedValue) and (v.format_spec or v.conversion != -1))
            ]
            if len(parts) != len(node.values):
                raise _Unsupported
            return "(" + " + ".join(parts or ['std::string("")']) + ")"
        code, kind = self.expr(node)
        if kind == "double":
            return f"py({code})"
        if kind == "bool":
            return f'std::string({code} ? "True" : "False")'
        if kind == "int":
            return f"std::to_string({code})"
        raise _Unsupported  # a whole tensor: Python's format is its own

    def statement(self, node: ast.stmt) -> None:
        if isinstance(node, ast.Import) and [a.name for a in node.names] == ["torch"]:
            if node.names[0].asname:
                raise _Unsupported
            return
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if not isinstance(target, ast.Name):
                raise _Unsupported
            code, kind = self.expr(node.value)
            old = self.kinds.get(target.id)
            if old is not None and old != kind:
                raise _Unsupported
            self.kinds[target.id] = kind
            types = {"tensor": "torch::Tensor", "double": "double", "int": "long", "bool": "bool"}
            declare = "" if old else types[kind] + " "
            self.body.append(f"{declare}{self.name(target.id)} = {code};")
            return
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            call = node.value
            if isinstance(call.func, ast.Name) and call.func.id == "print" and not call.keywords:
                parts = [self.text(a) for a in call.args] or ['std::string("")']
                joined = ' + " " + '.join(parts)
                self.body.append(f'std::printf("%s\\n", ({joined}).c_str());')
                return
            if (
                isinstance(call.func, ast.Attribute)
                and call.func.attr == "backward"
                and not call.args
            ):
                code, kind = self.expr(call.func.value)
                if kind == "tensor" and not call.keywords:
                    self.body.append(f"{code}.backward();")
                    return
        raise _Unsupported


def _dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id, *reversed(parts)]) if isinstance(node, ast.Name) else None


def program_cpp(text: str, name: str = "program") -> str | None:
    """The C++ (LibTorch) program that prints what ``text`` prints, or None when ``text`` is
    outside the subset that has a C++ form (see the module's docstring).

    Raises:
        ProgramError, BudgetError, SyntaxError: as :func:`parse_program`.
    """
    tree = parse_program(text)
    writer = _Writer()
    try:
        for stmt in tree.body:
            writer.statement(stmt)
    except _Unsupported:
        return None
    lines = [*_header(name), _INCLUDES, HELPERS, *_main(writer.body)]
    return "\n".join(lines) + "\n"
