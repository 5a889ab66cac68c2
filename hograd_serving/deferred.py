"""Work whose answer a page can show later: run in a background thread, asked with a short
wait.

The derivatives page's inspector shows nested autograd's derivatives at x0 beside Taylor
mode's. For a small function they take a millisecond; at order 10 of a function that swells
they build a graph of up to 100,000 nodes: up to half a second. A script run that computed it
would make its student wait for it on every new x0. So a :class:`DeferredJobs` thread
computes it: the page asks, waits a moment (hograd_serving/cached.py: WAIT), shows what it has
(a dash and a note where the answer is not in yet) and asks again from a timer, as it does for
sympy's column (hograd_serving/sympy_column.py).

A :class:`DeferredJobs` has one thread of its own. It takes the job of the session served
least recently (each session has one job wanted at a time, its latest: a student dragging x0
replaces their own request rather than queueing many), runs it, and keeps the answer, the
last ``KEEP`` of them, for everyone who asks the same. A job
nobody has asked for in ``FORGET`` seconds (the student moved on) is dropped unrun. The jobs
are bounded before they start (the autograd node limit), and the thread runs one at a time:
however many students ask, the server computes at most one of these jobs at once.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from hograd_core.errors import HogradError

from .floor import step_aside

__all__ = ["DeferredJobs", "JobAnswer", "JobFailed", "KEEP", "FORGET"]

KEEP = 512
FORGET = 20.0


@dataclass(frozen=True)
class JobAnswer:
    """A finished job: its ``value``, or the ``error`` that refused it."""

    value: Any = None
    error: HogradError | None = None


class JobFailed(HogradError):
    """A background job raised something that is not a refusal (a bug): the page says the
    computation stopped, and ``detail`` keeps the exception's name for the logs."""

    def __init__(self, detail: str) -> None:
        self.detail = detail
        super().__init__("budget.job_failed", detail=detail[-200:])


class DeferredJobs:
    """Jobs ``work(args)`` named ``kind``, keyed by their arguments, run one at a time in a
    thread of their own."""

    def __init__(
        self,
        kind: str,
        work: Callable[[Any], Any] | None = None,
        *,
        keep: int = KEEP,
        forget: float = FORGET,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.kind, self.work, self.keep, self.forget = kind, work, keep, forget
        self._clock = clock  # when a job was asked for, and so when it is forgotten
        self._changed = threading.Condition()
        self._wanted: dict[Hashable, float] = {}  # args -> when last asked
        self._running: set[Hashable] = set()
        self._done: OrderedDict[Hashable, JobAnswer] = OrderedDict()
        self._thread: threading.Thread | None = None
        self._latest: dict[str, Hashable] = {}  # session -> the job it asked for last
        self._askers: dict[Hashable, set[str]] = {}  # wanted job -> the sessions asking
        self._last_served: dict[str, int] = {}  # session -> when a job of its last started
        self._served = 0

    def _turn(self, args: Hashable) -> tuple[int, float]:
        """Sort key of a wanted job: its askers' most recent service first (never served:
        -1), then the most recently asked. Call under the lock."""
        served = max((self._last_served.get(w, -1) for w in self._askers.get(args, ())), default=-1)
        return served, -self._wanted[args]

    def ask(self, args: Hashable, wait: float, who: str = "") -> JobAnswer | None:
        """The answer for ``args`` if it is in within ``wait`` seconds, else None (and the
        job stays wanted: ask again later). ``who`` names the asking session: each session
        has one job wanted at a time (its latest), and the session served least recently goes
        first. A script run waits off the floor (:mod:`.floor`)."""
        with self._changed:
            done = self._take_done(args)
        if done is not None:
            return done
        with step_aside():
            return self._ask(args, wait, who)

    def _take_done(self, args: Hashable) -> JobAnswer | None:
        """The finished answer for ``args``, kept as the most recent; call under the lock."""
        done = self._done.get(args)
        if done is not None:
            self._done.move_to_end(args)
        return done

    def _ask(self, args: Hashable, wait: float, who: str) -> JobAnswer | None:
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
                    earlier = self._latest.get(who)
                    if who and earlier is not None and earlier != args:
                        others = self._askers.get(earlier, set())
                        others.discard(who)
                        if not others:  # the session moved on, and nobody else wants it
                            self._wanted.pop(earlier, None)
                    self._latest[who] = args
                    self._wanted[args] = self._clock()
                    self._askers.setdefault(args, set()).add(who)
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
                for args in [a for a in self._askers if a not in self._wanted]:
                    del self._askers[args]
                if self._wanted:
                    # the session served least recently first; among its jobs, the latest ask
                    args = min(self._wanted, key=self._turn)
                    del self._wanted[args]
                    self._served += 1
                    for who in self._askers.pop(args, ()):
                        self._last_served[who] = self._served
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
        """One job, now, from this thread."""
        assert self.work is not None, "a DeferredJobs without work overrides run"
        try:
            return JobAnswer(value=self.work(args))
        except HogradError as err:  # a refusal (a budget)
            return JobAnswer(error=err)
        except Exception as err:  # in this thread nobody else would see it
            return JobAnswer(error=JobFailed(f"{type(err).__name__}: {err}"))
