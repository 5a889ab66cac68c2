"""Run a notebook's cells with a real Jupyter kernel, as a learner would, for the tests that
check a downloaded notebook.

The kernel talks to the test over Unix sockets in a folder of its own, not over TCP ports:
jupyter_client picks free ports by binding and releasing them, and the kernel binds them a
moment later; with two workers' kernels, servers and browsers starting at once, another
process took one of them in between, the kernel died ("zmq.error.ZMQError: Address already
in use") and the test waited out its 300 s for an answer (clean-clone run of 6e25adf). A
socket file no other process can take."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import nbformat

#: Seconds for the kernel to start and for each cell: a ceiling, not a pace (a cell that
#: trains a small network on a loaded machine takes tens of seconds).
TIMEOUT = 300


def execute(nb: nbformat.NotebookNode, cwd: Path | None = None) -> nbformat.NotebookNode:
    """Run every cell of ``nb`` in order, its outputs written into it; in ``cwd`` if given
    (the kernel's working folder). Returns ``nb``."""
    from nbclient import NotebookClient
    from traitlets.config import Config

    with tempfile.TemporaryDirectory(prefix="nbk") as sockets:
        config = Config()  # for the kernel manager nbclient makes, starts and shuts down
        config.KernelManager.transport = "ipc"
        config.KernelManager.ip = str(Path(sockets) / "kernel")
        resources = {"metadata": {"path": str(cwd)}} if cwd is not None else {}
        NotebookClient(
            nb,
            timeout=TIMEOUT,
            startup_timeout=TIMEOUT,
            kernel_name="python3",
            resources=resources,
            config=config,
        ).execute()
    return nb
