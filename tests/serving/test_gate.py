"""The heavy-work gate: at most SLOTS heavy computations at once; another is refused with "busy"
rather than queued behind them, and gets a slot as soon as one frees up within its wait."""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest

from hograd_core import network as nw
from hograd_labs.hvp import cached as hvp_cached
from hograd_serving import jobs
from hograd_serving.gate import SLOTS, BusyError, heavy_work
from hograd_ui.i18n import error_text
from tests.english import raises


@contextmanager
def every_slot_taken() -> Iterator[threading.Event]:
    """Hold every slot in threads of their own until the block ends (or its event is set)."""
    release = threading.Event()
    entered = threading.Barrier(SLOTS + 1)

    def occupy() -> None:
        with heavy_work():
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
    with every_slot_taken(), raises(BusyError, match="busy") as info, heavy_work(wait=0):
        pytest.fail("ran although every slot was taken")
    assert info.value.key == "budget.busy"
    assert "忙" in error_text(info.value, "zh")  # said in the student's language
    with heavy_work(wait=0):  # every slot is free again
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
    with heavy_work(wait=60):
        got.append("ran")


def test_a_failing_computation_releases_its_slot() -> None:
    for _ in range(SLOTS + 1):
        with pytest.raises(ZeroDivisionError), heavy_work(wait=0):
            1 / 0  # noqa: B018
    with heavy_work(wait=0):
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
        except BaseException as err:  # noqa: BLE001 - reported below
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


def test_a_session_starts_at_most_its_share_of_heavy_work_a_minute(monkeypatch) -> None:  # noqa: ANN001
    """Issue 35, finding 10: a link whose form settings miss the cache starts a fresh heavy
    computation per visit. One session may start PER_SESSION_MINUTE in a minute; the next is
    refused with a message in both languages that says when to try again, another session is
    not affected, and a minute later the first may start again (a clock the test moves)."""
    from hograd_serving import gate

    now = [1000.0]
    monkeypatch.setattr(gate, "_clock", lambda: now[0])
    monkeypatch.setattr(gate, "_STARTS", {})
    who = ["a"]
    monkeypatch.setattr(gate, "_session", lambda: who[0])
    for _ in range(gate.PER_SESSION_MINUTE):
        with heavy_work():
            pass
        now[0] += 1.0
    with pytest.raises(BusyError) as refused, heavy_work():
        pytest.fail("the session's minute was full")
    assert refused.value.key == "budget.session_rate"
    en, zh = error_text(refused.value, "en"), error_text(refused.value, "zh")
    assert str(gate.PER_SESSION_MINUTE) in en and str(gate.PER_SESSION_MINUTE) in zh
    assert "40 s" in en and "40 秒" in zh  # the first start leaves the window 40 s from now
    who[0] = "b"
    with heavy_work():
        pass
    who[0] = "a"
    now[0] += 41.0
    with heavy_work():
        pass


def test_outside_a_script_run_nothing_is_counted() -> None:
    from hograd_serving import gate

    before = dict(gate._STARTS)
    with heavy_work():
        pass
    assert before == gate._STARTS
