"""Compile and run many generated C++ programs at once, for the tests.

Compiling ``<torch/torch.h>`` costs 15-25 s a program, so the tests put every program in one
file (:func:`bundle`): each program's code after its ``#include`` lines goes into a namespace
of its own, unchanged, and the file's ``main`` calls each program's ``main`` between
``=== <name>`` lines. The file is built by bash with the lines the programs print on top
(:func:`hograd_core.cpp_code.build_lines`: find the wheel of the ``python`` on PATH, this
test's, then g++), and kept under tests/artifacts/cpp by the hash of its source, so a second
run with the same programs does not compile again; a lock file in the folder keeps two
processes (pytest-xdist's workers) from compiling the same program at once.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

from hograd_core.cpp_code import FIND_TORCH, build_command

ARTIFACTS = Path(__file__).resolve().parent / "artifacts" / "cpp"


def require_gpp() -> None:
    """Skip without g++ (Debian's build-essential); under CI=true, fail instead."""
    if shutil.which("g++"):
        return
    reason = "g++ is missing (apt-get install build-essential, or make debian)"
    if os.environ.get("CI") == "true":
        pytest.fail(f"the C++ tests cannot run under CI=true: {reason}")
    pytest.skip(reason)


def bundle(programs: Mapping[str, str]) -> str:
    """One C++ file holding every program of ``programs`` (name -> source)."""
    includes: dict[str, None] = {}
    parts = []
    for i, source in enumerate(programs.values()):
        lines = source.splitlines()
        last = max(n for n, line in enumerate(lines) if line.startswith("#include"))
        includes.update((line, None) for line in lines[: last + 1] if line.startswith("#include"))
        parts.append(f"namespace case_{i} {{\n" + "\n".join(lines[last + 1 :]) + "\n}\n")
    calls = [
        f'  std::printf("=== %s\\n", "{name}");\n  rc |= case_{i}::main();'
        for i, name in enumerate(programs)
    ]
    return "\n".join(
        [*includes, "", *parts, "int main() {", "  int rc = 0;", *calls, "  return rc;", "}", ""]
    )


def build(source: str) -> Path:
    """The executable of ``source``, compiled once per distinct source."""
    require_gpp()
    tag = hashlib.sha256((source + build_command()).encode()).hexdigest()[:16]
    folder = ARTIFACTS / tag
    program = folder / "program"
    if program.exists():
        return program
    folder.mkdir(parents=True, exist_ok=True)
    # One build per source at a time: another pytest-xdist worker, or another pytest run on
    # this checkout, that wants the same program waits here and then finds it built.
    with open(folder / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not program.exists():
            _compile(folder, source)
    return program


def _compile(folder: Path, source: str) -> None:
    """Compile ``source`` into ``folder``/program (the caller holds the folder's lock)."""
    (folder / "program.cpp").write_text(source)
    # The programs' own build lines, the file names aside: "$TORCH" is what FIND_TORCH finds.
    script = f"{FIND_TORCH} && {build_command('program.cpp', 'tmp', '$TORCH')}"
    path = os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")])
    done = subprocess.run(
        ["bash", "-c", script],
        cwd=folder,
        env={**os.environ, "PATH": path},
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    (folder / "tmp").rename(folder / "program")  # only a finished build counts as the cache


def run_bundle(programs: Mapping[str, str]) -> dict[str, list[str]]:
    """Build and run the bundle of ``programs``: each program's output lines, by name."""
    program = build(bundle(programs))
    done = subprocess.run([str(program)], capture_output=True, text=True, timeout=600)
    out: dict[str, list[str]] = {}
    current: list[str] = []
    for line in done.stdout.splitlines():
        if line.startswith("=== "):
            current = out.setdefault(line[4:], [])
        else:
            current.append(line)
    assert list(out) == list(programs), done.stderr[-4000:]
    return out
