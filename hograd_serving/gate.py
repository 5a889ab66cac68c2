"""A gate for heavy work, so a few expensive requests cannot freeze a whole class.

Streamlit runs every session's script in a thread of one process. Heavy requests (high-order
nested autograd, network training, large graphs) pass through :func:`heavy_work`, which lets
at most ``slots`` of them run at once; a request that cannot get a slot within ``wait``
seconds is refused with :class:`BusyError` ("busy, try again in a moment") instead of queueing
behind the others. Cheap work does not use the gate.
"""

from __future__ import annotations

import ctypes
import math
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress

from hograd_core.errors import HogradError

from .floor import step_aside

__all__ = ["BusyError", "heavy_work", "SLOTS"]

#: How many heavy requests may run at once: one per core on the 2-core servers we target.
SLOTS = 2
_SEMAPHORE = threading.BoundedSemaphore(SLOTS)
#: At most one malloc_trim per this many seconds (see :func:`_return_memory`).
TRIM_EVERY = 1.0
_TRIM_LOCK = threading.Lock()
_last_trim = -math.inf
_trim_pending = False  # a trailing trim is scheduled
_clock = time.monotonic  # the tests' clock replaces it
try:  # loaded once, at import: nothing a request does opens a library
    _LIBC: ctypes.CDLL | None = ctypes.CDLL("libc.so.6")
except OSError:  # not glibc
    _LIBC = None


class BusyError(HogradError):
    """Every slot for heavy work is taken; the request was not started."""


@contextmanager
def heavy_work(wait: float = 1.5) -> Iterator[None]:
    """Run the body only if a heavy-work slot frees up within ``wait`` seconds. A script run
    waits for the slot and does the work off the floor (:mod:`.floor`): the light runs go on
    meanwhile.

    Raises:
        BusyError: no slot within ``wait`` seconds.
    """
    with step_aside():
        if not _SEMAPHORE.acquire(timeout=wait):
            raise BusyError("budget.busy", slots=SLOTS)
        try:
            yield
        finally:
            _SEMAPHORE.release()
            _return_memory()


def _return_memory() -> None:
    """Give freed memory back to the system after heavy requests, at most once a second.

    glibc keeps the arenas of a large temporary graph after torch frees it, so the server's RSS
    ratcheted up under load without a live leak; malloc_trim returns it in a few
    milliseconds. Not after every request, though: a trim hands back every free page of every
    arena, and the next script runs fault them in again. Trimming after each heavy request cost
    a saturated lean server 300-400 page faults and about 15 % of its CPU per rerun (see
    docs/performance.md, "The gate and the budgets"). A request that finds a trim less than a
    second old leaves one for a second later, so the last of a burst is returned too. A no-op
    where glibc is absent.
    """
    global _last_trim, _trim_pending
    if _LIBC is None:
        return
    now = _clock()
    with _TRIM_LOCK:
        if now - _last_trim >= TRIM_EVERY:
            _last_trim = now
        elif _trim_pending:
            return
        else:
            _trim_pending = True
            _later(TRIM_EVERY, _trailing_trim)
            return
    _trim()


def _trailing_trim() -> None:
    global _last_trim, _trim_pending
    with _TRIM_LOCK:
        _trim_pending = False
        _last_trim = _clock()
    _trim()


def _trim() -> None:
    if _LIBC is not None:
        with suppress(AttributeError):
            _LIBC.malloc_trim(0)


def _timer(delay: float, fn: Callable[[], None]) -> None:
    timer = threading.Timer(delay, fn)
    timer.daemon = True
    timer.start()


_later = _timer  # the tests run the trailing trim themselves
