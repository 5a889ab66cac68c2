"""deploy/docker_check.py's own parts that need no Docker engine: its readings of docker's
output and its answers to a bad command line or a missing engine. The check itself builds an
image and runs containers (make test-docker; .ci/run runs it after make test)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "deploy"))

from docker_check import STANDIN_PYTHON, fmt, to_mb  # noqa: E402

SCRIPT = str(ROOT / "deploy" / "docker_check.py")


@pytest.mark.parametrize(
    ("text", "mb"),
    [("308.5MiB ", 308.5 * 2**20 / 1e6), ("1.5GiB", 1.5 * 2**30 / 1e6), ("900KiB", 0.9216)],
)
def test_docker_stats_memory_is_read_in_megabytes(text: str, mb: float) -> None:
    assert to_mb(text) == pytest.approx(mb)


def test_a_figure_that_is_not_memory_is_refused() -> None:
    with pytest.raises(ValueError, match="not a memory figure"):
        to_mb("--")


def test_rounding_noise_is_shown_as_the_number_it_is() -> None:
    # the seed's gradient: 2*w1*sin(w2), w1**2*cos(w2) at (1, pi/2); cos(pi/2) is 6e-17 in floats
    assert fmt([2.0, 6.123233995736766e-17]) == "(2, 0)" and fmt([1.0, -1.0]) == "(1, -1)"


def test_the_stand_in_never_takes_an_official_name() -> None:
    assert STANDIN_PYTHON.startswith("hograd-standin/")


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, SCRIPT, *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )


def test_a_bad_replica_count_is_refused_with_the_range() -> None:
    done = run("--replicas", "9")
    assert done.returncode == 2
    assert "--replicas: expected 1 to 8, got 9" in done.stderr and "Traceback" not in done.stderr


def test_no_engine_is_reported_with_what_to_do(tmp_path: Path) -> None:
    env = {**os.environ, "PATH": str(tmp_path)}  # no docker on it
    done = run(env=env)
    assert done.returncode == 2
    assert "no Docker engine answers" in done.stderr and "make docker-engine" in done.stderr
