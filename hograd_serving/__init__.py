"""hograd_serving: what it takes to serve a class from one process.

The pages' cached calls into the core (:mod:`.cached`), the gate that lets only a few heavy
computations run at once (:mod:`.gate`), one script run's Python at a time (:mod:`.floor`),
the inspector's columns worked out in the background (:mod:`.deferred`, :mod:`.sympy_column`),
heavy jobs and the fresh processes a process-wide switch needs (:mod:`.jobs`), and fixes to
Streamlit's server (:mod:`.server_fixes`). It imports hograd_core and hands the core the
functions that run work elsewhere; the core never imports it. A class larger than one process
serves goes to identical replicas behind a proxy with session affinity (deploy/).
"""

from __future__ import annotations

import gc

__all__ = ["start"]


def start() -> None:
    """Prepare this process to serve (app.py calls it on every run; it acts once).

    Applies the server fixes and gives torch one thread per op: on a busy 2-core host its
    default pool makes small ops 5-100x slower, and every session of the class shares this
    process.
    """
    import torch

    from .server_fixes import serve_static_gzipped, shorten_interpreter_turns

    serve_static_gzipped()  # 2.2 MB of JavaScript per new browser becomes ~0.6 MB
    shorten_interpreter_turns()  # a light run no longer waits 5 ms per hand-over of the lock
    if torch.get_num_threads() != 1:
        torch.set_num_threads(1)
        gc.freeze()  # the imported modules never die: keep them out of every later GC pass
