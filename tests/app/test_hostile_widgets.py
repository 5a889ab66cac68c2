"""Widget values that only a modified client sends (issue 35, finding 8): a tab label that is
not a tab, a contour click at NaN, Infinity or 1e999, a radio or a segmented control holding
text that is not an option. Every widget callback of the app, and every value it reads back
from a widget, must ignore such a value: no exception, the view stays as it was.

AppTest offers no way to send an arbitrary value (its widgets only take valid ones, and tabs
and components have no setter), so these tests send the raw widget state, as the browser's
websocket message carries it.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from streamlit.components.v2.bidi_component.main import _make_trigger_id
from streamlit.proto.WidgetStates_pb2 import WidgetState
from streamlit.testing.v1 import AppTest

from hograd_core.network import DATASETS
from tests.app.charts import chart_elements
from tests.app.conftest import APP, open_page
from tests.apptest import APP_TEST_CEILING


def send(at: AppTest, widget_id: str, fill: Callable[[WidgetState], None]) -> AppTest:
    """Rerun ``at`` with every widget as it is, except ``widget_id``, whose state ``fill`` sets."""
    states = at._tree.get_widget_states()
    kept = [w for w in states.widgets if w.id != widget_id]
    del states.widgets[:]
    states.widgets.extend(kept)
    state = states.widgets.add()
    state.id = widget_id
    fill(state)
    at._run(states)
    assert not at.exception, [e.value for e in at.exception]
    return at


def tabs_id(at: AppTest, key: str) -> str:
    """The element id of the ``st.tabs`` keyed ``key`` (a block, not a widget, for AppTest)."""
    found = []

    def walk(node: object) -> None:
        for child in getattr(node, "children", {}).values():
            proto = getattr(child, "proto", None)
            if getattr(child, "type", "") == "tab_container" and proto.tab_container.id.endswith(
                "-" + key
            ):
                found.append(proto.tab_container.id)
            walk(child)

    walk(at._tree)
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize(
    ("page", "key", "opened"),
    [("pages/derivatives.py", "deriv.tab", "inspector"), ("pages/hvp.py", "hvp.tab", "picture")],
)
@pytest.mark.parametrize("value", ["nope", "", "Point inspector " * 3])
def test_a_tab_that_does_not_exist_keeps_the_open_tab(
    page: str, key: str, opened: str, value: str
) -> None:
    at = open_page(page)
    assert at.session_state[key] == opened
    send(at, tabs_id(at, f"{key}.en"), lambda s: setattr(s, "string_value", value))
    assert at.session_state[key] == opened
    # the page still draws its open tab, and a real tab still opens
    assert at.session_state[f"{key}.en"] in [tab.label for tab in at.tabs]


#: What a modified client can put in a click's x: JSON's NaN and Infinity, a number that
#: overflows to inf, and values of other types.
BAD_X = ["NaN", "Infinity", "-Infinity", "1e999", "-1e999", '"1"', "true", "null", "[1]"]


@pytest.mark.parametrize("x", BAD_X)
def test_a_contour_click_off_the_numbers_is_ignored(x: str) -> None:
    at = open_page("pages/hvp.py")
    names = ("w1", "w2")
    before = {n: at.session_state[f"hvp.p.{n}"] for n in names}
    (contour,) = [e for e in chart_elements(at) if json.loads(e.proto.bytes)["pick"]]
    trigger = _make_trigger_id(contour.proto.id, "events")
    payload = f'[{{"event": "pick", "value": {{"x": {x}, "y": 0.5}}}}]'
    send(at, trigger, lambda s: setattr(s, "json_trigger_value", payload))
    assert {n: at.session_state[f"hvp.p.{n}"] for n in names} == before


def test_a_good_contour_click_still_moves_the_point() -> None:
    """The same message with finite numbers moves p: the test above sends what a click sends."""
    at = open_page("pages/hvp.py")
    (contour,) = [e for e in chart_elements(at) if json.loads(e.proto.bytes)["pick"]]
    trigger = _make_trigger_id(contour.proto.id, "events")
    payload = '[{"event": "pick", "value": {"x": 1.01, "y": -0.5}}]'
    send(at, trigger, lambda s: setattr(s, "json_trigger_value", payload))
    assert at.session_state["hvp.p.w1"] == pytest.approx(1.0)
    assert at.session_state["hvp.p.w2"] == pytest.approx(-0.5)


def open_lesson(step: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=APP_TEST_CEILING)
    at.query_params["step"] = step
    at.switch_page("pages/lesson.py")
    at.run()
    assert not at.exception
    return at


@pytest.mark.parametrize("value", ["nope", "99", ""])
def test_the_lesson_steps_refuse_a_step_that_does_not_exist(value: str) -> None:
    at = open_lesson("3")
    widget = at.get("button_group")[0]
    send(at, widget.id, lambda s: s.string_array_value.data.extend([value]))
    assert at.session_state["progress.step"] == 3


@pytest.mark.parametrize("value", ["nope", "7", "-1"])
def test_a_lesson_choice_that_is_not_an_option_is_no_answer(value: str) -> None:
    at = open_lesson("4")  # the growth step: a choice among three
    radio = at.radio(key="lesson.ans.growth.en")
    send(at, radio.id, lambda s: setattr(s, "string_value", value))
    assert at.session_state["lesson.ans.growth"] is None
    at.button(key="lesson.check.growth").click().run()
    assert not at.exception
    assert at.session_state["lesson.verdict.growth"].key == "lesson.check.empty"


def test_a_form_radio_that_is_not_an_option_stays_an_option() -> None:
    """The why page's forms draw their radios through hograd_ui/parts/form_kit.py form_radio; a label
    that is not an option gives one of the options (Streamlit falls back to the radio's first)
    and the tab computes with it, without an error."""
    at = AppTest.from_file(APP, default_timeout=APP_TEST_CEILING)
    at.query_params["why.tab"] = "hf"
    at.switch_page("pages/why.py")
    at.run()
    assert not at.exception
    radio = at.radio(key="why.hf.data.en")
    send(at, radio.id, lambda s: setattr(s, "string_value", "nope"))
    assert at.session_state["why.hf.data"] in DATASETS
    assert not at.error
