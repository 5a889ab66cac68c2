"""The Newton tab's κ slider says only what is true (issue 36, finding 20): it is in use only
while f is the κ quadratic, shows that quadratic's κ, and never replaces another function."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from hograd_labs.newton import presets as nt
from hograd_ui.i18n import tr
from tests.app.test_links import open_link, query
from tests.app.why import open_tab

KAPPAS = "1, 2, 5, 10, 100, 1000"


def slider(at: AppTest) -> object:
    return at.select_slider(key="why.newton.kappa")


def captions(at: AppTest) -> list[str]:
    return [c.value for c in at.caption]


def off(lang: str) -> str:
    return tr("newton.kappa.off", lang, kappas=KAPPAS)


def on(lang: str, kappa: str) -> str:
    return tr("newton.kappa.on", lang, kappa=kappa)


def assert_off(at: AppTest, lang: str) -> None:
    assert slider(at).proto.disabled
    assert off(lang) in captions(at)
    assert not any(c.startswith(on(lang, "")[:12]) for c in captions(at))


def assert_on(at: AppTest, lang: str, kappa: int) -> None:
    assert not slider(at).proto.disabled
    assert slider(at).value == kappa
    assert on(lang, str(kappa)) in captions(at)
    assert off(lang) not in captions(at)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("preset", list(nt.PRESETS))
def test_each_preset_says_whether_kappa_is_in_use(preset: str, lang: str) -> None:
    at = open_tab("newton", lang, unfold=False)
    at.pills(key="why.newton.preset").set_value(preset).run()
    assert at.text_input(key="why.newton.fn").value == preset
    if nt.kappa_of(preset) is None:
        assert_off(at, lang)
    else:
        assert_on(at, lang, int(nt.kappa_of(preset)))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_typed_function_is_never_replaced_by_the_slider(lang: str) -> None:
    at = open_tab("newton", lang, unfold=False)
    at.text_input(key="why.newton.fn").set_value("x^2 + 3*y^2").run()
    assert_off(at, lang)  # disabled: a browser cannot move it (AppTest refuses to)
    assert at.text_input(key="why.newton.fn").value == "x^2 + 3*y^2"


def test_a_typed_quadratic_shows_its_kappa_and_the_slider_moves_it() -> None:
    at = open_tab("newton", unfold=False)
    at.text_input(key="why.newton.fn").set_value("((x + y)**2 + 100*(y - x)**2)/4").run()
    assert_on(at, "en", 100)
    slider(at).set_value(1000).run()
    assert at.text_input(key="why.newton.fn").value == nt.quadratic(1000)
    assert_on(at, "en", 1000)
    at.text_input(key="why.newton.fn").set_value("x^2 + y^2").run()  # leaving the quadratic
    assert_off(at, "en")


def test_a_quadratic_with_a_kappa_the_slider_lacks_leaves_it_off() -> None:
    at = open_tab("newton", unfold=False)
    at.text_input(key="why.newton.fn").set_value(nt.quadratic(3)).run()
    assert_off(at, "en")


def test_the_default_rosenbrock_has_the_slider_off() -> None:
    at = open_tab("newton", unfold=False)
    assert at.text_input(key="why.newton.fn").value == next(iter(nt.PRESETS))
    assert_off(at, "en")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_link_to_a_quadratic_opens_with_its_kappa(lang: str) -> None:
    at = open_link("pages/why.py", {"why.tab": "newton", "why.newton.fn": nt.quadratic(100)}, lang)
    assert_on(at, lang, 100)
    assert query(at)["why.newton.fn"] == nt.quadratic(100)
    slider(at).set_value(5).run()
    assert query(at)["why.newton.fn"] == nt.quadratic(5)
    again = open_link("pages/why.py", query(at), lang)  # the new link gives the same view
    assert_on(again, lang, 5)
    assert again.text_input(key="why.newton.fn").value == nt.quadratic(5)
