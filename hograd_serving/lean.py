"""Lean mode: serve from one process, with no resident helper processes, on a small host.

The helper processes (the sympy worker, the torch worker, the torch helper) take work off the
server's interpreter and make a class's reruns faster, but each holds its own copy of sympy or
torch: about 800 MB together next to a 430 MB server. On a host with less than about 2 GB
(Streamlit Community Cloud gives an app roughly 0.7-2.7 GB) that is too much, so there the same
work runs in the server's own threads: sympy for at most a fraction of a second per rerun,
nested autograd and network training in the asking thread (still through the heavy-work gate),
and the flag lab's isolated runs in a short-lived process started when one is asked for.
Every feature works; some answers take longer.

Lean mode is chosen when the memory this process may use (the cgroup limit, or the machine's
memory if that is smaller) is under ``LEAN_BELOW``; ``HOGRAD_LEAN=1`` or ``=0`` decides it
outright.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from pathlib import Path

__all__ = ["LEAN", "LEAN_BELOW", "is_lean", "memory_limit"]

#: Hosts with less memory than this run lean.
LEAN_BELOW = 2 * 1024**3

_CGROUP_FILES = ("memory.max", "memory/memory.limit_in_bytes")  # cgroup v2, v1


def memory_limit(cgroup: Path = Path("/sys/fs/cgroup")) -> int | None:
    """The bytes of memory this process may use: the smallest of its cgroup limit (v2 or v1;
    "max" and v1's huge "unlimited" value mean none) and the machine's memory; None if neither
    can be read."""
    limits = []
    for name in _CGROUP_FILES:
        try:
            text = (cgroup / name).read_text().strip()
        except OSError:
            continue
        if text.isdigit() and int(text) < 2**60:
            limits.append(int(text))
    with contextlib.suppress(ValueError, OSError):
        limits.append(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    return min(limits) if limits else None


def is_lean(environ: Mapping[str, str] = os.environ, limit: int | None = None) -> bool:
    """Whether to run lean: ``HOGRAD_LEAN`` if it says yes or no, else whether ``limit`` (read
    with :func:`memory_limit` when not given) is under :data:`LEAN_BELOW`."""
    flag = environ.get("HOGRAD_LEAN", "").strip().lower()
    if flag in {"1", "true", "yes", "on"}:
        return True
    if flag in {"0", "false", "no", "off"}:
        return False
    limit = memory_limit() if limit is None else limit
    return limit is not None and limit < LEAN_BELOW


#: Decided once per process, when the serving package is first imported.
LEAN = is_lean()
