"""A small Streamlit client that speaks the browser's websocket protocol, for load and isolation
tests.

Plain HTTP load tools never run a script: in Streamlit every interaction is a ``BackMsg``
over the websocket ``/_stcore/stream`` and the answer is a stream of ``ForwardMsg`` protobufs
(``new_session``, ``delta`` for every element, ``script_finished``). This client does what the
browser does, and no more:

1. ``GET`` the page, ``/_stcore/health`` (which sets the ``_streamlit_xsrf`` cookie) and
   ``/_stcore/host-config``;
2. open the websocket with the subprotocols ``["streamlit", <xsrf token>]`` and the cookie, so
   the server's XSRF check (``server.enableXsrfProtection = true``) passes as for a browser;
3. send ``BackMsg.rerun_script`` with a ``ClientState`` (query string, page, widget states,
   context info, the hashes of the large messages it has cached) and read ``ForwardMsg``\\ s
   until the run chain ends (``script_finished`` other than ``FINISHED_EARLY_FOR_RERUN``: an
   ``st.rerun()`` inside the script starts a new run in the same chain).

Rerun latency is measured from sending the ``BackMsg`` to that final ``script_finished``.

Widgets are found by their user key: Streamlit's widget ids end with it
(``"$$ID-<hash>-deriv.fn"``). Like the browser, the client sends the value of every widget of
the last run on each rerun: the value the server set (``set_value``), else the value the user
(this client) chose, else the widget's default.

Only loopback URLs are accepted, and every wait has a timeout.

Example::

    with StreamlitClient("http://127.0.0.1:8501") as c:
        first = c.open("derivatives")
        c.set_value("deriv.fn", "tanh(x)")
        c.set_value("deriv.order", 7)
        run = c.rerun()
        print(run.seconds, c.latex, c.errors, c.chart_count)
"""

from __future__ import annotations

import contextlib
import gzip
import http.cookiejar
import re
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any

import websocket
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.Block_pb2 import Block
from streamlit.proto.Element_pb2 import Element
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.Slider_pb2 import Slider

__all__ = [
    "LOOPBACK_HOSTS",
    "ProtocolError",
    "RunResult",
    "ScriptTimeout",
    "StreamlitClient",
    "Widget",
    "key_of",
]

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
XSRF_COOKIE = "_streamlit_xsrf"
#: The response header a proxy in front of replicas names the replica in (deploy/replicas.py).
REPLICA_HEADER = "X-Hograd-Replica"
#: Element types that are widgets (have an ``id`` and a value on the wire).
WIDGET_TYPES = frozenset(
    {
        "text_input",
        "text_area",
        "slider",
        "radio",
        "selectbox",
        "checkbox",
        "button_group",
        "button",
        "number_input",
        "multiselect",
        "tabs",
    }
)
#: ``bidi_component`` is the app's only component, its 2-D chart (hograd_ui/parts/chart.py).
CHART_TYPES = frozenset(
    {
        "plotly_chart",
        "graphviz_chart",
        "vega_lite_chart",
        "arrow_vega_lite_chart",
        "deck_gl_json_chart",
        "echarts_chart",
        "bidi_component",
    }
)
_FINAL = {
    ForwardMsg.FINISHED_SUCCESSFULLY: "ok",
    ForwardMsg.FINISHED_WITH_COMPILE_ERROR: "compile_error",
    ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY: "ok",
}
_ASSET = re.compile(r'(?:src|href)="\./(static/[^"]+)"')


class ProtocolError(RuntimeError):
    """The server closed the connection or sent something this client cannot follow."""


class ScriptTimeout(ProtocolError):
    """The script run did not finish within the timeout."""


def _cookie(host: str, name: str, value: str) -> http.cookiejar.Cookie:
    """A session cookie for every path of ``host``."""
    return http.cookiejar.Cookie(
        0,
        name,
        value,
        None,
        False,
        host,
        False,
        False,
        "/",
        True,
        False,
        None,
        True,
        None,
        None,
        {},
    )


def key_of(widget_id: str) -> str | None:
    """The user key at the end of a widget id (``"$$ID-<hash>-deriv.fn"`` -> ``"deriv.fn"``)."""
    parts = widget_id.split("-", 2)
    if len(parts) == 3 and parts[0] == "$$ID" and parts[2] != "None":
        return parts[2]
    return None


@dataclass(frozen=True)
class RunResult:
    """One rerun as the client saw it.

    Attributes:
        status: "ok" or "compile_error" (an uncaught exception in the script).
        seconds: from sending the BackMsg to the final ``script_finished``.
        first_delta_seconds: from sending to the first element (what a user sees first), or
            None if the run drew nothing.
        runs: script runs in the chain (2 when the script called ``st.rerun()``).
        messages: ForwardMsgs received.
        nbytes: bytes received.
    """

    status: str
    seconds: float
    first_delta_seconds: float | None
    runs: int
    messages: int
    nbytes: int


class TabsProto:
    """``st.tabs`` that track the open tab (``on_change`` set): a block, not an element, so
    it is wrapped to look like a widget proto: its id, the tab labels and the open one."""

    def __init__(self, container: Any) -> None:
        self.id = container.id
        self.options: list[str] = []
        self.default_tab_index = container.default_tab_index
        self.disabled = False
        self.form_id = ""
        self.set_value = False


@dataclass
class Widget:
    """A widget of the last run: its id, user key, element type, proto and wire value.

    ``value`` is what the next rerun sends: a ``(field, value)`` pair of ``WidgetState``
    (e.g. ``("double_array_value", [4.0])``), or None for a button that was not clicked.
    """

    id: str
    key: str | None
    kind: str
    proto: Any
    value: tuple[str, Any] | None = None
    fragment_id: str = ""  # drawn inside an st.fragment: a change reruns only that fragment

    @property
    def form_id(self) -> str:
        return getattr(self.proto, "form_id", "")

    @property
    def options(self) -> list[str]:
        """Option labels (radio, selectbox, select slider, pills, multiselect)."""
        if self.kind == "button_group":
            return [o.content for o in self.proto.options]
        return list(getattr(self.proto, "options", []))

    def current(self) -> Any:
        """The current value in user terms: a string, a number, a tuple, a bool, a list."""
        if self.value is None:
            return None
        name, v = self.value
        if name == "double_array_value":
            v = [int(x) if self.proto.data_type == Slider.INT else x for x in v]
            return v[0] if len(v) == 1 else tuple(v)
        if name == "string_array_value" and self.kind == "slider":
            return v[0] if len(v) == 1 else tuple(v)
        return v


def _default_value(kind: str, p: Any) -> tuple[str, Any] | None:
    """The wire value the browser would send for a widget it has not touched."""
    if kind in ("text_input", "text_area"):
        if p.set_value and p.HasField("value"):
            return ("string_value", p.value)
        return ("string_value", p.default) if p.HasField("default") else None
    if kind == "slider":
        if p.type == Slider.SELECT_SLIDER:
            if p.set_value and p.raw_value:
                return ("string_array_value", list(p.raw_value))
            idx = p.value if p.set_value else p.default
            return ("string_array_value", [p.options[int(i)] for i in idx])
        return ("double_array_value", list(p.value if p.set_value else p.default))
    if kind in ("radio", "selectbox"):
        if p.set_value and p.HasField("raw_value"):
            return ("string_value", p.raw_value)
        return ("string_value", p.options[p.default]) if p.HasField("default") else None
    if kind == "checkbox":
        return ("bool_value", p.value if p.set_value else p.default)
    if kind == "button_group":
        if p.set_value:
            return ("string_array_value", list(p.raw_values))
        return ("string_array_value", [p.options[i].content for i in p.default])
    if kind == "multiselect":
        if p.set_value:
            return ("string_array_value", list(p.raw_values))
        return ("string_array_value", [p.options[i] for i in p.default])
    if kind == "number_input":
        if p.set_value and p.HasField("value"):
            return ("double_value", p.value)
        return ("double_value", p.default) if p.HasField("default") else None
    if kind == "tabs" and p.options:
        return ("string_value", p.options[min(p.default_tab_index, len(p.options) - 1)])
    return None  # buttons: a trigger, sent only when clicked


class StreamlitClient:
    """One browser tab's worth of Streamlit session, over the websocket protocol.

    Args:
        base_url: the server, e.g. ``"http://127.0.0.1:8501"`` (loopback only).
        timeout: seconds for every wait (HTTP, connect, one run chain).
        fetch_assets: also download the JS/CSS that the page's HTML references, gzip
            accepted, as a browser with an empty cache does (for "storm" measurements).
        cookies: cookies the browser already holds (name -> value), sent from the first
            request on: a proxy's affinity cookie, say, to reach one chosen replica.

    Raises:
        ValueError: ``base_url`` is not http(s) on a loopback address.
    """

    def __init__(
        self,
        base_url: str,
        *,
        timeout: float = 30.0,
        fetch_assets: bool = False,
        cookies: dict[str, str] | None = None,
    ) -> None:
        parsed = urllib.parse.urlparse(base_url)
        if parsed.scheme not in ("http", "https") or parsed.hostname not in LOOPBACK_HOSTS:
            raise ValueError(
                f"base_url: expected http://127.0.0.1:PORT (loopback only), got {base_url!r}."
            )
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.fetch_assets = fetch_assets
        self._cookies = http.cookiejar.CookieJar()
        self._http = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self._cookies))
        for name, value in (cookies or {}).items():  # as if an earlier visit had set them
            self._cookies.set_cookie(_cookie(parsed.hostname, name, value))
        self._ws: websocket.WebSocket | None = None
        self.session_id = ""
        self.query_string = ""
        self.page_script_hash = ""
        self.pages: dict[str, str] = {}  # url path -> page script hash (from st.navigation)
        self.elements: dict[tuple[int, ...], tuple[str, Any]] = {}  # delta path -> (type, proto)
        self.widgets: dict[str, Widget] = {}  # widget id -> Widget
        self.exceptions: list[str] = []
        self.http_bytes = 0
        self._pending: dict[str, tuple[str, Any]] = {}  # widget id -> value for the next rerun
        self._fragments: dict[tuple[int, ...], str] = {}  # element path -> its fragment id
        #: fragment id -> seconds: the page's st.fragment(run_every=...) timers, which a browser
        #: keeps until the next full run (or a stop_auto_rerun); see :meth:`poll`
        self.auto_reruns: dict[str, float] = {}
        self._cache: dict[str, tuple[ForwardMsg, int]] = {}  # hash -> (message, run index)
        self._cache_age = 2
        self._run_index = 0
        #: the replica that answered each HTTP request and each websocket handshake, from the
        #: proxy's REPLICA_HEADER (deploy/replicas.py sets it); empty without a proxy
        self.replicas_seen: list[str] = []

    # -- connection -------------------------------------------------------------------------

    def _get(self, path: str, *, gzip_ok: bool = False) -> bytes:
        req = urllib.request.Request(f"{self.base_url}/{path.lstrip('/')}")
        if gzip_ok:
            req.add_header("Accept-Encoding", "gzip")
        with self._http.open(req, timeout=self.timeout) as resp:
            body = resp.read()
            if resp.headers.get(REPLICA_HEADER):
                self.replicas_seen.append(resp.headers[REPLICA_HEADER])
        self.http_bytes += len(body)
        if gzip_ok and body[:2] == b"\x1f\x8b":
            body = gzip.decompress(body)
        return body

    def connect(self, path: str = "") -> None:
        """Load the page over HTTP (getting the XSRF cookie), then open the websocket."""
        html = self._get(path, gzip_ok=True).decode("utf-8", "replace")
        if self.fetch_assets:
            for asset in dict.fromkeys(_ASSET.findall(html)):
                self._get(asset, gzip_ok=True)
        self._get("_stcore/health")
        self._get("_stcore/host-config")
        xsrf = next((c.value for c in self._cookies if c.name == XSRF_COOKIE), "")
        ws_url = "ws" + self.base_url[4:] + "/_stcore/stream"
        headers = {"subprotocols": ["streamlit", xsrf]} if xsrf else {"subprotocols": ["streamlit"]}
        # Every cookie the page set: the XSRF token, and a proxy's session-affinity cookie.
        cookies = "; ".join(f"{c.name}={c.value}" for c in self._cookies)
        try:
            self._ws = websocket.create_connection(
                ws_url,
                timeout=self.timeout,
                cookie=cookies or None,
                origin=self.base_url,
                enable_multithread=False,
                **headers,
            )
        except (OSError, websocket.WebSocketException) as err:
            raise ProtocolError(f"websocket: could not connect to {ws_url}: {err}") from err
        replica = (self._ws.getheaders() or {}).get(REPLICA_HEADER.lower())
        if replica:
            self.replicas_seen.append(replica)

    def forget_session(self) -> None:
        """Drop what the last session showed (its elements, widgets, timers and message cache),
        as a browser does when it reconnects to a server that does not know its session: the
        next :meth:`open` starts from an empty page. Cookies are kept."""
        self.session_id = ""
        self.elements.clear()
        self.widgets.clear()
        self.exceptions.clear()
        self._pending.clear()
        self._fragments.clear()
        self.auto_reruns.clear()
        self._cache.clear()
        self._run_index = 0

    def cookie(self, name: str) -> str | None:
        """The value of cookie ``name`` that the server (or a proxy) set, if any."""
        return next((c.value for c in self._cookies if c.name == name), None)

    def close(self) -> None:
        """Close the websocket (the server then ends the session)."""
        if self._ws is not None:
            with contextlib.suppress(OSError, websocket.WebSocketException):
                self._ws.close(timeout=2)
            self._ws = None

    def __enter__(self) -> StreamlitClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- script runs ------------------------------------------------------------------------

    def open(self, path: str = "", query: str = "") -> RunResult:
        """Connect (if needed) and run the script for page ``path`` ("" is the default page),
        as a browser does when it loads ``/<path>?<query>``."""
        if self._ws is None:
            self.connect(path + (f"?{query}" if query else ""))
        self.query_string = query
        return self._run(page_name=path, page_script_hash="", widgets=False)

    def navigate(self, path: str) -> RunResult:
        """Switch to another page of the app, as a click in the sidebar does."""
        if path not in self.pages:
            raise KeyError(f"page: expected one of {sorted(self.pages)}, got {path!r}")
        return self._run(page_name="", page_script_hash=self.pages[path])

    def rerun(self) -> RunResult:
        """Rerun the current page with the widget values set since the last run."""
        return self._run(page_name="", page_script_hash=self.page_script_hash)

    def poll(self, fragment_id: str) -> RunResult:
        """Rerun one fragment, as the browser does when its ``run_every`` timer fires."""
        return self._run(
            page_name="", page_script_hash=self.page_script_hash, fragment_id=fragment_id
        )

    def _client_state(
        self,
        msg: BackMsg,
        page_name: str,
        page_script_hash: str,
        widgets: bool,
        fragment_id: str = "",
    ) -> None:
        cs = msg.rerun_script
        cs.query_string = self.query_string
        cs.page_name = page_name
        cs.page_script_hash = page_script_hash
        ci = cs.context_info
        ci.timezone, ci.timezone_offset, ci.locale = "UTC", 0, "en-US"
        ci.url = f"{self.base_url}/{page_name}"
        ci.is_embedded, ci.color_scheme = False, "light"
        cs.cached_message_hashes.extend(self._cache)
        if not widgets:
            return
        cs.fragment_id = fragment_id
        owners = {
            self.widgets[wid].fragment_id if wid in self.widgets else "" for wid in self._pending
        }
        if len(owners) == 1 and "" not in owners and not fragment_id:  # as the browser does
            cs.fragment_id = owners.pop()
        values = {wid: w.value for wid, w in self.widgets.items() if w.value is not None}
        values.update(self._pending)
        for wid, (name, value) in values.items():
            state = cs.widget_states.widgets.add()
            state.id = wid
            if name in ("double_array_value", "string_array_value"):
                getattr(state, name).data.extend(value)
            else:
                setattr(state, name, value)

    def _run(
        self,
        *,
        page_name: str,
        page_script_hash: str,
        widgets: bool = True,
        fragment_id: str = "",
    ) -> RunResult:
        if self._ws is None:
            raise ProtocolError("rerun: not connected; call open() first.")
        msg = BackMsg()
        self._client_state(msg, page_name, page_script_hash, widgets, fragment_id)
        fragment = msg.rerun_script.fragment_id
        self._pending.clear()
        self._run_index += 1
        start = time.perf_counter()
        deadline = start + self.timeout
        first: float | None = None
        runs = messages = nbytes = 0
        elements: dict[tuple[int, ...], tuple[str, Any]] = {}
        if fragment:  # the rest of the page stays as it is; the fragment is drawn again
            elements = {
                p: e for p, e in self.elements.items() if self._fragments.get(p) != fragment
            }
        try:
            self._ws.send_binary(msg.SerializeToString())
            while True:
                remaining = deadline - time.perf_counter()
                if remaining <= 0:
                    raise ScriptTimeout(f"rerun: no script_finished within {self.timeout:g} s")
                self._ws.settimeout(remaining)
                data = self._ws.recv()
                if not isinstance(data, bytes) or not data:
                    raise ProtocolError("rerun: the server closed the websocket")
                messages += 1
                nbytes += len(data)
                fwd = ForwardMsg()
                fwd.ParseFromString(data)
                kind = fwd.WhichOneof("type")
                path = tuple(fwd.metadata.delta_path)
                if kind == "ref_hash":  # a large message we sent the hash of: reuse ours
                    cached = self._cache.get(fwd.ref_hash)
                    if cached is None:
                        raise ProtocolError(f"rerun: unknown cached message {fwd.ref_hash}")
                    fwd = cached[0]
                    kind = fwd.WhichOneof("type")
                if fwd.metadata.cacheable and fwd.hash:
                    self._cache[fwd.hash] = (fwd, self._run_index)
                elif fwd.hash in self._cache:
                    self._cache[fwd.hash] = (self._cache[fwd.hash][0], self._run_index)
                if kind == "new_session":
                    runs += 1
                    if not fwd.metadata.run.fragment_ids:  # a full run (st.rerun() in a
                        elements = {}  # fragment starts one) redraws the page
                        self.auto_reruns.clear()  # and the browser drops every timer
                    ns = fwd.new_session
                    self.page_script_hash = ns.page_script_hash
                    self._cache_age = max(1, ns.config.max_cached_message_age or 2)
                    if ns.initialize.session_id:
                        self.session_id = ns.initialize.session_id
                elif kind == "navigation":
                    self.pages = {
                        p.url_pathname: p.page_script_hash for p in fwd.navigation.app_pages
                    }
                    if fwd.navigation.page_script_hash:
                        self.page_script_hash = fwd.navigation.page_script_hash
                elif kind == "auto_rerun":
                    self.auto_reruns[fwd.auto_rerun.fragment_id] = fwd.auto_rerun.interval
                elif kind == "stop_auto_rerun":
                    for fid in fwd.stop_auto_rerun.fragment_ids:
                        self.auto_reruns.pop(fid, None)
                elif kind == "page_info_changed":
                    self.query_string = fwd.page_info_changed.query_string
                elif kind == "delta":
                    delta = fwd.delta
                    self._fragments[path] = delta.fragment_id
                    if delta.WhichOneof("type") == "add_block":
                        block = delta.add_block
                        btype = block.WhichOneof("type")
                        if btype == "tab_container" and block.tab_container.id:
                            elements[path] = ("tabs", TabsProto(block.tab_container))
                        elif btype == "tab" and path[:-1] in elements:
                            elements[path[:-1]][1].options.append(block.tab.label)
                    elif delta.WhichOneof("type") == "new_element":
                        if first is None:
                            first = time.perf_counter() - start
                        etype = delta.new_element.WhichOneof("type")
                        elements[path] = (etype, getattr(delta.new_element, etype))
                elif kind == "session_event":
                    ev = fwd.session_event
                    if ev.WhichOneof("type") == "script_compilation_exception":
                        self.exceptions.append(ev.script_compilation_exception.message)
                elif kind == "script_finished":
                    status = _FINAL.get(fwd.script_finished)
                    if status is not None:
                        seconds = time.perf_counter() - start
                        break
        except websocket.WebSocketTimeoutException as err:
            raise ScriptTimeout(f"rerun: no script_finished within {self.timeout:g} s") from err
        except (OSError, websocket.WebSocketException) as err:
            raise ProtocolError(f"rerun: websocket failed: {err}") from err
        self._cache = {
            h: v for h, v in self._cache.items() if self._run_index - v[1] < self._cache_age
        }
        self.elements = dict(sorted(elements.items()))
        self._update_widgets()
        for etype, proto in self.elements.values():
            if etype == "exception":
                self.exceptions.append(f"{proto.type}: {proto.message}")
        return RunResult(status, seconds, first, runs, messages, nbytes)

    def _update_widgets(self) -> None:
        old = self.widgets
        self.widgets = {}
        for path, (etype, proto) in self.elements.items():
            if etype not in WIDGET_TYPES or not proto.id:
                continue
            w = Widget(
                proto.id, key_of(proto.id), etype, proto, None, self._fragments.get(path, "")
            )
            fresh = _default_value(etype, proto)
            if etype == "button":
                w.value = None
            elif getattr(proto, "set_value", False) or proto.id not in old:
                w.value = fresh
            else:
                w.value = old[proto.id].value
            self.widgets[proto.id] = w

    # -- widgets ----------------------------------------------------------------------------

    def widget(self, key: str) -> Widget:
        """The widget of the last run whose user key is ``key``.

        Raises:
            KeyError: no such widget on the page.
        """
        for w in self.widgets.values():
            if w.key == key:
                return w
        raise KeyError(f"widget: no widget with key {key!r}; keys: {sorted(self.keys())}")

    def keys(self) -> list[str]:
        """User keys of the widgets of the last run."""
        return [w.key for w in self.widgets.values() if w.key]

    def set_value(self, key: str, value: Any) -> None:
        """Set a widget's value for the next rerun (like a user's edit), checked against its
        proto: a text, a number or (low, high) for a slider, an option label for a radio, a
        select slider, a selectbox or pills, a bool for a checkbox or toggle.

        Raises:
            KeyError: no such widget.
            ValueError: the value does not fit the widget.
        """
        w = self.widget(key)
        p = w.proto
        if w.kind in ("text_input", "text_area"):
            new = ("string_value", str(value))
        elif w.kind == "slider" and p.type == Slider.SELECT_SLIDER:
            vals = [str(v) for v in (value if isinstance(value, (tuple, list)) else [value])]
            if any(v not in p.options for v in vals):
                raise ValueError(f"{key}: expected one of {list(p.options)}, got {value!r}")
            new = ("string_array_value", vals)
        elif w.kind == "slider":
            vals = [float(v) for v in (value if isinstance(value, (tuple, list)) else [value])]
            if len(vals) != len(p.default) or any(not p.min <= v <= p.max for v in vals):
                raise ValueError(
                    f"{key}: expected {len(p.default)} value(s) in [{p.min:g}, {p.max:g}], "
                    f"got {value!r}"
                )
            new = ("double_array_value", vals)
        elif w.kind in ("radio", "selectbox", "tabs"):
            if value not in p.options:
                raise ValueError(f"{key}: expected one of {list(p.options)}, got {value!r}")
            new = ("string_value", value)
        elif w.kind == "checkbox":
            new = ("bool_value", bool(value))
        elif w.kind in ("button_group", "multiselect"):
            vals = (
                []
                if value is None
                else list(value if isinstance(value, (tuple, list)) else [value])
            )
            if any(v not in w.options for v in vals):
                raise ValueError(f"{key}: expected options from {w.options}, got {value!r}")
            new = ("string_array_value", vals)
        elif w.kind == "number_input":
            v = float(value)
            if (p.has_min and v < p.min) or (p.has_max and v > p.max):
                raise ValueError(f"{key}: expected a number in [{p.min:g}, {p.max:g}], got {v}")
            new = ("double_value", v)
        else:
            raise ValueError(f"{key}: a {w.kind} has no value to set; use click()")
        w.value = new
        self._pending[w.id] = new

    def click(self, key: str) -> None:
        """Press a button (or a form's submit button) in the next rerun."""
        w = self.widget(key)
        if w.kind != "button":
            raise ValueError(f"{key}: expected a button, got a {w.kind}")
        self._pending[w.id] = ("trigger_value", True)

    def click_id(self, widget_id: str) -> None:
        """Press a button by widget id (for buttons without a user key, e.g. form submit)."""
        self._pending[widget_id] = ("trigger_value", True)

    # -- what the page shows ----------------------------------------------------------------

    def _texts(self, etype: str, attr: str = "body") -> list[str]:
        return [getattr(p, attr) for t, p in self.elements.values() if t == etype]

    def _alerts(self, fmt: int) -> list[str]:
        return [p.body for t, p in self.elements.values() if t == "alert" and p.format == fmt]

    @property
    def errors(self) -> list[str]:
        """Texts of ``st.error`` boxes."""
        return self._alerts(1)

    @property
    def warnings(self) -> list[str]:
        return self._alerts(2)

    @property
    def infos(self) -> list[str]:
        return self._alerts(3)

    @property
    def headings(self) -> list[str]:
        return self._texts("heading")

    @property
    def markdown(self) -> list[str]:
        """Markdown bodies: ``st.markdown``, ``st.caption``, ``st.write`` text, ``st.latex``."""
        return self._texts("markdown")

    @property
    def latex(self) -> list[str]:
        """``st.latex`` bodies (markdown wrapped in ``$$``), without the ``$$``."""
        return [b.strip().strip("$").strip() for b in self.markdown if b.lstrip().startswith("$$")]

    @property
    def codes(self) -> list[str]:
        """Texts of ``st.code`` blocks."""
        return self._texts("code", "code_text")

    @property
    def echoed(self) -> list[str]:
        """``st.code`` blocks without a language in the page's main area: user text echoed
        back verbatim (the sidebar's share box shows the view's link the same way)."""
        return [
            p.code_text
            for path, (t, p) in self.elements.items()
            if t == "code" and p.language in ("", "plaintext", "text") and path[:1] == (0,)
        ]

    @property
    def chart_count(self) -> int:
        return sum(t in CHART_TYPES for t, _ in self.elements.values())

    def element_types(self) -> list[str]:
        return [t for t, _ in self.elements.values()]

    def text(self) -> str:
        """Every text the page shows (headings, markdown, alerts, plain text, code), one per
        line."""
        out = []
        for t, p in self.elements.values():
            if t in ("heading", "markdown", "alert", "text"):
                out.append(p.body)
            elif t == "code":
                out.append(p.code_text)
        return "\n".join(out)


def _element_type_check() -> None:  # pragma: no cover - a guard for Streamlit upgrades
    fields = {f.name for f in Element.DESCRIPTOR.fields}
    elements = WIDGET_TYPES - {"tabs"} | {
        "alert",
        "markdown",
        "code",
        "heading",
        "exception",
        "text",
    }
    missing = elements - fields
    assert not missing, f"Streamlit renamed element types: {missing}"
    assert {"tab_container", "tab"} <= {f.name for f in Block.DESCRIPTOR.fields}, "tabs renamed"


_element_type_check()
