"""The PyTorch source of a parsed function: the one generator behind every "show the code".

The source is the computation :func:`~hograd_core.language.to_torch.evaluate` performs, written
out as a Python expression, so running it builds the same graph (the same ``grad_fn`` types)
with the same float64 numbers:

* every constant part is the float64 value folded at parse time, written so that Python reads
  back exactly that value: a whole number as an integer (``x**3`` becomes ``x ** 3``), any
  other as its ``repr`` (``2*pi*x`` becomes ``6.283185307179586 * x``), and ``sin(1)`` never
  reaches Python's ``math`` module;
* a constant exponent stays a Python float and a constant base goes through ``torch.pow``, as
  in the evaluator;
* a function with no variable is a float64 tensor, as it is evaluated.
"""

from __future__ import annotations

import builtins
import keyword
import math
from collections.abc import Collection, Mapping
from itertools import chain, count

from .function import Function
from .nodes import Binary, Call, Neg, Node, Var

__all__ = ["ALWAYS_TAKEN", "python_name", "torch_source"]


def _number(value: float) -> str:
    """``value`` as a Python literal that reads back as the same float64 in every operation
    here: whole numbers as integers (easier to read), the rest, and -0.0, as floats."""
    negative_zero = value == 0 and math.copysign(1.0, value) < 0
    whole = value.is_integer() and abs(value) < 2**53 and not negative_zero
    return str(int(value)) if whole else repr(value)


#: softplus as :func:`~hograd_core.language.to_torch.evaluate` computes it (see ``_softplus``
#: there: finite derivatives of every order on both sides, no linear cut-off).
SOFTPLUS = (
    "(lambda a: torch.where(a > 0, -torch.nn.functional.logsigmoid(-a), "
    "torch.nn.functional.softplus(a)))"
)


def _source(node: Node, names: Mapping[str, str]) -> str:
    match node:
        case Node(const=value) if value is not None:
            return _number(value)
        case Var(name=name):
            return names.get(name, name)
        case Neg(arg=arg):
            return f"-{_atom(arg, names)}"
        case Call(func="softplus", arg=arg):
            # log(1 + e^a) as the evaluator computes it, a side at a time, with the argument
            # computed once (a lambda's parameter hides no variable of the script).
            return f"{SOFTPLUS}({_source(arg, names)})"
        case Call(func="polygamma", arg=arg, index=n):
            return f"torch.polygamma({n}, {_source(arg, names)})"
        case Call(func="i1", arg=arg):
            return f"torch.special.i1({_source(arg, names)})"  # not in torch's namespace
        case Call(func=func, arg=arg):
            return f"torch.{func}({_source(arg, names)})"  # every other function has its name
        case Binary(op="**", left=Node(const=base), right=exponent) if base is not None:
            return f"torch.pow({_number(base)}, {_source(exponent, names)})"
        case Binary(op="**", left=base, right=Node(const=None) as exponent):
            return f"torch.pow({_source(base, names)}, {_source(exponent, names)})"
        case Binary(op=op, left=left, right=right):  # + - * /, and ** to a constant power
            return f"{_atom(left, names)} {op} {_atom(right, names)}"
        case _:
            raise AssertionError(f"not a node of the language: {node!r}")


def _atom(node: Node, names: Mapping[str, str]) -> str:
    """The source of ``node`` as an operand: parenthesised unless a name, a call or a number
    that is not negative."""
    text = _source(node, names)
    match node:
        case Node(const=value) if value is not None:
            return f"({text})" if text.startswith("-") else text
        case Var() | Call():
            return text
        case _:
            return f"({text})"


def torch_source(fn: Function | Node, names: Mapping[str, str] | None = None) -> str:
    """The PyTorch expression that :meth:`Function.torch` evaluates, as Python source.

    Args:
        fn: a parsed function, or its tree.
        names: the name each variable has in the source, where it differs from its own (see
            :func:`python_name`).

    Returns:
        One Python expression that needs only ``torch`` and the variables as float64 tensors.

    Example:
        >>> from hograd_core.language import parse
        >>> from hograd_core.language.to_source import torch_source
        >>> torch_source(parse("sin(x)*exp(-x^2)"))
        'torch.sin(x) * torch.exp(-(x ** 2))'
        >>> torch_source(parse("2**t"), {"t": "x"})
        'torch.pow(2, x)'
    """
    tree = fn.tree if isinstance(fn, Function) else fn
    if tree.const is not None:
        return f"torch.tensor({tree.const!r}, dtype=torch.float64)"
    return _source(tree, names or {})


#: Names every generated script or notebook may use without defining them: Python's
#: built-ins and keywords (soft ones too), and the names IPython puts in a notebook's namespace
#: (``display`` above all: a notebook's last cell may call it).
ALWAYS_TAKEN: frozenset[str] = frozenset(
    {*dir(builtins), *keyword.kwlist, *keyword.softkwlist, "display", "get_ipython", "In", "Out"}
)


def python_name(name: str, taken: Collection[str]) -> str:
    """``name`` if a script can use it for a variable next to the ``taken`` names, else the
    first of "x", "x_", "x1_", "x2_", ... that is free.

    A variable of the language may be called ``torch``, ``y``, ``as``, ``print`` or
    ``display``: in a script that would hide the module, clash with the script's own names,
    shadow a built-in the script (or IPython) calls, or not be Python. ``taken`` is the names
    the script itself defines or uses; :data:`ALWAYS_TAKEN` is added to it.
    """
    unusable = ALWAYS_TAKEN.union(taken)
    if name.isidentifier() and name not in unusable:
        return name
    candidates = chain(["x"], (f"x{i or ''}_" for i in count()))
    return next(c for c in candidates if c not in unusable)
