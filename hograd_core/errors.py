"""One family of errors for everything a user can get wrong.

Every failure caused by user input becomes a :class:`HogradError` at the boundary. An error
carries a translation key and its parameters, so the app can show it in the learner's language
(``hograd_ui.i18n.error_text``); ``str(err)`` is the English text, read from
``locales/en.toml``, for scripts and the command line.
"""

from __future__ import annotations

import functools
import tomllib
from pathlib import Path

__all__ = ["HogradError", "ExpressionError", "BudgetError", "ArgumentError", "AnswerError"]

_ROOT = Path(__file__).resolve().parent.parent
_ENGLISH = _ROOT / "locales" / "en.toml"


@functools.cache
def _english() -> dict[str, str]:
    """The English strings: the shared file and each lab's own (``hograd_labs/<lab>/en.toml``)."""
    table: dict[str, str] = {}
    for path in (_ENGLISH, *sorted(_ROOT.glob("hograd_labs/*/en.toml"))):
        with path.open("rb") as file:
            table.update(tomllib.load(file))
    return table


class HogradError(ValueError):
    """Base class: a request that hograd refuses, with a message that says why.

    Args:
        key: the translation key of the message (``locales/*.toml``).
        **params: values substituted into the message (numbers, snippets of user text).
    """

    def __init__(self, key: str, **params: object) -> None:
        self.key = key
        self.params = params
        super().__init__(_english()[key].format(**params) if params else _english()[key])

    def __reduce__(self):  # noqa: ANN204 - pickled by st.cache_data and sent between processes
        return _rebuild, (type(self), self.key, self.params, self.__dict__)


def _rebuild(cls: type[HogradError], key: str, params: dict, state: dict) -> HogradError:
    err = HogradError.__new__(cls)
    HogradError.__init__(err, key, **params)
    err.__dict__.update(state)
    return err


class ExpressionError(HogradError):
    """The typed function is not in the function language, or is too large."""


class BudgetError(HogradError):
    """A request would cost more time, memory or graph than the limits allow (checked before
    any work)."""


class ArgumentError(HogradError):
    """An argument outside what the function accepts: an unknown name, a number out of its
    range or not finite, the wrong number of variables or components."""


class AnswerError(HogradError):
    """A typed answer that cannot be read as the numbers asked for (:mod:`.typed_numbers`)."""
