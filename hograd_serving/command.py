"""The one command that starts the app's server, as ``make run`` does (the Makefile and the
Dockerfile spell it in their own languages): the replicas (deploy/replicas.py), the load
benchmark and the browser and health tests start theirs with :func:`server_command`."""

from __future__ import annotations

import sys

__all__ = ["SCRIPT", "server_command"]

#: app.py served through hograd_serving/asgi.py (Streamlit's public st.App, with the static
#: bundles gzipped once); run from the project's folder.
SCRIPT = "hograd_serving/asgi.py"


def server_command(port: int, script: str = SCRIPT) -> list[str]:
    """``make run``'s server on the loopback port ``port``, running ``script`` (another one
    for experiments); start it from the project's folder."""
    return [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        script,
        "--server.port",
        str(port),
        "--server.address",
        "127.0.0.1",
        "--server.headless",
        "true",
    ]
