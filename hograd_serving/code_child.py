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

import contextlib
import dataclasses
import json
import math
import resource
import subprocess
import sys
import threading
from dataclasses import dataclass

from . import zygote

__all__ = [
    "CPU_SECONDS",
    "MEMORY_BYTES",
    "WALL_SECONDS",
    "ChildRun",
    "launch",
    "main",
    "run_program_child",
]

#: CPU seconds a run may take (then SIGXCPU ends it): "time".
CPU_SECONDS = 10
#: Memory a run may take beyond its imports (then allocations fail): "memory".
MEMORY_BYTES = 768 * 2**20
#: Wall-clock seconds from start to kill (a fresh interpreter importing torch on a busy host
#: takes several).
WALL_SECONDS = 60.0
#: The largest line a child may write (one statement's record, its graphs included).
MAX_LINE = 4 * 2**20
#: The largest request read from standard input.
MAX_REQUEST = 64 * 1024

ROOT = zygote.ROOT  # the folder that holds hograd's packages: the children's cwd
#: Seconds the zygote may take to import torch and warm up before its first child (5-14 s on
#: a busy 2-core host); past them the run starts a fresh interpreter instead.
START_SECONDS = 60.0
#: This module, which the zygote runs and forks.
CHILD = "hograd_serving.code_child"
#: The program the zygote runs once before it forks: torch's first autograd calls (first and
#: second derivatives, a graph walked) cost more than a lesson's whole program afterwards.
WARM_UP = (
    "import torch\nx = torch.tensor([2.0], requires_grad=True)\ny = torch.sin(x) * x**3\n"
    "g = torch.autograd.grad(outputs=y, inputs=x, create_graph=True)[0]\n"
    "h = torch.autograd.grad(outputs=g, inputs=x)[0]\nprint(f'{h.item():.3f}')\n"
)


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
    imports took. Reads ``{"text": ...}`` on standard input. Or ``--zygote FD``: import torch,
    warm it up, then fork a child per request on the socket FD (:func:`.zygote.serve`)."""
    import torch

    from hograd_core.program import run_program

    torch.set_num_threads(1)
    if argv[:1] == ["--zygote"]:
        run_program(WARM_UP)
        zygote.serve(int(argv[1]), main)
        return
    torch.seed()  # a forked child's random numbers are its own, as a fresh interpreter's
    _limit(float(argv[0]), int(argv[1]))
    try:
        request = json.loads(sys.stdin.read(MAX_REQUEST))
        _write({"torch": torch.__version__})

        def line(record: object) -> None:
            _write({"line": dataclasses.asdict(record)})  # type: ignore[call-overload]

        run_program(str(request["text"]), on_line=line)
    except MemoryError:
        _write({"stopped": "memory"})
        return
    except Exception as err:  # standard error goes nowhere: say it on the record
        why = "memory" if "can't allocate memory" in str(err) else "error"
        _write({"stopped": why, "detail": f"{type(err).__name__}: {err}"[-300:]})
        return
    _write({"done": True})


def _write(record: dict) -> None:
    sys.stdout.write(json.dumps(record, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def launch(cpu_seconds: float, memory: int) -> zygote.Forked | subprocess.Popen:
    """A child with ``cpu_seconds`` of CPU time and ``memory`` bytes beyond its imports,
    reading its request on standard input: forked by the zygote, else a fresh interpreter."""
    argv = [f"{cpu_seconds:g}", str(memory)]
    return zygote.launch(
        argv, env=zygote.child_env(), cwd=ROOT, child=CHILD, start_seconds=START_SECONDS
    )


def run_program_child(
    text: str,
    *,
    cpu_seconds: float = CPU_SECONDS,
    memory: int = MEMORY_BYTES,
    wall_seconds: float = WALL_SECONDS,
) -> ChildRun:
    """Run ``text`` in a child process of its own with these limits; what it reported.

    The caller's thread waits (at most ``wall_seconds`` from the child's start); the child is
    always gone on return.
    """
    proc = launch(cpu_seconds, memory)
    killed = threading.Event()

    def kill() -> None:
        killed.set()
        proc.kill()

    timer = threading.Timer(wall_seconds, kill)  # the deadline, whatever the child does
    timer.daemon = True
    timer.start()
    out: list[str] = []
    try:
        with contextlib.suppress(OSError):  # it died at once: judged by its exit status
            proc.stdin.write(json.dumps({"text": text}))
        with contextlib.suppress(OSError):
            proc.stdin.close()
        while raw := proc.stdout.readline(MAX_LINE + 1):
            out.append(raw)
    finally:
        timer.cancel()
        proc.kill()
        status = proc.wait()
        proc.stdout.close()
    return _read(out, status, killed.is_set())


def _read(out: list[str], status: int | None, killed: bool) -> ChildRun:
    lines, version, stopped, done, detail = [], "", None, False, ""
    for raw in out:
        if len(raw) > MAX_LINE or not raw.endswith("\n"):
            break  # too long, or cut by the kill
        try:
            record = json.loads(raw)
        except ValueError:
            break
        if "torch" in record:
            version = str(record["torch"])
        elif "line" in record:
            lines.append(record["line"])
        elif "stopped" in record:
            stopped, detail = str(record["stopped"]), str(record.get("detail", ""))
        elif record.get("done"):
            done = True
    if stopped is None and not done:
        if killed or status in (-9, -24):  # killed by us, or SIGXCPU / SIGKILL past RLIMIT_CPU
            stopped = "time"
        else:
            stopped, detail = "error", f"exit status {status}"
    return ChildRun(tuple(lines), version, stopped, detail)


if __name__ == "__main__":
    main(sys.argv[1:])
