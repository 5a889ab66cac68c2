"""Children forked from a process that has imported their heavy modules already: the exact
maths' (sympy) and the code page's (torch).

A child of :mod:`.exact` was a fresh interpreter: ``python -m hograd_serving.exact_child`` spent
about 0.6-0.9 s of CPU importing sympy before its first line of work, once for every function a
student typed (its formula on every page, the backward lab's values, the derivatives column).
Now one process, ``python -m hograd_serving.exact_child --zygote`` (started on first use,
from a fresh interpreter, never a fork of this multi-threaded server), imports sympy once and
forks a child per request. The child is a process of its own as before: it sets its own CPU
and memory limits, and the server kills it at its deadline.

The code page's children (:mod:`.code_child`) are forked the same way, from ``python -m
hograd_serving.code_child --zygote`` (torch imported and warmed once, started on the first
run of a program): a fresh interpreter spent seconds importing torch for every run.

Not the standard library's forkserver: it prepares each child by running the parent's
``__main__`` again, which in a Streamlit server is the app's script (Streamlit puts the running
script there), so every child ran app.py first.

:func:`launch` returns an object with the part of :class:`subprocess.Popen` that :mod:`.exact`
and :mod:`.sympy_column` use (``stdin``, ``stdout``, ``kill``, ``wait``, ``returncode``); where
the zygote cannot be had, the fresh interpreter is started instead. :func:`serve` is the
zygote's side, run by the child modules. This module imports neither sympy nor torch: the
contract that keeps sympy out of the server holds (pyproject.toml).
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import signal
import socket
import struct
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO

__all__ = ["CHILD", "Forked", "Zygote", "launch", "serve"]

#: The module whose children a zygote forks by default (it runs ``CHILD --zygote FD``).
CHILD = "hograd_serving.exact_child"
#: Seconds the zygote may take to fork and name a child before the fresh interpreter is used.
ANSWER_SECONDS = 10.0
#: The same for its first child, which waits for the zygote's own imports (sympy's take about
#: a second; a caller whose zygote imports more passes its own).
START_SECONDS = ANSWER_SECONDS


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
    """The process that forks ``child``'s children; started on first use, started again if
    it died."""

    def __init__(
        self,
        env: dict[str, str],
        cwd: str,
        child: str = CHILD,
        start_seconds: float = START_SECONDS,
    ) -> None:
        self.env, self.cwd, self.child = env, cwd, child
        self.start_seconds = start_seconds
        self._lock = threading.Lock()
        self._process: subprocess.Popen | None = None
        self._socket: socket.socket | None = None

    def _start(self) -> None:
        ours, theirs = socket.socketpair()
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-m", self.child, "--zygote", str(theirs.fileno())],
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
        ours.settimeout(self.start_seconds)  # its imports come before its first answer
        self._socket = ours

    def fork(self, argv: Sequence[str]) -> Forked:
        """A new child running ``self.child``'s ``main(argv)``.

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
                    self._socket.settimeout(ANSWER_SECONDS)
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


_ZYGOTES: dict[str, Zygote] = {}  # child module -> its zygote (one each per server)
_ZYGOTES_LOCK = threading.Lock()


@atexit.register
def _stop_all() -> None:
    """At exit, each zygote is stopped (its children end by their own limits)."""
    with _ZYGOTES_LOCK:
        for zygote in _ZYGOTES.values():
            with zygote._lock:
                zygote._stop()


def _spawned(
    argv: Sequence[str], env: dict[str, str], cwd: str, child: str = CHILD
) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", child, *argv],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=cwd,
        env=env,
        text=True,
    )


#: The folder that holds hograd's packages (every child runs there, with it on its path).
ROOT = str(Path(__file__).resolve().parents[1])


@functools.cache
def child_env() -> dict[str, str]:
    """The children's environment, the server's as it was at their first start (the zygote
    that forks them keeps it): hograd on the path, one thread for the maths libraries,
    warnings off (a child's standard error goes nowhere)."""
    return {
        **os.environ,
        "PYTHONPATH": ROOT,
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "PYTHONWARNINGS": "ignore",
    }


def launch(
    argv: Sequence[str],
    *,
    env: dict[str, str],
    cwd: str,
    child: str = CHILD,
    start_seconds: float = START_SECONDS,
    spawn: Callable[..., subprocess.Popen] = _spawned,
) -> Forked | subprocess.Popen:
    """A child running ``child``'s ``main(argv)`` with pipes for standard input and output:
    forked by that module's zygote, or a fresh interpreter where the zygote cannot fork one
    (``spawn(argv, env, cwd, child)``); the zygote's first answer may take ``start_seconds``."""
    with _ZYGOTES_LOCK:
        zygote = _ZYGOTES.get(child)
        if zygote is None or (zygote.env, zygote.cwd) != (env, cwd):
            if zygote is not None:  # one zygote per child module: the old one ends
                with zygote._lock:
                    zygote._stop()
            zygote = _ZYGOTES[child] = Zygote(env, cwd, child, start_seconds)
    try:
        return zygote.fork(argv)
    except OSError:
        return spawn(argv, env, cwd, child)


# ---- the zygote's side: run by ``python -m CHILD --zygote FD`` once its imports are done ----


def serve(fd: int, main: Callable[[list[str]], None]) -> None:
    """Serve the server's requests on the socket ``fd`` until the server closes it: each is
    the child's ``argv`` and three pipes (its standard input, its standard output, and where
    to write its exit status once it has ended); the answer is the child's pid. Each child
    runs ``main(argv)``, which sets its own limits."""
    sock = socket.socket(fileno=fd)
    statuses: dict[int, int] = {}  # pid -> the pipe its exit status goes to
    ended: dict[int, int] = {}  # pid -> exit status, of a child reaped before it was filed

    def reap(*_: object) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            code = os.waitstatus_to_exitcode(status)  # minus the signal, as Popen's
            if pid in statuses:
                _report(statuses.pop(pid), code)
            else:
                ended[pid] = code

    signal.signal(signal.SIGCHLD, reap)
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(sock, 65536, 3)
        except InterruptedError:
            continue
        if not message or len(fds) != 3:
            return  # the server has gone (or sent nonsense): children end by their limits
        signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGCHLD])  # filed before reaped
        pid = os.fork()
        if pid == 0:
            _forked(sock, fds, message.decode().split("\0"), main)
        os.close(fds[0])
        os.close(fds[1])
        if pid in ended:
            _report(fds[2], ended.pop(pid))
        else:
            statuses[pid] = fds[2]
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGCHLD])
        sock.sendall(struct.pack("!i", pid))


def _report(fd: int, code: int) -> None:
    with contextlib.suppress(OSError):  # the server stopped listening
        os.write(fd, f"{code}\n".encode())
    os.close(fd)


def _forked(
    sock: socket.socket, fds: list[int], argv: list[str], main: Callable[[list[str]], None]
) -> None:
    """In the child: the pipes become standard input and output (standard error goes
    nowhere), ``main(argv)`` runs, and the process ends without returning to the loop."""
    code = 1
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGCHLD])
        sock.close()
        os.close(fds[2])
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fds[0], 0)
        os.dup2(fds[1], 1)
        os.dup2(devnull, 2)
        for extra in (fds[0], fds[1], devnull):
            os.close(extra)
        sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115 - the process's own
        sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
        main(argv)
        sys.stdout.flush()
        code = 0
    except SystemExit as err:
        code = err.code if isinstance(err.code, int) else 1
    finally:
        os._exit(code)
