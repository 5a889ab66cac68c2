"""The teacher's key out of every log and out of the browser's history.

TeacherDoorMiddleware, called in-process as plain ASGI: a link with ``?key=`` is answered with
a redirect to the same address without it and an HttpOnly cookie holding the key's session
token (never the key); everything else reaches the app untouched (the oracle: the wrapped app
called alone). And haproxy, started with deploy/haproxy.cfg's own ``log-format`` in front of a
plain HTTP server, writes a request for ``/lesson?key=...`` without the key. The browser's
history is checked in tests/e2e/test_classroom_browser.py."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from hograd_serving.teacher_door import COOKIE, TeacherDoorMiddleware
from hograd_serving.teacher_key import session_token
from hograd_ui.parts.lesson_link import token_matches
from tests import aio

ROOT = Path(__file__).resolve().parents[2]
KEY = "s3cret-key_0123456789"


async def _app(scope, receive, send) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": [(b"x-app", b"1")]})
    await send({"type": "http.response.body", "body": b"page"})


def _call(method: str, path: str, query: str, **extra: object) -> list[dict]:
    sent: list[dict] = []

    async def send(message: dict) -> None:
        sent.append(message)

    async def receive() -> dict:
        return {"type": "http.request", "body": b""}

    scope = {
        "type": "http",
        "method": method,
        "path": path,
        "query_string": query.encode(),
        "headers": [],
        "root_path": "",
        **extra,
    }
    aio.run(TeacherDoorMiddleware(_app)(scope, receive, send))
    return sent


def _headers(message: dict) -> dict[str, str]:
    return {k.decode(): v.decode() for k, v in message["headers"]}


@pytest.mark.parametrize(
    ("query", "location", "given"),
    [
        (f"key={KEY}", "/lesson", KEY),
        (f"lang=zh&key={KEY}&step=3", "/lesson?lang=zh&step=3", KEY),
        ("teacher=1&lang=en", "/lesson?lang=en", ""),
        ("key=%E4%B8%AD%20x&key=other", "/lesson", "中 x"),
    ],
)
def test_a_key_in_a_link_becomes_a_cookie(query: str, location: str, given: str) -> None:
    start, body = _call("GET", "/lesson", query)
    assert start["status"] == 303 and body["body"] == b""
    headers = _headers(start)
    assert headers["location"] == location
    cookie = headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE}={session_token(given)};")
    assert {"HttpOnly", "SameSite=Strict", "Path=/"} <= {p.strip() for p in cookie.split(";")}
    assert "Secure" not in cookie and "Max-Age" not in cookie and "Expires" not in cookie
    assert headers["cache-control"] == "no-store"
    assert (given or "\0") not in headers["location"] + cookie  # the key itself nowhere
    assert token_matches(session_token(given), KEY) == (given == KEY)


def test_over_https_the_cookie_is_secure() -> None:
    start, _ = _call("GET", "/lesson", f"key={KEY}", scheme="https")
    assert "; Secure" in _headers(start)["set-cookie"]
    start, _ = _call("GET", "/lesson", f"key={KEY}", headers=[(b"x-forwarded-proto", b"https")])
    assert "; Secure" in _headers(start)["set-cookie"]


@pytest.mark.parametrize(
    ("method", "path", "query"),
    [
        ("POST", "/lesson", f"key={KEY}"),
        ("GET", "/_stcore/health", f"key={KEY}"),
        ("GET", "/static/js/index.js", f"key={KEY}"),
        ("GET", "/_stcore/stream", ""),
    ],
)
def test_streamlits_machinery_passes_through(method: str, path: str, query: str) -> None:
    sent = _call(method, path, query)
    assert sent[0]["status"] == 200 and _headers(sent[0]) == {"x-app": "1"}


@pytest.mark.parametrize("query", ["lang=en&step=2", "", "monkey=1&keys=2", "key=" + "x" * 5000])
def test_any_other_page_passes_through_untouched(query: str) -> None:
    """A page whose link holds no key (or a query too long to read) goes to the app as it is:
    no redirect, no cookie (the browser's id is serving_middleware's)."""
    sent = _call("GET", "/lesson", query)
    assert sent[0]["status"] == 200 and sent[1]["body"] == b"page"
    assert _headers(sent[0]) == {"x-app": "1"}


def test_a_token_is_not_the_key_and_tells_keys_apart() -> None:
    assert KEY not in session_token(KEY) and re.fullmatch(r"[0-9a-f]{64}", session_token(KEY))
    assert token_matches(session_token(KEY), KEY)
    for wrong in [session_token(KEY + "x"), KEY, "", "x" * 5000, session_token("")]:
        assert not token_matches(wrong, KEY)
    assert not token_matches(session_token(""), "")  # no server key opens nothing


# ---- haproxy's log ---------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Quiet(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # http.server's name
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args: object) -> None:
        pass


@pytest.mark.skipif(
    shutil.which("haproxy") is None and os.environ.get("CI") != "true",
    reason="haproxy is not installed",
)
def test_haproxy_logs_the_path_without_the_key(tmp_path: Path) -> None:
    cfg = (ROOT / "deploy" / "haproxy.cfg").read_text()
    [log_format] = re.findall(r"^\s*log-format .*$", cfg, flags=re.M)
    assert "option httplog" not in cfg  # httplog's own format logs the whole URI
    backend = ThreadingHTTPServer(("127.0.0.1", 0), _Quiet)
    threading.Thread(target=backend.serve_forever, daemon=True).start()
    port = _free_port()
    (tmp_path / "h.cfg").write_text(
        "global\n    log stdout format raw local0\n"
        "defaults\n    mode http\n    log global\n"
        f"{log_format}\n"
        "    timeout connect 5s\n    timeout client 5s\n    timeout server 5s\n"
        f"frontend f\n    bind 127.0.0.1:{port}\n    default_backend b\n"
        f"backend b\n    server s1 127.0.0.1:{backend.server_address[1]}\n"
    )
    log = tmp_path / "haproxy.log"
    with open(log, "w") as out:
        proxy = subprocess.Popen(
            ["haproxy", "-f", str(tmp_path / "h.cfg")], stdout=out, stderr=subprocess.STDOUT
        )
    try:
        url = f"http://127.0.0.1:{port}/lesson?lang=en&key={KEY}&seat=SEATSECRET"
        for _ in range(240):
            try:
                with urllib.request.urlopen(url, timeout=5) as resp:
                    assert resp.status == 200
                break
            except OSError:
                time.sleep(0.5)
        for _ in range(240):  # the line is written once the answer is sent
            if "GET /lesson" in log.read_text():
                break
            time.sleep(0.25)
    finally:
        proxy.terminate()
        proxy.wait(30)
        backend.shutdown()
        backend.server_close()
    text = log.read_text()
    assert "GET /lesson HTTP/1.1" in text
    assert KEY not in text and "SEATSECRET" not in text and "key=" not in text
