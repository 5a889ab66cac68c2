"""A link's settings of views the page did not draw when it opened (issue 18): the other mode
of the HVP page, a closed tab. A form's setting is judged at once by its field; any other
stays untouched in the URL and is judged, with the same note, when its view is drawn. A name
no view has is unknown, even with the page's prefix."""

from __future__ import annotations

import pytest

from tests.app.test_links import open_link, query

NOTE = {"en": "Part of the link you opened was not used", "zh": "你打开的链接中有一部分没有被使用"}
INVALID = {"en": "The page could not use this value", "zh": "页面无法使用这个值"}


def _noted(at, lang: str) -> bool:
    return any(NOTE[lang] in w.value for w in at.warning)


def notes(at) -> list[str]:
    """The ``name=value`` lines of the note, in either language (one line each; the pages'
    scripts and the share box's link are not)."""
    if not any(NOTE[lang] in w.value for w in at.warning for lang in NOTE):
        return []
    return [
        c.value
        for c in at.code
        if "=" in c.value and "\n" not in c.value and not c.value.startswith(("/", "http"))
    ]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_name_with_the_pages_prefix_that_no_view_has_is_unknown(lang: str) -> None:
    at = open_link("pages/hvp.py", {"hvp.zzz": "1", "hvp.net.stepz": "3", "why.tab": "hf"}, lang)
    assert sorted(notes(at)) == ["hvp.net.stepz=3", "hvp.zzz=1", "why.tab=hf"]
    assert query(at) == {} and _noted(at, lang)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_bad_setting_of_a_form_not_drawn_is_refused_at_once(lang: str) -> None:
    """The HVP page opens in typed mode; the network form's fields judge their values."""
    link = {
        "hvp.net.steps": "abc",
        "hvp.net.seed": ["1", "2"],
        "hvp.net.top_k": "2",
        "hvp.net.probes": ["20", "40"],
    }
    at = open_link("pages/hvp.py", link, lang)
    assert sorted(notes(at)) == ["hvp.net.probes=20 40", "hvp.net.seed=2", "hvp.net.steps=abc"]
    assert _noted(at, lang)  # a slider takes one value; a number input the last one
    assert query(at) == {"hvp.net.top_k": "2", "hvp.net.seed": ["1", "2"]}  # wait for the view
    at.radio(key=f"hvp.mode.{lang}").set_value("network").run()
    assert at.session_state["hvp.net.top_k"] == 2 and at.session_state["hvp.net.run"][3:5] == (2, 2)
    assert query(at) == {"hvp.mode": "network", "hvp.net.top_k": "2", "hvp.net.seed": "2"}
    assert at.session_state["hvp.net.steps"] == 300  # the refused one: the default


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_bound_setting_of_a_mode_not_drawn_waits_and_is_judged_when_drawn(lang: str) -> None:
    link = {"hvp.net.layers": "99", "hvp.net.width": "8", "hvp.net.tab": "nope"}
    at = open_link("pages/hvp.py", link, lang)
    assert notes(at) == [] and query(at) == link  # untouched until the network mode is drawn
    at.radio(key=f"hvp.mode.{lang}").set_value("network").run()
    assert not at.exception
    assert sorted(notes(at)) == ["hvp.net.layers=99", "hvp.net.tab=nope"]  # the same note
    assert _noted(at, lang)
    assert at.session_state["hvp.net.width"] == 8 and at.session_state["hvp.net.layers"] == 1
    assert query(at) == {"hvp.mode": "network", "hvp.net.width": "8"}
    at.radio(key=f"hvp.mode.{lang}").set_value("typed").run()  # the notes stay on the page
    assert sorted(notes(at)) == ["hvp.net.layers=99", "hvp.net.tab=nope"]


def test_a_closed_tabs_settings_wait_for_the_tab_and_its_forms_are_judged_at_once() -> None:
    link = {
        "why.stability.kappa": "7",
        "why.stability.steps": "300",
        "why.maml.steps": "**bold** <b>x</b>",
        "why.wgan.lam": "50.0",
    }
    at = open_link("pages/why.py", link)  # the Newton tab is open
    assert notes(at) == ["why.maml.steps=**bold** <b>x</b>"]  # shown as code, never markdown
    assert not any("bold" in m.value for m in at.markdown)
    assert query(at) == {k: v for k, v in link.items() if k != "why.maml.steps"}
    at.session_state["why.tab"] = "stability"
    at.run()
    assert notes(at) == ["why.maml.steps=**bold** <b>x</b>", "why.stability.kappa=7"]
    assert at.session_state["why.stability.steps"] == 300


def test_a_link_to_another_view_opens_that_view_later_the_same() -> None:
    """What a typed-mode student keeps in the URL trains the network it names when the
    network mode is opened, as the link opened in network mode would."""
    link = {"hvp.net.layers": "2", "hvp.net.width": "8", "hvp.net.steps": "100"}
    later = open_link("pages/hvp.py", link)
    later.radio(key="hvp.mode.en").set_value("network").run()
    direct = open_link("pages/hvp.py", {"hvp.mode": "network", **link})
    assert later.session_state["hvp.net.run"] == direct.session_state["hvp.net.run"]
    assert query(later) == query(direct)
    assert notes(later) == notes(direct) == []
