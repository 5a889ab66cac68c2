"""Run a coroutine to its end from a test, whatever else the test's worker has started.

Once a browser test has run on a pytest-xdist worker, Playwright's sync API keeps an event loop
running on that worker's main thread for the rest of the session (tests/e2e/conftest.py's
``browser``), and ``asyncio.run`` there raises "cannot be called from a running event loop".
Which tests share a worker is the scheduler's choice, so every test runs its coroutines here:
in a new loop on a thread of its own, which nothing else touches.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coro)`` on a fresh thread; returns its result or raises its error."""
    with ThreadPoolExecutor(1, thread_name_prefix="test-loop") as pool:
        return pool.submit(asyncio.run, coro).result()
