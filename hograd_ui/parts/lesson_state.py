"""The lesson's progress: kept in st.session_state, mirrored in the link of every page.

The link carries ``?step=3&done=1,2`` on every page, not only the lesson's: app.py calls
:func:`carry` on every run. A student who finished
three steps and went on to the derivatives page keeps them when the browser reconnects to
another replica (a fresh session, which starts from the URL), when the server restarts, or
when the link is shared. A value equal to its default (step 1, nothing done) stays out of the
link, as Streamlit's ``bind="query-params"`` does for widgets; other parameters (``lang``,
widgets bound by other features) are left alone.

The teacher's version opens with ``?key=`` and the key the server holds
(hograd_serving/teacher_key.py), compared in constant time (:mod:`.lesson_link`). Served
through hograd_serving/asgi.py, the link never reaches a page: the server answers it with a
redirect to the address without the key and an HttpOnly cookie holding a token of the key
(hograd_serving/teacher_door.py), read here from the session's cookies. Without that layer
(``streamlit run app.py``) the key is taken out of the address bar on the session's first run,
before the page draws a share link, so no link the teacher shows or shares carries it. A wrong or missing key, and the old
``?teacher=1``, get the student's version and one plain note, the same whether the server has
a key or not.

The progress is shared: app.py carries it on every page, the lesson (hograd_labs/lesson) moves
through it, the classroom (hograd_labs/classroom) seats a student and follows the lecturer with
it. Labs never import each other, so it lives here, and the number of steps, which only the
lesson knows (hograd_labs/lesson/compute.py's STEPS), comes in as an argument.
"""

from __future__ import annotations

import streamlit as st

from hograd_serving import TEACHER_COOKIE

from .lesson_link import key_matches, read_progress, token_matches

#: Session keys of the progress, under a name of their own: it belongs to no page (the lesson
#: moves through it, the classroom seats a student with it, every page carries it).
STEP, DONE, TEACHER = "progress.step", "progress.done", "progress.teacher"
IGNORED = "progress.ignored"  # the link's progress parameters that could not be used
REFUSED = "progress.key_refused"  # the link asked for the teacher's version and did not get it
#: The class this session is in (a code, checked by hograd_labs/classroom), or None. In a
#: class the progress is the server's record: the link's ``done=`` marks nothing done.
CLASS = "progress.class"
#: A student's seat in that class (``?seat=``, a secret hograd_labs/classroom gives on
#: joining): a fresh session whose link has it sits the same student down again. It stays in
#: this browser's address bar only: no link the app shows or shares carries it.
SEAT = "progress.seat"
#: The URL parameters of the progress, the same on every page (hograd_ui/parts/links.py: GLOBAL).
PARAMS = ("step", "done", "class", "seat")
MAX_CLASS = 40  # characters of ?class= (and of ?seat=) read at all
#: The parameters that ask for the teacher's version: read once, then out of the link.
KEY_PARAMS = ("key", "teacher")
#: what a parameter given twice with different values reads as (not a valid value of any)
CONFLICT = "?"


def _param(name: str) -> str | None:
    values = st.query_params.get_all(name)
    if not values:
        return None
    return values[0] if len(set(values)) == 1 else CONFLICT


def _cookie() -> str | None:
    """The session token the lecturer's link was exchanged for (hograd_serving/teacher_door.py),
    from the cookies of this session's websocket request; None without one."""
    try:
        value = st.context.cookies.get(TEACHER_COOKIE)
    except (AttributeError, RuntimeError):  # no request behind this run (AppTest, bare mode)
        return None
    return value if isinstance(value, str) and value else None


def load(total: int) -> None:
    """On a session's first run, whatever its page, take the progress of a lesson of ``total``
    steps from the link; the
    names of the parameters that were ignored wait in ``st.session_state[IGNORED]`` for the
    lesson page, which says so (:func:`take_ignored`)."""
    if STEP in st.session_state:
        return
    room = _param("class")
    st.session_state[CLASS] = room[:MAX_CLASS] if room else None
    seat = _param("seat") if room else None
    st.session_state[SEAT] = seat[:MAX_CLASS] if seat else None
    got = read_progress(_param("step"), None if room else _param("done"), total)
    st.session_state[STEP] = got.step
    st.session_state[DONE] = set(got.done)
    st.session_state[IGNORED] = got.ignored
    asked = [_param(name) for name in KEY_PARAMS]
    token = _cookie()
    teacher = False
    if asked[0] is not None or token is not None:  # only then the server's key is read
        from hograd_serving.teacher_key import server_key

        if asked[0] is not None:
            teacher = key_matches(asked[0], server_key())
        else:
            teacher = token_matches(token, server_key())
    st.session_state[TEACHER] = teacher
    st.session_state[REFUSED] = not teacher and (
        token is not None or any(a is not None for a in asked)
    )
    for name in KEY_PARAMS:  # never in a link the page shows or shares
        if name in st.query_params:
            del st.query_params[name]


def carry(total: int) -> None:
    """Every run of every page (app.py): the progress of a lesson of ``total`` steps from the
    link on the session's first run, and into the link on every run, so that no page's link
    loses it."""
    load(total)
    save()


def take_ignored() -> tuple[str, ...]:
    """The link's progress parameters that were ignored, once (the lesson page shows them)."""
    return st.session_state.pop(IGNORED, ())


def take_refused() -> bool:
    """Whether the link asked for the teacher's version without the right key, once."""
    return st.session_state.pop(REFUSED, False)


def _put(name: str, value: str | None) -> None:
    if value is None:
        if name in st.query_params:
            del st.query_params[name]
    elif st.query_params.get_all(name) != [value]:
        st.query_params[name] = value


def save() -> None:
    """Write the progress into the link."""
    step, done = st.session_state[STEP], sorted(st.session_state[DONE])
    room = st.session_state.get(CLASS)
    _put("step", str(step) if step != 1 else None)
    _put("done", ",".join(str(n) for n in done) if done and not room else None)
    _put("class", room)
    _put("seat", st.session_state.get(SEAT) if room else None)


def go(number: int, total: int) -> None:
    """Open step ``number`` (1-based; clamped to the lesson's ``total`` steps). Anything but a
    whole number (a modified client's value) leaves the open step as it is."""
    if not isinstance(number, int) or isinstance(number, bool):
        return
    st.session_state[STEP] = min(max(number, 1), total)


def mark_done(number: int) -> None:
    st.session_state[DONE] = st.session_state[DONE] | {number}
