"""Every view is a link (issue 18): a view set through the widgets goes into the URL, and the
URL opened in a new session (a fresh AppTest, as a fresh browser would) shows the same view.
Defaults stay out of the URL; a bad value is ignored with a note, never a traceback."""

from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from hograd_core.flaglab.cases import CASES, run_case
from hograd_labs.pinn import compute as pinn
from hograd_ui.i18n import tr
from tests.app.charts import chart_elements, figure_of
from tests.app.conftest import APP, open_page
from tests.apptest import APP_TEST_CEILING
from tests.arrays import plotly_array


def open_link(page: str, query: dict[str, str | list[str]], lang: str = "en") -> AppTest:
    """A fresh session opened on ``page`` with the link's query string, as a new browser."""
    at = AppTest.from_file(APP, default_timeout=APP_TEST_CEILING)
    at.query_params.update({"lang": lang, **query})
    at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def query(at: AppTest) -> dict[str, str | list[str]]:
    """The URL's parameters after the last run, without the language."""
    return {k: v for k, v in at.query_params.items() if k != "lang"}


def notes(at: AppTest) -> list[str]:
    """The ``name=value`` lines of the "part of the link was not used" note."""
    title = "Part of the link you opened was not used"
    if not any(title in w.value for w in at.warning):
        return []
    return [c.value for c in at.code if "=" in c.value and not c.value.startswith(("/", "http"))]


def values(at: AppTest, keys: list[str]) -> dict[str, object]:
    return {k: at.session_state[k] for k in keys}


# ---- what a page puts into its URL, and what the URL gives back --------------------------------

PAGES = ["pages/derivatives.py", "pages/graph.py", "pages/hvp.py", "pages/why.py"]


@pytest.mark.parametrize("page", [*PAGES, "pages/home.py"])
def test_the_default_view_has_only_the_language_in_its_url(page: str) -> None:
    at = open_page(page)
    assert query(at) == {}


#: Per view: the link's parameters, and the value each widget must hold when it is opened.
LINKS: dict[str, tuple[str, dict[str, tuple[str | list[str], object]]]] = {
    "derivatives": (
        "pages/derivatives.py",
        {
            "deriv.fn": ("tanh(x)", "tanh(x)"),
            "deriv.order": ("6", 6),
            "deriv.range": (["-2", "2.5"], (-2.0, 2.5)),
            "deriv.points": ("200", 200),
            "deriv.separate": ("true", True),
            "deriv.method": ("taylor", "taylor"),
            "deriv.x0": ("0.3", 0.3),
            "deriv.tab": ("symbolic", "symbolic"),
        },
    ),
    "graph": (
        "pages/graph.py",
        {
            "graph.fn": ("sin(x)", "sin(x)"),
            "graph.x0": ("1.5", 1.5),
            "graph.order": ("3", 3),
            "graph.saved": ("true", True),
            "graph.highlight": ("false", False),
            "graph.direction": ("LR", "LR"),
            "graph.case": ("inplace", "inplace"),
            "graph.variant.inplace": ("out_of_place", "out_of_place"),
            "graph.flag.create_graph": ("true", True),
            "graph.flag.retain_graph": ("True", "True"),
            "graph.flag.unused": ("true", True),
            "graph.flag.allow_unused": ("true", True),
            "graph.flag.materialize": ("true", True),
            "graph.flag.action": ("again", "again"),
            "graph.tv.attrs": ("true", True),
        },
    ),
    "hvp": (
        "pages/hvp.py",
        {
            "hvp.fn": ("x**2 + 3*y**2", "x**2 + 3*y**2"),
            "hvp.p.x": ("1.5", 1.5),
            "hvp.v.y": ("-0.5", -0.5),
            "hvp.radius": ("2", 2.0),
            "hvp.kappa": ("100", 100),
            "hvp.tab": ("hessian", "hessian"),
        },
    ),
    "hvp-network": (
        "pages/hvp.py",
        {
            "hvp.mode": ("network", "network"),
            "hvp.net.layers": ("2", 2),
            "hvp.net.width": ("8", 8),
            "hvp.net.steps": ("100", 100),
            "hvp.net.top_k": ("2", 2),
            "hvp.net.seed": ("3", 3),
            "hvp.net.tab": ("trace", "trace"),
        },
    ),
    "why": (
        "pages/why.py",
        {
            "why.tab": ("stability", "stability"),
            "why.stability.kappa": ("100", 100),
            "why.stability.lr": ("0.015", 0.015),
            "why.stability.steps": ("300", 300),
        },
    ),
    "why-stats": (
        "pages/why.py",
        {
            "why.tab": ("stats", "stats"),
            "why.stats.depth": ("3", 3),
            "why.stats.activation": ("relu", "relu"),
            "why.stats.steps": ("20", 20),
        },
    ),
    "why-pinn": (
        "pages/why.py",
        {"why.tab": ("pinn", "pinn"), "why.pinn.equation": ("wave", "wave")},
    ),
}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("case", list(LINKS))
def test_a_link_opens_its_view_and_writes_the_same_link(case: str, lang: str) -> None:
    page, link = LINKS[case]
    at = open_link(page, {k: url for k, (url, _) in link.items()}, lang)
    assert values(at, list(link)) == {k: value for k, (_, value) in link.items()}
    assert notes(at) == []
    again = open_link(page, query(at), lang)  # the link the view wrote, opened once more
    assert values(again, list(link)) == values(at, list(link))
    assert query(again) == query(at)
    shared = [c.value for c in again.code if c.value.startswith("/")]
    assert shared and all(f"{k}=" in shared[-1] for k in link)  # the share box has it all


def test_a_value_equal_to_its_default_leaves_the_url() -> None:
    at = open_link(
        "pages/derivatives.py",
        {"deriv.order": "4", "deriv.tab": "inspector", "deriv.fn": "x**3", "order": "1"},
    )
    assert query(at) == {}  # Streamlit drops a bound default, url_choice its own
    assert notes(at) == ["order=1"]  # not a setting of any page: noted, and dropped
    at.session_state["deriv.tab"] = "code"
    at.run()
    assert query(at) == {"deriv.tab": "code"}
    at.session_state["deriv.tab"] = "inspector"
    at.run()
    assert query(at) == {}


def test_a_choice_is_named_the_same_in_both_languages() -> None:
    """?deriv.method=taylor, not the translated label: a link works in either language."""
    at = open_link("pages/derivatives.py", {"deriv.method": "taylor"}, "zh")
    assert at.session_state["deriv.method"] == "taylor"
    assert at.radio(key="deriv.method.zh").value == "taylor"


# ---- bad links ----------------------------------------------------------------------------------

BAD = [
    ({"deriv.order": "99"}, "deriv.order=99", ("deriv.order", 4)),
    ({"deriv.order": "four"}, "deriv.order=four", ("deriv.order", 4)),
    ({"deriv.order": "nan"}, "deriv.order=nan", ("deriv.order", 4)),
    ({"deriv.range": "-2"}, "deriv.range=-2", ("deriv.range", (-3.0, 3.0))),
    ({"deriv.points": "7"}, "deriv.points=7", ("deriv.points", 1000)),
    ({"deriv.method": "magic"}, "deriv.method=magic", ("deriv.method", "autograd")),
    ({"deriv.tab": "<b>x</b>"}, "deriv.tab=<b>x</b>", ("deriv.tab", "inspector")),
    ({"deriv.separate": "maybe"}, "deriv.separate=maybe", ("deriv.separate", False)),
    ({"nonsense": "1"}, "nonsense=1", None),
    ({"lang": "fr"}, "lang=fr", ("lang", "en")),
]


@pytest.mark.parametrize(("params", "shown", "kept"), BAD)
def test_a_bad_value_is_ignored_with_a_note(params: dict, shown: str, kept: tuple | None) -> None:
    at = open_link("pages/derivatives.py", params)
    assert shown in notes(at)
    if kept is not None:
        assert at.session_state[kept[0]] == kept[1]
    assert chart_elements(at), "the page still draws its chart"


def test_a_repeated_value_is_refused_by_a_slider_and_the_last_text_counts() -> None:
    at = open_link("pages/derivatives.py", {"deriv.order": ["3", "5"], "deriv.fn": ["x", "sin(x)"]})
    assert at.session_state["deriv.order"] == 4  # a slider wants one value: its default
    assert at.session_state["deriv.fn"] == "sin(x)"
    assert notes(at) == ["deriv.order=3 5", "deriv.fn=sin(x)"]
    assert any("more than once" in c.value for c in at.caption)


def test_a_reversed_range_gets_the_same_message_as_set_by_hand() -> None:
    at = open_link("pages/derivatives.py", {"deriv.range": ["2", "-2"]})
    typed = open_page("pages/derivatives.py")
    typed.slider(key="deriv.range").set_value((2.0, -2.0)).run()
    assert at.error and [e.value for e in at.error] == [e.value for e in typed.error]


def test_a_function_that_fails_to_parse_gets_the_typed_message() -> None:
    typed = open_page("pages/derivatives.py")
    typed.text_input(key="deriv.fn").set_value("sin(x").run()
    linked = open_link("pages/derivatives.py", {"deriv.fn": "sin(x"})
    assert [e.value for e in linked.error] == [e.value for e in typed.error]
    assert linked.error, "the parser's message is shown"


def test_ten_kilobytes_of_text_are_refused_by_the_parser_limit() -> None:
    at = open_link("pages/graph.py", {"graph.fn": "x+" * 5000})
    assert any("200" in e.value for e in at.error)  # the parser names its 200-character limit


def test_notes_are_shown_in_chinese() -> None:
    at = open_link("pages/graph.py", {"graph.order": "-3", "zzz": "1"}, "zh")
    assert any("链接" in w.value for w in at.warning)
    assert "graph.order=-3" in notes_zh(at)


def notes_zh(at: AppTest) -> list[str]:
    return [c.value for c in at.code if "=" in c.value and not c.value.startswith(("/", "http"))]


def test_presentation_mode_from_the_link_and_the_toggle() -> None:
    at = open_link("pages/derivatives.py", {"present": "1"})
    assert at.toggle(key="links.present").value is True
    assert at.query_params["present"] == "1"
    assert any("font-size: 26px" in h.proto.body for h in at.get("html"))
    at.toggle(key="links.present").set_value(False).run()
    assert "present" not in at.query_params
    assert not any("font-size: 26px" in h.proto.body for h in at.get("html"))


def test_the_share_box_holds_the_link_of_the_view() -> None:
    at = open_link("pages/graph.py", {"graph.order": "5", "graph.fn": "tanh(x)"})
    at.button(key="graph.next").click().run()  # its callback sets the order
    shared = [c.value for c in at.code if c.value.startswith("/graph")]
    assert shared == ["/graph?lang=en&graph.order=6&graph.fn=tanh%28x%29"]


# ---- a choice with translated labels is named in the link, in any language -----------------------

#: (page, parameter, option, the option's locale key, the widget's kind, what the view shows)
NAMED = [
    (
        "pages/graph.py",
        "graph.direction",
        "LR",
        "graph.direction.LR",
        "segmented_control",
        lambda at: "rankdir=LR" in at.get("graphviz_chart")[0].proto.spec,
    ),
    (
        "pages/graph.py",
        "graph.case",
        "inplace",
        "graph.case.inplace",
        "selectbox",
        lambda at: run_case("inplace").transcript() in [c.value for c in at.code],
    ),
    (
        "pages/graph.py",
        "graph.variant.inplace",
        "out_of_place",
        "graph.case.inplace.out_of_place",
        "segmented_control",
        lambda at: run_case("inplace", "out_of_place").transcript() in [c.value for c in at.code],
    ),
    (
        "pages/why.py",
        "why.pinn.equation",
        "wave",
        "pinn.equation.wave",
        "radio",
        lambda at: _wave_drawn(at),
    ),
]


def _wave_drawn(at: AppTest) -> bool:
    """The PINN tab trained the wave preset: its steps, and the last exact slice drawn is
    sin(πx) cos(cπt) (the heat equation's would be e^(-απ²t) sin(πx), never negative)."""
    wave = pinn.preset("wave")
    exact = figure_of(chart_elements(at)[1])["data"][-1]
    t, x, u = (
        float(exact["name"].rsplit("=", 1)[1]),
        plotly_array(exact["x"]),
        plotly_array(exact["y"]),
    )
    expected = np.sin(np.pi * x) * np.cos(wave.coefficient * np.pi * t)
    return at.slider(key="why.pinn.steps").value == wave.steps and np.allclose(u, expected)


def _open_named(page: str, key: str, value: str, lang: str) -> AppTest:
    query = {
        key: value,
        **({"why.tab": "pinn"} if key.startswith("why.") else {}),
        **({"graph.case": "inplace"} if key.startswith("graph.variant.") else {}),
    }
    return open_link(page, query, lang)


def _names(at: AppTest, lang: str) -> list[str]:
    """The ``name=value`` lines of the "part of the link was not used" note, in ``lang``."""
    if not any(tr("links.ignored.title", lang) in w.value for w in at.warning):
        return []
    return [c.value for c in at.code if "=" in c.value and not c.value.startswith(("/", "http"))]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(("page", "key", "option", "label", "kind", "shows"), NAMED)
def test_a_choice_with_translated_labels_is_its_name_in_the_link(
    page: str, key: str, option: str, label: str, kind: str, shows: object, lang: str
) -> None:
    at = _open_named(page, key, option, lang)
    assert getattr(at, kind)(key=f"{key}.{lang}").value == option
    assert shows(at), "the view of the option is drawn"
    assert _names(at, lang) == [] and query(at)[key] == option
    at.radio(key="lang").set_value("en" if lang == "zh" else "zh")  # the other language keeps it
    at.run()
    assert query(at)[key] == option and shows(at)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("label_lang", ["en", "zh"])
@pytest.mark.parametrize(("page", "key", "option", "label", "kind", "shows"), NAMED)
def test_a_link_with_the_label_an_older_link_held_still_opens_its_choice(
    page: str,
    key: str,
    option: str,
    label: str,
    kind: str,
    shows: object,
    lang: str,
    label_lang: str,
) -> None:
    """Links made while these choices were bound with their labels (``?graph.direction=从左到右``)
    open the same choice in either language, without a note, and now say its name."""
    at = _open_named(page, key, tr(label, label_lang), lang)
    assert getattr(at, kind)(key=f"{key}.{lang}").value == option
    assert shows(at)
    assert _names(at, lang) == []
    assert query(at)[key] == option


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(
    ("page", "key", "bad", "default"),
    [
        ("pages/graph.py", "graph.direction", "DOWN", "TB"),
        ("pages/graph.py", "graph.direction", "TB ", "TB"),
        ("pages/graph.py", "graph.case", "../../etc/passwd", next(iter(CASES))),
        ("pages/graph.py", "graph.variant.inplace", "nope", "inplace"),
        ("pages/why.py", "why.pinn.equation", "burgers", "heat"),
        ("pages/why.py", "why.pinn.equation", "Wave", "heat"),
    ],
)
def test_a_choice_that_is_no_option_is_ignored_with_a_note(
    page: str, key: str, bad: str, default: str, lang: str
) -> None:
    at = _open_named(page, key, bad, lang)
    assert f"{key}={bad}" in _names(at, lang)
    assert tr("links.ignored.invalid", lang).strip() in [c.value.strip() for c in at.caption]
    assert at.session_state[key] == default and key not in query(at)


def _why_forms() -> dict[str, tuple[str, str]]:
    """Each Why tab's form fields by tab: (a field's name, its default as the URL writes it)."""
    from hograd_ui.parts.link_form import FIELDS
    from pages import SITE

    forms = {}
    for lab in SITE.pages["why"]:
        if not lab.package.startswith("hograd_labs."):  # the page's own declaration: no form
            continue
        for view in lab.views:
            lab.view(view)  # the tab's module: its form registers its fields
        names = [n for n in FIELDS if lab.prefixes and n.startswith(lab.prefixes)]
        if names:
            forms[lab.package] = (names[0], FIELDS[names[0]].text(FIELDS[names[0]].default))
    return forms


@pytest.mark.parametrize("package", sorted(_why_forms()))
def test_a_form_setting_of_a_tab_not_opened_yet_in_this_process_is_kept(
    package: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A link opened on the first tab may carry another tab's form setting (the student ran
    MAML, then went back to Newton, and shared). On a fresh server that tab's module has not
    been imported, so its form has not registered its fields: the setting was called unknown
    ("This page has no setting with this name", untrue) and taken out of the link. Found by
    the share-during-training browser test, en, on a fresh server. Here the tab's module and
    its fields are taken out of this process first, as on a fresh server."""
    import sys

    from hograd_ui.parts.link_form import FIELDS
    from pages import SITE

    name, value = _why_forms()[package]
    before = dict(sys.modules)
    tab = [m for m in before if m.startswith(f"{package}.")]
    for module in tab:
        monkeypatch.delitem(sys.modules, module)
        # the import below binds the new module on its package too: put the old one back
        # after the test, or the process is left half old, half new (a later test patching
        # hograd_labs.maml.compute would patch a module the page no longer calls)
        parent, _, child = module.rpartition(".")
        if hasattr(before[parent], child):
            monkeypatch.setattr(before[parent], child, getattr(before[parent], child))
    prefixes = next(lab.prefixes for lab in SITE.pages["why"] if lab.package == package)
    for field in [n for n in FIELDS if n.startswith(prefixes)]:
        monkeypatch.delitem(FIELDS, field)
    try:
        at = open_link("pages/why.py", {name: value})
    finally:  # modules this test imported for the first time go too
        for module in [m for m in sys.modules if m.startswith(f"{package}.")]:
            if module not in tab:
                del sys.modules[module]
    assert notes(at) == []
    assert name in query(at)
