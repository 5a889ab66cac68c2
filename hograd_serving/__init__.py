"""hograd_serving: what it takes to serve a class from one process.

The pages' cached calls into the core (:mod:`.cached`), the gate that lets only a few heavy
computations run at once (:mod:`.gate`), the child processes that take work off the server's
interpreter (:mod:`.child`, :mod:`.torch_helper`, :mod:`.deferred`, :mod:`.sympy_worker`) and
fixes to Streamlit's server (:mod:`.server_fixes`). It imports hograd_core and hands the core
the functions that run work elsewhere; the core never imports it.
"""

from __future__ import annotations

import gc

from .lean import LEAN

__all__ = ["LEAN", "start"]


def start() -> None:
    """Prepare this process to serve (app.py calls it on every run; it acts once).

    Applies the server fixes, starts the helper processes before anyone needs them, and gives
    torch one thread per op: on a busy 2-core host its default pool makes small ops 5-100x
    slower, and every session of the class shares this process.
    """
    import torch

    from .cached import AUTOGRAD, SYMPY
    from .floor import patch_cache_waits
    from .server_fixes import disable_nagle, serve_static_gzipped, shorten_interpreter_turns
    from .torch_helper import TORCH_HELPER

    disable_nagle()  # each rerun's messages otherwise wait ~40 ms for a delayed ACK
    serve_static_gzipped()  # 2.2 MB of JavaScript per new browser becomes ~0.6 MB
    shorten_interpreter_turns()  # a light run no longer waits 5 ms per hand-over of the lock
    patch_cache_waits()  # a run waiting for another's cached value waits off the floor
    SYMPY.start()  # sympy's own process, warm before anyone types
    AUTOGRAD.worker.start()  # the inspector's nested-autograd column
    TORCH_HELPER.start()  # the process the network page, the probe and the flag lab fork
    if torch.get_num_threads() != 1:
        torch.set_num_threads(1)
        gc.freeze()  # the imported modules never die: keep them out of every later GC pass
