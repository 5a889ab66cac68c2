"""A database blip under AppTest: the class database fails on demand (every statement of every
engine raises the error a dropped connection raises) while students answer. A storage error
is never "no such class": the student keeps class and seat in the link, is told plainly that
the Check is not yet recorded, and the Check is stored once when the database answers again.

What the database holds is read back with sqlite3, not through the app."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from hograd_labs.classroom import page as room
from hograd_ui.i18n import tr
from tests.app.test_classroom_page import database, join, open_class  # noqa: F401
from tests.app.test_lesson_page import answer, open_lesson, texts


class Blip:
    """Every SQL statement of every engine fails while ``on`` (as after a server restart)."""

    on = False

    def __call__(self, conn, cursor, statement, parameters, context, executemany):
        if self.on:
            raise sa.exc.OperationalError(
                statement, parameters, OSError("server closed the connection")
            )


@pytest.fixture()
def blip() -> Iterator[Blip]:
    fault = Blip()
    sa.event.listen(sa.engine.Engine, "before_cursor_execute", fault)
    yield fault
    sa.event.remove(sa.engine.Engine, "before_cursor_execute", fault)


def _checks(path: Path) -> list[tuple]:
    with sqlite3.connect(path) as con:
        return con.execute("SELECT student, step, answer, correct FROM classroom_checks").fetchall()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_blip_keeps_the_seat_and_records_the_check_once(
    database: Path,  # noqa: F811
    blip: Blip,
    lang: str,
) -> None:
    _, code = open_class(lang)
    ann = join(code, "ann", lang)
    seat = ann.query_params["seat"]
    blip.on = True
    answer(ann, 1, right=False)  # the Check's click, then the gate's look-up: both fail
    assert ann.query_params["class"] == code and ann.query_params["seat"] == seat
    assert tr("classroom.unrecorded", lang, n=1) in texts(ann.warning)
    assert tr("classroom.recorded", lang, n=1) not in texts(ann.caption)
    assert tr("classroom.error.no_class", lang) not in texts(ann.warning)
    answer(ann, 1, right=True)  # a second Check during the blip waits too
    assert tr("classroom.unrecorded", lang, n=2) in texts(ann.warning)
    assert _checks_during(database, blip) == []
    blip.on = False
    ann.run()  # the next run (the retry fragment's, or any) sends what waits
    assert not ann.exception
    [(student, *_)] = _checks(database)[:1]
    assert sorted(row[1:] for row in _checks(database)) == [(1, "10", 0), (1, "12", 1)]
    assert student == ann.session_state[room.STUDENT].id
    assert tr("classroom.recorded", lang, n=1) in texts(ann.caption)
    assert ann.get("progress")[0].proto.text == tr("lesson.progress", lang, done=1, total=7)
    assert not any(tr("classroom.unrecorded", lang, n=n) in texts(ann.warning) for n in (1, 2))
    ann.run()
    assert len(_checks(database)) == 2  # stored once, however often the page runs


def _checks_during(path: Path, blip: Blip) -> list[tuple]:
    was, blip.on = blip.on, False  # sqlite3 reads the file directly; the app's engine stays out
    try:
        return _checks(path)
    finally:
        blip.on = was


def test_a_fresh_session_during_a_blip_is_not_sent_away(database: Path, blip: Blip) -> None:  # noqa: F811
    """A reload (or a reconnect to another replica) while the database is out: the link's
    class and seat stay, no nickname is asked, a Check waits for the seat's student."""
    _, code = open_class()
    ann = join(code, "ann")
    seat = ann.query_params["seat"]
    blip.on = True
    again = open_lesson(**{"class": code, "seat": seat})
    assert tr("classroom.offline", code=code) in texts(again.warning)
    assert "classroom.nickname" not in [w.key for w in again.text_input]
    assert again.query_params["class"] == code and again.query_params["seat"] == seat
    answer(again, 1, right=True)
    assert tr("classroom.unrecorded", n=1) in texts(again.warning)
    blip.on = False
    again.run()
    assert not again.exception
    assert [row[1:] for row in _checks(database)] == [(1, "12", 1)]
    assert _checks(database)[0][0] == ann.session_state[room.STUDENT].id
    assert "ann" in [x.value for x in again.text]  # seated again once the database answers


def test_a_newcomer_during_a_blip_keeps_the_class_in_the_link(database: Path, blip: Blip) -> None:  # noqa: F811
    _, code = open_class()
    blip.on = True
    newcomer = open_lesson(**{"class": code})
    assert tr("classroom.offline", code=code) in texts(newcomer.warning)
    assert newcomer.query_params["class"] == code
    assert newcomer.get("progress")  # the lesson itself goes on
    blip.on = False
    newcomer.run()
    assert tr("classroom.join.title", code=code) in [h.value for h in newcomer.header]


def test_a_deleted_class_still_sends_its_students_away(database: Path) -> None:  # noqa: F811
    """The other side of the rule: the database's own answer "no such class" does."""
    teacher, code = open_class()
    ann = join(code, "ann")
    teacher.button(key="classroom.delete").click().run()
    ann.run()
    assert tr("classroom.error.no_class") in texts(ann.warning)
    assert "class" not in ann.query_params and "seat" not in ann.query_params
