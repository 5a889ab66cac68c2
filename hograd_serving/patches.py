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
- :func:`keep_made_downloads`: every download button holds a function (the file is made on
  click). Streamlit 1.67 makes the file when the browser asks, answers with its URL, and
  leaves the made file referenced by no session; the orphan sweep that ends every script run
  of every session marks it at the first pass and deletes it at the second. The browser asks
  for the URL a moment later: in a class, where every following student's page runs a
  fragment several times a second, two sweeps fall in that moment, and the lecturer's class
  export (or a student's .py) fails as a cancelled download (found by the rehearsed lecture on
  two replicas, CI of 879d3ba). It keeps each made file referenced for ``MADE_KEEP_SECONDS``
  after it was made, under a holder of its own that no session's run clears; files past that
  are let go on the next click anywhere (a bounded number: the clicks of that window).
- :func:`keep_fragment_reruns_on_their_page`: a browser asks for a fragment's rerun (its
  ``run_every`` timer) with the page it shows. Streamlit 1.67 runs a request that waited
  behind a run as it came, page and all, even when that run switched the session to another
  page (``st.switch_page``): the waiting fragment run switches the session back to the old
  page, where the fragment is no longer registered, so it draws nothing, and its
  ``new_session`` tells the front end the page changed, which clears the page just drawn. A
  follower taken to the lecturer's view from the lesson (whose reveal fragment ticks twice a
  second) was left on an empty page now and then (CI of 338fa72; tests/serving/
  test_patches.py reproduces the order over the websocket). Patched, a fragment run asked for
  from another page than the session's runs on the session's page: the fragment, unknown
  there, draws nothing and changes nothing, as Streamlit does for any fragment it no longer
  has.
- :func:`deliver_a_run_before_the_next`: a script runner's messages reach the browser through
  the server's event loop, and Streamlit 1.67 drops every message of a runner that is no
  longer the session's current one. A runner that has finished its run but whose messages are
  still queued on the loop counts as stopped: a fragment's timer request handled in that
  moment starts a new runner, and the finished run's messages are then dropped, all of them.
  A click and a timer tick sent together (every following student's page ticks twice a
  second) lost the click's whole run: the page never showed what the click did ("Follow the
  lecturer" switched on, nothing followed; the rehearsed lecture, 2026-12-07). Over the
  websocket, a change and a tick sent back to back lost the change's run 9-13 times in 20-40.
  Patched, a fragment's request that finds the session's runner stopped is held until the
  loop has handled that runner's last event (its messages are all out by then), then starts
  its runner as before; a whole run asked for meanwhile drops the held ticks (it draws every
  fragment again).
"""

from __future__ import annotations

import asyncio.base_events
import dataclasses
import socket
import time
from typing import Any

__all__ = [
    "MADE_KEEP_SECONDS",
    "deliver_a_run_before_the_next",
    "disable_nagle",
    "keep_fragment_reruns_on_their_page",
    "keep_made_downloads",
    "leave_pages_directory_mode",
    "nagle_disabled",
]

#: How long a file made by a download click stays to be fetched: the browser asks for it at
#: once; a phone on a poor network may take seconds.
MADE_KEEP_SECONDS = 300.0
#: The holder under which made files stay referenced (a name no session id can take: those
#: are UUIDs).
MADE_HOLDER = "hograd:made-downloads"


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


def keep_made_downloads() -> None:
    """Keep every file a download click makes until it has been fetched (see above). Acts once."""
    from streamlit.runtime.media_file_manager import MediaFileManager

    original = MediaFileManager.execute_deferred
    if getattr(original, "hograd_keeps", False):
        return

    def execute_deferred(self: MediaFileManager, file_id: str) -> str:
        url = original(self, file_id)
        made = url.rsplit("/", 1)[-1].partition(".")[0]  # ".../media/<id>.csv"
        now = time.monotonic()
        with self._lock:
            held = self._files_by_session_and_coord[MADE_HOLDER]
            if made in self._file_metadata:
                held[f"{now:.6f}:{made}"] = made
            for coordinates in [
                c for c in held if float(c.partition(":")[0]) < now - MADE_KEEP_SECONDS
            ]:
                del held[coordinates]
        return url

    execute_deferred.hograd_keeps = True  # type: ignore[attr-defined]
    execute_deferred.hograd_original = original  # type: ignore[attr-defined]
    MediaFileManager.execute_deferred = execute_deferred  # type: ignore[method-assign]


def keep_fragment_reruns_on_their_page() -> None:
    """Run a fragment's rerun asked for from another page on the session's page (see above).
    Acts once."""
    from streamlit.runtime.scriptrunner.script_runner import ScriptRunner
    from streamlit.runtime.scriptrunner_utils.script_requests import RerunData

    original = ScriptRunner._run_script
    if getattr(original, "hograd_keeps_page", False):
        return

    def _run_script(self: ScriptRunner, rerun_data: RerunData) -> None:
        ctx = self._get_script_run_ctx()
        here = ctx.page_script_hash if ctx is not None else ""
        asked = rerun_data.page_script_hash
        if rerun_data.fragment_id_queue and here and asked and asked != here:
            rerun_data = dataclasses.replace(
                rerun_data, page_script_hash=here, page_name="", query_string=ctx.query_string
            )
        original(self, rerun_data)

    _run_script.hograd_keeps_page = True  # type: ignore[attr-defined]
    _run_script.hograd_original = original  # type: ignore[attr-defined]
    ScriptRunner._run_script = _run_script  # type: ignore[method-assign]


def deliver_a_run_before_the_next() -> None:
    """A fragment's request that finds the session's runner stopped waits for that runner's
    queued messages before a new runner takes over (see above). Acts once."""
    from streamlit.runtime.app_session import AppSession
    from streamlit.runtime.scriptrunner import ScriptRunnerEvent
    from streamlit.runtime.scriptrunner_utils.script_requests import ScriptRequestType

    original = AppSession.request_rerun
    if getattr(original, "hograd_delivers", False):
        return
    handle = AppSession._handle_scriptrunner_event_on_event_loop

    def request_rerun(self: AppSession, client_state: Any) -> None:
        runner = self._scriptrunner
        waiting = self.__dict__.setdefault(_WAITING, [])
        if client_state is not None and client_state.fragment_id:
            if runner is not None and runner._requests._state == ScriptRequestType.STOP:
                waiting.append(client_state)  # sent on once the runner's last event is in
                return
            for earlier in _taken(self):
                original(self, earlier)
        else:
            _taken(self)  # a whole run draws every fragment again: the waiting ticks go
        original(self, client_state)

    def on_event(self: AppSession, sender: Any, event: Any, *args: Any, **kwargs: Any) -> None:
        handle(self, sender, event, *args, **kwargs)
        # the runner's last event, handled: its messages are all out and the session has no
        # runner; the requests that waited for it start one
        if event == ScriptRunnerEvent.SHUTDOWN and self._scriptrunner is None:
            for earlier in _taken(self):
                request_rerun(self, earlier)

    request_rerun.hograd_delivers = True  # type: ignore[attr-defined]
    request_rerun.hograd_original = original  # type: ignore[attr-defined]
    on_event.hograd_original = handle  # type: ignore[attr-defined]
    AppSession.request_rerun = request_rerun  # type: ignore[method-assign]
    AppSession._handle_scriptrunner_event_on_event_loop = on_event  # type: ignore[method-assign]


#: The session's attribute that holds the fragment requests waiting for a stopped runner.
_WAITING = "_hograd_waiting_for_runner"


def _taken(session: Any) -> list:
    """The requests waiting in ``session`` for its runner, taken out (oldest first)."""
    waiting = session.__dict__.get(_WAITING) or []
    session.__dict__[_WAITING] = []
    return waiting
