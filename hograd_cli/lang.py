"""The command line's language, and the parser that speaks it.

The language is ``--lang en|zh`` wherever it stands on the command line; without it,
``HOGRAD_LANG``; without that, the locale as POSIX orders it (the first of ``LC_ALL``,
``LC_MESSAGES``, ``LANG`` that is set decides: Chinese if it starts with ``zh``); else English.
Help, tables and messages are in that language, argparse's own words included
(:mod:`.argparse_words`), and help in a language of wide characters is wrapped by the columns
it takes, not by its length; JSON keys and machine values never change.

Only the standard library and :mod:`hograd_ui.i18n` (itself standard library only) are
loaded here, so that ``--help`` answers without torch.
"""

from __future__ import annotations

import argparse
import re
import unicodedata
from collections.abc import Mapping, Sequence

from hograd_ui.i18n import LANGUAGES, tr

from .argparse_words import COLON, message, phrase

__all__ = [
    "LANG_OPTION",
    "Parser",
    "UsageError",
    "choose",
    "display_width",
    "from_environment",
    "wrap",
]

LANG_OPTION = "--lang"
_LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")  # the first one set decides (POSIX)
_SPACES = re.compile(r"\s+", re.ASCII)  # what argparse folds to one space before wrapping


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


def display_width(text: str) -> int:
    """Columns ``text`` takes in a terminal: two for a wide (CJK) character, one for others."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


#: Chinese punctuation that may not start a line, and that may not end one (the line breaks
#: after the closing mark or before the opening one instead).
_NO_START = frozenset("，。、；：！？）」』》〉】”’…·,.;:!?)]}%")
_NO_END = frozenset("（「『《〈【“‘([{")


def wrap(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` columns (:func:`display_width`). A line may break
    at a space (which goes), or between two characters of which one is wide, but not before
    closing punctuation nor after opening punctuation; a run of narrow characters ("--at",
    "1,000") is kept whole unless it alone is wider than a line."""
    words: list[tuple[bool, str]] = []  # (a space before it, the unbreakable piece)
    space = False
    for ch in text:
        if ch == " ":
            space = True
            continue
        if words and not space:
            before = words[-1][1][-1]
            narrow = display_width(before + ch) == 2
            if narrow or ch in _NO_START or before in _NO_END:
                words[-1] = (words[-1][0], words[-1][1] + ch)
                continue
        words.append((space, ch))
        space = False
    lines, line = [], ""
    for spaced, word in words:
        piece = " " + word if spaced and line else word
        if line and display_width(line + piece) > width:
            lines.append(line)
            line, piece = "", word
        while display_width(piece) > width and len(piece) > 1:  # wider than a line alone
            cut = 1
            while display_width(piece[: cut + 1]) <= width:
                cut += 1
            lines.append(piece[:cut])
            piece = piece[cut:]
        line += piece
    return [*lines, line] if line else lines


#: A part of a usage line that is not broken: "(...)", "[...]" or a word (argparse's own rule).
_USAGE_PART = re.compile(r"\(.*?\)+(?=\s|$)|\[.*?\]+(?=\s|$)|\S+")


def _fit_usage(text: str, lead: str, prog: str, width: int) -> str:
    """The help ``text`` with its usage lines laid out again if one is wider than ``width``
    columns: the program on the first line, its arguments on the next ones under the lead.

    argparse lines the arguments up under the first one when the lead and the program take at
    most 3/4 of the width, and then keeps a part such as ``[--method {autograd,...}]`` whole
    even where it runs past the edge (the lead measured by its length, here narrower than it
    shows)."""
    usage, blank, rest = text.partition("\n\n")
    lines = usage.split("\n")
    if all(display_width(line) <= width for line in lines) or not usage.startswith(lead + prog):
        return text
    indent = " " * display_width(lead)
    parts = _USAGE_PART.findall(" ".join(lines)[len(lead + prog) :])
    out = [lead + prog]
    for part in parts:
        if out[-1] != lead + prog and display_width(f"{out[-1]} {part}") <= width:
            out[-1] += " " + part
        else:
            out.append(indent + part)
    return "\n".join(out) + blank + rest


def _formatter(base: type[argparse.HelpFormatter], lang: str) -> type[argparse.HelpFormatter]:
    """``base`` with the usage line's lead word and the headings' colon in ``lang``; in a
    language written with wide characters, lines wrapped by display width, not by length."""
    lead, colon = phrase("usage: ", lang), COLON[lang]
    wide = display_width(lead) != len(lead)
    # argparse lines up the usage's second line under the first by len(lead): it measures a
    # stand-in as wide as the lead, which format_help then replaces.
    stand_in = "\0" * display_width(lead) if wide else lead

    class Translated(base):  # type: ignore[misc, valid-type]
        def __init__(self, prog: str, *args, **kwargs) -> None:
            super().__init__(prog, *args, **kwargs)
            self.prog_name, self.headings = prog, set()

        def add_usage(self, usage, actions, groups, prefix=None):
            super().add_usage(usage, actions, groups, stand_in if prefix is None else prefix)

        def start_section(self, heading):
            self.headings.add(heading)
            super().start_section(heading)

        def format_help(self) -> str:
            text = super().format_help()
            if wide and text.startswith(stand_in):
                text = lead + text[len(stand_in) :]
            # self._width: the width argparse wraps to (the terminal's, less 2); read only. In
            # English too: a group such as [--detach | ... | --second-function] ran past 80.
            text = _fit_usage(text, lead, self.prog_name, self._width)
            for heading in self.headings if colon != ":" else ():
                text = text.replace(f"\n{heading}:\n", f"\n{heading}{colon}\n")
            return text

        if wide and not issubclass(base, argparse.RawTextHelpFormatter):

            def _split_lines(self, text: str, width: int) -> list[str]:
                return wrap(_SPACES.sub(" ", text).strip(), width)

        if wide and not issubclass(base, argparse.RawDescriptionHelpFormatter):

            def _fill_text(self, text: str, width: int, indent: str) -> str:
                lines = wrap(_SPACES.sub(" ", text).strip(), width - len(indent))
                return "\n".join(indent + line for line in lines)

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
        self.positional_group = self.add_argument_group(phrase("positional arguments", self.lang))
        self.option_group = self.add_argument_group(phrase("options", self.lang))
        self.option_group.add_argument(
            "-h", "--help", action="help", help=phrase("show this help message and exit", self.lang)
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

    def error(self, text: str) -> None:  # type: ignore[override]
        raise UsageError("cli.error.usage", detail=message(text, self.lang))
