"""hograd_serving.deferred: jobs a page shows later, run in a thread of their own. The
answers are checked against sympy; the scheduling (most recent first, forgetting, keeping)
with a job kind of the test's own."""

from __future__ import annotations

import threading

import pytest
import sympy as sp

from hograd_core.errors import BudgetError
from hograd_serving import cached
from hograd_serving.deferred import DeferredJobs, JobAnswer, JobFailed
from hograd_ui.i18n import error_text

X = sp.Symbol("x", real=True)


def exact(expr: sp.Expr, x0: float, order: int) -> list[float]:
    return [float(sp.diff(expr, X, k).subs(X, x0)) for k in range(order + 1)]


def autograd() -> DeferredJobs:
    """The inspector's autograd column, as the server runs it (hograd_serving/cached.py)."""
    return DeferredJobs("autograd", cached._autograd_column)


def test_the_autograd_column_comes_from_its_thread_and_agrees_with_sympy() -> None:
    caller = threading.get_ident()
    ran_in: list[int] = []

    def column(args: tuple) -> tuple:
        ran_in.append(threading.get_ident())
        return cached._autograd_column(args)

    done = DeferredJobs("autograd", column).ask(("sin(x)*exp(-x^2)", 0.3, 6), wait=60)
    assert done is not None and done.error is None
    assert done.value == pytest.approx(exact(sp.sin(X) * sp.exp(-(X**2)), 0.3, 6), rel=1e-10)
    assert ran_in and caller not in ran_in  # the job's own thread, not the asking run


def test_the_seed_example_in_the_background() -> None:
    done = autograd().ask(("x**3", 2.0, 2), wait=60)
    assert done is not None and list(done.value[1:]) == [12.0, 12.0]


def test_a_graph_over_the_node_limit_is_refused_with_the_budget_message() -> None:
    done = autograd().ask(("log(cosh(x))", 0.7, 10), wait=60)
    assert done is not None and done.value is None
    assert isinstance(done.error, BudgetError) and done.error.key == "budget.nodes"
    assert "100,000" in error_text(done.error, "en") and "100,000" in error_text(done.error, "zh")


def test_a_short_wait_returns_nothing_and_the_answer_comes_later() -> None:
    release = threading.Event()

    def slow(args: tuple) -> tuple:
        release.wait(60)
        return cached._autograd_column(args)

    later = DeferredJobs("autograd", slow)
    args = ("1/(1+x^2)", 0.4, 10)
    assert later.ask(args, wait=0.0) is None  # under way, not in
    release.set()
    done = later.ask(args, wait=60)
    assert done is not None and done.value == pytest.approx(
        exact(1 / (1 + X**2), 0.4, 10), rel=1e-9
    )
    assert later.ask(args, wait=0.0) is done  # kept: the next student gets it without waiting


def test_a_job_that_breaks_is_a_clear_refusal_and_the_thread_goes_on() -> None:
    def broken(args: tuple) -> tuple:
        if args[0] == "boom":
            raise ZeroDivisionError("a bug")
        return cached._autograd_column(args)

    later = DeferredJobs("autograd", broken)
    done = later.ask(("boom", 0.0, 1), wait=60)
    assert isinstance(done.error, JobFailed) and done.error.key == "budget.job_failed"
    assert "ZeroDivisionError" in done.error.detail
    assert (
        error_text(done.error, "en")
        == "This computation stopped unexpectedly. Try again in a few seconds."
    )
    assert error_text(done.error, "zh")
    assert list(later.ask(("x**3", 1.0, 1), wait=60).value) == [1.0, 3.0]  # still serving


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
