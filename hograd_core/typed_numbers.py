"""Numbers as a learner types them: the answer boxes of the lesson, read by the app.

A browser's number box quietly changes what it cannot read ("−1" with the minus sign U+2212
becomes 1, "12,0" becomes 120). The boxes are text instead, and this module reads them, or
says exactly what it could not read:

- both minus signs (``-`` and ``−``, also ``–`` and the full-width ``－``), full-width digits,
  commas and brackets (``１２``, ``，``, ``（）``), and the ideographic comma ``、``;
- a vector in brackets or not: ``(1, −1)``, ``[1, -1]``, ``1 -1``, ``1；-1``;
- a decimal comma where it cannot be anything else: ``12,0`` in a box that holds one number
  is 12.0; ``1,500`` is refused (a decimal comma or a thousands separator?);
- a whole vector pasted into one box while the others are empty is spread over the
  components, in order.

Pure functions: no UI strings (errors carry translation keys), no state.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from .errors import AnswerError, ExpressionError
from .language import parse

__all__ = ["MAX_CHARS", "Reading", "read_numbers", "read_point", "show_numbers"]

#: the longest text one box may hold (a vector of a few numbers needs far less)
MAX_CHARS = 100

# minus signs other than "-" that NFKC leaves alone: U+2212 minus, U+2012 figure dash,
# U+2013 en dash (what word processors make of "-"); and "、", the ideographic comma
_TRANSLATE = str.maketrans({"\u2212": "-", "\u2012": "-", "\u2013": "-", "、": ","})
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_DECIMAL_COMMA = re.compile(r"([+-]?\d+),(\d+)")
_SEPARATORS = re.compile(r"[,;\s]+")
_BRACKETS = ("()", "[]", "{}", "⟨⟩")


@dataclass(frozen=True)
class Reading:
    """What the boxes were read as.

    Attributes:
        values: the numbers, one per component.
        spread: True when one box held the whole vector.
        decimal_comma: True when a comma was read as a decimal point.
    """

    values: tuple[float, ...]
    spread: bool = False
    decimal_comma: bool = False


def _clean(text: str, box: int) -> str:
    """The text with every sign and digit in its ASCII form and one pair of brackets removed."""
    if len(text) > MAX_CHARS:
        raise AnswerError("lesson.read.too_long", box=box, length=len(text), limit=MAX_CHARS)
    text = unicodedata.normalize("NFKC", text).translate(_TRANSLATE).strip()
    for pair in _BRACKETS:
        if text[:1] == pair[0] and text[-1:] == pair[1]:
            return text[1:-1].strip()
    return text


def _read_box(text: str, box: int, single: bool) -> tuple[tuple[float, ...], bool]:
    """The numbers in one box, and whether a decimal comma was read. ``single``: the box is
    meant to hold one number, so a lone comma between digits may be a decimal comma."""
    text = _clean(text, box)
    comma = False
    match = _DECIMAL_COMMA.fullmatch(text)
    if single and match:
        if len(match.group(2)) == 3:  # 1,500: one and a half, or fifteen hundred?
            raise AnswerError("lesson.read.comma", box=box)
        text, comma = f"{match.group(1)}.{match.group(2)}", True
    parts = [p for p in _SEPARATORS.split(text) if p]
    values = []
    for index, part in enumerate(parts, start=1):
        if not _NUMBER.fullmatch(part):
            raise AnswerError("lesson.read.unreadable", box=box, index=index, part=part[:40])
        value = float(part)
        if value in (float("inf"), float("-inf")):
            raise AnswerError("lesson.read.too_large", box=box, index=index, part=part[:40])
        values.append(value)
    return tuple(values), comma


def read_numbers(boxes: Sequence[str | None], size: int) -> Reading | None:
    """Read ``size`` numbers from the texts of the answer boxes.

    Args:
        boxes: the text of each box, in order (None or blank for an empty box); as many boxes
            as components, or one box for the whole vector.
        size: how many numbers the answer has.

    Returns:
        The :class:`Reading`, or None when every box is empty.

    Raises:
        AnswerError: a box too long, a part that is not a number, an ambiguous comma, a box
            with the wrong count of numbers, or a component left empty while others are not.

    Example:
        >>> read_numbers(["(1, −1)", ""], 2).values
        (1.0, -1.0)
        >>> read_numbers(["12,0"], 1).values
        (12.0,)
    """
    texts = [b if b is not None else "" for b in boxes]
    filled = [i for i, text in enumerate(texts) if text.strip()]
    if not filled:
        return None
    if len(filled) == 1:
        box = filled[0]
        # one box filled: it holds one number, or (with several components) the whole vector
        values, comma = _read_box(texts[box], box + 1, single=size == 1)
        if len(values) == size:
            return Reading(values, spread=size > 1, decimal_comma=comma)
        if size > 1 and len(values) == 1:
            empty = next(i for i in range(size) if i != box)
            raise AnswerError("lesson.read.missing", box=empty + 1, size=size)
        raise AnswerError("lesson.read.count", box=box + 1, expected=size, got=len(values))
    values, comma = [], False
    for box, text in enumerate(texts):
        if not text.strip():
            raise AnswerError("lesson.read.missing", box=box + 1, size=size)
        got, box_comma = _read_box(text, box + 1, single=True)
        if len(got) != 1:
            raise AnswerError("lesson.read.count_one", box=box + 1, got=len(got), size=size)
        values.append(got[0])
        comma = comma or box_comma
    if len(values) != size:  # more boxes than components: a caller's mistake, said plainly
        raise AnswerError("lesson.read.count", box=1, expected=size, got=len(values))
    return Reading(tuple(values), decimal_comma=comma)


def _constant(text: str) -> float | None:
    """A constant expression of the function language (``pi/2``, ``sqrt(2)``), or None."""
    try:
        constant = parse(text) if text else None
    except ExpressionError:
        return None
    if constant is None or constant.variables:
        return None
    return float(constant.torch({}).detach())


def read_point(text: str | None, size: int) -> tuple[float, ...] | None:
    """A point typed into one box: ``size`` numbers as :func:`read_numbers` reads them, or
    constant expressions of the function language separated by commas (``1, pi/2``).

    Returns:
        The point, or None for an empty box.

    Raises:
        AnswerError: what :func:`read_numbers` says when a part is neither a number nor a
            constant, or the count is not ``size``.

    Example:
        >>> read_point("−1, pi/2", 2)
        (-1.0, 1.5707963267948966)
    """
    try:
        reading = read_numbers([text], size)
    except AnswerError as err:
        if err.key != "lesson.read.unreadable":
            raise
        parts = [p.strip() for p in re.split(r"[,;]", _clean(text or "", 1))]
        values = [_constant(p) for p in parts]
        if len(values) != size or None in values:
            raise
        if not all(math.isfinite(v) for v in values):
            raise AnswerError("lesson.read.too_large", box=1, index=1, part=text[:40]) from err
        return tuple(values)
    return None if reading is None else reading.values


def show_numbers(values: Sequence[float]) -> str:
    """The numbers as the app prints a point: ``12``, ``(1, −1)``, with the minus sign U+2212
    and up to 12 significant digits (what was typed, without float noise)."""
    text = ", ".join(f"{v:.12g}".replace("-", "\u2212") for v in values)
    return text if len(values) == 1 else f"({text})"
