"""The deploy tests' browser is the browser tests' one (tests/e2e/conftest.py): one Chromium per
worker, started by Playwright's sync API once. Starting a second one on a worker where
the first is running raises ("using Playwright Sync API inside the asyncio loop")."""

from tests.e2e.conftest import browser  # noqa: F401  (a fixture, found here by name)
