"""The health probe (hograd_serving/health.py) answers "can this server run a script?", not
"does it answer /_stcore/health?": it fails against a server whose script runs cannot finish
while that endpoint still answers 200, passes against one that runs them, and leaves no
session open behind it. The stuck server is made deterministically: its app (apps/stuck.py)
holds a lock while a file exists."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmarks.st_client import StreamlitClient
from hograd_serving.command import server_command
from hograd_serving.health import main, probe

ROOT = Path(__file__).resolve().parents[2]
STUCK_APP = ROOT / "tests" / "deploy" / "apps" / "stuck.py"
sys.path.insert(0, str(ROOT / "deploy"))

from replicas import free_port, healthy  # noqa: E402


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """The stuck app on a free port; yields its URL and the file that blocks its runs."""
    port = free_port()
    base = tmp_path_factory.mktemp("block") / "block"
    env = {**os.environ, "HOGRAD_TEST_BLOCK": str(base)}
    log = (tmp_path_factory.mktemp("log") / "server.log").open("wb")
    proc = subprocess.Popen(
        server_command(port, str(STUCK_APP)),
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):  # the server answers within a few seconds
            if healthy(url) or proc.poll() is not None:
                break
            time.sleep(0.2)
        assert healthy(url, timeout=30), "the test app did not start"
        yield url, Path(f"{base}.{port}")
    finally:
        Path(f"{base}.{port}").unlink(missing_ok=True)
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


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
    assert probe(url + "/no-such-path", timeout=10) == "/_stcore/health failed: status 404"
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
