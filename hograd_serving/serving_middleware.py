"""The server's own answers, before Streamlit's: a cheap health endpoint, the warm-up's "done",
and the cookie that names a browser.

* ``GET /_hograd/health`` (:data:`HEALTH_PATH`): ``200 ok`` while this process can serve a
  class; otherwise ``503`` and one line saying why: ``warming`` (a server started with
  ``HOGRAD_WAIT_FOR_WARMUP=1`` whose warm-up has not said it is done), or ``stuck`` (every
  heavy-work slot's worth of computations still running after they were told to stop,
  :func:`hograd_serving.gate.stuck`; or one script run holding the floor for a minute,
  :func:`hograd_serving.floor.stuck`). It is answered in the event loop from a few numbers in
  memory: no process, no session, well under a millisecond. A proxy can ask it every few
  seconds; ``/_stcore/health`` answers 200 in all these cases.
* ``POST /_hograd/warmed`` (:data:`WARMED_PATH`), from this machine only: the warm-up
  (:mod:`.warmup`) has made its visit; the health endpoint stops saying ``warming``.
* The ``hograd_browser`` cookie (:data:`hograd_serving.gate.BROWSER_COOKIE`): an HTML answer
  to a request that carries none sets one, random, ``HttpOnly; SameSite=Lax``. The browser
  sends it with every later request and websocket, so the gate counts heavy work per browser,
  not per session (a reconnect, a reload and a new tab are each a new session).

Note:
    A proxy in front must not pass ``/_hograd/`` on to the replicas (deploy/haproxy.cfg
    refuses it): the warm-up's announcement is trusted because it comes from this machine, and
    a proxy on this machine would make every student's request come from it.
"""

from __future__ import annotations

import os
import re
import secrets
import threading

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from . import floor, gate
from .gzip_static import _route_path

__all__ = [
    "HEALTH_PATH",
    "WAIT_ENV",
    "WARMED_PATH",
    "ServingMiddleware",
    "mark_warm",
    "status",
]

HEALTH_PATH = "/_hograd/health"
WARMED_PATH = "/_hograd/warmed"
#: Set to 1 for a server whose warm-up will announce itself (deploy/replicas.py, the
#: Dockerfile): until it does, the health endpoint answers ``warming``.
WAIT_ENV = "HOGRAD_WAIT_FOR_WARMUP"
#: The browser cookie lives for a day: longer than a lecture, shorter than a term.
COOKIE_SECONDS = 86400
_LOOPBACK = frozenset({"127.0.0.1", "::1"})
_WARM = threading.Event()
_COOKIE = re.compile(rb"(?:^|;)\s*" + gate.BROWSER_COOKIE.encode() + rb"=[0-9a-f]{32}\s*(?:;|$)")


def mark_warm() -> None:
    """The warm-up is done: the health endpoint stops answering ``warming``."""
    _WARM.set()


def status() -> tuple[int, str]:
    """The health endpoint's answer: ``(200, "ok")`` or ``(503, reason)``."""
    if os.environ.get(WAIT_ENV) == "1" and not _WARM.is_set():
        return 503, "warming: the warm-up has not finished"
    for why in (gate.stuck(), floor.stuck()):
        if why is not None:
            return 503, f"stuck: {why}"
    return 200, "ok"


async def _answer(send: Send, code: int, text: str, *, body: bool = True) -> None:
    data = (text + "\n").encode()
    headers = [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(data)).encode()),
        (b"cache-control", b"no-store"),
    ]
    await send({"type": "http.response.start", "status": code, "headers": headers})
    await send({"type": "http.response.body", "body": data if body else b""})


def _has_browser_cookie(scope: Scope) -> bool:
    return any(
        name == b"cookie" and _COOKIE.search(value) for name, value in scope.get("headers", ())
    )


class ServingMiddleware:
    """The health endpoint, the warm-up's announcement and the browser cookie (see the module).

    Args:
        app: the ASGI application to wrap (Streamlit's, through ``st.App(middleware=...)``).
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path, method = _route_path(scope), scope.get("method")
        if path == HEALTH_PATH and method in ("GET", "HEAD"):
            code, text = status()
            await _answer(send, code, text, body=method == "GET")
            return
        if path == WARMED_PATH and method == "POST":
            client = scope.get("client")
            if client is not None and client[0] in _LOOPBACK:
                mark_warm()
                await _answer(send, 200, "warm")
            else:
                await _answer(send, 403, "only from this machine")
            return
        if _has_browser_cookie(scope):
            await self.app(scope, receive, send)
            return

        async def with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                html = any(
                    k.lower() == b"content-type" and v.startswith(b"text/html") for k, v in headers
                )
                if html:
                    value = (
                        f"{gate.BROWSER_COOKIE}={secrets.token_hex(16)}; Path=/; "
                        f"Max-Age={COOKIE_SECONDS}; HttpOnly; SameSite=Lax"
                    )
                    headers.append((b"set-cookie", value.encode()))
                    message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_cookie)
