"""The exact maths' children, forked from a process that has imported sympy already.

A child of :mod:`.exact` was a fresh interpreter: ``python -m hograd_serving.exact_child`` spent
about 0.6-0.9 s of CPU importing sympy before its first line of work, once for every function a
student typed (its formula on every page, the backward lab's values, the derivatives column).
Now one process, ``python -m hograd_serving.exact_child --zygote`` (started on first use,
from a fresh interpreter, never a fork of this multi-threaded server), imports sympy once and
forks a child per request. The child is a process of its own as before: it sets its own CPU
and memory limits, and the server kills it at its deadline.

Not the standard library's forkserver: it prepares each child by running the parent's
``__main__`` again, which in a Streamlit server is the app's script (Streamlit puts the running
script there), so every child ran app.py first.

:func:`launch` returns an object with the part of :class:`subprocess.Popen` that :mod:`.exact`
and :mod:`.sympy_column` use (``stdin``, ``stdout``, ``kill``, ``wait``, ``returncode``); where
the zygote cannot be had, the fresh interpreter is started instead. This module imports none
of sympy: the contract that keeps it out of the server holds (pyproject.toml).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import socket
import struct
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from typing import IO

__all__ = ["CHILD", "Forked", "Zygote", "launch"]

#: The module whose children the zygote forks (it runs ``CHILD --zygote FD``).
CHILD = "hograd_serving.exact_child"
#: Seconds the zygote may take to fork and name a child before the fresh interpreter is used.
ANSWER_SECONDS = 10.0


class Forked:
    """A child the zygote forked: write the request to ``stdin``, read lines from ``stdout``,
    ``kill`` it at the deadline, ``wait`` for its exit status (which the zygote reports)."""

    def __init__(self, pid: int, stdin: IO[str], stdout: IO[str], status: IO[str]) -> None:
        self.pid, self.stdin, self.stdout, self._status = pid, stdin, stdout, status
        self.returncode: int | None = None  # as Popen's: the exit status, or minus the signal

    def kill(self) -> None:
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError):  # it has ended already
                os.kill(self.pid, signal.SIGKILL)

    def wait(self) -> int | None:
        if self.returncode is None:
            line = self._status.readline()  # the zygote writes it once the child has ended
            self._status.close()
            self.returncode = int(line) if line.strip() else -signal.SIGKILL
        return self.returncode


class Zygote:
    """The process that forks the children; started on first use, started again if it died."""

    def __init__(self, env: dict[str, str], cwd: str) -> None:
        self.env, self.cwd = env, cwd
        self._lock = threading.Lock()
        self._process: subprocess.Popen | None = None
        self._socket: socket.socket | None = None

    def _start(self) -> None:
        ours, theirs = socket.socketpair()
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-m", CHILD, "--zygote", str(theirs.fileno())],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                cwd=self.cwd,
                env=self.env,
            )
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        ours.settimeout(ANSWER_SECONDS)
        self._socket = ours

    def fork(self, argv: Sequence[str]) -> Forked:
        """A new child running ``CHILD``'s ``main(argv)``.

        Raises:
            OSError: the zygote did not fork one (it is stopped, and started anew next time).
        """
        request_r, request_w = os.pipe()
        answer_r, answer_w = os.pipe()
        status_r, status_w = os.pipe()
        try:
            with self._lock:
                if self._process is None or self._process.poll() is not None:
                    self._start()
                assert self._socket is not None
                try:
                    message = "\0".join(argv).encode()
                    socket.send_fds(self._socket, [message], [request_r, answer_w, status_w])
                    (pid,) = struct.unpack("!i", _receive(self._socket, 4))
                except OSError:
                    self._stop()
                    raise
        except BaseException:
            for fd in (request_w, answer_r, status_r):
                os.close(fd)
            raise
        finally:
            for fd in (request_r, answer_w, status_w):  # the zygote passed its copies on
                os.close(fd)
        return Forked(
            pid,
            open(request_w, "w", encoding="utf-8"),
            open(answer_r, encoding="utf-8"),
            open(status_r, encoding="utf-8"),
        )

    def _stop(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.wait()
        if self._socket is not None:
            self._socket.close()
        self._process = self._socket = None


def _receive(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise ConnectionError("the zygote closed its socket")
        data += chunk
    return data


_ZYGOTES: dict[tuple, Zygote] = {}  # one per environment and folder (the server has one)
_ZYGOTES_LOCK = threading.Lock()


@atexit.register
def _stop_all() -> None:
    """At exit, each zygote is stopped (its children end by their own limits)."""
    with _ZYGOTES_LOCK:
        for zygote in _ZYGOTES.values():
            with zygote._lock:
                zygote._stop()


def _spawned(argv: Sequence[str], env: dict[str, str], cwd: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", CHILD, *argv],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=cwd,
        env=env,
        text=True,
    )


def launch(
    argv: Sequence[str],
    *,
    env: dict[str, str],
    cwd: str,
    spawn: Callable[..., subprocess.Popen] = _spawned,
) -> Forked | subprocess.Popen:
    """A child running ``CHILD``'s ``main(argv)`` with pipes for standard input and output:
    forked by the zygote, or a fresh interpreter where the zygote cannot fork one."""
    key = (tuple(sorted(env.items())), cwd)
    with _ZYGOTES_LOCK:
        zygote = _ZYGOTES.setdefault(key, Zygote(env, cwd))
    try:
        return zygote.fork(argv)
    except OSError:
        return spawn(argv, env, cwd)
