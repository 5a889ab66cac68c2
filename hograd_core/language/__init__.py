"""The function language: what a learner may type, parsed into a tree of a few node types.

Text never reaches ``eval``, ``sympify`` or anything else that runs code: a tokenizer and a
recursive-descent parser with an allow-list build the tree (:mod:`.nodes`), and each backend
walks that tree with one ``match``: PyTorch (:mod:`.to_torch`), sympy and LaTeX
(:mod:`.to_sympy`), the PyTorch source every "show the code" prints (:mod:`.to_source`), and
Taylor mode (:mod:`hograd_core.taylor`).
"""

from .function import Function, parse
from .nodes import Binary, Call, Const, Neg, Node, Num, Var
from .parser import CONSTANTS, FUNCTIONS, LIMITS, Limits, natural_key

__all__ = [
    "CONSTANTS",
    "FUNCTIONS",
    "LIMITS",
    "Binary",
    "Call",
    "Const",
    "Function",
    "Limits",
    "Neg",
    "Node",
    "Num",
    "Var",
    "natural_key",
    "parse",
]
