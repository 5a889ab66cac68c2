"""The tree a parsed function is made of: six node types, frozen dataclasses.

Every backend (PyTorch, sympy, Taylor mode, PyTorch source) walks this tree with one ``match``
over these types. Every node knows its float64 value when it involves no variable (``const``,
folded at parse time), so constant towers such as ``9**9**9`` are found before any work and
never computed with Python integers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Node", "Num", "Var", "Const", "Neg", "Binary", "Call"]


@dataclass(frozen=True)
class Node:
    """Base of the node types.

    Attributes:
        const: the node's value in float64 if it involves no variable, else None.
    """

    const: float | None = field(default=None, kw_only=True)


@dataclass(frozen=True)
class Num(Node):
    """A number as typed: ``value`` is ``float(text)``."""

    value: float
    text: str


@dataclass(frozen=True)
class Var(Node):
    """A variable, by name."""

    name: str


@dataclass(frozen=True)
class Const(Node):
    """A named constant: ``pi`` or ``e``."""

    name: str


@dataclass(frozen=True)
class Neg(Node):
    """Unary minus: ``-arg``."""

    arg: Node


@dataclass(frozen=True)
class Binary(Node):
    """``left op right``, ``op`` one of ``+ - * / **``."""

    op: str
    left: Node
    right: Node


@dataclass(frozen=True)
class Call(Node):
    """A function of the language applied to one argument: ``func(arg)``; for
    ``polygamma(n, x)``, ``index`` is its order n (a whole number typed as a constant), else
    None."""

    func: str
    arg: Node
    index: int | None = field(default=None, kw_only=True)
