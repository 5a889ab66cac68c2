"""Torch work in fresh processes forked from a warm helper, off the server's interpreter.

Two kinds of work leave the server process:

* **the flag lab's isolated runs** (:mod:`hograd_core.flaglab.flags` says why they need a process
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
import functools
import itertools
import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from hograd_core.errors import ArgumentError, BudgetError, ExpressionError, HogradError
from hograd_core.flaglab.flags import FlagOutcome
from hograd_core.flaglab.isolated import decode
from hograd_core.nested_autograd import probe_graph

from .child import ChildProcess, child_pipes
from .floor import step_aside
from .gate import BusyError, heavy_work
from .lean import LEAN

__all__ = [
    "run_isolated", "run_job", "probe_in_helper", "TorchHelper", "TorchChild", "ChildError",
    "MAX_STARTS", "TORCH_HELPER",
]  # fmt: skip

MAX_STARTS = 5
ROOT = str(Path(__file__).resolve().parents[1])
#: The helper forks, so it must have one thread: no OpenMP/OpenBLAS pool, and no background
#: thread in the allocator pyarrow brings (scikit-learn imports pandas, which imports pyarrow).
CHILD_ENV = {
    "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "PYTHONWARNINGS": "ignore",
    "JE_ARROW_MALLOC_CONF": "background_thread:false",
}  # fmt: skip
_ERRORS = {
    cls.__name__: cls
    for cls in (HogradError, BudgetError, ExpressionError, ArgumentError, BusyError)
}


class ChildError(HogradError):
    """A child process failed, or ran out of its ``seconds`` (``timeout``).

    Args:
        detail: what went wrong, for the message when it failed.
        seconds: the time it had.
        timeout: it ran out of time (and was killed) rather than failed.
        flag_lab: word the message for the flag lab's separate process.
    """

    def __init__(
        self, detail: str, *, seconds: float, timeout: bool = False, flag_lab: bool = False
    ) -> None:
        self.detail, self.seconds, self.timeout = detail, seconds, timeout
        if timeout:
            key = "graph.flag.child_timeout" if flag_lab else "budget.job_timeout"
            super().__init__(key, seconds=f"{seconds:g}")
        else:
            key = "graph.flag.child_failed" if flag_lab else "budget.job_failed"
            super().__init__(key, detail=detail[-200:])


# ---- what a copy runs -----------------------------------------------------------------------


def _flag(payload: dict, progress: Callable) -> str:
    from hograd_core.flaglab.isolated import outcome_json

    return outcome_json(payload)


def _train(config: Any, progress: Callable) -> Any:
    from hograd_core.network import train

    return train(config, progress)


def _analyse(args: tuple, progress: Callable) -> Any:
    from hograd_core.net_curvature import curvature

    net, kwargs = args
    return curvature(net, **kwargs)


def _probe(args: tuple, progress: Callable) -> Any:
    from hograd_core.language import parse
    from hograd_core.nested_autograd import probe_graph

    text, variables, order = args
    return probe_graph(parse(text, variables or None), order)


def _autograd(args: tuple, progress: Callable) -> Any:
    from hograd_core.language import parse
    from hograd_core.nested_autograd import autograd_column

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

    import hograd_core.flaglab.isolated  # noqa: F401 - imported once, not in every copy
    import hograd_core.net_curvature  # noqa: F401

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


def unpack(message: tuple, seconds: float) -> tuple[bool, Any]:
    """A child's outcome (from :func:`answer`) as TorchHelper.run returns it: (True, the
    answer), or (False, None) when the child is gone (the caller runs the job itself).

    Raises:
        HogradError: the child refused the request, as it would here.
        ChildError: the child failed, or ran out of time.
    """
    kind_of = message[0]
    if kind_of == "ok":
        return True, message[1]
    if kind_of == "gone":
        return False, None
    if kind_of == "hograd":
        _, name, key, params = message
        raise _ERRORS.get(name, HogradError)(key, **params)
    raise ChildError(message[1], seconds=seconds, timeout=kind_of == "timeout")


class TorchChild(ChildProcess):
    """A child process of this package's that imports torch (the torch helper, the torch
    worker of hograd_serving/deferred.py): one thread per pool, the package on its path."""

    max_starts = MAX_STARTS

    def _env(self) -> dict[str, str]:
        return {**os.environ, **CHILD_ENV, "PYTHONPATH": ROOT}

    def _cwd(self) -> str:
        return ROOT


class TorchHelper(TorchChild):
    """The helper process, started on first use, asked by many script threads at once."""

    program = "from hograd_serving.torch_helper import _serve; _serve()"
    name = "fork-helper-reader"

    def __init__(self, *, resident: bool = True) -> None:
        super().__init__(resident=resident)
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
            ChildError: the copy failed, or ran out of time.
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
                    raise ChildError(
                        "the helper did not answer", seconds=timeout, timeout=True
                    ) from None
                if message[0] == "progress":
                    if progress is not None:
                        progress(*message[1])
                    continue
                break
        finally:
            with self._lock:
                self._inboxes.pop(rid, None)
        return unpack(message, timeout)


TORCH_HELPER = TorchHelper(resident=not LEAN)
atexit.register(TORCH_HELPER.stop)  # the helper would end anyway, on its closed pipe


def run_job(kind: str, args: Any, timeout: float, progress: Callable | None = None) -> Any:
    """Run ``kind`` ("train" or "analyse") on ``args`` in a forked copy of the helper, or
    here when the helper is not available.

    Raises:
        HogradError: a refusal (a budget), from wherever it ran. The learner is told in plain
            words, without the processes behind it, when every slot is taken
            ("hvp.net.busy"), when the copy failed ("hvp.net.job_failed"; the detail stays on
            the error's ``__cause__`` for logs) or ran out of ``timeout``
            ("budget.job_timeout", a ChildError).
    """
    try:
        with heavy_work():  # the copies do not share the server's gate: this is it
            done, answer = TORCH_HELPER.run(kind, args, timeout, progress)
            if done:
                return answer
            return JOBS[kind](args, progress or (lambda *_: None))
    except BusyError as err:
        raise BusyError("hvp.net.busy") from err
    except ChildError as err:
        if err.timeout:  # "did not finish within ... s and was stopped": plain already
            raise
        raise HogradError("hvp.net.job_failed") from err


#: A probe stops itself at the node limit (0.6 s on a busy machine); a fork that has not
#: answered by this is killed, and the probe runs in the server instead.
PROBE_SECONDS = 30.0


def probe_in_helper(fn: Any, order: int) -> Any:
    """The autograd probe of ``fn`` to ``order`` (:func:`hograd_core.nested_autograd.probe_graph`)
    in a fork of the helper, or here when it could not run there. Not gated: a probe is bounded
    by the node limit, and small ones are the most common request of the derivatives page.

    The answer depends on the expression only, so it is memoised for every session (a refusal
    too, so a function over the limit is not probed again at every x0).
    """
    return _probe_in_helper(fn, order)


@functools.lru_cache(maxsize=256)
def _probe_in_helper(fn: Any, order: int) -> Any:
    with step_aside():  # up to 0.7 s near the node limit: the light runs go on meanwhile
        try:
            done, answer = TORCH_HELPER.run("probe", (fn.text, fn.variables, order), PROBE_SECONDS)
        except HogradError:
            done = False
        return answer if done else probe_graph(fn, order)


#: The flag lab's isolated runs: a cold process (no helper) imports torch first (1-2 s).
FLAG_SECONDS = 60.0


def run_isolated(payload: dict) -> FlagOutcome:
    """A flag-lab request (:mod:`hograd_core.flaglab.isolated`) run in a fresh process: a fork
    of the warm helper, or a cold ``python -c`` process when the helper is not available.
    Passed to ``run_flags`` and ``run_case`` as their ``isolate``.

    Raises:
        BusyError: every heavy-work slot is taken.
        ChildError: the process failed, or ran out of time.
    """
    with heavy_work():
        try:
            return decode(_run_fresh(payload, FLAG_SECONDS))
        except ChildError as err:
            raise ChildError(
                err.detail, seconds=err.seconds, timeout=err.timeout, flag_lab=True
            ) from err


_COLD = (
    "import json, sys, torch; torch.set_num_threads(1); "
    "from hograd_core.flaglab.isolated import outcome_json; "
    "sys.stdout.write(outcome_json(json.loads(sys.stdin.read())))"
)


def _run_fresh(payload: dict, timeout: float) -> str:
    done, answer = TORCH_HELPER.run("flag", payload, timeout)
    if done:
        return answer
    return run_cold(_COLD, json.dumps(payload), timeout)


#: Cold processes (``python -c`` importing torch: about 220 MB each) that may run at once. In
#: lean mode, the server's host is small (:mod:`.lean`), so one: a second request waits for it
#: (up to ``wait`` seconds), as heavy work waits for a slot of the gate.
COLD_SLOTS = 1 if LEAN else 2
_COLD_SEMAPHORE = threading.BoundedSemaphore(COLD_SLOTS)


def run_cold(program: str, stdin: str, timeout: float, wait: float = 1.5) -> str:
    """Run ``program`` in a fresh interpreter, ``stdin`` on its input; its output.

    For work that must not share a process with the server (a process-wide switch such as
    anomaly mode) when no warm helper can fork it: the flag lab's isolated runs in lean mode,
    and anomaly mode's report.

    Raises:
        BusyError: :data:`COLD_SLOTS` cold processes run already, still after ``wait`` s.
        ChildError: the process failed, or ran out of ``timeout`` seconds (it is killed).
    """
    if not _COLD_SEMAPHORE.acquire(timeout=wait):
        raise BusyError("budget.busy", slots=COLD_SLOTS)
    try:
        done = subprocess.run(
            [sys.executable, "-c", program], input=stdin.encode(), capture_output=True,
            timeout=timeout, env={**os.environ, **CHILD_ENV, "PYTHONPATH": ROOT}, cwd=ROOT,
            check=False,
        )  # fmt: skip
    except subprocess.TimeoutExpired as err:
        raise ChildError("no answer in time", seconds=timeout, timeout=True) from err
    finally:
        _COLD_SEMAPHORE.release()
    if done.returncode != 0:
        raise ChildError(done.stderr.decode(errors="replace")[-300:], seconds=timeout)
    return done.stdout.decode()
