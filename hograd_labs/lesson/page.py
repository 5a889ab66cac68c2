"""The guided lesson's page: seven steps from the derivative of x³ to Hessian-vector products,
each with a text, a live view and an exercise the app checks. Progress lives in the session
and in the link (?step=3&done=1,2); the teacher's link (?key=, the key the server holds) adds
notes, the answers and the class panel; a class's link (?class=CODE) asks for a nickname and
records every Check.

Labs never import each other: the class (hograd_labs/classroom), the Newton step's view
(hograd_labs/newton) and what the derivatives, graph and HVP labs draw for the other steps
(their ``embed.py``) come in as arguments of :func:`draw`, from the page script
pages/lesson.py, which composes them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol

import streamlit as st

from hograd_ui.parts import lesson_state as state
from hograd_ui.parts.links import present
from hograd_ui.parts.ui import folded, present_row, t

from . import exercise
from .compute import STEPS, Step
from .views import Lent
from .views import views as own_views

__all__ = ["TOTAL", "Classroom", "draw"]

TOTAL = len(STEPS)
#: The progress bar's width in presentation mode, in CSS pixels: in the row beside the steps
#: and Previous/Next, its text ("3 of 7 steps done", at the mode's 26 px) on one line.
PRESENT_BAR = 300
#: A step's live view: (the step, the presentation row for its settings or None).
View = Callable[[Step, object], None]


class Classroom(Protocol):
    """What the lesson page asks of the class (hograd_labs/classroom/page.py)."""

    def teacher_panel(self, number: int, titles: tuple[str, ...]) -> None: ...

    def student_gate(self, number: int) -> exercise.OnCheck | None: ...

    def revealed_box(self, number: int, answer: Callable[[], str]) -> None: ...

    def code_box(self) -> None: ...

    def board(self, titles: tuple[str, ...]) -> bool: ...


def _buttons(where: object, number: int) -> None:
    """Previous and Next; in presentation mode PageUp and PageDown press them (a clicker)."""
    where.button(
        t("lesson.prev"),
        icon=":material/arrow_back:",
        on_click=state.go,
        args=(number - 1, TOTAL),
        disabled=number == 1,
        key="lesson.prev",
        shortcut="PageUp" if present() else None,
    )
    where.button(
        t("lesson.next"),
        icon=":material/arrow_forward:",
        on_click=state.go,
        args=(number + 1, TOTAL),
        disabled=number == TOTAL,
        type="primary",
        key="lesson.next",
        shortcut="PageDown" if present() else None,
    )


def draw(classroom: Classroom, views: Mapping[str, View], lent: Lent) -> None:
    """The lesson page. ``classroom``: the class's panels; ``views``: step views besides this
    lab's own (the Newton step's, "newton"); ``lent``: what the derivatives, graph and HVP labs
    lend this lab's own views."""
    views = {**own_views(lent), **views}
    state.carry(TOTAL)  # app.py did it already; this page also runs alone under tests
    if classroom.board(tuple(s.title for s in STEPS)):  # the lecturer's own screen, alone
        return
    st.title(t("lesson.title"))
    st.caption(t("lesson.lead"))
    ignored = state.take_ignored()
    if ignored:
        names = ", ".join(ignored)  # parameter names from lesson_link, never the link's text
        st.info(t("lesson.url.ignored", names=names, total=TOTAL), icon=":material/link_off:")
    if state.take_refused():  # the same note whether the server has a key or not
        st.info(t("lesson.teacher.refused"), icon=":material/lock:")
    teacher = st.session_state[state.TEACHER]
    if teacher:
        st.warning(t("lesson.teacher.on"), icon=":material/co_present:")
        classroom.teacher_panel(st.session_state[state.STEP], tuple(s.title for s in STEPS))
    # in a class (?class=): a nickname first; then progress is the class's record, Checks recorded
    record = classroom.student_gate(st.session_state[state.STEP])

    number, done = st.session_state[state.STEP], st.session_state[state.DONE]
    progress = len(done) / TOTAL, t("lesson.progress", done=len(done), total=TOTAL)
    if not present():
        st.progress(progress[0], text=progress[1])
    # In presentation mode one row holds the steps, Previous/Next, the progress, the step's
    # text and the view's settings, and the step's live view comes right under its title.
    row = present_row()
    st.session_state["lesson.nav"] = number
    row.segmented_control(
        t("lesson.nav"),
        list(range(1, TOTAL + 1)),
        required=True,
        key="lesson.nav",
        format_func=lambda n: f"{n} ✓" if n in done else str(n),
        on_change=lambda: state.go(st.session_state["lesson.nav"], TOTAL),
        label_visibility="collapsed" if present() else "visible",
    )
    if present():
        _buttons(row, number)
        row.progress(progress[0], text=progress[1], width=PRESENT_BAR)

    step = STEPS[number - 1]
    st.header(t(step.title))
    with folded(t("present.text"), ":material/notes:", row):
        st.markdown(t(step.text, page=t("app.page.why")))  # the last step names the "why" page
    with st.container(key="lesson.view"):
        views[step.view](step, row if present() else None)
    exercise.show(number, teacher, lent, on_check=record)
    # in a class, once the lecturer reveals this step's answer
    classroom.revealed_box(number, lambda: exercise.answer_text(step))
    if len(done) == TOTAL:
        st.success(t("lesson.finished"), icon=":material/school:")

    if not present():
        _buttons(st.container(horizontal=True), number)
    classroom.code_box()  # a class code from the board, for a student without the class's link
