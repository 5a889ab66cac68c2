"""The pages' cached calls into hograd_core, defined once per process.

A page file is executed afresh on every run, so a ``@st.cache_data`` function defined in it
is wrapped again each time (Streamlit reads its source to key the cache): about 3 % of a
derivatives rerun. Defined here, they are wrapped once. Each is a pure function of its
arguments (no per-user state), so sharing results between sessions is safe. This is also where
work is routed: heavy calls pass the gate (:mod:`.gate`), and the core is handed the functions
that run its work elsewhere (:mod:`.jobs`). The labs' cached calls are in their folders
(``hograd_labs/<lab>/cached.py``; the derivatives lab's inspector has its slower columns worked
out in the background by :mod:`.deferred` and :mod:`.sympy_column`).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import streamlit as st

import hograd_core

from .gate import HEAVY_SECONDS, heavy_work

if TYPE_CHECKING:
    from hograd_core.flaglab import FlagOutcome
    from hograd_core.language import Function

__all__ = ["FORWARD_AD", "Caption", "cached_parse", "case_for", "with_bar"]


@st.cache_data(max_entries=256, show_spinner=False)
def cached_parse(text: str, variables: tuple[str, ...] | None = None) -> Function:
    return hograd_core.parse(text, variables)  # the language loads on the first parse


# ---- the flag lab's classic cases (the graph lab and the backward lab's decoder) ----------------


@st.cache_data(max_entries=32, show_spinner=False)
def case_for(case: str, variant: str) -> FlagOutcome:
    # the flag lab and the process runner load on the first case (every page imports this
    # module for cached_parse; the home page runs no case)
    from .jobs import run_isolated

    return hograd_core.run_case(case, variant, isolate=run_isolated)


#: torch's forward-AD level is one per process, not per thread: two sessions running jvp at
#: once crash ("no level exists"). Whoever runs forward AD in the server holds this lock.
FORWARD_AD = threading.Lock()


# ---- why gradients of gradients page ----------------------------------------------------------
# Every experiment is bounded by counted work checked before it starts (at most ~1 s of torch
# per click); it runs in this process, inside the heavy-work gate.


#: caption(done, total) of a progress bar, in the page's words (not part of any cache key)
Caption = Callable[[int, int], str]

#: For the browser tests only (tests/e2e/conftest.py sets it on the servers they start; unset
#: in production): a file that, while it exists, holds the experiment whose total number of
#: steps it holds, after its first step done, so that a test acts during the work on an
#: event, not by racing it.
HOLD = os.environ.get("HOGRAD_HOLD_PROGRESS")
#: The part of a deadline a hold never uses: the held work still finishes in time.
HOLD_MARGIN = 10.0


def _holds(total: int) -> bool:
    try:
        with open(HOLD, encoding="ascii") as f:  # type: ignore[arg-type]
            return f.read().strip() == str(total)
    except (OSError, TypeError, ValueError):
        return False


def _held(done: int, total: int, left: Callable[[], float]) -> None:
    """While the :data:`HOLD` file names ``total``, wait (once a step is done, before the
    next)."""
    while HOLD and done > 0 and left() > HOLD_MARGIN and _holds(total):
        time.sleep(0.05)


def with_bar(caption: Caption, work: Callable[[Callable[[int, int], None]], object]) -> object:
    """``work(progress)`` inside the heavy-work gate, with a progress bar while it runs; each
    report of progress checks the deadline too (the work stops at its next step once past it).

    Args:
        caption: the bar's text for (done, total), in the page's words.
        work: the experiment, called with ``progress(done, total)`` to report each step.

    Returns:
        What ``work`` returned.

    Raises:
        BusyError: the server is busy with other heavy requests.
        DeadlineError: the work ran past its deadline (stopped at its next report).
    """
    bar = st.progress(0.0, text=caption(0, 1))
    try:
        with heavy_work(seconds=HEAVY_SECONDS) as deadline:

            def progress(done: int, total: int) -> None:
                deadline.check()
                bar.progress(min(1.0, done / max(total, 1)), text=caption(done, total))
                _held(done, total, deadline.left)

            return work(progress)
    finally:
        bar.empty()
