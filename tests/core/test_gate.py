"""The heavy-work gate: at most SLOTS heavy computations at once; the next one is told the
server is busy within 2 s instead of queueing behind them."""

from __future__ import annotations

import threading
import time

import pytest

from hograd_core.gate import SLOTS, BusyError, heavy_work


def test_extra_request_is_refused_quickly_while_slots_are_busy() -> None:
    release = threading.Event()
    entered = threading.Barrier(SLOTS + 1)

    def occupy() -> None:
        with heavy_work():
            entered.wait(timeout=10)
            release.wait(timeout=10)

    workers = [threading.Thread(target=occupy) for _ in range(SLOTS)]
    for w in workers:
        w.start()
    entered.wait(timeout=10)  # every slot is now taken
    start = time.perf_counter()
    with pytest.raises(BusyError, match="busy") as info, heavy_work():
        pytest.fail("ran although every slot was taken")
    waited = time.perf_counter() - start
    assert waited < 2.0
    assert "繁重" in info.value.message("zh")
    release.set()
    for w in workers:
        w.join(timeout=10)
    with heavy_work(wait=0.1):  # slots are released again
        pass


def test_a_failing_computation_releases_its_slot() -> None:
    for _ in range(SLOTS + 1):
        with pytest.raises(ZeroDivisionError), heavy_work(wait=0.1):
            1 / 0  # noqa: B018
    with heavy_work(wait=0.1):
        pass
