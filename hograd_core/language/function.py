"""A parsed function of the language, and :func:`parse`, which makes one.

The same validated tree builds the PyTorch computation (:meth:`Function.torch`), the sympy
expression (:meth:`Function.sympy`) and its LaTeX (:attr:`Function.latex`), so the numbers and
the formula on screen always describe one function.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from .nodes import Node
from .parser import parse_tree

if TYPE_CHECKING:
    import sympy
    import torch

__all__ = ["Function", "parse"]


@dataclass(frozen=True)
class Function:
    """A validated function of the language.

    Attributes:
        text: what the user typed.
        tree: the parsed tree (frozen dataclasses; safe to pickle and cache).
        variables: the variable names, in natural order unless the caller named them.
        size: number of tree nodes.

    Note:
        The backends are imported when first used, not with this module: a process that
        parses and evaluates with torch never loads sympy.
    """

    text: str
    tree: Node
    variables: tuple[str, ...]
    size: int

    @cached_property
    def latex(self) -> str:
        """LaTeX of the function as typed (built by sympy from the tree, never from the text)."""
        from .to_sympy import to_latex

        return to_latex(self.tree)

    @cached_property
    def latex_variables(self) -> tuple[str, ...]:
        """Each variable's name in LaTeX, printed by sympy as :attr:`latex` prints it (``w1`` is
        ``w_{1}``, ``alpha`` is ``\\alpha``, ``a__b`` is ``a^{b}``): a label such as ``f(x)``
        written next to the formula names the variable as the formula does, and is valid
        LaTeX (the raw name ``a__b`` is a double subscript)."""
        from .to_sympy import name_latex, symbol

        return tuple(name_latex(symbol(name)) for name in self.variables)

    def sympy(self) -> sympy.Expr:
        """The sympy expression of the function, with real symbols named as the variables."""
        from .to_sympy import to_sympy

        return to_sympy(self.tree)

    def torch(self, env: Mapping[str, torch.Tensor]) -> torch.Tensor:
        """Evaluate with PyTorch: ``env`` maps each variable name to a float64 tensor."""
        from .to_torch import evaluate

        return evaluate(self.tree, env)


def parse(text: str, variables: Sequence[str] | None = None) -> Function:
    """Parse a typed function into a :class:`Function`.

    Args:
        text: the function as typed, e.g. ``"sin(x)*exp(-x^2)"`` or ``"w1**2*sin(w2)"``.
        variables: if given, the only variable names allowed, in this order.

    Returns:
        The validated function.

    Raises:
        ExpressionError: the text is not in the language or exceeds a limit; the message names
            the offending piece, its column and the fix.

    Example:
        >>> parse("x^3").variables
        ('x',)
    """
    tree, names, size = parse_tree(text, variables)
    return Function(text=text, tree=tree, variables=names, size=size)
