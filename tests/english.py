"""Errors as a reader sees them in English. The core's errors carry a key and its parameters,
never text: hograd_ui.i18n translates them, as the pages (in the learner's language) and the
command line (in English) do."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from hograd_ui.i18n import error_text


def english(err: BaseException) -> str:
    """The message of ``err`` in English: a HogradError's through the translation table, any
    other exception's ``str``."""
    if hasattr(err, "key") and hasattr(err, "params"):
        return error_text(err, "en")
    return str(err)


@contextmanager
def raises(kind: type[BaseException] | tuple, match: str) -> Iterator[pytest.ExceptionInfo]:
    """``pytest.raises(kind, match=...)`` with ``match`` searched in :func:`english` of the
    error, and the Chinese message there too (a key with text in both languages)."""
    with pytest.raises(kind) as info:
        yield info
    text = english(info.value)
    assert re.search(match, text), f"{match!r} not found in {text!r}"
    if hasattr(info.value, "key"):
        assert error_text(info.value, "zh") != info.value.key
