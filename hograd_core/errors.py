"""One family of errors for everything a user can get wrong.

Every failure caused by user input becomes a :class:`HogradError` at the boundary. An error
carries a translation key and its parameters, nothing else: the app shows it in the learner's
language (``hograd_ui.i18n.error_text``), and the command line in English (``hograd_cli``).
The core reads no language file; ``str(err)`` is the key and its parameters, for logs.
"""

from __future__ import annotations

__all__ = ["HogradError", "ExpressionError", "BudgetError", "ArgumentError", "AnswerError"]


class HogradError(ValueError):
    """Base class: a request that hograd refuses, with a message that says why.

    Args:
        key: the translation key of the message (``locales/*.toml``).
        **params: values substituted into the message (numbers, snippets of user text).
    """

    def __init__(self, key: str, **params: object) -> None:
        self.key = key
        self.params = params
        super().__init__(key)

    def __str__(self) -> str:
        """The key and its parameters, e.g. ``budget.points (limit=5000, got=5001)``."""
        if not self.params:
            return self.key
        return f"{self.key} ({', '.join(f'{k}={v!r}' for k, v in self.params.items())})"

    def __reduce__(self):  # pickled by st.cache_data and sent between processes
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
