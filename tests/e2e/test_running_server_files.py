"""Two pytest-xdist workers each start their shared server under the same name: each keeps its
own log and class database in tests/artifacts. No server starts here: the process and its
health answer are stand-ins that record what running_server gave them."""

from __future__ import annotations

import subprocess
from types import SimpleNamespace

import pytest

from tests.e2e import conftest


class _Health:
    status = 200

    def __enter__(self) -> _Health:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


class _Process:
    def __init__(self, cmd: list[str], stdout: object, env: dict, **kwargs: object) -> None:
        self.database = env["HOGRAD_CLASSROOM_URL"].removeprefix("sqlite:///")
        self.log = stdout.name

    def terminate(self) -> None:
        return None

    def wait(self, timeout: float) -> int:
        return 0


def test_each_worker_keeps_its_own_log_and_class_database(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    started: list[_Process] = []

    def popen(*args: object, **kwargs: object) -> _Process:
        started.append(_Process(*args, **kwargs))
        return started[-1]

    # only running_server's own names: the subprocess and urllib modules stay as they are
    fake_subprocess = SimpleNamespace(
        Popen=popen, STDOUT=subprocess.STDOUT, TimeoutExpired=subprocess.TimeoutExpired
    )
    fake_request = SimpleNamespace(urlopen=lambda *a, **k: _Health())
    monkeypatch.setattr(conftest, "subprocess", fake_subprocess)
    monkeypatch.setattr(conftest, "urllib", SimpleNamespace(request=fake_request))
    for worker in ("gw0", "gw1"):
        monkeypatch.setenv("PYTEST_XDIST_WORKER", worker)
        with conftest.running_server("shared-name-check"):
            pass
    first, second = started
    assert first.database != second.database and first.log != second.log
    assert "gw0" in first.database and "gw1" in second.log
    monkeypatch.delenv("PYTEST_XDIST_WORKER")
    with conftest.running_server("shared-name-check"):  # one process: the plain names
        pass
    assert started[-1].log.endswith("shared-name-check.log")
