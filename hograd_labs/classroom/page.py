"""The classroom's views on the lesson page: the lecturer's class panel (open a class, its
student link, the live dashboard, reveal, export, delete), the lecturer's own screen (the
dashboard alone, ``/lesson?board=CODE``, for a second tab or the lecturer's laptop while the
projector shows the lesson) and a student's way in (the class from the link, a nickname, then
every Check recorded).

A nickname is shown only with ``st.text`` (never markdown or HTML); a class code is shown only
after :func:`compute.read_code` accepted it (letters and digits of its alphabet).

Labs never import each other: what this needs of the lesson (its steps' titles, a step's
answer, the verdict of a Check) comes in as arguments from the lesson's page
(hograd_labs/lesson/page.py, composed by pages/lesson.py); the progress both move through is
hograd_ui/parts/lesson_state.py.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, tzinfo
from typing import Protocol
from urllib.parse import urlencode
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import streamlit as st

from hograd_serving.gate import browser_id
from hograd_ui.i18n import error_text, placeholders, tr
from hograd_ui.parts import lesson_state as state
from hograd_ui.parts.chart import chart
from hograd_ui.parts.links import present
from hograd_ui.parts.ui import lang, t

from . import address, compute
from .cached import call, look
from .figures import progress_figure, qr_svg, slips_figure
from .follow import pause_button

__all__ = [
    "BOARD",
    "REFRESH",
    "REVEAL_EVERY",
    "OnCheck",
    "Verdict",
    "board",
    "code_box",
    "revealed_box",
    "student_gate",
    "teacher_panel",
]

#: the export's columns, by the keys of their names
CSV_COLUMNS = (
    "classroom.csv.nickname",
    "classroom.csv.step",
    "classroom.csv.answer",
    "classroom.csv.right",
    "classroom.csv.verdict",
    "classroom.csv.time",
)
KEY_LIKE = re.compile(r"[a-z_]+(\.[a-z0-9_]+)+")  # a translation key's shape ("lesson.x.opt.a")
REFRESH = 3.0  # seconds between the dashboard's refreshes
#: ``/lesson?board=CODE``: the lecturer's own screen of class CODE (a URL parameter of the
#: lesson page: hograd_ui/parts/links.py's PAGE_PARAMS)
BOARD = "board"
TOP_STUCK = 12  # students listed as stuck, at most (the rest counted)
#: seconds between a student's looks for a revealed answer: with cached.LOOK_AGE and the run,
#: the answer shows within a second of the click (docs/performance.md measures it)
REVEAL_EVERY = 0.5
TOP_SLIPS = 8
# The class's QR code, in CSS pixels: 480 on a 1920x1080 projector (about 75 cm on a 3 m
# screen, some 14 px a module for the ~33 modules of a student link without lang=, quiet zone
# included), so that it lies wholly on the first screen under the share button; 280 on a
# laptop.
QR_PX, QR_PRESENT_PX = 280, 480
# The class code beside it, for students who type it: 152 px projected (capital letters and
# digits about 100 px of ink, some 16 cm on a 3 m screen, read from the back row as the QR code
# is scanned; at 144 px a code of capitals alone measured 95 px, under the 96 asked), 48 px on
# a laptop; monospace, whose zero is dotted, spaced apart.
CODE_PX, CODE_PRESENT_PX = 48, 152
CODE_CSS = (
    "<style>.st-key-classroom-bigcode strong {{ font-size: {px}px !important;"
    " font-family: 'Source Code Pro', monospace; letter-spacing: 0.08em; line-height: 1.1;"
    " display: inline-block; }}</style>"
)
CODE = "classroom.code"  # the class the lecturer opened in this session
STUDENT = "classroom.student"  # the Student this session joined as
PENDING = "classroom.pending"  # Checks not yet in the database (compute.Pending), oldest first
RECORDED = "classroom.recorded"  # the step of the last Check the database took
RETRY_EVERY = 3.0  # seconds between tries while the database is out


class Verdict(Protocol):
    """What the class records of a Check (the lesson's Verdict has these fields)."""

    correct: bool
    key: str
    params: tuple[tuple[str, str], ...]


#: Told of every Check with a verdict: (step number, verdict, the answer as the app read it).
OnCheck = Callable[[int, Verdict, str], None]


def _date(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d")


def _student_link(code: str) -> tuple[str, address.Address]:
    """The lesson's link for this class, on an address the students can reach
    (:func:`address.where`), and that address. No language: each student keeps their own."""
    found = address.where(st.context.url or "", st.get_option("server.address"))
    return f"{found.base}/lesson?{urlencode({'class': code})}", found


# ---- the lecturer --------------------------------------------------------------------------


#: What the lecturer's last action on the class came to: ("refused", text), said once (the
#: database may answer by the next run), or ("reset", step, answers deleted), said on every
#: run until the next action (popped when drawn, it would be lost with a run cut short by
#: another after drawing it, and the lecturer could not tell whether the reset happened).
OUTCOME = "classroom.outcome"


def _open() -> None:
    st.session_state.pop(OUTCOME, None)
    days = st.session_state.get("classroom.days", compute.RETENTION_DAYS)
    try:
        call(compute.purge, time.time())
        st.session_state[CODE] = call(compute.open_class, time.time(), int(days), None, lang())
    except compute.ClassroomError as err:
        st.session_state[OUTCOME] = ("refused", error_text(err, lang()))


def _reveal(code: str, number: int) -> None:
    st.session_state.pop(OUTCOME, None)
    try:
        call(compute.reveal, code, number)
    except compute.ClassroomError as err:
        st.session_state[OUTCOME] = ("refused", error_text(err, lang()))


def _reset(code: str, number: int) -> None:
    try:
        gone = call(compute.reset_step, code, number)
    except compute.ClassroomError as err:
        st.session_state[OUTCOME] = ("refused", error_text(err, lang()))
        return
    st.session_state[OUTCOME] = ("reset", number, gone)


def _delete(code: str) -> None:
    st.session_state.pop(OUTCOME, None)
    try:
        call(compute.delete_class, code)
    except compute.ClassroomError as err:
        st.session_state[OUTCOME] = ("refused", error_text(err, lang()))
        return
    st.session_state.pop(CODE, None)


def _zone() -> tzinfo:
    """The lecturer's time zone, as their browser reports it; else the server's own."""
    name = getattr(st.context, "timezone", None)
    if isinstance(name, str) and name:
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            pass
    return datetime.now().astimezone().tzinfo or UTC


def _words(language: str, titles: Sequence[str]) -> compute.Words:
    """The export's cells in ``language`` (the class's): the steps' names, a choice's option
    and each verdict in words, "yes"/"no", and the lecturer's local time in ISO 8601 with its
    offset ("2026-12-06T09:15:02+01:00")."""
    zone = _zone()

    def step(n: int) -> str:
        return tr(titles[n - 1], language) if 1 <= n <= len(titles) else str(n)

    def answer(text: str) -> str:
        if KEY_LIKE.fullmatch(text):  # a choice's option, stored as its translation key
            try:
                return tr(text, language)
            except KeyError:
                pass
        return text

    def verdict(key: str, params: tuple[tuple[str, str], ...]) -> str:
        """The verdict as the student read it; one whose values were not kept (what the app
        could not read), or no verdict of this app, by one name."""
        values = dict(params)
        try:
            text = tr(key, language)
            if placeholders(text) <= values.keys():
                return text.format(**values) if values else text
        except (KeyError, IndexError, ValueError):
            pass
        return tr("classroom.slip.other", language)

    return compute.Words(
        tuple(tr(name, language) for name in CSV_COLUMNS),  # type: ignore[arg-type]
        step,
        answer,
        lambda right: tr("classroom.csv.yes" if right else "classroom.csv.no", language),
        verdict,
        lambda at: datetime.fromtimestamp(at, zone).isoformat(timespec="seconds"),
    )


def _export(code: str, words: compute.Words) -> Callable[[], str]:
    """The class's CSV, made when the lecturer clicks Export (Streamlit calls it then, on a
    thread of its own), so it holds every Check up to that click, not up to the page's last
    run (the dashboard refreshes itself without one). ``words`` are made now, in the run:
    they need the lecturer's time zone from the session."""

    def made() -> str:
        try:
            return call(compute.export_csv, code, words)
        except compute.ClassroomError:
            return ""

    return made


def _slip_label(slip: compute.Slip) -> str:
    """The verdict the students read, with its values; a verdict whose values were not kept
    (what the app could not read) by one name."""
    try:
        return t(slip.verdict, **dict(slip.params)) if slip.params else t(slip.verdict)
    except (KeyError, IndexError, ValueError):
        return t("classroom.slip.other")


@st.fragment(run_every=REFRESH)
def _dashboard(code: str, titles: Sequence[str]) -> None:
    """Students joined, per step tried and right, the commonest slips; live. ``titles``: the
    steps' titles (translation keys), in order."""
    try:
        s = call(compute.summary, code)
    except compute.ClassroomError as err:
        st.warning(error_text(err, lang()), icon=":material/database:")
        return
    st.metric(t("classroom.joined"), s.joined)
    names = [t(title) for title in titles]  # "1 · The gradient of x³"
    total = len(titles)
    chart(progress_figure(s, names, t("classroom.tried"), t("classroom.right")))
    counts = {c.step: c for c in s.steps}
    st.table(
        {
            t("classroom.col.step"): [str(n) for n in range(1, total + 1)],
            t("classroom.tried"): [
                counts[n].tried if n in counts else 0 for n in range(1, total + 1)
            ],
            t("classroom.right"): [
                counts[n].right if n in counts else 0 for n in range(1, total + 1)
            ],
        }
    )
    slips = sorted(
        (
            (t("classroom.slip", n=c.step, text=_slip_label(sl)), sl.students)
            for c in s.steps
            for sl in c.slips
        ),
        key=lambda pair: -pair[1],
    )[:TOP_SLIPS]
    st.header(t("classroom.slips"))  # h2: the panel sits under the h1
    if slips:
        chart(slips_figure(slips))
        for text, n in slips:  # the chart's numbers, as text too
            st.caption(t("classroom.slip.count", text=text, students=n))
    else:
        st.caption(t("classroom.slips.none"))
    _stuck(code)


def _stuck(code: str) -> None:
    """Who is stuck: a student with several wrong Checks on a step and none right."""
    try:
        found = call(compute.stuck, code)
    except compute.ClassroomError as err:
        st.warning(error_text(err, lang()), icon=":material/database:")
        return
    st.subheader(t("classroom.stuck"))
    if not found:
        st.caption(t("classroom.stuck.none", tries=compute.STUCK_TRIES))
        return
    for who in found[:TOP_STUCK]:
        with st.container(horizontal=True, vertical_alignment="center"):
            st.text(who.nickname)  # the student's text: shown as text, never markdown
            st.caption(t("classroom.stuck.row", n=who.step, wrong=who.wrong))
    if len(found) > TOP_STUCK:
        st.caption(t("classroom.stuck.more", n=len(found) - TOP_STUCK))


def teacher_panel(number: int, titles: Sequence[str]) -> None:
    """The lecturer's class: open one, or its link, live dashboard and controls. ``number``:
    the open step; ``titles``: the lesson's steps' titles (translation keys), in order.

    Projected, the panel starts closed: open, its code, QR code and dashboard filled the first
    screen and pushed the lesson's step 2,000 px down; one click opens it when the class is
    to see them, and it is open once the lecturer opens a class (its code and QR code are
    what the room needs next). Closed by hand, it stays closed."""
    opened = not present() or st.session_state.get(CODE) is not None
    with st.expander(t("classroom.title"), expanded=opened, icon=":material/groups:"):
        outcome = st.session_state.get(OUTCOME)
        if outcome is not None and outcome[0] == "refused":
            del st.session_state[OUTCOME]
            st.warning(outcome[1], icon=":material/database:")
        code = st.session_state.get(CODE)
        info = None
        if code is not None:
            try:
                info = call(compute.find_class, code, time.time())
            except compute.ClassroomError as err:
                st.warning(error_text(err, lang()), icon=":material/database:")
                return
            if info is None:  # deleted elsewhere, or its days are over
                st.session_state.pop(CODE, None)
        if info is None:
            _opening()
            return
        _class_card(info)
        _class_controls(info, number, titles)
        # the lecturer's own screen: this class's dashboard alone, in another tab or device, in
        # the lecturer's language (the students' link carries none: each keeps their own)
        st.link_button(
            t("classroom.board.open"),
            f"lesson?{urlencode({BOARD: info.code, 'lang': lang()})}",
            icon=":material/open_in_new:",
        )
        st.caption(t("classroom.board.elsewhere", code=info.code))
        if outcome is not None and outcome[0] == "reset":
            st.caption(t("classroom.reset.done", n=outcome[1], checks=outcome[2]))
        if info.revealed:
            st.caption(
                t(
                    "classroom.revealed_steps",
                    steps=", ".join(str(n) for n in sorted(info.revealed)),
                )
            )
        _dashboard(info.code, titles)


def _opening() -> None:
    """No class yet: how long it is kept, and the button that opens one."""
    st.caption(t("classroom.lead"))
    st.number_input(
        t("classroom.days"),
        min_value=1,
        max_value=compute.MAX_DAYS,
        value=compute.RETENTION_DAYS,
        step=1,
        key="classroom.days",
        help=t("classroom.days.help", most=compute.MAX_DAYS),
    )
    st.button(
        t("classroom.open"),
        on_click=_open,
        key="classroom.open",
        type="primary",
        icon=":material/add:",
    )


def _class_card(info: compute.ClassInfo) -> None:
    """The open class as the room reads it: its code, its link and its QR code."""
    link, found = _student_link(info.code)
    left, right = st.columns([3, 2], gap="large")
    with left:
        st.html(CODE_CSS.format(px=CODE_PRESENT_PX if present() else CODE_PX))
        with st.container(key="classroom.bigcode"):  # letters and digits of the alphabet
            st.markdown(t("classroom.code", code=info.code))
        if found.note:  # the address may not reach the students: said plainly, and why
            st.warning(
                t(found.note, shown=found.shown, used=found.base, name=address.NAME),
                icon=":material/wifi_off:",
            )
        st.caption(t("classroom.link"))
        st.code(link, language=None)
        st.caption(t("classroom.kept", date=_date(info.expires)))
    with right, st.container(key="classroom.qr"):
        # the student link to scan, large on a projector (presentation mode): an <img> of
        # SVG that segno drew from the link, no text of it as HTML
        st.image(qr_svg(link), width=QR_PRESENT_PX if present() else QR_PX, alt=link)
        st.caption(t("classroom.qr"))


def _class_controls(info: compute.ClassInfo, number: int, titles: Sequence[str]) -> None:
    """Reveal the open step, export, reset the step, delete the class."""
    with st.container(horizontal=True):
        st.button(
            t("classroom.reveal", n=number),
            on_click=_reveal,
            args=(info.code, number),
            disabled=number in info.revealed,
            key="classroom.reveal",
            icon=":material/visibility:",
        )
        st.download_button(
            t("classroom.export"),
            data=_export(info.code, _words(info.lang or lang(), titles)),
            file_name=f"class-{info.code}.csv",
            mime="text/csv",
            key="classroom.export",
            icon=":material/download:",
            on_click="ignore",
        )
        with st.popover(t("classroom.reset", n=number), icon=":material/restart_alt:"):
            st.caption(t("classroom.reset.warn", n=number))
            st.button(
                t("classroom.reset.confirm", n=number),
                on_click=_reset,
                args=(info.code, number),
                key="classroom.reset",
                type="primary",
            )
        with st.popover(t("classroom.delete"), icon=":material/delete:"):
            st.caption(t("classroom.delete.warn"))
            st.button(
                t("classroom.delete.confirm"),
                on_click=_delete,
                args=(info.code,),
                key="classroom.delete",
                type="primary",
            )


def board(titles: Sequence[str]) -> bool:
    """The lecturer's own screen, ``/lesson?board=CODE``: class CODE's live dashboard and the
    pause, nothing of the lesson, so that the projector shows the lesson while the lecturer
    watches the class on a laptop or in a second tab. Only for the teacher's version (the
    key's cookie of hograd_serving/teacher_door.py, or ``?key=``): anyone else is refused
    before the database is asked anything. ``titles``: the lesson's steps' titles (keys).

    Returns:
        Whether the link asked for it (then the lesson page draws nothing else).
    """
    asked = st.query_params.get(BOARD)
    if asked is None:
        return False
    st.title(t("classroom.board.title"))
    if not st.session_state.get(state.TEACHER):
        st.error(t("classroom.board.refused"), icon=":material/lock:")
        return True
    try:
        code = compute.read_code(asked)
        info = call(compute.find_class, code, time.time())
    except compute.ClassroomError as err:
        st.warning(error_text(err, lang()), icon=":material/groups:")
        return True
    if info is None:
        st.warning(t("classroom.error.no_class"), icon=":material/groups:")
        return True
    st.caption(t("classroom.board.lead", code=code))
    _board_pause(code)
    _dashboard(code, titles)
    return True


@st.fragment(run_every=REFRESH)
def _board_pause(code: str) -> None:
    """The pause from the lecturer's own screen, as the class has it now (the projector's
    tab may have paused or resumed it)."""
    try:
        info = call(compute.find_class, code, time.time())
    except compute.ClassroomError as err:
        st.warning(error_text(err, lang()), icon=":material/database:")
        return
    if info is None:
        return
    with st.container(horizontal=True):
        pause_button(code, info.paused, key="classroom.board.pause")
    if info.paused:
        st.caption(t("classroom.paused.teacher"))


# ---- a student -----------------------------------------------------------------------------


def _flush() -> None:
    """Send the Checks this session could not record yet (oldest first); what the database
    did not take stays in :data:`PENDING` for the next try."""
    waiting = st.session_state.get(PENDING, ())
    if not waiting:
        return
    try:
        left = call(compute.record_pending, tuple(waiting), time.time())
    except compute.ClassroomError:  # the database is out before the first one: all wait
        return
    for item in waiting[: len(waiting) - len(left)]:
        st.session_state[RECORDED] = item.step
    st.session_state[PENDING] = list(left)


def _recorder(code: str, student: compute.Student | None, seat: str) -> OnCheck:
    """Every Check gets an id and joins the waiting list, then the list is sent: a Check the
    database cannot take now is said "not yet recorded" and sent again (the id makes it
    stored once), never reported recorded before it is. ``student`` None: the session could
    not look its student up yet (the database was out), the seat finds them later."""

    def record(number: int, verdict: Verdict, understood: str) -> None:
        item = compute.Pending(
            compute.check_id(),
            code,
            student.id if student is not None else 0,
            seat,
            number,
            understood,
            verdict.correct,
            verdict.key,
            verdict.params,
            time.time(),
        )
        st.session_state[PENDING] = [*st.session_state.get(PENDING, ()), item]
        st.session_state.pop(RECORDED, None)
        _flush()

    return record


@st.fragment(run_every=RETRY_EVERY)
def _retry(code: str) -> None:
    """While the database is out: try again every few seconds; once it answers, every
    waiting Check is sent and the page runs again (the gate then finds the class)."""
    _flush()
    if st.session_state.get(PENDING):
        return
    try:
        call(compute.find_class, code, time.time())
    except compute.ClassroomError:
        return
    st.rerun()


def _unrecorded(code: str) -> None:
    """Checks not yet in the database: said plainly, and sent again until they are."""
    waiting = len(st.session_state.get(PENDING, ()))
    if waiting:
        st.warning(t("classroom.unrecorded", n=waiting), icon=":material/database:")
        _retry(code)
    elif st.session_state.get(RECORDED):
        st.caption(t("classroom.recorded", n=st.session_state[RECORDED]))


def _offline(code: str) -> OnCheck | None:
    """The database did not answer while the class was looked up: a blip, not a missing
    class. The student keeps the class and seat in their link; a student known to this
    session (or by their seat) keeps recording, into the waiting list."""
    st.warning(t("classroom.offline", code=code), icon=":material/database:")
    student = st.session_state.get(STUDENT)
    if student is not None and student.code != code:
        student = None
    seat = st.session_state.get(state.SEAT) or ""
    _flush()
    if st.session_state.get(PENDING):
        _unrecorded(code)
    else:
        _retry(code)
    if student is None and not seat:
        return None  # not joined yet: the nickname is asked once the database answers
    return _recorder(code, student, seat)


def _leave() -> None:
    st.session_state[state.CLASS] = None
    st.session_state[state.SEAT] = None
    st.session_state.pop(STUDENT, None)
    st.session_state.pop(PENDING, None)
    st.session_state.pop(RECORDED, None)
    for name in ("class", "seat"):  # app.py wrote the link before this page's run
        if name in st.query_params:
            del st.query_params[name]


def _browser() -> str:
    """This browser's id for bounding joins: the cookie hograd_serving/serving_middleware.py
    gives every browser, else (no such cookie: served without that layer, or a client that
    keeps no cookies) this session's name; the heavy-work gate counts by the same id."""
    return browser_id() or "session:none"


def _join(code: str) -> None:
    try:
        student = call(
            compute.join,
            code,
            st.session_state.get("classroom.nickname", ""),
            time.time(),
            _browser(),
        )
    except compute.ClassroomError as err:
        st.session_state["classroom.join_refused"] = error_text(err, lang())
        return
    st.session_state[STUDENT] = student
    st.session_state[state.SEAT] = student.seat  # into this browser's link (lesson_state.save)
    st.session_state[state.DONE] = set()  # the class's record from now on


def _seated(code: str) -> compute.Student | None:
    """The student whose seat this session's link holds, once a session: a reconnect to
    another replica, or a reload, comes back as the same student. A seat that is not (any
    more) in this class is dropped from the link, and the nickname is asked for."""
    seat = st.session_state.get(state.SEAT)
    if not seat:
        return None
    student = call(compute.resume, code, seat, time.time())  # a storage error: the caller's
    if student is None:
        st.session_state[state.SEAT] = None
        st.session_state["classroom.seat_gone"] = True
        if "seat" in st.query_params:
            del st.query_params["seat"]
        return None
    st.session_state[STUDENT] = student
    return student


@st.fragment(run_every=REVEAL_EVERY)
def _revealed(code: str, number: int, answer: Callable[[], str]) -> None:
    """The answer of the open step, once the lecturer reveals it."""
    try:
        info = look(compute.find_class, code)
    except compute.ClassroomError:
        return  # said where Checks are recorded
    if info is None:  # deleted (or its days are over): the page runs again and says so
        st.rerun()
    if number in info.revealed:
        st.info(t("classroom.revealed", answer=answer()), icon=":material/visibility:")


def student_gate(number: int) -> OnCheck | None:
    """In a class (``?class=`` in the link): the nickname first, then the class's progress
    and a recorder for Check. Outside a class: None, and nothing drawn."""
    asked = st.session_state.get(state.CLASS)
    if asked is None:
        return None
    try:
        code = compute.read_code(asked)
    except compute.ClassroomError as err:
        _leave()  # the link first: whoever sees the message sees the link without the class
        st.warning(error_text(err, lang()), icon=":material/groups:")
        return None
    # A storage error is never "no such class": only the database's own answer removes the
    # class (and the seat) from the link.
    try:
        info = call(compute.find_class, code, time.time())
    except compute.ClassroomError:
        return _offline(code)
    if info is None:
        _leave()
        st.warning(t("classroom.error.no_class"), icon=":material/groups:")
        return None
    student = st.session_state.get(STUDENT)
    if student is None or student.code != code:
        try:
            student = _seated(code)
        except compute.ClassroomError:
            return _offline(code)
    if student is None:
        with st.container(border=True):
            st.header(t("classroom.join.title", code=code))  # h2, under the h1
            st.caption(t("classroom.join.lead", date=_date(info.expires)))
            if st.session_state.pop("classroom.seat_gone", False):
                st.info(t("classroom.seat_gone"), icon=":material/event_seat:")
            refused = st.session_state.pop("classroom.join_refused", None)
            if refused:
                st.error(refused, icon=":material/badge:")
            with st.form("classroom.join"):
                st.text_input(
                    t("classroom.nickname"),
                    key="classroom.nickname",
                    max_chars=compute.MAX_NICKNAME,
                )
                st.form_submit_button(
                    t("classroom.join"),
                    on_click=_join,
                    args=(code,),
                    type="primary",
                    icon=":material/login:",
                    key="classroom.join",
                )
        st.stop()
    # keyed: a paused class hides it (follow.PAUSE_CSS), as it hides every other control
    with st.container(horizontal=True, vertical_alignment="center", key="classroom-bar"):
        st.caption(t("classroom.in", code=code))
        st.text(student.nickname)  # the student's text: shown as text, never markdown
        st.button(
            t("classroom.leave"), on_click=_leave, key="classroom.leave", icon=":material/logout:"
        )
    if student.seat:  # keyed too: hidden with the bar while the class is paused
        st.container(key="classroom-seat").caption(t("classroom.seat_note"))
    _flush()
    _unrecorded(code)
    try:
        done = set(call(compute.done_steps, student))
    except compute.ClassroomError:
        pass  # said by _unrecorded when a Check waits; the session's own progress stays
    else:  # the class's record, and the steps right in Checks still waiting
        waiting = st.session_state.get(PENDING, ())
        st.session_state[state.DONE] = done | {p.step for p in waiting if p.correct}
    return _recorder(code, student, student.seat)


def revealed_box(number: int, answer: Callable[[], str]) -> None:
    """Under a class student's exercise: the answer of step ``number`` once the lecturer
    reveals it (looked up twice a second; ``answer`` says it). Nothing outside a class."""
    student = st.session_state.get(STUDENT)
    if student is not None and st.session_state.get(state.CLASS):
        _revealed(student.code, number, answer)


def _typed_code() -> None:
    try:
        code = compute.read_code(st.session_state.get("classroom.typed", ""))
    except compute.ClassroomError as err:  # the message never repeats the typed text
        st.session_state["classroom.typed_refused"] = error_text(err, lang())
        return
    st.session_state[state.CLASS] = code  # the gate above the lesson takes it from here
    st.session_state.pop(STUDENT, None)


def code_box() -> None:
    """Outside a class: a box for a class code read from the board (the link does the same)."""
    if st.session_state.get(state.CLASS) or st.session_state.get(state.TEACHER):
        return
    with st.expander(t("classroom.typed.title"), icon=":material/groups:"):
        refused = st.session_state.pop("classroom.typed_refused", None)
        if refused:
            st.error(refused, icon=":material/pin:")
        with st.form("classroom.typed_form", border=False):
            st.text_input(t("classroom.typed.label"), key="classroom.typed", max_chars=20)
            st.form_submit_button(
                t("classroom.typed.go"),
                on_click=_typed_code,
                key="classroom.typed_go",
                icon=":material/login:",
            )
