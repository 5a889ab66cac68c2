"""ServingMiddleware, called in-process as plain ASGI around a small app: the health endpoint
answers from memory (the wrapped app is never called for it), says "warming" until the warm-up
announces itself from this machine, and an HTML answer to a browser without the
``hograd_browser`` cookie sets one, only then."""

from __future__ import annotations

import re

import pytest

from hograd_serving import floor, gate, serving_middleware
from hograd_serving.serving_middleware import HEALTH_PATH, WAIT_ENV, WARMED_PATH, ServingMiddleware
from tests import aio


class _Page:
    """The wrapped app: an HTML page (or plain text under /_stcore/), counting its calls."""

    def __init__(self) -> None:
        self.calls = 0

    async def __call__(self, scope, receive, send) -> None:
        self.calls += 1
        kind = b"text/plain" if scope["path"].startswith("/_stcore/") else b"text/html"
        await send(
            {"type": "http.response.start", "status": 200, "headers": [(b"content-type", kind)]}
        )
        await send({"type": "http.response.body", "body": b"page"})


def call(
    app, path: str, method: str = "GET", cookie: str = "", client: str = "127.0.0.1"
) -> tuple[int, dict[bytes, list[bytes]], bytes]:
    """One request through ``app``: status, headers (name -> values), body."""
    scope = {
        "type": "http",
        "method": method,
        "path": path,
        "root_path": "",
        "headers": [(b"cookie", cookie.encode())] if cookie else [],
        "client": (client, 50000),
    }
    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    aio.run(app(scope, receive, send))
    headers: dict[bytes, list[bytes]] = {}
    for name, value in sent[0].get("headers", ()):
        headers.setdefault(name.lower(), []).append(value)
    return sent[0]["status"], headers, b"".join(m.get("body", b"") for m in sent[1:])


@pytest.fixture
def app(monkeypatch: pytest.MonkeyPatch) -> tuple[ServingMiddleware, _Page]:
    monkeypatch.setattr(serving_middleware, "_WARM", type(serving_middleware._WARM)())
    monkeypatch.delenv(WAIT_ENV, raising=False)
    page = _Page()
    return ServingMiddleware(page), page


def test_the_health_endpoint_answers_from_memory(app) -> None:
    middleware, page = app
    assert call(middleware, HEALTH_PATH)[::2] == (200, b"ok\n")
    assert call(middleware, HEALTH_PATH, "HEAD")[::2] == (200, b"")
    assert page.calls == 0  # never a script run, never Streamlit


def test_a_server_waiting_for_its_warm_up_says_warming_until_announced(
    app, monkeypatch: pytest.MonkeyPatch
) -> None:
    middleware, _ = app
    monkeypatch.setenv(WAIT_ENV, "1")
    status, _, body = call(middleware, HEALTH_PATH)
    assert status == 503 and body.startswith(b"warming")
    # only from this machine: a student behind no proxy cannot announce it
    assert call(middleware, WARMED_PATH, "POST", client="10.1.2.3")[0] == 403
    assert call(middleware, HEALTH_PATH)[0] == 503
    assert call(middleware, WARMED_PATH, "POST")[0] == 200
    assert call(middleware, HEALTH_PATH)[::2] == (200, b"ok\n")


def test_a_run_holding_the_floor_past_its_limit_is_reported(
    app, monkeypatch: pytest.MonkeyPatch
) -> None:
    middleware, _ = app
    now = [50.0]
    monkeypatch.setattr(floor, "_clock", lambda: now[0])
    with floor.script_slot():
        assert call(middleware, HEALTH_PATH)[0] == 200
        now[0] += floor.STUCK_SECONDS + 1
        status, _, body = call(middleware, HEALTH_PATH)
        assert status == 503 and body.startswith(b"stuck: one script run has held the floor")
    assert call(middleware, HEALTH_PATH)[0] == 200


COOKIE = re.compile(rb"hograd_browser=([0-9a-f]{32}); Path=/; Max-Age=\d+; HttpOnly; SameSite=Lax")


def test_a_page_sets_the_browser_cookie_once(app) -> None:
    middleware, page = app
    status, headers, body = call(middleware, "/derivatives")
    assert status == 200 and body == b"page"
    (value,) = headers[b"set-cookie"]
    first = COOKIE.fullmatch(value)
    assert first is not None
    _, again, _ = call(middleware, "/", cookie=f"a=1; hograd_browser={first[1].decode()}")
    assert b"set-cookie" not in again  # the browser keeps the one it has
    _, other, _ = call(middleware, "/")
    assert COOKIE.fullmatch(other[b"set-cookie"][0])[1] != first[1]  # a new browser, a new name
    assert b"set-cookie" not in call(middleware, "/_stcore/health")[1]  # not on plain text
    _, forged, _ = call(middleware, "/", cookie="hograd_browser=<script>")
    assert COOKIE.fullmatch(forged[b"set-cookie"][0])  # an invalid value is replaced
    assert page.calls == 5


def test_the_gate_reads_the_cookie_the_middleware_sets() -> None:
    assert gate.BROWSER_COOKIE == "hograd_browser"
    assert gate._BROWSER_VALUE.pattern == "[0-9a-f]{32}"
