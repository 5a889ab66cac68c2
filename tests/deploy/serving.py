"""A test app served as the app is (``server_command``), on a free port, for one test.

tests/deploy/test_health.py (the stuck app) and test_busy_again.py (the busy page) start their
own small apps with it: started, waited for until its health answers (the event; the ceiling
only catches a server that never starts), stopped after.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hograd_serving.command import server_command

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "deploy"))

from replicas import free_port, healthy  # noqa: E402

__all__ = ["serving"]


@contextmanager
def serving(app: Path, env: dict[str, str], log: Path) -> Iterator[tuple[str, int]]:
    """``app`` served with ``env`` added to this process's, its output in ``log``; yields its
    URL and port once its health answers."""
    port = free_port()
    with log.open("wb") as out:
        proc = subprocess.Popen(
            server_command(port, str(app)),
            cwd=ROOT,
            env={**os.environ, **env},
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            for _ in range(600):  # the server answers within a few seconds
                if healthy(url) or proc.poll() is not None:
                    break
                time.sleep(0.2)
            assert healthy(url, timeout=30), f"the test app did not start (see {log})"
            yield url, port
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
