"""One command starts the app's server (issue 37): ``make run``, the Dockerfile, the replicas,
the load benchmark and the tests run the same script with the same options."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from hograd_serving.command import SCRIPT, server_command

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "deploy"))

import replicas  # noqa: E402


def test_make_run_and_the_dockerfile_run_the_same_script() -> None:
    make = (ROOT / "Makefile").read_text(encoding="utf-8")
    docker = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert re.search(rf"-m streamlit run {re.escape(SCRIPT)} --server\.port", make)
    assert f"exec python -m streamlit run {SCRIPT} --server.port 8501" in docker
    assert (ROOT / SCRIPT).is_file()


def test_the_replicas_start_the_same_command(monkeypatch, tmp_path: Path) -> None:
    started = []

    class Started:
        def __init__(self, args: list[str], **kwargs: object) -> None:
            started.append((args, kwargs["cwd"]))

    monkeypatch.setattr(replicas.subprocess, "Popen", Started)
    group = replicas.Replicas(2, 8080)
    monkeypatch.setattr(group, "_log", lambda name: subprocess.DEVNULL)
    group._start_replica("r1", 9123)
    assert started == [(server_command(9123), replicas.ROOT)]
    assert server_command(9123)[1:5] == ["-m", "streamlit", "run", SCRIPT]
