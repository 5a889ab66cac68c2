"""An honest health probe: can this server still serve a class?

``/_stcore/health`` is answered by the server's event loop, which keeps answering while every
script run waits: on a lock held by one student's endless computation, say. A proxy, Docker or
Kubernetes that checks only that endpoint keeps sending students to a replica that shows them
nothing but a spinner. This probe asks two questions, the second only when asked to:

1. ``GET /_hograd/health``, the server's own answer (:mod:`.serving_middleware`, answered in
   memory): 200 unless it is still warming up or stuck (every heavy-work slot's worth of
   computations still running past their deadline, or a script run holding the floor);
   otherwise 503 and the reason, which the probe repeats. This part is cheap: a proxy asks the
   endpoint itself (deploy/haproxy.cfg), and ``--endpoint-only`` is this much alone;
2. does what a browser does: ``GET /_stcore/health`` (which also sets the XSRF cookie), opens
   the websocket ``/_stcore/stream`` with that cookie, asks for one run of the default page
   (``BackMsg.rerun_script``), waits for its ``script_finished`` and closes the websocket, so
   the server ends the session.

It exits 0 only when both passed within ``--timeout`` seconds; otherwise 1, with one line on
stderr saying why. It needs only what the app's runtime already has (``websockets``, which
Streamlit serves with, and Streamlit's protobuf messages, imported only for the second part)::

    python -m hograd_serving.health http://127.0.0.1:8501 --timeout 10

Note:
    The second part is one short session: the server runs the home page once (a few
    milliseconds on a warm server) and, once the socket is closed, keeps the session for a
    possible reconnect for up to 2 minutes, as for any closed tab (Streamlit's own rule), so
    run it every few seconds, not many times a second. Started as a fresh Python process, the
    whole probe costs about 0.7 CPU seconds (importing Streamlit's messages), ``--endpoint-only``
    about 0.05 (docs/deploy.md has the measurements).

``--kill-after N --pid-file F`` (compose.yaml's health check): after N failed probes in a row,
kill the process whose id is in F, so that the container exits and its restart policy starts
a fresh one (Docker's restart policy does not act on "unhealthy"). ``--warming-ok``: a server
still warming up passes (it is not stuck; a liveness check must not kill it).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from http.cookies import SimpleCookie
from pathlib import Path

__all__ = ["ENDPOINT", "main", "probe"]

XSRF_COOKIE = "_streamlit_xsrf"
#: The server's own answer (hograd_serving.serving_middleware.HEALTH_PATH; not imported from
#: there, so that ``--endpoint-only`` imports nothing but the standard library).
ENDPOINT = "/_hograd/health"


#: How the probe's reason starts when the server is still warming up.
WARMING = f"{ENDPOINT} answered 503: warming"


def _endpoint(url: str, timeout: float) -> str | None:
    """The server's own answer: None when it says ok, else why not."""
    try:
        with urllib.request.urlopen(f"{url}{ENDPOINT}", timeout=timeout) as resp:
            text = resp.read(500).decode(errors="replace").strip()
            return None if text == "ok" else f"{ENDPOINT}: unexpected answer {text[:80]!r}"
    except urllib.error.HTTPError as err:
        reason = err.read(500).decode(errors="replace").strip()
        return f"{ENDPOINT} answered {err.code}: {reason}"
    except (OSError, ValueError) as err:  # refused, reset, timed out
        return f"{ENDPOINT} failed: {err}"


def _rerun_message(url: str) -> bytes:
    """The BackMsg a browser sends to run the default page."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    msg = BackMsg()
    cs = msg.rerun_script
    cs.page_name, cs.page_script_hash = "", ""
    ci = cs.context_info
    ci.timezone, ci.timezone_offset, ci.locale, ci.url = "UTC", 0, "en-US", f"{url}/"
    return msg.SerializeToString()


def _run_once(url: str, timeout: float, deadline: float) -> str | None:
    """One script run by ``deadline`` (time.monotonic); None when the run finished, else the
    reason it failed (``timeout``: the whole probe's seconds, for the message)."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
    from websockets.exceptions import ConnectionClosed, WebSocketException
    from websockets.sync.client import connect
    from websockets.typing import Subprotocol

    #: Ends of a run other than a success (a rerun chain goes on after FINISHED_EARLY_FOR_RERUN)
    failed = {ForwardMsg.FINISHED_WITH_COMPILE_ERROR: "the script raised an exception"}
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=_left(deadline)) as health:
            cookies = health.headers.get_all("Set-Cookie") or []
    except urllib.error.HTTPError as err:
        return f"/_stcore/health failed: status {err.code}"
    except (OSError, ValueError) as err:  # refused, reset, timed out
        return f"/_stcore/health failed: {err}"
    jar: SimpleCookie = SimpleCookie()
    for header in cookies:
        jar.load(header)
    xsrf = jar[XSRF_COOKIE].value if XSRF_COOKIE in jar else ""
    headers = {"Origin": url}
    if jar:
        headers["Cookie"] = "; ".join(f"{k}={m.value}" for k, m in jar.items())
    ws_url = "ws" + url[4:] + "/_stcore/stream"
    try:
        ws = connect(
            ws_url,
            additional_headers=headers,
            open_timeout=_left(deadline),
            subprotocols=[Subprotocol("streamlit"), *([Subprotocol(xsrf)] if xsrf else [])],
            close_timeout=1.0,
            max_size=None,
        )
    except (OSError, WebSocketException, TimeoutError) as err:
        return f"websocket: could not connect: {err}"
    with ws:  # closing it makes the server end the session
        ws.send(_rerun_message(url))
        while True:
            try:
                data = ws.recv(timeout=_left(deadline))
            except TimeoutError:
                return f"no finished script run within {timeout:g} s"
            except ConnectionClosed:
                return "the server closed the websocket before the run finished"
            if not isinstance(data, bytes):
                continue
            fwd = ForwardMsg.FromString(data)
            if fwd.WhichOneof("type") != "script_finished":
                continue
            if fwd.script_finished in failed:
                return failed[fwd.script_finished]
            if fwd.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                return None


def _left(deadline: float) -> float:
    return max(0.001, deadline - time.monotonic())


def _probe(url: str, timeout: float, script: bool) -> str | None:
    deadline = time.monotonic() + timeout
    why = _endpoint(url, timeout)
    if why is not None or not script:
        return why
    from google.protobuf.message import DecodeError
    from websockets.exceptions import WebSocketException

    try:
        return _run_once(url, timeout, deadline)
    except (OSError, WebSocketException, DecodeError) as err:
        return f"{type(err).__name__}: {err}"  # reset, not a Streamlit server...


def probe(url: str, timeout: float = 10.0, *, script: bool = True) -> str | None:
    """Run one probe against the server at ``url``.

    Args:
        url: the server's base URL, e.g. ``"http://127.0.0.1:8501"``.
        timeout: seconds for the whole probe (the endpoint, health, connect, the run).
        script: also run the default page once, as a browser does (False: only ask
            ``/_hograd/health``).

    Returns:
        None when the server's own answer was ok and (with ``script``) the default page's
        script run finished successfully in time; otherwise one line saying why not.

    Raises:
        ValueError: ``url`` is not http(s)://host[:port].
    """
    parsed = urllib.parse.urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise ValueError(f"url: expected http://HOST:PORT, got {url!r}")
    if not timeout > 0:
        raise ValueError(f"timeout: expected seconds > 0, got {timeout!r}")
    return _probe(url.rstrip("/"), timeout, script)


def _count_failure(state: Path, failed: bool) -> int:
    """Failures in a row so far, kept in ``state`` between probes (0 after a success)."""
    count = 0
    if failed:
        with contextlib.suppress(OSError, ValueError):
            count = int(state.read_text())
        count += 1
    with contextlib.suppress(OSError):
        state.write_text(str(count))
    return count


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("url", help="the server, e.g. http://127.0.0.1:8501")
    ap.add_argument("--timeout", type=float, default=10.0, help="seconds (default 10)")
    ap.add_argument(
        "--kill-after",
        type=int,
        default=0,
        metavar="N",
        help="after N failures in a row, kill the process in --pid-file",
    )
    ap.add_argument("--pid-file", type=Path, help="holds the app server's process id")
    ap.add_argument(
        "--warming-ok",
        action="store_true",
        help="a server still warming up passes (for a liveness check: it is not stuck)",
    )
    ap.add_argument(
        "--endpoint-only",
        action="store_true",
        help=f"only ask {ENDPOINT} (cheap: no script run, no Streamlit import)",
    )
    args = ap.parse_args(argv)
    if args.kill_after and args.pid_file is None:
        ap.error("--kill-after needs --pid-file")
    try:
        why = probe(args.url, args.timeout, script=not args.endpoint_only)
    except ValueError as err:
        ap.error(str(err))
    if args.warming_ok and why is not None and why.startswith(WARMING):
        why = None
    if args.kill_after:
        state = args.pid_file.with_name(args.pid_file.name + ".failures")
        if _count_failure(state, why is not None) >= args.kill_after:
            with contextlib.suppress(OSError, ValueError):
                os.kill(int(args.pid_file.read_text()), signal.SIGKILL)
                state.unlink()
                why = f"{why}; killed the server after {args.kill_after} failures in a row"
    if why is not None:
        print(f"unhealthy: {args.url}: {why}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
