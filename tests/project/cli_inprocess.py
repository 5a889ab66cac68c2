"""The command line run inside the test's own process: ``hograd_cli.__main__.main(argv)``, the
function ``python -m hograd_cli`` runs (``sys.exit(main())``), with the standard input, the
environment and the working folder a subprocess would get, and its standard output, standard
error and exit status read back as a :class:`subprocess.CompletedProcess`.

A subprocess pays about 2.5 s for each call importing torch; here torch is imported once. What
the command line reads of its process is set for the call and put back after it:

- ``os.environ`` is the whole environment given (as ``subprocess.run(env=...)``), read by
  :func:`hograd_cli.lang.choose` (the language), argparse (``COLUMNS``) and ``shutil.which``
  (``PATH``, for Graphviz's ``dot``). Without ``COLUMNS``, 80: the width argparse falls back to
  when standard output is a pipe, as a subprocess's is.
- ``sys.stdin``, ``sys.stdout`` and ``sys.stderr`` are text buffers; the working folder is the
  repository's.
- ``SystemExit`` (``--help``) is an exit status as the interpreter makes it, and an exception
  that escapes ``main`` is a traceback on standard error and status 1.

The command line changes no other process-wide state (no torch settings, warning filters,
logging, signal handlers, locale or resource limits: it leaves those to the children it starts,
hograd_serving's exact-maths and code children, which set their own limits). Its children are
forked from zygotes that stay up for the test process, whose environment
``hograd_serving.zygote.child_env()`` keeps from its first call: it is called here before the
environment is swapped, so that a test's environment never becomes every later child's.

Warnings stay as pytest makes them (errors): a warning that a subprocess would print to its
standard error fails the call here instead.

What only a process of its own shows stays a subprocess (``cli_process``): the start-up, the
``python -m`` entry points, torch not being imported for ``--help``, and the bytes a real
process writes under a Chinese locale.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import traceback
from collections.abc import Iterator, Mapping
from pathlib import Path

from hograd_cli.__main__ import main
from hograd_serving import zygote

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = (sys.executable, "-m", "hograd_cli")


@contextlib.contextmanager
def _environment(env: Mapping[str, str]) -> Iterator[None]:
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _status(code: object) -> int:
    """The exit status the interpreter makes of ``sys.exit(code)``."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def run_cli(
    *args: str, stdin: str = "", env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess:
    """``python -m hograd_cli *args`` in this process, ``stdin`` as its standard input and
    ``env`` (default: this process's) as its whole environment."""
    environ = dict(os.environ if env is None else env)
    environ.setdefault("COLUMNS", "80")  # a pipe has no terminal size; argparse falls back to 80
    zygote.child_env()  # cached at its first call: the children keep this process's environment
    out, err = io.StringIO(), io.StringIO()
    saved_stdin = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with (
            _environment(environ),
            contextlib.chdir(ROOT),
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(err),
        ):
            try:
                status = _status(main(list(args)))
            except SystemExit as exit_:
                status = _status(exit_.code)
            except Exception:  # what the interpreter does with one that escapes
                traceback.print_exc()
                status = 1
    finally:
        sys.stdin = saved_stdin
    return subprocess.CompletedProcess([*PROGRAM, *args], status, out.getvalue(), err.getvalue())


def cli_process(
    *args: str, stdin: str | None = None, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess:
    """``python -m hograd_cli *args`` as a process of its own, as a learner's script runs it."""
    return subprocess.run(
        [*PROGRAM, *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
        env=None if env is None else dict(env),
    )
