"""The heavy-work gate: at most SLOTS heavy computations at once; another is refused with "busy"
rather than queued behind them, and gets a slot as soon as one frees up within its wait. No
slot is held past its deadline: the work in it is stopped, and work that cannot be stopped
makes the server's health answer say so. Deadlines are decided on the gate's clock, which the
tests move by hand."""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest

from hograd_core import network as nw
from hograd_labs.hvp import cached as hvp_cached
from hograd_serving import gate, jobs, serving_middleware
from hograd_serving.gate import SLOTS, BusyError, DeadlineError, heavy_work
from hograd_ui.i18n import error_text
from tests.english import raises


@contextmanager
def every_slot_taken() -> Iterator[threading.Event]:
    """Hold every slot in threads of their own until the block ends (or its event is set)."""
    release = threading.Event()
    entered = threading.Barrier(SLOTS + 1)

    def occupy() -> None:
        with heavy_work(seconds=60):
            entered.wait(timeout=60)
            release.wait(timeout=60)

    workers = [threading.Thread(target=occupy) for _ in range(SLOTS)]
    for w in workers:
        w.start()
    entered.wait(timeout=60)
    try:
        yield release
    finally:
        release.set()
        for w in workers:
            w.join(timeout=60)


def test_a_request_beyond_the_slots_is_refused_in_both_languages() -> None:
    with (
        every_slot_taken(),
        raises(BusyError, match="busy") as info,
        heavy_work(seconds=60, wait=0),
    ):
        pytest.fail("ran although every slot was taken")
    assert info.value.key == "budget.busy"
    assert "忙" in error_text(info.value, "zh")  # said in the student's language
    with heavy_work(seconds=60, wait=0):  # every slot is free again
        pass


def test_a_waiting_request_gets_the_slot_that_frees_up() -> None:
    got: list[str] = []
    with every_slot_taken() as release:
        waiter = threading.Thread(target=lambda: _run_when_free(got), daemon=True)
        waiter.start()
        assert got == []  # still waiting: every slot is held
        release.set()  # one holder leaves ...
        waiter.join(timeout=60)
    assert got == ["ran"]  # ... and the waiter ran in its slot


def _run_when_free(got: list[str]) -> None:
    with heavy_work(seconds=60, wait=60):
        got.append("ran")


def test_a_failing_computation_releases_its_slot() -> None:
    for _ in range(SLOTS + 1):
        with pytest.raises(ZeroDivisionError), heavy_work(seconds=60, wait=0):
            1 / 0  # noqa: B018
    with heavy_work(seconds=60, wait=0):
        pass


def test_training_goes_through_the_gate() -> None:
    config = nw.NetConfig(dataset="moons", hidden=(6,), steps=150)
    with every_slot_taken(), pytest.raises(BusyError):
        jobs.network_job(lambda: nw.train(config))


def test_three_ways_from_many_threads_at_once() -> None:
    """torch's forward-AD level is process-wide, not per thread: two sessions computing
    forward-over-reverse at once crashed the page ("no level exists") under the load test.
    The cached call serialises them; each thread asks for points of its own (no cache hits)."""
    errors: list[BaseException] = []
    results: list[np.ndarray] = []

    def work(i: int) -> None:
        try:
            for k in range(5):
                w2 = math.pi / 2 + 1e-3 * (5 * i + k)
                ways = hvp_cached.three_ways("w1**2*sin(w2)", (1.0, w2), (0.5, 1.0))
                exact = [
                    2 * 0.5 * math.sin(w2) + 2 * math.cos(w2) * 1.0,
                    2 * math.cos(w2) * 0.5 - math.sin(w2) * 1.0,
                ]
                results.append(ways.values - np.array(exact))
        except BaseException as err:  # reported below
            errors.append(err)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=300)
    assert not errors, errors
    assert len(results) == 20
    for diff in results:  # every way, every time, against the closed form of H v
        np.testing.assert_allclose(diff, 0.0, atol=1e-12)


def test_a_session_starts_at_most_its_share_of_heavy_work_a_minute(monkeypatch) -> None:
    """Issue 35, finding 10: a link whose form settings miss the cache starts a fresh heavy
    computation per visit. One session may start PER_SESSION_MINUTE in a minute; the next is
    refused with a message in both languages that says when to try again, another session is
    not affected, and a minute later the first may start again (a clock the test moves)."""
    from hograd_serving import gate

    now = [1000.0]
    monkeypatch.setattr(gate, "_clock", lambda: now[0])
    monkeypatch.setattr(gate, "_STARTS", {})
    who = ["a"]
    monkeypatch.setattr(gate, "browser_id", lambda: who[0])
    for _ in range(gate.PER_SESSION_MINUTE):
        with heavy_work(seconds=60):
            pass
        now[0] += 1.0
    with pytest.raises(BusyError) as refused, heavy_work(seconds=60):
        pytest.fail("the session's minute was full")
    assert refused.value.key == "budget.session_rate"
    en, zh = error_text(refused.value, "en"), error_text(refused.value, "zh")
    assert str(gate.PER_SESSION_MINUTE) in en and str(gate.PER_SESSION_MINUTE) in zh
    assert "40 s" in en and "40 秒" in zh  # the first start leaves the window 40 s from now
    who[0] = "b"
    with heavy_work(seconds=60):
        pass
    who[0] = "a"
    now[0] += 41.0
    with heavy_work(seconds=60):
        pass


def test_outside_a_script_run_nothing_is_counted() -> None:
    from hograd_serving import gate

    before = dict(gate._STARTS)
    with heavy_work(seconds=60):
        pass
    assert before == gate._STARTS


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The gate's clock, moved by hand: now[0]."""
    now = [1000.0]
    monkeypatch.setattr(gate, "_clock", lambda: now[0])
    return now


def start_stuck(n: int, *, obey: bool) -> tuple[list[threading.Thread], list[str], threading.Event]:
    """``n`` computations in the gate that never finish on their own (a loop waiting for an
    event); each records how it ended. With ``obey=False`` each ignores the gate's stop, as a
    long call into C would (it can only end when the returned event is set)."""
    inside = threading.Barrier(n + 1)
    release = threading.Event()
    ended: list[str] = []

    def work() -> None:
        try:
            with heavy_work(seconds=5):
                inside.wait(timeout=60)
                while not release.is_set():
                    try:
                        release.wait(0.01)
                    except BaseException:  # the stop, ignored on purpose
                        if obey:
                            raise
            ended.append("finished")
        except DeadlineError as err:
            ended.append(err.key)

    threads = [threading.Thread(target=work, daemon=True) for _ in range(n)]
    for th in threads:
        th.start()
    inside.wait(timeout=60)
    return threads, ended, release


def test_a_computation_past_its_deadline_is_stopped_and_its_slot_freed(clock) -> None:
    """Issue 45, finding 2: two computations that never end held both slots for ever, and
    every other heavy request on that replica was refused. Past their deadline the gate
    stops them (inside their loop) and the next request gets a slot."""
    threads, ended, release = start_stuck(SLOTS, obey=True)
    try:
        with pytest.raises(BusyError), heavy_work(seconds=5, wait=0):
            pytest.fail("ran although every slot was taken")
        clock[0] += 5.5  # past both deadlines
        ran = []
        with heavy_work(seconds=5, wait=0):  # the sweep frees their slots at once
            ran.append(1)
        for th in threads:
            th.join(timeout=120)
        assert ran == [1] and ended == ["budget.deadline"] * SLOTS  # stopped, not finished
        assert gate._HELD == [] and gate.stuck() is None
    finally:
        release.set()
    en, zh = (
        error_text(DeadlineError("budget.deadline", seconds="5"), lang) for lang in ["en", "zh"]
    )
    assert "5 s" in en and "5 秒" in zh


def test_work_that_ignores_its_stop_turns_the_health_answer_unhealthy(clock) -> None:
    """Work that cannot be stopped (a long call into C) keeps its core; once every slot's
    worth of it has ignored its stop for STOP_SECONDS, the server's own health endpoint says
    so (503 with the reason), and well again once they end."""
    threads, ended, release = start_stuck(SLOTS, obey=False)
    try:
        assert serving_middleware.status() == (200, "ok")
        clock[0] += 5.5  # past the deadlines: told to stop
        assert gate.stuck() is None  # they have STOP_SECONDS to stop
        with heavy_work(seconds=5, wait=0):  # their slots are free meanwhile
            pass
        clock[0] += gate.STOP_SECONDS + 1
        code, text = serving_middleware.status()
        assert code == 503 and text.startswith(f"stuck: {SLOTS} heavy computations still running")
    finally:
        release.set()
    for th in threads:
        th.join(timeout=120)
    assert len(ended) == SLOTS  # both ended once released, their slots given back
    assert serving_middleware.status() == (200, "ok") and gate._HELD == []


def test_progress_reports_check_the_deadline(clock) -> None:
    """A loop that reports progress stops at its next report once past the deadline."""
    steps = []
    with pytest.raises(DeadlineError), heavy_work(seconds=5) as deadline:
        for step in range(100):
            deadline.check()
            steps.append(step)
            if step == 3:
                clock[0] += 6
    assert steps == [0, 1, 2, 3]


def test_every_heavy_work_states_its_deadline() -> None:
    """heavy_work has no default deadline: a caller that forgets one fails at once."""
    with pytest.raises(TypeError), heavy_work():  # type: ignore[call-arg]
        pass


def test_a_browser_shares_one_budget_across_its_sessions(monkeypatch) -> None:
    """Issue 45, finding 2: a new websocket is a new session, so a per-session limit let a
    browser start a fresh budget per reconnect. The budget is per browser cookie: two sessions
    with the same cookie share it, a session with another cookie has its own, and a session
    without a cookie (a client that keeps none) is counted as itself."""
    import streamlit as st

    monkeypatch.setattr(gate, "_STARTS", {})
    monkeypatch.setattr(gate, "PER_SESSION_MINUTE", 3)
    who: dict[str, object] = {}
    monkeypatch.setattr("streamlit.runtime.scriptrunner.get_script_run_ctx", lambda **_: object())
    monkeypatch.setattr(type(st.context), "cookies", property(lambda _: who["cookies"]))

    def start(cookies: dict[str, str], state: dict) -> str:
        who["cookies"] = cookies
        monkeypatch.setattr(st, "session_state", state)
        try:
            with heavy_work(seconds=60):
                return "ran"
        except BusyError as err:
            return err.key

    browser = {gate.BROWSER_COOKIE: "a" * 32}
    first, second = {}, {}  # two sessions (two websockets) of one browser
    assert [start(browser, first) for _ in range(2)] == ["ran", "ran"]
    assert start(browser, second) == "ran"  # the third of the browser's minute
    assert start(browser, second) == "budget.session_rate"  # the new session shares it
    assert start({gate.BROWSER_COOKIE: "b" * 32}, {}) == "ran"  # another browser
    assert start({}, {}) == "ran"  # no cookie: the session itself
    assert start({gate.BROWSER_COOKIE: "not-hex"}, {}) == "ran"  # a forged value: as none


def test_a_tests_hold_file_holds_an_experiment_at_a_step_until_it_goes(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """hograd_serving.cached's hold (the browser tests' way to act during a training, on an
    event): no file, another experiment's total, step 0, or a deadline nearly spent: no wait;
    the file naming this total: a wait that ends when the file goes."""
    import threading

    from hograd_serving import cached

    hold = tmp_path / "hold"
    monkeypatch.setattr(cached, "HOLD", str(hold))
    cached._held(3, 1500, lambda: 100.0)  # no file: no wait
    hold.write_text("1500")
    cached._held(3, 400, lambda: 100.0)  # another experiment: no wait
    cached._held(0, 1500, lambda: 100.0)  # nothing done yet: no wait
    cached._held(3, 1500, lambda: cached.HOLD_MARGIN - 1)  # the deadline's margin: never used
    waiter = threading.Thread(target=cached._held, args=(3, 1500, lambda: 100.0))
    waiter.start()
    waiter.join(0.5)
    assert waiter.is_alive()  # held while the file is there
    hold.unlink()
    waiter.join(60)
    assert not waiter.is_alive()
    monkeypatch.setattr(cached, "HOLD", None)
    hold.write_text("1500")
    cached._held(3, 1500, lambda: 100.0)  # production: no hold file named, never a wait
