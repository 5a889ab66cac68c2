"""A parsed function of the language, and :func:`parse`, which makes one.

The same validated tree builds the PyTorch computation (:meth:`Function.torch`), the sympy
expression and its LaTeX (:func:`.to_sympy.to_sympy`, :func:`.to_sympy.to_latex`: functions of
the tree, not methods, so that importing this module never reaches sympy; the app runs them
in a child process, hograd_serving/exact.py), so the numbers and the formula on screen always
describe one function.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .nodes import Node
from .parser import parse_tree

if TYPE_CHECKING:
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
        The torch backend is imported when first used, not with this module: a process that
        only parses never loads torch.
    """

    text: str
    tree: Node
    variables: tuple[str, ...]
    size: int

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
