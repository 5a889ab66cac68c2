"""deploy/cloud_install_check.py's own parts: how it rewrites requirements.txt, how it judges an
environment, and its stand-in of PyTorch's page, read by pip itself. The check proper installs
requirements.txt from the public index with uv and pip (make test-cloud-install; .ci/run)."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
import urllib.parse
import zipfile
from pathlib import Path

import pytest
from packaging.utils import parse_wheel_filename

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "deploy"))

from cloud_install_check import (  # noqa: E402
    FIND_LINKS_LINE,
    TORCH_PIN,
    TORCH_WHEEL,
    CheckFailed,
    cuda_packages,
    pins,
    plain_torch,
    problems,
    serve,
    standin_page,
    with_page,
)

SCRIPT = str(ROOT / "deploy" / "cloud_install_check.py")
TEXT = (ROOT / "requirements.txt").read_text()


def test_only_the_page_line_changes() -> None:
    changed = with_page(TEXT, "http://127.0.0.1:9/whl/cpu/torch/")
    before, after = TEXT.splitlines(), changed.splitlines()
    differ = [(a, b) for a, b in zip(before, after, strict=True) if a != b]
    assert differ == [(FIND_LINKS_LINE, "--find-links http://127.0.0.1:9/whl/cpu/torch/")]
    assert TORCH_PIN in after


def test_a_file_without_the_page_is_refused_with_the_lines_it_needs() -> None:
    with pytest.raises(CheckFailed, match="must hold the lines"):
        with_page(TEXT.replace(FIND_LINKS_LINE, ""), "http://127.0.0.1:9/")
    with pytest.raises(CheckFailed, match="must hold the lines"):
        with_page(TEXT.replace(TORCH_PIN, "torch==2.13.0"), "http://127.0.0.1:9/")


def test_the_control_has_a_plain_pin_and_no_page() -> None:
    control = plain_torch(TEXT)
    lines = [line.strip() for line in control.splitlines()]
    assert FIND_LINKS_LINE not in lines and TORCH_PIN not in lines and "torch==2.13.0" in lines
    assert pins(control) == {**pins(TEXT), "torch": "2.13.0"}


def test_pins_are_read_from_requirements() -> None:
    found = pins(TEXT)
    assert found["torch"] == "2.13.0+cpu" and found["streamlit"] == "1.67.0"
    assert all(re.fullmatch(r"[0-9][0-9a-z.+]*", v) for v in found.values())
    assert found["psycopg"] == "3.3.9"  # psycopg[binary]: installed under its own name


def probe(**changes: object) -> dict:
    installed = {"torch": "2.13.0+cpu", "streamlit": "1.67.0", "numpy": "2.4.6"}
    return {
        "torch": "2.13.0+cpu",
        "cuda": None,
        "cuda_available": False,
        "installed": installed,
        **changes,
    }


WANTED = {"torch": "2.13.0+cpu", "streamlit": "1.67.0", "numpy": "2.4.6"}


def test_a_cpu_environment_at_its_pins_passes() -> None:
    assert problems(probe(), WANTED) == []


def test_the_cuda_build_is_caught_on_every_count() -> None:
    cuda = probe(
        torch="2.13.0",
        cuda="13.0",
        installed={
            "torch": "2.13.0",
            "nvidia-cublas": "13.1",
            "triton": "3.7.1",
            "streamlit": "1.67.0",
            "numpy": "2.4.6",
        },
    )
    found = problems(cuda, WANTED)
    assert any("not 2.13.0+cpu" in p for p in found)
    assert any("reports CUDA 13.0" in p for p in found)
    assert any("nvidia-cublas, triton" in p for p in found)
    assert any(p.startswith("torch: pinned 2.13.0+cpu, installed 2.13.0") for p in found)


def test_a_package_off_its_pin_is_caught() -> None:
    moved = probe(installed={"torch": "2.13.0+cpu", "streamlit": "1.67.0", "numpy": "2.3.0"})
    assert problems(moved, WANTED) == ["numpy: pinned 2.4.6, installed 2.3.0"]


def test_cuda_packages_are_read_from_a_compiled_file() -> None:
    compiled = (
        "nvidia-cublas==13.1.1.3\n    # via torch\nsympy==1.14.0\ntorch==2.13.0\ntriton==3.7.1\n"
    )
    assert cuda_packages(compiled) == ["nvidia-cublas", "triton"]
    assert cuda_packages("sympy==1.14.0\ntorch==2.13.0+cpu\n") == []


def tiny_wheel(folder: Path) -> Path:
    """A valid wheel named as the CPU torch, with nothing in it but its metadata."""
    path = folder / TORCH_WHEEL
    info = "torch-2.13.0+cpu.dist-info"
    files = {
        f"{info}/METADATA": "Metadata-Version: 2.1\nName: torch\nVersion: 2.13.0+cpu\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: false\n"
        "Tag: cp311-cp311-manylinux_2_28_x86_64\n",
    }
    with zipfile.ZipFile(path, "w") as z:
        for name, body in files.items():
            z.writestr(name, body)
        z.writestr(f"{info}/RECORD", "".join(f"{n},,\n" for n in files) + f"{info}/RECORD,,\n")
    return path


def test_the_stand_in_page_links_the_wheel_as_pytorch_does(tmp_path: Path) -> None:
    (tmp_path / "wheels").mkdir()
    wheel = tiny_wheel(tmp_path / "wheels")
    page = standin_page(wheel.parent, tmp_path / "site")
    html = (page / "index.html").read_text()
    href = re.search(r'href="([^"]+)"', html).group(1)
    path, _, digest = href.partition("#sha256=")
    assert path == "/whl/cpu/torch-2.13.0%2Bcpu-cp311-cp311-manylinux_2_28_x86_64.whl"
    assert digest == hashlib.sha256(wheel.read_bytes()).hexdigest()
    name = urllib.parse.unquote(path.rsplit("/", 1)[1])
    assert str(parse_wheel_filename(name)[1]) == "2.13.0+cpu"
    assert (tmp_path / "site" / urllib.parse.unquote(path).lstrip("/")).resolve() == wheel.resolve()


def test_pip_itself_finds_the_wheel_on_the_stand_in_page(tmp_path: Path) -> None:
    (tmp_path / "wheels").mkdir()
    wheel = tiny_wheel(tmp_path / "wheels")
    page = standin_page(wheel.parent, tmp_path / "site")
    env = {**os.environ, "PIP_CONFIG_FILE": os.devnull}
    with serve(tmp_path / "site") as address:
        url = f"{address}/{page.relative_to(tmp_path / 'site').as_posix()}/"
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--no-index",
                "--find-links",
                url,
                "--only-binary",
                ":all:",
                "--platform",
                "manylinux_2_28_x86_64",
                "--python-version",
                "3.11",
                "--implementation",
                "cp",
                "--abi",
                "cp311",
                "-d",
                str(tmp_path / "got"),
                TORCH_PIN,
            ],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
            check=False,
        )
    assert done.returncode == 0, done.stdout + done.stderr
    got = tmp_path / "got" / TORCH_WHEEL
    assert got.read_bytes() == wheel.read_bytes()


def test_no_wheel_for_the_stand_in_is_a_clear_message(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, SCRIPT, "--page", "standin", "--wheels", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert f"the stand-in page needs {TORCH_WHEEL} in {tmp_path}" in done.stderr
