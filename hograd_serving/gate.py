"""A gate for heavy work, so a few expensive requests cannot freeze a whole class.

Streamlit runs every session's script in a thread of one process. Heavy requests (high-order
nested autograd, network training, large graphs) pass through :func:`heavy_work`, which lets
at most ``SLOTS`` of them run at once; a request that cannot get a slot within ``wait``
seconds is refused with :class:`BusyError` ("busy, try again in a moment") instead of queueing
behind the others. Cheap work does not use the gate.

No slot is held for ever. Every computation in the gate has a deadline (``seconds``, which
each caller states). Past it the slot is free for the next request at once, and the work is
stopped: the gate raises an exception in the thread that runs it (CPython's
``PyThreadState_SetAsyncExc``), which the interpreter checks between bytecodes, that is
inside every Python loop of the work, however deep (torch's Python loops, the core's, a
subprocess's wait). The caller gets :class:`DeadlineError`. Work that also reports progress
checks the deadline there (:meth:`Deadline.check`), the same stop said earlier. What no
check reaches is one long call into C that never returns to Python (a giant integer power):
such work belongs in a killable process (:mod:`.jobs`, :mod:`.exact_child`); if it happens
anyway, :func:`stuck` names it after ``STOP_SECONDS`` more and the server's health answer
turns unhealthy (:mod:`.serving_middleware`), so the deployment restarts the replica.

The gate looks at deadlines whenever it is asked for a slot and whenever the health endpoint
is asked (every few seconds behind a proxy): no thread of its own watches.
"""

from __future__ import annotations

import ctypes
import math
import re
import secrets
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from hograd_core.errors import HogradError

from . import SESSION_KEY
from .floor import step_aside

__all__ = [
    "BROWSER_COOKIE",
    "browser_id",
    "HEAVY_SECONDS",
    "PER_SESSION_MINUTE",
    "SLOTS",
    "STOP_SECONDS",
    "BusyError",
    "Deadline",
    "DeadlineError",
    "heavy_work",
    "stuck",
]

#: How many heavy requests may run at once: one per core on the 2-core servers we target.
SLOTS = 2
#: The deadline of budgeted heavy work: every request is checked against its budget before it
#: starts, which keeps it to about 3 s of a core; ten times that leaves room for a busy host.
HEAVY_SECONDS = 30.0
#: How long work told to stop may take to stop before :func:`stuck` names it.
STOP_SECONDS = 10.0
_clock = time.monotonic  # the tests' clock replaces it


class BusyError(HogradError):
    """Every slot for heavy work is taken; the request was not started."""


class DeadlineError(HogradError):
    """A heavy computation outlived its deadline and was stopped; its slot is free again."""


class _Stop(BaseException):  # not an error: the gate's signal to stop
    """Raised inside the thread of work past its deadline (a BaseException, so that an
    ``except Exception`` in the work does not swallow it)."""


@dataclass(eq=False)
class _Slot:
    thread: int  # threading.get_ident() of the thread doing the work
    seconds: float  # its deadline, from its start
    deadline: float  # on _clock
    stopped_at: float | None = None  # when the gate told it to stop (its slot is free since)


_GATE = threading.Condition()
_HELD: list[_Slot] = []  # every computation in the gate, those told to stop included


def _raise_in(thread: int, exc: type[BaseException] | None) -> None:
    """Raise ``exc`` in ``thread`` at its next bytecode (None: take back a pending one)."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(thread), ctypes.py_object(exc) if exc is not None else None
    )


def _sweep(now: float) -> None:
    """Stop every computation past its deadline (with _GATE held); its slot is free at once."""
    for slot in _HELD:
        if slot.stopped_at is None and now > slot.deadline:
            slot.stopped_at = now
            _raise_in(slot.thread, _Stop)
            _GATE.notify_all()


def _running() -> int:
    return sum(slot.stopped_at is None for slot in _HELD)


def stuck() -> str | None:
    """Why this server can no longer do heavy work, or None.

    Every slot's worth of computations were told to stop more than :data:`STOP_SECONDS` ago
    and are still running: each holds a core (a long call into C that never returns to
    Python), and only a restart of the process ends them. Stops overdue work on the way.
    """
    with _GATE:
        now = _clock()
        _sweep(now)
        late = [s for s in _HELD if s.stopped_at is not None and now - s.stopped_at > STOP_SECONDS]
        if len(late) < SLOTS:
            return None
        worst = max(now - s.deadline for s in late)
        return (
            f"{len(late)} heavy computations still running past their deadline "
            f"(the longest {worst:.0f} s over), {SLOTS} slots"
        )


@dataclass(frozen=True)
class Deadline:
    """When a computation in the gate must have finished (on the gate's clock)."""

    at: float
    seconds: float

    def left(self) -> float:
        """Seconds left before the deadline (negative once it has passed)."""
        return self.at - _clock()

    def check(self) -> None:
        """Raise :class:`DeadlineError` if the deadline has passed: for loops that report
        progress, so that work stops at its next step, not at the next sweep.

        Raises:
            DeadlineError: the deadline has passed.
        """
        if self.left() < 0:
            raise DeadlineError("budget.deadline", seconds=f"{self.seconds:g}")


#: Heavy computations one browser may start in a minute. A person clicking through the labs
#: starts a few; a link varied to miss the cache (a form's seed) would start one per visit,
#: each up to 2.6 s of a core.
PER_SESSION_MINUTE = 20
_STARTS: dict[str, deque[float]] = {}  # browser -> when its heavy computations started
_STARTS_LOCK = threading.Lock()


#: The cookie that names a browser (set by :mod:`.serving_middleware` on the page): it
#: survives a reconnect, a new tab and a reload, which each start a new session.
BROWSER_COOKIE = "hograd_browser"
_BROWSER_VALUE = re.compile(r"[0-9a-f]{32}")


def browser_id() -> str | None:
    """Who runs the calling script run (None outside a script run): its browser, named by the
    :data:`BROWSER_COOKIE` it sent with its websocket; without one (a client that keeps no
    cookies), the session, by a random name kept in its state."""
    import streamlit as st
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    if get_script_run_ctx(suppress_warning=True) is None:
        return None
    browser = st.context.cookies.get(BROWSER_COOKIE, "")  # AppTest's stand-in client: no str
    if isinstance(browser, str) and _BROWSER_VALUE.fullmatch(browser):
        return f"browser:{browser}"
    if SESSION_KEY not in st.session_state:  # a page run on its own (AppTest of one page)
        st.session_state[SESSION_KEY] = secrets.token_hex(8)
    return f"session:{st.session_state[SESSION_KEY]}"


def _count_start(session: str | None, limit: int) -> None:
    """Count one heavy start of ``session``; refuse it past ``limit`` in the last minute.

    Raises:
        BusyError: ``session`` started ``limit`` heavy computations in the last 60 s.
    """
    if session is None:
        return
    now = _clock()
    with _STARTS_LOCK:
        for gone in [s for s, times in _STARTS.items() if not times or now - times[-1] > 60.0]:
            del _STARTS[gone]  # a session with nothing in the last minute owes nothing
        times = _STARTS.setdefault(session, deque())
        while times and now - times[0] > 60.0:
            times.popleft()
        if len(times) >= limit:
            wait = max(1, math.ceil(60.0 - (now - times[0])))
            raise BusyError("budget.session_rate", n=limit, seconds=wait)
        times.append(now)


def _take(wait: float, seconds: float) -> _Slot:
    end = time.monotonic() + wait
    with _GATE:
        while True:
            _sweep(_clock())
            if _running() < SLOTS:
                slot = _Slot(threading.get_ident(), seconds, _clock() + seconds)
                _HELD.append(slot)
                return slot
            left = end - time.monotonic()
            if left <= 0:
                raise BusyError("budget.busy", slots=SLOTS)
            _GATE.wait(left)


def _give_back(slot: _Slot) -> None:
    with _GATE:
        if slot in _HELD:
            _HELD.remove(slot)
            _GATE.notify_all()
        if slot.stopped_at is not None:  # a stop sent as the work ended must not fire later
            _raise_in(slot.thread, None)


@contextmanager
def heavy_work(*, seconds: float, wait: float = 1.5) -> Iterator[Deadline]:
    """Run the body in a slot of the gate, for at most ``seconds``.

    The body runs only if a slot frees up within ``wait`` seconds and the calling browser has
    started fewer than :data:`PER_SESSION_MINUTE` heavy computations in the last minute. A
    script run waits for the slot and does the work off the floor (:mod:`.floor`): the light
    runs go on meanwhile. Past ``seconds`` the slot is given to the next request and the body
    is stopped (the module's docstring says how).

    Args:
        seconds: the deadline: :data:`HEAVY_SECONDS` for budgeted work, more for work that
            waits on a process with a timeout of its own.
        wait: how long to wait for a slot.

    Yields:
        The body's :class:`Deadline`, for loops that can check it themselves.

    Raises:
        BusyError: no slot within ``wait`` seconds, or the browser's minute is full.
        DeadlineError: the body was stopped at its deadline.
    """
    _count_start(browser_id(), PER_SESSION_MINUTE)
    with step_aside():
        slot = _take(wait, seconds)
        try:
            yield Deadline(slot.deadline, seconds)
        except _Stop:
            raise DeadlineError("budget.deadline", seconds=f"{seconds:g}") from None
        finally:
            while True:  # a stop that lands in here, as the work ends, only repeats this
                try:
                    _give_back(slot)
                    break
                except _Stop:
                    continue
