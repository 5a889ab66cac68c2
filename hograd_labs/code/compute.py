"""The code lab's pure parts: a program in a link, the download's header, the table's cells.

A program travels in the URL compressed (zlib) and in URL-safe base64 under ``?code.p=``; a
value longer than :data:`MAX_LINK` characters, or one that is not such an encoding of a
program of at most the runner's length, is refused with a message, never decoded further.
"""

from __future__ import annotations

import base64
import binascii
import math
import zlib

from hograd_core.errors import ArgumentError
from hograd_core.program import BUDGET, Variable

__all__ = ["MAX_LINK", "decode", "encode", "header", "shown_value"]

#: Characters of ``?code.p=``: a program of 6,000 characters compresses to well under this
#: unless it is noise; a link longer than a browser keeps (about 8,000) is not shared anyway.
MAX_LINK = 6_000


def encode(text: str) -> str:
    """``text`` compressed, in URL-safe base64 without padding."""
    packed = zlib.compress(text.encode("utf-8"), 9)
    return base64.urlsafe_b64encode(packed).decode("ascii").rstrip("=")


def decode(value: str) -> str:
    """The program a link carries.

    Raises:
        ArgumentError: the value is longer than :data:`MAX_LINK`, is not URL-safe base64 of
            zlib data, or holds more than the runner's ``max_chars`` characters.
    """
    if len(value) > MAX_LINK:
        raise ArgumentError("code.link.long", got=f"{len(value):,}", limit=f"{MAX_LINK:,}")
    try:
        packed = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
        inflate = zlib.decompressobj()
        # at most one byte more than a program may hold (4 bytes a character): never a bomb
        data = inflate.decompress(packed, 4 * BUDGET.max_chars + 1)
        if inflate.unconsumed_tail or len(data) > 4 * BUDGET.max_chars:
            raise ArgumentError("code.link.long", got="?", limit=f"{MAX_LINK:,}")
        if not inflate.eof:
            raise ValueError("truncated")
        return data.decode("utf-8")
    except (binascii.Error, zlib.error, ValueError) as err:
        if isinstance(err, ArgumentError):
            raise
        raise ArgumentError("code.link.bad") from None


def header(torch_version: str) -> str:
    """The download's first lines: which torch ran the program."""
    return f"# Run on hograd's code page with torch {torch_version}.\n"


def _number(value: float) -> str:
    return "nan" if math.isnan(value) else f"{value + 0.0:.6g}"


def shown_value(v: Variable, grad: bool = False) -> str:
    """A value as the variables table shows it: up to 8 numbers, else the printed form's first
    line."""
    values = v.grad if grad else v.values
    if values is not None and len(values) <= 8:
        numbers = ", ".join(_number(x) for x in values)
        return f"[{numbers}]" if v.kind == "tensor" and v.shape else numbers
    text = v.grad_text if grad else v.text
    first = text.splitlines()[0] if text else ""
    return first if len(first) <= 60 else first[:60] + "…"
