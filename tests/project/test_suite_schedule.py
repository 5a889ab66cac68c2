"""How ``make test`` shares the suite between its two pytest-xdist workers (tests/conftest.py):
every test runs once, the replica and C++ folders each stay on one worker, the browser tests'
files go to both, and the costliest units start first. Driven through xdist's own scheduler
with two stand-in workers that finish their tests in turn."""

from __future__ import annotations

import re
from types import SimpleNamespace

from tests.conftest import ONE_AT_A_TIME, _scope, scheduler_class, unit_cost

IDS = [
    *[f"tests/core/test_language.py::test_{i}" for i in range(200)],
    *[f"tests/core/test_taylor.py::test_{i}" for i in range(120)],
    *[f"tests/app/test_pages.py::test_{i}" for i in range(30)],
    *[f"tests/e2e/test_links_browser.py::test_{i}" for i in range(100)],
    *[f"tests/e2e/test_slides_browser.py::test_{i}" for i in range(80)],
    "tests/e2e/test_static_gzip.py::test_0",
    *[f"tests/deploy/test_replicas.py::test_{i}" for i in range(10)],
    *[f"tests/deploy/test_health.py::test_{i}" for i in range(5)],
    *[f"tests/cpp/test_cpp_programs.py::test_{i}" for i in range(90)],
    "tests/cpp/test_cpp_build_lock.py::test_0",
    "tests/ui/test_palette.py::test_0",
]


class Worker:
    """A stand-in for xdist's WorkerController: keeps the indexes it was sent, in order."""

    def __init__(self, name: str, handed: list[str]) -> None:
        self.handed = handed  # every worker's units, in the order they were handed out
        self.gateway = SimpleNamespace(id=name)
        self.shutting_down = False
        self.sent: list[int] = []
        self.done = 0

    def send_runtest_some(self, indexes: list[int]) -> None:
        self.handed.append(_scope(IDS[indexes[0]]))
        self.sent.extend(indexes)

    def shutdown(self) -> None:
        self.shutting_down = True


def run_schedule(handed: list[str] | None = None) -> dict[str, list[str]]:
    """Every test each worker ran, in order, with the two finishing one test each in turn."""
    config = SimpleNamespace(
        getvalue=lambda name: {"tx": ["2*popen"], "dist": "loadfile"}[name],
        option=SimpleNamespace(loadscopereorder=True),
    )
    quiet = SimpleNamespace(loadscopesched=lambda *a: None, loadfilesched=lambda *a: None)
    sched = scheduler_class()(config, quiet)
    handed = [] if handed is None else handed
    workers = [Worker("gw0", handed), Worker("gw1", handed)]
    for w in workers:
        sched.add_node(w)
    for w in workers:
        sched.add_node_collection(w, IDS)
    sched.schedule()
    while any(w.done < len(w.sent) for w in workers):
        for w in workers:
            if w.done < len(w.sent):
                sched.mark_test_complete(w, w.sent[w.done])
                w.done += 1
    assert not sched.has_pending and all(w.shutting_down for w in workers)
    return {w.gateway.id: [IDS[i] for i in w.sent] for w in workers}


def test_every_test_runs_once() -> None:
    ran = run_schedule()
    assert sorted(ran["gw0"] + ran["gw1"]) == sorted(IDS)


def test_replica_and_cpp_folders_stay_on_one_worker_and_browser_files_use_both() -> None:
    ran = run_schedule()
    for folder in ONE_AT_A_TIME:
        on = {w for w, ids in ran.items() for i in ids if i.startswith(folder)}
        assert len(on) == 1, (folder, on)
    browsers = {w for w, ids in ran.items() for i in ids if i.startswith("tests/e2e/")}
    assert browsers == {"gw0", "gw1"}


def test_the_costliest_units_start_first() -> None:
    """Units go out in falling cost: the two browser files first, one to each worker, the
    replica folder next, the kernel's 320 quick tests (fewer seconds) after the C++ folder."""
    handed: list[str] = []
    ran = run_schedule(handed)
    assert {ids[0].split("::")[0] for ids in ran.values()} == {
        "tests/e2e/test_links_browser.py",
        "tests/e2e/test_slides_browser.py",
    }
    units = {_scope(i) for i in IDS}
    costs = [unit_cost(u, [i for i in IDS if _scope(i) == u]) for u in handed]
    assert sorted(handed) == sorted(units) and costs == sorted(costs, reverse=True), handed
    assert handed[2] == "tests/deploy/"
    assert handed.index("tests/cpp/") < handed.index("tests/core/test_language.py")


def test_a_unit_costs_its_tests_times_its_folders_rate() -> None:
    assert unit_cost("tests/e2e/test_x.py", ["a", "b"]) == 2 * unit_cost(
        "tests/e2e/test_x.py", ["a"]
    )
    assert unit_cost("tests/e2e/test_x.py", ["a"]) > 10 * unit_cost("tests/core/test_x.py", ["a"])


def test_no_test_starts_an_event_loop_or_playwright_of_its_own() -> None:
    """Any test may share a worker with the browser tests, whose Playwright keeps an event loop
    running on the worker's main thread: a test's coroutine goes through tests/aio.py's ``run``
    (a thread of its own), its browser is the ``browser`` fixture. Read from every test file."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    calls = ("asyncio.run(", "sync_playwright()", "run_until_complete(")
    allowed = {
        root / "aio.py": {"asyncio.run("},
        root / "e2e" / "conftest.py": {"sync_playwright()"},
        root / "serving" / "test_patches.py": {"asyncio.run("},  # in a child python it starts
        Path(__file__): set(calls),  # names them
    }
    found = [
        f"{path.relative_to(root)}: {call}"
        for path in sorted(root.rglob("*.py"))
        for call in calls
        if call in path.read_text(encoding="utf-8") and call not in allowed.get(path, ())
    ]
    assert found == []
    # and one ``browser`` fixture, tests/conftest.py's: one imported into a second conftest
    # file is a second fixture, and a second start of Playwright on a worker that ran both
    texts = {p: p.read_text(encoding="utf-8") for p in sorted(root.rglob("*.py"))}
    defined = [
        str(path.relative_to(root))
        for path, text in texts.items()
        if path != Path(__file__)  # names them
        and ("def browser(" in text or re.search(r"import[^\n]*\bbrowser\b", text))
    ]
    assert defined == ["conftest.py"]


def test_every_app_test_run_waits_under_the_shared_ceiling() -> None:
    """An AppTest's ``default_timeout`` is a timer that a busy machine loses: every one is
    tests/apptest.py's ceiling (or a parameter that defaults to it), never a number."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    found = [
        f"{path.relative_to(root)}: {m[0]}"
        for path in sorted(root.rglob("*.py"))
        for m in re.finditer(r"default_timeout=\{?(\w+)", path.read_text(encoding="utf-8"))
        if m[1] not in ("APP_TEST_CEILING", "timeout")
    ]
    assert found == []
