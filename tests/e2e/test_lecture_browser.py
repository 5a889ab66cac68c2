"""A lecture as it runs (issue 48), on one plain server with SQLite (the e2e fixtures): the walk
of tests/e2e/rehearsal.py (a projector at 1920x1080 in presentation mode, students on phones
and laptops, what each student sees asserted after each of the lecturer's actions).

``test_a_pause_in_presentation_mode``: pause and resume alone, one phone that follows and one
laptop that does not. ``test_a_rehearsed_lecture``: the whole lecture (open a class, project,
share three views, pause, resume, answers, the lecturer's own screen, reveal, reset, export,
delete) in English, with ``HOGRAD_REHEARSAL_PHONES`` phones (default 2) and
``HOGRAD_REHEARSAL_LAPTOPS`` laptops (default 2, the last of which does not follow); the other
``HOGRAD_REHEARSAL_*`` variables (rehearsal.from_env) change the language, the phone's size and
the views shared. tests/deploy/test_lecture_replicas.py runs the same walk on two replicas with
PostgreSQL, with the issue's 5 phones and 3 laptops, in Chinese.

Screenshots: tests/artifacts/lecture_*.png.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.rehearsal import LAPTOP, PHONE, Hall, click, from_env, path_of, rehearse, usable

pytestmark = pytest.mark.e2e


def test_a_pause_in_presentation_mode(browser, server) -> None:
    with Hall(browser, server) as hall:
        t = hall.t
        teacher, link = hall.teacher()
        phone = hall.join(link, "pia", PHONE, follow=True)
        laptop = hall.join(link, "leo", LAPTOP, follow=False)
        hall.share(teacher, 1)  # the lesson's first step
        click(teacher, teacher.get_by_role("button", name=t("classroom.pause")))
        resume = teacher.get_by_role("button", name=t("classroom.resume"))
        usable(teacher, resume)
        expect(teacher.get_by_text(t("classroom.paused.teacher"))).to_be_visible()
        hall.shot(teacher, "paused_projector")

        hall.paused_view(phone)
        assert path_of(phone) == "/lesson"
        phone.get_by_text(t("classroom.paused")).scroll_into_view_if_needed()
        hall.shot(phone, "paused_phone")
        hall.free_view(laptop)  # not following: not paused

        click(teacher, resume)
        usable(teacher, teacher.get_by_role("button", name=t("classroom.pause")))
        hall.free_view(phone)
        for page in (teacher, phone, laptop):
            assert page.locator("[data-testid='stException']").count() == 0


def test_a_rehearsed_lecture(browser, server) -> None:
    lecture = from_env(lang="en", phones=2, laptops=2)
    with Hall(browser, server, lang=lecture.lang) as hall:
        rehearse(hall, lecture)
