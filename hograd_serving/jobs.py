"""Heavy torch work for the pages: in the asking thread through the gate, or, where PyTorch's
process-wide state must stay untouched, in a fresh Python process.

Three kinds of work leave the ordinary path of a script run:

* **the network page's training and analysis** (up to 0.8 s and 1 s of torch per click,
  bounded by counted work before they start): :func:`network_job` runs them in the asking
  thread inside the heavy-work gate (:mod:`.gate`), off the floor (:mod:`.floor`), so the light
  runs of the other students go on meanwhile.
* **the derivatives page's one-point autograd probe**, which sizes a graph before anything is
  built (up to 0.7 s near the node limit): :func:`shared_probe` memoises it for every session
  and builds it off the floor.
* **the flag lab's isolated runs and anomaly mode's report** (:mod:`hograd_core.flaglab.flags`
  says why: a process-wide switch, a warning PyTorch gives once per process): :func:`run_cold`
  runs each in a new interpreter, which imports torch first (1-2 s of CPU). They are rare and
  cached: one process per distinct request and server.

A class larger than one server process serves goes to identical replicas behind a proxy
(deploy/, docs/deploy.md), not to more processes inside one server.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from hograd_core.errors import HogradError
from hograd_core.flaglab.flags import FlagOutcome
from hograd_core.flaglab.isolated import decode
from hograd_core.nested_autograd import probe_graph

from .floor import step_aside
from .gate import HEAVY_SECONDS, STOP_SECONDS, BusyError, heavy_work

__all__ = [
    "COLD_SLOTS",
    "FLAG_SECONDS",
    "ChildError",
    "network_job",
    "run_cold",
    "run_isolated",
    "shared_probe",
]

T = TypeVar("T")
ROOT = str(Path(__file__).resolve().parents[1])
#: A cold process computes with one thread, like the server, and prints no warnings into the
#: answer it writes.
CHILD_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "PYTHONWARNINGS": "ignore"}


class ChildError(HogradError):
    """A fresh process failed, or ran out of its ``seconds`` (``timeout``).

    Args:
        detail: what went wrong, for the message when it failed.
        seconds: the time it had.
        timeout: it ran out of time (and was killed) rather than failed.
        flag_lab: word the message for the flag lab's separate process.
    """

    def __init__(
        self, detail: str, *, seconds: float, timeout: bool = False, flag_lab: bool = False
    ) -> None:
        self.detail, self.seconds, self.timeout = detail, seconds, timeout
        if timeout:
            key = "budget.isolated_timeout" if flag_lab else "budget.job_timeout"
            super().__init__(key, seconds=f"{seconds:g}")
        else:
            key = "budget.isolated_failed" if flag_lab else "budget.job_failed"
            super().__init__(key, detail=detail[-200:])


def network_job(work: Callable[[], T]) -> T:
    """``work()`` (training or analysing the small network) inside the heavy-work gate.

    Raises:
        BusyError: every slot is taken, said in training's words ("budget.network_busy").
        DeadlineError: ``work`` ran past :data:`~.gate.HEAVY_SECONDS` and was stopped.
        HogradError: a refusal (a budget) from ``work``, unchanged.
    """
    try:
        with heavy_work(seconds=HEAVY_SECONDS):
            return work()
    except BusyError as err:
        raise BusyError("budget.network_busy") from err


@functools.lru_cache(maxsize=256)
def shared_probe(fn: Any, order: int) -> Any:
    """The autograd probe of ``fn`` to ``order`` (:func:`hograd_core.nested_autograd.probe_graph`),
    built off the floor. Not gated: a probe is bounded by the node limit, and small ones are the
    most common request of the derivatives page. The answer depends on the expression only, so it
    is memoised for every session (a refusal too, so a function over the limit is not probed
    again at every x0). Passed to the core as its ``probe``.
    """
    with step_aside():  # up to 0.7 s near the node limit: the light runs go on meanwhile
        return probe_graph(fn, order)


#: The flag lab's isolated runs: a cold process imports torch first (1-2 s).
FLAG_SECONDS = 60.0

_COLD_FLAG = (
    "import json, sys, torch; torch.set_num_threads(1); "
    "from hograd_core.flaglab.isolated import outcome_json; "
    "sys.stdout.write(outcome_json(json.loads(sys.stdin.read())))"
)


def run_isolated(payload: dict) -> FlagOutcome:
    """A flag-lab request (:mod:`hograd_core.flaglab.isolated`) run in a fresh process. Passed
    to ``run_flags`` and ``run_case`` as their ``isolate``.

    Raises:
        BusyError: every heavy-work slot is taken, or the cold process's.
        ChildError: the process failed, or ran out of time.
    """
    with heavy_work(seconds=FLAG_SECONDS + STOP_SECONDS):  # the child's own timeout first
        try:
            return decode(run_cold(_COLD_FLAG, json.dumps(payload), FLAG_SECONDS))
        except ChildError as err:
            raise ChildError(
                err.detail, seconds=err.seconds, timeout=err.timeout, flag_lab=True
            ) from err


#: Cold processes (``python -c`` importing torch: about 220 MB each) that may run at once; a
#: second request waits for the first (up to ``wait`` seconds), as heavy work waits for a slot
#: of the gate. One keeps a replica's peak under 1 GB (docs/performance.md).
COLD_SLOTS = 1
_COLD_SEMAPHORE = threading.BoundedSemaphore(COLD_SLOTS)


def run_cold(program: str, stdin: str, timeout: float, wait: float = 1.5) -> str:
    """Run ``program`` in a fresh interpreter, ``stdin`` on its input; its output.

    For work that must not share a process with the server: a process-wide switch such as
    anomaly mode, a warning PyTorch gives once per process. Its callers hold the heavy-work
    gate, so they wait off the floor.

    Raises:
        BusyError: :data:`COLD_SLOTS` cold processes run already, still after ``wait`` s.
        ChildError: the process failed, or ran out of ``timeout`` seconds (it is killed).
    """
    if not _COLD_SEMAPHORE.acquire(timeout=wait):
        raise BusyError("budget.busy", slots=COLD_SLOTS)
    try:
        done = subprocess.run(
            [sys.executable, "-c", program],
            input=stdin.encode(),
            capture_output=True,
            timeout=timeout,
            env={**os.environ, **CHILD_ENV, "PYTHONPATH": ROOT},
            cwd=ROOT,
            check=False,
        )
    except subprocess.TimeoutExpired as err:
        raise ChildError("no answer in time", seconds=timeout, timeout=True) from err
    finally:
        _COLD_SEMAPHORE.release()
    if done.returncode != 0:
        raise ChildError(done.stderr.decode(errors="replace")[-300:], seconds=timeout)
    return done.stdout.decode()
