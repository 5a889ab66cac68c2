"""Warm a freshly started server before the first student arrives.

A fresh process pays, in its first visitor's script run, for the imports (torch, sympy,
plotly) and the default views' computations (the
derivatives page's sympy and nested-autograd columns finish in the background and are polled
by the page). ``warm(url)`` makes that visit itself: it opens each page over Streamlit's own
websocket, as a browser does, answers the page's polling until the background columns are in,
and leaves. Every cache it fills (``st.cache_data``, the background answers) is shared by all
sessions, so the first real visitor gets the warm server's screens. Then it tells the server
it is done (:func:`announce`): a server started with ``HOGRAD_WAIT_FOR_WARMUP=1`` answers its
health endpoint ``warming`` until then, so a proxy sends it no student before.

Run it next to the server (``make run``, ``deploy/replicas.py`` and the Dockerfile do)::

    python -m hograd_serving.warmup http://127.0.0.1:8501

The views it opens are the labs' default views, which each lab declares (``Lab.warm``,
hograd_ui/lab.py) and the app's site collects (``pages.SITE``, named by ``--site``); views may
also be given after the URL. It waits for ``/_stcore/health`` first. It needs only what Streamlit itself installs
(``websockets``). On Streamlit Community Cloud the platform starts the app; wake it before a
lecture by opening it once (docs/deploy.md).
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
import urllib.request
from http.cookiejar import CookieJar

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from websockets.sync.client import connect

from hograd_serving.serving_middleware import WARMED_PATH

__all__ = ["SITE", "announce", "declared_views", "warm", "wait_healthy"]

#: Where the app's site is, ``module:name``: a value whose ``warm()`` gives the views to warm,
#: in order (a view is a URL path with an optional query: a view may need a setting to warm
#: what its first visitor would otherwise pay for, as a pasted error message does).
SITE = "pages:SITE"
_DONE = ForwardMsg.FINISHED_SUCCESSFULLY


def wait_healthy(url: str, seconds: float = 120.0) -> bool:
    """Whether ``url`` answered ``/_stcore/health`` within ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
                if resp.status == 200:
                    return True
        except OSError:
            time.sleep(0.25)
    return False


def _rerun(page: str, url: str, page_hash: str = "", fragment: str = "", query: str = "") -> bytes:
    msg = BackMsg()
    cs = msg.rerun_script
    cs.page_name, cs.page_script_hash, cs.fragment_id = page, page_hash, fragment
    cs.query_string = query
    ci = cs.context_info
    ci.timezone, ci.timezone_offset, ci.locale = "UTC", 0, "en-US"
    ci.url = f"{url}/{page}" + (f"?{query}" if query else "")
    return msg.SerializeToString()


def warm_page(url: str, page: str, seconds: float = 60.0) -> str:
    """Open ``page`` once and answer its polling until it stops (or ``seconds`` pass).

    Returns "ok", "timeout" or the script's failure. ``page`` may end in ``?query``.
    """
    page, _, query = page.partition("?")
    jar = CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    with opener.open(f"{url}/{page}", timeout=10) as resp:
        resp.read()
    cookies = "; ".join(f"{c.name}={c.value}" for c in jar)
    xsrf = next((c.value for c in jar if c.name == "_streamlit_xsrf"), "")
    protocols = ["streamlit", xsrf] if xsrf else ["streamlit"]
    deadline = time.monotonic() + seconds
    with connect(
        "ws" + url[4:] + "/_stcore/stream",
        subprotocols=protocols,  # type: ignore[arg-type]
        additional_headers={"Cookie": cookies} if cookies else None,
        origin=url,  # type: ignore[arg-type]
        open_timeout=10,
    ) as ws:
        ws.send(_rerun(page, url, query=query))
        page_hash, polling, finished = "", {}, False
        while time.monotonic() < deadline:
            if finished and not polling:
                return "ok"
            wait = min(polling.values(), default=deadline - time.monotonic())
            try:
                data = ws.recv(timeout=max(0.05, wait))
            except TimeoutError:
                for fragment in list(polling):  # the page's timer fired: poll as a browser does
                    finished = False
                    ws.send(_rerun("", url, page_hash, fragment, query))
                continue
            fwd = ForwardMsg.FromString(data) if isinstance(data, bytes) else ForwardMsg()
            kind = fwd.WhichOneof("type")
            if kind == "new_session":
                page_hash, finished = fwd.new_session.page_script_hash, False
                if not fwd.metadata.run.fragment_ids:
                    polling.clear()
            elif kind == "auto_rerun":
                polling[fwd.auto_rerun.fragment_id] = fwd.auto_rerun.interval
            elif kind == "stop_auto_rerun":
                for fragment in fwd.stop_auto_rerun.fragment_ids:
                    polling.pop(fragment, None)
            elif kind == "script_finished":
                finished = fwd.script_finished == _DONE or finished
            elif kind == "session_event" and fwd.session_event.HasField(
                "script_compilation_exception"
            ):
                return "the script failed to compile"
    return "timeout"


def announce(url: str) -> bool:
    """Tell the server at ``url`` that its warm-up is done (``POST /_hograd/warmed``): its
    health endpoint stops answering ``warming``, so a proxy starts sending it students.
    Whether the server took note (False: it went away, or is not hograd's)."""
    request = urllib.request.Request(url.rstrip("/") + WARMED_PATH, data=b"", method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as resp:
            return resp.status == 200
    except OSError:
        return False


def declared_views(site: str = SITE) -> tuple[str, ...]:
    """The views the site at ``site`` ("module:name") declares for warming, in order."""
    module, _, name = site.partition(":")
    return tuple(getattr(importlib.import_module(module), name).warm())


def warm(url: str, pages: tuple[str, ...], seconds: float = 60.0) -> dict[str, str]:
    """Warm every page of the server at ``url``, then :func:`announce` it; returns each
    page's outcome (a page that did not warm does not keep the server out of service)."""
    url = url.rstrip("/")
    outcome: dict[str, str] = {}
    for page in pages:
        try:
            outcome[page.partition("?")[0] or "home"] = warm_page(url, page, seconds)
        except (OSError, TimeoutError) as err:  # a server that went away: say so, go on
            outcome[page.partition("?")[0] or "home"] = f"{type(err).__name__}: {err}"
    announce(url)
    return outcome


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("url", help="the server, e.g. http://127.0.0.1:8501")
    ap.add_argument("views", nargs="*", help="views to warm (default: the site's declared views)")
    ap.add_argument("--wait", type=float, default=180.0, help="seconds to wait for health")
    ap.add_argument(
        "--site", default=SITE, help="the app's site, module:name (default: %(default)s)"
    )
    args = ap.parse_args(argv)
    if not wait_healthy(args.url.rstrip("/"), args.wait):
        print(f"warm-up: {args.url} did not become healthy in {args.wait:g} s", file=sys.stderr)
        return 1
    start = time.monotonic()
    outcome = warm(args.url, tuple(args.views) or declared_views(args.site))
    failed = {page: what for page, what in outcome.items() if what != "ok"}
    print(
        f"warm-up: {len(outcome) - len(failed)} of {len(outcome)} pages in "
        f"{time.monotonic() - start:.1f} s" + (f"; not warmed: {failed}" if failed else ""),
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
