"""Children forked from a process that has imported their module already.

A child of :mod:`.exact` was a fresh interpreter: ``python -m hograd_serving.exact_child`` spent
about 0.6-0.9 s of CPU importing sympy before its first line of work, once for every function a
student typed (a formula, the backward lab's values, the derivatives column). The standard
library's forkserver start method keeps one small process (started on first use from a fresh
interpreter, never a fork of this multi-threaded server) that imports the modules named in
:data:`PRELOAD` once and forks each child from itself. A child so made starts with sympy in
memory already, and is still a process of its own: it sets its own CPU and memory limits, and
its parent kills it at its deadline, as before.

:func:`launch` returns an object with the part of :class:`subprocess.Popen` that
:mod:`.exact` and :mod:`.sympy_column` use (``stdin``, ``stdout``, ``kill``, ``wait``,
``returncode``). Where the forkserver cannot be had, it starts a fresh interpreter instead.
This module imports none of the children's modules: the server names them by string, so the
contract that keeps sympy out of the server holds (pyproject.toml).
"""

from __future__ import annotations

import importlib
import multiprocessing as mp
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from typing import IO

__all__ = ["PRELOAD", "Forked", "launch"]

#: The modules the forkserver imports once, so that its children start with them loaded.
PRELOAD = ("hograd_serving.exact_child",)
_LOCK = threading.Lock()
_CONTEXTS: list[mp.context.BaseContext] = []  # the one forkserver context, once made


def _context() -> mp.context.BaseContext:
    with _LOCK:
        if not _CONTEXTS:
            context = mp.get_context("forkserver")
            context.set_forkserver_preload(list(PRELOAD))
            _CONTEXTS.append(context)
        return _CONTEXTS[0]


def _child(module: str, argv: list[str], stdin: Connection, stdout: Connection) -> None:
    """In the forked child: the pipes become standard input and output (standard error goes
    nowhere, as with the fresh interpreter), then ``module.main(argv)`` runs."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    for fd, target in ((stdin.fileno(), 0), (stdout.fileno(), 1), (devnull, 2)):
        os.dup2(fd, target)
    stdin.close()
    stdout.close()
    os.close(devnull)
    sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115 - the process's own
    sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
    importlib.import_module(module).main(argv)
    sys.stdout.flush()


class Forked:
    """A forked child as :mod:`.exact` drives one: write the request to ``stdin``, read lines
    from ``stdout``, ``kill`` it at the deadline, ``wait`` for it."""

    def __init__(self, process: mp.process.BaseProcess, stdin: IO[str], stdout: IO[str]) -> None:
        self.process, self.stdin, self.stdout = process, stdin, stdout

    @property
    def returncode(self) -> int | None:
        """None while it runs; else its exit status, or minus the signal that ended it."""
        return self.process.exitcode

    def kill(self) -> None:
        if self.process.exitcode is None:
            self.process.kill()

    def wait(self) -> int | None:
        self.process.join()
        return self.process.exitcode


def _spawned(module: str, argv: Sequence[str], env: dict[str, str], cwd: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", module, *argv],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=cwd,
        env=env,
        text=True,
    )


def launch(
    module: str,
    argv: Sequence[str],
    *,
    env: dict[str, str],
    cwd: str,
    spawn: Callable[..., subprocess.Popen] = _spawned,
) -> Forked | subprocess.Popen:
    """A child running ``module.main(argv)`` with pipes for standard input and output: forked
    from the forkserver when ``module`` is one it preloads, else (or if the forkserver fails)
    a fresh interpreter, ``python -m module *argv`` with ``env`` in ``cwd``."""
    if module in PRELOAD:
        request_r, request_w = os.pipe()
        answer_r, answer_w = os.pipe()
        ends = (Connection(request_r, writable=False), Connection(answer_w, readable=False))
        try:
            process = _context().Process(
                target=_child, args=(module, list(argv), *ends), daemon=True
            )
            process.start()
        except (OSError, RuntimeError, ValueError):
            os.close(request_w)
            os.close(answer_r)
        else:
            stdin = open(request_w, "w", encoding="utf-8")  # noqa: SIM115 - closed by the caller
            stdout = open(answer_r, encoding="utf-8")  # noqa: SIM115
            return Forked(process, stdin, stdout)
        finally:
            for end in ends:  # the child holds its own copies
                end.close()
    return spawn(module, argv, env, cwd)
