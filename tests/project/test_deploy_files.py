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
        d.metadata["Name"]
        for d in importlib.metadata.distributions()
        if (d.metadata["Name"] or "").lower().startswith("nvidia-")
    )
    assert nvidia == []


def test_the_image_installs_and_starts_as_make_run_does() -> None:
    docker = (ROOT / "Dockerfile").read_text()
    make = (ROOT / "Makefile").read_text()
    # the official base unless a build names another (deploy/docker_check.py's stand-in)
    assert "ARG BASE=python:3.11-slim\nFROM ${BASE}\n" in docker
    assert "-r requirements.txt" in docker and "-r requirements.txt" in make
    assert "packages.txt" in docker and "USER hograd" in docker
    assert "HEALTHCHECK" in docker
    # both serve app.py through hograd_serving/asgi.py (static bundles gzipped once)
    entry = "streamlit run hograd_serving/asgi.py"
    assert entry in docker and entry in make
    # both warm the fresh server up before the first student (hograd_serving/warmup.py)
    assert "-m hograd_serving.warmup http://127.0.0.1:" in docker
    assert "-m hograd_serving.warmup http://127.0.0.1:" in make


def test_the_proxy_keeps_sessions_by_cookie_never_by_address() -> None:
    cfg = (ROOT / "deploy" / "haproxy.cfg").read_text()
    assert "cookie HOGRAD_REPLICA insert" in cfg and "option redispatch" in cfg
    assert "balance source" not in cfg and "hash-type" not in cfg
    assert "timeout tunnel" in cfg
    compose = (ROOT / "compose.yaml").read_text()
    assert "STREAMLIT_SERVER_COOKIE_SECRET" in compose and "deploy/haproxy.cfg" in compose


@pytest.mark.skipif(
    shutil.which("haproxy") is None and not os.environ.get("CI"), reason="haproxy is not installed"
)
def test_haproxy_accepts_the_config() -> None:
    check = ["haproxy", "-c", "-f", str(ROOT / "deploy" / "haproxy.cfg")]
    env = {**os.environ, "HOGRAD_AFFINITY_KEY": "k" * 64}
    done = subprocess.run(check, capture_output=True, text=True, timeout=30, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    # without a key it refuses to start, rather than fall back to a known one
    env.pop("HOGRAD_AFFINITY_KEY")
    done = subprocess.run(check, capture_output=True, text=True, timeout=30, env=env)
    assert done.returncode != 0 and "dynamic-cookie-key" in done.stdout + done.stderr


def test_unset_the_check_variables_leave_the_official_images() -> None:
    # deploy/docker_check.py passes stand-ins and a wheel folder where the official images and
    # PyTorch's server cannot be reached; a build that sets nothing gets the images named
    docker = (ROOT / "Dockerfile").read_text()
    assert "ARG PIP_FIND_LINKS=\n" in docker  # empty: pip reads no extra folder
    compose = (ROOT / "compose.yaml").read_text()
    assert "BASE: ${HOGRAD_BASE_IMAGE:-python:3.11-slim}" in compose
    assert '"${HOGRAD_PORT:-8080}:8080"' in compose


def test_every_health_check_asks_the_servers_own_answer_not_only_the_health_endpoint() -> None:
    """/_stcore/health answers 200 while every run hangs; /_hograd/health says whether the
    server can serve a class (hograd_serving/serving_middleware.py). No check starts a process
    that imports Streamlit (issue 45, finding 5)."""
    docker = (ROOT / "Dockerfile").read_text()
    compose = (ROOT / "compose.yaml").read_text()
    guide = (ROOT / "docs" / "deploy.md").read_text()
    cfg = (ROOT / "deploy" / "haproxy.cfg").read_text()
    assert not (ROOT / "deploy" / "haproxy-probe").exists()
    assert '["python", "-m", "hograd_serving.health", "http://127.0.0.1:8501"' in docker
    assert '"--endpoint-only"]' in docker.split("HEALTHCHECK")[1]
    assert "/_stcore/health" not in docker.split("HEALTHCHECK")[1].split("CMD [")[1]
    assert "HOGRAD_WAIT_FOR_WARMUP=1" in docker  # its CMD runs the warm-up, which announces
    # compose: the endpoint, and a stuck server killed so that the restart policy acts; a
    # server still warming up is not stuck
    assert '["CMD", "python", "-m", "hograd_serving.health", "http://127.0.0.1:8501",' in compose
    assert '"--endpoint-only", "--warming-ok",' in compose
    assert '"--kill-after", "3", "--pid-file", "/tmp/hograd-app.pid"]' in compose
    assert "echo $$ > /tmp/hograd-app.pid; exec python -m streamlit run" in docker
    assert "    init: true" in compose and compose.count("\n    restart: unless-stopped\n") == 2
    assert "    mem_limit: 1536m" in compose and "mem_limit: 1536m" in guide
    # haproxy asks the endpoint itself; no process per check
    assert "    option httpchk GET /_hograd/health" in cfg and "external-check" not in cfg
    assert '"-f", "/app/deploy/haproxy.cfg"]' in compose and "haproxy" in docker
    # Kubernetes: readiness asks the endpoint; liveness runs the probe, a warming server passing
    # (the manifest's own test reads every field: tests/project/test_kubernetes_manifest.py)
    k8s = (ROOT / "deploy" / "kubernetes.yaml").read_text()
    assert '"livenessProbe":' in k8s and '"readinessProbe":' in k8s
    assert '"httpGet": {"path": "/_hograd/health"' in k8s and '"--warming-ok"' in k8s
    assert "python -m hograd_serving.health" in guide


def test_secrets_come_from_the_environment_and_the_code_is_read_only() -> None:
    compose = (ROOT / "compose.yaml").read_text()
    docker = (ROOT / "Dockerfile").read_text()
    assert "HOGRAD_AFFINITY_KEY: ${HOGRAD_AFFINITY_KEY:?" in compose
    assert "STREAMLIT_SERVER_COOKIE_SECRET: ${HOGRAD_COOKIE_SECRET:?" in compose
    assert "HOGRAD_REPLICA_HEADER: ${HOGRAD_REPLICA_HEADER:-off}" in compose
    assert "--chown" not in docker and "\nCOPY . .\n" in docker  # root's files, read-only
    assert docker.index("COPY . .") < docker.index("USER hograd")
    guide = (ROOT / "docs" / "deploy.md").read_text()
    assert "@sha256:" in guide and "bind :443 ssl crt" in guide
