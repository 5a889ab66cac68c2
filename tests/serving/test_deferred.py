"""hograd_serving.deferred: jobs a page shows later, run in a torch worker process. The
answers are checked against sympy; the scheduling (most recent first, forgetting, keeping)
with a job kind of the test's own."""

from __future__ import annotations

import importlib
import os
import threading
from pathlib import Path

import pytest
import sympy as sp

from hograd_core.errors import BudgetError
from hograd_serving import torch_helper
from hograd_serving.deferred import NICENESS, DeferredJobs, JobAnswer, TorchWorker
from hograd_ui.i18n import error_text

X = sp.Symbol("x", real=True)
dmod = importlib.import_module("hograd_core.nested_autograd")  # the module, not the function


@pytest.fixture()
def worker():  # noqa: ANN201
    w = TorchWorker()
    yield w
    w.stop()


def exact(expr: sp.Expr, x0: float, order: int) -> list[float]:
    return [float(sp.diff(expr, X, k).subs(X, x0)) for k in range(order + 1)]


def test_the_autograd_column_comes_from_the_worker_and_agrees_with_sympy(
    worker: TorchWorker, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Right numbers, and not computed in this process: here, nested autograd would fail."""

    def not_here(*args: object, **kwargs: object) -> None:
        raise AssertionError("computed in the server process")

    monkeypatch.setattr(dmod, "derivatives", not_here)
    later = DeferredJobs("autograd", worker)
    done = later.ask(("sin(x)*exp(-x^2)", 0.3, 6), wait=60)
    assert done is not None and done.error is None
    want = exact(sp.sin(X) * sp.exp(-(X**2)), 0.3, 6)
    assert done.value == pytest.approx(want, rel=1e-10)
    assert worker._proc is not None and worker._starts == 1
    # a process of its own, with torch, at low priority
    assert os.getpriority(os.PRIO_PROCESS, worker._proc.pid) == NICENESS
    maps = Path(f"/proc/{worker._proc.pid}/maps").read_text()
    assert "libtorch" in maps


def test_the_seed_example_in_the_background(worker: TorchWorker) -> None:
    done = DeferredJobs("autograd", worker).ask(("x**3", 2.0, 2), wait=60)
    assert done is not None and done.value[1:] == [12.0, 12.0]


def test_a_graph_over_the_node_limit_is_refused_with_the_budget_message(
    worker: TorchWorker,
) -> None:
    done = DeferredJobs("autograd", worker).ask(("log(cosh(x))", 0.7, 10), wait=60)
    assert done is not None and done.value is None
    assert isinstance(done.error, BudgetError) and done.error.key == "budget.nodes"
    assert "100,000" in error_text(done.error, "en") and "100,000" in error_text(done.error, "zh")


def test_a_short_wait_returns_nothing_and_the_answer_comes_later(worker: TorchWorker) -> None:
    later = DeferredJobs("autograd", worker)
    args = ("1/(1+x^2)", 0.4, 10)  # ~0.3 s of work in its fork
    assert later.ask(args, wait=0.0) is None
    done = later.ask(args, wait=60)
    assert done is not None and done.value == pytest.approx(
        exact(1 / (1 + X**2), 0.4, 10), rel=1e-9
    )
    assert later.ask(args, wait=0.0) is done  # kept: the next student gets it without waiting


def test_a_job_out_of_time_is_refused_and_its_worker_replaced(worker: TorchWorker) -> None:
    later = DeferredJobs("autograd", worker, timeout=0.05)
    assert later.ask(("x**3", 2.0, 2), wait=60).value[1:] == [12.0, 12.0]  # started, warm
    first = worker._proc
    done = later.ask(("1/(1+x^2)", 0.4, 10), wait=60)  # ~0.3 s of work
    assert done.error is not None and done.error.key == "budget.job_timeout"
    assert first.poll() is not None  # killed
    later.timeout = 30.0
    assert later.ask(("x**3", 1.0, 1), wait=60).value == [1.0, 3.0]
    assert worker._starts == 2 and worker._proc.poll() is None


def test_a_dead_worker_is_replaced(worker: TorchWorker) -> None:
    later = DeferredJobs("autograd", worker)
    assert later.ask(("x**3", 2.0, 1), wait=60).value == [8.0, 12.0]
    worker._proc.kill()
    worker._proc.wait()
    assert later.ask(("x**3", 3.0, 1), wait=60).value == [27.0, 27.0]
    assert worker._starts == 2 and worker._proc.poll() is None


def test_without_a_worker_the_job_runs_in_the_thread() -> None:
    done = DeferredJobs("autograd").ask(("x**3", 2.0, 3), wait=60)
    assert done is not None and done.value[1:] == [12.0, 12.0, 6.0]


@pytest.mark.parametrize(
    ("timeout", "key"), [(True, "budget.job_timeout"), (False, "budget.job_failed")]
)
def test_a_failed_job_is_a_clear_refusal(timeout: bool, key: str) -> None:
    class Failing(TorchWorker):
        def run(self, *args: object) -> tuple[bool, None]:
            raise torch_helper.ChildError("killed", seconds=7, timeout=timeout)

    done = DeferredJobs("autograd", Failing(), timeout=7).ask(("x**3", 2.0, 3), wait=60)
    assert done is not None and isinstance(done.error, torch_helper.ChildError)
    assert done.error.key == key
    assert ("7 s" in error_text(done.error, "en")) == timeout


class Recording(DeferredJobs):
    """Runs nothing: records the order of the jobs, each held until ``release`` is set."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__("test", **kwargs)
        self.order: list[str] = []
        self.release = threading.Event()
        self.started = threading.Event()

    def run(self, args):  # noqa: ANN001, ANN201
        self.order.append(args)
        self.started.set()
        self.release.wait(10)
        return JobAnswer(value=args.upper())


class Clock:
    """A clock the test moves by hand; every reading is a little later than the one before,
    so two asks never tie."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1e-6
        return self.now


def test_the_most_recently_asked_job_runs_first_and_forgotten_ones_never() -> None:
    clock = Clock()
    later = Recording(forget=0.5, clock=clock)
    later.ask("first", wait=0.0)
    while not later.order:  # the one thread takes "first" and holds it until release
        later.started.wait(10)
    later.ask("old", wait=0.0)
    later.ask("stale", wait=0.0)
    clock.now += 0.6  # nobody asks for these two again: forgotten
    later.ask("a", wait=0.0)
    later.ask("b", wait=0.0)
    later.ask("a", wait=0.0)  # asked again: now the most recent
    later.release.set()
    assert later.ask("a", wait=10).value == "A"
    assert later.ask("b", wait=10).value == "B"
    assert later.order == ["first", "a", "b"]


def test_only_the_last_answers_are_kept() -> None:
    later = Recording(keep=3)
    later.release.set()
    for name in "abcd":
        assert later.ask(name, wait=10).value == name.upper()
    assert later.ask("a", wait=0.0) is None  # dropped: asked again, it runs again
    assert later.ask("d", wait=0.0).value == "D"
    assert later.ask("a", wait=10).value == "A" and later.order == ["a", "b", "c", "d", "a"]


def test_many_threads_asking_at_once_get_one_run_each_job() -> None:
    later = Recording()
    later.release.set()
    answers: list[str] = []
    threads = [
        threading.Thread(target=lambda i=i: answers.append(later.ask(f"j{i % 3}", 10).value))
        for i in range(30)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(answers) == sorted(f"J{i % 3}" for i in range(30))
    assert sorted(later.order) == ["j0", "j1", "j2"]
