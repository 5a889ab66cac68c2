"""Follow the lecturer in real Chromium: the lecturer (the teacher's link) opens a class, goes to
the HVP page, types a function and shares the view; a student who switched "follow" on is taken
to that view without a click, a student with it off stays on the lesson. The lecturer then shares
another function while the follower, whose page was loaded again meanwhile, is on the HVP page
already (the two switches of hograd_labs/classroom/follow.py): the follower's box shows it. Screenshot:
tests/artifacts/classroom_follow.png."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

from hograd_ui.i18n import tr
from tests.e2e.conftest import TEACHER_KEY, screenshot, wait_for_app
from tests.e2e.test_classroom_browser import _join, _main

pytestmark = pytest.mark.e2e

FIRST, SECOND = "x**4 + y**2", "x**2*y + y**3"  # neither is the HVP page's first preset


def _sidebar(page):
    return page.locator("[data-testid='stSidebar']")


def _function(page):
    return _main(page).get_by_role("textbox", name=tr("hvp.fn.label"))


def _type_and_share(teacher, text: str) -> None:
    box = _function(teacher)
    box.fill(text)
    box.press("Enter")
    wait_for_app(teacher)
    teacher.wait_for_function(  # the browser wrote the bound box into the address bar
        "t => new URLSearchParams(location.search).get('hvp.fn') === t", arg=text
    )
    _sidebar(teacher).get_by_role("button", name=tr("classroom.share")).click()
    wait_for_app(teacher)


def _link_shows(page, fn: str) -> None:
    """Wait until the follower's address carries ``fn``. Not for the app to be idle: a
    follower's page reruns its follow fragment every few seconds, and on a busy machine those
    runs can follow each other with no idle moment in between."""
    page.wait_for_function(
        "([want]) => new URLSearchParams(location.search).get('hvp.fn') === want",
        arg=[fn],
        timeout=120_000,
    )


def test_a_following_student_opens_the_lecturers_view(browser, server) -> None:
    teacher_context = browser.new_context(viewport={"width": 1280, "height": 900})
    teacher = teacher_context.new_page()
    teacher.set_default_timeout(120_000)
    contexts = [teacher_context]
    try:
        teacher.goto(f"{server}/lesson?lang=en&key={TEACHER_KEY}")
        wait_for_app(teacher, timeout=120_000)
        _main(teacher).get_by_role("button", name=tr("classroom.open")).click()
        wait_for_app(teacher)
        link = _main(teacher).locator("[data-testid='stCode']", has_text="class=").inner_text()
        ann_context, ann = _join(browser, link.strip(), "ann")
        bo_context, bo = _join(browser, link.strip(), "bo")
        contexts += [ann_context, bo_context]
        _sidebar(ann).get_by_text(tr("classroom.follow"), exact=True).click()
        wait_for_app(ann)
        expect(_sidebar(ann).get_by_text(tr("classroom.follow.none"))).to_be_visible()

        # the lecturer moves to the HVP page in the same session (the sidebar's link)
        _sidebar(teacher).get_by_role("link", name=tr("app.page.hvp")).click()
        wait_for_app(teacher)
        _type_and_share(teacher, FIRST)
        expect(_sidebar(teacher).get_by_text(tr("classroom.shared", n=1))).to_be_visible()

        # the follower is taken there without a click; the other student stays
        expect(_function(ann)).to_have_value(FIRST, timeout=120_000)
        _link_shows(ann, FIRST)
        query = parse_qs(urlparse(ann.url).query)
        assert urlparse(ann.url).path == "/hvp" and query["hvp.fn"] == [FIRST]
        assert query["class"] == parse_qs(urlparse(link.strip()).query)["class"]
        assert "key" not in query and TEACHER_KEY not in ann.url
        expect(_sidebar(ann).get_by_text("ann", exact=True)).to_have_count(0)  # no re-join
        screenshot(ann, "classroom_follow")

        # the page loaded again (by hand, or by hograd_serving/recover.js): a fresh session
        # of the same address, still on the view, still following
        ann.reload()
        wait_for_app(ann)
        expect(_function(ann)).to_have_value(FIRST)
        assert urlparse(ann.url).path == "/hvp"
        expect(_sidebar(ann).get_by_role("switch", name=tr("classroom.follow"))).to_be_checked()

        # a second view of the page the follower is on
        _type_and_share(teacher, SECOND)
        expect(_function(ann)).to_have_value(SECOND, timeout=120_000)
        _link_shows(ann, SECOND)
        assert parse_qs(urlparse(ann.url).query)["hvp.fn"] == [SECOND]

        assert urlparse(bo.url).path == "/lesson"
        expect(_function(bo)).to_have_count(0)
        expect(bo.locator("[data-testid='stProgress']")).to_have_count(1)
        for page in (teacher, ann, bo):
            assert page.locator("[data-testid='stException']").count() == 0
    finally:
        for context in contexts:
            context.close()
