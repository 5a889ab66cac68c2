"""The LibTorch (C++) source of a parsed function: the C++ tab beside every PyTorch script.

The expression is the computation :func:`~hograd_core.language.to_torch.evaluate` performs, as
:func:`~hograd_core.language.to_source.torch_source` writes it in Python, so the C++ program
builds the same graph (the same ``grad_fn`` names) with the same float64 numbers:

* constants are the float64 values folded at parse time, as the same literals (C++ reads
  ``6.283185307179586`` and ``3`` back as Python does);
* a number in ``+ - * /`` is a 0-dim float64 tensor, as Python passes it (the ops and their
  ``grad_fn`` names are then Python's: ``MulBackward0``, not the Scalar overload's
  ``MulBackward1``), and a number on the left of ``-`` or ``/`` is written as the op Python's
  ``__rsub__`` and ``__rtruediv__`` call (``torch::rsub(x, 2)``, ``torch::reciprocal(x) * 2``):
  LibTorch's own ``2 - x`` fills a tensor and subtracts in place, a different graph;
* an op whose two operands both add nodes is a method call, ``a.mul(b)``: C++17 evaluates
  ``a`` first there, as Python evaluates ``a * b`` (:func:`_in_order`);
* a variable keeps its name where C++ can use it (:func:`cpp_name`), as in the Python scripts.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from itertools import chain, count

from .function import Function
from .nodes import Binary, Call, Neg, Node, Var
from .to_source import ALWAYS_TAKEN
from .to_source import _number as python_literal

__all__ = ["CPP_TAKEN", "cpp_name", "cpp_source"]

_DOUBLE = "torch::dtype(torch::kFloat64)"
#: softplus as the evaluator computes it (to_torch's ``_softplus``), in a lambda called at once
#: so its argument is built once; the two sides are built in Python's order, as statements.
SOFTPLUS = (
    "[](const torch::Tensor& a) { auto up = -torch::log_sigmoid(-a); "
    "auto flat = torch::softplus(a); return torch::where(a > 0, up, flat); }"
)


def _number(value: float) -> str:
    """``value`` as a C++ literal that reads back as the same float64: the Python script's
    literal (whole numbers as integers, the rest and -0.0 as ``repr``), which C++ reads
    exactly."""
    assert math.isfinite(value), "the parser refuses constants that are inf or NaN"
    return python_literal(value)


def _source(node: Node, names: Mapping[str, str]) -> str:
    match node:
        case Node(const=value) if value is not None:
            return _number(value)
        case Var(name=name):
            return names.get(name, name)
        case Neg(arg=arg):
            return f"-{_atom(arg, names)}"
        case Call(func="softplus", arg=arg):
            # log(1 + e^a) as the evaluator computes it, a side at a time, the argument once
            return f"{SOFTPLUS}({_source(arg, names)})"
        case Call(func="polygamma", arg=arg, index=n):
            return f"torch::polygamma({n}, {_source(arg, names)})"
        case Call(func="i1", arg=arg):
            return f"torch::special::i1({_source(arg, names)})"  # not in torch::'s namespace
        case Call(func=func, arg=arg):
            return f"torch::{func}({_source(arg, names)})"  # every other function has its name
        case Binary(op="**", left=Node(const=base), right=exponent) if base is not None:
            return f"torch::pow({_number(base)}, {_source(exponent, names)})"
        case Binary(op="**", left=base, right=exponent) if _in_order(node):
            return f"{_atom(base, names)}.pow({_source(exponent, names)})"
        case Binary(op="**", left=base, right=exponent):  # a constant exponent stays a number
            return f"torch::pow({_source(base, names)}, {_source(exponent, names)})"
        case Binary(op="-", left=Node(const=number), right=right) if number is not None:
            return f"torch::rsub({_source(right, names)}, {_number(number)})"  # Python: rsub
        case Binary(op="/", left=Node(const=number), right=right) if number is not None:
            # Python's number / tensor is tensor.reciprocal() * number
            return f"torch::reciprocal({_source(right, names)}) * {_operand(node.left, names)}"
        case Binary(op=op, left=left, right=right) if _in_order(node):
            return f"{_atom(left, names)}.{_METHODS[op]}({_source(right, names)})"
        case Binary(op=op, left=left, right=right):  # + - * /, a number or a name on one side
            return f"{_operand(left, names)} {op} {_operand(right, names)}"
        case _:
            raise AssertionError(f"not a node of the language: {node!r}")


_METHODS = {"+": "add", "-": "sub", "*": "mul", "/": "div"}


def _in_order(node: Node) -> bool:
    """Whether ``node`` is a binary op both of whose operands add nodes to the graph. Python
    evaluates ``a * b`` left first; C++ leaves the order of an operator's (or a function's)
    operands open, and g++ often builds ``b`` first. The order the graph's nodes are made in
    decides the order the engine adds up gradients in, so the last digit can differ. In
    ``a.mul(b)`` C++17 evaluates ``a`` first, as Python does."""
    match node:
        case Binary(left=left, right=right):
            return all(part.const is None and not isinstance(part, Var) for part in (left, right))
    return False


def _operand(node: Node, names: Mapping[str, str]) -> str:
    """An operand of + - * /: a number becomes a 0-dim float64 tensor, as Python passes a
    number to these ops (``x * 2`` is ``MulBackward0`` there; LibTorch's ``x * 2`` would call
    the Scalar overload, ``MulBackward1``). The values are the same float64 arithmetic."""
    if node.const is not None:
        return f"torch::scalar_tensor({_number(node.const)}, torch::kFloat64)"
    return _atom(node, names)


def _atom(node: Node, names: Mapping[str, str]) -> str:
    """The source of ``node`` as an operand: parenthesised unless a name, a call or a number
    that is not negative."""
    text = _source(node, names)
    match node:
        case Node(const=value) if value is not None:
            return f"({text})" if text.startswith("-") else text
        case Var() | Call():
            return text
        case Binary(op="**"):
            return text  # written as the call torch::pow(...) or a.pow(b)
        case Binary() if _in_order(node):
            return text  # written as the call a.mul(b)
        case _:
            return f"({text})"


def cpp_source(fn: Function | Node, names: Mapping[str, str] | None = None) -> str:
    """The LibTorch expression that :meth:`Function.torch` evaluates, as C++ source.

    Args:
        fn: a parsed function, or its tree.
        names: the name each variable has in the source, where it differs from its own (see
            :func:`cpp_name`).

    Returns:
        One C++ expression that needs ``<torch/torch.h>`` and the variables as float64
        tensors (``torch::Tensor``).

    Example:
        >>> from hograd_core.language import parse
        >>> cpp_source(parse("sin(x)*exp(-x^2)"))
        'torch::sin(x).mul(torch::exp(-torch::pow(x, 2)))'
        >>> cpp_source(parse("1 - 2/t"), {"t": "x"})
        'torch::rsub(torch::reciprocal(x) * torch::scalar_tensor(2, torch::kFloat64), 1)'
    """
    tree = fn.tree if isinstance(fn, Function) else fn
    if tree.const is not None:
        return f"torch::tensor({tree.const!r}, {_DOUBLE})"
    return _source(tree, names or {})


_CPP_WORDS = """alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t
    char16_t char32_t class compl concept const consteval constexpr constinit const_cast
    continue co_await co_return co_yield decltype default delete do double dynamic_cast else
    enum explicit export extern false float for friend goto if inline int long mutable
    namespace new noexcept not not_eq nullptr operator or or_eq private protected public
    register reinterpret_cast requires return short signed sizeof static static_assert
    static_cast struct switch template this thread_local throw true try typedef typeid
    typename union unsigned using virtual void volatile wchar_t while xor xor_eq final override
    import module main std torch at c10 caffe2 errno stdin stdout stderr assert offsetof
    setjmp va_arg va_copy va_end va_start unix linux i386 major minor printf size_t"""
#: Names a C++ program here may not give a variable: C++'s keywords and alternative tokens,
#: the namespaces and functions the programs call unqualified or qualify, and the macros of the
#: C library a lowercase name could hit (``errno``, ``stdout``, ``assert``). Names without a
#: lowercase letter are refused as well (:func:`cpp_name`): they may be macros of the C or
#: LibTorch headers (``NULL``, ``EOF``, ``NAN``, ``TORCH_CHECK``).
CPP_TAKEN: frozenset[str] = frozenset(_CPP_WORDS.split())


def _usable_in_cpp(name: str) -> bool:
    return (
        name.isidentifier()
        and name.isascii()
        and any(c.islower() for c in name)  # all capitals: may be a macro
        and "__" not in name  # reserved for the implementation in C++
        and not (name.startswith("_") and (len(name) == 1 or not name[1].islower()))
    )


def cpp_name(name: str, taken: Collection[str]) -> str:
    """``name`` if a C++ program can use it for a variable next to the ``taken`` names, else
    the first of "x", "x_", "x1_", "x2_", ... that is free: the rule of
    :func:`~hograd_core.language.to_source.python_name`, with C++'s names refused
    (:data:`CPP_TAKEN`). The Python names refused there are refused here too, so a variable
    keeps one name in both languages' programs wherever Python keeps it.
    """
    unusable = CPP_TAKEN.union(ALWAYS_TAKEN, taken)
    if _usable_in_cpp(name) and name not in unusable:
        return name
    candidates = chain(["x"], (f"x{i or ''}_" for i in count()))
    return next(c for c in candidates if c not in unusable)
