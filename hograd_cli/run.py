"""``python -m hograd_cli run prog.py [--json]``: run an autograd program as the code lab does.

The program (a file, or ``-`` for standard input) runs in the same killable child process as
the code page's (``hograd_serving.code_child``), through the same allow-listed interpreter
(``hograd_core.program``). Without ``--json`` it prints what the program printed, and the error
that stopped it as ``line N: RuntimeError: ...`` on standard error; with ``--json``, one object
with the record of every top-level statement: its lines, its output, the variables after it
(name, shape, dtype, values, requires_grad, grad_fn, .grad), the graph behind each tensor, and
the error (Python's text, or a refusal's key and its message in the command line's language).

Exit status: 0 when the program ran to its end, 1 when it raised (as Python's), 2 when it was
refused, stopped by a budget or a limit, or the command line was wrong.
"""

from __future__ import annotations

import argparse
import json
import sys

from hograd_ui.i18n import error_text, tr

__all__ = ["add_parser", "run"]


def add_parser(sub: argparse._SubParsersAction, lang: str = "en") -> None:
    """Add the ``run`` verb to the command line's subcommands, its help in ``lang``."""
    r = sub.add_parser(
        "run",
        lang=lang,
        help=tr("cli.help.run", lang),
        description=tr("cli.help.run.description", lang),
    )
    r.add_argument("file", help=tr("cli.help.run.file", lang))
    r.add_argument("--json", action="store_true", help=tr("cli.help.run.json", lang))


def _read(name: str) -> str:
    from hograd_core.program import BUDGET  # loads torch

    limit = BUDGET.max_chars + 1  # one more: a longer program is refused with its length
    if name == "-":
        return sys.stdin.read(limit)
    with open(name, encoding="utf-8") as f:
        return f.read(limit)


def _message(error: dict, lang: str) -> str:
    if error["key"]:
        return error_text(argparse.Namespace(key=error["key"], params=error["params"]), lang)
    return error["text"]


def run(args: argparse.Namespace) -> int:
    """Run the program ``args.file``, the words in ``args.lang``; returns the exit status."""
    from hograd_serving.code_child import run_program_child  # loads torch

    lang = args.lang
    try:
        text = _read(args.file)
    except (OSError, UnicodeDecodeError) as err:
        message = tr("cli.run.unreadable", lang, file=args.file, why=err)
        print(tr("cli.error.line", lang, message=message), file=sys.stderr)
        return 2
    run = run_program_child(text)
    lines = [dict(line) for line in run.lines]
    error = lines[-1]["error"] if lines else None
    for line in lines:
        if line["error"] is not None:
            line["error"] = {**line["error"], "message": _message(line["error"], lang)}
    status = 0
    if run.stopped is not None or (error is not None and error["key"]):
        status = 2
    elif error is not None:
        status = 1
    if args.json:
        out = {"torch": run.torch, "stopped": run.stopped, "lines": lines}
        print(json.dumps(out, ensure_ascii=False))
        return status
    for line in lines:
        sys.stdout.write(line["output"])
        if line["error"] is not None:
            error = line["error"]
            if error["key"] and "line" in error["params"]:  # the refusal names its line
                print(error["message"], file=sys.stderr)
            else:
                print(
                    tr("cli.run.line", lang, line=error["line"], message=error["message"]),
                    file=sys.stderr,
                )
    if run.stopped is not None:
        stopped = tr("cli.run.stopped", lang, stopped=run.stopped, detail=run.detail)
        print(stopped.rstrip(), file=sys.stderr)
    return status
