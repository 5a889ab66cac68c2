"""One family of errors for everything a user can get wrong.

Every failure caused by user input becomes a :class:`HogradError` at the boundary. The error
carries a translation key and its parameters, so the app can show it in English or Chinese and
the CLI in English; ``str(err)`` is the English text.
"""

from __future__ import annotations

__all__ = ["HogradError", "ExpressionError", "BudgetError"]


class HogradError(ValueError):
    """Base class: a request that hograd refuses, with a message that says why.

    Args:
        key: the translation key of the message (see :mod:`hograd_core.i18n`).
        **params: values substituted into the message (numbers, snippets of user text).
    """

    def __init__(self, key: str, **params: object) -> None:
        self.key = key
        self.params = params
        super().__init__(self.message("en"))

    def message(self, lang: str = "en") -> str:
        """The message in ``lang`` ("en" or "zh")."""
        from .i18n import tr  # local: i18n imports nothing from here, but keep errors light

        return tr(self.key, lang, **self.params)


class ExpressionError(HogradError):
    """The typed function is not in the function language, or is too large."""


class BudgetError(HogradError):
    """A request would cost more time or memory than the limits allow."""
