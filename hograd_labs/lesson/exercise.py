"""A lesson step's exercise: the answer widgets, Check, the hint, the verdict and explanation,
and the teacher's notes. The right answer and the checking come from :mod:`.compute`."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from hograd_core import HogradError
from hograd_core.errors import AnswerError
from hograd_core.typed_numbers import MAX_CHARS, Reading, read_numbers, show_numbers
from hograd_ui.i18n import error_text
from hograd_ui.parts import lesson_state as state
from hograd_ui.parts.ui import lang, t

from .cached import lesson_answer
from .compute import CHOICE, FLAGS, NUMBER, STEPS, VECTOR, Step, Verdict, check, check_flags
from .views import Lent, run_flags_for


def _numbers(values: tuple[float, ...]) -> str:
    text = ", ".join(f"{v:.6g}" for v in values)
    return text if len(values) == 1 else f"({text})"


def _boxes(step: Step) -> tuple[list[str | None], int]:
    """The texts of a NUMBER or VECTOR exercise's boxes, and how many numbers the answer has."""
    key = f"lesson.ans.{step.name}"
    if step.exercise.kind == NUMBER:
        return [st.session_state.get(key)], 1
    size = len(lesson_answer(step.name).values)
    return [st.session_state.get(f"{key}.{i}") for i in range(size)], size


def _reading(step: Step) -> Reading | None:
    """The typed numbers as the app reads them (None: nothing typed); AnswerError if they
    cannot be read."""
    return read_numbers(*_boxes(step))


def _given(step: Step) -> tuple[float | None, ...] | int | None:
    """What the student entered for a NUMBER, VECTOR or CHOICE exercise."""
    if step.exercise.kind == CHOICE:
        return st.session_state.get(f"lesson.ans.{step.name}")
    reading = _reading(step)
    return (None,) if reading is None else reading.values


#: Told of every Check with a verdict: (step number, verdict, the answer as the app read it).
OnCheck = Callable[[int, Verdict, str], None]


def _check(number: int, lent: Lent, on_check: OnCheck | None = None) -> None:
    """Check's callback: the verdict into the session, the step into ``done`` if right, and
    ``on_check`` told (a class records it). ``lent``: the flag lab, for a flags exercise."""
    step = STEPS[number - 1]
    understood = ""
    try:
        if step.exercise.kind == FLAGS:
            settings = lent.graph.flag_choices(f"lesson.{step.name}")
            understood = f"create_graph={settings[0]}, retain_graph={settings[1]}, {settings[2]}"
            verdict = check_flags(step, run_flags_for(lent, settings))
        else:
            try:
                given = _given(step)
            except AnswerError as err:  # what cannot be read is said, never judged
                params = tuple((k, str(v)) for k, v in err.params.items())
                verdict = Verdict(False, err.key, params, answered=False)
            else:
                verdict = check(step, given, lesson_answer(step.name))
                understood = _understood_text(step, given)
    except HogradError as err:  # a busy server, say: shown instead of a verdict
        st.session_state[f"lesson.refused.{step.name}"] = error_text(err, lang())
        return
    st.session_state.pop(f"lesson.refused.{step.name}", None)
    st.session_state[f"lesson.verdict.{step.name}"] = verdict
    if verdict.correct:
        state.mark_done(number)
    if on_check is not None:
        on_check(number, verdict, understood)


def _understood_text(step: Step, given: tuple[float | None, ...] | int | None) -> str:
    """The answer as the app read it, in the app's own notation (never the typed text)."""
    if step.exercise.kind == CHOICE:
        return step.exercise.options[given] if isinstance(given, int) else ""
    if isinstance(given, tuple) and all(v is not None for v in given):
        return show_numbers(given)  # type: ignore[arg-type]
    return ""


def _forget(name: str) -> None:
    """A changed answer: the old verdict no longer applies."""
    st.session_state.pop(f"lesson.verdict.{name}", None)


def _choice(step: Step) -> None:
    """The options as a radio, keyed per language (the browser forgets a choice whose label
    changed); the choice itself lives in ``lesson.ans.<name>``."""
    store = f"lesson.ans.{step.name}"
    widget = f"{store}.{lang()}"
    if st.session_state.get(widget) != st.session_state.get(store):
        st.session_state[widget] = st.session_state.get(store)

    labels = [t(key) for key in step.exercise.options]

    def sync() -> None:
        value = st.session_state[widget]  # an index, unless a modified client sent text
        st.session_state[store] = value if value in range(len(labels)) else None
        _forget(step.name)

    st.radio(
        t("lesson.choice.label"),
        list(range(len(labels))),
        index=None,
        key=widget,
        format_func=labels.__getitem__,
        on_change=sync,
    )


def _inputs(step: Step) -> None:
    """The answer boxes: text, read by the app (hograd_core.typed_numbers), never the browser's
    number box, which silently turns "−1" (U+2212) into 1 and "12,0" into 120. Typed text is
    kept for the session (persist_state), so a step visited again shows the answer its verdict
    is about."""
    ex, key = step.exercise, f"lesson.ans.{step.name}"
    if ex.kind == NUMBER:
        st.columns([1, 2])[0].text_input(
            t("lesson.answer.label"),
            key=key,
            max_chars=MAX_CHARS,
            help=t("lesson.answer.help"),
            on_change=_forget,
            args=(step.name,),
            persist_state="session",
        )
    elif ex.kind == VECTOR:
        size = len(lesson_answer(step.name).values)
        for i, column in enumerate(st.columns(size + 2)[:size]):
            column.text_input(
                t("lesson.answer.component", index=i + 1),
                key=f"{key}.{i}",
                max_chars=MAX_CHARS,
                help=t("lesson.answer.help"),
                on_change=_forget,
                args=(step.name,),
                persist_state="session",
            )
    elif ex.kind == CHOICE:
        _choice(step)


def _part(params: dict | tuple) -> None:
    """The part of the typed text that could not be read, as code (never markdown)."""
    part = dict(params).get("part")
    if part:
        st.caption(t("lesson.answer.part"))
        st.code(str(part), language=None)


def _understood(step: Step) -> None:
    """What the boxes were read as, or why they cannot be read (until Check says it)."""
    if step.exercise.kind not in (NUMBER, VECTOR):
        return
    try:
        reading = _reading(step)
    except AnswerError as err:
        if f"lesson.verdict.{step.name}" not in st.session_state:
            st.warning(t(err.key, **err.params), icon=":material/edit_note:")
            _part(err.params)
        return
    if reading is None:
        return
    key = "lesson.answer.read"
    if reading.spread:
        key = "lesson.answer.read_spread"
    elif reading.decimal_comma:
        key = "lesson.answer.read_comma"
    st.caption(t(key, value=show_numbers(reading.values)))


def answer_text(step: Step) -> str:
    """The answer to ``step``'s exercise, as the teacher's version says it."""
    ex, truth = step.exercise, lesson_answer(step.name)
    if ex.kind in (NUMBER, VECTOR):
        answer = t(
            "lesson.teacher.answer_number",
            value=_numbers(truth.values),
            tolerance=f"{ex.tolerance:g}",
        )
    elif ex.kind == CHOICE:
        answer = t("lesson.teacher.answer_choice", value=t(ex.options[int(truth.values[0])]))
    else:
        s = truth.solution
        action = t(f"graph.flags.action.{s.action}")
        settings = f"create_graph={s.create_graph}, retain_graph={s.retain_graph}; {action}"
        answer = t("lesson.teacher.answer_flags", settings=settings)
    return answer


def _teacher(step: Step) -> None:
    """The teacher's notes and the answer."""
    with st.container(border=True):
        st.markdown(f"**{t('lesson.teacher.notes')}** {t(step.teacher)}")
        st.markdown(answer_text(step))


def show(number: int, teacher: bool, lent: Lent, on_check: OnCheck | None = None) -> None:
    """The exercise of step ``number``: prompt, inputs, Check and hint, then what was found.
    ``lent``: what the other labs lend (the flag lab's run); ``on_check`` is told of each
    Check's verdict (a class records it)."""
    step = STEPS[number - 1]
    ex = step.exercise
    st.subheader(t("lesson.exercise"), divider="gray")
    st.markdown(t(ex.prompt))
    _inputs(step)
    _understood(step)
    hint_key = f"lesson.hint.{step.name}"
    with st.container(horizontal=True):
        st.button(
            t("lesson.check"),
            key=f"lesson.check.{step.name}",
            type="primary",
            on_click=_check,
            args=(number, lent, on_check),
            icon=":material/task_alt:",
        )
        st.button(
            t("lesson.hint.show"),
            key=f"lesson.hint_button.{step.name}",
            icon=":material/help:",
            on_click=st.session_state.__setitem__,
            args=(hint_key, True),
            disabled=st.session_state.get(hint_key, False),
        )
    if st.session_state.get(hint_key):
        st.info(f"**{t('lesson.hint.title')}** {t(ex.hint)}", icon=":material/help:")
    refused = st.session_state.get(f"lesson.refused.{step.name}")
    if refused:
        st.warning(refused, icon=":material/hourglass_top:")
    verdict = st.session_state.get(f"lesson.verdict.{step.name}")
    if verdict is not None:
        message = t(verdict.key, **dict(verdict.params))
        explain = t(ex.explain, **dict(lesson_answer(step.name).facts))
        if verdict.correct:
            st.success(message, icon=":material/check_circle:")
            st.info(f"**{t('lesson.explain.title')}** {explain}", icon=":material/lightbulb:")
        else:
            st.error(message, icon=":material/cancel:")
            _part(verdict.params)
            if verdict.answered:  # no explanation that gives the answer away for no answer
                with st.expander(t("lesson.explain.reveal"), icon=":material/lightbulb:"):
                    st.markdown(explain)
    if teacher:
        _teacher(step)
