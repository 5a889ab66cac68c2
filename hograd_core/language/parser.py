"""The parser of the function language: tokens to a tree of nodes, within fixed limits.

A recursive-descent parser with an allow-list turns the tokens of text such as
``sin(x)*exp(-x^2)`` into a tree of :mod:`~hograd_core.language.nodes`. Nothing the user types
reaches ``eval``, ``exec``, ``sympify`` or any other code path that runs Python: names can only
become variables, the constants ``pi`` and ``e``, or one of the functions in :data:`FUNCTIONS`,
and no live Python object (a module, ``torch``) is reachable from the text. Constant parts are
folded to float64 as they are built, so a constant that is not a finite number is refused here.

Grammar (``^`` is a synonym of ``**``; powers bind tighter than unary minus, as in Python)::

    expr  := term (("+" | "-") term)*
    term  := unary (("*" | "/") unary)*
    unary := ("-" | "+") unary | power
    power := atom (("**" | "^") unary)?
    atom  := NUMBER | NAME | FUNC "(" expr ")" | "polygamma" "(" expr "," expr ")" | "(" expr ")"

``polygamma(n, x)`` is the one function of two arguments: its order ``n`` must be a whole number
from 0 to :data:`MAX_POLYGAMMA` typed as a constant (``polygamma(2, x)``, ``polygamma(1+1, x)``),
so that every backend sees a function of x alone.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import ExpressionError
from .nodes import Binary, Call, Const, Neg, Node, Num, Var
from .tokenizer import KEYWORDS, Token, tokenize

__all__ = [
    "CONSTANTS",
    "EXCLUDED",
    "FUNCTIONS",
    "LIMITS",
    "MAX_POLYGAMMA",
    "Limits",
    "natural_key",
    "parse_tree",
    "show",
]

#: Functions of one argument the language knows.
FUNCTIONS: tuple[str, ...] = (
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "acosh",
    "atanh",
    "exp",
    "expm1",
    "log",
    "log1p",
    "sqrt",
    "abs",
    "sigmoid",
    "softplus",
    "relu",
    "erf",
    "erfc",
    "erfinv",
    "lgamma",
    "digamma",
    "polygamma",
    "i0",
    "i1",
)

#: The largest order n of ``polygamma(n, x)``: Taylor mode to order 30 then needs polygamma(40),
#: about 40!/x^41, still within float64 for x > 0.3.
MAX_POLYGAMMA = 10

#: Functions whose poles are the whole numbers 0, -1, -2, ... (lgamma = log|gamma|: gamma has
#: its poles there).
GAMMA_FAMILY = ("lgamma", "digamma", "polygamma")

#: Names a learner may try that are not functions of the language, each with why (the key of
#: its message) and what to write instead. Steps (sign, floor, ...) have derivative 0 wherever
#: they have one: nothing of higher order to show; sawtooths (frac, fmod, remainder) are x minus
#: a step, a straight line between their jumps. Every function here takes one argument.
EXCLUDED: dict[str, tuple[str, str]] = {
    "gamma": ("expr.excluded_rewrite", "gamma(x) = exp(lgamma(x)) where x > 0"),
    "ndtri": ("expr.excluded_rewrite", "ndtri(x) = sqrt(2)*erfinv(2*x - 1) where 0 < x < 1"),
    "i0e": ("expr.excluded_rewrite", "i0e(x) = exp(-abs(x))*i0(x)"),
    "i1e": ("expr.excluded_rewrite", "i1e(x) = exp(-abs(x))*i1(x)"),
    **{
        name: ("expr.excluded_step", "abs(x), relu(x)")
        for name in (
            "sign",
            "sgn",
            "heaviside",
            "step",
            "floor",
            "ceil",
            "round",
            "trunc",
            "fix",
            "signbit",
        )
    },
    # x minus a step: slope 1 between its jumps, and nothing of higher order
    "frac": ("expr.excluded_sawtooth", "x - n (frac(x) for n <= x < n + 1, n >= 0)"),
    "fmod": (
        "expr.excluded_sawtooth",
        "x - n*m (fmod(x, m) for n*m <= x < (n + 1)*m, x >= 0, m > 0)",
    ),
    "remainder": (
        "expr.excluded_sawtooth",
        "x - n*m (remainder(x, m) for n*m <= x < (n + 1)*m, m > 0)",
    ),
    "clamp": (
        "expr.excluded_two_args",
        "clamp(x, a, b) = a + relu(x - a) - relu(x - b) where a <= b",
    ),
    "clip": (
        "expr.excluded_two_args",
        "clamp(x, a, b) = a + relu(x - a) - relu(x - b) where a <= b",
    ),
    "max": ("expr.excluded_two_args", "max(x, y) = y + relu(x - y)"),
    "maximum": ("expr.excluded_two_args", "max(x, y) = y + relu(x - y)"),
    "min": ("expr.excluded_two_args", "min(x, y) = x - relu(x - y)"),
    "minimum": ("expr.excluded_two_args", "min(x, y) = x - relu(x - y)"),
    "atan2": ("expr.excluded_two_args", "atan2(y, x) = atan(y/x) where x > 0"),
    "arctan2": ("expr.excluded_two_args", "atan2(y, x) = atan(y/x) where x > 0"),
    "hypot": ("expr.excluded_two_args", "hypot(x, y) = sqrt(x^2 + y^2)"),
    "pow": ("expr.excluded_two_args", "pow(x, y) = x**y"),
    "power": ("expr.excluded_two_args", "pow(x, y) = x**y"),
    "log2": ("expr.excluded_rewrite", "log2(x) = log(x)/log(2)"),
    "log10": ("expr.excluded_rewrite", "log10(x) = log(x)/log(10)"),
    "exp2": ("expr.excluded_rewrite", "exp2(x) = 2**x"),
    "rsqrt": ("expr.excluded_rewrite", "rsqrt(x) = 1/sqrt(x)"),
    "square": ("expr.excluded_rewrite", "square(x) = x**2"),
    "reciprocal": ("expr.excluded_rewrite", "reciprocal(x) = 1/x"),
    "cbrt": ("expr.excluded_rewrite", "cbrt(x) = x**(1/3) where x > 0"),
    "logsigmoid": ("expr.excluded_rewrite", "logsigmoid(x) = -softplus(-x)"),
    "sinc": ("expr.excluded_rewrite", "sinc(x) = sin(pi*x)/(pi*x) where x != 0 (torch.sinc)"),
    "silu": ("expr.excluded_rewrite", "silu(x) = x*sigmoid(x)"),
    "swish": ("expr.excluded_rewrite", "silu(x) = x*sigmoid(x)"),
    "gelu": ("expr.excluded_rewrite", "gelu(x) = x*(1 + erf(x/sqrt(2)))/2"),
    "sech": ("expr.excluded_rewrite", "sech(x) = 1/cosh(x)"),
    "sec": ("expr.excluded_rewrite", "sec(x) = 1/cos(x)"),
    "csc": ("expr.excluded_rewrite", "csc(x) = 1/sin(x)"),
    "cot": ("expr.excluded_rewrite", "cot(x) = cos(x)/sin(x)"),
    "logit": ("expr.excluded_rewrite", "logit(x) = log(x/(1 - x))"),
    "expit": ("expr.excluded_rewrite", "expit(x) = sigmoid(x)"),
    "ndtr": ("expr.excluded_rewrite", "ndtr(x) = erfc(-x/sqrt(2))/2"),
    "log_ndtr": ("expr.excluded_rewrite", "log_ndtr(x) = log(erfc(-x/sqrt(2))/2)"),
    "erfcx": ("expr.excluded_rewrite", "erfcx(x) = exp(x^2)*erfc(x)"),
    "deg2rad": ("expr.excluded_rewrite", "deg2rad(x) = x*pi/180"),
    "rad2deg": ("expr.excluded_rewrite", "rad2deg(x) = x*180/pi"),
    "entr": ("expr.excluded_rewrite", "entr(x) = -x*log(x) where x > 0"),
    "xlogy": ("expr.excluded_two_args", "xlogy(x, y) = x*log(y) where y > 0"),
    "mvlgamma": (
        "expr.excluded_two_args",
        "mvlgamma(x, p) = p*(p - 1)/4*log(pi) + lgamma(x) + lgamma(x - 1/2) + ... "
        "+ lgamma(x - (p - 1)/2), p terms",
    ),
    # PyTorch computes their values and no derivative: the result does not require grad
    **{name: ("expr.excluded_no_grad", "") for name in ("bessel_j0", "bessel_j1")},
}

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


def natural_key(name: str) -> tuple:
    """Sort key that orders ``w1, w2, w10`` and ``x, y, z`` as a person would."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name))


# ----------------------------------------------------------------------------------------------
# Constant folding: every node that involves no variable gets its float64 value as it is built.


def _fold(op: str, *args: float, index: int | None = None) -> float:
    """Value of a constant node in float64 (overflow gives inf, never a Python exception);
    ``index`` is polygamma's n."""
    with np.errstate(all="ignore"):
        a = np.float64(args[0])
        if op == "neg":
            return float(-a)
        if op in _SCIPY_FUNCS:
            import scipy.special  # a runtime dependency, loaded only for a constant like this

            if op == "polygamma":
                return float(scipy.special.polygamma(index, a))
            return float(getattr(scipy.special, _SCIPY_FUNCS[op])(a))
        if op in _NUMPY_FUNCS:
            return float(_NUMPY_FUNCS[op](a))
        b = np.float64(args[1])
        match op:
            case "+":
                return float(a + b)
            case "-":
                return float(a - b)
            case "*":
                return float(a * b)
            case "/":
                return float(np.divide(a, b))
            case "**":
                return float(np.power(a, b))
            case _:
                raise AssertionError(f"not an operator of the language: {op!r}")


_NUMPY_FUNCS = {
    "sin": np.sin,
    "cos": np.cos,
    "tan": np.tan,
    "asin": np.arcsin,
    "acos": np.arccos,
    "atan": np.arctan,
    "sinh": np.sinh,
    "cosh": np.cosh,
    "tanh": np.tanh,
    "exp": np.exp,
    "log": np.log,
    "sqrt": np.sqrt,
    "abs": np.abs,
    "sigmoid": lambda a: 1 / (1 + np.exp(-a)),
    "softplus": lambda a: np.logaddexp(a, 0.0),
    "relu": lambda a: np.maximum(a, 0.0),
    "erf": math.erf,
    "erfc": math.erfc,
    "expm1": np.expm1,
    "log1p": np.log1p,
    "asinh": np.arcsinh,
    "acosh": np.arccosh,
    "atanh": np.arctanh,
    "i0": np.i0,
}
#: scipy.special's name of each function numpy lacks (inf or NaN at a pole, never an error).
_SCIPY_FUNCS = {
    "lgamma": "gammaln",
    "digamma": "psi",
    "polygamma": "",
    "erfinv": "erfinv",
    "i1": "i1",
}


# ----------------------------------------------------------------------------------------------
# Parser


class _Parser:
    """One parse: a method per rule of the grammar, counting nodes and depth against LIMITS."""

    def __init__(self, text: str, tokens: list[Token], allowed: Sequence[str] | None) -> None:
        self.text = text
        self.tokens = tokens
        self.i = 0
        self.depth = 0
        self.nodes = 0
        self.allowed = allowed
        self.names: set[str] = set()

    # helpers -------------------------------------------------------------------------------
    def peek(self) -> Token:
        return self.tokens[self.i]

    def take(self) -> Token:
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def node(self, node: Node) -> Node:
        self.nodes += 1
        if self.nodes > LIMITS.max_nodes:
            raise ExpressionError("expr.too_many_nodes", limit=LIMITS.max_nodes)
        return node

    def enter(self, tok: Token) -> None:
        self.depth += 1
        if self.depth > LIMITS.max_depth:
            raise ExpressionError("expr.too_deep", limit=LIMITS.max_depth, col=tok.pos + 1)

    def unexpected(self, tok: Token) -> ExpressionError:
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
        prev = self.tokens[self.i - 2] if self.i >= 2 else None
        if tok.kind == "op" and prev is not None and prev.kind == "op":
            # x^^2, x***2, x*/2: an operator where an operand should follow another operator
            end = tok.pos + (2 if self.text.startswith("**", tok.pos) else 1)
            raise ExpressionError(
                "expr.double_operator", text=self.text[prev.pos : end], col=prev.pos + 1
            )
        if tok.kind == "op" and tok.text in ("*", "**"):
            raise ExpressionError("expr.starred", col=tok.pos + 1)
        if tok.kind == "rpar":
            raise ExpressionError("expr.unbalanced_close", col=tok.pos + 1)
        raise self.unexpected(tok)

    def parse_trailing_error(self, tok: Token) -> None:
        """Two operands in a row: a Python keyword, or a product written without '*'."""
        prev = self.tokens[self.i - 1]
        if tok.kind == "name" and tok.text in KEYWORDS:
            raise ExpressionError(KEYWORDS[tok.text], text=tok.text, col=tok.pos + 1)
        if tok.kind in ("num", "name", "lpar"):
            shown = self.text[prev.pos : tok.pos + len(tok.text)]
            raise ExpressionError(
                "expr.implicit_mul", text=shown, col=prev.pos + 1, fix=f"{prev.text}*{tok.text}"
            )
        raise self.unexpected(tok)

    def name(self, tok: Token) -> Node:
        word = tok.text
        col = tok.pos + 1
        if word in KEYWORDS:
            raise ExpressionError(KEYWORDS[word], text=word, col=col)
        if word.startswith("_"):
            raise ExpressionError("expr.underscore", text=word, col=col)
        called = self.peek().kind == "lpar"
        if word in FUNCTIONS:
            if not called:
                raise ExpressionError("expr.function_needs_call", text=word, col=col)
            return self.call(tok)
        if called and word.lower() in EXCLUDED:
            key, fix = EXCLUDED[word.lower()]
            raise ExpressionError(key, text=word, col=col, fix=fix, known=", ".join(FUNCTIONS))
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

    def call(self, tok: Token) -> Node:
        open_tok = self.take()
        self.enter(open_tok)
        nxt = self.peek()
        if nxt.kind == "rpar":
            raise ExpressionError("expr.arity", text=tok.text, col=tok.pos + 1, got=0)
        if nxt.kind == "op" and nxt.text in ("*", "**"):
            raise ExpressionError("expr.starred", col=nxt.pos + 1)
        index = self.polygamma_order(tok, open_tok) if tok.text == "polygamma" else None
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
        const = None if arg.const is None else _fold(tok.text, arg.const, index=index)
        return self.node(Call(tok.text, arg, const=const, index=index))

    def polygamma_order(self, tok: Token, open_tok: Token) -> int:
        """The n of ``polygamma(n, x)``, up to and including its comma: a whole number from 0
        to MAX_POLYGAMMA whose value is known as typed."""
        start = self.peek().pos
        order = self.expr()
        comma = self.take()
        if comma.kind == "end":
            raise ExpressionError("expr.unbalanced_open", col=open_tok.pos + 1)
        if comma.kind == "rpar":
            raise ExpressionError("expr.polygamma_arity", col=tok.pos + 1)
        if comma.kind != "comma":
            self.i -= 1
            self.parse_trailing_error(comma)
        n = order.const
        if n is None or not math.isfinite(n) or not n.is_integer() or not 0 <= n <= MAX_POLYGAMMA:
            typed = self.text[start : comma.pos].strip()
            raise ExpressionError(
                "expr.polygamma_order", col=start + 1, got=typed, limit=MAX_POLYGAMMA
            )
        return int(n)

    def binary(self, op: str, left: Node, right: Node) -> Node:
        const = None
        if left.const is not None and right.const is not None:
            const = _fold(op, left.const, right.const)
        return self.node(Binary(op, left, right, const=const))


def _closest_function(word: str) -> str | None:
    import difflib

    aliases = {
        "ln": "log",
        "arcsin": "asin",
        "arccos": "acos",
        "arctan": "atan",
        "logistic": "sigmoid",
        "arcsinh": "asinh",
        "arccosh": "acosh",
        "arctanh": "atanh",
        "ln1p": "log1p",
        "gammaln": "lgamma",
        "loggamma": "lgamma",
        "psi": "digamma",
        "bessel_i0": "i0",
        "bessel_i1": "i1",
    }
    if word.lower() in aliases:
        return aliases[word.lower()]
    if word.lower() in FUNCTIONS:
        return word.lower()
    close = difflib.get_close_matches(word, FUNCTIONS, n=1, cutoff=0.75)
    return close[0] if close else None


def _check_constants(tree: Node) -> None:
    """Refuse a constant part that is not a finite float64 (9**9**9, log(-1), 1/0).

    Only the largest constant parts are checked: 1/exp(1000) is the finite 0.0, although
    exp(1000) alone would overflow. Within a part that is not finite, the message names the
    innermost piece that is not (the first place it went wrong) and why.
    """
    stack = [tree]
    while stack:
        node = stack.pop()
        if node.const is not None:
            if not math.isfinite(node.const):
                raise _not_finite(node)
            continue
        match node:
            case Var():
                pass
            case Neg(arg=arg) | Call(arg=arg):
                stack.append(arg)
            case Binary(left=left, right=right):
                stack.extend((left, right))
            case _:
                raise AssertionError(f"not a node of the language: {node!r}")


def _not_finite(node: Node) -> ExpressionError:
    """The error for a constant ``node`` whose value is inf or NaN: the innermost such piece,
    with its cause (outside a function's domain, division by zero, or float64 overflow)."""
    while True:
        match node:
            case Neg(arg=inner) | Call(arg=inner) if not math.isfinite(inner.const):
                node = inner
            case Binary(left=inner) if not math.isfinite(inner.const):
                node = inner
            case Binary(right=inner) if not math.isfinite(inner.const):
                node = inner
            case _:
                break
    text = show(node)
    match node:
        case Call(func="log", arg=Node(const=a)) if a <= 0:
            return ExpressionError("expr.constant_log", text=text, arg=f"{a:g}")
        case Call(func="sqrt", arg=Node(const=a)) if a < 0:
            return ExpressionError("expr.constant_sqrt", text=text, arg=f"{a:g}")
        case Call(func="asin" | "acos" as func, arg=Node(const=a)) if abs(a) > 1:
            return ExpressionError("expr.constant_asin", text=text, func=func, arg=f"{a:g}")
        case Call(func="log1p", arg=Node(const=a)) if a <= -1:
            return ExpressionError("expr.constant_log1p", text=text, arg=f"{a:g}")
        case Call(func="acosh", arg=Node(const=a)) if a < 1:
            return ExpressionError("expr.constant_acosh", text=text, arg=f"{a:g}")
        case Call(func="atanh", arg=Node(const=a)) if abs(a) >= 1:
            return ExpressionError("expr.constant_atanh", text=text, arg=f"{a:g}")
        case Call(func="erfinv", arg=Node(const=a)) if abs(a) >= 1:
            return ExpressionError("expr.constant_erfinv", text=text, arg=f"{a:g}")
        case Call(func=func, arg=Node(const=a)) if func in GAMMA_FAMILY and a <= 0 and a % 1 == 0:
            return ExpressionError("expr.constant_gamma_pole", text=text, func=func, arg=f"{a:g}")
        case Binary(op="/", right=Node(const=0.0)):
            return ExpressionError("expr.constant_division", text=text)
        case Binary(op="**", left=Node(const=0.0), right=Node(const=b)) if b < 0:
            return ExpressionError("expr.constant_division", text=text)
        case Binary(op="**", left=Node(const=a), right=Node(const=b)) if a < 0 and b % 1:
            return ExpressionError("expr.constant_power", text=text)
    if math.isinf(node.const):
        return ExpressionError("expr.constant_overflow", text=text)
    return ExpressionError("expr.constant_not_finite", text=text, value=str(node.const))


def show(node: Node) -> str:
    """The node written back in the language (fully parenthesised where it matters)."""
    match node:
        case Num(text=text):
            return text
        case Var(name=name) | Const(name=name):
            return name
        case Neg(arg=arg):
            return f"-{_wrap(arg)}"
        case Call(func=func, arg=arg, index=None):
            return f"{func}({show(arg)})"
        case Call(func=func, arg=arg, index=n):
            return f"{func}({n}, {show(arg)})"
        case Binary(op=op, left=left, right=right):
            return f"{_wrap(left)}{op}{_wrap(right)}"
        case _:
            raise AssertionError(f"not a node of the language: {node!r}")


def _wrap(node: Node) -> str:
    match node:
        case Binary() | Neg():
            return f"({show(node)})"
        case _:
            return show(node)


# ----------------------------------------------------------------------------------------------
# Public API


def parse_tree(
    text: str, variables: Sequence[str] | None = None
) -> tuple[Node, tuple[str, ...], int]:
    """Parse a typed function into its tree (:func:`hograd_core.language.parse` wraps this).

    Args:
        text: the function as typed, e.g. ``"sin(x)*exp(-x^2)"`` or ``"w1**2*sin(w2)"``.
        variables: if given, the only variable names allowed, in this order.

    Returns:
        ``(tree, names, size)``: the root node, the variable names (in natural order unless
        the caller named them) and the number of nodes.

    Raises:
        ExpressionError: the text is not in the language or exceeds a limit; the message names
            the offending piece, its column and the fix.
    """
    if not isinstance(text, str):
        raise ExpressionError("expr.not_text", got=type(text).__name__)
    if len(text) > LIMITS.max_length:
        raise ExpressionError("expr.too_long", length=len(text), limit=LIMITS.max_length)
    if not text.strip():
        raise ExpressionError("expr.empty")
    try:
        tokens = tokenize(text, LIMITS.max_literal)
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
    return tree, names, parser.nodes
