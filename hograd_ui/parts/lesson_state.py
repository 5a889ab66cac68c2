"""The lesson's progress: kept in st.session_state, mirrored in the link of every page.

The link carries ``?step=3&done=1,2`` (and ``teacher=1`` for the teacher's version) on every
page, not only the lesson's: app.py calls :func:`carry` on every run. A student who finished
three steps and went on to the derivatives page keeps them when the browser reconnects to
another replica (a fresh session, which starts from the URL), when the server restarts, or
when the link is shared. A value equal to its default (step 1, nothing done, no teacher) stays
out of the link, as Streamlit's ``bind="query-params"`` does for widgets; other parameters
(``lang``, widgets bound by other features) are left alone.
"""

from __future__ import annotations

import streamlit as st

from hograd_core.lesson import STEPS
from hograd_core.lesson_link import read_progress

STEP, DONE, TEACHER = "lesson.step", "lesson.done", "lesson.teacher"
IGNORED = "lesson.ignored"  # the link's progress parameters that could not be used
#: The URL parameters of the progress, the same on every page (hograd_ui/parts/links.py: GLOBAL).
PARAMS = ("step", "done", "teacher")
#: what a parameter given twice with different values reads as (not a valid value of any)
CONFLICT = "?"


def _param(name: str) -> str | None:
    values = st.query_params.get_all(name)
    if not values:
        return None
    return values[0] if len(set(values)) == 1 else CONFLICT


def load() -> None:
    """On a session's first run, whatever its page, take the progress from the link; the
    names of the parameters that were ignored wait in ``st.session_state[IGNORED]`` for the
    lesson page, which says so (:func:`take_ignored`)."""
    if STEP in st.session_state:
        return
    got = read_progress(_param("step"), _param("done"), _param("teacher"))
    st.session_state[STEP] = got.step
    st.session_state[DONE] = set(got.done)
    st.session_state[TEACHER] = got.teacher
    st.session_state[IGNORED] = got.ignored


def carry() -> None:
    """Every run of every page (app.py): the progress from the link on the session's first
    run, and into the link on every run, so that no page's link loses it."""
    load()
    save()


def take_ignored() -> tuple[str, ...]:
    """The link's progress parameters that were ignored, once (the lesson page shows them)."""
    return st.session_state.pop(IGNORED, ())


def _put(name: str, value: str | None) -> None:
    if value is None:
        if name in st.query_params:
            del st.query_params[name]
    elif st.query_params.get_all(name) != [value]:
        st.query_params[name] = value


def save() -> None:
    """Write the progress into the link."""
    step, done = st.session_state[STEP], sorted(st.session_state[DONE])
    _put("step", str(step) if step != 1 else None)
    _put("done", ",".join(str(n) for n in done) if done else None)
    _put("teacher", "1" if st.session_state[TEACHER] else None)


def go(number: int) -> None:
    """Open step ``number`` (1-based; clamped to the lesson). Anything but a whole number (a
    modified client's value) leaves the open step as it is."""
    if not isinstance(number, int) or isinstance(number, bool):
        return
    st.session_state[STEP] = min(max(number, 1), len(STEPS))


def mark_done(number: int) -> None:
    st.session_state[DONE] = st.session_state[DONE] | {number}
