"""A classroom at once: N students on one real server, over Streamlit's own websocket protocol.

Plain HTTP load tools never run a script; these simulated sessions do what a browser does
(:mod:`benchmarks.st_client`): open a page, then change widgets and type functions (valid
ones and about one in four broken or hostile) with a think time, and wait for every rerun to
finish. A few real headless-Chromium tabs run alongside as a realism check; their timings
include rendering and are reported separately.

Phases, in order, each bounded in count and time:

1. **server**: ``streamlit run hograd_serving/asgi.py`` (as ``make run``) on a free loopback
   port with the repository's ``.streamlit/config.toml`` (or ``--url`` to measure a server
   that is already running on this machine; its RSS is read if its process can be found).
2. **warm-up**: one session opens the page on the fresh server (``cold_first_screen_ms``:
   imports, torch) and leaves; then ``rss_start_mb`` is read: the baseline.
3. **storm** (``--storm M``): M sessions load the page at the same instant, each fetching the
   HTML, the JS/CSS it references (gzip, as a browser with an empty cache), the health
   check and the websocket. First screen = from the start to the end of the first script
   run; first paint = to the first element.
4. **idle** (``--idle K``): K more sessions open the page one after another and stay
   connected; ``mb_per_idle_session`` = RSS growth / K.
5. **load** (``--sessions N --seconds S --think T``): N sessions, each opening its page at a
   random moment in the first few seconds, then acting every T x U(0.5, 1.5) s; plus
   ``--browsers B`` Chromium tabs (at nice 19: students' browsers render on their own
   machines, not on the server's cores). Rerun latency = from sending the rerun to the run's
   ``script_finished``. RSS is sampled every 0.5 s (``rss_peak_mb``). While sympy's column and
   nested autograd's are worked out in the background the derivatives page polls
   (``st.fragment(run_every=...)``); the sessions
   fire those timers between actions as a browser does (``polls``, not in the rerun
   percentiles), and ``settled_p95_ms`` is how long after an action the page was complete.
6. **soak** (``--soak R --soak-seconds T``): R reruns more (at most T s) by 4 sessions
   without think time; RSS is read
   after the first fifth (caches and allocator warm) and at the end: ``rss_growth_pct``.
   ``rss_growth_from_start_pct`` compares the end with the baseline (that includes bounded
   caches filling up and sessions that left: Streamlit keeps a disconnected session for
   ``server.disconnectedSessionTTL`` = 120 s).

A session *fails* when a run does not finish within ``--timeout`` s, the connection drops,
the page shows an exception, or the page answers wrongly (a broken function not refused with
an error that echoes it as code, a valid one refused as unparsable). "Busy" answers from the
heavy-work gate and budget refusals are counted, not failures.

Usage::

    python benchmarks/load.py                    # ~2 min: 10 sessions x 30 s, storm of 20
    python benchmarks/load.py --sessions 50 --seconds 60 --think 2 --storm 50 \
        --soak 1000 --soak-seconds 600        # the issue's figures
    python benchmarks/load.py --mix light        # a class at modest settings (orders <= 6)
    python benchmarks/load.py --url http://127.0.0.1:8501 --json
    python benchmarks/load.py --pages all        # spread the sessions over every page

``--json`` prints exactly one JSON object on stdout; progress goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from anywhere

from benchmarks.st_client import (  # noqa: E402
    LOOPBACK_HOSTS,
    ProtocolError,
    StreamlitClient,
    Widget,
)
from hograd_serving.command import server_command  # noqa: E402
from hograd_serving.warmup import wait_healthy  # noqa: E402

#: The proxy's session-affinity cookie in front of replicas (deploy/haproxy.cfg).
AFFINITY_COOKIE = "HOGRAD_REPLICA"

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

#: Functions a class types: the presets, variations with other coefficients, and some that
#: overflow or are undefined in places (valid, the page must explain them).
VALID = [
    "sin(x)*exp(-x^2)",
    "tanh(x)",
    "x**3 - 2*x",
    "1/(1+x^2)",
    "log(1+x^2)",
    "x*sin(1/x)",
    "exp(-x^2)",
    "cos({a}*x) + x^2",
    "sin({a}*x)*exp(-x^2/{b})",
    "tanh({a}*x)",
    "x**{n}",
    "sqrt(1+x^2)",
    "atan({a}*x)",
    "exp(sin(x))",
    "log(cosh(x))",
    "x^2*exp(-x)",
    "sin(x)/x",
    "1/x",
    "abs(x)",
    "relu(x)",
    "sigmoid({a}*x)",
    "exp(exp(x))",
    "softplus(x)",
    "cosh(x)-1",
]
#: Typos and attacks; every one must be refused with an error that echoes it as code.
BAD = [
    "sin(",
    "x +",
    "__import__('os').system('id')",
    "lambda: 1",
    "x; import os",
    "<script>alert(1)</script>",
    "![p](http://127.0.0.1:9/x.png)",
    "x*y",
    "foo(x)",
    "2 +* x",
    "x.__class__",
    "open('/etc/passwd')",
    "exec('1')",
    "$\\href{http://127.0.0.1:9}{x}$",
    "[click](javascript:alert(1))",
    "(" * 60 + "x" + ")" * 60,
    "sin(x)**",
    "1e999999*x",
    "x = 1",
]
#: Error texts of the heavy-work gate (hograd_core.text_common "budget.busy"), en and zh.
BUSY = ("The server is busy", "服务器正在处理")
#: Widgets a simulated student touches, by weight (a typed function is the main action).
WEIGHTS = {
    "fn": 6.0,
    "text": 2.0,
    "slider": 2.0,
    "radio": 1.5,
    "selectbox": 1.5,
    "button_group": 1.2,
    "checkbox": 1.0,
    "number_input": 1.5,
    "button": 0.3,
    "lang": 0.2,
}
LIGHT_MAX_ORDER = 6
ORDER_BUCKETS = [("order 0-4", 4), ("order 5-10", 10), ("order 11+", 10**9)]
TARGETS = {  # issue 6, on this 2-core machine
    "p95_ms": 250.0,
    "failed": 0,
    "first_screen_p95_ms": 5000.0,
    "rss_start_mb": 450.0,
    "mb_per_idle_session": 2.0,
    "rss_growth_pct": 5.0,
}


def log(msg: str) -> None:
    print(f"[load {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def affinity_held(cookie: str | None, seen: list[str]) -> bool:
    """Whether every response of a connection came from one replica, the one its affinity
    cookie names. deploy/replicas.py names each replica's cookie after it (r1, r2, ...);
    haproxy's dynamic cookies (compose.yaml's replicas) are a hash of the replica's address,
    16 hex digits, which names no replica: there only the one replica is checked.

    >>> affinity_held("r1", ["r1", "r1"]), affinity_held("r1", ["r1", "r2"])
    (True, False)
    >>> affinity_held("ec90e411dfce6fae", ["app2"]), affinity_held(None, ["app2"])
    (True, False)
    """
    replicas = set(seen)
    if not cookie or len(replicas) != 1:
        return False
    dynamic = len(cookie) == 16 and all(c in "0123456789abcdef" for c in cookie)
    return cookie in replicas or dynamic


def pct(xs: list[float], q: float) -> float | None:
    """The q-th percentile (nearest rank) of xs, or None if empty."""
    if not xs:
        return None
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, round(q / 100 * len(s) + 0.5) - 1))]


def ms(x: float | None) -> float | None:
    return None if x is None else round(x * 1000, 1)


# -- the server ------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """The app under test: started here, or found by its port when given ``--url``."""

    def __init__(self, url: str | None, env: dict[str, str] | None = None):
        self.proc: subprocess.Popen | None = None
        self.log_path: Path | None = None
        if url:
            parsed = urllib.parse.urlparse(url)
            if parsed.hostname not in LOOPBACK_HOSTS:
                raise SystemExit(f"--url: expected http://127.0.0.1:PORT, got {url!r}")
            self.url = url.rstrip("/")
            if not wait_healthy(self.url, 10):
                raise SystemExit(f"--url: {self.url}/_stcore/health did not answer")
            self.pid = self._pid_listening(parsed.port or 80)
            return
        port = _free_port()
        fd, name = tempfile.mkstemp(prefix="hograd-load-server-", suffix=".log")
        self.log_path = Path(name)
        self.proc = subprocess.Popen(
            server_command(port),
            cwd=ROOT,
            stdout=fd,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})},
        )
        os.close(fd)
        self.url = f"http://127.0.0.1:{port}"
        self.pid = self.proc.pid
        if not wait_healthy(self.url, 90):
            self.stop()
            raise SystemExit(f"the server did not become healthy in 90 s (log: {self.log_path})")

    @staticmethod
    def _pid_listening(port: int) -> int | None:
        try:
            for conn in psutil.net_connections(kind="tcp"):
                if conn.status == psutil.CONN_LISTEN and conn.laddr.port == port and conn.pid:
                    return conn.pid
        except psutil.AccessDenied:
            pass
        return None

    def rss_mb(self) -> float | None:
        try:
            return psutil.Process(self.pid).memory_info().rss / 2**20 if self.pid else None
        except psutil.Error:
            return None

    def cpu_split(self) -> tuple[float, float, int | None] | None:
        """The server's user and kernel CPU seconds, and its minor page faults (Linux's
        ``/proc/<pid>/stat``; None elsewhere)."""
        try:
            t = psutil.Process(self.pid).cpu_times() if self.pid else None
        except psutil.Error:
            return None
        if t is None:
            return None
        try:
            stat = Path(f"/proc/{self.pid}/stat").read_text()
            faults: int | None = int(stat.rsplit(")", 1)[1].split()[7])  # field 10, minflt
        except (OSError, IndexError, ValueError):
            faults = None
        return t.user, t.system, faults

    def _helpers_sum(self, measure: Any) -> float:
        """``measure`` summed over the server's live child processes at that moment: the fresh
        processes of the flag lab and anomaly mode (one that has ended no longer counts)."""
        try:
            children = psutil.Process(self.pid).children(recursive=True) if self.pid else []
        except psutil.Error:
            return 0.0
        total = 0.0
        for p in children:
            try:
                total += measure(p)
            except psutil.Error:
                continue
        return total

    def helpers_cpu_seconds(self) -> float:
        return self._helpers_sum(lambda p: sum(p.cpu_times()[:2]))

    def helpers_rss_mb(self) -> float:
        return self._helpers_sum(lambda p: p.memory_info().rss / 2**20)

    def tree_pss_mb(self) -> float | None:
        """The proportional set size of the server and its children, summed: a page shared
        by k of them (libtorch's code, say) counts 1/k in each, so the sum counts it once, as
        a container's memory limit does. Summed RSS counts it once per process."""
        try:
            pss = psutil.Process(self.pid).memory_full_info().pss if self.pid else None
        except (psutil.Error, AttributeError):
            return None
        if pss is None:
            return None
        return pss / 2**20 + self._helpers_sum(lambda p: p.memory_full_info().pss / 2**20)

    def log_errors(self) -> int | None:
        if self.log_path is None:
            return None
        text = self.log_path.read_text(errors="replace")
        return text.count("Traceback") + text.count(" ERROR ")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        # the log file is ours: gone with the server, unless it holds an error to read
        if self.log_path is not None and self.log_path.exists():
            if self.log_errors():
                print(f"the server's log, with errors, is kept: {self.log_path}", file=sys.stderr)
            else:
                self.log_path.unlink()
            self.log_path = None


class RssSampler(threading.Thread):
    """Samples the server's RSS, and that of its whole process tree (the server and every
    helper or short-lived child it has at that moment), every ``every`` seconds until stopped."""

    def __init__(self, server: Server, every: float = 0.5):
        super().__init__(daemon=True)
        self.server, self.every = server, every
        self.samples: list[tuple[float, float]] = []
        self.tree_peak = 0.0
        self.tree_pss_peak = 0.0
        self._stop_event = threading.Event()
        self.t0 = time.perf_counter()

    def run(self) -> None:
        while not self._stop_event.is_set():
            rss = self.server.rss_mb()
            if rss is not None:
                self.samples.append((time.perf_counter() - self.t0, rss))
                tree = rss + self.server.helpers_rss_mb()
                self.tree_peak = max(self.tree_peak, tree)
                if tree >= 0.9 * self.tree_peak:  # near a peak: PSS reads every page table
                    pss = self.server.tree_pss_mb() or 0.0
                    self.tree_pss_peak = max(self.tree_pss_peak, pss)
            self._stop_event.wait(self.every)

    def stop(self) -> None:
        self._stop_event.set()
        self.join(timeout=5)

    def peak(self) -> float | None:
        return max((r for _, r in self.samples), default=None)


# -- what a student does ---------------------------------------------------------------------


@dataclass
class Record:
    """Everything the sessions measured, shared by the threads (guarded by ``lock``)."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    latencies: list[float] = field(default_factory=list)
    by_action: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    opens: list[float] = field(default_factory=list)
    failed_sessions: set[int] = field(default_factory=set)
    failures: list[str] = field(default_factory=list)
    counts: Counter = field(default_factory=Counter)
    bytes: int = 0
    slowest: list[tuple[float, str, dict]] = field(default_factory=list)
    by_order: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    polls: list[float] = field(default_factory=list)  # timer-driven fragment runs
    ready: list[float] = field(default_factory=list)  # action -> the page's timers all done
    unready: int = 0  # the student acted again while the page was still polling
    #: behind a proxy of replicas: (the replica the session's cookie named, the replicas that
    #: answered its requests) for each connection a session made; and how many reconnects
    affinity: list[tuple[str | None, list[str]]] = field(default_factory=list)
    reconnects: int = 0
    done_at: list[float] = field(default_factory=list)  # perf_counter when each rerun ended
    #: behind a proxy: (perf_counter at its end, seconds, the replica its session's cookie
    #: named, the session) for each of the students' reruns; and the sessions that reconnected
    on_replica: list[tuple[float, float, str, int]] = field(default_factory=list)
    reconnected: set[int] = field(default_factory=set)
    first_replica: dict[int, str] = field(default_factory=dict)  # session -> at its opening

    def connection(self, client: StreamlitClient, first: int) -> None:
        """Note which replicas answered ``client`` since its ``first`` response."""
        if client.replicas_seen[first:]:
            with self.lock:
                self.affinity.append((client.cookie(AFFINITY_COOKIE), client.replicas_seen[first:]))

    def rerun(
        self,
        action: str,
        seconds: float,
        nbytes: int,
        state: dict | None = None,
        replica: str | None = None,
        session: int | None = None,
    ) -> None:
        with self.lock:
            self.latencies.append(seconds)
            self.done_at.append(time.perf_counter())
            if replica is not None and session is not None:
                self.on_replica.append((self.done_at[-1], seconds, replica, session))
            self.by_action[action].append(seconds)
            self.bytes += nbytes
            order = next((v for k, v in (state or {}).items() if k.endswith(".order")), None)
            if isinstance(order, int):
                bucket = next(b for b, top in ORDER_BUCKETS if order <= top)
                self.by_order[bucket].append(seconds)
            if state is not None and (len(self.slowest) < 8 or seconds > self.slowest[-1][0]):
                self.slowest = sorted([*self.slowest, (seconds, action, state)], reverse=True)[:8]

    def poll(self, seconds: float) -> None:
        with self.lock:
            self.polls.append(seconds)

    def settled(self, seconds: float | None) -> None:
        """The page stopped polling ``seconds`` after the action (None: it had not yet)."""
        with self.lock:
            if seconds is None:
                self.unready += 1
            else:
                self.ready.append(seconds)

    def fail(self, session: int, reason: str) -> None:
        with self.lock:
            self.failed_sessions.add(session)
            self.failures.append(f"session {session}: {reason}"[:300])

    def count(self, what: str) -> None:
        with self.lock:
            self.counts[what] += 1


def _function(rng: random.Random, bad_share: float = 0.25) -> tuple[str, bool]:
    if rng.random() < bad_share:
        return rng.choice(BAD), False
    text = rng.choice(VALID).format(
        a=rng.choice([0.5, 1.5, 2, 3, 4]), b=rng.choice([2, 3, 5]), n=rng.randint(2, 9)
    )
    return text, True


def _slider_value(w: Widget, rng: random.Random) -> Any:
    p = w.proto
    if w.options:  # select slider
        if len(p.default) == 2:
            i, j = sorted(rng.sample(range(len(w.options)), 2))
            return (w.options[i], w.options[j])
        return rng.choice(w.options)
    step = p.step or 1.0
    n = max(1, int(round((p.max - p.min) / step)))
    grid = lambda k: round(p.min + step * min(max(k, 0), n), 10)
    if len(p.default) == 2:
        i, j = sorted(rng.sample(range(n + 1), 2))
        return (grid(i), grid(j))
    cur = w.current()
    if isinstance(cur, (int, float)) and rng.random() < 0.6:  # drag a little
        k = round((cur - p.min) / step) + rng.choice([-3, -2, -1, 1, 2, 3])
        return grid(k)
    return grid(rng.randint(0, n))


def choose(
    client: StreamlitClient, rng: random.Random, mix: str = "full"
) -> tuple[str, bool | None]:
    """Make one random change a student could make; return (action, expected validity).

    Expected validity is True/False for a typed function (valid/broken), else None. With
    ``mix="light"`` the student follows a lecture at modest settings: orders up to
    ``LIGHT_MAX_ORDER``, no method switch, no buttons.
    """
    widgets = [w for w in client.widgets.values() if w.key and not w.proto.disabled]
    if mix == "light":
        widgets = [w for w in widgets if w.kind != "button" and ".method" not in w.key]
    if not widgets:
        return "rerun", None
    kinds = []
    for w in widgets:
        if w.key == "lang":
            kinds.append("lang")
        elif w.kind in ("text_input", "text_area"):
            kinds.append("fn" if w.key.endswith(".fn") else "text")
        else:
            kinds.append(w.kind)
    i = rng.choices(range(len(widgets)), [WEIGHTS.get(k, 1.0) for k in kinds])[0]
    w, kind = widgets[i], kinds[i]
    expect: bool | None = None
    action = w.key.split(".", 1)[-1] if "." in w.key else w.key
    if kind == "fn":
        text, expect = _function(rng)
        client.set_value(w.key, text)
        action = "fn.valid" if expect else "fn.bad"
    elif kind == "text":
        client.set_value(w.key, rng.choice(VALID).format(a=2, b=3, n=3))
    elif kind == "slider":
        value = _slider_value(w, rng)
        if mix == "light" and w.key.endswith(".order"):
            value = min(value, LIGHT_MAX_ORDER)
        client.set_value(w.key, value)
    elif kind in ("radio", "selectbox", "lang", "tabs"):
        others = [o for o in w.options if o != w.current()] or w.options
        client.set_value(w.key, rng.choice(others))
    elif kind == "checkbox":
        client.set_value(w.key, not w.current())
    elif kind in ("button_group", "multiselect"):
        client.set_value(w.key, [rng.choice(w.options)] if w.options else [])
    elif kind == "number_input":
        p = w.proto
        low = p.min if p.has_min else (w.current() or 0) - 10
        high = p.max if p.has_max else (w.current() or 0) + 10
        v = rng.uniform(low, high)
        client.set_value(w.key, round(v) if p.data_type == 0 else v)  # 0: INT
    elif kind == "button":
        client.click(w.key)
    if w.form_id:  # a change inside a form counts only with its submit button
        for other in client.widgets.values():
            p = other.proto
            if other.kind == "button" and p.is_form_submitter and p.form_id == w.form_id:
                client.click_id(other.id)
    return action, expect


def check(client: StreamlitClient, typed: str | None, expect: bool | None) -> str | None:
    """What is wrong with the page after a run, or None."""
    if client.exceptions:
        return f"exception on the page: {client.exceptions[-1][:200]}"
    if not client.headings:
        return "no title on the page"
    if expect is None or typed is None or "deriv.fn" not in set(client.keys()):
        return None
    echoed = typed in client.echoed
    if expect is False and not (client.errors and echoed):
        return f"broken input {typed!r} was not refused with an error that echoes it"
    if expect is True and echoed:
        return f"valid input {typed!r} was refused: {client.errors[:1]}"
    return None


def classify(client: StreamlitClient, record: Record) -> None:
    for e in client.errors:
        record.count("busy" if e.startswith(BUSY) else "error_shown")


def wait_polling(
    client: StreamlitClient, record: Record, wake: float, since: float | None
) -> float | None:
    """Sleep until ``wake`` while firing the page's ``run_every`` timers as a browser does
    (the derivatives page polls while its background columns are on their way). ``since`` is when the
    action that started the polling was sent; returns it, or None once the page has stopped
    polling (the time it took is recorded)."""
    due = {fid: time.perf_counter() + every for fid, every in client.auto_reruns.items()}
    while due:
        fid, when = min(due.items(), key=lambda kv: kv[1])
        if when >= wake:
            break
        time.sleep(max(0.0, when - time.perf_counter()))
        run = client.poll(fid)
        record.poll(run.seconds)
        now = time.perf_counter()
        due = {
            f: due.get(f, now + every) if f != fid else now + every
            for f, every in client.auto_reruns.items()
        }
    if since is not None and not client.auto_reruns:
        record.settled(time.perf_counter() - since)
        since = None
    time.sleep(max(0.0, wake - time.perf_counter()))
    return since


#: A simulated browser reopens a lost connection this many times before its student gives up.
RECONNECTS = 5


def act(
    client: StreamlitClient,
    record: Record,
    rng: random.Random,
    mix: str,
    pause: float,
    since: float | None,
    sid: int,
) -> float | None:
    """Think for ``pause`` seconds (firing the page's timers), then one action and its rerun;
    returns when the action was sent if the page is still polling for it, else None."""
    since = wait_polling(client, record, time.perf_counter() + pause, since)
    if since is not None:  # acting again before the page had finished polling
        record.settled(None)
    action, expect = choose(client, rng, mix)
    typed = None
    if action.startswith("fn."):
        typed = next(w.value[1] for w in client.widgets.values() if w.key and w.key.endswith(".fn"))
    state = {w.key: w.current() for w in client.widgets.values() if w.key}
    sent = time.perf_counter()
    run = client.rerun()
    record.rerun(action, run.seconds, run.nbytes, state, client.cookie(AFFINITY_COOKIE), sid)
    classify(client, record)
    problem = check(client, typed, expect)
    if problem:
        record.fail(sid, f"{action}: {problem}")
        client.exceptions.clear()
    return sent if client.auto_reruns else None


def reopen(client: StreamlitClient, page: str, record: Record) -> int:
    """Open ``page`` again after a lost connection, as a browser reconnects: up to
    ``RECONNECTS`` tries, 0.5 s more pause each time. Returns the index of the new
    connection's first response in ``client.replicas_seen``.

    Raises:
        ProtocolError, OSError: every try failed.
    """
    for attempt in range(RECONNECTS):
        client.close()
        client.forget_session()  # a new replica, a new session: nothing of the old page
        conn_start = len(client.replicas_seen)
        try:
            reopened = client.open(page)
        except (ProtocolError, OSError):
            if attempt == RECONNECTS - 1:
                raise
            time.sleep(0.5 * (attempt + 1))
            continue
        with record.lock:
            record.reconnects += 1
        record.rerun("reconnect", reopened.seconds, reopened.nbytes, None)
        return conn_start
    raise AssertionError("unreachable")


def student(
    sid: int,
    url: str,
    page: str,
    record: Record,
    *,
    think: float,
    until: float,
    start_within: float,
    timeout: float,
    seed: int,
    mix: str = "full",
    max_actions: int = 10_000,
    reconnect: bool = False,
    replica: str | None = None,
) -> None:
    """One simulated student: open ``page``, then act every ``think`` x U(0.5, 1.5) s. With
    ``reconnect``, a lost connection is opened again, as Streamlit's front end does, up to
    ``RECONNECTS`` times with a growing pause (the session starts afresh: behind replicas, on
    whichever replica the proxy chooses); otherwise a lost connection fails the session. With
    ``replica``, the student arrives holding the proxy's affinity cookie naming it."""
    rng = random.Random(seed)
    time.sleep(rng.uniform(0, start_within))
    cookies = {AFFINITY_COOKIE: replica} if replica else None
    client = StreamlitClient(url, timeout=timeout, cookies=cookies)
    conn_start = 0  # index of the client's first response on its current connection
    try:
        first = client.open(page)
        record.opens.append(first.seconds)
        opened_on = client.cookie(AFFINITY_COOKIE)
        if opened_on:
            with record.lock:
                record.first_replica[sid] = opened_on
        problem = check(client, None, None)
        if problem:
            record.fail(sid, f"open: {problem}")
        since: float | None = None  # when the action the page is still polling for was sent
        for _ in range(max_actions):
            pause = think * rng.uniform(0.5, 1.5)
            if time.perf_counter() + pause >= until:
                break
            try:
                since = act(client, record, rng, mix, pause, since, sid)
            except (ProtocolError, OSError):
                if not reconnect:
                    raise
                record.connection(client, conn_start)
                with record.lock:
                    record.reconnected.add(sid)
                conn_start = reopen(client, page, record)
                since = None
    except (ProtocolError, OSError) as err:
        record.fail(sid, f"{type(err).__name__}: {err}")
    except Exception as err:  # a bug in this tool must not hang the run
        record.fail(sid, f"client bug {type(err).__name__}: {err}")
    finally:
        record.connection(client, conn_start)
        client.close()


def survivors(record: Record, at: float, replica: str) -> dict[str, Any]:
    """What the students who opened the page on ``replica`` saw before and after ``at`` (a
    perf_counter time: when another replica was killed): their reruns' percentiles on each
    side, and how many of them failed or reconnected. Both counts should be 0: these are the
    students who must notice nothing but, at most, a busier replica."""
    with record.lock:
        rows = list(record.on_replica)
        moved, failed = set(record.reconnected), set(record.failed_sessions)
        stayed = {sid for sid, name in record.first_replica.items() if name == replica}
    before = [sec for end, sec, _, sid in rows if sid in stayed and end < at]
    after = [sec for end, sec, _, sid in rows if sid in stayed and end >= at]
    return {
        "replica": replica,
        "sessions": len(stayed),
        "failed": len(stayed & failed),
        "reconnected": len(stayed & moved),
        # reruns of theirs whose session's cookie named another replica (should be 0)
        "reruns_elsewhere": sum(1 for _, _, name, sid in rows if sid in stayed and name != replica),
        "before": {
            "reruns": len(before),
            "p50_ms": ms(pct(before, 50)),
            "p95_ms": ms(pct(before, 95)),
        },
        "after": {"reruns": len(after), "p50_ms": ms(pct(after, 50)), "p95_ms": ms(pct(after, 95))},
    }


# -- the phases ------------------------------------------------------------------------------


def solo(url: str, page: str, timeout: float, repeats: int = 12) -> dict[str, Any]:
    """One session alone on the server: the cost of a rerun without queueing.

    Plain reruns (every result cached) and moves of the first slider whose key ends in
    ".x0" (or plain reruns again if there is none). Streamlit runs every session's script in
    one Python process, so the server can do at most about 1000 / ``solo_rerun_p50_ms``
    reruns a second of this kind, whatever the number of cores.
    """
    plain: list[float] = []
    moved: list[float] = []
    with StreamlitClient(url, timeout=timeout) as c:
        c.open(page)
        for i in range(repeats):
            plain.append(c.rerun().seconds)
            w = next((w for w in c.widgets.values() if w.key and w.key.endswith(".x0")), None)
            if w is not None:
                p = w.proto
                c.set_value(w.key, p.min + (p.max - p.min) * ((i * 7) % 11) / 10)
            moved.append(c.rerun().seconds)
    p50 = pct(plain, 50)
    return {
        "solo_rerun_p50_ms": ms(p50),
        "solo_x0_p50_ms": ms(pct(moved, 50)),
        "solo_capacity_reruns_per_s": round(1 / p50, 1) if p50 else None,
    }


def storm(url: str, page: str, count: int, timeout: float, assets: bool) -> dict[str, Any]:
    """``count`` sessions load the page at the same instant."""
    barrier = threading.Barrier(count + 1)
    screens: list[float] = []
    paints: list[float] = []
    https: list[float] = []
    scripts: list[float] = []
    failures: list[str] = []
    clients: list[StreamlitClient] = []
    lock = threading.Lock()

    def one(i: int) -> None:
        client = StreamlitClient(url, timeout=timeout, fetch_assets=assets)
        with lock:
            clients.append(client)
        try:
            barrier.wait(timeout=60)
            t0 = time.perf_counter()
            client.connect(page)
            connected = time.perf_counter()
            run = client.open(page)
            problem = check(client, None, None)
            with lock:
                screens.append(time.perf_counter() - t0)
                https.append(connected - t0)
                scripts.append(run.seconds)
                if run.first_delta_seconds is not None:
                    paints.append(connected - t0 + run.first_delta_seconds)
                if problem:
                    failures.append(f"storm {i}: {problem}")
        except Exception as err:
            with lock:
                failures.append(f"storm {i}: {type(err).__name__}: {err}"[:300])

    threads = [threading.Thread(target=one, args=(i,), daemon=True) for i in range(count)]
    for t in threads:
        t.start()
    barrier.wait(timeout=60)
    for t in threads:
        t.join(timeout=timeout + 60)
    nbytes = sum(c.http_bytes for c in clients)
    for c in clients:
        c.close()
    return {
        "storm": count,
        "storm_failed": len(failures),
        "storm_failures": failures[:5],
        "first_screen_p50_ms": ms(pct(screens, 50)),
        "first_screen_p95_ms": ms(pct(screens, 95)),
        "first_screen_max_ms": ms(max(screens, default=None)),
        "first_paint_p95_ms": ms(pct(paints, 95)),
        "storm_http_p95_ms": ms(pct(https, 95)),  # HTML, JS/CSS, health, websocket
        "storm_script_p95_ms": ms(pct(scripts, 95)),  # the first script run alone
        "storm_http_mb": round(nbytes / 2**20, 1),
    }


def idle(server: Server, url: str, page: str, count: int, timeout: float) -> dict[str, Any]:
    """Open ``count`` sessions one by one, keep them connected, and weigh them."""
    time.sleep(1.0)
    before = server.rss_mb()
    clients = []
    failed = 0
    try:
        for _ in range(count):
            c = StreamlitClient(url, timeout=timeout)
            clients.append(c)
            try:
                c.open(page)
            except (ProtocolError, OSError):
                failed += 1
        time.sleep(2.0)
        after = server.rss_mb()
    finally:
        for c in clients:
            c.close()
    per = None if before is None or after is None else (after - before) / count
    return {
        "idle_sessions": count,
        "idle_failed": failed,
        "rss_before_idle_mb": None if before is None else round(before, 1),
        "rss_with_idle_mb": None if after is None else round(after, 1),
        "mb_per_idle_session": None if per is None else round(per, 2),
    }


def soak(
    server: Server, url: str, page: str, reruns: int, seconds: float, timeout: float, seed: int
) -> dict[str, Any]:
    """``reruns`` reruns by 4 sessions without think time (at most ``seconds``); RSS after a
    fifth and at the end."""
    record = Record()
    workers = 4
    clients = [StreamlitClient(url, timeout=timeout) for _ in range(workers)]
    rngs = [random.Random(seed + i) for i in range(workers)]
    for c in clients:
        c.open(page)

    def work(i: int, n: int, until: float) -> None:
        c, rng = clients[i], rngs[i]
        try:
            for _ in range(n):
                if time.perf_counter() >= until:
                    break
                action, expect = choose(c, rng)
                run = c.rerun()
                record.rerun(action, run.seconds, run.nbytes)
                problem = check(c, None, None)
                if problem:
                    record.fail(i, problem)
                    c.exceptions.clear()
        except (ProtocolError, OSError) as err:
            record.fail(i, f"{type(err).__name__}: {err}")

    def part(total: int, until: float) -> None:
        share = [total // workers + (k < total % workers) for k in range(workers)]
        ts = [
            threading.Thread(target=work, args=(k, share[k], until), daemon=True)
            for k in range(workers)
        ]
        for t in ts:
            t.start()
        for t in ts:
            t.join(timeout=timeout * max(share) + 60)

    warm = max(1, reruns // 5)
    t0 = time.perf_counter()
    part(warm, t0 + seconds / 5)
    time.sleep(1.0)
    rss_warm = server.rss_mb()
    part(reruns - warm, t0 + seconds)
    time.sleep(1.0)
    rss_end = server.rss_mb()
    for c in clients:
        c.close()
    growth = None
    if rss_warm and rss_end:
        growth = round(100 * (rss_end - rss_warm) / rss_warm, 2)
    return {
        "soak_reruns": len(record.latencies),
        "soak_seconds": round(time.perf_counter() - t0, 1),
        "soak_p95_ms": ms(pct(record.latencies, 95)),
        "soak_failed": len(record.failed_sessions),
        "soak_failures": record.failures[:5],
        "rss_after_warm_reruns_mb": None if rss_warm is None else round(rss_warm, 1),
        "rss_after_soak_mb": None if rss_end is None else round(rss_end, 1),
        "rss_growth_pct": growth,
    }


_IDLE_JS = (
    "() => { const a = document.querySelector('[data-testid=\"stApp\"]');"
    " return !!a && a.dataset.testScriptState === 'notRunning'"
    " && a.dataset.testConnectionState === 'CONNECTED'"
    " && !!document.querySelector('[data-testid=\"stMain\"] h1'); }"
)


def _renice_children(spare: int | None, niceness: int = 19) -> None:
    """Lower the priority of the Playwright driver and Chromium (our child processes, except
    the server under test, pid ``spare``, and its own children: until 2026-11-30 they were
    lowered too, and with two tabs the server ran at the tabs' priority).

    In a classroom every student's browser renders on the student's own machine; here they
    share the server's two cores. At nice 19 they use what the server leaves over, so their
    rendering does not slow the server that is being measured (their own timings do include
    it, and are reported apart).
    """
    server: set[int] = set()
    if spare is not None:
        try:
            server = {spare, *(p.pid for p in psutil.Process(spare).children(recursive=True))}
        except psutil.Error:
            server = {spare}
    for proc in psutil.Process().children(recursive=True):
        if proc.pid in server:
            continue
        try:
            if proc.nice() < niceness:
                proc.nice(niceness)
        except psutil.Error:
            pass


def browsers(
    url: str,
    page: str,
    count: int,
    until: float,
    think: float,
    seed: int,
    out: dict,
    spare: int | None = None,
) -> None:
    """``count`` Chromium tabs: open the page, then type functions and switch the method.

    A rerun is timed from the key press until the websocket delivered ``script_finished``
    and the page is idle again (so it includes rendering). Runs in its own thread.
    """
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    out.update(count=count, first_screen_ms=[], reruns=0, failed=0, failures=[])
    latencies: list[float] = []
    if count <= 0:
        return
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as err:
        out["failures"].append(f"playwright: {err}")
        out["failed"] = count
        return
    if not Path(CHROMIUM).exists():
        out["failures"].append(f"{CHROMIUM} is missing")
        out["failed"] = count
        return
    rng = random.Random(seed)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        tabs = []
        try:
            for _ in range(count):
                ctx = browser.new_context(viewport={"width": 1280, "height": 800})
                tab = ctx.new_page()
                tab.set_default_timeout(30_000)
                finished: list[float] = []

                def on_ws(ws, finished=finished) -> None:
                    def frame(payload) -> None:
                        if isinstance(payload, bytes):
                            m = ForwardMsg.FromString(payload)
                            if m.WhichOneof("type") == "script_finished" and m.script_finished in (
                                ForwardMsg.FINISHED_SUCCESSFULLY,
                                ForwardMsg.FINISHED_WITH_COMPILE_ERROR,
                            ):
                                finished.append(time.perf_counter())

                    ws.on("framereceived", frame)

                tab.on("websocket", on_ws)
                _renice_children(spare)
                t0 = time.perf_counter()
                tab.goto(f"{url}/{page}")
                tab.wait_for_function(_IDLE_JS, timeout=60_000)
                out["first_screen_ms"].append(ms(time.perf_counter() - t0))
                tabs.append((ctx, tab, finished))
            while time.perf_counter() < until:
                for i, (_, tab, finished) in enumerate(tabs):
                    if time.perf_counter() >= until:
                        break
                    tab.wait_for_timeout(1000 * think * rng.uniform(0.5, 1.5) / len(tabs))
                    _renice_children(spare)  # Chromium may have started new processes
                    try:
                        n0 = len(finished)
                        t0 = time.perf_counter()
                        other = tab.locator(  # an option of the method radio not chosen yet
                            "[data-testid='stMain'] [data-testid='stRadio'] "
                            "label:has(input:not(:checked))"
                        )
                        if rng.random() < 0.3 and other.count():
                            other.first.click()
                        else:
                            box = tab.locator(
                                "[data-testid='stMain'] [data-testid='stTextInput'] input"
                            ).first
                            text = _function(rng, bad_share=0.0)[0]
                            while text == box.input_value():
                                text = _function(rng, bad_share=0.0)[0]
                            box.fill(text)
                            box.press("Enter")
                        deadline = time.perf_counter() + 30
                        while len(finished) == n0 and time.perf_counter() < deadline:
                            tab.wait_for_timeout(5)
                        tab.wait_for_function(_IDLE_JS, timeout=30_000)
                        if len(finished) == n0:
                            raise TimeoutError("no script_finished within 30 s")
                        latencies.append(time.perf_counter() - t0)
                        out["reruns"] += 1
                        if tab.locator("[data-testid='stException']").count():
                            raise RuntimeError("exception on the page")
                    except Exception as err:
                        out["failed"] += 1
                        out["failures"].append(f"browser {i}: {type(err).__name__}: {err}"[:300])
        finally:
            cpu = 0.0
            for proc in psutil.Process().children(recursive=True):
                try:
                    t = proc.cpu_times()
                    cpu += t.user + t.system
                except psutil.Error:
                    pass
            out["cpu_seconds"] = round(cpu, 1)  # the Playwright driver and Chromium
            for ctx, _, _ in tabs:
                ctx.close()
            browser.close()
    out["rerun_p50_ms"] = ms(pct(latencies, 50))
    out["rerun_p95_ms"] = ms(pct(latencies, 95))
    out["rerun_max_ms"] = ms(max(latencies, default=None))


def _per_rerun(
    before: tuple[float, float, int | None] | None,
    after: tuple[float, float, int | None] | None,
    runs: int,
) -> dict[str, float | None]:
    """The server's user and kernel CPU milliseconds and minor page faults per rerun."""
    out: dict[str, float | None] = {
        "server_user_ms_per_rerun": None,
        "server_kernel_ms_per_rerun": None,
        "server_faults_per_rerun": None,
    }
    if before is None or after is None or runs == 0:
        return out
    out["server_user_ms_per_rerun"] = round(1000 * (after[0] - before[0]) / runs, 2)
    out["server_kernel_ms_per_rerun"] = round(1000 * (after[1] - before[1]) / runs, 2)
    if before[2] is not None and after[2] is not None:
        out["server_faults_per_rerun"] = round((after[2] - before[2]) / runs)
    return out


def _steady_rate(done_at: list[float], start: float, end: float) -> float | None:
    """Reruns per second that ended between ``start`` and ``end``."""
    if end <= start:
        return None
    return round(sum(start <= t <= end for t in done_at) / (end - start), 1)


def load(
    server: Server,
    url: str,
    pages: list[str],
    args: argparse.Namespace,
    record: Record | None = None,
) -> dict[str, Any]:
    """N students with think time, plus the browser tabs; RSS sampled throughout. ``record``:
    where the sessions write what they measure (a new one by default; pass one to read more
    of it afterwards, as :func:`survivors` does)."""
    record = Record() if record is None else record
    sampler = RssSampler(server)
    sampler.start()
    split0, me0, t0 = server.cpu_split(), psutil.Process().cpu_times(), time.perf_counter()
    helpers0 = server.helpers_cpu_seconds()
    psutil.cpu_percent(interval=None)  # starts the machine-wide measurement
    until = t0 + args.seconds
    start_within = min(5.0, args.seconds / 4)
    threads = [
        threading.Thread(
            target=student,
            daemon=True,
            args=(i, url, pages[i % len(pages)], record),
            kwargs=dict(
                think=args.think,
                mix=args.mix,
                until=until,
                start_within=start_within,
                timeout=args.timeout,
                seed=args.seed * 1000 + i,
                reconnect=getattr(args, "reconnect", False),
                replica=getattr(args, "replica", None),
            ),
        )
        for i in range(args.sessions)
    ]
    browser_out: dict[str, Any] = {}
    bt = threading.Thread(
        target=browsers,
        daemon=True,
        args=(url, pages[0], args.browsers, until, args.think, args.seed, browser_out, server.pid),
    )
    if args.browsers:
        bt.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=max(1.0, until - time.perf_counter()) + args.timeout + 30)
    if args.browsers:
        bt.join(timeout=max(1.0, until - time.perf_counter()) + 120)
    wall = time.perf_counter() - t0
    split1, me1 = server.cpu_split(), psutil.Process().cpu_times()
    helpers1 = server.helpers_cpu_seconds()
    machine = psutil.cpu_percent(interval=None)
    sampler.stop()
    lat = record.latencies
    by_action = {
        a: {"n": len(v), "p50_ms": ms(pct(v, 50)), "p95_ms": ms(pct(v, 95))}
        for a, v in sorted(record.by_action.items())
    }
    timeline = sampler.samples[:: max(1, len(sampler.samples) // 40)]
    return {
        "sessions": args.sessions,
        "seconds": args.seconds,
        "think": args.think,
        "pages": pages,
        "mix": args.mix,
        "reruns": len(lat),
        "reruns_per_s": round(len(lat) / wall, 1),
        # the same once every student has started (the ramp left out), until the phase ends
        "steady_reruns_per_s": _steady_rate(record.done_at, t0 + start_within, until),
        "p50_ms": ms(pct(lat, 50)),
        "p95_ms": ms(pct(lat, 95)),
        "p99_ms": ms(pct(lat, 99)),
        "max_ms": ms(max(lat, default=None)),
        "mean_ms": ms(statistics.fmean(lat)) if lat else None,
        "failed": len(record.failed_sessions),
        "failures": record.failures[:10],
        "reruns_over_2s": sum(x > 2 for x in lat),  # what a student calls a frozen page
        "reruns_over_10s": sum(x > 10 for x in lat),
        "busy": record.counts["busy"],
        "errors_shown": record.counts["error_shown"],
        "open_p95_ms": ms(pct(record.opens, 95)),
        # the derivatives page's polls while sympy and nested autograd work in the background
        # (not in p50/p95 above, which are the students' own actions), and how long after an
        # action the page had those columns whole (the polling stopped); "unready": the
        # student moved on first
        "polls": len(record.polls),
        "poll_p95_ms": ms(pct(record.polls, 95)),
        "settled": len(record.ready),
        "settled_p50_ms": ms(pct(record.ready, 50)),
        "settled_p95_ms": ms(pct(record.ready, 95)),
        "unsettled": record.unready,
        "mb_sent_to_clients": round(record.bytes / 2**20, 1),
        "rss_peak_mb": None if sampler.peak() is None else round(sampler.peak(), 1),
        # the server with every child it had at the time (helpers, a flag lab's fresh process)
        "tree_peak_mb": round(sampler.tree_peak, 1),
        "tree_pss_peak_mb": round(sampler.tree_pss_peak, 1),
        "server_cpu_pct": None
        if split0 is None or split1 is None
        else round(100 * (sum(split1[:2]) - sum(split0[:2])) / wall),
        # the server's CPU (user, kernel) and minor page faults over the run, per rerun counted
        # in "reruns" (the students' own actions; polls and opens cost too and are not counted)
        **_per_rerun(split0, split1, len(lat)),
        # the server's child processes (the flag lab's fresh ones), not in server_cpu_pct
        "helpers_cpu_pct": round(100 * max(0.0, helpers1 - helpers0) / wall),
        "helpers_rss_mb": round(server.helpers_rss_mb(), 1),
        "machine_cpu_pct": machine,  # all cores together, 100 = every core busy
        "loadgen_cpu_pct": round(
            100 * (me1.user + me1.system - me0.user - me0.system) / wall
        ),  # this process (clients + Playwright driver; Chromium runs in its own processes)
        "by_action": by_action,
        "by_order": {
            b: {"n": len(v), "p50_ms": ms(pct(v, 50)), "p95_ms": ms(pct(v, 95))}
            for b, _ in ORDER_BUCKETS
            if (v := record.by_order.get(b))
        },
        "slowest": [
            {"ms": ms(sec), "action": a, "state": {k: v for k, v in st.items() if v is not None}}
            for sec, a, st in record.slowest
        ],
        "rss_timeline": [[round(t, 1), round(r, 1)] for t, r in timeline],
        "browsers": browser_out,
        # behind replicas: connections whose every response came from the replica their
        # session-affinity cookie names, of all connections that saw a replica at all
        "affinity_connections": len(record.affinity),
        "affinity_held": sum(affinity_held(cookie, seen) for cookie, seen in record.affinity),
        "reconnects": record.reconnects,
    }


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", help="a running server on this machine (default: start one)")
    ap.add_argument("--sessions", type=int, default=10, help="simulated students (default 10)")
    ap.add_argument(
        "--seconds", type=float, default=30, help="length of the load phase, s (default 30)"
    )
    ap.add_argument("--think", type=float, default=2.0, help="mean think time, s (default 2)")
    ap.add_argument(
        "--storm", type=int, default=20, help="sessions opening at once (default 20; 0 skips)"
    )
    ap.add_argument(
        "--idle",
        type=int,
        default=None,
        help="idle sessions to weigh (default: as many as --sessions; 0 skips)",
    )
    ap.add_argument(
        "--soak",
        type=int,
        default=150,
        help="reruns for the growth measure (default 150; the target is stated for 1000; 0 skips)",
    )
    ap.add_argument(
        "--soak-seconds", type=float, default=40, help="time bound of the soak (default 40 s)"
    )
    ap.add_argument("--browsers", type=int, default=2, help="real Chromium tabs (default 2)")
    ap.add_argument(
        "--pages",
        default="derivatives",
        help="comma-separated URL paths, or "
        "'all' for every page in the app's navigation (default: derivatives)",
    )
    ap.add_argument(
        "--mix",
        choices=("full", "light"),
        default="full",
        help="what students "
        "do: 'full' (any setting, default) or 'light' (orders up to "
        f"{LIGHT_MAX_ORDER}, no method switch, no buttons)",
    )
    ap.add_argument("--no-assets", action="store_true", help="storm without JS/CSS downloads")
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds for any one wait")
    ap.add_argument(
        "--server-env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="environment for the server this tool starts, for experiments "
        "(e.g. MALLOC_ARENA_MAX=2); repeatable",
    )
    ap.add_argument(
        "--reconnect",
        action="store_true",
        help="a student whose connection drops "
        "opens the page again, as a browser does (for replicas behind a proxy)",
    )
    ap.add_argument(
        "--replica",
        metavar="NAME",
        help="behind deploy/replicas.py's proxy: every "
        f"student arrives with the {AFFINITY_COOKIE} cookie naming this replica "
        "(r1, r2, ...), so all of them are served by it",
    )
    ap.add_argument(
        "--first-screens",
        type=int,
        default=0,
        metavar="ROUNDS",
        help="the first "
        "visitor in Chromium, then ROUNDS rounds of deep links to every page "
        "(benchmarks/first_screens.py), before the other phases (default 0: skip)",
    )
    ap.add_argument("--seed", type=int, default=6)
    ap.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    args = ap.parse_args(argv)
    for name, top in (
        ("sessions", 500),
        ("storm", 500),
        ("idle", 500),
        ("soak", 10_000),
        ("browsers", 8),
    ):
        value = getattr(args, name)
        if value is not None and not 0 <= value <= top:
            ap.error(f"--{name}: expected 0 to {top}, got {value}")
    if not 1 <= args.seconds <= 3600 or not 0 <= args.think <= 60:
        ap.error("--seconds: expected 1 to 3600; --think: expected 0 to 60")
    if args.replica is not None and not (args.replica[:1] == "r" and args.replica[1:].isdigit()):
        ap.error(f"--replica: expected a replica's name (r1, r2, ...), got {args.replica!r}")
    if not 0 <= args.first_screens <= 20:
        ap.error(f"--first-screens: expected 0 to 20, got {args.first_screens}")
    if not 1 <= args.soak_seconds <= 3600:
        ap.error(f"--soak-seconds: expected 1 to 3600, got {args.soak_seconds}")
    args.idle = args.sessions if args.idle is None else args.idle
    return args


def run(args: argparse.Namespace) -> dict[str, Any]:
    t_start = time.perf_counter()
    busy_before = psutil.cpu_percent(interval=1.0)  # other work on this machine skews it all
    if busy_before > 20:
        log(f"warning: the machine is already {busy_before:.0f}% busy before the benchmark")
    log("starting the server" if not args.url else f"using {args.url}")
    env = dict(item.split("=", 1) for item in args.server_env)
    server = Server(args.url, env)
    result: dict[str, Any] = {
        "url": server.url,
        "server_pid": server.pid,
        "server_env": env,
        "cores": os.cpu_count(),
        "machine_cpu_before_pct": busy_before,
        "loadavg_before": os.getloadavg()[0],
    }
    try:
        result["rss_boot_mb"] = server.rss_mb() and round(server.rss_mb(), 1)
        if args.first_screens:
            from benchmarks.first_screens import first_screens

            log(f"first screens: the first visitor, then {args.first_screens} rounds of deep links")
            first = args.pages.split(",")[0] if args.pages != "all" else "derivatives"
            result["first_screens"] = first_screens(server.url, args.first_screens, first)
        log("warm-up: one session on the fresh server")
        with StreamlitClient(server.url, timeout=max(args.timeout, 90)) as c:
            first_page = args.pages.split(",")[0] if args.pages != "all" else "derivatives"
            t0 = time.perf_counter()
            c.open(first_page)
            result["cold_first_screen_ms"] = ms(time.perf_counter() - t0)
            routes = sorted(p for p in c.pages if p)
        pages = routes if args.pages == "all" else args.pages.split(",")
        time.sleep(2.0)
        rss = server.rss_mb()
        result["rss_start_mb"] = None if rss is None else round(rss, 1)
        log("solo: one session's reruns on the quiet server")
        result.update(solo(server.url, pages[0], args.timeout))
        if args.storm:
            log(f"storm: {args.storm} sessions open {pages[0]} at once")
            result.update(storm(server.url, pages[0], args.storm, args.timeout, not args.no_assets))
        if args.idle:
            log(f"idle: {args.idle} sessions open one by one and stay")
            result.update(idle(server, server.url, pages[0], args.idle, args.timeout))
        if args.sessions:
            log(
                f"load: {args.sessions} sessions + {args.browsers} browsers for {args.seconds:g} s "
                f"(think {args.think:g} s) on {', '.join(pages)}"
            )
            result.update(load(server, server.url, pages, args))
        if args.soak:
            log(f"soak: {args.soak} reruns by 4 sessions")
            result.update(
                soak(
                    server,
                    server.url,
                    pages[0],
                    args.soak,
                    args.soak_seconds,
                    args.timeout,
                    args.seed,
                )
            )
        end = server.rss_mb()
        result["rss_end_mb"] = None if end is None else round(end, 1)
        if end and result.get("rss_start_mb"):
            growth = 100 * (end - result["rss_start_mb"]) / result["rss_start_mb"]
            result["rss_growth_from_start_pct"] = round(growth, 1)
        result["server_log_errors"] = server.log_errors()
        # kept by Server.stop only when it holds an error
        errors = result["server_log_errors"]
        result["server_log"] = str(server.log_path) if server.log_path and errors else None
    finally:
        server.stop()
    result["total_seconds"] = round(time.perf_counter() - t_start, 1)
    result["targets"] = {
        k: (None if result.get(k) is None else result[k] <= v) for k, v in TARGETS.items()
    }
    return result


def report(r: dict[str, Any]) -> str:
    def f(key: str, unit: str = "") -> str:
        v = r.get(key)
        ok = r.get("targets", {}).get(key)
        mark = "" if ok is None else ("  ok" if ok else "  MISSED")
        return f"{v}{unit}{mark}"

    b = r.get("browsers") or {}
    lines = [
        f"hograd load benchmark against {r['url']} ({r.get('total_seconds')} s in all; "
        f"{r['cores']} cores, {r['machine_cpu_before_pct']}% busy before it started)",
        f"  cold first screen (fresh server): {r.get('cold_first_screen_ms')} ms; one session "
        f"alone: plain rerun p50 {r.get('solo_rerun_p50_ms')} ms, x0 move p50 "
        f"{r.get('solo_x0_p50_ms')} ms => at most ~{r.get('solo_capacity_reruns_per_s')} "
        f"reruns/s (one Python process)",
        f"  RSS: boot {r.get('rss_boot_mb')} MB, baseline {f('rss_start_mb', ' MB')}, "
        f"peak {r.get('rss_peak_mb')} MB, end {r.get('rss_end_mb')} MB; whole process tree "
        f"at its peak {r.get('tree_peak_mb')} MB (RSS summed), {r.get('tree_pss_peak_mb')} MB "
        f"(PSS summed: shared pages once)",
    ]
    if r.get("first_screens"):
        from benchmarks.first_screens import report as first_report

        lines += ["  " + line for line in first_report(r["first_screens"]).splitlines()]
    if r.get("storm"):
        lines += [
            f"storm of {r['storm']}: first screen p50 {r['first_screen_p50_ms']} ms, "
            f"p95 {f('first_screen_p95_ms', ' ms')}, max {r['first_screen_max_ms']} ms; "
            f"first paint p95 {r['first_paint_p95_ms']} ms; parts: HTTP+assets+websocket p95 "
            f"{r['storm_http_p95_ms']} ms ({r['storm_http_mb']} MB), first script run p95 "
            f"{r['storm_script_p95_ms']} ms; failed {r['storm_failed']}",
        ]
    if r.get("idle_sessions"):
        lines += [
            f"idle: {r['idle_sessions']} sessions {r['rss_before_idle_mb']} -> "
            f"{r['rss_with_idle_mb']} MB = {f('mb_per_idle_session', ' MB')} per session",
        ]
    if r.get("sessions"):
        lines += [
            f"load: {r['sessions']} sessions x {r['seconds']:g} s, think {r['think']:g} s, "
            f"{r['mix']} mix, "
            f"pages {', '.join(r['pages'])}: {r['reruns']} reruns ({r['reruns_per_s']}/s; "
            f"offered ~{r['sessions'] / max(r['think'], 0.1):.0f}/s)",
            f"  rerun latency p50 {r['p50_ms']} ms, p95 {f('p95_ms', ' ms')}, p99 {r['p99_ms']} "
            f"ms, max {r['max_ms']} ms; open p95 {r['open_p95_ms']} ms",
            f"  reruns over 2 s: {r.get('reruns_over_2s')}, over 10 s: {r.get('reruns_over_10s')}",
            f"  background columns: {r.get('polls')} polls (p95 {r.get('poll_p95_ms')} ms); "
            f"page complete after p50 {r.get('settled_p50_ms')} ms, p95 "
            f"{r.get('settled_p95_ms')} ms ({r.get('settled')} times); the student moved on "
            f"first {r.get('unsettled')} times",
            f"  failed sessions {f('failed')}; busy answers {r['busy']}; errors shown "
            f"{r['errors_shown']}; server CPU {r['server_cpu_pct']}% of one core (+ its child "
            f"processes {r.get('helpers_cpu_pct')}%, {r.get('helpers_rss_mb')} MB); machine "
            f"{r['machine_cpu_pct']}% of all cores; load generator {r['loadgen_cpu_pct']}% of "
            f"one core",
            f"  server per rerun: {r.get('server_user_ms_per_rerun')} ms user + "
            f"{r.get('server_kernel_ms_per_rerun')} ms kernel CPU, "
            f"{r.get('server_faults_per_rerun')} page faults",
        ]
        for a, s in r["by_action"].items():
            lines.append(f"    {a:<18} n={s['n']:<5} p50 {s['p50_ms']} ms  p95 {s['p95_ms']} ms")
        for a, s in r["by_order"].items():
            lines.append(f"    {a:<18} n={s['n']:<5} p50 {s['p50_ms']} ms  p95 {s['p95_ms']} ms")
        for slow in r["slowest"][:5]:
            lines.append(f"    slow: {slow['ms']} ms after {slow['action']}: {slow['state']}")
        for fl in r["failures"]:
            lines.append(f"    FAILURE {fl}")
        if b.get("count"):
            lines.append(
                f"  browsers: {b['count']} Chromium tabs, first screen {b['first_screen_ms']} ms,"
                f" {b['reruns']} reruns p50 {b.get('rerun_p50_ms')} ms p95 "
                f"{b.get('rerun_p95_ms')} ms (incl. rendering), failed {b['failed']}, "
                f"{b.get('cpu_seconds')} CPU s"
            )
            lines += [f"    BROWSER FAILURE {x}" for x in b["failures"][:5]]
    if r.get("soak_reruns"):
        lines += [
            f"soak: {r['soak_reruns']} reruns in {r['soak_seconds']} s (p95 {r['soak_p95_ms']} "
            f"ms, failed {r['soak_failed']}): RSS {r['rss_after_warm_reruns_mb']} -> "
            f"{r['rss_after_soak_mb']} MB = {f('rss_growth_pct', '%')}; from baseline "
            f"{r.get('rss_growth_from_start_pct')}%",
        ]
        lines += [f"    SOAK FAILURE {x}" for x in r.get("soak_failures", [])]
    lines.append(f"server log: {r.get('server_log')} ({r.get('server_log_errors')} errors)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    result = run(args)
    if args.json:
        print(json.dumps(result))
    else:
        print(report(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
