"""The tokenizer of the function language: text to tokens, or a message at the first character
that is not in the language.

Each refusal names the character or word, its column and the fix: a learner who types ``2x``,
``x.y``, ``lambda`` or ``π`` is told what the language expects instead.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass

from ..errors import ExpressionError

__all__ = ["KEYWORDS", "Token", "tokenize"]

# Words of Python that a learner might try, with the key of the message that explains them.
KEYWORDS = {
    "lambda": "expr.lambda",
    "and": "expr.boolean",
    "or": "expr.boolean",
    "not": "expr.boolean",
    "is": "expr.comparison",
    "in": "expr.comparison",
    "if": "expr.conditional",
    "else": "expr.conditional",
    "for": "expr.comprehension",
    "async": "expr.comprehension",
    "await": "expr.statement",
    "import": "expr.statement",
    "from": "expr.statement",
    "def": "expr.statement",
    "class": "expr.statement",
    "return": "expr.statement",
    "del": "expr.statement",
    "global": "expr.statement",
    "nonlocal": "expr.statement",
    "while": "expr.statement",
    "with": "expr.statement",
    "try": "expr.statement",
    "except": "expr.statement",
    "raise": "expr.statement",
    "assert": "expr.statement",
    "yield": "expr.statement",
    "pass": "expr.statement",
    "break": "expr.statement",
    "continue": "expr.statement",
    "finally": "expr.statement",
    "elif": "expr.conditional",
    "None": "expr.python_value",
    "True": "expr.python_value",
    "False": "expr.python_value",
}

# ASCII characters outside the language, each with the message that explains it.
_PUNCTUATION = {
    "'": "expr.string",
    '"': "expr.string",
    "[": "expr.subscript",
    "]": "expr.subscript",
    "{": "expr.braces",
    "}": "expr.braces",
    "<": "expr.comparison",
    ">": "expr.comparison",
    "!": "expr.comparison",
    "=": "expr.assignment",
    "&": "expr.boolean",
    "|": "expr.boolean",
    "~": "expr.boolean",
    "%": "expr.modulo",
    ":": "expr.colon",
    ";": "expr.statement",
    "#": "expr.comment",
    "@": "expr.matmul",
    "\\": "expr.backslash",
    "$": "expr.symbol",
    "?": "expr.symbol",
    "`": "expr.symbol",
}

# Non-ASCII characters that have an obvious ASCII spelling.
_UNICODE_HINTS = {
    "π": "pi",
    "²": "**2",
    "³": "**3",
    "¹": "**1",
    "⁴": "**4",
    "×": "*",
    "·": "*",
    "⋅": "*",
    "÷": "/",
    "−": "-",
    "–": "-",
    "—": "-",
    "（": "(",
    "）": ")",
    "，": ",",
    "√": "sqrt(...)",
    "ℯ": "e",
    "∗": "*",
    "＋": "+",
    "－": "-",
    "＊": "*",
    "／": "/",
    "＾": "^",
}

_NUMBER = re.compile(r"(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Token:
    """One token: its kind, its text and where it starts."""

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


def tokenize(text: str, max_literal: float) -> list[Token]:
    """Split ``text`` into tokens, or raise at the first character outside the language.

    If the text starts with a Python keyword or a dunder name ("lambda: 1", "__import__('os')"),
    that is reported instead: it is the real mistake, the character only its consequence.

    Args:
        text: what the learner typed.
        max_literal: the largest number that may be typed (``LIMITS.max_literal``).

    Returns:
        The tokens, ending with one of kind "end".

    Raises:
        ExpressionError: a character, word or number outside the language.
    """
    try:
        return _tokenize_raw(text, max_literal)
    except ExpressionError:
        m = _NAME.search(text)
        if m and (m.start() == 0 or not _letter_or_digit(text[m.start() - 1])):
            word, col = m.group(0), m.start() + 1
            if word in KEYWORDS:
                raise ExpressionError(KEYWORDS[word], text=word, col=col) from None
            if word.startswith("_"):
                raise ExpressionError("expr.underscore", text=word, col=col) from None
        raise


def _tokenize_raw(text: str, max_literal: float) -> list[Token]:
    tokens: list[Token] = []
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
            if not math.isfinite(value) or abs(value) > max_literal:
                raise ExpressionError(
                    "expr.literal_too_big", text=num, col=col, limit=_short(max_literal)
                )
            tokens.append(Token("num", num, i))
            i = end
            continue
        if _letter(ch):
            m = _NAME.match(text, i)
            assert m is not None
            tokens.append(Token("name", m.group(0), i))
            i = m.end()
            continue
        if ch == "*" and text.startswith("**", i):
            tokens.append(Token("op", "**", i))
            i += 2
            continue
        if ch == "^":
            tokens.append(Token("op", "**", i))
            i += 1
            continue
        if ch in "+-*/":
            tokens.append(Token("op", ch, i))
            i += 1
            continue
        if ch == "(":
            tokens.append(Token("lpar", ch, i))
        elif ch == ")":
            tokens.append(Token("rpar", ch, i))
        elif ch == ",":
            tokens.append(Token("comma", ch, i))
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
    tokens.append(Token("end", "", n))
    return tokens


def _short(value: float) -> str:
    """A bound as a learner would type it: 1e6, not 1e+06."""
    return f"{value:g}".replace("e+0", "e").replace("e+", "e")
