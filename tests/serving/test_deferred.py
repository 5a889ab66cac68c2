"""hograd_serving.deferred: jobs a page shows later, run in a thread of their own. The
answers are checked against sympy; the scheduling (most recent first, forgetting, keeping)
with a job kind of the test's own."""

from __future__ import annotations

import threading

import pytest
import sympy as sp

from hograd_core.errors import BudgetError
from hograd_labs.derivatives import cached
from hograd_serving.deferred import DeferredJobs, JobAnswer, JobFailed
from hograd_ui.i18n import error_text

X = sp.Symbol("x", real=True)


def exact(expr: sp.Expr, x0: float, order: int) -> list[float]:
    return [float(sp.diff(expr, X, k).subs(X, x0)) for k in range(order + 1)]


def autograd() -> DeferredJobs:
    """The inspector's autograd column, as the server runs it (hograd_labs/derivatives/cached.py)."""
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

    def run(self, args):
        self.order.append(args)
        self.started.set()
        self.release.wait(120)  # a hang detector: every test sets release
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
        later.started.wait(60)
    later.ask("old", wait=0.0)
    later.ask("stale", wait=0.0)
    clock.now += 0.6  # nobody asks for these two again: forgotten
    later.ask("a", wait=0.0)
    later.ask("b", wait=0.0)
    later.ask("a", wait=0.0)  # asked again: now the most recent
    later.release.set()
    assert later.ask("a", wait=60).value == "A"
    assert later.ask("b", wait=60).value == "B"
    assert later.order == ["first", "a", "b"]


def test_only_the_last_answers_are_kept() -> None:
    later = Recording(keep=3)
    later.release.set()
    for name in "abcd":
        assert later.ask(name, wait=60).value == name.upper()
    later.release.clear()  # held, so that "a" asked again is surely under way, not in
    assert later.ask("a", wait=0.0) is None  # dropped: asked again, it runs again
    assert later.ask("d", wait=0.0).value == "D"
    later.release.set()
    assert later.ask("a", wait=60).value == "A" and later.order == ["a", "b", "c", "d", "a"]


def test_many_threads_asking_at_once_get_one_run_each_job() -> None:
    later = Recording()
    later.release.set()
    answers: list[str] = []
    threads = [
        threading.Thread(target=lambda i=i: answers.append(later.ask(f"j{i % 3}", 60).value))
        for i in range(30)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(answers) == sorted(f"J{i % 3}" for i in range(30))
    assert sorted(later.order) == ["j0", "j1", "j2"]


def test_sessions_are_served_in_turn_and_a_dragging_session_queues_only_its_latest() -> None:
    """Finding 10: one student dragging x0 delayed another's column by seconds (the newest
    request went first). Now, while a job runs, student a asks for five points in a row and
    student b for one: b's goes next, then a's latest; a's four earlier points never run."""
    started: list[float] = []
    release = {x: threading.Event() for x in (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 9.0)}
    changed = threading.Condition()

    def job(args: tuple) -> float:
        with changed:
            started.append(args[1])
            changed.notify_all()
        release[args[1]].wait(60)
        return args[1]

    jobs = DeferredJobs("fair", job)
    jobs.ask(("f", 0.0), wait=0.0, who="a")
    with changed:
        assert changed.wait_for(lambda: started == [0.0], 60)
    for x in (0.1, 0.2, 0.3, 0.4, 0.5):
        assert jobs.ask(("f", x), wait=0.0, who="a") is None
    assert jobs.ask(("g", 9.0), wait=0.0, who="b") is None
    for event in release.values():
        event.set()
    assert jobs.ask(("f", 0.5), wait=60, who="a").value == 0.5
    assert jobs.ask(("g", 9.0), wait=60, who="b").value == 9.0
    assert started == [0.0, 9.0, 0.5]


def test_a_job_two_sessions_want_still_runs_when_one_moves_on() -> None:
    release = threading.Event()
    ran: list[float] = []

    def job(args: tuple) -> float:
        ran.append(args[1])
        release.wait(60)
        return args[1]

    jobs = DeferredJobs("shared", job)
    jobs.ask(("f", 0.0), wait=0.0, who="a")
    jobs.ask(("f", 1.0), wait=0.0, who="a")
    jobs.ask(("f", 1.0), wait=0.0, who="b")
    jobs.ask(("f", 2.0), wait=0.0, who="a")  # a moves on; b still wants 1.0
    release.set()
    assert jobs.ask(("f", 1.0), wait=60, who="b").value == 1.0
