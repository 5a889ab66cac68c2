"""hograd_serving: what it takes to serve a class from one process.

The pages' cached calls into the core (:mod:`.cached`), the gate that lets only a few heavy
computations run at once (:mod:`.gate`), one script run's Python at a time (:mod:`.floor`),
the inspector's columns worked out in the background (:mod:`.deferred`, :mod:`.sympy_column`),
and heavy jobs and the fresh processes a process-wide switch needs (:mod:`.jobs`). It imports
hograd_core and hands the core the functions that run work elsewhere; the core never imports
it. A class larger than one process serves goes to identical replicas behind a proxy with
session affinity (deploy/).
"""

from __future__ import annotations

import gc
import sys

__all__ = ["INTERPRETER_TURN_SECONDS", "SESSION_KEY", "TEACHER_COOKIE", "start"]

#: The session-state key of a browser session's random name (hograd_ui/parts/ui.py:
#: ``session_id``; :mod:`.gate` serves sessions in turn by it). Here, not in the gate, so
#: that a page which starts no heavy work does not load the gate to name its session.
SESSION_KEY = "app.session"
#: The cookie that holds the token a lecturer's link was exchanged for (:mod:`.teacher_door`);
#: every page's first run looks for it (hograd_ui/parts/lesson_state.py), and only a run that
#: finds it loads the key's modules.
TEACHER_COOKIE = "hograd_teacher"

#: The longest turn a thread computing in Python keeps the interpreter lock while another
#: thread waits for it (Python's default is 0.005 s). Every session's script runs in a thread
#: of this one process, and a light rerun takes the lock back hundreds of times (after every
#: message it sends, every torch call that released it): behind a busy neighbour it paid the
#: whole turn each time (docs/performance.md, "Settings").
INTERPRETER_TURN_SECONDS = 0.0005


def start() -> None:
    """Prepare this process to serve (app.py calls it on every run; it acts once).

    Switches Nagle's algorithm off for the connections accepted from now on, keeps each file
    a download click makes until it is fetched, keeps a late fragment run on the session's
    page and a finished run's messages from being dropped by a timer's tick
    (:mod:`.patches`), makes a turn on the interpreter lock ``INTERPRETER_TURN_SECONDS``
    and gives torch one thread per op: on a busy 2-core host its default pool makes small ops
    5-100x slower, and every session of the class shares this process.
    """
    import torch

    from .patches import (
        deliver_a_run_before_the_next,
        disable_nagle,
        keep_fragment_reruns_on_their_page,
        keep_made_downloads,
    )

    disable_nagle()  # each rerun's messages otherwise wait for a delayed ACK (patches.py)
    keep_made_downloads()  # a file made on click is otherwise swept before it is fetched
    keep_fragment_reruns_on_their_page()  # a late fragment run otherwise empties a new page
    deliver_a_run_before_the_next()  # a tick otherwise drops a finished run's messages
    sys.setswitchinterval(INTERPRETER_TURN_SECONDS)
    if torch.get_num_threads() != 1:
        torch.set_num_threads(1)
        gc.freeze()  # the imported modules never die: keep them out of every later GC pass
