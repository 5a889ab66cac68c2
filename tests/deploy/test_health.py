"""The health probe (hograd_serving/health.py) answers "can this server serve a class?", not
"does it answer /_stcore/health?": it fails against a server whose script runs cannot finish
while that endpoint still answers 200, passes against one that runs them, and leaves no
session open behind it; its cheap form asks only the server's own /_hograd/health. The stuck
server is made deterministically: its app (apps/stuck.py, served with the app's middleware by
apps/stuck_asgi.py) holds a lock while a file exists."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmarks.st_client import StreamlitClient
from hograd_serving.health import main, probe
from tests.deploy.serving import serving

ROOT = Path(__file__).resolve().parents[2]
STUCK_APP = ROOT / "tests" / "deploy" / "apps" / "stuck_asgi.py"
sys.path.insert(0, str(ROOT / "deploy"))

from replicas import free_port  # noqa: E402


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """The stuck app on a free port; yields its URL and the file that blocks its runs."""
    base = tmp_path_factory.mktemp("block") / "block"
    log = tmp_path_factory.mktemp("log") / "server.log"
    with serving(STUCK_APP, {"HOGRAD_TEST_BLOCK": str(base)}, log) as (url, port):
        try:
            yield url, Path(f"{base}.{port}")
        finally:
            Path(f"{base}.{port}").unlink(missing_ok=True)


def sessions_open(url: str) -> int:
    """Sessions the server has open, as the test app counts them (the asking one included)."""
    with StreamlitClient(url, timeout=30) as client:
        assert client.open().status == "ok"
        return int(client.text().split("sessions: ")[1].split()[0])


def test_the_probe_passes_on_a_server_that_runs_scripts(server: tuple[str, Path]) -> None:
    url, _ = server
    assert probe(url, timeout=30) is None
    assert main([url, "--timeout", "30"]) == 0


def test_the_probe_fails_when_script_runs_cannot_finish(
    server: tuple[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    url, block = server
    block.touch()
    try:
        # the event loop still answers the plain health check...
        with urllib.request.urlopen(url + "/_stcore/health", timeout=10) as resp:
            assert resp.status == 200
        # ...but no script run finishes
        assert probe(url, timeout=2) == "no finished script run within 2 s"
        capsys.readouterr()
        assert main([url, "--timeout", "2"]) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith(f"unhealthy: {url}: no finished")
    finally:
        block.unlink()
    assert probe(url, timeout=30) is None  # the stuck runs finish; the server is well again


def test_the_probe_closes_its_session(server: tuple[str, Path]) -> None:
    url, _ = server
    for _ in range(3):
        assert probe(url, timeout=30) is None
    # the server notices a closed socket a moment later: ask until it has (at most 100 times)
    counts = [sessions_open(url)]
    while counts[-1] != 1 and len(counts) < 100:
        time.sleep(0.1)
        counts.append(sessions_open(url))
    assert counts[-1] == 1, counts  # only the session that asked


def test_the_probe_fails_when_the_health_check_fails(server: tuple[str, Path]) -> None:
    url, _ = server
    # Streamlit answers any unknown path with its page: not the server's own answer
    elsewhere = probe(url + "/no-such-path", timeout=10)
    assert elsewhere is not None and elsewhere.startswith("/_hograd/health: unexpected answer")
    refused = probe(f"http://127.0.0.1:{free_port()}", timeout=10)
    assert refused is not None and "refused" in refused.lower()
    with pytest.raises(ValueError, match="url: expected http"):
        probe("ftp://127.0.0.1:1")


def test_kill_after_kills_the_server_after_n_failures_in_a_row(tmp_path: Path) -> None:
    victim = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        pid_file = tmp_path / "app.pid"
        pid_file.write_text(str(victim.pid))
        dead = f"http://127.0.0.1:{free_port()}"
        args = [dead, "--timeout", "5", "--kill-after", "2", "--pid-file", str(pid_file)]
        assert main(args) == 1
        assert victim.poll() is None  # one failure: not yet
        assert main(args) == 1
        assert victim.wait(timeout=30) == -signal.SIGKILL  # the second in a row: killed
    finally:
        if victim.poll() is None:
            victim.kill()


def test_the_probe_needs_nothing_the_app_image_lacks() -> None:
    """The image installs requirements.txt only: tornado (a test-only package here, through
    ipykernel) is not there, and the probe once needed it, so every replica in Docker was
    "unhealthy". It imports with the test-only packages hidden."""
    import subprocess
    import sys

    hidden = ["tornado", "websocket", "psutil", "playwright", "ipykernel", "nbclient"]
    code = (
        "import sys\n"
        f"for name in {hidden!r}: sys.modules[name] = None\n"
        "import hograd_serving.health\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def test_the_cheap_probe_asks_the_server_and_imports_no_streamlit(server: tuple[str, Path]) -> None:
    """Issue 45, finding 5: the proxy's check started a Python that imported Streamlit (about
    0.7 CPU seconds) per check, and under load took longer than its interval. The cheap form
    is one request to the server's own /_hograd/health, from a Python that imports no more
    than the standard library and this module."""
    url, _ = server
    assert probe(url, timeout=30, script=False) is None
    code = (
        "import sys, hograd_serving.health as h\n"
        f"status = h.main([{url!r}, '--timeout', '30', '--endpoint-only'])\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('streamlit', 'websockets', 'google', 'torch', 'hograd_core'))\n"
        "print(status, heavy)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.stdout.split() == ["0", "[]"], done.stdout + done.stderr


def test_sessions_of_one_browser_share_its_heavy_work_budget(server: tuple[str, Path]) -> None:
    """Issue 45, finding 2: a new websocket was a new budget. The page's answer names the
    browser (the hograd_browser cookie), and its sessions share one budget: the test app lets
    a browser start 3 heavy computations a minute."""
    url, _ = server

    def heavy(client: StreamlitClient, first: bool) -> str:
        result = client.open("", "heavy=1") if first else client.rerun()
        assert result.status == "ok" and not client.exceptions
        return client.text().split("heavy: ")[1].split()[0]

    with StreamlitClient(url, timeout=60) as one:
        assert heavy(one, True) == "ok" and heavy(one, False) == "ok"
        cookie = one.cookie("hograd_browser")
        assert cookie is not None and len(cookie) == 32
    with StreamlitClient(url, timeout=60, cookies={"hograd_browser": cookie}) as again:
        assert heavy(again, True) == "ok"  # a reconnect: the browser's third
        assert heavy(again, False) == "budget.session_rate"  # its fourth is refused
    with StreamlitClient(url, timeout=60) as other:  # another browser has its own minute
        assert heavy(other, True) == "ok"
        assert other.cookie("hograd_browser") != cookie
