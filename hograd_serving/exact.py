"""The one door to exact maths: every sympy and mpmath computation the app runs goes through
here, into a child process that is killed at its deadline.

sympy is pure Python, and its integer arithmetic (and mpmath's, under it) is C calls that
nothing interrupts: ``(x+1)^(x^(x^24))`` at x = 2 is 3^(2^16777216), and computing it in the
server held the interpreter lock for minutes, so every other student's page froze with it. So
no module the server loads imports sympy, mpmath or the kernel's modules that use them (an
import-linter contract in pyproject.toml fails the build otherwise); this module starts
:mod:`.exact_child` instead, with a limit on its CPU time (``RLIMIT_CPU``) and on its memory
(``RLIMIT_AS``), kills it when ``SECONDS`` of wall-clock time have passed, and frees its slot.
The caller gets an :class:`Answer`: what the child sent, and why it stopped early, if it did
("time", "memory", "size", "error"; "busy" if no slot freed up in time).

Answers are kept per request (the most recent ``KEEP``), and a request already being worked
out is waited for, not started again, so a rerun or a second student with the same function
starts no child; an answer stopped by time is worked out again when asked while a slot is
free (at most ``RETRIES`` times), since a busy host, not the function, may have stopped it.
At most ``SLOTS`` children are alive at once in the server, these and the derivatives
column's (:mod:`.sympy_column`) together: one pool, :data:`CHILDREN`. A child is forked from a process that has imported sympy already
(:mod:`.zygote`), so a new function costs its own work, not sympy's import (about 0.7 s of CPU
in a fresh interpreter).

No sympy or mpmath computation runs here, in the server: not even evaluating the programs the
derivatives column's children compiled at each x0 a student drags to (:mod:`.sympy_column`
sends each one to a child of this pool as an "evaluate" request; forked from the zygote, it
answers in tens of milliseconds).
"""

from __future__ import annotations

import json
import subprocess
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from . import zygote
from .floor import step_aside
from .zygote import Forked

__all__ = [
    "CHILDREN",
    "KEEP",
    "MEMORY_BYTES",
    "RETRIES",
    "SECONDS",
    "SLOTS",
    "Answer",
    "Children",
    "ExactRuns",
    "backward_exact",
    "exact_values",
    "launch",
    "typed_latex",
]

#: Wall-clock seconds a child may run; then it is killed ("time").
SECONDS = 10.0
#: Memory a child may take beyond its imports; past it sympy gets a MemoryError ("memory").
MEMORY_BYTES = 512 * 2**20
#: Exact maths' children alive at once in this server, one-off requests (formulas, the
#: backward lab's values) and the derivatives column's together (:data:`CHILDREN`).
SLOTS = 2
#: Times a request stopped by its wall-clock deadline is tried again, each time only when a
#: slot is free at once: a host loaded by other work can starve a child that would finish.
RETRIES = 2
#: Answers kept (the most recently asked).
KEEP = 256
#: The largest line a child may write ("size" past it).
MAX_LINE = 8 * 2**20

ROOT = zygote.ROOT  # the folder that holds hograd's packages: the children's cwd


class Children:
    """A pool of child slots: at most ``slots`` children alive at once, whoever starts them.

    Attributes:
        running: the slots held now.
        most: the most held at once so far (for the tests).
    """

    def __init__(self, slots: int = SLOTS) -> None:
        self.slots = slots
        self._changed = threading.Condition()
        self.running = self.most = 0

    def acquire(self, timeout: float | None = None) -> bool:
        """Hold a slot, waiting at most ``timeout`` seconds (None: until one frees)."""
        with self._changed:
            if not self._changed.wait_for(lambda: self.running < self.slots, timeout):
                return False
            self.running += 1
            self.most = max(self.most, self.running)
            return True

    def release(self) -> None:
        with self._changed:
            self.running -= 1
            self._changed.notify()

    def free(self) -> int:
        """Slots free now."""
        with self._changed:
            return self.slots - self.running


#: The server's one pool: the door's one-off children and the derivatives column's.
CHILDREN = Children()


@dataclass(frozen=True)
class Answer:
    """What a child sent (its lines merged into ``fields``), and why it stopped early: None if
    it finished, else "time", "memory", "size", "error" (with ``detail``) or "busy"."""

    fields: dict = field(default_factory=dict)
    stopped: str | None = None
    detail: str = ""


def launch(seconds: float, memory: int) -> Forked | subprocess.Popen:
    """A child process of :mod:`.exact_child` with ``seconds`` of CPU time and ``memory``
    bytes beyond its imports, reading its request on standard input: forked from a process
    that has imported sympy already (:mod:`.zygote`), else a fresh interpreter."""
    return zygote.launch([f"{seconds:g}", str(memory)], env=zygote.child_env(), cwd=ROOT)


class ExactRuns:
    """One-off requests to :mod:`.exact_child`, each answered once per server: a child per new
    request, each holding a slot of ``pool`` (the server's :data:`CHILDREN` unless ``slots``
    asks for a pool of its own), each killed after ``seconds``. An answer stopped by time is
    worked out again, up to :data:`RETRIES` times, when it is asked while a slot is free."""

    def __init__(
        self,
        *,
        slots: int | None = None,
        pool: Children | None = None,
        seconds: float = SECONDS,
        memory: int = MEMORY_BYTES,
        keep: int = KEEP,
        launch: Callable[[float, int], subprocess.Popen] = launch,
    ) -> None:
        self.seconds, self.memory, self.keep = seconds, memory, keep
        self._launch = launch
        self._slots = pool or (CHILDREN if slots is None else Children(slots))
        # Guards the two dictionaries; never held while a child works.
        self._lock = threading.Lock()
        self._answers: OrderedDict[str, Answer] = OrderedDict()
        self._pending: dict[str, threading.Event] = {}
        self._retried: dict[str, int] = {}  # request -> times worked out again after "time"
        #: children started, for the tests and the benchmarks
        self.started = 0

    def ask(self, request: Mapping) -> Answer:
        """The child's answer to ``request`` (JSON-able), from the kept answers if it was
        asked before. Waits at most about twice ``seconds`` (a slot, then the child), off the
        floor (:func:`.floor.step_aside`)."""
        key = json.dumps(request, sort_keys=True)
        with self._lock:
            known = self._answers.get(key)
            if known is not None and self._again(key, known):
                del self._answers[key]
                known = None
            if known is not None:
                self._answers.move_to_end(key)
                return known
            pending = self._pending.get(key)
            mine = pending is None
            if mine:
                pending = self._pending[key] = threading.Event()
        if not mine:  # another run asked the same: its child answers both
            with step_aside():
                pending.wait(2 * self.seconds + 5)
            with self._lock:
                return self._answers.get(key, Answer(stopped="busy"))
        answer = Answer(stopped="busy")
        try:
            with step_aside():
                answer = self._run(key)
        finally:
            with self._lock:
                if answer.stopped != "busy":
                    self._answers[key] = answer
                    while len(self._answers) > self.keep:
                        gone, _ = self._answers.popitem(last=False)
                        self._retried.pop(gone, None)
                del self._pending[key]
            pending.set()
        return answer

    def _again(self, key: str, known: Answer) -> bool:
        """Whether a kept answer stopped by time is worked out again now (call with the lock
        held): while it has retries left and a slot is free, so a function that timed out on
        a busy host is not stopped for good, and a hostile one costs at most RETRIES more."""
        if known.stopped != "time" or self._retried.get(key, 0) >= RETRIES:
            return False
        if self._slots.free() <= 0:
            return False
        self._retried[key] = self._retried.get(key, 0) + 1
        return True

    def prefetch(self, request: Mapping) -> None:
        """Start working out ``request`` in the background (a thread waits for its child), so
        a page can compute something else meanwhile and :meth:`ask` later."""
        key = json.dumps(request, sort_keys=True)
        with self._lock:
            if key in self._pending:
                return
            known = self._answers.get(key)
            if known is not None and (known.stopped != "time" or self._slots.free() <= 0):
                return
        threading.Thread(target=self.ask, args=(request,), daemon=True, name="exact").start()

    def _run(self, request: str) -> Answer:
        if not self._slots.acquire(timeout=self.seconds):
            return Answer(stopped="busy")
        try:
            with self._lock:
                self.started += 1
            proc = self._launch(self.seconds, self.memory)
        except OSError as err:  # the child could not be started
            self._slots.release()
            return Answer(stopped="error", detail=f"{type(err).__name__}: {err}"[:300])
        timer = threading.Timer(self.seconds, proc.kill)  # the deadline, whatever it does
        timer.daemon = True
        timer.start()
        fields: dict = {}
        stopped, detail = None, ""
        try:
            stopped, detail = _read(proc, request, fields)
        finally:
            timer.cancel()
            proc.kill()
            proc.wait()
            for pipe in (proc.stdin, proc.stdout):
                if pipe is not None:
                    pipe.close()
            self._slots.release()
        if stopped is None and not fields.pop("done", False):
            killed = proc.returncode is not None and proc.returncode < 0
            stopped = "time" if killed else "error"
            detail = detail or f"exit status {proc.returncode}"
        fields.pop("done", None)
        return Answer(fields, stopped, detail)


def _read(proc: subprocess.Popen, request: str, fields: dict) -> tuple[str | None, str]:
    """Send ``request``, merge the child's lines into ``fields`` until it ends or is killed;
    why it stopped, if it said."""
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(request)
        proc.stdin.close()
    except OSError:
        return None, ""  # it died at once: judged by its exit status
    stopped, detail = None, ""
    while line := proc.stdout.readline(MAX_LINE):
        if not line.endswith("\n"):
            return "size", ""
        record = json.loads(line)
        if "stopped" in record:
            stopped, detail = str(record["stopped"]), str(record.get("detail", ""))[:300]
        else:
            fields.update(record)
    return stopped, detail


#: The server's one set of one-off children.
RUNS = ExactRuns()


def typed_latex(
    text: str, variables: Sequence[str] | None = None, *, wait: bool = True
) -> tuple[Answer, str | None]:
    """sympy's LaTeX of a function the caller has parsed (with ``variables``, if it named
    them), and the child's answer (``fields["names"]``: each variable's name in LaTeX). With
    ``wait=False`` the child is only started, and the answer is empty."""
    request = {"kind": "latex", "text": text, "variables": _names(variables)}
    if not wait:
        RUNS.prefetch(request)
        return Answer(stopped="busy"), None
    answer = RUNS.ask(request)
    return answer, answer.fields.get("latex")


def backward_exact(f: str, b: str, points: Sequence[float]) -> Answer:
    """The backward lab's exact part for f (of x) and its backward formula (of x, y, g) at
    ``points``: ``fields["latex"]`` (f, the backward, f′, f″) and ``fields["exact"]`` (f′ and
    f″ at the points, None where sympy has no value); missing where the child stopped first."""
    return RUNS.ask({"kind": "backward", "f": f, "b": b, "points": [float(p) for p in points]})


def exact_values(text: str, order: int, points: Sequence[float]) -> Answer:
    """f (of one variable) and its derivatives to ``order`` at ``points``, by sympy in 30
    digits: ``fields["values"]`` (per order, per point; None where sympy has no value) and
    ``fields["below_float64"]`` (the digits of a value float64 holds as 0 though it is not 0,
    else None); missing where the child stopped first."""
    request = {"kind": "values", "text": text, "order": int(order)}
    return RUNS.ask({**request, "points": [float(p) for p in points]})


def _names(variables: Sequence[str] | None) -> list[str] | None:
    return None if variables is None else [str(v) for v in variables]
