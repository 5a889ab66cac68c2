"""The server's entry: app.py served through Streamlit's public ASGI app, with our middleware.

Run it from the project's folder, as ``make run`` does::

    python -m streamlit run hograd_serving/asgi.py --server.port 8501

``streamlit run`` finds ``app`` below, an ``st.App``, and serves it with uvicorn; app.py stays
the Streamlit script (every page, the navigation, Community Cloud's ``streamlit run app.py``).
Four middlewares are added: :class:`~hograd_serving.gzip_static.StaticGzipMiddleware`
(Streamlit's static bundles gzipped once per process, so a storm of new browsers downloads a
third of the bytes without compressing them again per visit) and
:class:`~hograd_serving.serving_middleware.ServingMiddleware` (the cheap health endpoint
``/_hograd/health`` a proxy asks, the warm-up's announcement, the cookie that names a browser)
and :class:`~hograd_serving.teacher_door.TeacherDoorMiddleware` (the teacher's ``?key=``
exchanged once for an HttpOnly cookie, so that it stays out of the browser's history) and
:class:`~hograd_serving.head_style.HeadStyleMiddleware` (the rule that hides icons' words
until their font has come, in the page's own HTML, from the first paint).

Note:
    Streamlit reads ``.streamlit/config.toml`` and ``.streamlit/secrets.toml`` from the current
    folder and from the folder of the file it runs; this file's folder has none, so start it
    from the project's folder (make, the Dockerfile, deploy/replicas.py and the tests do).
"""

from __future__ import annotations

import sys
from pathlib import Path

import streamlit as st
from starlette.middleware import Middleware

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `streamlit run` put this file's folder first, not the project's
    sys.path.insert(1, str(ROOT))

from hograd_serving.gzip_static import StaticGzipMiddleware  # noqa: E402
from hograd_serving.head_style import HeadStyleMiddleware  # noqa: E402
from hograd_serving.serving_middleware import ServingMiddleware  # noqa: E402
from hograd_serving.teacher_door import TeacherDoorMiddleware  # noqa: E402

__all__ = ["app"]

app = st.App(
    ROOT / "app.py",
    middleware=[
        Middleware(ServingMiddleware),
        Middleware(StaticGzipMiddleware),
        Middleware(TeacherDoorMiddleware),
        Middleware(HeadStyleMiddleware),
    ],
)
