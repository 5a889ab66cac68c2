"""sympy's exact derivatives for the derivatives page, worked out in a process of their own.

sympy is pure Python. Run in the server, it holds the interpreter lock that every student's
script run and the event loop share, so while it differentiated one student's function
everyone's page waited; and the student who typed it waited for all of it (up to 0.3 s per
run, several runs for a long chain). docs/performance.md has what moving it out changed.

Here a child process (which loads sympy, not torch: see ``_CHILD``) keeps
one derivative chain per function and grows it in the background, at low priority, on the
other core. :meth:`SympyWorker.ask` sends (function, order, x0) and gets back at once what the
child has so far (a :class:`~hograd_core.symbolic.SympyView`: values at x0, LaTeX, sizes, and
whether it is still working); the page shows that and asks again a moment later until sympy
is done. The child works on the function asked about most recently first, and forgets a
request nobody has repeated for ``FORGET_SECONDS``.

Every chain is bounded: orders up to the page's limit, ``MAX_OPS`` operations per expression,
``CHAIN_SECONDS`` of work per function. If the child cannot be started (or dies more than
``MAX_STARTS`` times, or lean mode starts none: :mod:`.lean`), the same work runs in the
asking thread instead, at most ``INLINE_SECONDS`` per call.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import subprocess
import sys
import threading
import time
import traceback
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path

from hograd_core.language import Function, parse
from hograd_core.symbolic import SymbolicDerivatives, SympyView, symbolic_derivatives, view_of

from .child import ChildProcess, child_pipes
from .floor import step_aside

__all__ = ["Chains", "SympyWorker", "CHAIN_SECONDS", "FORGET_SECONDS"]

#: sympy's total time for one function; after it, the chain stops where it is ("time").
CHAIN_SECONDS = 10.0
#: A function nobody has asked about for this long is no longer worked on (the student left).
FORGET_SECONDS = 20.0
#: How long the child works on one function before it looks again for the one asked about
#: most recently (it answers questions meanwhile, in another thread).
STEP_SECONDS = 0.05
#: How often the child may be (re)started before the server falls back to in-thread sympy.
MAX_STARTS = 5
#: In-thread fallback: sympy's time per call, as the page had before the worker.
INLINE_SECONDS = 0.3
#: Questions sent and not yet answered, at most (a full pipe would block the server).
MAX_OUTSTANDING = 256
#: Answers the server remembers (a finished answer is served without asking the child).
KNOWN_ANSWERS = 512
#: The child runs at this niceness: sympy's check never takes a core from the class's reruns.
NICENESS = 10


class Chains:
    """The worker's state: one derivative chain per function (the ``max_functions`` most
    recently used), grown on demand. No processes here: the child serves one; the in-thread
    fallback uses one directly; tests drive one step by step."""

    def __init__(
        self, *, max_functions: int = 64, chain_seconds: float = CHAIN_SECONDS,
        forget_seconds: float = FORGET_SECONDS, clock=time.monotonic,  # noqa: ANN001
    ) -> None:  # fmt: skip
        self.max_functions = max_functions
        self.chain_seconds = chain_seconds
        self.forget_seconds = forget_seconds
        self._clock = clock
        self._chains: OrderedDict[str, tuple[Function, SymbolicDerivatives]] = OrderedDict()
        self._wanted: OrderedDict[str, tuple[int, float]] = OrderedDict()  # text -> (order, when)
        self._values: OrderedDict[tuple[str, float, int], tuple[float, ...]] = OrderedDict()

    def _final(self, sym: SymbolicDerivatives) -> str | None:
        if sym.stopped == "size":
            return "size"
        return "time" if sym.seconds >= self.chain_seconds else None

    def _chain(self, text: str) -> tuple[Function, SymbolicDerivatives]:
        if text not in self._chains:
            fn = parse(text)  # our parser, never eval: the page parsed this text already
            variable = fn.variables[0] if fn.variables else "x"
            self._chains[text] = (fn, symbolic_derivatives(fn, 0, variable))
            while len(self._chains) > self.max_functions:
                gone, _ = self._chains.popitem(last=False)
                self._wanted.pop(gone, None)
        self._chains.move_to_end(text)
        return self._chains[text]

    def view(self, text: str, order: int, x0: float) -> SympyView:
        """What sympy has of ``text`` to ``order`` at ``x0`` now; asks for the rest."""
        fn, sym = self._chain(text)
        want = max(order, self._wanted.get(text, (-1, 0.0))[0])
        if len(sym.exprs) <= want and self._final(sym) is None:
            self._wanted[text] = (want, self._clock())
            self._wanted.move_to_end(text)
        else:
            self._wanted.pop(text, None)
        key = (text, float(x0), min(order + 1, len(sym.exprs)))
        variable = fn.variables[0] if fn.variables else "x"
        view = view_of(
            sym, order, {variable: x0}, stopped=self._final(sym),
            working=text in self._wanted, values=self._values.get(key),
        )  # fmt: skip
        self._values[key] = view.values  # evaluated once per point and length
        while len(self._values) > 512:
            self._values.popitem(last=False)
        return view

    def pending(self) -> bool:
        """Whether a function someone asked about recently still needs derivatives."""
        now = self._clock()
        for text in [
            t for t, (_, when) in self._wanted.items() if now - when > self.forget_seconds
        ]:
            del self._wanted[text]
        return bool(self._wanted)

    def next_job(self) -> _Job | None:
        """The most recently asked unfinished function and how far it is wanted, or None."""
        if not self.pending():
            return None
        text, (want, _) = next(reversed(self._wanted.items()))
        fn, sym = self._chains[text]
        return _Job(text, fn, sym, want)

    def work(self, job: _Job, seconds: float = STEP_SECONDS) -> SymbolicDerivatives:
        """The job's chain, longer by about ``seconds`` of sympy (one derivative at least).
        Touches no state: the child runs it without holding its lock."""
        return symbolic_derivatives(
            job.fn, job.want, job.fn.variables[0] if job.fn.variables else "x",
            max_seconds=min(seconds, self.chain_seconds - job.sym.seconds), start_from=job.sym,
        )  # fmt: skip

    def store(self, job: _Job, sym: SymbolicDerivatives) -> None:
        """Keep the longer chain (unless the function was dropped meanwhile)."""
        if job.text not in self._chains:
            return
        self._chains[job.text] = (job.fn, sym)
        want = self._wanted.get(job.text, (-1, 0.0))[0]  # it may have grown meanwhile
        if job.text in self._wanted and (len(sym.exprs) > want or self._final(sym)):
            del self._wanted[job.text]

    def step(self, seconds: float = STEP_SECONDS) -> bool:
        """One job, start to end. Returns False if there was nothing to do."""
        job = self.next_job()
        if job is None:
            return False
        self.store(job, self.work(job, seconds))
        return True


@dataclass(frozen=True)
class _Job:
    text: str
    fn: Function
    sym: SymbolicDerivatives
    want: int


def _leave() -> None:  # pragma: no cover - in the child, when the server is gone
    os._exit(0)


def _serve(
    requests: Connection, answers: Connection, chains: Chains, *,
    gone: Callable[[], None] = _leave, stop: threading.Event | None = None,
) -> None:  # fmt: skip
    """The child's two threads: one answers questions at once from what the chains hold; the
    other differentiates, outside the lock, so a long derivative (a swollen expression can take
    a second) never delays an answer. ``gone`` runs when the server's end closes (the child
    exits); ``stop`` ends the loop (for tests that serve in a thread)."""
    cond = threading.Condition()
    stop = stop or threading.Event()

    def answer_questions() -> None:
        while True:
            try:
                rid, text, order, x0 = requests.recv()
            except (EOFError, OSError):  # the server is gone: so is this process
                gone()
                return
            with cond:
                try:
                    answer: SympyView | None = chains.view(text, order, x0)
                except Exception:  # noqa: BLE001 - one bad function must not end the worker
                    traceback.print_exc()
                    answer = None
                cond.notify()
            answers.send((rid, answer))

    threading.Thread(target=answer_questions, name="answers", daemon=True).start()
    while not stop.is_set():
        with cond:
            job = chains.next_job()
            while job is None and not stop.is_set():
                cond.wait(timeout=1.0)  # a question may bring work; forgetting needs time
                job = chains.next_job()
        if job is None:
            return
        sym = chains.work(job)
        with cond:
            chains.store(job, sym)


#: The child's program. hograd_core/__init__.py imports every module, torch included (250 MB
#: and a second of CPU); the child needs only the parser and sympy, so it registers the
#: package without running its __init__ and imports just this module.
_CHILD = """
import sys, types
package = types.ModuleType("hograd_core")
package.__path__ = [sys.argv[1]]
sys.modules["hograd_core"] = package
from hograd_serving.sympy_worker import main
main()
"""


def main() -> None:
    """The child process: questions on stdin, answers on stdout."""
    requests, answers = child_pipes()
    sys.setswitchinterval(0.001)  # the answering thread gets its turn quickly
    with contextlib.suppress(OSError):  # not allowed here: run at normal priority
        os.nice(NICENESS)
    _serve(requests, answers, Chains())


class SympyWorker(ChildProcess):
    """The server's side: one child process, asked by many script threads at once."""

    program = _CHILD
    name = "sympy-worker-reader"
    max_starts = MAX_STARTS

    def __init__(self, *, inline_seconds: float = INLINE_SECONDS, resident: bool = True) -> None:
        self._cond = threading.Condition()
        super().__init__(lock=self._cond, resident=resident)
        self.inline_seconds = inline_seconds
        self._answers: dict[int, SympyView | None] = {}
        self._waiting: set[int] = set()
        self._outstanding = 0
        self._ids = itertools.count()
        self._inline: Chains | None = None
        self._inline_lock = threading.Lock()
        self._stepping = threading.Lock()  # held by the one thread differentiating in-thread
        #: (text, order, x0) -> the latest answer: a finished one is served from here
        self._known: OrderedDict[tuple[str, int, float], SympyView] = OrderedDict()

    @property
    def in_thread(self) -> bool:
        """Whether sympy runs in the asking thread (no child process could be run)."""
        return self._inline is not None

    def _args(self) -> tuple[str, ...]:
        return (str(Path(__file__).resolve().parents[1] / "hograd_core"),)

    def _starting(self) -> None:
        self._outstanding = 0

    def _start(self) -> Connection | None:  # called with the condition held
        if self._inline is not None:
            return None
        send = super()._start()
        if send is None:  # no child can be run: sympy works in the asking thread from now on
            self._inline = Chains()
        return send

    def _read(self, proc: subprocess.Popen[bytes], receive: Connection) -> None:
        try:
            while True:
                rid, answer = receive.recv()
                with self._cond:
                    self._outstanding -= 1
                    if rid in self._waiting:
                        self._answers[rid] = answer
                        self._cond.notify_all()
        except (EOFError, OSError):
            with self._cond:
                if self._proc is proc:  # died: the next question starts another
                    self._proc, self._send = None, None
                self._cond.notify_all()
        finally:
            receive.close()

    def _ask_once(self, text: str, order: int, x0: float, wait: float) -> SympyView | None:
        with self._cond:
            send = self._start()
            if send is None or self._outstanding >= MAX_OUTSTANDING:
                return None
            rid = next(self._ids)
            self._waiting.add(rid)
            try:
                send.send((rid, text, order, float(x0)))
                self._outstanding += 1
                proc = self._proc
                self._cond.wait_for(
                    lambda: rid in self._answers or self._proc is not proc, timeout=wait
                )
                return self._answers.pop(rid, None)
            except OSError:
                self._proc, self._send = None, None
                return None
            finally:
                self._waiting.discard(rid)

    def ask(self, text: str, order: int, x0: float, wait: float) -> SympyView | None:
        """sympy's derivatives of ``text`` (a function the caller has parsed) to ``order`` at
        ``x0``, as far as the worker has got within ``wait`` seconds; None if it did not
        answer in time (it keeps working: ask again)."""
        key = (text, order, float(x0))
        with self._cond:
            last = self._known.get(key)
        if last is not None and not last.working:
            return last  # a finished answer never changes
        if self._inline is not None:
            return self._ask_inline(text, order, x0)
        with step_aside():  # waiting for the child: off the floor (.floor)
            return self._ask(key, last, text, order, x0, wait)

    def _ask(
        self, key: tuple, last: SympyView | None, text: str, order: int, x0: float, wait: float
    ) -> SympyView | None:
        deadline = time.monotonic() + wait
        while True:
            view = self._ask_once(text, order, x0, max(0.0, deadline - time.monotonic()))
            if self._inline is not None:  # no child could be run: work here instead
                return self._ask_inline(text, order, x0)
            if view is not None:
                last = view
                with self._cond:
                    self._known[key] = view
                    self._known.move_to_end(key)
                    while len(self._known) > KNOWN_ANSWERS:
                        self._known.popitem(last=False)
            left = deadline - time.monotonic()
            if view is None or not view.working or left <= 0:
                return last  # unanswered in time: what it said before, if anything
            time.sleep(min(0.02, left))

    def _ask_inline(self, text: str, order: int, x0: float) -> SympyView:
        """sympy in the asking thread: what the chains hold, grown by at most
        ``inline_seconds`` of work, by one thread at a time. A thread that finds another one
        differentiating does not queue behind it (its script run would wait for every slice
        before it): it answers with what is there, still working, and the page asks again
        from its timer, as it does while the child works."""
        chains = self._inline
        assert chains is not None
        with self._inline_lock:  # held only to read or store the chains: never while sympy works
            view = chains.view(text, order, x0)
        if not view.working or not self._stepping.acquire(blocking=False):
            return view
        try:
            with step_aside():  # sympy works off the floor (.floor): the light runs go on
                start = time.monotonic()
                while view.working and time.monotonic() - start < self.inline_seconds:
                    with self._inline_lock:
                        job = chains.next_job()
                    if job is None:
                        break
                    sym = chains.work(job, min(STEP_SECONDS, self.inline_seconds))
                    with self._inline_lock:
                        chains.store(job, sym)
                        view = chains.view(text, order, x0)
        finally:
            self._stepping.release()
        return view
