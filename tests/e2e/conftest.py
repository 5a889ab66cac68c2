"""A real Streamlit server and headless Debian Chromium, shared by the browser tests.

Never downloads a browser: Playwright drives /usr/bin/chromium (Debian's package, installed by
``make test``). Under CI=true a missing browser is a failure, not a skip.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from hograd_serving.command import server_command

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


@contextmanager
def running_server(name: str = "server") -> Iterator[str]:
    """Start ``streamlit run hograd_serving/asgi.py`` (as ``make run``) on a free port; yield
    its base URL; stop it after.

    Its log and class database are tests/artifacts/``name``-... and, under pytest-xdist,
    ``name``-<worker>-..., so each worker's shared server keeps its own files."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    name = f"{name}-{worker}" if worker else name
    port = _free_port()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    database = ARTIFACTS / f"{name}-classroom.sqlite"  # a fresh class database per server
    database.unlink(missing_ok=True)
    env = {
        **os.environ,
        "PYTHONUNBUFFERED": "1",
        "HOGRAD_TEACHER_KEY": TEACHER_KEY,
        "HOGRAD_CLASSROOM_URL": f"sqlite:///{database}",
    }
    with open(ARTIFACTS / f"{name}.log", "w") as log:
        proc = subprocess.Popen(
            server_command(port),
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
        )
        url = f"http://127.0.0.1:{port}"
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


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
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
        yield b
        b.close()


@pytest.fixture()
def page(browser, server):
    """A fresh browser page (1280x800, like a projector) with the server's URL as ``page.base``."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    pg = context.new_page()
    pg.base = server
    pg.set_default_timeout(120_000)
    yield pg
    context.close()


_IDLE = (
    "() => { const a = document.querySelector('[data-testid=\"stApp\"]');"
    " return !!a && a.dataset.testScriptState === 'notRunning'"
    " && a.dataset.testConnectionState === 'CONNECTED'"
    " && !!document.querySelector('[data-testid=\"stMain\"] h1'); }"
)


def wait_for_app(pg, timeout: float = 120_000) -> None:
    """Wait until Streamlit has finished the script run: connected, not running, a title shown.

    Checked twice, 400 ms apart, since a rerun triggered by an interaction may not have
    started yet when this is called.
    """
    for _ in range(2):
        pg.wait_for_timeout(400)
        pg.wait_for_function(_IDLE, timeout=timeout)


def wait_for_background(pg, timeout: float = 120_000) -> None:
    """Wait until the derivatives page's columns computed in the background (sympy's, nested
    autograd's) are all in: their "still working" notes gone, the page rerun and idle."""
    from playwright.sync_api import expect

    notes = pg.locator("[data-testid='stAlert']", has_text="still")
    expect(notes).to_have_count(0, timeout=timeout)
    wait_for_app(pg, timeout)


def type_function(pg, text: str, *, wait: bool = True) -> None:
    """Type ``text`` into the page's function box (in any language) and, unless ``wait`` is
    False, wait for the rerun."""
    box = pg.locator("[data-testid='stMain'] [data-testid='stTextInput'] input").first
    box.fill(text)
    box.press("Enter")
    if wait:
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
