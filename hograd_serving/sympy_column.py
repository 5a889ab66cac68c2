"""sympy's exact derivatives for the derivatives page's inspector, grown a slice at a time.

sympy is pure Python: while it differentiates, it holds the interpreter lock that every
student's script run and the event loop share. For a function that swells, one derivative can
take a second. So the inspector never waits for all of it: :class:`SympyColumn` keeps one
derivative chain per function (:class:`Chains`), and a script run that asks grows the chain by
at most ``INLINE_SECONDS`` of sympy, off the floor (:mod:`.floor`), then shows what there is
(a :class:`~hograd_core.symbolic.SympyView`: values at x0, LaTeX, sizes, and whether it is
still working). The page asks again from its timer until sympy is done. One thread at a time
grows the chains; a run that finds another one at it answers with what is there at once.

Every chain is bounded: orders up to the page's limit, ``MAX_OPS`` operations per expression
(:mod:`hograd_core.symbolic`), ``CHAIN_SECONDS`` of work per function. The chains worked on
first are those asked about most recently; one nobody has asked about for ``FORGET_SECONDS``
is no longer grown.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

from hograd_core.language import Function, parse
from hograd_core.symbolic import SymbolicDerivatives, SympyView, symbolic_derivatives, view_of

from .floor import step_aside

__all__ = ["CHAIN_SECONDS", "FORGET_SECONDS", "INLINE_SECONDS", "Chains", "SympyColumn"]

#: sympy's total time for one function; after it, the chain stops where it is ("time").
CHAIN_SECONDS = 10.0
#: A function nobody has asked about for this long is no longer worked on (the student left).
FORGET_SECONDS = 20.0
#: How long one piece of work on a chain lasts before the most recently asked is looked for.
STEP_SECONDS = 0.05
#: sympy's time per script run that asks.
INLINE_SECONDS = 0.3
#: Answers remembered (a finished answer is served without looking at the chains).
KNOWN_ANSWERS = 512


class Chains:
    """One derivative chain per function (the ``max_functions`` most
    recently used), grown on demand. No threads here: :class:`SympyColumn` grows one from the
    asking threads; tests drive one step by step."""

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
        Touches no state: it runs without the column's lock held."""
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


class SympyColumn:
    """sympy's column for every session of this process: one set of chains, grown in the
    asking threads, one at a time."""

    def __init__(self, *, inline_seconds: float = INLINE_SECONDS) -> None:
        self.inline_seconds = inline_seconds
        self._chains = Chains()
        # held only to read or store the chains, never while sympy works
        self._lock = threading.Lock()
        self._stepping = threading.Lock()  # held by the one thread differentiating
        #: (text, order, x0) -> a finished answer, served from here
        self._known: OrderedDict[tuple[str, int, float], SympyView] = OrderedDict()

    def ask(self, text: str, order: int, x0: float, wait: float = 0.0) -> SympyView:
        """sympy's derivatives of ``text`` (a function the caller has parsed) to ``order`` at
        ``x0``: what the chains hold, grown by slices of at most ``inline_seconds`` of work
        until they are complete or ``wait`` seconds have passed (one slice at least). A thread
        that finds another one differentiating does not queue behind it (its script run would
        wait for every slice before it): it answers with what is there, still working, and the
        page asks again from its timer."""
        key = (text, order, float(x0))
        with self._lock:
            known = self._known.get(key)
        if known is not None:
            return known  # a finished answer never changes
        deadline = time.monotonic() + wait
        view = self._grow(text, order, x0)
        while view.working and (left := deadline - time.monotonic()) > 0:
            time.sleep(min(0.02, left))  # another thread may hold the chains' slice
            view = self._grow(text, order, x0)
        if not view.working:
            with self._lock:
                self._known[key] = view
                while len(self._known) > KNOWN_ANSWERS:
                    self._known.popitem(last=False)
        return view

    def _grow(self, text: str, order: int, x0: float) -> SympyView:
        chains = self._chains
        with self._lock:
            view = chains.view(text, order, x0)
        if not view.working or not self._stepping.acquire(blocking=False):
            return view
        try:
            with step_aside():  # sympy works off the floor (.floor): the light runs go on
                start = time.monotonic()
                while view.working and time.monotonic() - start < self.inline_seconds:
                    with self._lock:
                        job = chains.next_job()
                    if job is None:
                        break
                    sym = chains.work(job, min(STEP_SECONDS, self.inline_seconds))
                    with self._lock:
                        chains.store(job, sym)
                        view = chains.view(text, order, x0)
        finally:
            self._stepping.release()
        return view
