"""A gate for heavy work, so a few expensive requests cannot freeze a whole class.

Streamlit runs every session's script in a thread of one process. Heavy requests (high-order
nested autograd, network training, large graphs) pass through :func:`heavy_work`, which lets
at most ``slots`` of them run at once; a request that cannot get a slot within ``wait``
seconds is refused with :class:`BusyError` ("busy, try again in a moment") instead of queueing
behind the others. Cheap work does not use the gate.
"""

from __future__ import annotations

import math
import secrets
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager

from hograd_core.errors import HogradError

from .floor import step_aside

__all__ = ["BusyError", "PER_SESSION_MINUTE", "SLOTS", "heavy_work"]

#: How many heavy requests may run at once: one per core on the 2-core servers we target.
SLOTS = 2
_SEMAPHORE = threading.BoundedSemaphore(SLOTS)
_clock = time.monotonic  # the tests' clock replaces it


class BusyError(HogradError):
    """Every slot for heavy work is taken; the request was not started."""


#: Heavy computations one browser session may start in a minute. A person clicking through
#: the labs starts a few; a link varied to miss the cache (a form's seed) would start one per
#: visit, each up to 2.6 s of a core.
PER_SESSION_MINUTE = 20
_STARTS: dict[str, deque[float]] = {}  # session -> when its heavy computations started
_STARTS_LOCK = threading.Lock()


#: The session-state key of a browser session's random name (hograd_ui/parts/ui.py: ``session_id``).
SESSION_KEY = "app.session"


def _session() -> str | None:
    """The browser session whose script run calls this (None outside a script run): a random
    name kept in its state (app.py gives one to every session at its first run)."""
    import streamlit as st
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    if get_script_run_ctx(suppress_warning=True) is None:
        return None
    if SESSION_KEY not in st.session_state:  # a page run on its own (AppTest of one page)
        st.session_state[SESSION_KEY] = secrets.token_hex(8)
    return str(st.session_state[SESSION_KEY])


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


@contextmanager
def heavy_work(wait: float = 1.5) -> Iterator[None]:
    """Run the body only if a heavy-work slot frees up within ``wait`` seconds, and only if
    the calling session has started fewer than ``PER_SESSION_MINUTE`` heavy computations in
    the last minute. A script run waits for the slot and does the work off the floor
    (:mod:`.floor`): the light runs go on meanwhile.

    Raises:
        BusyError: no slot within ``wait`` seconds, or the session's minute is full.
    """
    _count_start(_session(), PER_SESSION_MINUTE)
    with step_aside():
        if not _SEMAPHORE.acquire(timeout=wait):
            raise BusyError("budget.busy", slots=SLOTS)
        try:
            yield
        finally:
            _SEMAPHORE.release()
