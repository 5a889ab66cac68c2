"""``python -m hograd_cli run prog.py [--json]``: run an autograd program as the code lab does.

The program (a file, or ``-`` for standard input) runs in the same killable child process as
the code page's (``hograd_serving.code_child``), through the same allow-listed interpreter
(``hograd_core.program``). Without ``--json`` it prints what the program printed, and the error
that stopped it as ``line N: RuntimeError: ...`` on standard error; with ``--json``, one object
with the record of every top-level statement: its lines, its output, the variables after it
(name, shape, dtype, values, requires_grad, grad_fn, .grad), the graph behind each tensor, and
the error (Python's text, or a refusal's key and English message).

Exit status: 0 when the program ran to its end, 1 when it raised (as Python's), 2 when it was
refused, stopped by a budget or a limit, or the command line was wrong.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from hograd_core.program import BUDGET
from hograd_serving.code_child import run_program_child
from hograd_ui.i18n import error_text

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m hograd_cli run",
        description="Run a short autograd program line by line, as the code page does.",
    )
    parser.add_argument("file", help="the program, or - for standard input")
    parser.add_argument("--json", action="store_true", help="print each line's record as JSON")
    return parser


def _read(name: str) -> str:
    limit = BUDGET.max_chars + 1  # one more: a longer program is refused with its length
    if name == "-":
        return sys.stdin.read(limit)
    with open(name, encoding="utf-8") as f:
        return f.read(limit)


def _message(error: dict) -> str:
    if error["key"]:
        return error_text(argparse.Namespace(key=error["key"], params=error["params"]), "en")
    return error["text"]


def main(argv: Sequence[str]) -> int:
    """Run the verb; returns the exit status."""
    try:
        args = _parser().parse_args(list(argv))
    except SystemExit as stop:
        return int(stop.code or 0) and 2
    try:
        text = _read(args.file)
    except (OSError, UnicodeDecodeError) as err:
        print(f"error: {args.file}: {err}", file=sys.stderr)
        return 2
    run = run_program_child(text)
    lines = [dict(line) for line in run.lines]
    error = lines[-1]["error"] if lines else None
    for line in lines:
        if line["error"] is not None:
            line["error"] = {**line["error"], "message": _message(line["error"])}
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
            print(f"line {line['error']['line']}: {line['error']['message']}", file=sys.stderr)
    if run.stopped is not None:
        print(f"stopped: {run.stopped} limit {run.detail}".rstrip(), file=sys.stderr)
    return status
