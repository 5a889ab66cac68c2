"""Server plumbing app.py applies: no Nagle delay on the websockets (once per process), and
at most ``SCRIPT_SLOTS`` script runs executing at once (:func:`script_slot`).

Streamlit 1.67 binds its listening socket with ``socket.socket(family)``, so the sockets it
accepts have ``proto == 0``, and asyncio only switches Nagle's algorithm off (TCP_NODELAY)
for sockets whose ``proto`` is ``IPPROTO_TCP``. With Nagle on, every script run that sends
more than one message stalls: the server holds the second message until the browser
acknowledges the first, and browsers delay that acknowledgement (40 ms on Linux, up to
200 ms on Windows). Measured here: a rerun of a one-line page took 44 ms with Nagle on and
6 ms with it off, and every rerun of every page paid the 40 ms.

The fix replaces asyncio's check with one that does not look at ``proto``, for connections
accepted from now on, and switches Nagle off on the connections already open (the visitors
whose first page load started this process). It only ever sets TCP_NODELAY on TCP sockets.
"""

from __future__ import annotations

import asyncio.base_events
import asyncio.selector_events
import contextlib
import gc
import socket
import threading
from collections.abc import Iterator

__all__ = ["SCRIPT_SLOTS", "disable_nagle", "nagle_disabled", "script_slot"]


def _set_nodelay(sock: socket.socket) -> None:
    if sock.family in (socket.AF_INET, socket.AF_INET6) and sock.type == socket.SOCK_STREAM:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def nagle_disabled() -> bool:
    """Whether new connections of this process get TCP_NODELAY whatever their ``proto``."""
    return asyncio.base_events._set_nodelay is _set_nodelay  # type: ignore[attr-defined]


def disable_nagle() -> None:
    """Switch Nagle's algorithm off for this process's TCP connections (idempotent)."""
    if nagle_disabled():
        return
    asyncio.base_events._set_nodelay = _set_nodelay  # type: ignore[attr-defined]
    for obj in gc.get_objects():  # once per process: the connections accepted before now
        if isinstance(obj, asyncio.selector_events._SelectorSocketTransport):
            sock = obj.get_extra_info("socket")
            if sock is not None and sock.fileno() >= 0:
                with contextlib.suppress(OSError):  # a connection closing under us
                    _set_nodelay(sock)  # type: ignore[arg-type]


#: Script runs allowed to execute at once; the others wait their turn (see script_slot).
SCRIPT_SLOTS = 4  # two for heavy work (hograd_core.gate), one waiting for it, one light
_SLOTS = threading.BoundedSemaphore(SCRIPT_SLOTS)


@contextlib.contextmanager
def script_slot() -> Iterator[None]:
    """Run the body (one whole script run) when one of ``SCRIPT_SLOTS`` slots is free.

    Streamlit runs each session's script in a thread of one process. With fifty students, fifty
    runnable threads share one interpreter lock, and the event loop thread, which sends every
    session's messages, waits its turn behind all of them. A thread waiting here holds no
    lock and takes no turn, so runs finish one after another instead of all late together.
    """
    with _SLOTS:
        yield
