"""A learner's program, run in a child process that can be stopped (the code lab, the CLI).

The program runner (:mod:`hograd_core.program`) refuses what is outside its subset and checks
sizes before each operation, but the time a run takes and the memory it holds are bounded here,
from outside, as the exact column bounds sympy (:mod:`.sympy_column`): each run is a fresh
``python -m hograd_serving.code_child SECONDS BYTES`` that limits its own CPU time
(``RLIMIT_CPU``) and memory (``RLIMIT_AS``, beyond what its imports took) before it reads the
program, and the parent kills it after :data:`WALL_SECONDS`. The child writes one JSON line per
top-level statement as soon as it has run, so a run stopped by a limit still shows the lines
before it. No lock or thread of the server waits for it: the caller's own thread does.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import resource
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CPU_SECONDS", "MEMORY_BYTES", "WALL_SECONDS", "ChildRun", "main", "run_program_child"]

#: CPU seconds a run may take (then SIGXCPU ends it): "time".
CPU_SECONDS = 10
#: Memory a run may take beyond its imports (then allocations fail): "memory".
MEMORY_BYTES = 768 * 2**20
#: Wall-clock seconds from start to kill (importing torch on a busy host takes a few).
WALL_SECONDS = 60.0
#: The largest line a child may write (one statement's record, its graphs included).
MAX_LINE = 4 * 2**20
#: The largest request read from standard input.
MAX_REQUEST = 64 * 1024

ROOT = str(Path(__file__).resolve().parents[1])


@dataclass(frozen=True)
class ChildRun:
    """What a child reported.

    Attributes:
        lines: each statement's record, as JSON (``hograd_core.program.line_from`` reads it).
        torch: the version of torch that ran the program.
        stopped: None when the run ended by itself (its last record may hold an error);
            "time" or "memory" when a limit ended it, "error" when the child failed.
        detail: what the child said when it failed.
    """

    lines: tuple[dict, ...]
    torch: str
    stopped: str | None = None
    detail: str = ""


def _limit(seconds: float, extra: int) -> None:
    """``seconds`` of CPU time and ``extra`` bytes beyond what the imports took."""
    used = resource.getrusage(resource.RUSAGE_SELF)
    cpu = math.ceil(used.ru_utime + used.ru_stime + seconds)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))  # SIGXCPU, then SIGKILL
    with open("/proc/self/statm") as statm:  # virtual size, in pages
        size = int(statm.read().split()[0]) * resource.getpagesize()
    resource.setrlimit(resource.RLIMIT_AS, (size + extra, size + extra))


def main(argv: list[str]) -> None:
    """``argv``: the CPU seconds and the bytes of memory this process may use beyond what its
    imports took. Reads ``{"text": ...}`` on standard input."""
    import torch

    from hograd_core.program import run_program

    torch.set_num_threads(1)
    _limit(float(argv[0]), int(argv[1]))
    request = json.loads(sys.stdin.read(MAX_REQUEST))
    _write({"torch": torch.__version__})

    def line(record: object) -> None:
        _write({"line": dataclasses.asdict(record)})  # type: ignore[call-overload]

    try:
        run_program(str(request["text"]), on_line=line)
    except MemoryError:
        _write({"stopped": "memory"})
        return
    _write({"done": True})


def _write(record: dict) -> None:
    sys.stdout.write(json.dumps(record, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def run_program_child(
    text: str,
    *,
    cpu_seconds: float = CPU_SECONDS,
    memory: int = MEMORY_BYTES,
    wall_seconds: float = WALL_SECONDS,
) -> ChildRun:
    """Run ``text`` in a fresh child process with these limits; what it reported.

    The caller's thread waits (at most ``wall_seconds``); the child is always gone on return.
    """
    env = {
        **os.environ,
        "PYTHONPATH": ROOT,
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "PYTHONWARNINGS": "ignore",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "hograd_serving.code_child", f"{cpu_seconds:g}", str(memory)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        env=env,
    )
    killed = False
    try:
        out, err = proc.communicate(json.dumps({"text": text}).encode(), timeout=wall_seconds)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        killed = True
    return _read(out, err, proc.returncode, killed)


def _read(out: bytes, err: bytes, status: int | None, killed: bool) -> ChildRun:
    lines, version, stopped, done = [], "", None, False
    for raw in out.splitlines():
        if len(raw) > MAX_LINE:
            break
        try:
            record = json.loads(raw)
        except ValueError:
            break  # a line cut by the kill
        if "torch" in record:
            version = str(record["torch"])
        elif "line" in record:
            lines.append(record["line"])
        elif "stopped" in record:
            stopped = str(record["stopped"])
        elif record.get("done"):
            done = True
    detail = ""
    if stopped is None and not done:
        text = err.decode(errors="replace")
        if killed or status in (-9, -24):  # killed by us, or SIGXCPU / SIGKILL past RLIMIT_CPU
            stopped = "time"
        elif "MemoryError" in text or "can't allocate memory" in text:
            stopped = "memory"
        else:
            stopped, detail = "error", text[-300:]
    return ChildRun(tuple(lines), version, stopped, detail)


if __name__ == "__main__":
    main(sys.argv[1:])
