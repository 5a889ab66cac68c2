"""The one place hograd writes into another library's internals, each kept because a goal
needs it (docs/performance.md, "No patches of other libraries' internals"), each with a test
that fails loudly when the internal it relies on changes (tests/serving/test_patches.py).

- :func:`leave_pages_directory_mode`: Streamlit starts in its old "pages directory" mode
  because pages/ exists, and leaves it for good only when a script calls st.navigation. Until
  app.py has done so, a deep link (a shared lesson link, often opened by a whole class at once
  on a fresh server or a fresh replica) runs the page file alone, without the sidebar, the
  language switch or the other pages. hograd_ui/parts/ui.py calls this from such a run and
  reruns, which goes through app.py. It sets the flag exactly as st.navigation itself does
  (``PagesManager.uses_pages_directory = False``). Calling st.navigation from the page run
  instead was tried (2026-12-04) and left the first visitor on a blank page.
- :func:`disable_nagle`: Streamlit 1.67 binds its listening socket with
  ``socket.socket(family)``, so the connections it accepts have ``proto == 0``, and asyncio
  switches Nagle's algorithm off (TCP_NODELAY) only for sockets whose ``proto`` is
  ``IPPROTO_TCP``. With Nagle on, a rerun that sends more than one message waits for the
  client's delayed acknowledgement before the second: one student alone measured a rerun p50
  of 49-97 ms without this against 28-47 ms with it (docs/performance.md). It replaces
  asyncio's private ``base_events._set_nodelay`` with one that does not look at ``proto``, for
  the connections accepted from then on (``hograd_serving.start()``, on the first script run;
  the connections already open, the warm-up visit's, keep Nagle on). It only ever sets
  TCP_NODELAY on TCP sockets.
"""

from __future__ import annotations

import asyncio.base_events
import socket

__all__ = ["disable_nagle", "leave_pages_directory_mode", "nagle_disabled"]


def leave_pages_directory_mode() -> None:
    """End Streamlit's pages-directory mode for this process, as st.navigation does."""
    from streamlit.runtime.pages_manager import PagesManager

    PagesManager.uses_pages_directory = False


def _set_nodelay(sock: socket.socket) -> None:
    if sock.family in (socket.AF_INET, socket.AF_INET6) and sock.type == socket.SOCK_STREAM:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def nagle_disabled() -> bool:
    """Whether new connections of this process get TCP_NODELAY whatever their ``proto``."""
    return asyncio.base_events._set_nodelay is _set_nodelay  # type: ignore[attr-defined]


def disable_nagle() -> None:
    """Switch Nagle's algorithm off for the TCP connections this process accepts from now on."""
    asyncio.base_events._set_nodelay = _set_nodelay  # type: ignore[attr-defined]
