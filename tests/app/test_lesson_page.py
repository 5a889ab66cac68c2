"""The guided lesson under AppTest: every exercise answered right and wrong, hints, the teacher's
version, progress in the link, bad links, both languages.

The right answers typed here are the seeds' and closed forms' numbers (12, 12, (1, −1)), the
options the oracles in tests/labs/test_lesson_compute.py pick, and flag settings whose error plain
PyTorch raises; never values read back from the app."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from hograd_ui.i18n import tr
from tests.app.charts import chart_elements
from tests.app.conftest import APP
from tests.apptest import APP_TEST_CEILING

PAGE = "pages/lesson.py"
TOTAL = 7


def open_lesson(lang: str = "en", **params: str) -> AppTest:
    """The app opened on a link to the lesson with these query parameters."""
    at = AppTest.from_file(APP, default_timeout=APP_TEST_CEILING)
    at.query_params["lang"] = lang
    for name, value in params.items():
        at.query_params[name] = value
    at.switch_page(PAGE)  # the link's page from the first run, as a browser opens it
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def texts(elements: object) -> list[str]:
    return [e.value for e in elements]


def step_of(at: AppTest) -> str:
    return at.header[0].value


def check(at: AppTest, name: str) -> AppTest:
    at.button(key=f"lesson.check.{name}").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def set_flags(at: AppTest, name: str, cg: bool, rg: str, action: str) -> None:
    at.toggle(key=f"lesson.{name}.cg").set_value(cg)
    at.segmented_control(key=f"lesson.{name}.rg").set_value(rg)
    at.radio(key=f"lesson.{name}.action.{at.session_state['lang']}").set_value(action)
    at.run()


def answer(at: AppTest, number: int, right: bool) -> None:
    """Answer step ``number`` right or wrong (wrong: a plausible slip, not nonsense)."""
    if number in (1, 3):  # f'(2) = f''(2) = 12 for x³
        name = "grad" if number == 1 else "second"
        at.text_input(key=f"lesson.ans.{name}").input("12" if right else "10").run()
        check(at, name)
    elif number == 6:  # H v for w1²·sin(w2) at (1, π/2), v = (0.5, 1)
        first, second = ("1", "-1") if right else ("1", "1")
        at.text_input(key="lesson.ans.hvp.0").input(first)
        at.text_input(key="lesson.ans.hvp.1").input(second).run()
        check(at, "hvp")
    elif number in (4, 7):  # tanh grows by a factor (option 2); Newton: one step (option 0)
        name = "growth" if number == 4 else "used"
        choice = {4: (2, 1), 7: (0, 3)}[number][0 if right else 1]
        at.radio(key=f"lesson.ans.{name}.{at.session_state['lang']}").set_value(choice).run()
        check(at, name)
    elif number == 2:  # no create_graph, then the next derivative: "does not require grad"
        set_flags(at, "create_graph", not right, "None", "next")
        check(at, "create_graph")
    elif number == 5:  # grad on y twice without keeping the graph: "a second time"
        set_flags(at, "freed", False, "None", "again" if right else "next")
        check(at, "freed")


NAMES = ["grad", "create_graph", "second", "growth", "freed", "hvp", "used"]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("number", range(1, TOTAL + 1))
def test_every_exercise_answered_wrong_then_right(number: int, lang: str) -> None:
    name = NAMES[number - 1]
    at = open_lesson(lang, step=str(number))
    assert step_of(at) == tr(f"lesson.{name}.title", lang)
    assert len(chart_elements(at)) + len(at.code) >= 1  # the live view is there
    answer(at, number, right=False)
    assert texts(at.error), "a wrong answer says so"
    assert tr("lesson.check.right", lang) not in texts(at.success)
    explanation = at.expander  # behind "it gives the answer away"
    assert tr("lesson.explain.reveal", lang) in [e.label for e in explanation]
    assert "done" not in at.query_params
    answer(at, number, right=True)
    success = texts(at.success)
    right = "lesson.check.flags_right" if number in (2, 5) else "lesson.check.right"
    assert tr(right, lang) in success
    assert any(tr("lesson.explain.title", lang) in i for i in texts(at.info))
    assert at.query_params["done"] == str(number)
    progress = tr("lesson.progress", lang, done=1, total=TOTAL)
    assert progress in [p.proto.text for p in at.get("progress")]


def test_wrong_answers_get_specific_feedback() -> None:
    at = open_lesson()
    at.text_input(key="lesson.ans.grad").input("8").run()
    check(at, "grad")
    assert tr("lesson.trap.value", value="8") in texts(at.error)
    at.text_input(key="lesson.ans.grad").input("13").run()
    check(at, "grad")
    assert tr("lesson.check.high", value="13") in texts(at.error)
    at.text_input(key="lesson.ans.grad").input("").run()
    check(at, "grad")
    assert tr("lesson.check.empty") in texts(at.error)

    at = open_lesson(step="6")
    at.text_input(key="lesson.ans.hvp.0").input("2")
    at.text_input(key="lesson.ans.hvp.1").input("0").run()
    check(at, "hvp")
    assert tr("lesson.trap.gradient", value="(2, 0)") in texts(at.error)

    at = open_lesson(step="2")  # another error than the one asked for
    set_flags(at, "create_graph", False, "None", "again")
    check(at, "create_graph")
    assert tr("lesson.check.other_error") in texts(at.error)


def test_a_changed_answer_drops_the_old_verdict() -> None:
    at = open_lesson()
    at.text_input(key="lesson.ans.grad").input("10").run()
    check(at, "grad")
    assert texts(at.error)
    at.text_input(key="lesson.ans.grad").input("11").run()
    assert not texts(at.error)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_hints_on_request(lang: str) -> None:
    at = open_lesson(lang, step="6")
    hint = tr("lesson.hvp.hint", lang)
    assert not any(hint in i for i in texts(at.info))
    at.button(key="lesson.hint_button.hvp").click().run()
    assert any(hint in i for i in texts(at.info))
    assert at.button(key="lesson.hint_button.hvp").disabled


KEY = "a-teachers-key_0123456789abcdef"


@pytest.fixture()
def server_key(monkeypatch: pytest.MonkeyPatch) -> str:
    """The server's teacher key, in the environment as Docker and compose give it."""
    monkeypatch.setenv("HOGRAD_TEACHER_KEY", KEY)
    return KEY


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_teachers_version_adds_notes_and_answers(lang: str, server_key: str) -> None:
    at = open_lesson(lang, key=server_key)
    assert tr("lesson.teacher.on", lang) in texts(at.warning)
    assert tr("lesson.teacher.refused", lang) not in texts(at.info)
    expected = {
        1: tr("lesson.teacher.answer_number", lang, value="12", tolerance="0.01"),
        2: tr(
            "lesson.teacher.answer_flags",
            lang,
            settings="create_graph=False, "
            f"retain_graph=None; {tr('graph.flags.action.next', lang)}",
        ),
        4: tr("lesson.teacher.answer_choice", lang, value=tr("lesson.growth.opt.growing", lang)),
        6: tr("lesson.teacher.answer_number", lang, value="(1, -1)", tolerance="0.01"),
        7: tr("lesson.teacher.answer_choice", lang, value=tr("lesson.used.opt.one", lang)),
    }
    for number in range(1, TOTAL + 1):
        if number > 1:
            at.button(key="lesson.next").click().run()
        name = NAMES[number - 1]
        markdown = texts(at.markdown)
        assert any(tr(f"lesson.{name}.teacher", lang) in m for m in markdown), number
        if number in expected:
            assert expected[number] in markdown, number
    # the key left the link on the first run: the address bar and Share never carry it
    assert not {"key", "teacher"} & set(at.query_params)
    assert at.query_params["step"] == str(TOTAL)
    student = open_lesson(lang)
    assert not any(tr("lesson.grad.teacher", lang) in m for m in texts(student.markdown))
    assert tr("lesson.teacher.refused", lang) not in texts(student.info)  # nothing asked


def _is_students_version(at: AppTest, lang: str = "en") -> bool:
    return tr("lesson.teacher.on", lang) not in texts(at.warning) and not any(
        tr("lesson.grad.teacher", lang) in m for m in texts(at.markdown)
    )


WRONG = [
    {"key": KEY[:-1]},
    {"key": KEY + "0"},
    {"key": ""},
    {"key": " " + KEY},
    {"key": "<b>x</b>"},
    {"key": "' OR '1'='1"},
    {"key": "x" * 10_000},
    {"teacher": "1"},
    {"teacher": "yes"},
    {"teacher": "1", "key": "nope"},
]


@pytest.mark.parametrize("params", WRONG)
@pytest.mark.parametrize("has_key", [True, False])
def test_a_wrong_or_missing_key_gets_the_students_version_and_a_note(
    params: dict[str, str], has_key: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same page whether the server has a key or not: the note never says which."""
    if has_key:
        monkeypatch.setenv("HOGRAD_TEACHER_KEY", KEY)
    else:
        monkeypatch.delenv("HOGRAD_TEACHER_KEY", raising=False)
    at = open_lesson(**params)
    assert _is_students_version(at)
    assert tr("lesson.teacher.refused") in texts(at.info)
    assert not {"key", "teacher"} & set(at.query_params)
    shown = " ".join(texts(at.info) + texts(at.markdown) + [c.value for c in at.code])
    if params.get("key"):
        assert params["key"] not in shown  # what was typed is never shown back
    at.button(key="lesson.next").click().run()  # said once, then the page goes on
    assert tr("lesson.teacher.refused") not in texts(at.info)


def test_no_key_in_the_link_is_the_students_version(server_key: str) -> None:
    at = open_lesson()
    assert _is_students_version(at)
    assert tr("lesson.teacher.refused") not in texts(at.info)


def test_progress_lives_in_the_link() -> None:
    at = open_lesson()
    assert "step" not in at.query_params and "done" not in at.query_params  # defaults stay out
    at = open_lesson(step="3", done="2,1")
    assert step_of(at) == tr("lesson.second.title")
    assert at.query_params["done"] == "1,2"
    answer(at, 3, right=True)
    assert at.query_params["done"] == "1,2,3"
    at.button(key="lesson.next").click().run()
    assert step_of(at) == tr("lesson.growth.title")
    assert at.query_params["step"] == "4"
    at.segmented_control(key="lesson.nav").set_value(6).run()
    assert step_of(at) == tr("lesson.hvp.title")
    at.button(key="lesson.prev").click().run()
    assert at.query_params["step"] == "5"
    # the same link opened afresh shows the same place
    again = open_lesson(step="5", done="1,2,3")
    assert step_of(again) == tr("lesson.freed.title")
    assert tr("lesson.progress", done=3, total=TOTAL) in [
        p.proto.text for p in again.get("progress")
    ]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_presentation_mode_shows_the_progress_too(lang: str) -> None:
    """Issue 38: projected, the class sees how far the lesson has got (one bar, in the row
    above the view), as on a laptop."""
    for present in ("0", "1"):
        at = open_lesson(lang, present=present, step="4", done="3,1")
        bars = at.get("progress")
        assert [b.proto.text for b in bars] == [tr("lesson.progress", lang, done=2, total=TOTAL)]
        assert bars[0].proto.value == int(100 * 2 / TOTAL)  # Streamlit's percent, floored
        assert step_of(at) == tr("lesson.growth.title", lang)


def test_finishing_every_step_says_so() -> None:
    at = open_lesson(step="7", done="1,2,3,4,5,6")
    answer(at, 7, right=True)
    assert tr("lesson.finished") in texts(at.success)
    assert at.query_params["done"] == "1,2,3,4,5,6,7"


@pytest.mark.parametrize(
    "params",
    [
        {"step": "abc"},
        {"step": "0"},
        {"step": "99"},
        {"step": "-2"},
        {"step": "2.5"},
        {"step": "x" * 10_000},
        {"step": "<script>alert(1)</script>"},
        {"step": "**bold** [link](http://example.com)"},
        {"done": "1,banana"},
        {"done": "8"},
    ],
)
def test_a_bad_link_is_ignored_with_a_note(params: dict[str, str]) -> None:
    at = open_lesson(**params)
    names = ", ".join(params)
    assert tr("lesson.url.ignored", names=names, total=TOTAL) in texts(at.info)
    assert step_of(at) == tr("lesson.grad.title")
    assert not any(params[n] in m for n in params for m in texts(at.markdown))
    assert not set(params) & set(at.query_params)  # cleaned out of the link


def test_repeated_keys_that_disagree_are_ignored() -> None:
    at = AppTest.from_file(APP, default_timeout=APP_TEST_CEILING)
    at.query_params["lang"] = "en"
    at.query_params["step"] = ["2", "4"]
    at.switch_page(PAGE)  # the link's page from the first run
    at.run()
    assert not at.exception
    assert tr("lesson.url.ignored", names="step", total=TOTAL) in texts(at.info)
    assert step_of(at) == tr("lesson.grad.title")


def test_both_languages_and_a_switch_keeps_the_place_and_choice() -> None:
    at = open_lesson("zh", step="4")
    assert step_of(at) == tr("lesson.growth.title", "zh")
    at.radio(key="lesson.ans.growth.zh").set_value(1).run()
    at.radio(key="lang").set_value("en").run()
    assert not at.exception
    assert step_of(at) == tr("lesson.growth.title", "en")
    assert at.radio(key="lesson.ans.growth.en").value == 1
    answer(at, 4, right=True)
    assert tr("lesson.check.right", "en") in texts(at.success)
    at.radio(key="lang").set_value("zh").run()
    assert tr("lesson.check.right", "zh") in texts(at.success)
    assert at.query_params["lang"] == "zh" and at.query_params["done"] == "4"


def test_the_views_widgets_are_read_from_the_link() -> None:
    """The growth picker and the flag toggles are bound to the link (bind="query-params"); a
    value that is not one of their options is dropped, never a traceback."""
    at = open_lesson(step="4", **{"lesson.growth.fn": "sin(x)"})
    assert at.segmented_control(key="lesson.growth.fn").value == "sin(x)"
    at = open_lesson(step="2", **{"lesson.create_graph.cg": "false"})
    assert at.toggle(key="lesson.create_graph.cg").value is False
    assert any("does not require grad" in c.value for c in at.code)  # the run with those flags
    check(at, "create_graph")
    assert tr("lesson.check.flags_right") in texts(at.success)
    at = open_lesson(step="5", **{"lesson.freed.rg": "<b>x</b>", "lesson.growth.fn": "zz"})
    assert at.segmented_control(key="lesson.freed.rg").value in (None, "None")
    check(at, "freed")
    assert tr("lesson.check.ran") in texts(at.error)


def test_progress_and_answers_survive_a_visit_to_another_page() -> None:
    at = open_lesson(step="6")
    answer(at, 6, right=True)
    at.switch_page("pages/graph.py")
    at.switch_page(PAGE)  # the link's page from the first run
    at.run()
    assert not at.exception
    assert step_of(at) == tr("lesson.hvp.title")
    assert at.query_params["step"] == "6" and at.query_params["done"] == "6"  # link rewritten
    assert at.text_input(key="lesson.ans.hvp.0").value == "1"
    assert at.text_input(key="lesson.ans.hvp.1").value == "-1"
    assert tr("lesson.check.right") in texts(at.success)


def test_backward_twice_with_create_graph_runs_in_its_own_process_and_counts() -> None:
    """.backward(create_graph=True) is run by the flag lab in a fresh process (PyTorch warns of
    a reference cycle once per process); with retain_graph=False the second .backward() raises
    the asked-for error, as plain PyTorch does."""
    at = open_lesson(step="5")
    set_flags(at, "freed", True, "False", "backward")
    assert not at.exception
    check(at, "freed")
    assert tr("lesson.check.flags_right") in texts(at.success)
    set_flags(at, "freed", True, "None", "backward")  # retain_graph defaults to True: it runs
    check(at, "freed")
    assert tr("lesson.check.ran") in texts(at.error)


# ---- what is typed is read as typed (issue 36, item 5) ---------------------------------------
# The truths are the seed's numbers: f'(2) = f''(2) = 12 for x³, Hv = (1, −1) for
# w1²·sin(w2) at (1, π/2) along (0.5, 1). Each text is one a student types or pastes.


def _type(at: AppTest, name: str, *boxes: str) -> AppTest:
    keys = (
        [f"lesson.ans.{name}"]
        if len(boxes) == 1
        else [f"lesson.ans.{name}.{i}" for i in range(len(boxes))]
    )
    for key, text in zip(keys, boxes, strict=True):
        at.text_input(key=key).input(text)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(
    "boxes",
    [
        ("1", "\u22121"),
        ("1", "-1"),
        ("1.0", "\u22121.00"),
        ("１", "－１"),
        ("+1", "-1e0"),
        ("(1, -1)", ""),
        ("[1, -1]", ""),
        ("1,-1", ""),
        ("1，-1", ""),
        ("1, \u22121", ""),
        ("（1，−1）", ""),
        ("1 -1", ""),
        ("1; -1", ""),
        ("1、-1", ""),
        ("", "(1, -1)"),
        ("1,0", "-1,0"),
        (" 1 ", " - 1".replace(" ", "")),
    ],
)
def test_hv_typed_or_pasted_in_any_form_is_right(boxes: tuple[str, str], lang: str) -> None:
    at = _type(open_lesson(lang, step="6"), "hvp", *boxes)
    assert tr("lesson.answer.read", lang, value="(1, \u22121)") in texts(at.caption) or any(
        "(1, \u22121)" in c for c in texts(at.caption)
    )
    check(at, "hvp")
    assert tr("lesson.check.right", lang) in texts(at.success)
    assert at.query_params["done"] == "6"


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("text", ["12", "12,0", "12.0", "１２", "+12", "1.2e1", "12,00"])
def test_twelve_in_any_form_is_right(text: str, lang: str) -> None:
    at = _type(open_lesson(lang), "grad", text)
    assert any("12" in c for c in texts(at.caption))
    check(at, "grad")
    assert tr("lesson.check.right", lang) in texts(at.success)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(
    "text", ["\u221212", "-12", "－１２", "\u221212,0", "\u2013 12".replace(" ", "")]
)
def test_minus_twelve_is_read_as_negative_and_is_wrong(text: str, lang: str) -> None:
    at = _type(open_lesson(lang), "grad", text)
    assert tr("lesson.answer.read", lang, value="\u221212") in texts(at.caption) or (
        tr("lesson.answer.read_comma", lang, value="\u221212") in texts(at.caption)
    )
    check(at, "grad")
    assert tr("lesson.check.low", lang, value="-12") in texts(at.error)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_echo_says_how_a_paste_and_a_comma_were_read(lang: str) -> None:
    at = _type(open_lesson(lang, step="6"), "hvp", "(1, \u22121)", "")
    assert tr("lesson.answer.read_spread", lang, value="(1, \u22121)") in texts(at.caption)
    at = _type(open_lesson(lang), "grad", "12,0")
    assert tr("lesson.answer.read_comma", lang, value="12") in texts(at.caption)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(
    ("name", "boxes", "key", "params"),
    [
        ("grad", ("abc",), "lesson.read.unreadable", {"box": 1, "index": 1}),
        ("grad", ("12 apples",), "lesson.read.unreadable", {"box": 1, "index": 2}),
        ("grad", ("\u2212",), "lesson.read.unreadable", {"box": 1, "index": 1}),
        ("grad", ("1,200",), "lesson.read.comma", {"box": 1}),
        ("grad", ("12, 0",), "lesson.read.count", {"box": 1, "got": 2, "expected": 1}),
        ("grad", ("1e999",), "lesson.read.too_large", {"box": 1, "index": 1}),
        ("hvp", ("1", ""), "lesson.read.missing", {"box": 2, "size": 2}),
        ("hvp", ("", "-1"), "lesson.read.missing", {"box": 1, "size": 2}),
        ("hvp", ("1, -1, 2", ""), "lesson.read.count", {"box": 1, "got": 3, "expected": 2}),
        ("hvp", ("1, -1", "-1"), "lesson.read.count_one", {"box": 1, "got": 2, "size": 2}),
        ("hvp", ("(1, x)", ""), "lesson.read.unreadable", {"box": 1, "index": 2}),
    ],
)
def test_what_cannot_be_read_is_said_and_never_judged(
    name: str, boxes: tuple[str, ...], key: str, params: dict, lang: str
) -> None:
    at = _type(open_lesson(lang, step="1" if name == "grad" else "6"), name, *boxes)
    message = tr(key, lang, **params)
    assert message in texts(at.warning)
    check(at, name)
    assert texts(at.error) == [message]  # said, not "give an answer first", not judged
    assert tr("lesson.check.right", lang) not in texts(at.success)
    assert tr("lesson.explain.reveal", lang) not in [e.label for e in at.expander]
    assert "done" not in at.query_params


def test_an_empty_answer_gets_no_explanation() -> None:
    at = open_lesson()
    check(at, "grad")
    assert tr("lesson.check.empty") in texts(at.error)
    assert tr("lesson.explain.reveal") not in [e.label for e in at.expander]
    at = open_lesson(step="4")
    check(at, "growth")
    assert tr("lesson.explain.reveal") not in [e.label for e in at.expander]
