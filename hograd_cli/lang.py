"""The command line's language, and the parser that speaks it.

The language is ``--lang en|zh`` wherever it stands on the command line; without it,
``HOGRAD_LANG``; without that, the locale as POSIX orders it (the first of ``LC_ALL``,
``LC_MESSAGES``, ``LANG`` that is set decides: Chinese if it starts with ``zh``); else English.
Help, tables and messages are in that language; JSON keys and machine values never change.

Only the standard library and :mod:`hograd_ui.i18n` (itself standard library only) are
loaded here, so that ``--help`` answers without torch.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence

from hograd_ui.i18n import LANGUAGES, tr

__all__ = ["LANG_OPTION", "Parser", "UsageError", "choose", "from_environment"]

LANG_OPTION = "--lang"
_LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")  # the first one set decides (POSIX)


class UsageError(Exception):
    """A command line that cannot run, as a translation key and its parameters (the shape of
    hograd_core's errors, so :func:`hograd_ui.i18n.error_text` translates both)."""

    def __init__(self, key: str, **params: object) -> None:
        super().__init__(key)
        self.key, self.params = key, params


def from_environment(environ: Mapping[str, str]) -> str:
    """``HOGRAD_LANG`` ("en", "zh", "zh_CN", ...), else the locale's language, else "en"."""
    chosen = environ.get("HOGRAD_LANG", "").strip().lower()[:2]
    if chosen in LANGUAGES:
        return chosen
    for name in _LOCALE_VARIABLES:
        value = environ.get(name, "")
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"


def choose(
    argv: Sequence[str], environ: Mapping[str, str], values_after: Sequence[str] = ()
) -> tuple[str, list[str], str | None]:
    """The language, the arguments without ``--lang``, and a ``--lang`` value that is not a
    language (None if there is none).

    Args:
        argv: the command line's arguments.
        environ: the environment (``os.environ``).
        values_after: options whose next argument is a value, whatever it looks like (as is
            the argument after ``--``), so that a value is never read as ``--lang``.
    """
    lang, rest, bad = from_environment(environ), [], None
    it = iter(argv)
    for arg in it:
        if arg == LANG_OPTION or arg.startswith(LANG_OPTION + "="):
            value = arg.partition("=")[2] if "=" in arg else next(it, "")
            if value in LANGUAGES:
                lang = value
            else:
                bad = value
            continue
        rest.append(arg)
        if arg == "--" or arg in values_after:
            nxt = next(it, None)
            if nxt is not None:
                rest.append(nxt)
    return lang, rest, bad


def _formatter(base: type[argparse.HelpFormatter], lang: str) -> type[argparse.HelpFormatter]:
    """``base`` with the usage line's lead word in ``lang``."""
    lead = tr("cli.head.usage", lang)

    class Translated(base):  # type: ignore[misc, valid-type]
        def add_usage(self, usage, actions, groups, prefix=None):
            super().add_usage(usage, actions, groups, lead if prefix is None else prefix)

    return Translated


class Parser(argparse.ArgumentParser):
    """An argument parser whose headings and ``-h``/``--lang`` help are in ``lang``, and whose
    errors raise :class:`UsageError` (one line, no usage dump) instead of exiting.

    Positional arguments go to its own "positional arguments" group and options to its own
    "options" group, both titled in ``lang`` (argparse's built-in groups, titled in English,
    stay empty and so are not shown). A parser with ``verbs=True`` opens its groups when
    :meth:`open_groups` is called, after its subcommands' group, to list them first.
    """

    def __init__(self, *args, lang: str = "en", verbs: bool = False, **kwargs) -> None:
        base = kwargs.pop("formatter_class", argparse.HelpFormatter)
        super().__init__(*args, add_help=False, formatter_class=_formatter(base, lang), **kwargs)
        self.lang = lang
        self.positional_group: argparse._ArgumentGroup | None = None
        self.option_group: argparse._ArgumentGroup | None = None
        if not verbs:
            self.open_groups()

    def open_groups(self) -> None:
        """Make the two groups, and add ``-h`` and ``--lang`` to the options."""
        self.positional_group = self.add_argument_group(tr("cli.head.positional", self.lang))
        self.option_group = self.add_argument_group(tr("cli.head.options", self.lang))
        self.option_group.add_argument(
            "-h", "--help", action="help", help=tr("cli.help.help", self.lang)
        )
        # Read before parsing (hograd_cli.lang.choose); here for the help only.
        self.option_group.add_argument(
            LANG_OPTION, choices=tuple(LANGUAGES), help=tr("cli.help.lang", self.lang)
        )

    def add_argument(self, *args, **kwargs) -> argparse.Action:
        options = bool(args) and args[0][:1] in self.prefix_chars
        group = self.option_group if options else self.positional_group
        assert group is not None, "open_groups() first"
        return group.add_argument(*args, **kwargs)

    def add_mutually_exclusive_group(self, **kwargs) -> argparse._MutuallyExclusiveGroup:
        assert self.option_group is not None, "open_groups() first"
        return self.option_group.add_mutually_exclusive_group(**kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError("cli.error.usage", detail=message)
