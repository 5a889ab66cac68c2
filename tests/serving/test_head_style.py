"""HeadStyleMiddleware, called in-process as plain ASGI around small apps that answer as
Streamlit does (its page in one or several body messages, gzipped when asked, files, 404s).

The oracle is the wrapped app called directly: what the middleware must not touch arrives as
the app sent it, and the page arrives as the app's bytes with the rule's ``<style>`` before
``</head>``, its Content-Length the length of what was sent. The real server's page is checked
by tests/e2e/test_accessibility_browser.py (the icons hidden before any script run).
"""

from __future__ import annotations

import gzip

import pytest

from hograd_serving.head_style import ICON_RULE, RECOVER_JS, HeadStyleMiddleware, with_rule
from tests import aio
from tests.serving.test_gzip_static import _body, _call, _headers, _scope

PAGE = (
    b"<!doctype html><html><head><title>Streamlit</title>"
    b'<script src="./static/js/index.js"></script></head><body><div id="root"></div></body></html>'
)


class _Page:
    """Answers every request as Streamlit's page route does: 200 text/html, in ``parts``
    body messages, gzipped when the request accepts gzip; it keeps the headers it was sent."""

    def __init__(self, parts: int = 1, status: int = 200, kind: bytes = b"text/html") -> None:
        self.parts, self.status, self.kind, self.seen = parts, status, kind, []

    async def __call__(self, scope, receive, send) -> None:
        headers = dict(scope["headers"])
        self.seen.append(headers)
        body, extra = PAGE, []
        if b"gzip" in headers.get(b"accept-encoding", b""):
            body, extra = gzip.compress(PAGE), [(b"content-encoding", b"gzip")]
        start = [(b"content-type", self.kind + b"; charset=utf-8"), *extra]
        start.append((b"content-length", str(len(body)).encode()))
        await send({"type": "http.response.start", "status": self.status, "headers": start})
        step = -(-len(body) // self.parts)
        for i in range(self.parts):
            chunk = body[i * step : (i + 1) * step]
            more = i < self.parts - 1
            await send({"type": "http.response.body", "body": chunk, "more_body": more})


def _run(app, path: str, headers: dict[str, str] | None = None, method: str = "GET"):
    return aio.run(_call(app, _scope(path, headers, method)))


@pytest.mark.parametrize("parts", [1, 3])
@pytest.mark.parametrize("path", ["/", "/derivatives", "/hvp"])
def test_the_page_carries_the_icon_rule_in_its_head(path, parts) -> None:
    inner = _Page(parts)
    sent = _run(HeadStyleMiddleware(inner), path, {"Accept-Encoding": "gzip, br"})
    body = _body(sent)
    head, _, rest = body.partition(b"</head>")
    added = f"<style>{ICON_RULE}</style><script>{RECOVER_JS}</script>".encode()
    assert head.endswith(added)
    assert body.replace(added, b"") == PAGE  # nothing else
    assert int(_headers(sent)[b"content-length"]) == len(body)
    assert b"accept-encoding" not in inner.seen[0]  # asked plain, so the head can be read
    assert sent[0]["status"] == 200 and rest


@pytest.mark.parametrize(
    "path,method,app",
    [
        ("/static/js/index.js", "GET", _Page()),  # a file
        ("/_stcore/health", "GET", _Page()),
        ("/app/static/logo.png", "GET", _Page()),
        ("/favicon.png", "GET", _Page()),
        ("/", "HEAD", _Page()),
        ("/", "POST", _Page()),
    ],
)
def test_everything_else_passes_as_the_app_sent_it(path, method, app) -> None:
    direct = _run(app, path, {"Accept-Encoding": "gzip"}, method)
    wrapped = _run(HeadStyleMiddleware(app), path, {"Accept-Encoding": "gzip"}, method)
    assert wrapped == direct


@pytest.mark.parametrize("app", [_Page(status=404), _Page(kind=b"application/json")])
def test_another_answer_on_a_pages_path_comes_plain_and_unchanged(app) -> None:
    """A page's path is asked without Accept-Encoding; what is not the page passes as the app
    answers such a request."""
    wrapped = _run(HeadStyleMiddleware(app), "/nowhere", {"Accept-Encoding": "gzip"})
    assert wrapped == _run(app, "/nowhere")


def test_a_gzipped_page_is_left_as_it_came() -> None:
    """Were the browser's Accept-Encoding kept by something before us, the page comes gzipped:
    it passes untouched (the app's stylesheet still hides the icons after its first run)."""

    class _Gzipping(_Page):
        async def __call__(self, scope, receive, send) -> None:
            scope = {**scope, "headers": [*scope["headers"], (b"accept-encoding", b"gzip")]}
            await super().__call__(scope, receive, send)

    app = _Gzipping()
    sent = _run(HeadStyleMiddleware(app), "/")
    assert gzip.decompress(_body(sent)) == PAGE
    assert sent == _run(app, "/")


def test_the_rule_is_the_apps_own() -> None:
    """The app's stylesheet (drawn by every run: Community Cloud's ``streamlit run app.py`` has
    no middleware) holds the same rule; the serving layer cannot import the UI's, so it is
    written twice and held equal here (the home page's module count stays)."""
    from hograd_ui.parts.a11y import CSS

    assert ICON_RULE.replace("{", "{{").replace("}", "}}") not in CSS  # filled, not a template
    assert ICON_RULE in CSS


def test_a_page_without_a_head_is_unchanged() -> None:
    assert with_rule(b"<p>no head</p>") == b"<p>no head</p>"
    assert with_rule(b"<head></head>").startswith(b"<head><style>")
