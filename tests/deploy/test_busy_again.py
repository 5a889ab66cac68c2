"""A page refused as busy asks again by itself, in real Chromium, on a real server.

The test app (apps/busy.py) shows the app's own "busy" message while a file exists; the
oracle is the page's run counter and its text: with the file in place the page reruns with no
click or key (the counter grows), and once the file is gone the next automatic run computes.
Every wait is for an event in the page; the ceiling only catches a hang.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hograd_ui.i18n import tr
from hograd_ui.parts import ui
from tests.deploy.serving import serving

BUSY_APP = Path(__file__).resolve().parent / "apps" / "busy.py"
CEILING = 120_000  # ms: only a hang reaches it


@pytest.fixture
def busy_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The test app on a free port, busy while the file it yields exists."""
    flag = tmp_path / "busy"
    flag.touch()
    with serving(BUSY_APP, {"HOGRAD_TEST_BUSY": str(flag)}, tmp_path / "server.log") as (url, _):
        yield url, flag


def test_a_busy_page_asks_again_by_itself_until_it_computes(browser, busy_server) -> None:
    url, flag = busy_server
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    try:
        pg = context.new_page()
        pg.set_default_timeout(CEILING)
        pg.goto(url)
        pg.get_by_text(tr("budget.busy")).wait_for()
        again = tr("app.busy.again", "en", seconds=f"{ui.BUSY_AGAIN:g}", tries=ui.BUSY_TRIES)
        pg.get_by_text(again).wait_for()
        pg.get_by_text("run 3", exact=True).wait_for()  # two runs no one asked for
        assert pg.get_by_text(tr("budget.busy")).is_visible()
        flag.unlink()  # the server has a slot again
        pg.get_by_text("computed", exact=True).wait_for()  # the next try, still no click
        assert pg.get_by_text(tr("budget.busy")).count() == 0
        assert pg.get_by_text(again).count() == 0
    finally:
        context.close()
