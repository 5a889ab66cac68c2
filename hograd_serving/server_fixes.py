"""Server plumbing app.py applies: the front end's bundles served gzipped from memory, short
turns on the interpreter lock (both once per process). How many script runs execute at once
is :mod:`.floor`'s.

Static bundles: every browser that opens the app for the first time downloads about 2.2 MB of
JavaScript and CSS. Streamlit 1.67 serves them uncompressed, on purpose: compressing at the
origin on every request would burn CPU, and it expects a caching proxy or CDN in front. A
school server seldom has one, and at the start of a lecture fifty browsers ask at once: the
one process that also runs every script then reads and sends 110 MB in 64 KB chunks, one
thread hop each. :func:`serve_static_gzipped` compresses each content-hashed bundle once,
keeps the result in memory (about a quarter of the size; only the files browsers ask for),
and answers a browser that accepts gzip with it in one piece. Everything else (HTML, Range
and HEAD requests, conditional requests, clients without gzip) is answered as before.

Interpreter lock: every session's script runs in a thread of this one process, and so does
the event loop that sends their messages. A thread that wants the lock while another computes
in Python waits for the other's turn to end: 5 ms by default (``sys.getswitchinterval``).
A rerun that needs nothing heavy still takes the lock back hundreds of times (after every
message it sends, every torch call that released it), so behind a busy neighbour it paid
those 5 ms again and again. :func:`shorten_interpreter_turns` makes a turn 0.5 ms: Python's
own switching costs a little more, and a light rerun no longer queues behind a heavy one.
docs/performance.md has the measurements behind each of these fixes.
"""

from __future__ import annotations

import gc
import gzip
import os
import sys
import threading
from typing import Any

import anyio.to_thread
from starlette.responses import FileResponse, Response
from starlette.staticfiles import StaticFiles

__all__ = [
    "INTERPRETER_TURN_SECONDS", "gzip_static_class", "serve_static_gzipped",
    "shorten_interpreter_turns", "static_gzipped",
]  # fmt: skip


# ---- static bundles, gzipped once -------------------------------------------------------------

_ZIPPED: dict[tuple[str, int, int], bytes] = {}  # (path, mtime, size) -> gzip body
_ZIP_LOCK = threading.Lock()  # fifty first requests for one file compress it once
_PATCHED = "_hograd_gzip"  # marks a class whose get_response is wrapped


def _gzipped(path: str, stat: os.stat_result) -> bytes:
    key = (path, stat.st_mtime_ns, stat.st_size)
    body = _ZIPPED.get(key)
    if body is None:
        with _ZIP_LOCK:
            body = _ZIPPED.get(key)
            if body is None:
                with open(path, "rb") as f:
                    body = gzip.compress(f.read(), compresslevel=6, mtime=0)
                _ZIPPED[key] = body
    return body


def _accepts_gzip(scope: Any) -> bool:
    headers = dict(scope.get("headers") or ())
    if b"range" in headers:
        return False
    return any(
        part.split(b";")[0].strip() == b"gzip"
        for part in headers.get(b"accept-encoding", b"").lower().split(b",")
    )


def _gzip_headers(response: Any, scope: Any) -> dict[str, str] | None:
    """The headers of a gzipped answer for a content-hashed bundle, or None to keep
    ``response`` as it is."""
    if not (
        isinstance(response, FileResponse)
        and response.status_code == 200
        and scope.get("method") == "GET"
        and "immutable" in response.headers.get("cache-control", "")  # a hashed bundle
        and response.stat_result is not None
        and _accepts_gzip(scope)
    ):
        return None
    headers = {k: v for k, v in response.headers.items() if k != "content-length"}
    headers["content-encoding"] = "gzip"
    headers["vary"] = "Accept-Encoding"
    return headers


def gzip_static_class(cls: type) -> None:
    """Wrap ``cls.get_response`` (a starlette StaticFiles subclass) as described above."""
    if getattr(cls, _PATCHED, False):
        return
    original = cls.get_response

    async def get_response(self: Any, path: str, scope: Any) -> Any:
        response = await original(self, path, scope)
        headers = _gzip_headers(response, scope)
        if headers is None:
            return response
        stat = response.stat_result
        body = _ZIPPED.get((response.path, stat.st_mtime_ns, stat.st_size))
        if body is None:  # the first request for this file: compress it off the event loop
            body = await anyio.to_thread.run_sync(_gzipped, response.path, stat)
        return Response(body, status_code=200, headers=headers)

    cls.get_response = get_response  # type: ignore[method-assign]
    setattr(cls, _PATCHED, True)


def static_gzipped() -> bool:
    """Whether this process's Streamlit static handler serves gzipped bundles from memory."""
    return any(
        getattr(type(obj), _PATCHED, False)
        for obj in gc.get_objects()
        if issubclass(type(obj), StaticFiles)
    )


_STATIC_DONE = threading.Event()


def serve_static_gzipped() -> None:
    """Find Streamlit's static handler in this process and wrap it (once per process)."""
    if _STATIC_DONE.is_set():
        return
    for obj in gc.get_objects():
        cls = type(obj)  # not isinstance(): some of torch's deprecated proxies warn on __class__
        if issubclass(cls, StaticFiles) and cls.__name__ == "_StreamlitStaticFiles":
            gzip_static_class(cls)
    _STATIC_DONE.set()


#: The longest turn a thread computing in Python keeps the interpreter lock while another
#: thread waits for it (Python's default is 0.005 s; see the module's docstring).
INTERPRETER_TURN_SECONDS = 0.0005


def shorten_interpreter_turns() -> None:
    """Make a turn on the interpreter lock ``INTERPRETER_TURN_SECONDS`` for this process."""
    sys.setswitchinterval(INTERPRETER_TURN_SECONDS)
