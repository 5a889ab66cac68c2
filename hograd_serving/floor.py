"""One script run's Python at a time ("the floor"); a run that waits or does heavy work steps
aside while it does, and the next run takes the floor.

Streamlit runs each session's script in a thread of one process, and the event loop that sends
every session's messages is one more thread. Two runs computing in Python at once do not
finish sooner than one after the other: they share one interpreter lock (only the inside of a
torch op runs beside it). They cost more: torch lets go of the lock inside every op, so two
runs hand it to each other at almost every op, and each hand-over is a wake-up and a context
switch in the kernel. With four runs allowed on the floor, a saturated lean server made about
320 context switches per rerun; with one, about 200 (the rest: the event loop, and the work
that runs beside the floor), and its kernel time per rerun fell from 4.9 to 4.1 ms
(docs/performance.md, "The floor"). On a host whose cores are all busy, that is capacity.

A run that would hold the floor while it does not need it steps aside (:func:`step_aside`):
heavy work (:mod:`.gate`), the graph probe, waiting for a background answer (sympy's column,
the inspector's autograd column). It takes the floor back afterwards, waiting at most
``REENTER_SECONDS``; if it cannot have it by then it goes on beside the run that has it (a
bound, so no wait here can close a cycle with a lock some other run holds, such as Streamlit's
lock for a cached value another run computes). Only the start of a run waits for the floor
without a bound, and a run starts holding nothing.

A run that holds the floor and never lets go (waiting on a lock that is never released, a loop
outside the gate) stops every session of the process while ``/_stcore/health`` still answers:
:func:`stuck` names it once it has held the floor for ``STUCK_SECONDS``, and the server's
health answer (:mod:`.serving_middleware`) turns unhealthy.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator

__all__ = [
    "REENTER_SECONDS",
    "SCRIPT_SLOTS",
    "STUCK_SECONDS",
    "on_floor",
    "script_slot",
    "step_aside",
    "stuck",
]

#: Script runs whose Python executes at once. Heavy work runs beside them (at most
#: hograd_serving.gate.SLOTS of it), as do runs waiting for an answer.
SCRIPT_SLOTS = 1
#: How long a run that stepped aside waits for the floor before it goes on beside its holder.
REENTER_SECONDS = 0.25
#: A run that holds the floor this long is stuck: a light run holds it for well under a second,
#: and one waiting for a cached value that heavy work computes for at most the gate's deadline
#: (hograd_serving.gate: 30 s, then 10 s to stop).
STUCK_SECONDS = 60.0
_SLOTS = threading.BoundedSemaphore(SCRIPT_SLOTS)
_HELD = threading.local()
_TAKEN: dict[int, float] = {}  # thread -> when it took the floor (time.monotonic)
_clock = time.monotonic  # the tests' clock replaces it


def _took(held: bool) -> None:
    """Note that the calling thread took the floor (``held``) or let it go."""
    if held:
        _TAKEN[threading.get_ident()] = _clock()
    else:
        _TAKEN.pop(threading.get_ident(), None)


def stuck() -> str | None:
    """Why no script run can go on in this process, or None: a run has held the floor for
    more than :data:`STUCK_SECONDS`."""
    since = min(_TAKEN.values(), default=None)
    if since is None or _clock() - since <= STUCK_SECONDS:
        return None
    return f"one script run has held the floor for {_clock() - since:.0f} s"


def on_floor() -> bool:
    """Whether the calling thread holds one of the ``SCRIPT_SLOTS``."""
    return getattr(_HELD, "held", False)


@contextlib.contextmanager
def script_slot() -> Iterator[None]:
    """Run the body (one whole script run) on the floor, when a slot is free.

    A thread waiting here holds no lock and takes no turn at the interpreter lock, so with
    fifty students the runs finish one after another instead of all late together.
    """
    _SLOTS.acquire()
    _HELD.held = True
    _took(True)
    try:
        yield
    finally:
        _took(False)
        if _HELD.held:  # a run that could not take the floor back has nothing to give
            _SLOTS.release()
        _HELD.held = False


@contextlib.contextmanager
def step_aside() -> Iterator[None]:
    """Let another run have the floor while the body waits or does heavy work; take it back
    afterwards (waiting at most ``REENTER_SECONDS``). Outside a script run, or in a run that
    stepped aside already, it does nothing."""
    held = on_floor()
    if held:
        _HELD.held = False
        _took(False)
        _SLOTS.release()
    try:
        yield
    finally:
        if held:
            _HELD.held = _SLOTS.acquire(timeout=REENTER_SECONDS)
            _took(_HELD.held)
