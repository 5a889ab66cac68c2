"""Work whose answer a page can show later: run in a torch process of its own, asked with a
short wait.

The derivatives page's inspector shows nested autograd's derivatives at x0 beside Taylor
mode's. For a small function they take a millisecond; at order 10 of a function that swells
they build a graph of up to 100,000 nodes: up to half a second in the server, partly holding
the interpreter lock every session's rerun needs, after an autograd probe that sizes the graph
and that the rerun waited for. In a class of 50 that column alone lifted the rerun p95 by a
third (benchmarks/load.py, with and without it). So it runs here: the page asks, waits a
moment (hograd_serving/cached.py: WAIT), shows what it has (a dash and a note where the answer is not
in yet) and asks again from a timer, as it does for sympy's column
(hograd_serving/sympy_worker.py).

A :class:`DeferredJobs` has a thread of its own. It takes the most recently asked job, runs it in a
:class:`TorchWorker` (in the thread itself if there is no worker) and keeps the answer, the last
``KEEP`` of them, for everyone who asks the same. A job nobody has asked for in ``FORGET``
seconds (the student moved on) is dropped unrun.

The worker is one long-lived child process with torch loaded, at low priority, running one
job after another. Not a fork of the torch helper per job (hograd_serving/torch_helper.py), as the
network page's training is: most of these jobs take a few milliseconds, and forking a 300 MB
process costs more than that (a class's rerun p95 got worse, not better, that way). The jobs
are bounded by the autograd node limit; one that outlives its timeout is killed with its
worker, and the next job starts a new one.
"""

from __future__ import annotations

import os
import queue
import subprocess
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from hograd_core.errors import HogradError

from . import torch_helper
from .child import child_pipes
from .floor import step_aside

__all__ = ["DeferredJobs", "JobAnswer", "TorchWorker", "KEEP", "FORGET", "NICENESS"]

KEEP = 512
FORGET = 20.0
#: The worker's niceness: nobody waits on it for long, everybody waits on the server.
NICENESS = 10
#: Its first start imports torch: on a busy machine, seconds.
START_SECONDS = 30.0


@dataclass(frozen=True)
class JobAnswer:
    """A finished job: its ``value``, or the ``error`` that refused it."""

    value: Any = None
    error: HogradError | None = None


class DeferredJobs:
    """Jobs of one ``kind`` (a name in torch_helper.JOBS), keyed by their arguments, run one at a
    time by ``worker``, each killed after ``timeout`` seconds."""

    def __init__(
        self, kind: str, worker: TorchWorker | None = None, *, timeout: float = 30.0,
        keep: int = KEEP, forget: float = FORGET, clock: Callable[[], float] = time.monotonic,
    ) -> None:  # fmt: skip
        self.kind, self.timeout, self.keep, self.forget = kind, timeout, keep, forget
        self._clock = clock  # when a job was asked for, and so when it is forgotten
        self.worker = worker
        self._changed = threading.Condition()
        self._wanted: dict[Hashable, float] = {}  # args -> when last asked
        self._running: set[Hashable] = set()
        self._done: OrderedDict[Hashable, JobAnswer] = OrderedDict()
        self._thread: threading.Thread | None = None

    def ask(self, args: Hashable, wait: float) -> JobAnswer | None:
        """The answer for ``args`` if it is in within ``wait`` seconds, else None (and the
        job stays wanted: ask again later). A script run waits off the floor
        (:mod:`.floor`)."""
        with self._changed:
            done = self._take_done(args)
        if done is not None:
            return done
        with step_aside():
            return self._ask(args, wait)

    def _take_done(self, args: Hashable) -> JobAnswer | None:
        """The finished answer for ``args``, kept as the most recent; call under the lock."""
        done = self._done.get(args)
        if done is not None:
            self._done.move_to_end(args)
        return done

    def _ask(self, args: Hashable, wait: float) -> JobAnswer | None:
        deadline = time.monotonic() + wait
        with self._changed:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._work, name=f"later-{self.kind}", daemon=True
                )
                self._thread.start()
            asked = False
            while True:
                done = self._take_done(args)
                if done is not None:
                    return done
                if args not in self._running and (not asked or args not in self._wanted):
                    new = args not in self._wanted  # else the thread knows of it already
                    self._wanted[args] = self._clock()  # the most recent ask goes first
                    asked = True
                    if new:
                        self._changed.notify_all()
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._changed.wait(left)

    def _next(self) -> Hashable:
        """The most recently asked job (dropping the forgotten), waiting for one."""
        with self._changed:
            while True:
                now = self._clock()
                for args in [a for a, t in self._wanted.items() if now - t > self.forget]:
                    del self._wanted[args]
                if self._wanted:
                    args = max(self._wanted, key=self._wanted.__getitem__)
                    del self._wanted[args]
                    self._running.add(args)
                    return args
                self._changed.wait(self.forget)

    def _work(self) -> None:
        while True:
            args = self._next()
            done = self.run(args)
            with self._changed:
                self._running.discard(args)
                self._done[args] = done
                while len(self._done) > self.keep:
                    self._done.popitem(last=False)
                self._changed.notify_all()

    def run(self, args: Hashable) -> JobAnswer:
        """One job, now, from this thread: in the worker, else here."""
        try:
            elsewhere, value = (False, None)
            if self.worker is not None:
                elsewhere, value = self.worker.run(self.kind, args, self.timeout)
            if not elsewhere:
                value = torch_helper.JOBS[self.kind](args, lambda *_: None)
        except HogradError as err:  # a refusal, or a child that failed (ChildError)
            return JobAnswer(error=err)
        except Exception as err:  # noqa: BLE001 - in this thread nobody else would see it
            failed = torch_helper.ChildError(type(err).__name__, seconds=self.timeout)
            return JobAnswer(error=failed)
        return JobAnswer(value=value)


def _serve() -> None:  # pragma: no cover - runs in the worker process
    """The worker: torch and the modules loaded once, then one job after another."""
    import torch

    import hograd_core.nested_autograd  # noqa: F401 - imported before the first job

    torch.set_num_threads(1)
    os.nice(NICENESS)
    requests, answers = child_pipes()
    while True:
        try:
            kind, args = requests.recv()
        except (EOFError, OSError):  # the server is gone
            return
        torch_helper.answer(kind, args, answers)


class TorchWorker(torch_helper.TorchChild):
    """A long-lived torch process running jobs (names in torch_helper.JOBS) one at a time; started
    on first use, started again (up to torch_helper.MAX_STARTS times) after it died or was killed."""

    program = "from hograd_serving.deferred import _serve; _serve()"
    name = "torch-worker-reader"

    def __init__(self, *, resident: bool = True) -> None:
        super().__init__(resident=resident)  # its lock: one job at a time
        self._answers: queue.SimpleQueue = queue.SimpleQueue()
        self._first = False  # the next job is the first of a new process: it waits longer

    def _starting(self) -> None:
        self._answers = queue.SimpleQueue()  # nothing of a dead process's is read
        self._first = True

    def _read(self, proc: subprocess.Popen[bytes], receive: Connection) -> None:
        answers = self._answers
        try:
            while True:
                answers.put(receive.recv())
        except (EOFError, OSError):
            answers.put(("gone",))
        finally:
            receive.close()

    def run(self, kind: str, args: object, timeout: float) -> tuple[bool, object]:
        """(True, the answer), or (False, None) if there is no worker to run it.

        Raises:
            HogradError: the job refused (a budget), as it would here.
            ChildError: the job failed, or ran out of time (and its process was killed).
        """
        with self._lock:
            send = self._start()
            if send is None:
                return False, None
            deadline = time.monotonic() + timeout + (START_SECONDS if self._first else 0.0)
            self._first = False
            try:
                send.send((kind, args))
                message = ("progress",)
                while message[0] == "progress":  # nobody here reads a job's progress
                    message = self._answers.get(timeout=max(0.0, deadline - time.monotonic()))
            except OSError:
                message = ("gone",)
            except queue.Empty:
                self._kill()
                raise torch_helper.ChildError(
                    "no answer in time", seconds=timeout, timeout=True
                ) from None
            if message[0] == "gone":
                self._kill()
            return torch_helper.unpack(message, timeout)
