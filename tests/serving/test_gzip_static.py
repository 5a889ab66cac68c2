"""StaticGzipMiddleware, called in-process as plain ASGI around Starlette's StaticFiles.

The oracle is the wrapped app called directly: a request the middleware must not touch gets
exactly the messages the app alone sends, and a gzipped answer decompresses (with Python's
gzip, independent of how it was made) to the file's bytes on disk.
"""

from __future__ import annotations

import asyncio
import gzip
from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

from hograd_serving.gzip_static import StaticGzipMiddleware
from tests import aio

BUNDLE = "/static/js/index.Ab12Cd34.js"
STYLE = "/static/css/index.Ef56Gh78.css"


class _Counting:
    """The wrapped app, counting its calls."""

    def __init__(self, app) -> None:
        self.app, self.calls = app, 0

    async def __call__(self, scope, receive, send) -> None:
        self.calls += 1
        await self.app(scope, receive, send)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, bytes]:
    contents = {
        BUNDLE: b"".join(b"function f%d(x){return x*%d}\n" % (i, i) for i in range(4000)),
        STYLE: b".a{color:red}\n" * 3000,
        "/static/media/logo.png": bytes(range(256)) * 40,
        "/static/index.html": b"<html>" + b"<p>hi</p>" * 500 + b"</html>",
    }
    for url, data in contents.items():
        path = tmp_path / url.removeprefix("/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return contents


@pytest.fixture
def inner(files, tmp_path: Path) -> _Counting:
    return _Counting(
        Starlette(routes=[Mount("/static", StaticFiles(directory=tmp_path / "static"))])
    )


def _scope(path: str, headers: dict[str, str] | None = None, method: str = "GET") -> dict:
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "server": ("127.0.0.1", 8501),
        "client": ("127.0.0.1", 5000),
        "headers": [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()],
    }


async def _call(app, scope: dict) -> list[dict]:
    sent: list[dict] = []
    requested = False

    async def receive() -> dict:  # the request once, then a client that stays connected
        nonlocal requested
        if requested:
            await asyncio.Event().wait()
        requested = True
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    await app(scope, receive, send)
    return sent


def _run(app, path, headers=None, method="GET") -> list[dict]:
    return aio.run(_call(app, _scope(path, headers, method)))


def _headers(messages: list[dict]) -> dict[bytes, bytes]:
    return dict(messages[0]["headers"])


def _body(messages: list[dict]) -> bytes:
    return b"".join(m.get("body", b"") for m in messages if m["type"] == "http.response.body")


@pytest.mark.parametrize("path", [BUNDLE, STYLE])
@pytest.mark.parametrize("accept", ["gzip", "gzip, deflate, br, zstd", "br;q=1.0, gzip;q=0.8"])
def test_a_bundle_is_gzipped_when_the_client_accepts_it(inner, files, path, accept) -> None:
    sent = _run(StaticGzipMiddleware(inner), path, {"Accept-Encoding": accept})
    headers = _headers(sent)
    assert sent[0]["status"] == 200
    assert headers[b"content-encoding"] == b"gzip"
    assert b"accept-encoding" in headers[b"vary"].lower()
    assert int(headers[b"content-length"]) == len(_body(sent))
    assert len(_body(sent)) < len(files[path]) / 3  # the point of it
    assert gzip.decompress(_body(sent)) == files[path]
    direct = _headers(aio.run(_call(inner, _scope(path))))
    assert headers[b"content-type"] == direct[b"content-type"]
    assert b"etag" not in headers  # the file's ETag names the uncompressed bytes


def test_each_file_is_compressed_once_and_then_served_from_memory(inner, files) -> None:
    mw = StaticGzipMiddleware(inner)

    async def storm() -> list[list[dict]]:
        scopes = [_scope(p, {"Accept-Encoding": "gzip"}) for p in [BUNDLE] * 20 + [STYLE] * 20]
        return await asyncio.gather(*(_call(mw, s) for s in scopes))

    answers = aio.run(storm())  # concurrent first requests wait for one compression
    answers += [_run(mw, BUNDLE, {"Accept-Encoding": "gzip"}) for _ in range(5)]
    assert mw.compressions == 2
    assert inner.calls == 2  # later requests never reach the wrapped app
    for sent in answers:
        path = BUNDLE if len(gzip.decompress(_body(sent))) == len(files[BUNDLE]) else STYLE
        assert gzip.decompress(_body(sent)) == files[path]


@pytest.mark.parametrize(
    ("path", "headers", "method"),
    [
        (BUNDLE, {}, "GET"),  # no Accept-Encoding
        (BUNDLE, {"Accept-Encoding": "identity"}, "GET"),
        (BUNDLE, {"Accept-Encoding": "gzip;q=0, br"}, "GET"),
        (BUNDLE, {"Accept-Encoding": "gzip"}, "HEAD"),
        (BUNDLE, {"Accept-Encoding": "gzip", "Range": "bytes=0-99"}, "GET"),
        (BUNDLE, {"Accept-Encoding": "gzip", "Range": "bytes=100-"}, "GET"),
        (
            BUNDLE,
            {"Accept-Encoding": "gzip", "If-Modified-Since": "Fri, 01 Jan 2100 00:00:00 GMT"},
            "GET",
        ),
        ("/static/media/logo.png", {"Accept-Encoding": "gzip"}, "GET"),
        ("/static/index.html", {"Accept-Encoding": "gzip"}, "GET"),
        ("/static/js/missing.Zz99.js", {"Accept-Encoding": "gzip"}, "GET"),  # a 404
        ("/_stcore/health", {"Accept-Encoding": "gzip"}, "GET"),
        ("/app/static/plotly.js", {"Accept-Encoding": "gzip"}, "GET"),
    ],
)
def test_everything_else_passes_through_unchanged(inner, path, headers, method) -> None:
    mw = StaticGzipMiddleware(inner)
    through = _run(mw, path, headers, method)
    alone = _run(inner, path, headers, method)
    assert through == alone
    assert mw.compressions == 0


def test_a_conditional_request_with_the_etag_passes_through(inner) -> None:
    etag = _headers(_run(inner, BUNDLE))[b"etag"].decode()
    mw = StaticGzipMiddleware(inner)
    _run(mw, BUNDLE, {"Accept-Encoding": "gzip"})  # cached first
    through = _run(mw, BUNDLE, {"Accept-Encoding": "gzip", "If-None-Match": etag})
    assert through[0]["status"] == 304
    assert through == _run(inner, BUNDLE, {"Accept-Encoding": "gzip", "If-None-Match": etag})


def test_an_answer_already_encoded_passes_through() -> None:
    async def encoded(scope, receive, send) -> None:
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-encoding", b"br"), (b"content-type", b"text/javascript")],
            }
        )
        await send({"type": "http.response.body", "body": b"not really brotli"})

    mw = StaticGzipMiddleware(encoded)
    sent = _run(mw, BUNDLE, {"Accept-Encoding": "gzip, br"})
    assert sent == _run(encoded, BUNDLE, {"Accept-Encoding": "gzip, br"})
    assert mw.compressions == 0


def test_websockets_and_lifespan_reach_the_app_untouched() -> None:
    seen: list[dict] = []

    async def app(scope, receive, send) -> None:
        seen.append(scope)

    mw = StaticGzipMiddleware(app)
    for scope in (
        {"type": "websocket", "path": BUNDLE, "headers": [(b"accept-encoding", b"gzip")]},
        {"type": "lifespan"},
    ):
        aio.run(mw(scope, None, None))  # type: ignore[arg-type]
    assert [s["type"] for s in seen] == ["websocket", "lifespan"]
    assert seen[0]["path"] == BUNDLE
    assert mw.compressions == 0
