"""hograd_serving.sympy_column: sympy's derivatives grown a slice at a time, checked against
sympy's own diff and evalf, and against the seed example."""

from __future__ import annotations

import math
import threading

import pytest
import sympy as sp

from hograd_core.symbolic import MAX_OPS
from hograd_serving import sympy_column as sw

X = sp.Symbol("x", real=True)


def exact(expr: sp.Expr, order: int, x0: float) -> list[float]:
    """The oracle: sympy's diff, evaluated by evalf (not the walk the worker uses)."""
    return [
        float(sp.diff(expr, X, k).evalf(30, subs={X: sp.Float(x0, 30)})) for k in range(order + 1)
    ]


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def finish(chains: sw.Chains, text: str, order: int, x0: float) -> sw.SympyView:
    chains.view(text, order, x0)
    for _ in range(100):
        if not chains.step():
            break
    return chains.view(text, order, x0)


def test_a_new_function_starts_with_f_and_grows_in_steps() -> None:
    chains = sw.Chains()
    first = chains.view("sin(x)*exp(-x^2)", 6, 0.7)
    assert len(first.values) == 1 and first.working and first.stopped is None
    assert chains.pending()
    assert chains.step()
    assert len(chains.view("sin(x)*exp(-x^2)", 6, 0.7).values) >= 2  # one derivative at least
    done = finish(chains, "sin(x)*exp(-x^2)", 6, 0.7)
    assert not done.working and done.stopped is None and not chains.pending()
    assert done.values == pytest.approx(exact(sp.sin(X) * sp.exp(-(X**2)), 6, 0.7), rel=1e-13)
    assert not chains.step()  # nothing left to do


def test_the_seed_example() -> None:
    """d/dx x³ at 2 is 12, and so is the second derivative."""
    done = finish(sw.Chains(), "x**3", 2, 2.0)
    assert done.values == (8.0, 12.0, 12.0)
    assert done.latex == ("x^{3}", "3 x^{2}", "6 x")


def test_a_lower_order_is_served_from_the_longer_chain() -> None:
    chains = sw.Chains()
    finish(chains, "tanh(x)", 8, 0.3)
    low = chains.view("tanh(x)", 3, 0.3)
    assert len(low.values) == 4 and not low.working and not chains.pending()
    assert low.values == pytest.approx(exact(sp.tanh(X), 3, 0.3), rel=1e-13)


def test_the_most_recently_asked_function_is_worked_on_first() -> None:
    chains = sw.Chains()
    chains.view("exp(sin(x))", 8, 0.1)
    chains.view("log(1+x^2)", 8, 0.1)
    chains.step(seconds=0.0)  # one derivative
    assert len(chains.view("log(1+x^2)", 8, 0.1).values) == 2
    assert len(chains.view("exp(sin(x))", 8, 0.1).values) == 1  # and now it is the latest


def test_a_function_nobody_asks_about_any_more_is_dropped() -> None:
    clock = Clock()
    chains = sw.Chains(clock=clock, forget_seconds=20.0)
    chains.view("atan(3*x)", 12, 0.0)
    clock.now = 19.0
    assert chains.pending()
    clock.now = 21.0
    assert not chains.pending() and not chains.step()
    assert chains.view("atan(3*x)", 12, 0.0).working  # asked again: back in the queue


def test_a_swelling_expression_stops_by_size_and_says_so() -> None:
    done = finish(sw.Chains(), "tanh(x)", 20, 0.5)
    assert done.stopped == "size" and not done.working
    assert len(done.values) < 21 and done.ops[-1] > MAX_OPS


def test_each_function_has_a_time_budget() -> None:
    chains = sw.Chains(chain_seconds=1e-9)  # used up by building f itself
    done = finish(chains, "sin(x)*exp(-x^2)", 20, 0.5)
    assert done.stopped == "time" and not done.working and not chains.pending()
    assert len(done.values) == 1


def test_at_most_max_functions_are_kept() -> None:
    chains = sw.Chains(max_functions=2)
    for text in ("x**2", "x**3", "x**4"):
        finish(chains, text, 2, 1.0)
    assert list(chains._chains) == ["x**3", "x**4"]


def test_a_value_that_is_not_real_is_nan() -> None:
    done = finish(sw.Chains(), "sqrt(x)", 2, -1.0)
    assert all(math.isnan(v) for v in done.values)


def test_the_column_answers_the_seed_example_and_remembers_it(monkeypatch) -> None:  # noqa: ANN001
    column = sw.SympyColumn()
    view = column.ask("x**3", 2, 2.0, wait=60)
    assert view.values == (8.0, 12.0, 12.0) and not view.working
    monkeypatch.setattr(sw.Chains, "view", lambda *a, **k: pytest.fail("asked the chains again"))
    assert column.ask("x**3", 2, 2.0) is view  # a finished answer never changes


def test_a_run_does_not_wait_for_sympy_beyond_its_slice() -> None:
    """With no wait, one slice: part of the chain, still working; asked with time, all of it."""
    column = sw.SympyColumn(inline_seconds=0.01)
    text = "sin(x)*exp(-x^2)*tanh(x)"
    part = column.ask(text, 12, 0.5)
    assert part.working and 1 <= len(part.values) <= 12
    full = column.ask(text, 12, 0.5, wait=120)
    assert not full.working and len(full.values) > len(part.values)
    want = exact(sp.sin(X) * sp.exp(-(X**2)) * sp.tanh(X), len(full.values) - 1, 0.5)
    assert full.values == pytest.approx(want, rel=1e-12)


def test_many_threads_ask_at_once_and_each_gets_its_own_answer() -> None:
    column = sw.SympyColumn()
    texts = [f"sin({a}*x) + x**{n}" for a in (1, 2, 3) for n in (2, 3, 4)]
    got: dict[str, sw.SympyView] = {}

    def one(text: str) -> None:
        got[text] = column.ask(text, 4, 0.25, wait=120)

    threads = [threading.Thread(target=one, args=(t,)) for t in texts]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=180)
    for a in (1, 2, 3):
        for n in (2, 3, 4):
            view = got[f"sin({a}*x) + x**{n}"]
            assert not view.working
            assert view.values == pytest.approx(exact(sp.sin(a * X) + X**n, 4, 0.25), rel=1e-13)


def test_a_second_asker_does_not_queue_behind_sympy(monkeypatch) -> None:  # noqa: ANN001
    """While one script run differentiates, another gets what is there at once (still
    working, for the page's timer to ask again), instead of waiting for that slice."""
    column = sw.SympyColumn(inline_seconds=60)
    assert not column.ask("x**2", 0, 1.0).working
    entered, release = threading.Event(), threading.Event()
    work = sw.Chains.work

    def held(self, job, seconds=sw.STEP_SECONDS):  # noqa: ANN001, ANN202
        entered.set()
        assert release.wait(60)
        return work(self, job, seconds)

    monkeypatch.setattr(sw.Chains, "work", held)
    first: list = []
    a = threading.Thread(target=lambda: first.append(column.ask("x**3", 2, 2.0)))
    a.start()
    assert entered.wait(60)  # the first asker is differentiating now
    second: list = []
    b = threading.Thread(target=lambda: second.append(column.ask("sin(x)", 3, 0.0)))
    b.start()
    b.join(60)
    assert not b.is_alive() and not release.is_set()  # answered while the first still works
    assert second[0].working
    release.set()
    a.join(60)
    assert first[0].values == (8.0, 12.0, 12.0)
    monkeypatch.setattr(sw.Chains, "work", work)
    later = column.ask("sin(x)", 3, 0.0)  # asked again (the timer), it is worked on
    assert not later.working
    assert later.values == pytest.approx((0.0, 1.0, 0.0, -1.0), abs=1e-12)
