"""benchmarks/load.py: the real browsers it starts are put at the lowest priority; the server
under test (also its child process) and the server's own helpers are not."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import psutil

from benchmarks.load import _renice_children

SLEEPER = [sys.executable, "-c", "import time; time.sleep(60)"]
# a "server" with a child of its own, as the app's sympy worker and torch helpers are
SERVER = [
    sys.executable, "-c",
    f"import subprocess, time; subprocess.Popen({SLEEPER!r}); time.sleep(60)",
]  # fmt: skip


def test_only_the_browsers_lose_priority() -> None:
    server = subprocess.Popen(SERVER)
    browser = subprocess.Popen(SLEEPER)
    try:
        deadline = time.monotonic() + 30
        while not psutil.Process(server.pid).children() and time.monotonic() < deadline:
            time.sleep(0.05)  # the server's child starts a moment later
        (helper,) = psutil.Process(server.pid).children()
        ours = os.getpriority(os.PRIO_PROCESS, 0)
        _renice_children(server.pid)
        assert psutil.Process(browser.pid).nice() == 19
        assert psutil.Process(server.pid).nice() == ours and helper.nice() == ours
    finally:
        for proc in psutil.Process().children(recursive=True):
            proc.kill()
        server.wait()
        browser.wait()
