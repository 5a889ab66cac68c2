"""The ``decode`` verb: a PyTorch message from a file or standard input, placed by the error
decoder (:mod:`hograd_core.flaglab.decoder`), so it can be measured outside the browser.

    python -m hograd_cli decode error.txt
    python train.py 2>&1 | python -m hograd_cli decode - --json

It prints the entry (or that the decoder cannot place the text), how sure, why and the fix, in
the command line's language (``--lang``). The text is read as text, at most the decoder's bound, and never run.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from hograd_core.errors import ArgumentError
from hograd_ui.i18n import tr

__all__ = ["add_parser", "run"]


def add_parser(sub: argparse._SubParsersAction, lang: str = "en") -> None:
    """Add the ``decode`` verb to the command line's subcommands, its help in ``lang``."""
    d = sub.add_parser(
        "decode",
        lang=lang,
        help=tr("cli.help.decode", lang),
        description=tr("cli.help.decode.description", lang),
        epilog=tr("cli.help.decode.epilog", lang),
    )
    d.add_argument("file", metavar="FILE", help=tr("cli.help.decode.file", lang))
    d.add_argument("--json", action="store_true", help=tr("cli.help.json", lang))


def _text(name: str) -> str:
    from hograd_core.flaglab.decoder import MAX_CHARS

    if name == "-":
        return sys.stdin.read(MAX_CHARS)
    try:
        with Path(name).open(encoding="utf-8", errors="replace") as f:
            return f.read(MAX_CHARS)
    except OSError as err:
        raise ArgumentError("cli.decode.file", got=name[:200], why=err.strerror or "") from None


def run(args: argparse.Namespace) -> int:
    """Decode the message and print the answer; 0 whether or not it was placed."""
    from hograd_core.flaglab.decoder import decode

    lang = args.lang
    match = decode(_text(args.file))
    if match is None:
        out: dict = {"case": None, "sure": None, "why": None, "fix": None}
        out["message"] = tr("backward.decode.unknown", lang)
    else:
        title, why, fix = match.keys
        missing = "" if match.whole else "?"  # a part the text did not hold
        facts = {k: v or missing for k, v in match.facts}
        out = {
            "case": match.id,
            "title": tr(title, lang),
            "sure": match.sure,
            "whole_signature": match.whole,
            "matched": match.found,
            "facts": facts,
            "why": tr(why, lang, **facts),
            "fix": tr(fix, lang, **facts),
            "gallery_case": [match.case, match.variant] if match.case else None,
            "also": list(match.also),
        }
    if args.json:
        print(json.dumps(out))
    elif match is None:
        print(tr("cli.decode.unknown", lang, message=out["message"]))
    else:
        how = tr("cli.decode.exact" if match.sure == "exact" else "cli.decode.partial", lang)
        part = "" if match.whole else tr("cli.decode.part", lang)
        print(tr("cli.decode.head", lang, case=match.id, title=out["title"], how=how, part=part))
        print("  " + tr("cli.decode.matched", lang, matched=match.found))
        print("  " + tr("cli.decode.why", lang, why=out["why"]))
        print("  " + tr("cli.decode.fix", lang, fix=out["fix"]))
        if match.also:
            print("  " + tr("cli.decode.also", lang, also=", ".join(match.also)))
    return 0
