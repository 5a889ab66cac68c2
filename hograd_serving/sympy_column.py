"""sympy's exact derivatives for the derivatives page's inspector, each function's worked out
in a child process that can be stopped.

sympy is pure Python, and its integer arithmetic is C calls that nothing interrupts: a
function such as ``x+(0*x+2)**-(999999*999999)`` would hold the server's interpreter (and so
every student's page) until the kernel killed it, and ``abs(abs(abs(abs(x-2)-1)-1)-1)`` kept
the old in-process column busy for minutes. The core bounds what it can before it starts
(exact powers past ``MAX_EXACT_BITS`` become floats; abs and relu differentiate in linear
size). What it cannot foresee, this module bounds from outside: each function's derivatives
come from a fresh process (:mod:`.exact_child`) with a wall-clock limit (killed after
``CHAIN_SECONDS``), a CPU limit and a memory limit, and no lock or queue of the server waits
for it. The child streams each derivative as sympy finishes it, as a flat program of mpmath
operations (:mod:`hograd_core.sympy_program`); evaluating it at x0 is mpmath's work too, so it
runs in a child of the same pool as well (a request of :class:`.exact.ExactRuns`, forked from
the zygote in a few milliseconds, killed after ``EVALUATE_SECONDS``): no sympy or mpmath runs in
this process at all. A run waits for an evaluation up to ``EVALUATE_WAIT`` while a slot is free,
otherwise only its own wait, and then finds the column "still working".

Fairness: at most ``SLOTS`` children run at once, and each holds a slot of the server's one
pool of exact children (:data:`.exact.CHILDREN`), shared with the door's one-off requests. A
function stopped by time is worked out again, at most ``RETRIES`` times, when it is asked while
a slot of the pool is free (a busy host may have starved it). Each session has at most one function
waiting (its latest), and the waiting session served least recently goes first, so one
student typing many functions delays nobody else's by more than one child; a session starts at most
``STARTS_PER_MINUTE`` children a minute (more waits, shown as "still working").
"""

from __future__ import annotations

import json
import math
import subprocess
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field

from hograd_core.exact_view import SympyView

from .exact import (
    CHILDREN,
    MEMORY_BYTES,
    RETRIES,
    SECONDS,
    Children,
    ExactRuns,
)
from .exact import launch as _launch

__all__ = [
    "CHAIN_SECONDS",
    "EVALUATE_SECONDS",
    "EVALUATE_WAIT",
    "MEMORY_BYTES",
    "SLOTS",
    "STARTS_PER_MINUTE",
    "Chain",
    "SympyColumn",
]

#: Wall-clock seconds one function's child may run; then it is killed ("time").
CHAIN_SECONDS = SECONDS
#: Children running at once in this server (one per core of the 2-core hosts we target).
SLOTS = 2
#: Wall-clock seconds a child evaluating a program at one point may run (a program of
#: ``MAX_PROGRAM`` instructions takes 0.1-0.3 s of it); then it is killed ("time").
EVALUATE_SECONDS = 5.0
#: Seconds a run waits for the column's values at a new point while a slot of the pool is free
#: (a forked child answers in tens of milliseconds); past it the column is "still working".
EVALUATE_WAIT = 2.0
#: Children one session may start in a minute.
STARTS_PER_MINUTE = 20
#: Orders a child works out at least (the order slider can then move without a new child).
FIRST_ORDERS = 10
#: Functions whose derivatives are kept (the most recently asked).
KEEP = 64
#: The largest line a child may write (one derivative's instructions and LaTeX).
MAX_LINE = 8 * 2**20


@dataclass
class Chain:
    """What is known of one function's derivatives: orders 0..len(outputs) - 1."""

    text: str
    target: int  # the highest order its child was asked for
    variable: str = "x"
    code: list[list] = field(default_factory=list)
    outputs: list[int] = field(default_factory=list)
    latex: list[str | None] = field(default_factory=list)
    ops: list[int] = field(default_factory=list)
    ms: list[float] = field(default_factory=list)
    state: str = "queued"  # "queued", "running" or "done"
    retried: int = 0  # times worked out again after a stop by time
    stopped: str | None = None  # "size", "time", "memory", "error" (with ``detail``) or None
    detail: str = ""

    def add(self, record: dict) -> None:
        """One line of the child's."""
        if "stopped" in record:
            self.stopped = str(record["stopped"])
            self.detail = str(record.get("detail", ""))[:300]
            return
        self.code.extend(record["code"])
        self.outputs.append(int(record["out"]))
        self.latex.append(record["latex"])
        self.ops.append(int(record["ops"]))
        self.ms.append(float(record["ms"]))


class SympyColumn:
    """sympy's column for every session of this process: one chain per function, each worked
    out by a child process, the children scheduled fairly between sessions."""

    def __init__(
        self,
        *,
        slots: int = SLOTS,
        chain_seconds: float = CHAIN_SECONDS,
        memory: int = MEMORY_BYTES,
        starts_per_minute: int = STARTS_PER_MINUTE,
        launch: Callable[[float, int], subprocess.Popen] = _launch,
        clock: Callable[[], float] = time.monotonic,
        pool: Children = CHILDREN,
        evaluations: ExactRuns | None = None,
    ) -> None:
        self.slots, self.chain_seconds, self.memory = slots, chain_seconds, memory
        self.pool = pool
        #: the children that evaluate a program at a point: one-off requests of the same pool
        self.evaluations = evaluations or ExactRuns(
            pool=pool, seconds=EVALUATE_SECONDS, memory=memory, keep=8
        )
        self.starts_per_minute = starts_per_minute
        self._launch, self._clock = launch, clock
        # Guards the dictionaries below; held for a few dictionary operations, never while a
        # child works or a program is evaluated.
        self._lock = threading.Condition()
        self._chains: OrderedDict[str, Chain] = OrderedDict()
        self._waiting: OrderedDict[str, str] = OrderedDict()  # session -> its latest function
        self._starts: dict[str, deque[float]] = {}  # session -> when its children started
        self._served: dict[str, int] = {}  # session -> the number of its latest start
        self._running = 0
        #: (function, x0, outputs) -> (values, below float64, why the evaluation stopped)
        self._values: OrderedDict[tuple[str, float, int], tuple[tuple, tuple, str | None]] = (
            OrderedDict()
        )
        self._evaluating: set[tuple[str, float, int]] = set()
        #: children started, for the tests and the benchmarks
        self.started = 0

    def ask(
        self,
        text: str,
        order: int,
        x0: float,
        wait: float = 0.0,
        who: str = "",
    ) -> SympyView:
        """What sympy has of ``text`` (a function the caller has parsed, of one variable) to
        ``order`` at ``x0``, waiting up to ``wait`` seconds for it to be complete. ``who``
        names the asking session, for fairness."""
        deadline = time.monotonic() + wait
        with self._lock:
            chain = self._wait(text, order, who, deadline)
            n = min(order + 1, len(chain.outputs))
            outputs = chain.outputs[:n]
            code = chain.code[: max(outputs) + 1] if outputs else []
            latex, ops = tuple(chain.latex[:n]), tuple(chain.ops[:n])
            working = self._short(chain, order)
            stopped = chain.stopped if n <= order and not working else None
            variable = chain.variable
        got = self._evaluate(text, variable, code, outputs, x0, deadline)
        if got is None:  # its child has not answered yet
            return SympyView(latex=latex, ops=ops, working=True)
        values, below, failed = got
        return SympyView(
            values=values,
            latex=latex,
            ops=ops,
            stopped=stopped or failed,
            working=working,
            below_float64=below,
        )

    def detail(self, text: str) -> str:
        """Why the chain of ``text`` stopped with "error": the child's one-line report."""
        with self._lock:
            chain = self._chains.get(text)
            return chain.detail if chain is not None else ""

    def timings(self, text: str, order: int, wait: float) -> Chain | None:
        """The chain of ``text`` once complete to ``order`` or stopped (for the cost table's
        sympy row: each ``diff`` timed once, in a process whose sympy cache was empty), or
        None if it is not within ``wait`` seconds."""
        with self._lock:
            chain = self._wait(text, order, "", time.monotonic() + wait)
            return None if self._short(chain, order) else chain

    # ---- scheduling (call with the lock held) ---------------------------------------------

    def _wait(self, text: str, order: int, who: str, deadline: float) -> Chain:
        """The chain of ``text``, once it reaches ``order`` or stops, or at ``deadline``."""
        retry = True  # a stop by time is tried again once per ask, not within its wait
        while True:
            chain = self._want(text, order, who, retry)  # a new child if the last stopped short
            retry = False
            left = deadline - time.monotonic()
            if not self._short(chain, order) or left <= 0:
                return chain
            self._lock.wait(left)

    def _short(self, chain: Chain, order: int) -> bool:
        return len(chain.outputs) <= order and chain.state != "done"

    def _want(self, text: str, order: int, who: str, retry: bool = False) -> Chain:
        chain = self._chains.get(text)
        stale = (
            chain is not None
            and chain.state == "done"
            and chain.stopped is None
            and len(chain.outputs) <= order
        )
        again = (  # stopped by time, perhaps by a busy host: again while a slot is free
            retry
            and chain is not None
            and chain.state == "done"
            and chain.stopped == "time"
            and len(chain.outputs) <= order
            and chain.retried < RETRIES
            and self._running < self.slots
            and self.pool.free() > 0
        )
        if chain is None or stale or again:  # new, or complete to a lower order than asked
            target = max(order, FIRST_ORDERS)
            variable = chain.variable if chain is not None else _variable(text)
            retried = chain.retried + 1 if again else 0
            chain = Chain(text=text, target=target, variable=variable, retried=retried)
            self._chains[text] = chain
            while len(self._chains) > KEEP:
                gone, old = self._chains.popitem(last=False)
                if old.state == "running":  # its thread still writes to it: keep it
                    self._chains[gone] = old
                    self._chains.move_to_end(gone, last=False)
                    break
        self._chains.move_to_end(text)
        if chain.state == "queued":
            self._waiting[who] = text  # a session waits for its latest function only
            self._start_ready()
        return chain

    def _start_ready(self) -> None:
        """Start children while slots are free: the waiting session served least recently
        first, each within its starts per minute."""
        now = self._clock()
        for who in sorted(self._waiting, key=lambda w: self._served.get(w, -1)):
            if self._running >= self.slots:
                return
            starts = self._starts.setdefault(who, deque())
            while starts and now - starts[0] > 60.0:
                starts.popleft()
            if who and len(starts) >= self.starts_per_minute:
                continue  # this session waits for its minute; the others go on
            text = self._waiting.pop(who)
            chain = self._chains.get(text)
            if chain is None or chain.state != "queued":
                continue
            starts.append(now)
            self._served[who] = self.started
            for other in [w for w, t in self._waiting.items() if t == text]:
                del self._waiting[other]  # one child serves everyone who asked
            chain.state = "running"
            self._running += 1
            self.started += 1
            threading.Thread(
                target=self._run, args=(chain,), daemon=True, name="sympy-child"
            ).start()

    # ---- one child --------------------------------------------------------------------------

    def _run(self, chain: Chain) -> None:
        proc = None
        self.pool.acquire()  # a child of the server's pool: one-off requests end in seconds
        try:
            proc = self._launch(self.chain_seconds, self.memory)
            timer = threading.Timer(self.chain_seconds, proc.kill)
            timer.daemon = True
            timer.start()
            try:
                self._read(proc, chain)
            finally:
                timer.cancel()
                proc.kill()
                proc.wait()
                for pipe in (proc.stdin, proc.stdout):
                    if pipe is not None and pipe is not proc:
                        pipe.close()
            killed = proc.returncode is not None and proc.returncode < 0
            with self._lock:
                if chain.stopped is None and len(chain.outputs) <= chain.target:
                    chain.stopped = "time" if killed else "error"
                    chain.detail = chain.detail or f"exit status {proc.returncode}"
        except OSError as err:  # the child could not be started
            with self._lock:
                chain.stopped, chain.detail = "error", f"{type(err).__name__}: {err}"[:300]
        finally:
            self.pool.release()
            with self._lock:
                chain.state = "done"
                self._running -= 1
                self._start_ready()
                self._lock.notify_all()

    def _read(self, proc: subprocess.Popen, chain: Chain) -> None:
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(json.dumps({"text": chain.text, "order": chain.target}))
            proc.stdin.close()
        except OSError:
            return  # it died at once: judged by its exit status
        while line := proc.stdout.readline(MAX_LINE):
            if not line.endswith("\n"):
                with self._lock:
                    chain.stopped, chain.detail = "size", ""
                return
            record = json.loads(line)
            with self._lock:
                chain.add(record)
                self._lock.notify_all()

    # ---- values -----------------------------------------------------------------------------

    def _evaluate(
        self,
        text: str,
        variable: str,
        code: list,
        outputs: list[int],
        x0: float,
        deadline: float,
    ) -> tuple[tuple, tuple, str | None] | None:
        """The outputs' values at ``x0``, the digits float64 loses, and why the evaluation
        stopped (None if it did not); None while its child works past the run's wait."""
        if not outputs:
            return (), (), None
        key = (text, float(x0), len(outputs))
        request = {"kind": "evaluate", "code": code, "outputs": outputs, "variable": variable}
        with self._lock:
            if key in self._evaluating or self.pool.free() > 0:  # its child runs, or will
                deadline = max(deadline, time.monotonic() + EVALUATE_WAIT)
            while key not in self._values:
                if key not in self._evaluating:  # not asked yet, or no slot freed up for it
                    self._evaluating.add(key)
                    threading.Thread(
                        target=self._evaluated,
                        args=(key, {**request, "x0": float(x0)}),
                        daemon=True,
                        name="sympy-eval",
                    ).start()
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._lock.wait(left)
            self._values.move_to_end(key)
            return self._values[key]

    def _evaluated(self, key: tuple[str, float, int], request: dict) -> None:
        """Evaluate in a child; keep what it answered (unless no slot freed up for it)."""
        answer = self.evaluations.ask(request)
        floats = answer.fields.get("values") or []
        below = answer.fields.get("below") or []
        n = key[2]
        got = (
            tuple((math.nan if v is None else float(v)) for v in [*floats, *[None] * n][:n]),
            tuple([*below, *[None] * n][:n]),
            None if floats else (answer.stopped or "error"),
        )
        with self._lock:
            self._evaluating.discard(key)
            if answer.stopped != "busy":
                self._values[key] = got
                while len(self._values) > 512:
                    self._values.popitem(last=False)
            self._lock.notify_all()


def _variable(text: str) -> str:
    from hograd_core.language import parse

    fn = parse(text)  # the page parsed it already; cached by the language's own limits
    return fn.variables[0] if fn.variables else "x"
