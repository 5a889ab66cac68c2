"""Torch work in fresh processes forked from a warm helper, off the server's interpreter.

Two kinds of work leave the server process:

* **the flag lab's isolated runs** (:mod:`hograd_core.flaglab` says why they need a process
  of their own: a process-wide switch, a warning PyTorch gives once per process). Started
  cold, each imported torch again: 1-2 s of CPU, 3-5 s of waiting on a busy 2-core server.
* **the network page's training and analysis** (0.8 s and up to 1 s of torch per click).
  Torch's small ops on a small network are mostly Python overhead: in the server they held
  the interpreter lock that every session's rerun needs. With a third of a simulated class
  clicking "train" every few seconds, the light reruns of everyone else waited seconds.

One helper process imports torch and the modules once, loads the data sets and runs nothing
else. For each request it forks a copy of itself; the copy starts with everything loaded and
PyTorch's once-per-process state untouched (the helper never ran a graph), runs the request,
sends the answer (and, for training, its progress) and exits. The helper is single-threaded
(forking a threaded process is unsafe); several copies run at once (the heavy-work gate in
the server lets at most two). A copy that runs longer than its timeout is killed. If the
helper cannot be started, or dies more than ``MAX_STARTS`` times, the work runs as before: the
flag lab in a cold ``python -c`` process, training and analysis in the server.
"""

from __future__ import annotations

import atexit
import itertools
import json
import os
import queue
import subprocess
import sys
import time
from collections.abc import Callable
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from .child import ChildProcess, child_pipes
from .errors import BudgetError, ExpressionError, HogradError
from .gate import heavy_work

__all__ = [
    "run_fresh", "run_job", "probe_elsewhere", "ForkServer", "FreshError", "MAX_STARTS",
    "TorchChild",
]  # fmt: skip

MAX_STARTS = 5
ROOT = str(Path(__file__).resolve().parents[1])
#: The helper forks, so it must have one thread: no OpenMP/OpenBLAS pool, and no background
#: thread in the allocator pyarrow brings (scikit-learn imports pandas, which imports pyarrow).
CHILD_ENV = {
    "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "PYTHONWARNINGS": "ignore",
    "JE_ARROW_MALLOC_CONF": "background_thread:false",
}  # fmt: skip
_ERRORS = {cls.__name__: cls for cls in (HogradError, BudgetError, ExpressionError)}


class FreshError(RuntimeError):
    """The fresh process failed; ``timeout`` says whether it ran out of time."""

    def __init__(self, detail: str, *, timeout: bool = False) -> None:
        super().__init__(detail)
        self.timeout = timeout

    def refusal(self, seconds: float) -> BudgetError:
        """What the learner is told: the job ran out of its ``seconds``, or failed."""
        if self.timeout:
            return BudgetError("budget.job_timeout", seconds=f"{seconds:g}")
        return BudgetError("budget.job_failed", detail=str(self)[-200:])


# ---- what a copy runs -----------------------------------------------------------------------


def _flag(payload: dict, progress: Callable) -> str:
    from .flaglab import child_outcome

    return child_outcome(payload)


def _train(config: Any, progress: Callable) -> Any:
    from .network import train

    return train(config, progress)


def _analyse(args: tuple, progress: Callable) -> Any:
    from .net_curvature import curvature

    net, kwargs = args
    return curvature(net, **kwargs)


def _probe(args: tuple, progress: Callable) -> Any:
    from .derivatives import probe_here
    from .language import parse

    text, variables, order = args
    return probe_here(parse(text, variables or None), order)


def _autograd(args: tuple, progress: Callable) -> Any:
    from .derivatives import autograd_column
    from .language import parse

    text, x0, order = args
    return autograd_column(parse(text), x0, order)


#: What a copy can run: name -> function(args, progress).
JOBS: dict[str, Callable[[Any, Callable], Any]] = {
    "flag": _flag, "train": _train, "analyse": _analyse, "probe": _probe,
    "autograd": _autograd,
}  # fmt: skip


def answer(kind: str, args: Any, out: Connection) -> None:  # pragma: no cover - in a child
    """Run job ``kind`` on ``args`` and send ``out`` its progress and its outcome, in the form
    :func:`unpack` reads."""

    def progress(*values: object) -> None:
        out.send(("progress", values))

    try:
        out.send(("ok", JOBS[kind](args, progress)))
    except HogradError as err:  # a refusal, shown to the learner like any other
        out.send(("hograd", type(err).__name__, err.key, err.params))
    except Exception as err:  # noqa: BLE001 - the server shows it as a failure
        out.send(("error", f"{type(err).__name__}: {err}"))


def _serve() -> None:  # pragma: no cover - runs in the helper process
    """The helper: import once, then fork a copy per request and relay what it sends."""
    import scipy.sparse.linalg  # noqa: F401 - imported on first use otherwise, in every copy
    import sklearn.datasets  # noqa: F401
    import torch

    from . import derivatives, flaglab, flaglab_cases, language, net_curvature, network  # noqa: F401

    torch.set_num_threads(1)
    requests, answers = child_pipes()
    copies: dict[Connection, tuple[int, int, float]] = {}  # pipe -> (request id, pid, deadline)
    while True:
        now = time.monotonic()
        soonest = min((d for _, _, d in copies.values()), default=None)
        ready = wait([requests, *copies], None if soonest is None else max(0.0, soonest - now))
        for conn in ready:
            if conn is requests:
                try:
                    rid, kind, args, timeout = requests.recv()
                except (EOFError, OSError):  # the server is gone
                    for _, pid, _ in copies.values():
                        os.kill(pid, 9)
                    return
                read_end, write_end = os.pipe()
                pid = os.fork()
                if pid == 0:  # the copy: leave without running any of the helper's cleanup
                    try:
                        os.close(read_end)
                        answer(kind, args, Connection(write_end, readable=False))
                    finally:
                        os._exit(0)
                os.close(write_end)
                deadline = time.monotonic() + timeout  # not ``now``: the wait may have been long
                copies[Connection(read_end, writable=False)] = (rid, pid, deadline)
                continue
            rid, pid, _ = copies[conn]
            try:
                message = conn.recv()
            except EOFError:
                message = ("error", "the fresh process ended without an answer")
            answers.send((rid, message))
            if message[0] != "progress":
                del copies[conn]
                conn.close()
                os.waitpid(pid, 0)
        now = time.monotonic()
        for conn, (rid, pid, deadline) in list(copies.items()):
            if now >= deadline:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                del copies[conn]
                conn.close()
                answers.send((rid, ("timeout", "no answer in time")))


# ---- the server's side ----------------------------------------------------------------------


def unpack(message: tuple) -> tuple[bool, Any]:
    """A child's outcome (from :func:`answer`) as ForkServer.run returns it: (True, the
    answer), or (False, None) when the child is gone (the caller runs the job itself).

    Raises:
        HogradError: the child refused the request, as it would here.
        FreshError: the child failed, or ran out of time.
    """
    kind_of = message[0]
    if kind_of == "ok":
        return True, message[1]
    if kind_of == "gone":
        return False, None
    if kind_of == "hograd":
        _, name, key, params = message
        raise _ERRORS.get(name, HogradError)(key, **params)
    raise FreshError(message[1], timeout=kind_of == "timeout")


class TorchChild(ChildProcess):
    """A child process of this package's that imports torch (the torch helper, the torch
    worker of hograd_core/background.py): one thread per pool, the package on its path."""

    max_starts = MAX_STARTS

    def _env(self) -> dict[str, str]:
        return {**os.environ, **CHILD_ENV, "PYTHONPATH": ROOT}

    def _cwd(self) -> str:
        return ROOT


class ForkServer(TorchChild):
    """The helper process, started on first use, asked by many script threads at once."""

    program = "from hograd_core.fresh import _serve; _serve()"
    name = "fork-helper-reader"

    def __init__(self) -> None:
        super().__init__()
        #: request id -> (the helper it was sent to, where its messages go)
        self._inboxes: dict[int, tuple[subprocess.Popen[bytes], queue.SimpleQueue]] = {}
        self._ids = itertools.count()

    def _read(self, proc: subprocess.Popen[bytes], receive: Connection) -> None:
        try:
            while True:
                rid, message = receive.recv()
                with self._lock:
                    entry = self._inboxes.get(rid)
                if entry is not None:
                    entry[1].put(message)
        except (EOFError, OSError):
            with self._lock:
                if self._proc is proc:
                    self._proc, self._send = None, None
                inboxes = [q for p, q in self._inboxes.values() if p is proc]
            for inbox in inboxes:  # every question in flight to this helper: it is gone
                inbox.put(("gone",))
        finally:
            receive.close()

    def run(
        self, kind: str, args: Any, timeout: float, progress: Callable | None = None
    ) -> tuple[bool, Any]:
        """(True, the answer) from a forked copy, or (False, None) if the helper is not
        available. ``progress`` gets what the copy reports meanwhile, in this thread.

        Raises:
            HogradError: the copy refused the request (a budget, say), as it would here.
            FreshError: the copy failed, or ran out of time.
        """
        inbox: queue.SimpleQueue = queue.SimpleQueue()
        with self._lock:
            send = self._start()
            if send is None:
                return False, None
            rid = next(self._ids)
            assert self._proc is not None
            self._inboxes[rid] = (self._proc, inbox)
            try:
                send.send((rid, kind, args, timeout))
            except OSError:
                self._proc, self._send = None, None
                del self._inboxes[rid]
                return False, None
        try:
            deadline = time.monotonic() + timeout + 30  # the helper's first start imports torch
            while True:
                try:
                    message = inbox.get(timeout=max(0.0, deadline - time.monotonic()))
                except queue.Empty:
                    raise FreshError("the helper did not answer", timeout=True) from None
                if message[0] == "progress":
                    if progress is not None:
                        progress(*message[1])
                    continue
                break
        finally:
            with self._lock:
                self._inboxes.pop(rid, None)
        return unpack(message)


FORK_SERVER = ForkServer()
atexit.register(FORK_SERVER.stop)  # the helper would end anyway, on its closed pipe


def run_job(kind: str, args: Any, timeout: float, progress: Callable | None = None) -> Any:
    """Run ``kind`` ("train" or "analyse") on ``args`` in a forked copy of the helper, or
    here when the helper is not available.

    Raises:
        HogradError: a refusal (budget, busy), from wherever it ran; a copy that failed or
            ran out of time ("budget.job_failed", "budget.job_timeout").
    """
    with heavy_work():  # the copies do not share the server's gate: this is it
        try:
            done, answer = FORK_SERVER.run(kind, args, timeout, progress)
        except FreshError as err:
            raise err.refusal(timeout) from err
    if done:
        return answer
    return JOBS[kind](args, progress or (lambda *_: None))  # gated in there


#: A probe stops itself at the node limit (0.6 s on a busy machine); a fork that has not
#: answered by this is killed, and the probe runs in the server instead.
PROBE_SECONDS = 30.0


def probe_elsewhere(fn: Any, order: int) -> Any:
    """The autograd probe of ``fn`` to ``order`` (hograd_core.derivatives) in a fork of the
    helper; ``derivatives.HERE`` when it could not run there. Not gated: a probe is bounded
    by the node limit, and small ones are the most common request of the derivatives page."""
    from .derivatives import HERE

    try:
        done, answer = FORK_SERVER.run("probe", (fn.text, fn.variables, order), PROBE_SECONDS)
    except (FreshError, HogradError):
        return HERE
    return answer if done else HERE


def run_fresh(payload: dict, timeout: float) -> str:
    """A flag-lab ``payload``'s answer (JSON) from a fresh process: a fork of the warm helper,
    or a cold ``python -c`` process when the helper is not available.

    Raises:
        FreshError: the process failed, or ran out of time.
    """
    done, answer = FORK_SERVER.run("flag", payload, timeout)
    if done:
        return answer
    env = {**os.environ, **CHILD_ENV, "PYTHONPATH": ROOT}
    try:
        cold = subprocess.run(
            [sys.executable, "-c", "from hograd_core.flaglab import _child; _child()"],
            input=json.dumps(payload).encode(), capture_output=True, timeout=timeout, env=env,
            cwd=ROOT, check=False,
        )  # fmt: skip
    except subprocess.TimeoutExpired as err:
        raise FreshError(f"no answer within {timeout:g} s", timeout=True) from err
    if cold.returncode != 0:
        raise FreshError(cold.stderr.decode()[-300:])
    return cold.stdout.decode()
