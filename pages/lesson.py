"""The guided lesson: seven steps from the derivative of x³ to Hessian-vector products, each
with a text, a live view from one of the labs and an exercise the app checks. Progress lives in
the session and in the link (?step=3&done=1,2); the teacher's link (?key=, the key the server
holds) adds notes, the answers and the class panel; a class's link (?class=CODE) asks for a
nickname and records every Check (hograd_labs/classroom)."""

import streamlit as st

from hograd_core.lesson import STEPS
from hograd_labs.classroom import page as classroom
from hograd_labs.newton import page as newton
from hograd_ui.parts import lesson_exercise as exercise
from hograd_ui.parts import lesson_state as state
from hograd_ui.parts.lesson_views import VIEWS
from hograd_ui.parts.links import present
from hograd_ui.parts.ui import folded, present_row, t

TOTAL = len(STEPS)
# the last step's view is the Newton lab's race (a lab: hograd_ui may not import it)
VIEWS = {**VIEWS, "newton": newton.lesson_view}

st.title(t("lesson.title"))
st.caption(t("lesson.lead"))
state.carry()  # app.py did it already; this page also runs alone under tests
ignored = state.take_ignored()
if ignored:
    names = ", ".join(ignored)  # parameter names from hograd_core.lesson, never the link's text
    st.info(t("lesson.url.ignored", names=names, total=TOTAL), icon=":material/link_off:")
if state.take_refused():  # the same note whether the server has a key or not
    st.info(t("lesson.teacher.refused"), icon=":material/lock:")
teacher = st.session_state[state.TEACHER]
if teacher:
    st.warning(t("lesson.teacher.on"), icon=":material/co_present:")
    classroom.teacher_panel(st.session_state[state.STEP])
# in a class (?class=): a nickname first; then progress is the class's record, Checks recorded
record = classroom.student_gate(st.session_state[state.STEP])

number, done = st.session_state[state.STEP], st.session_state[state.DONE]


def buttons(where: object) -> None:
    """Previous and Next; in presentation mode PageUp and PageDown press them (a clicker)."""
    where.button(
        t("lesson.prev"), icon=":material/arrow_back:", on_click=state.go, args=(number - 1,),
        disabled=number == 1, key="lesson.prev", shortcut="PageUp" if present() else None,
    )  # fmt: skip
    where.button(
        t("lesson.next"), icon=":material/arrow_forward:", on_click=state.go, args=(number + 1,),
        disabled=number == TOTAL, type="primary", key="lesson.next",
        shortcut="PageDown" if present() else None,
    )  # fmt: skip


if not present():
    st.progress(len(done) / TOTAL, text=t("lesson.progress", done=len(done), total=TOTAL))
# In presentation mode one row holds the steps, Previous/Next, the step's text and the view's
# settings, and the step's live view comes right under its title (issue 38).
row = present_row()
st.session_state["lesson.nav"] = number
row.segmented_control(
    t("lesson.nav"), list(range(1, TOTAL + 1)), required=True, key="lesson.nav",
    format_func=lambda n: f"{n} ✓" if n in done else str(n),
    on_change=lambda: state.go(st.session_state["lesson.nav"]),
    label_visibility="collapsed" if present() else "visible",
)  # fmt: skip
if present():
    buttons(row)

step = STEPS[number - 1]
st.header(t(step.title))
with folded(t("present.text"), ":material/notes:", row):
    st.markdown(t(step.text, page=t("app.page.why")))  # the last step names the "why" page
with st.container(key="lesson.view"):
    VIEWS[step.view](step, row if present() else None)
exercise.show(number, teacher, on_check=record)
classroom.revealed_box(number)  # in a class, once the lecturer reveals this step's answer
if len(done) == TOTAL:
    st.success(t("lesson.finished"), icon=":material/school:")

if not present():
    buttons(st.container(horizontal=True))
classroom.code_box()  # a class code from the board, for a student without the class's link
