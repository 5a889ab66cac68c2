"""The deployment files say what docs/deploy.md says: the CPU build of torch from PyTorch's page
of CPU wheels (never the CUDA build a plain pin gets from PyPI), Debian's packages, a Docker
image that installs and starts as `make run` does, and a proxy with cookie affinity."""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TORCH_LINES = ("--find-links https://download.pytorch.org/whl/cpu/torch/", "torch==2.13.0+cpu")


def lines(name: str) -> list[str]:
    text = (ROOT / name).read_text()
    return [s.strip() for s in text.splitlines() if s.strip() and not s.lstrip().startswith("#")]


def test_requirements_pin_the_cpu_build_and_only_pypi_besides() -> None:
    reqs = lines("requirements.txt")
    assert all(line in reqs for line in TORCH_LINES)
    assert [r for r in reqs if r.startswith("torch=")] == ["torch==2.13.0+cpu"]
    # an index option would make uv look for every package there first (its first-index rule)
    assert not [r for r in reqs if r.startswith(("--index-url", "--extra-index-url", "-i "))]
    assert not [r for r in reqs if "nvidia" in r.lower()]


def test_the_deploy_guide_shows_the_same_two_lines() -> None:
    guide = (ROOT / "docs" / "deploy.md").read_text()
    assert all(line in guide for line in TORCH_LINES)
    assert "packages.txt" in guide and "graphviz" in lines("packages.txt")


def test_the_installed_torch_is_the_cpu_build() -> None:
    import torch

    assert torch.__version__.endswith("+cpu") and torch.version.cuda is None
    nvidia = sorted(
        d.metadata["Name"] for d in importlib.metadata.distributions()
        if (d.metadata["Name"] or "").lower().startswith("nvidia-")
    )  # fmt: skip
    assert nvidia == []


def test_the_image_installs_and_starts_as_make_run_does() -> None:
    docker = (ROOT / "Dockerfile").read_text()
    make = (ROOT / "Makefile").read_text()
    # the official base unless a build names another (deploy/docker_check.py's stand-in)
    assert "ARG BASE=python:3.11-slim\nFROM ${BASE}\n" in docker
    assert "-r requirements.txt" in docker and "-r requirements.txt" in make
    assert "packages.txt" in docker and "USER hograd" in docker
    assert "HEALTHCHECK" in docker and "/_stcore/health" in docker
    assert "streamlit run app.py" in docker and "streamlit run app.py" in make
    # both warm the fresh server up before the first student (hograd_serving/warmup.py)
    assert "-m hograd_serving.warmup http://127.0.0.1:" in docker
    assert "-m hograd_serving.warmup http://127.0.0.1:" in make


def test_the_proxy_keeps_sessions_by_cookie_never_by_address() -> None:
    cfg = (ROOT / "deploy" / "haproxy.cfg").read_text()
    assert "cookie HOGRAD_REPLICA insert" in cfg and "option redispatch" in cfg
    assert "balance source" not in cfg and "hash-type" not in cfg
    assert "timeout tunnel" in cfg and "/_stcore/health" in cfg
    compose = (ROOT / "compose.yaml").read_text()
    assert "STREAMLIT_SERVER_COOKIE_SECRET" in compose and "deploy/haproxy.cfg" in compose


@pytest.mark.skipif(
    shutil.which("haproxy") is None and not os.environ.get("CI"), reason="haproxy is not installed"
)
def test_haproxy_accepts_the_config() -> None:
    done = subprocess.run(
        ["haproxy", "-c", "-f", str(ROOT / "deploy" / "haproxy.cfg")],
        capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


def test_unset_the_check_variables_leave_the_official_images() -> None:
    # deploy/docker_check.py passes stand-ins and a wheel folder where the official images and
    # PyTorch's server cannot be reached; a build that sets nothing gets the images named
    docker = (ROOT / "Dockerfile").read_text()
    assert "ARG PIP_FIND_LINKS=\n" in docker  # empty: pip reads no extra folder
    compose = (ROOT / "compose.yaml").read_text()
    assert "BASE: ${HOGRAD_BASE_IMAGE:-python:3.11-slim}" in compose
    assert "image: ${HOGRAD_HAPROXY_IMAGE:-haproxy:2.6}" in compose
    assert '"${HOGRAD_PORT:-8080}:8080"' in compose
