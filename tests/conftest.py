"""Settings for the whole test suite."""

from __future__ import annotations

import pytest
import torch

# One thread, as the app runs (app.py): on a busy 2-core machine torch's default pool makes the
# many small ops of these tests up to 10x slower.
torch.set_num_threads(1)

#: Folders whose test files run one at a time, all on one pytest-xdist worker, under
#: ``--dist loadfile`` (``make test``), while the other worker takes the rest file by file.
#: They are safe side by side (free ports from the OS, their own temporary folders and
#: artefact names, a lock on each C++ build), but each of their tests starts a server and
#: Chromium (e2e: one server per worker, shared by its tests), two or three replicas and
#: haproxy (deploy), or g++ on LibTorch's headers (cpp): two of those at once on two cores
#: only wait on each other, and e2e's shared server starts once, not once per worker.
ONE_AT_A_TIME = ("tests/e2e/", "tests/deploy/", "tests/cpp/")


def _scope(nodeid: str) -> str:
    """The unit of work of a test: its folder for ONE_AT_A_TIME, else its file."""
    return next((f for f in ONE_AT_A_TIME if nodeid.startswith(f)), nodeid.split("::", 1)[0])


@pytest.hookimpl(tryfirst=True, optionalhook=True)  # a plain run has no xdist
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """``--dist loadfile`` with ONE_AT_A_TIME's folders as single units.

    Not ``--dist loadgroup`` with ``xdist_group`` marks: with pytest 9.2 and pytest-xdist
    3.8 it distributes marked tests as if unmarked (pytest-dev/pytest-xdist#1386), silently.
    Units go out largest first (xdist's ``--loadscope-reorder``, on by default), so the
    browser tests start at once on one worker.
    """
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class FolderOrFile(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return _scope(nodeid)

    return FolderOrFile(config, log)
