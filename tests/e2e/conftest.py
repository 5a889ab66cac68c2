"""A real Streamlit server and headless Debian Chromium, shared by the browser tests.

Never downloads a browser: Playwright drives /usr/bin/chromium (Debian's package, installed by
``make test``). Under CI=true a missing browser is a failure, not a skip.
"""

from __future__ import annotations

import collections
import os
import socket
import subprocess
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from hograd_serving.command import SCRIPT, server_command

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = ROOT / "tests" / "artifacts"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


#: The teacher's key of the servers these tests start (HOGRAD_TEACHER_KEY, as Docker gives it).
TEACHER_KEY = "e2e-teacher-key_not-a-secret-0123"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _require(condition: bool, reason: str) -> None:
    if condition:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"browser tests cannot run under CI=true: {reason}")
    pytest.skip(reason)


#: Each running server's hold file (hograd_serving.cached.HOLD): while it holds a number, the
#: server's experiment of that many steps (a Why tab's training) waits after its first step
#: done. ``page.hold``.
HOLDS: dict[str, Path] = {}


@contextmanager
def running_server(name: str = "server", script: str = SCRIPT) -> Iterator[str]:
    """Start ``streamlit run hograd_serving/asgi.py`` (as ``make run``; or another ``script``)
    on a free port; yield its base URL; stop it after.

    Its log and class database are tests/artifacts/``name``-... and, under pytest-xdist,
    ``name``-<worker>-..., so each worker's shared server keeps its own files."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    name = f"{name}-{worker}" if worker else name
    port = _free_port()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    database = ARTIFACTS / f"{name}-classroom.sqlite"  # a fresh class database per server
    database.unlink(missing_ok=True)
    hold = ARTIFACTS / f"{name}-hold"  # present: experiments wait at a step (HOLDS)
    hold.unlink(missing_ok=True)
    env = {
        **os.environ,
        "PYTHONUNBUFFERED": "1",
        "HOGRAD_TEACHER_KEY": TEACHER_KEY,
        "HOGRAD_CLASSROOM_URL": f"sqlite:///{database}",
        "HOGRAD_HOLD_PROGRESS": str(hold),
    }
    with open(ARTIFACTS / f"{name}.log", "w") as log:
        proc = subprocess.Popen(
            server_command(port, script),
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
        )
        url = f"http://127.0.0.1:{port}"
        HOLDS[url] = hold
        try:
            deadline = time.time() + 180
            while time.time() < deadline:
                try:
                    with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
                        if resp.status == 200:
                            break
                except OSError:
                    time.sleep(0.3)
            else:
                pytest.fail(
                    f"the Streamlit server did not become healthy within 180 s (see tests/artifacts/{name}.log)"
                )
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


@pytest.fixture(scope="session")
def server() -> Iterator[str]:
    """One real server shared by the browser tests."""
    with running_server() as url:
        yield url


def launch_browser() -> Iterator[object]:
    """Debian's Chromium under Playwright's sync API, every page of it counting its runs: the
    body of the suite's one ``browser`` fixture (tests/conftest.py, so that the browser tests
    and the replica tests of a worker share it: a second start of the sync API on a worker
    raises, "using Playwright Sync API inside the asyncio loop")."""
    _require(Path(CHROMIUM).exists(), f"{CHROMIUM} is missing (apt-get install chromium)")
    try:
        from playwright.sync_api import expect, sync_playwright
    except ImportError:  # pragma: no cover - requirements-dev.txt installs it
        _require(False, "playwright is not installed")
    # expect(...) waits for its state; Playwright's 5 s default is a timer that a busy machine
    # loses (every other wait here has the same 120 s ceiling: it ends at the event, not then)
    expect.set_options(timeout=120_000)
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield _Tracking(b)
        b.close()


class _Tracking:
    """The browser, whose every page counts its script runs (``Runs``) from its first frame."""

    def __init__(self, browser: object) -> None:
        self._browser = browser

    def __getattr__(self, name: str) -> object:
        return getattr(self._browser, name)

    def new_context(self, *args: object, **kwargs: object) -> object:
        context = self._browser.new_context(*args, **kwargs)
        context.on("page", Runs.track)
        return context

    def new_page(self, *args: object, **kwargs: object) -> object:
        page = self._browser.new_page(*args, **kwargs)
        Runs.track(page)
        return page


class Runs:
    """The script runs a page asked its server for, and those the server finished, read from
    the app's websocket: Streamlit's frontend sends a ``rerun_script`` BackMsg for each run it
    wants (the first one too), the server a ``script_finished`` ForwardMsg as each one ends.
    A run is pending while the last request came after the last run that ended (a run ended
    early for a newer request does not count: the newer one follows)."""

    def __init__(self) -> None:
        self.events = 0
        self.asked = self.finished = 0  # the event number of the last of each
        self.seen = 0  # ``asked`` when wait_for_app last returned
        #: the messages both ways, one line each, with whether they belong to a fragment's
        #: timed rerun (what a failure prints: ``story``)
        self.log: collections.deque[tuple[str, bool]] = collections.deque(maxlen=LOGGED)
        self.start = time.monotonic()
        self.timed = False  # whether the run in progress is a fragment's
        self.url = ""  # the page's address when it last loaded or moved

    @staticmethod
    def track(page: object) -> None:
        if getattr(page, "hograd_runs", None) is None:
            runs = page.hograd_runs = Runs()
            page.on("websocket", runs._watch)
            page.on("framenavigated", lambda frame, r=runs, p=page: r._went(p, frame))
            page.on("pageerror", lambda err, r=runs: r._note("!", lambda: f"error {err}", False))
            TRACKED.append(runs)

    def _went(self, page: object, frame: object) -> None:
        if frame == page.main_frame:
            self.url = frame.url
            self._note("@", lambda: f"at {frame.url}", False)

    def _watch(self, ws: object) -> None:
        if "/_stcore/stream" in ws.url:
            ws.on("framesent", self._sent)
            ws.on("framereceived", self._received)

    def _sent(self, payload: bytes | str) -> None:
        from streamlit.proto.BackMsg_pb2 import BackMsg

        msg = _parse(BackMsg, payload) if isinstance(payload, bytes) else None
        if msg is not None and msg.WhichOneof("type") == "rerun_script":
            self.events += 1
            self.asked = self.events
            self._note(">", lambda: _rerun_line(msg.rerun_script), msg.rerun_script.is_auto_rerun)
        elif msg is not None:  # anything else the page asks (a download click's file, say)
            self._note(">", lambda: str(msg.WhichOneof("type")), False)

    def _received(self, payload: bytes | str) -> None:
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        if not isinstance(payload, bytes):
            return
        msg = _parse(ForwardMsg, payload)
        if msg is not None:
            if msg.WhichOneof("type") == "new_session":
                self.timed = bool(msg.metadata.run.fragment_ids)
            self._note("<", lambda: _forward_line(msg), self.timed)
        ended = msg is not None and msg.WhichOneof("type") == "script_finished"
        if ended and msg.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
            self.events += 1
            self.finished = self.events

    @property
    def pending(self) -> bool:
        return self.asked > self.finished

    def _note(self, way: str, line: Callable[[], str], timed: bool) -> None:
        try:  # a message this cannot read is logged as such, never raised into Playwright
            text = line()
        except Exception as err:
            text = f"unreadable: {err!r}"
        self.log.append((f"{time.monotonic() - self.start:8.2f} {way} {text}", timed))

    def story(self, tail: int = 60) -> str:
        """What a failed test prints for each page: every message of the whole-page runs
        (what the student did and what the server drew), then the last ``tail`` messages of
        any kind (fragments' timed reruns, which repeat every few seconds, included)."""
        log = list(self.log)
        head = [text for text, timed in log[:-tail] if not timed]
        return "\n".join([*head, "  ... the last messages:", *(text for text, _ in log[-tail:])])

    def tail(self, last: int = 40) -> str:
        """The page's last ``last`` messages."""
        return "\n".join(text for text, _ in list(self.log)[-last:])

    def runs_told(self, last: int = 8) -> str:
        """For an assertion's message (what a CI log shows of a failure): the page's last
        ``last`` whole-page runs, then its last few runs of any kind (fragments' timed ones),
        a few lines each: asked (with the triggers a click fired, or the fragment a timer
        asked for), started, and how each ended (0 done, 2 cut short by a newer run, 3 a
        fragment's done; no end: still running)."""
        told = [
            (text, timed)
            for text, timed in self.log
            if " > rerun " in text or "new_session" in text or "script_finished" in text
        ]
        whole = [text for text, timed in told if not timed][-3 * last :]
        return "\n".join([*whole, "  then, timed runs too:", *(t for t, _ in told[-9:])])


LOGGED = 20_000  # messages kept per page (a rehearsed lecture's page logs a few thousand)
#: every page's runs since the test began, in the order its page opened (tests/conftest.py's
#: pytest_runtest_makereport reads a failed test's pages: what a CI log shows of a page that
#: did not do what a test waited for)
TRACKED: list[Runs] = []


def _rerun_line(rerun: object) -> str:
    """A rerun_script BackMsg: the fragment it is for, and the triggers it carries."""
    fired = [
        w.id.rsplit("-", 1)[-1]
        for w in rerun.widget_states.widgets
        if w.WhichOneof("value") in ("trigger_value", "json_trigger_value", "string_trigger_value")
        and getattr(w, w.WhichOneof("value"))
    ]
    return (
        f"rerun path={rerun.page_name or '-'} fragment={rerun.fragment_id or '-'}"
        f" auto={rerun.is_auto_rerun} fired={fired}"
    )


def _forward_line(msg: object) -> str:
    """A ForwardMsg in one line: its run (id's start, fragments), then a delta's path and kind
    (and a text's start), a run's end (its status) or a fragment's timer."""
    kind = msg.WhichOneof("type")
    run = msg.metadata.run
    head = f"[{run.script_run_id[:6]}{list(run.fragment_ids) or ''}]"
    if kind == "delta":
        what = msg.delta.WhichOneof("type")
        if what == "new_element":
            element = msg.delta.new_element
            name = element.WhichOneof("type")
            body = getattr(element, name, None)
            text = getattr(body, "body", "") or getattr(body, "label", "")
            what = f"{name} {str(text)[:60]!r}"
        return f"{head} delta {list(msg.metadata.delta_path)} {what}"
    if kind == "script_finished":
        return f"{head} script_finished {msg.script_finished}"
    if kind == "auto_rerun":
        return f"{head} auto_rerun {msg.auto_rerun.fragment_id} every {msg.auto_rerun.interval}"
    if kind == "stop_auto_rerun":
        return f"{head} stop_auto_rerun {list(msg.stop_auto_rerun.fragment_ids)}"
    return f"{head} {kind}"


def _parse(kind: type, payload: bytes) -> object | None:
    try:
        return kind.FromString(payload)
    except Exception:  # not one of Streamlit's messages: not a run's
        return None


def _kind(kind: type, payload: bytes) -> str | None:
    msg = _parse(kind, payload)
    return None if msg is None else msg.WhichOneof("type")


#: How many tests one lent page serves before its context is closed and a new one made (a
#: renderer that has loaded a page this many times is renewed, so none grows for ever).
LENT_USES = 40
#: (the browser, its context's options) -> (a page kept between tests, its uses so far)
_LENT: dict[tuple[int, str], tuple[object, int]] = {}


def lend_page(browser, **options: object) -> object:
    """A page of a browser context with ``options`` (Playwright's ``new_context``'s) that
    outlives the test, for a test that only opens addresses and reads or clicks what they
    show. Opening an address in a context that already loaded the app costs Chromium 0.35-0.37
    times the CPU of a load in a fresh context (the compiled scripts and the HTTP cache stay;
    benchmarks/browser_reuse.py), and each ``goto`` is still a new Streamlit session.
    It comes with no cookie, no storage, no route, its viewport as asked, on ``about:blank``,
    its runs' record empty (handlers a test added with ``page.on`` stay: they see later
    pages too). Give it back with :func:`give_back`; one given back after a failure is
    closed instead."""
    key = (id(browser), repr(sorted(options.items())))
    lent = _LENT.pop(key, None)
    if lent is not None and not lent[0].is_closed() and lent[1] < LENT_USES:
        pg, uses = lent
        runs = pg.hograd_runs
        runs.events = runs.asked = runs.finished = runs.seen = 0
        runs.log.clear()
        runs.start, runs.url = time.monotonic(), ""
        TRACKED.append(runs)  # a failed test reports it (tests/conftest.py)
    else:
        if lent is not None:
            lent[0].context.close()
        pg, uses = browser.new_context(**options).new_page(), 0
        pg.set_default_timeout(120_000)
    pg.hograd_lent = (key, uses + 1, options.get("viewport"))
    return pg


def give_back(pg, ok: bool = True) -> None:
    """The page :func:`lend_page` lent, for the next test: storage and cookies cleared and
    ``about:blank`` loaded (the app's session and its timers end there). ``ok`` False (the
    test failed): its context is closed, nothing of it is lent again."""
    key, uses, viewport = pg.hograd_lent
    try:
        if ok and not pg.is_closed():
            pg.unroute_all(behavior="ignoreErrors")
            pg.evaluate("() => { try { localStorage.clear(); sessionStorage.clear() } catch {} }")
            pg.goto("about:blank")
            pg.context.clear_cookies()
            if viewport and pg.viewport_size != viewport:  # a test that resized it
                pg.set_viewport_size(viewport)
            _LENT[key] = (pg, uses)
            return
    except Exception:  # a page that cannot be cleared is not lent again
        pass
    pg.context.close()


@contextmanager
def lent(browser, **options: object) -> Iterator[object]:
    """:func:`lend_page` for a ``with`` block: given back after it, closed if it raised."""
    pg = lend_page(browser, **options)
    try:
        yield pg
    except BaseException:
        give_back(pg, ok=False)
        raise
    give_back(pg)


@pytest.fixture()
def page(request, browser, server):
    """A browser page (1280x800, like a projector) lent for this test (:func:`lend_page`: no
    cookie, no storage, nothing loaded; its context may have served earlier tests), with the
    server's URL as ``page.base`` and its hold file (:data:`HOLDS`) as ``page.hold``. A test
    that must see a context's first loads (which requests it makes, say) takes
    :func:`fresh_page`."""
    # pytest imports this file as "conftest", the tests as tests.e2e.conftest: two modules.
    # The lending is the tests' module's, so that the pages lent here and those the tests
    # borrow themselves are one pool, and a failure reports them (TRACKED).
    from tests.e2e.conftest import give_back, lend_page

    pg = lend_page(browser, viewport={"width": 1280, "height": 800})
    pg.base = server
    pg.hold = HOLDS.get(server)
    yield pg
    give_back(pg, ok=not getattr(request.node, "hograd_failed", False))


@pytest.fixture()
def fresh_page(browser, server):
    """:func:`page` in a new browser context of its own, closed after the test: nothing in
    its HTTP cache, no script compiled."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    pg = context.new_page()
    pg.base = server
    pg.hold = HOLDS.get(server)
    pg.set_default_timeout(120_000)
    yield pg
    context.close()


_IDLE = (
    "() => { const a = document.querySelector('[data-testid=\"stApp\"]');"
    " return !!a && a.dataset.testScriptState === 'notRunning'"
    " && a.dataset.testConnectionState === 'CONNECTED'"
    " && !!document.querySelector('[data-testid=\"stMain\"] h1')"
    # and every Plotly chart drawn: Plotly draws after the run, once its bundle has loaded
    " && [...document.querySelectorAll('[data-testid=\"stPlotlyChart\"]')]"
    ".every(c => c.querySelector('.main-svg')); }"
)


#: The ceiling (ms) of :func:`wait_for_app`: it returns at the event, so this only ends a wait
#: for a run that never ends. A server's first visits share its 2 cores with its warm-up and,
#: in CI, with the other worker's server and browser: a first page load outlasted 120 s once
#: (the HVP page projected, at 2 % of a clean-clone run at load 12-16).
WAIT_CEILING = 300_000

#: Seconds an interaction's run has to be asked for before wait_for_app takes it that none
#: was (a click on a tab Streamlit draws in the browser asks for none; a slider sends its value
#: when it settles). Waited out only when no run is asked for.
SETTLE = 0.8
#: Seconds without a new request after a run has ended: a run can lead to another at once (a
#: component reporting the screen's width, a widget's callback), asked for within milliseconds.
QUIET = 0.25


def wait_for_app(pg, timeout: float = WAIT_CEILING) -> None:
    """Wait until Streamlit has finished the script run: connected, not running, a title shown,
    every Plotly chart drawn, and every run the page asked for ended (``Runs``, from the
    websocket's own messages).

    A run an interaction asks for may not have been sent yet when this is called: it returns
    once a run asked for since its last return has ended and none followed within ``QUIET``
    seconds, or, if none is asked for within ``SETTLE`` seconds, once the page is idle then. However long a run takes, it is waited for,
    up to the ``timeout`` ceiling (ms).
    """
    runs = getattr(pg, "hograd_runs", None)
    if runs is None:  # a page from elsewhere: look twice, 400 ms apart
        for _ in range(2):
            pg.wait_for_timeout(400)
            pg.wait_for_function(_IDLE, timeout=timeout)
        return
    deadline = time.monotonic() + timeout / 1000
    settle = time.monotonic() + SETTLE
    while True:
        pg.wait_for_function(_IDLE, timeout=timeout)
        if runs.pending:  # asked for and not ended: wait for its end, then look again
            while runs.pending:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"a script run asked for did not end in {timeout} ms")
                pg.wait_for_timeout(50)  # lets Playwright deliver the websocket's frames
            continue
        if runs.asked > runs.seen:  # a run asked for since the last return has ended
            runs.seen = runs.asked
            pg.wait_for_timeout(QUIET * 1000)  # a run it leads to is asked for at once
            if runs.asked == runs.seen and not runs.pending:
                break
            continue
        if time.monotonic() >= settle:
            break  # idle, and no run was asked for
        pg.wait_for_timeout(50)


def wait_for_background(pg, timeout: float = 120_000) -> None:
    """Wait until the derivatives page's columns computed in the background (sympy's, nested
    autograd's) are all in: their "still working" notes gone, the page rerun and idle."""
    from playwright.sync_api import expect

    notes = pg.locator("[data-testid='stAlert']", has_text="still")
    expect(notes).to_have_count(0, timeout=timeout)
    wait_for_app(pg, timeout)


def wait_for_text(pg, *texts: str, timeout: float = WAIT_CEILING, name: str = "page") -> None:
    """Wait until the page's text holds one of ``texts``. Past the ceiling (a hang) the failure
    says what the page showed instead: its URL, its text and a screenshot in tests/artifacts
    (``name``.png), so a failure in CI names its cause."""
    try:
        pg.wait_for_function(
            "(texts) => texts.some((t) => document.body.innerText.includes(t))",
            arg=list(texts),
            timeout=timeout,
        )
    except Exception as err:  # Playwright's TimeoutError, or a page that closed
        try:
            shot, body = screenshot(pg, name), pg.inner_text("body")
        except Exception as again:  # the page is gone: say that
            shot, body = None, f"(unreadable: {again})"
        raise AssertionError(
            f"none of {texts!r} within {timeout / 1000:g} s ({err.__class__.__name__}); "
            f"{pg.url} showed (screenshot {shot}):\n{body[-3000:]}"
        ) from None


#: A page's function box, by its widget's key (deriv.fn, graph.fn, hvp.fn, why.newton.fn, ...;
#: the backward lab's backward.f): not "the first text input", which on a page whose runs end
#: before all its widgets are mounted was once the derivatives page's "x0 exactly" box.
FUNCTION_BOX = (
    "[data-testid='stMain'] :is([class*='st-key-'][class*='-fn'], .st-key-backward-f)"
    " [data-testid='stTextInput'] input"
)


def type_function(pg, text: str, *, wait: bool = True) -> None:
    """Type ``text`` into the page's function box (in any language) and, unless ``wait`` is
    False, wait for the rerun."""
    box = pg.locator(FUNCTION_BOX).first  # waited for: it may mount after the run ended
    before = box.input_value()
    runs = getattr(pg, "hograd_runs", None)
    asked = runs.asked if runs is not None else 0
    box.fill(text)
    changed = box.input_value() != before  # the box's own limit may cut the text
    box.press("Enter")
    if not wait:
        return
    if changed and runs is not None:  # the run Enter asks for: waited for as an event, since
        # wait_for_app alone returns when none is asked within SETTLE (a timer a busy
        # browser can lose, and the page read then is the old function's)
        deadline = time.monotonic() + WAIT_CEILING / 1000
        while runs.asked == asked:
            if time.monotonic() > deadline:
                raise TimeoutError(f"typing {text[:40]!r} and Enter asked for no run")
            pg.wait_for_timeout(50)  # lets Playwright deliver the websocket's frames
    wait_for_app(pg)


def screenshot(pg, name: str) -> Path:
    """Save a screenshot as a test artefact in tests/artifacts/."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    pg.screenshot(path=str(path), full_page=True)
    return path


def download(pg, label: str) -> bytes:
    """Click the download button labelled ``label`` as a student would; the file's bytes."""
    button = pg.locator("[data-testid='stDownloadButton']", has_text=label).first
    button.scroll_into_view_if_needed()
    with pg.expect_download(timeout=120_000) as info:
        button.locator("button").click()
    assert info.value.failure() is None
    with open(info.value.path(), "rb") as f:
        return f.read()
