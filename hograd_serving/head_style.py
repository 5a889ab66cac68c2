"""In the head of every page Streamlit serves: icons hidden until their font is in, and a page
whose front end broke or stalled loaded again (``recover.js``).

Streamlit's icons are words in a font of ligatures (``keyboard_double_arrow_right``,
``login``). Until the font has come, a browser draws the words themselves: on a loaded host or
slow Wi-Fi a phone showed "ouble_arrow_right" over the sidebar's button and "loginJoin" on a
button. The app's own stylesheet hides them (hograd_ui/parts/a11y.py, the class
``hograd-icons`` its script sets once a face of the font has loaded), but that stylesheet
arrives with the first script run, after Streamlit has drawn its own chrome (the page list, the
sidebar's button). This middleware puts the same rule in the HTML itself, so no icon is ever
drawn as a word, from the first paint: the icons keep their room and show once the font is in.
The two copies of the rule are held equal by tests/serving/test_head_style.py (this layer
cannot import the UI's).

Only a ``GET`` whose answer is ``200`` ``text/html`` (Streamlit's one page, a few kilobytes) is
changed, and the browser's ``Accept-Encoding`` is dropped for the paths that can answer it (no
file suffix, not Streamlit's or hograd's endpoints), so that the page comes uncompressed and
the rule can be put before ``</head>``; every other request passes untouched. A plain ASGI
middleware, added through ``st.App(middleware=...)`` (hograd_serving/asgi.py); Community
Cloud's ``streamlit run app.py`` has only the app's stylesheet.
"""

from __future__ import annotations

from pathlib import Path

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .gzip_static import _route_path

__all__ = ["ICON_RULE", "RECOVER_JS", "HeadStyleMiddleware", "with_rule"]

#: The icons' words are transparent until the app's script marks the font as loaded.
ICON_RULE = (
    'html:not(.hograd-icons) [data-testid="stIconMaterial"] { color: transparent !important; }'
)
#: The script that loads a page again when Streamlit's front end breaks (``recover.js`` says
#: when and why); the app's own page component runs the same file (hograd_ui/parts/a11y.py).
RECOVER_JS = (Path(__file__).resolve().parent / "recover.js").read_text("utf-8")
_HEAD = f"<style>{ICON_RULE}</style><script>{RECOVER_JS}</script>".encode()
#: Prefixes of paths that never answer the page (files, websocket, health, media).
_NOT_PAGES = ("/_stcore/", "/_hograd/", "/static/", "/app/static/", "/media/", "/component/")


def with_rule(html: bytes) -> bytes:
    """``html`` with the rule's ``<style>`` and the recovery's ``<script>`` just before
    ``</head>`` (unchanged if it has none)."""
    at = html.find(b"</head>")
    return html if at < 0 else html[:at] + _HEAD + html[at:]


def _may_be_the_page(scope: Scope) -> bool:
    path = _route_path(scope)
    last = path.rsplit("/", 1)[-1]
    return scope.get("method") == "GET" and not path.startswith(_NOT_PAGES) and "." not in last


class HeadStyleMiddleware:
    """The icon rule in every page's head (see the module).

    Args:
        app: the ASGI application to wrap (Streamlit's, through ``st.App(middleware=...)``).
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not _may_be_the_page(scope):
            await self.app(scope, receive, send)
            return
        plain = [(k, v) for k, v in scope.get("headers", ()) if k.lower() != b"accept-encoding"]
        scope = {**scope, "headers": plain}
        start: Message | None = None
        body = bytearray()

        async def rewrite(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                headers = message.get("headers", ())
                page = message.get("status") == 200 and any(
                    k.lower() == b"content-type" and v.startswith(b"text/html") for k, v in headers
                )
                encoded = any(k.lower() == b"content-encoding" for k, _ in headers)
                if page and not encoded:
                    start = message  # held until the whole body is in
                    return
                await send(message)
                return
            if start is None or message["type"] != "http.response.body":
                await send(message)
                return
            body.extend(message.get("body", b""))
            if message.get("more_body", False):
                return
            html = with_rule(bytes(body))
            headers = [
                (k, v) for k, v in start.get("headers", ()) if k.lower() != b"content-length"
            ]
            headers.append((b"content-length", str(len(html)).encode()))
            await send({**start, "headers": headers})
            await send({"type": "http.response.body", "body": html})

        await self.app(scope, receive, rewrite)
