"""hograd_serving/server_fixes.py: Streamlit's static handler, wrapped, answers bundles gzipped from memory.

The handler is Streamlit's own (``create_streamlit_static_handler`` on a temporary folder), driven
through ASGI as uvicorn drives it, so what is checked is what a browser receives: the same
bytes after decompression, the same caching headers, and every other kind of request left as
Streamlit answers it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import gzip
from pathlib import Path

import pytest
from streamlit.web.server.starlette.starlette_static_routes import create_streamlit_static_handler

from hograd_serving import server_fixes as _serving

BUNDLE = ("const answer = 42; // " + "d2f/dx2 " * 4000).encode()  # compressible, like JS


def _request(app, path: str, headers: dict[str, str], method: str = "GET"):
    scope = {
        "type": "http", "method": method, "path": path, "raw_path": path.encode(),
        "root_path": "", "query_string": b"", "scheme": "http", "http_version": "1.1",
        "server": ("127.0.0.1", 80), "client": ("127.0.0.1", 5),
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
    }  # fmt: skip
    sent: list[dict] = []
    asked: list[int] = []

    async def receive() -> dict:  # the request, then a client that stays connected
        asked.append(1)
        if len(asked) > 1:
            await asyncio.sleep(3600)
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    # In a thread of its own: a browser test that ran before may leave this thread's event
    # loop running (Playwright's sync API), and asyncio.run() refuses to start in it.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, app(scope, receive, send)).result()
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    head = {k.decode(): v.decode() for k, v in start["headers"]}
    return start["status"], head, body


@pytest.fixture
def handlers(tmp_path: Path):
    (tmp_path / "static" / "js").mkdir(parents=True)
    (tmp_path / "static" / "js" / "index.Ab12Cd34.js").write_bytes(BUNDLE)
    (tmp_path / "index.html").write_text("<html><script src='./static/js/index.Ab12Cd34.js'>")
    plain = create_streamlit_static_handler(str(tmp_path), None)
    wrapped = create_streamlit_static_handler(str(tmp_path), None)  # a class of its own
    _serving.gzip_static_class(type(wrapped))
    _serving._ZIPPED.clear()
    return plain, wrapped


def test_a_bundle_is_sent_gzipped_with_the_same_bytes_and_headers(handlers) -> None:
    plain, wrapped = handlers
    path = "/static/js/index.Ab12Cd34.js"
    status0, head0, body0 = _request(plain, path, {"Accept-Encoding": "gzip, deflate, br"})
    status, head, body = _request(wrapped, path, {"Accept-Encoding": "gzip, deflate, br"})
    assert status0 == status == 200
    assert body0 == BUNDLE and "content-encoding" not in head0  # Streamlit's own answer
    assert head["content-encoding"] == "gzip" and head["vary"] == "Accept-Encoding"
    assert gzip.decompress(body) == BUNDLE
    assert int(head["content-length"]) == len(body) < len(BUNDLE) / 10
    for name in ("cache-control", "etag", "last-modified", "content-type"):
        assert head[name] == head0[name], name
    assert "immutable" in head["cache-control"]
    # compressed once, then served from memory
    assert len(_serving._ZIPPED) == 1
    assert _request(wrapped, path, {"Accept-Encoding": "gzip"})[2] == body


@pytest.mark.parametrize(
    ("path", "headers", "method"),
    [
        ("/static/js/index.Ab12Cd34.js", {}, "GET"),  # no gzip offered
        ("/static/js/index.Ab12Cd34.js", {"Accept-Encoding": "br"}, "GET"),
        ("/static/js/index.Ab12Cd34.js", {"Accept-Encoding": "gzip", "Range": "bytes=0-9"}, "GET"),
        ("/static/js/index.Ab12Cd34.js", {"Accept-Encoding": "gzip"}, "HEAD"),
        ("/", {"Accept-Encoding": "gzip"}, "GET"),  # HTML is no-cache: left alone
        ("/derivatives", {"Accept-Encoding": "gzip"}, "GET"),  # a page: index.html
        ("/static/js/missing.js", {"Accept-Encoding": "gzip"}, "GET"),
    ],
)
def test_everything_else_is_answered_as_streamlit_answers_it(handlers, path, headers, method):
    plain, wrapped = handlers
    assert _request(wrapped, path, headers, method) == _request(plain, path, headers, method)
    assert not _serving._ZIPPED


def test_a_conditional_request_still_gets_304(handlers) -> None:
    _, wrapped = handlers
    path = "/static/js/index.Ab12Cd34.js"
    _, head, _ = _request(wrapped, path, {"Accept-Encoding": "gzip"})
    status, _, body = _request(
        wrapped, path, {"Accept-Encoding": "gzip", "If-None-Match": head["etag"]}
    )
    assert status == 304 and body == b""


def test_the_running_servers_handler_is_found_and_wrapped_once() -> None:
    """serve_static_gzipped finds Streamlit's handler among live objects, as in the app."""
    handler = create_streamlit_static_handler(".", None)
    cls = type(handler)
    _serving._STATIC_DONE.clear()
    try:
        _serving.serve_static_gzipped()
        wrapped = cls.get_response
        assert getattr(cls, _serving._PATCHED) and _serving.static_gzipped()
        _serving._STATIC_DONE.clear()
        _serving.serve_static_gzipped()  # a second pass leaves the wrapper as it is
        assert cls.get_response is wrapped
    finally:
        _serving._STATIC_DONE.set()
