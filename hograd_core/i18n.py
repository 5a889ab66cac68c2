"""The translation table: every user-visible string in English and 简体中文.

Each page (and the core's error messages) keeps its strings in its own module ``text_*.py`` as
``TEXT = {key: (english, chinese)}``; this module merges them and formats one on request.
"""

from __future__ import annotations

import string

from . import text_common, text_derivatives, text_graph, text_hvp

__all__ = ["LANGUAGES", "tr", "TABLE"]

#: Language codes and the name each is shown under in the language switch.
LANGUAGES: dict[str, str] = {"en": "English", "zh": "简体中文"}

TABLE: dict[str, tuple[str, str]] = {}
for _module in (text_common, text_derivatives, text_graph, text_hvp):
    for _key, _pair in _module.TEXT.items():
        if _key in TABLE:
            raise RuntimeError(f"translation key {_key!r} defined twice")
        TABLE[_key] = _pair


def tr(key: str, lang: str = "en", /, **params: object) -> str:
    """The string ``key`` in ``lang``, with ``{name}`` placeholders filled from ``params``.

    Raises:
        KeyError: ``key`` is not in the table (a bug, surfaced by the tests).
    """
    english, chinese = TABLE[key]
    text = chinese if lang == "zh" else english
    return text.format(**params) if params else text


def placeholders(text: str) -> set[str]:
    """The ``{name}`` fields of a template (used by the tests to compare the two languages)."""
    return {field for _, field, _, _ in string.Formatter().parse(text) if field}
