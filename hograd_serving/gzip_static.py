"""Streamlit's static bundles gzipped once per process, then served from memory.

A browser's first visit fetches Streamlit's frontend: about 2.2 MB of JavaScript and CSS under
``/static/`` (content-hashed names, served ``immutable``), which gzip shrinks to about a third.
Streamlit serves them uncompressed on purpose (its ``SelectiveGZipMiddleware`` skips
``/static/``), because Starlette's ``GZipMiddleware`` compresses the whole body again for every
request on the event loop: a storm of 50 new browsers would pay 50 compressions of 2.2 MB while
the same loop serves every student's websocket. This middleware keeps Streamlit's reasoning and
removes its cost: it compresses each bundle the first time a client that accepts gzip asks for
it, in a worker thread, keeps the compressed bytes, and answers every later request for that
path from memory without calling Streamlit. The names are content hashes, so a path's bytes
never change while the process lives. Only answers Streamlit gave ``200`` are kept, so the set
is Streamlit's own files: a first visit's bundles are about 0.65 MB gzipped, and all 320 of
Streamlit 1.67's JS/CSS files, had every one been asked for, 6.6 MB.

Only a plain ``GET`` of a JavaScript or CSS file under ``/static/`` whose client accepts gzip is
touched, and only when Streamlit answers it ``200`` uncompressed. ``HEAD``, ``Range`` and
conditional requests (``If-None-Match``, ``If-Modified-Since``, ``If-Range``), every other path
(the HTML, ``/_stcore/...``, the websocket, ``/app/static/``, ``/media/``) and every other
answer (``404``, ``304``) pass through untouched.

It is a plain ASGI middleware, added through Streamlit's public ``st.App(middleware=...)``
(hograd_serving/asgi.py); it knows nothing of Streamlit's internals, only the URL layout.
"""

from __future__ import annotations

import asyncio
import gzip
from dataclasses import dataclass
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["StaticGzipMiddleware"]

#: Streamlit's frontend bundles: content-hashed files under /static/ (static/js, static/css).
STATIC_PREFIX = "/static/"
SUFFIXES = (".js", ".css")
#: Request headers that ask for something other than the whole current file.
_PASS_HEADERS = frozenset({b"range", b"if-none-match", b"if-modified-since", b"if-range"})
#: Response headers that describe the uncompressed bytes (dropped from the gzip answer).
_DROP_HEADERS = frozenset({b"content-length", b"etag", b"accept-ranges", b"content-encoding"})
#: Level 6, zlib's default: within 1-2 % of level 9's size at a fraction of its time.
COMPRESS_LEVEL = 6


@dataclass(frozen=True)
class _Compressed:
    headers: tuple[tuple[bytes, bytes], ...]
    body: bytes


def _accepts_gzip(value: bytes) -> bool:
    """Whether an Accept-Encoding header value allows gzip (``gzip`` or ``x-gzip``, q > 0)."""
    for item in value.decode("latin-1").split(","):
        coding, _, params = item.strip().partition(";")
        if coding.strip().lower() not in ("gzip", "x-gzip"):
            continue
        q = params.strip().lower()
        if not q.startswith("q="):
            return True
        try:
            return float(q[2:]) > 0
        except ValueError:
            return False
    return False


def _route_path(scope: Scope) -> str:
    """The request path relative to the ASGI ``root_path`` (a mount or a proxy's prefix)."""
    path: str = scope.get("path", "")
    root = scope.get("root_path", "")
    if root and path.startswith(root + "/"):
        return path[len(root) :]
    return path


def _eligible(scope: Scope) -> bool:
    if scope["type"] != "http" or scope.get("method") != "GET":
        return False
    path = _route_path(scope)
    if not path.startswith(STATIC_PREFIX) or not path.endswith(SUFFIXES):
        return False
    headers = dict(scope.get("headers", ()))
    if _PASS_HEADERS.intersection(headers):
        return False
    return _accepts_gzip(headers.get(b"accept-encoding", b""))


class StaticGzipMiddleware:
    """Answer gzip-accepting ``GET``\\ s of ``/static/*.js|css`` with bytes compressed once.

    Args:
        app: the ASGI application to wrap (Streamlit's, through ``st.App(middleware=...)``).

    Attributes:
        compressions: how many files this instance has compressed (each at most once).

    Example:
        >>> from starlette.middleware import Middleware
        >>> st.App("app.py", middleware=[Middleware(StaticGzipMiddleware)])  # doctest: +SKIP
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.compressions = 0
        self._done: dict[str, _Compressed] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not _eligible(scope):
            await self.app(scope, receive, send)
            return
        path = _route_path(scope)
        done = self._done.get(path)
        if done is None:
            # One compression per path: a storm's concurrent first requests wait for it.
            lock = self._locks.setdefault(path, asyncio.Lock())
            async with lock:
                done = self._done.get(path)
                if done is None:
                    done = await self._fetch_and_compress(scope, receive, send)
                    if done is None:
                        return  # Streamlit's own answer went out unchanged
                    self._done[path] = done
                    self._locks.pop(path, None)
        await send({"type": "http.response.start", "status": 200, "headers": list(done.headers)})
        await send({"type": "http.response.body", "body": done.body})

    async def _fetch_and_compress(
        self, scope: Scope, receive: Receive, send: Send
    ) -> _Compressed | None:
        """Let Streamlit answer; compress a 200 identity answer, else forward it as it came."""
        start: Message | None = None
        chunks: list[bytes] = []
        passing = False

        async def capture(message: Message) -> None:
            nonlocal start, passing
            if message["type"] == "http.response.start":
                start = message
                headers = dict(message.get("headers", ()))
                passing = message["status"] != 200 or b"content-encoding" in headers
                if passing:
                    await send(message)
            elif passing:
                await send(message)
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        # Without the zero-copy extension the file's bytes come back as body messages.
        inner = dict(scope)
        extensions: dict[str, Any] = dict(scope.get("extensions") or {})
        extensions.pop("http.response.pathsend", None)
        inner["extensions"] = extensions
        await self.app(inner, receive, capture)
        if passing or start is None:
            return None
        body = await asyncio.to_thread(gzip.compress, b"".join(chunks), COMPRESS_LEVEL, mtime=0)
        self.compressions += 1
        headers = [(k, v) for k, v in start.get("headers", ()) if k.lower() not in _DROP_HEADERS]
        vary = [v for k, v in headers if k.lower() == b"vary"]
        headers = [(k, v) for k, v in headers if k.lower() != b"vary"]
        vary_value = b", ".join([*vary, b"Accept-Encoding"])
        headers += [
            (b"content-encoding", b"gzip"),
            (b"vary", vary_value),
            (b"content-length", str(len(body)).encode()),
        ]
        return _Compressed(tuple(headers), body)
