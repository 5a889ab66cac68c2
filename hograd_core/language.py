"""The function language: what a learner may type, parsed without ever executing it.

A small tokenizer and a recursive-descent parser turn text such as ``sin(x)*exp(-x^2)`` into a
tree of frozen dataclasses. Nothing the user types reaches ``eval``, ``exec``, ``sympify`` or any
other code path that runs Python: names can only become variables, the constants ``pi`` and
``e``, or one of the functions in :data:`FUNCTIONS`, and no live Python object (a module,
``torch``) is reachable from the text. The same validated tree then builds the PyTorch
computation (:meth:`Function.torch`) and the sympy expression (:meth:`Function.sympy`), so the
numbers and the formula on screen always describe one function.

Grammar (``^`` is a synonym of ``**``; powers bind tighter than unary minus, as in Python)::

    expr  := term (("+" | "-") term)*
    term  := unary (("*" | "/") unary)*
    unary := ("-" | "+") unary | power
    power := atom (("**" | "^") unary)?
    atom  := NUMBER | NAME | FUNC "(" expr ")" | "(" expr ")"
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from .errors import ExpressionError

__all__ = ["parse", "Function", "FUNCTIONS", "CONSTANTS", "LIMITS", "natural_key"]

#: Functions of one argument the language knows.
FUNCTIONS: tuple[str, ...] = (
    "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh",
    "exp", "log", "sqrt", "abs", "sigmoid", "softplus", "relu", "erf",
)  # fmt: skip

#: Named constants and their float64 values.
CONSTANTS: dict[str, float] = {"pi": math.pi, "e": math.e}


@dataclass(frozen=True)
class Limits:
    """Bounds checked before any work is done (each one keeps a request cheap)."""

    max_length: int = 200  # characters, checked before tokenizing
    max_nodes: int = 150  # tree nodes: numbers, names, operators and calls
    max_depth: int = 30  # nesting of parentheses, calls, signs and powers
    max_literal: float = 1e6  # largest |number| that may be typed
    max_variables: int = 10
    max_name: int = 24  # characters in one variable name


LIMITS = Limits()

# Words of Python that a learner might try, with the key of the message that explains them.
_KEYWORDS = {
    "lambda": "expr.lambda",
    "and": "expr.boolean", "or": "expr.boolean", "not": "expr.boolean",
    "is": "expr.comparison", "in": "expr.comparison",
    "if": "expr.conditional", "else": "expr.conditional",
    "for": "expr.comprehension", "async": "expr.comprehension", "await": "expr.statement",
    "import": "expr.statement", "from": "expr.statement", "def": "expr.statement",
    "class": "expr.statement", "return": "expr.statement", "del": "expr.statement",
    "global": "expr.statement", "nonlocal": "expr.statement", "while": "expr.statement",
    "with": "expr.statement", "try": "expr.statement", "except": "expr.statement",
    "raise": "expr.statement", "assert": "expr.statement", "yield": "expr.statement",
    "pass": "expr.statement", "break": "expr.statement", "continue": "expr.statement",
    "finally": "expr.statement", "elif": "expr.conditional",
    "None": "expr.python_value", "True": "expr.python_value", "False": "expr.python_value",
}  # fmt: skip

# ASCII characters outside the language, each with the message that explains it.
_PUNCTUATION = {
    "'": "expr.string", '"': "expr.string", "[": "expr.subscript", "]": "expr.subscript",
    "{": "expr.braces", "}": "expr.braces", "<": "expr.comparison", ">": "expr.comparison",
    "!": "expr.comparison", "=": "expr.assignment", "&": "expr.boolean", "|": "expr.boolean",
    "~": "expr.boolean", "%": "expr.modulo", ":": "expr.colon", ";": "expr.statement",
    "#": "expr.comment", "@": "expr.matmul", "\\": "expr.backslash", "$": "expr.symbol",
    "?": "expr.symbol", "`": "expr.symbol",
}  # fmt: skip

# Non-ASCII characters that have an obvious ASCII spelling.
_UNICODE_HINTS = {
    "π": "pi", "²": "**2", "³": "**3", "¹": "**1", "⁴": "**4", "×": "*", "·": "*", "⋅": "*",
    "÷": "/", "−": "-", "–": "-", "—": "-", "（": "(", "）": ")", "，": ",", "√": "sqrt(...)",
    "ℯ": "e", "∗": "*", "＋": "+", "－": "-", "＊": "*", "／": "/", "＾": "^",
}  # fmt: skip

_NUMBER = re.compile(r"(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def natural_key(name: str) -> tuple:
    """Sort key that orders ``w1, w2, w10`` and ``x, y, z`` as a person would."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name))


# ----------------------------------------------------------------------------------------------
# The tree. Every node knows its float64 value when it involves no variable (``const``), so
# constant towers such as 9**9**9 are found at parse time and never computed with Python ints.


@dataclass(frozen=True)
class Node:
    const: float | None = field(default=None, kw_only=True)


@dataclass(frozen=True)
class Num(Node):
    value: float
    text: str


@dataclass(frozen=True)
class Var(Node):
    name: str


@dataclass(frozen=True)
class Const(Node):
    name: str


@dataclass(frozen=True)
class Neg(Node):
    arg: Node


@dataclass(frozen=True)
class Binary(Node):
    op: str  # one of + - * / **
    left: Node
    right: Node


@dataclass(frozen=True)
class Call(Node):
    func: str
    arg: Node


def _fold(op: str, *args: float) -> float:
    """Value of a constant node in float64 (overflow gives inf, never a Python exception)."""
    with np.errstate(all="ignore"):
        a = np.float64(args[0])
        if op == "neg":
            return float(-a)
        if op in _NUMPY_FUNCS:
            return float(_NUMPY_FUNCS[op](a))
        b = np.float64(args[1])
        if op == "+":
            return float(a + b)
        if op == "-":
            return float(a - b)
        if op == "*":
            return float(a * b)
        if op == "/":
            return float(np.divide(a, b))
        return float(np.power(a, b))


_NUMPY_FUNCS = {
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos,
    "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "exp": np.exp,
    "log": np.log, "sqrt": np.sqrt, "abs": np.abs, "sigmoid": lambda a: 1 / (1 + np.exp(-a)),
    "softplus": lambda a: np.logaddexp(a, 0.0), "relu": lambda a: np.maximum(a, 0.0),
    "erf": math.erf,
}  # fmt: skip


# ----------------------------------------------------------------------------------------------
# Tokenizer


@dataclass(frozen=True)
class _Token:
    kind: str  # num, name, op, lpar, rpar, comma, end
    text: str
    pos: int  # 0-based index into the text


def _char_label(ch: str) -> str:
    """How to show a character in a message: itself if visible, else its code point."""
    code = f"U+{ord(ch):04X}"
    name = unicodedata.name(ch, "")
    if ch.isprintable() and not ch.isspace() and unicodedata.category(ch)[0] != "C":
        return f"'{ch}' ({code} {name})".rstrip() if name else f"'{ch}' ({code})"
    return f"{code} {name}".strip()


def _digit(ch: str) -> bool:
    return "0" <= ch <= "9" and len(ch) == 1


def _letter(ch: str) -> bool:
    return len(ch) == 1 and ch.isascii() and (ch.isalpha() or ch == "_")


def _letter_or_digit(ch: str) -> bool:
    return _letter(ch) or _digit(ch)


def _tokenize(text: str) -> list[_Token]:
    """Split ``text`` into tokens, or raise at the first character outside the language.

    If the text starts with a Python keyword or a dunder name ("lambda: 1", "__import__('os')"),
    that is reported instead: it is the real mistake, the character only its consequence.
    """
    try:
        return _tokenize_raw(text)
    except ExpressionError:
        m = _NAME.search(text)
        if m and (m.start() == 0 or not _letter_or_digit(text[m.start() - 1])):
            word, col = m.group(0), m.start() + 1
            if word in _KEYWORDS:
                raise ExpressionError(_KEYWORDS[word], text=word, col=col) from None
            if word.startswith("_"):
                raise ExpressionError("expr.underscore", text=word, col=col) from None
        raise


def _tokenize_raw(text: str) -> list[_Token]:
    tokens: list[_Token] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        col = i + 1
        if ch in " \t":
            i += 1
            continue
        if not ch.isascii():
            if ch in _UNICODE_HINTS:
                raise ExpressionError(
                    "expr.unicode_hint", char=_char_label(ch), col=col, fix=_UNICODE_HINTS[ch]
                )
            if unicodedata.category(ch) in ("Cf", "Zs", "Zl", "Zp", "Cc"):
                raise ExpressionError("expr.invisible", char=_char_label(ch), col=col)
            raise ExpressionError("expr.non_ascii", char=_char_label(ch), col=col)
        if _digit(ch) or (ch == "." and i + 1 < n and _digit(text[i + 1])):
            m = _NUMBER.match(text, i)
            assert m is not None
            num = m.group(0)
            end = m.end()
            if (
                num == "0"
                and text[end : end + 1] in ("x", "X", "b", "B", "o", "O")
                and _letter_or_digit(text[end + 1 : end + 2])
            ):
                raise ExpressionError("expr.base_prefix", text=text[i : end + 1], col=col)
            if end < n and _letter(text[end]):
                nm = _NAME.match(text, end)
                right = nm.group(0) if nm else text[end]
                raise ExpressionError(
                    "expr.implicit_mul", text=num + right, col=col, fix=f"{num}*{right}"
                )
            value = float(num)
            if not math.isfinite(value) or abs(value) > LIMITS.max_literal:
                raise ExpressionError("expr.literal_too_big", text=num, col=col, limit="1e6")
            tokens.append(_Token("num", num, i))
            i = end
            continue
        if _letter(ch):
            m = _NAME.match(text, i)
            assert m is not None
            tokens.append(_Token("name", m.group(0), i))
            i = m.end()
            continue
        if ch == "*" and text.startswith("**", i):
            tokens.append(_Token("op", "**", i))
            i += 2
            continue
        if ch == "^":
            tokens.append(_Token("op", "**", i))
            i += 1
            continue
        if ch in "+-*/":
            tokens.append(_Token("op", ch, i))
            i += 1
            continue
        if ch == "(":
            tokens.append(_Token("lpar", ch, i))
        elif ch == ")":
            tokens.append(_Token("rpar", ch, i))
        elif ch == ",":
            tokens.append(_Token("comma", ch, i))
        elif ch == ".":
            prev = tokens[-1] if tokens else None
            if (
                prev is not None
                and prev.kind in ("name", "rpar")
                and prev.pos + len(prev.text) == i
            ):
                m = _NAME.match(text, i + 1)
                attr = m.group(0) if m else ""
                start = prev.pos if prev.kind == "name" else i
                raise ExpressionError(
                    "expr.attribute", text=text[start : i + 1] + attr, col=start + 1
                )
            raise ExpressionError("expr.stray_dot", col=col)
        elif ch in "=" and text.startswith("==", i):
            raise ExpressionError("expr.comparison", text="==", col=col)
        elif ch in _PUNCTUATION:
            raise ExpressionError(_PUNCTUATION[ch], text=ch, col=col)
        elif ch.isspace() or not ch.isprintable():
            raise ExpressionError("expr.invisible", char=_char_label(ch), col=col)
        else:  # pragma: no cover - every printable ASCII character is handled above
            raise ExpressionError("expr.non_ascii", char=_char_label(ch), col=col)
        i += 1
    tokens.append(_Token("end", "", n))
    return tokens


# ----------------------------------------------------------------------------------------------
# Parser


class _Parser:
    def __init__(self, text: str, tokens: list[_Token], allowed: Sequence[str] | None) -> None:
        self.text = text
        self.tokens = tokens
        self.i = 0
        self.depth = 0
        self.nodes = 0
        self.allowed = allowed
        self.names: set[str] = set()

    # helpers -------------------------------------------------------------------------------
    def peek(self) -> _Token:
        return self.tokens[self.i]

    def take(self) -> _Token:
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def node(self, node: Node) -> Node:
        self.nodes += 1
        if self.nodes > LIMITS.max_nodes:
            raise ExpressionError("expr.too_many_nodes", limit=LIMITS.max_nodes)
        return node

    def enter(self, tok: _Token) -> None:
        self.depth += 1
        if self.depth > LIMITS.max_depth:
            raise ExpressionError("expr.too_deep", limit=LIMITS.max_depth, col=tok.pos + 1)

    def unexpected(self, tok: _Token) -> ExpressionError:
        if tok.kind == "end":
            return ExpressionError("expr.unexpected_end", col=tok.pos + 1)
        return ExpressionError("expr.unexpected", text=tok.text, col=tok.pos + 1)

    # grammar -------------------------------------------------------------------------------
    def parse(self) -> Node:
        tree = self.expr()
        tok = self.peek()
        if tok.kind != "end":
            if tok.kind in ("num", "name", "lpar"):
                self.parse_trailing_error(tok)
            if tok.kind == "rpar":
                raise ExpressionError("expr.unbalanced_close", col=tok.pos + 1)
            if tok.kind == "comma":
                raise ExpressionError("expr.comma", col=tok.pos + 1)
            raise self.unexpected(tok)
        return tree

    def expr(self) -> Node:
        left = self.term()
        while self.peek().kind == "op" and self.peek().text in "+-" and len(self.peek().text) == 1:
            op = self.take().text
            right = self.term()
            left = self.binary(op, left, right)
        return left

    def term(self) -> Node:
        left = self.unary()
        while self.peek().kind == "op" and self.peek().text in ("*", "/"):
            tok = self.take()
            if self.peek().kind == "op" and self.peek().text == "*":
                raise ExpressionError("expr.starred", col=self.peek().pos + 1)
            left = self.binary(tok.text, left, self.unary())
        return left

    def unary(self) -> Node:
        tok = self.peek()
        if tok.kind == "op" and tok.text in "+-" and len(tok.text) == 1:
            self.take()
            self.enter(tok)
            arg = self.unary()
            self.depth -= 1
            if tok.text == "+":
                return arg
            return self.node(Neg(arg, const=None if arg.const is None else _fold("neg", arg.const)))
        return self.power()

    def power(self) -> Node:
        base = self.atom()
        tok = self.peek()
        if tok.kind == "op" and tok.text == "**":
            self.take()
            self.enter(tok)
            exponent = self.unary()
            self.depth -= 1
            return self.binary("**", base, exponent)
        return base

    def atom(self) -> Node:
        tok = self.take()
        if tok.kind == "num":
            value = float(tok.text)
            return self.node(Num(value, tok.text, const=value))
        if tok.kind == "lpar":
            self.enter(tok)
            if self.peek().kind == "rpar":
                raise ExpressionError("expr.empty_parens", col=tok.pos + 1)
            inner = self.expr()
            close = self.take()
            if close.kind != "rpar":
                if close.kind == "comma":
                    raise ExpressionError("expr.comma", col=close.pos + 1)
                if close.kind == "end":
                    raise ExpressionError("expr.unbalanced_open", col=tok.pos + 1)
                self.i -= 1
                self.parse_trailing_error(close)
            self.depth -= 1
            return inner
        if tok.kind == "name":
            return self.name(tok)
        if tok.kind == "op" and tok.text in ("*", "**"):
            raise ExpressionError("expr.starred", col=tok.pos + 1)
        if tok.kind == "rpar":
            raise ExpressionError("expr.unbalanced_close", col=tok.pos + 1)
        raise self.unexpected(tok)

    def parse_trailing_error(self, tok: _Token) -> None:
        """Two operands in a row: a Python keyword, or a product written without '*'."""
        prev = self.tokens[self.i - 1]
        if tok.kind == "name" and tok.text in _KEYWORDS:
            raise ExpressionError(_KEYWORDS[tok.text], text=tok.text, col=tok.pos + 1)
        if tok.kind in ("num", "name", "lpar"):
            shown = self.text[prev.pos : tok.pos + len(tok.text)]
            raise ExpressionError(
                "expr.implicit_mul", text=shown, col=prev.pos + 1, fix=f"{prev.text}*{tok.text}"
            )
        raise self.unexpected(tok)

    def name(self, tok: _Token) -> Node:
        word = tok.text
        col = tok.pos + 1
        if word in _KEYWORDS:
            raise ExpressionError(_KEYWORDS[word], text=word, col=col)
        if word.startswith("_"):
            raise ExpressionError("expr.underscore", text=word, col=col)
        called = self.peek().kind == "lpar"
        if word in FUNCTIONS:
            if not called:
                raise ExpressionError("expr.function_needs_call", text=word, col=col)
            return self.call(tok)
        if called:
            suggestion = _closest_function(word)
            key = "expr.unknown_function_hint" if suggestion else "expr.unknown_function"
            raise ExpressionError(
                key, text=word, col=col, fix=suggestion or "", known=", ".join(FUNCTIONS)
            )
        if word in CONSTANTS:
            return self.node(Const(word, const=CONSTANTS[word]))
        if len(word) > LIMITS.max_name:
            raise ExpressionError(
                "expr.name_too_long", text=word[:12] + "...", col=col, limit=LIMITS.max_name
            )
        if self.allowed is not None and word not in self.allowed:
            raise ExpressionError(
                "expr.unknown_variable", text=word, col=col, allowed=", ".join(self.allowed)
            )
        self.names.add(word)
        if len(self.names) > LIMITS.max_variables:
            raise ExpressionError("expr.too_many_variables", limit=LIMITS.max_variables, col=col)
        return self.node(Var(word))

    def call(self, tok: _Token) -> Node:
        open_tok = self.take()
        self.enter(open_tok)
        nxt = self.peek()
        if nxt.kind == "rpar":
            raise ExpressionError("expr.arity", text=tok.text, col=tok.pos + 1, got=0)
        if nxt.kind == "op" and nxt.text in ("*", "**"):
            raise ExpressionError("expr.starred", col=nxt.pos + 1)
        arg = self.expr()
        close = self.take()
        if close.kind == "comma":
            raise ExpressionError("expr.arity", text=tok.text, col=tok.pos + 1, got="2+")
        if close.kind == "end":
            raise ExpressionError("expr.unbalanced_open", col=open_tok.pos + 1)
        if close.kind != "rpar":
            self.i -= 1
            self.parse_trailing_error(close)
        self.depth -= 1
        const = None if arg.const is None else _fold(tok.text, arg.const)
        return self.node(Call(tok.text, arg, const=const))

    def binary(self, op: str, left: Node, right: Node) -> Node:
        const = None
        if left.const is not None and right.const is not None:
            const = _fold(op, left.const, right.const)
        return self.node(Binary(op, left, right, const=const))


def _closest_function(word: str) -> str | None:
    import difflib

    aliases = {"ln": "log", "arcsin": "asin", "arccos": "acos", "arctan": "atan", "sgn": "abs",
               "exp2": "exp", "logistic": "sigmoid", "pow": "x**y", "power": "x**y"}  # fmt: skip
    if word.lower() in aliases:
        return aliases[word.lower()]
    if word.lower() in FUNCTIONS:
        return word.lower()
    match = difflib.get_close_matches(word, FUNCTIONS, n=1, cutoff=0.75)
    return match[0] if match else None


def _check_constants(node: Node) -> None:
    """Refuse a constant part that is not a finite float64 (9**9**9, log(-1), 1/0)."""
    stack = [node]
    while stack:
        cur = stack.pop()
        if cur.const is not None and not math.isfinite(cur.const):
            raise ExpressionError("expr.constant_not_finite", text=_show(cur), value=str(cur.const))
        if cur.const is None:
            stack.extend(child for child in _children(cur))


def _children(node: Node) -> tuple[Node, ...]:
    if isinstance(node, Neg | Call):
        return (node.arg,)
    if isinstance(node, Binary):
        return (node.left, node.right)
    return ()


def _show(node: Node) -> str:
    """The node written back in the language (fully parenthesised where it matters)."""
    if isinstance(node, Num):
        return node.text
    if isinstance(node, Var | Const):
        return node.name
    if isinstance(node, Neg):
        return f"-{_wrap(node.arg)}"
    if isinstance(node, Call):
        return f"{node.func}({_show(node.arg)})"
    assert isinstance(node, Binary)
    return f"{_wrap(node.left)}{node.op}{_wrap(node.right)}"


def _wrap(node: Node) -> str:
    return f"({_show(node)})" if isinstance(node, Binary | Neg) else _show(node)


# ----------------------------------------------------------------------------------------------
# Public API


@dataclass(frozen=True)
class Function:
    """A validated function of the language.

    Attributes:
        text: what the user typed.
        tree: the parsed tree (frozen dataclasses; safe to pickle and cache).
        variables: the variable names, in natural order unless the caller named them.
        size: number of tree nodes.
    """

    text: str
    tree: Node
    variables: tuple[str, ...]
    size: int

    @cached_property
    def latex(self) -> str:
        """LaTeX of the function as typed (built by sympy from the tree, never from the text)."""
        from .symbolic import to_latex

        return to_latex(self)

    def sympy(self):  # noqa: ANN201 - sympy.Expr; typed loosely to keep sympy import lazy
        """The sympy expression of the function, with real symbols named as the variables."""
        from .symbolic import to_sympy

        return to_sympy(self)

    def torch(self, env: Mapping[str, object]):  # noqa: ANN201 - torch.Tensor
        """Evaluate with PyTorch: ``env`` maps each variable name to a float64 tensor."""
        from .evaluate import evaluate

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
    if not isinstance(text, str):
        raise ExpressionError("expr.not_text", got=type(text).__name__)
    if len(text) > LIMITS.max_length:
        raise ExpressionError("expr.too_long", length=len(text), limit=LIMITS.max_length)
    if not text.strip():
        raise ExpressionError("expr.empty")
    try:
        tokens = _tokenize(text)
        parser = _Parser(text, tokens, variables)
        tree = parser.parse()
    except ExpressionError:
        raise
    except (SyntaxError, RecursionError, MemoryError, ValueError, OverflowError) as err:
        raise ExpressionError("expr.invalid", detail=type(err).__name__) from err
    _check_constants(tree)
    names = (
        tuple(variables) if variables is not None else tuple(sorted(parser.names, key=natural_key))
    )
    return Function(text=text, tree=tree, variables=names, size=parser.nodes)
