"""The ``decode`` verb: a PyTorch message from a file or standard input, placed by the error
decoder (:mod:`hograd_core.flaglab.decoder`), so it can be measured outside the browser.

    python -m hograd_cli decode error.txt
    python train.py 2>&1 | python -m hograd_cli decode - --json

It prints the entry (or that the decoder cannot place the text), how sure, why and the fix, in
English. The text is read as text, at most the decoder's bound, and never run.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from hograd_core.errors import ArgumentError

__all__ = ["add_parser", "run"]


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Add the ``decode`` verb to the command line's subcommands."""
    d = sub.add_parser(
        "decode",
        help="which autograd mistake a PyTorch message comes from, how sure, the fix",
        description="Reads a PyTorch error or warning (a traceback around it is fine) and names "
        "the kind of autograd mistake behind it, how sure the match is (exact or partial), why, "
        "and the fix; or says it cannot place the message (exit status 0 either way).",
        epilog="example: python train.py 2>&1 | python -m hograd_cli decode - --json",
    )
    d.add_argument("file", metavar="FILE", help="a file holding the message, or - for stdin")
    d.add_argument("--json", action="store_true", help="print one JSON object")


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
    from hograd_ui.i18n import tr

    match = decode(_text(args.file))
    if match is None:
        out: dict = {"case": None, "sure": None, "why": None, "fix": None}
        out["message"] = tr("backward.decode.unknown", "en")
    else:
        title, why, fix = match.keys
        missing = "" if match.whole else "?"  # a part the text did not hold
        facts = {k: v or missing for k, v in match.facts}
        out = {
            "case": match.id,
            "title": tr(title, "en"),
            "sure": match.sure,
            "whole_signature": match.whole,
            "matched": match.found,
            "facts": facts,
            "why": tr(why, "en", **facts),
            "fix": tr(fix, "en", **facts),
            "gallery_case": [match.case, match.variant] if match.case else None,
            "also": list(match.also),
        }
    if args.json:
        print(json.dumps(out))
    elif match is None:
        print(f"unknown: {out['message']}")
    else:
        how = "exact" if match.sure == "exact" else "partial"
        part = "" if match.whole else ", only part of the message found"
        print(f"{match.id}: {out['title']} ({how}{part})")
        print(f"  matched: {match.found}")
        print(f"  why: {out['why']}")
        print(f"  fix: {out['fix']}")
        if match.also:
            print(f"  also in the text: {', '.join(match.also)}")
    return 0
