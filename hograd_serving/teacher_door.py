"""The teacher's key out of the address: ``?key=`` exchanged once for an HttpOnly cookie.

A lecturer opens ``/lesson?key=...`` (the link ``make run`` prints). Were the page served at
that address, the key would stay behind the Back button of the lecture-hall PC: Streamlit's
front end moves on with ``history.pushState``, which leaves the entry it started from. This
middleware answers such a request before Streamlit sees it with ``303 See Other`` to the same
address without ``key`` (and without the old ``teacher``) and a cookie, :data:`COOKIE`, that
holds :func:`~hograd_serving.teacher_key.session_token` of the key given, never the key
itself. A redirect replaces the history entry it came from, so the browser's history holds
only the address without the key. The cookie is ``HttpOnly`` (no script of the page reads it),
``SameSite=Strict``, ``Path=/``, without an expiry (gone when the browser closes) and
``Secure`` over HTTPS. The lesson's page reads it from the session's websocket request
(``st.context.cookies``, hograd_ui/parts/lesson_state.py) and compares it with the server's
key in constant time, as it compares a key from the link.

The middleware does not judge the key: a wrong one is exchanged the same way, and the page
says what it says of any wrong key. Only a plain ``GET`` or ``HEAD`` of a page (not
``/_stcore/``, ``/static/``, ``/media/``, ``/app/static/``) whose query names ``key`` or
``teacher`` is answered here. Everything else passes through untouched (the cookie that names
a browser is :mod:`.serving_middleware`'s).

Logs: uvicorn's access log is off in Streamlit's server; haproxy logs the path without its
query string (deploy/haproxy.cfg's ``log-format``), so the key that reached the proxy is not
written down either.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode

from starlette.types import ASGIApp, Receive, Scope, Send

from . import TEACHER_COOKIE
from .teacher_key import session_token

__all__ = ["COOKIE", "TeacherDoorMiddleware"]

#: the cookie that holds the session token of the key a lecturer's link gave
COOKIE = TEACHER_COOKIE
#: the link's parameters that ask for the teacher's version
KEY_PARAMS = ("key", "teacher")
#: paths of Streamlit's machinery, never a page a lecturer's link opens
SKIP = ("/_stcore/", "/static/", "/media/", "/app/static/", "/component/")
MAX_QUERY = 4096  # bytes of a query string read at all (a longer one passes through)


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return value.decode("latin-1")
    return ""


class TeacherDoorMiddleware:
    """``GET /page?key=K&rest`` -> ``303`` to ``/page?rest`` with the cookie of ``K``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "/")
        if (
            scope["type"] != "http"
            or scope.get("method") not in ("GET", "HEAD")
            or path.startswith(SKIP)
        ):
            return await self.app(scope, receive, send)
        raw = scope.get("query_string", b"")
        https = scope.get("scheme") == "https" or _header(scope, b"x-forwarded-proto") == "https"
        pairs = parse_qsl(raw.decode("latin-1"), keep_blank_values=True)
        asked = len(raw) <= MAX_QUERY and any(name in KEY_PARAMS for name, _ in pairs)
        if not asked:
            return await self.app(scope, receive, send)
        given = next((value for name, value in pairs if name == "key"), "")
        rest = urlencode([(name, value) for name, value in pairs if name not in KEY_PARAMS])
        root = scope.get("root_path", "")
        location = f"{root}{path}" + (f"?{rest}" if rest else "")
        cookie = f"{COOKIE}={session_token(given)}; Path=/; HttpOnly; SameSite=Strict"
        headers = [
            (b"location", location.encode("latin-1")),
            (b"set-cookie", (cookie + ("; Secure" if https else "")).encode("latin-1")),
            (b"cache-control", b"no-store"),
            (b"referrer-policy", b"no-referrer"),
            (b"content-length", b"0"),
        ]
        await send({"type": "http.response.start", "status": 303, "headers": headers})
        await send({"type": "http.response.body", "body": b""})
