"""Settings for the whole test suite, and how ``make test`` shares it between two workers."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Iterator

import pytest
import torch

from tests.apptest import scan_components_once

# One thread, as the app runs (app.py): on a busy 2-core machine torch's default pool makes the
# many small ops of these tests up to 10x slower.
torch.set_num_threads(1)
scan_components_once()  # every AppTest otherwise reads every installed package's metadata

#: Folders whose test files run one at a time, all on one pytest-xdist worker, under
#: ``--dist loadfile`` (``make test``): each of their tests starts two or three replicas and
#: haproxy (deploy) or builds programs with g++ on LibTorch's headers (cpp), and two of those
#: at once on two cores only wait on each other. The browser tests (tests/e2e) are not among
#: them: they are a third of the suite's time, and kept on one worker they were the whole run
#: while the other worker ran out of work; each worker starts its own shared server for them
#: (tests/e2e/conftest.py, tests/e2e/test_running_server_files.py).
ONE_AT_A_TIME = ("tests/deploy/", "tests/cpp/")

#: Rough seconds one test of each folder takes (a test of another folder: DEFAULT_COST), from
#: runs of 2026-12-06 on a loaded machine: the 399 browser tests took 51 of a whole run's 53
#: minutes on their worker (7.5 s a test); tests/labs' 635 tests 4.1 CPU-minutes; 69 AppTests
#: of two app files 117 CPU-s.
#: Only the order of the units depends on them, never an outcome: the costliest unit is handed
#: out first (longest processing time first), so the long units start at once and the short
#: ones fill the end.
COST = {
    "tests/e2e/": 7.5,
    "tests/deploy/": 10.0,
    "tests/cpp/": 0.5,
    "tests/app/": 1.5,
    "tests/labs/": 0.4,
    "tests/serving/": 0.8,
    "tests/project/": 0.5,
    "tests/core/": 0.15,
}
DEFAULT_COST = 0.3


def _scope(nodeid: str) -> str:
    """The unit of work of a test: its folder for ONE_AT_A_TIME, else its file."""
    return next((f for f in ONE_AT_A_TIME if nodeid.startswith(f)), nodeid.split("::", 1)[0])


def unit_cost(scope: str, nodeids: Iterable[str]) -> float:
    """The rough cost of a unit of work: its tests times the cost of a test of its folder."""
    each = next((c for folder, c in COST.items() if scope.startswith(folder)), DEFAULT_COST)
    return each * sum(1 for _ in nodeids)


def _pages() -> list | None:
    """tests/e2e/conftest.py's record of the pages a test opened, once a test imported it."""
    e2e = sys.modules.get("tests.e2e.conftest")
    return None if e2e is None else e2e.TRACKED


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    pages = _pages()
    if pages is not None:
        pages.clear()  # a test reports the pages opened from its setup on


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
    """A failed test that drove a browser ends its report with each page it opened: its
    address, its last runs and its last messages, read from the app's websocket (what a CI
    log shows of a page that never did what the test waited for)."""
    outcome = yield
    report = outcome.get_result()
    if report.failed:  # a page lent to it is not lent again (tests/e2e/conftest.py)
        item.hograd_failed = True
    pages = _pages()
    if report.failed and call.when == "call" and pages:
        e2e = sys.modules["tests.e2e.conftest"]
        name = re.sub(r"[^\w.=\[\]-]", "_", item.name)  # a parameter may hold a "/" or a "?"
        told = []
        for n, runs in enumerate(pages, 1):
            whole = e2e.ARTIFACTS / f"failed-{name}-page{n}.txt"  # every message kept
            whole.parent.mkdir(parents=True, exist_ok=True)
            whole.write_text(f"{runs.url}\n{runs.tail(len(runs.log))}\n")
            told.append(f"--- page {n} at {runs.url} (all: {whole.name})\n{runs.runs_told()}")
            told.append(f"  the last messages:\n{runs.tail()}")
        report.sections.append(("each page's runs (websocket)", "\n".join(told)))


@pytest.hookimpl(tryfirst=True, optionalhook=True)  # a plain run has no xdist
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """``--dist loadfile`` with ONE_AT_A_TIME's folders as single units, costliest first.

    Not ``--dist loadgroup`` with ``xdist_group`` marks: with pytest 9.2 and pytest-xdist
    3.8 it distributes marked tests as if unmarked (pytest-dev/pytest-xdist#1386), silently.
    """
    if config.getvalue("dist") != "loadfile":
        return None
    return scheduler_class()(config, log)


def scheduler_class() -> type:
    """xdist's file scheduler with ONE_AT_A_TIME's units, handing out the costliest first.

    xdist hands out the unit with the most tests first; a browser test costs as much as a few
    hundred of the kernel's, so its files came after the kernel's long parametrised ones.
    """
    from xdist.scheduler import LoadFileScheduling

    class FolderOrFile(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return _scope(nodeid)

        def _assign_work_unit(self, node: object) -> None:
            costliest = max(self.workqueue, key=lambda s: unit_cost(s, self.workqueue[s]))
            self.workqueue.move_to_end(costliest, last=False)  # xdist takes the first unit
            super()._assign_work_unit(node)

    return FolderOrFile


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    """One Chromium per worker for every test that drives one (tests/e2e/conftest.py's
    ``launch_browser``): defined here, once, so that the browser tests and the replica tests
    share it (a fixture imported into two conftest files is two fixtures, and two starts)."""
    from tests.e2e.conftest import launch_browser

    yield from launch_browser()
