"""The guided lesson's page: seven steps from the derivative of x³ to Hessian-vector products,
each with a text, a live view and an exercise the app checks. Progress lives in the session
and in the link (?step=3&done=1,2); the teacher's link (?key=, the key the server holds) adds
notes, the answers and the class panel; a class's link (?class=CODE) asks for a nickname and
records every Check.

Labs never import each other: the class (hograd_labs/classroom), the Newton step's view
(hograd_labs/newton) and what the derivatives, graph and HVP labs draw for the other steps
(their ``embed.py``) come in as arguments of :func:`draw`, from the page script
pages/lesson.py, which composes them.

hograd_ui/parts/frame.py draws a step: its text is the lead, the steps, Previous/Next and the
progress one row of buttons (the presentation row projected), the step's live view the one
screen (its settings the frame's), the exercise under it; on a phone the view and the exercise
come first.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Protocol

import streamlit as st

from hograd_ui.parts import lesson_state as state
from hograd_ui.parts.frame import Frame
from hograd_ui.parts.ui import t

from . import exercise
from .compute import STEPS, Step
from .views import Lent
from .views import views as own_views

__all__ = ["TOTAL", "Classroom", "draw"]

TOTAL = len(STEPS)
#: The progress bar's width in CSS pixels: in the row beside the steps and Previous/Next, its
#: text ("3 of 7 steps done", at presentation mode's 26 px) on one line.
PRESENT_BAR = 300
#: A step's live view: (the step, the frame that draws it, for its settings).
View = Callable[[Step, Frame], None]


class Classroom(Protocol):
    """What the lesson page asks of the class (hograd_labs/classroom/page.py)."""

    def teacher_panel(self, number: int, titles: tuple[str, ...]) -> None: ...

    def student_gate(self, number: int) -> exercise.OnCheck | None: ...

    def revealed_box(self, number: int, answer: Callable[[], str]) -> None: ...

    def code_box(self) -> None: ...

    def board(self, titles: tuple[str, ...]) -> bool: ...


def _buttons(where: object, number: int, frame: Frame) -> None:
    """Previous and Next; projected, PageUp and PageDown press them (a clicker)."""
    where.button(
        t("lesson.prev"),
        icon=":material/arrow_back:",
        on_click=state.go,
        args=(number - 1, TOTAL),
        disabled=number == 1,
        key="lesson.prev",
        shortcut=frame.clicker("PageUp"),
    )
    where.button(
        t("lesson.next"),
        icon=":material/arrow_forward:",
        on_click=state.go,
        args=(number + 1, TOTAL),
        disabled=number == TOTAL,
        type="primary",
        key="lesson.next",
        shortcut=frame.clicker("PageDown"),
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
    step = STEPS[number - 1]
    st.header(t(step.title))
    frame = Frame("lesson")
    # one row: the steps, Previous/Next and the progress (projected, the presentation row,
    # and the step's live view right under the step's title)
    row = frame.buttons()
    st.session_state["lesson.nav"] = number
    row.segmented_control(
        t("lesson.nav"),
        list(range(1, TOTAL + 1)),
        required=True,
        key="lesson.nav",
        format_func=lambda n: f"{n} ✓" if n in done else str(n),
        on_change=lambda: state.go(st.session_state["lesson.nav"], TOTAL),
        label_visibility="collapsed",
    )
    _buttons(row, number, frame)
    progress = t("lesson.progress", done=len(done), total=TOTAL)
    row.progress(len(done) / TOTAL, text=progress, width=PRESENT_BAR)
    with frame.lead():
        st.markdown(t(step.text, page=t("app.page.why")))  # the last step names the "why" page
    live = partial(views[step.view], step, frame)  # the step's live view
    frame.screens({"view": (t(step.title), live)}, "lesson.screen", "lesson")
    with frame.results:
        exercise.show(number, teacher, lent, on_check=record)
        # in a class, once the lecturer reveals this step's answer
        classroom.revealed_box(number, lambda: exercise.answer_text(step))
        if len(done) == TOTAL:
            st.success(t("lesson.finished"), icon=":material/school:")
    classroom.code_box()  # a class code from the board, for a student without the class's link
