"""The open screen of presentation mode is in the link (issue 38): ``?graph.screen=drawings``
opens that screen; Next and Previous write it to the URL (the first screen is left out); a
name the view does not have opens the first screen, with the note that the value was ignored,
never an exception. Outside the mode the parameter changes nothing."""

from __future__ import annotations

import pytest

from tests.app.test_links import notes, open_link, query

PAGE = "pages/graph.py"
SCREENS = ("graph", "flags", "drawings", "traps")  # hograd_labs/graph/page.py's, in order


def screen(at) -> str:
    return at.session_state["graph.screen"]


@pytest.mark.parametrize("name", SCREENS[1:])
def test_a_link_opens_its_screen(name: str) -> None:
    at = open_link(PAGE, {"present": "1", "graph.screen": name})
    assert screen(at) == name
    assert at.selectbox(key="graph.screen.en").value == name
    assert query(at)["graph.screen"] == name
    assert notes(at) == []


def test_next_and_previous_write_the_screen_into_the_link() -> None:
    at = open_link(PAGE, {"present": "1"})
    assert screen(at) == "graph" and "graph.screen" not in query(at)
    for name in SCREENS[1:]:
        at.button(key="graph.screen.next").click().run()
        assert query(at)["graph.screen"] == name
    at = open_link(PAGE, {"present": "1", **{"graph.screen": query(at)["graph.screen"]}})
    assert screen(at) == SCREENS[-1]  # the link the last screen wrote opens it again
    for _ in SCREENS[1:]:
        at.button(key="graph.screen.prev").click().run()
    assert screen(at) == "graph" and "graph.screen" not in query(at)


@pytest.mark.parametrize(
    "value",
    [
        "abc",
        "-1",
        "0",
        "2",
        "9" * 40,
        "\u0663",
        "\uff12",
        "",
        "graph.screen",
        "<b>x</b>",
        "DRAWINGS",
        " drawings",
    ],
)
def test_a_screen_the_view_does_not_have_opens_the_first_with_a_note(value: str) -> None:
    at = open_link(PAGE, {"present": "1", "graph.screen": value})  # asserts: no exception
    assert screen(at) == "graph"
    assert "graph.screen" not in query(at)
    assert any(n.startswith("graph.screen=") for n in notes(at)), notes(at)


def test_a_repeated_screen_takes_the_last_one() -> None:
    at = open_link(PAGE, {"present": "1", "graph.screen": ["flags", "traps"]})
    assert screen(at) == "traps"
    assert "graph.screen=traps" in notes(at)


def test_outside_the_mode_the_screen_changes_nothing() -> None:
    plain = open_link(PAGE, {})
    at = open_link(PAGE, {"graph.screen": "traps"})
    assert [h.value for h in at.header] == [h.value for h in plain.header]
    assert "graph.screen" not in at.session_state
