"""A Python child process spoken to over its stdin and stdout, one pickled message at a time
(``multiprocessing.connection.Connection``): the sympy worker, the torch helper and the torch
worker. :class:`ChildProcess` is what the three share: start once, start again after a death
(up to a limit), kill, stop."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection

__all__ = ["start_child", "child_pipes", "ChildProcess"]


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


class ChildProcess:
    """One child process running ``program`` (with ``_args()``, ``_env()``, ``_cwd()``):
    started by :meth:`start` or on first use, started again after it died, up to
    ``max_starts`` times in all; what it sends goes to ``_read`` (in a thread of its own).
    ``_start`` and ``_kill`` are called with ``_lock`` held (a Lock, or the subclass's
    Condition)."""

    program = ""
    name = ""
    max_starts = 5

    def __init__(
        self, lock: threading.Lock | threading.Condition | None = None, *, resident: bool = True
    ) -> None:
        """``resident=False`` (lean mode, :mod:`.lean`): never start the process; every caller
        takes its fallback (the work runs in the caller's thread, or in a short-lived process)."""
        self._lock = lock if lock is not None else threading.Lock()
        if not resident:
            self.max_starts = 0
        self._proc: subprocess.Popen[bytes] | None = None
        self._send: Connection | None = None
        self._starts = 0

    def start(self) -> None:
        """Start the process now, once (the server does at its first run, so that it is warm;
        later requests start it again if it died)."""
        if self._starts:
            return
        with self._lock:
            self._start()

    def _start(self) -> Connection | None:
        """The Connection to the running process, started if need be; None if it cannot be."""
        if self._proc is not None and self._proc.poll() is None and self._send is not None:
            return self._send
        if self._starts >= self.max_starts:
            return None
        self._starts += 1
        self._starting()
        try:
            self._proc, self._send = start_child(
                self.program, *self._args(), read=self._read, name=self.name, env=self._env(),
                cwd=self._cwd(),
            )  # fmt: skip
        except OSError:
            self._starts = self.max_starts
            return None
        return self._send

    def _args(self) -> tuple[str, ...]:
        return ()

    def _env(self) -> dict[str, str] | None:
        return None

    def _cwd(self) -> str | None:
        return None

    def _starting(self) -> None:
        """Called before each start."""

    def _read(self, proc: subprocess.Popen[bytes], receive: Connection) -> None:
        raise NotImplementedError

    def _kill(self) -> None:
        proc, self._proc, self._send = self._proc, None, None
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)

    def stop(self) -> None:
        """End the process (tests; a server's children end when its pipes close)."""
        with self._lock:
            self._kill()
