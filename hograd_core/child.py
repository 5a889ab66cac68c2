"""A Python child process spoken to over its stdin and stdout, one pickled message at a time
(``multiprocessing.connection.Connection``): the sympy worker and the torch helper."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection

__all__ = ["start_child", "child_pipes"]


def start_child(
    program: str,
    *args: str,
    read: Callable[[subprocess.Popen[bytes], Connection], None],
    name: str,
    env: dict[str, str] | None = None,
    cwd: str | None = None,
) -> tuple[subprocess.Popen[bytes], Connection]:
    """Run ``python -c program args...``, with a daemon thread ``name`` running
    ``read(process, connection)`` on what it sends; return it with the Connection to send to it.

    Raises:
        OSError: the process could not be started.
    """  # fmt: skip
    proc = subprocess.Popen(
        [sys.executable, "-c", program, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        env=env, cwd=cwd, close_fds=True,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    send = Connection(os.dup(proc.stdin.fileno()), readable=False)
    receive = Connection(os.dup(proc.stdout.fileno()), writable=False)
    proc.stdin.close()
    proc.stdout.close()
    threading.Thread(target=read, args=(proc, receive), name=name, daemon=True).start()
    return proc, send


def child_pipes() -> tuple[Connection, Connection]:
    """In the child: the Connections (requests, answers) on stdin and stdout. Anything printed
    goes to stderr from now on: nothing else may write to the answer pipe."""
    requests = Connection(os.dup(0), writable=False)
    answers = Connection(os.dup(1), readable=False)
    sys.stdout = sys.stderr
    return requests, answers
