"""Fresh Python processes for the flag lab, forked from a warm parent instead of started cold.

Some flag-lab runs need a process of their own (:mod:`hograd_core.flaglab` says why: a
process-wide switch, a warning PyTorch gives once per process). Started cold, each imports
torch again: 1-2 s of CPU, 3-5 s of waiting on a busy 2-core server. Here one helper process
imports torch and the flag lab once, runs nothing else, and for each request forks a copy of
itself. The copy starts with torch loaded and its once-per-process state untouched (the
helper never ran a graph), runs the request, sends the answer and exits.

The helper is single-threaded (forking a threaded process is unsafe) and serves one request
at a time; the flag lab's heavy-work gate lets at most two wait. A request that runs longer
than its timeout has its copy killed. If the helper cannot be started, or dies more than
``MAX_STARTS`` times, :func:`run_fresh` falls back to a cold ``python -c`` process, as before.
"""

from __future__ import annotations

import atexit
import json
import os
import subprocess
import sys
import threading
from multiprocessing.connection import Connection
from pathlib import Path

__all__ = ["run_fresh", "ForkServer", "MAX_STARTS"]

MAX_STARTS = 5
_ROOT = str(Path(__file__).resolve().parents[1])
_ENV = {"OMP_NUM_THREADS": "1", "PYTHONWARNINGS": "ignore"}  # as the cold process had


class FreshError(RuntimeError):
    """The fresh process failed; ``timeout`` says whether it ran out of time."""

    def __init__(self, detail: str, *, timeout: bool = False) -> None:
        super().__init__(detail)
        self.timeout = timeout


def _answer(payload: dict) -> str:
    """What a fresh process computes for ``payload`` (the flag lab's own entry point)."""
    from .flaglab import child_outcome

    return child_outcome(payload)


def _serve() -> None:  # pragma: no cover - runs in the helper process
    """The helper: import once, then fork a copy per request and relay its answer."""
    import torch

    from . import flaglab, flaglab_cases  # noqa: F401 - imported once, before any fork

    torch.set_num_threads(1)
    requests = Connection(os.dup(0), writable=False)
    answers = Connection(os.dup(1), readable=False)
    sys.stdout = sys.stderr  # nothing else may write to the answer pipe
    while True:
        try:
            payload, timeout = requests.recv()
        except (EOFError, OSError):  # the server is gone
            return
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the copy: answer, then leave without running any cleanup of the helper's
            os.close(read_end)
            try:
                out = Connection(write_end, readable=False)
                try:
                    out.send(("ok", _answer(payload)))
                except Exception as err:  # noqa: BLE001 - the server shows it as a failure
                    out.send(("error", f"{type(err).__name__}: {err}"))
            finally:
                os._exit(0)
        os.close(write_end)
        result = Connection(read_end, writable=False)
        if result.poll(timeout):
            try:
                answer = result.recv()
            except EOFError:
                answer = ("error", "the fresh process ended without an answer")
        else:
            os.kill(pid, 9)
            answer = ("timeout", f"no answer within {timeout:g} s")
        result.close()
        os.waitpid(pid, 0)
        answers.send(answer)


class ForkServer:
    """The server's side: the helper process, started on first use, one request at a time."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._send: Connection | None = None
        self._receive: Connection | None = None
        self._starts = 0

    def _alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def _start(self) -> bool:  # called with the lock held
        if self._alive():
            return True
        if self._starts >= MAX_STARTS:
            return False
        self._starts += 1
        env = {**os.environ, **_ENV, "PYTHONPATH": _ROOT}
        try:
            proc = subprocess.Popen(
                [sys.executable, "-c", "from hograd_core.fresh import _serve; _serve()"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=_ROOT,
                close_fds=True,
            )  # fmt: skip
        except OSError:
            self._starts = MAX_STARTS
            return False
        assert proc.stdin is not None and proc.stdout is not None
        self._send = Connection(os.dup(proc.stdin.fileno()), readable=False)
        self._receive = Connection(os.dup(proc.stdout.fileno()), writable=False)
        proc.stdin.close()
        proc.stdout.close()
        self._proc = proc
        return True

    def run(self, payload: dict, timeout: float) -> str | None:
        """The answer (JSON) of a forked copy, or None if the helper is not available.

        Raises:
            FreshError: the copy failed, or ran out of time.
        """
        with self._lock:
            if not self._start():
                return None
            assert self._send is not None and self._receive is not None
            try:
                self._send.send((payload, timeout))
                # the helper itself needs up to ~2 s to import torch the first time
                if not self._receive.poll(timeout + 30):
                    raise OSError("the helper does not answer")
                kind, text = self._receive.recv()
            except (OSError, EOFError):
                self.stop()
                return None  # a cold process answers this one
        if kind == "ok":
            return text
        raise FreshError(text, timeout=kind == "timeout")

    def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)


FORK_SERVER = ForkServer()
atexit.register(FORK_SERVER.stop)  # the helper would end anyway, on its closed pipe


def run_fresh(payload: dict, timeout: float) -> str:
    """``payload``'s answer (JSON) from a fresh process: a fork of the warm helper, or a cold
    ``python -c`` process when the helper is not available.

    Raises:
        FreshError: the process failed, or ran out of time.
    """
    answer = FORK_SERVER.run(payload, timeout)
    if answer is not None:
        return answer
    env = {**os.environ, **_ENV, "PYTHONPATH": _ROOT}
    try:
        done = subprocess.run(
            [sys.executable, "-c", "from hograd_core.flaglab import _child; _child()"],
            input=json.dumps(payload).encode(), capture_output=True, timeout=timeout, env=env,
            cwd=_ROOT, check=False,
        )  # fmt: skip
    except subprocess.TimeoutExpired as err:
        raise FreshError(f"no answer within {timeout:g} s", timeout=True) from err
    if done.returncode != 0:
        raise FreshError(done.stderr.decode()[-300:])
    return done.stdout.decode()
