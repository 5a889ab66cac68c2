"""hograd_serving/floor.py: one script run's Python at a time; heavy work, the probe and every
wait happen off the floor, so the next run goes on meanwhile.

Ordering is shown with events and the floor's own semaphore, never with durations: each wait
below has a generous bound only so that a broken floor fails the test instead of hanging it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest

from hograd_serving import floor
from hograd_serving.floor import SCRIPT_SLOTS, on_floor, script_slot, step_aside
from hograd_serving.gate import heavy_work

BOUND = 30.0  # seconds; reached only when the floor is broken


def floor_is_taken() -> bool:
    """Whether every slot is held (asked without waiting, and given back at once)."""
    if floor._SLOTS.acquire(blocking=False):
        floor._SLOTS.release()
        return False
    return True


def in_thread(target: Callable[[], None]) -> threading.Thread:
    th = threading.Thread(target=target, daemon=True)
    th.start()
    return th


def run_holding_the_floor_until(release: threading.Event) -> threading.Thread:
    entered = threading.Event()

    def run() -> None:
        with script_slot():
            entered.set()
            release.wait(BOUND)

    th = in_thread(run)
    assert entered.wait(BOUND)
    return th


def test_one_run_at_a_time_on_the_floor() -> None:
    assert SCRIPT_SLOTS == 1
    release = threading.Event()
    first = run_holding_the_floor_until(release)
    assert floor_is_taken()
    second_in = threading.Event()
    second = in_thread(lambda: _run(second_in.set))
    assert not second_in.is_set()  # the only slot is the first run's
    release.set()
    assert second_in.wait(BOUND)  # it comes in as soon as the first run ends
    first.join(BOUND)
    second.join(BOUND)
    assert not floor_is_taken() and not on_floor()


def test_a_run_that_steps_aside_lets_the_next_one_in_and_takes_the_floor_back() -> None:
    aside, back, done = threading.Event(), threading.Event(), threading.Event()
    seen: dict[str, bool] = {}

    def run() -> None:
        with script_slot():
            seen["before"] = on_floor()
            with step_aside():
                seen["aside"] = on_floor()
                aside.set()
                back.wait(BOUND)
            seen["after"] = on_floor()
            seen["taken_after"] = floor_is_taken()
        done.set()

    th = in_thread(run)
    assert aside.wait(BOUND)
    other_in = threading.Event()
    in_thread(lambda: _run(other_in.set)).join(BOUND)  # the floor was free for it
    assert other_in.is_set()
    back.set()
    assert done.wait(BOUND)
    th.join(BOUND)
    assert seen == {"before": True, "aside": False, "after": True, "taken_after": True}
    assert not floor_is_taken()


def test_taking_the_floor_back_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """A run that cannot have the floor back goes on beside the run that holds it, and gives
    back nothing it does not hold."""
    monkeypatch.setattr(floor, "REENTER_SECONDS", 0.0)
    aside, back = threading.Event(), threading.Event()
    seen: dict[str, bool] = {}

    def run() -> None:
        with script_slot():
            with step_aside():
                aside.set()
                back.wait(BOUND)
            seen["after"] = on_floor()

    th = in_thread(run)
    assert aside.wait(BOUND)
    release = threading.Event()
    holder = run_holding_the_floor_until(release)
    back.set()
    th.join(BOUND)
    assert not th.is_alive() and seen == {"after": False}
    assert floor_is_taken()  # still the holder's
    release.set()
    holder.join(BOUND)
    assert not floor_is_taken()
    with pytest.raises(ValueError):  # BoundedSemaphore: the slot was given back exactly once
        floor._SLOTS.release()


def test_a_run_that_raises_gives_its_slot_back_aside_or_not() -> None:
    for _ in range(3):
        with pytest.raises(RuntimeError), script_slot():
            raise RuntimeError("st.stop / st.rerun raise through the script")
        with pytest.raises(RuntimeError), script_slot(), step_aside():
            raise RuntimeError("a budget refused inside heavy work")
    assert not floor_is_taken() and not on_floor()


def test_outside_a_script_run_stepping_aside_does_nothing() -> None:
    with step_aside():
        assert not on_floor() and not floor_is_taken()
    assert not floor_is_taken()


def test_heavy_work_is_done_off_the_floor() -> None:
    inside, finish = threading.Event(), threading.Event()
    seen: dict[str, bool] = {}

    def run() -> None:
        with script_slot(), heavy_work(seconds=60):
            seen["heavy_on_floor"] = on_floor()
            inside.set()
            finish.wait(BOUND)

    th = in_thread(run)
    assert inside.wait(BOUND)
    light_in = threading.Event()
    in_thread(lambda: _run(light_in.set)).join(BOUND)  # a light run meanwhile
    assert light_in.is_set() and seen == {"heavy_on_floor": False}
    finish.set()
    th.join(BOUND)
    assert not floor_is_taken()


def _run(body: Callable[[], None]) -> None:
    with script_slot():
        body()
