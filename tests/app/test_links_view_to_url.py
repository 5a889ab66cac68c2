"""View → URL on every page (issue 18): widgets set through AppTest, and the URL afterwards
holds exactly the values that differ from the defaults, in both languages.

What AppTest can and cannot see. A bound widget (``bind="query-params"``) is written into the
address bar by the browser, not by the server: Streamlit sends the widget with
``query_param_key`` (streamlit/elements/widgets/slider.py, checkbox.py, ...) and its
``default``, and the frontend writes the value it holds under that key, leaving it out while it
equals the default; the server's copy of the query string learns it only from the browser's
next request (streamlit/runtime/state/session_state.py, "The backend's _query_params is not
refreshed on same-page reruns"). AppTest has no frontend, so its ``at.query_params`` shows only
what the server wrote: ``st.query_params`` (the choices with translated labels, the forms, the
language). :func:`browser_url` adds what the browser would write for each bound widget, from
the same proto fields the frontend reads, formatted by Streamlit's own
``_coerce_value_for_query_url``. So these tests fail when a widget that holds the view is not
bound, is bound under another name, has a default that is not the one the page means, or when
a value the server writes is wrong or stale; the browser's own writing is checked in
tests/e2e/test_links_browser.py.
"""

from __future__ import annotations

import math

import pytest
from streamlit.runtime.state.query_params import _coerce_value_for_query_url
from streamlit.testing.v1 import AppTest

from hograd_core.flaglab.cases import CASES
from hograd_ui.parts.links import GLOBAL, known
from pages import SITE
from tests.app.test_link_form import _submit
from tests.app.test_links import open_link

WIDGETS = (
    "slider",
    "select_slider",
    "toggle",
    "checkbox",
    "radio",
    "text_input",
    "number_input",
    "button_group",
    "selectbox",
)


def _default(proto: object, which: str) -> object:
    """A bound widget's default in the form of its widget state (what the frontend compares)."""
    options = [getattr(o, "content", o) for o in getattr(proto, "options", [])]
    default = proto.default
    if which == "string_array_value":  # select slider, segmented control: option indices
        return [options[int(i)] for i in default]
    if which == "string_value" and options:  # radio, selectbox: an index
        return options[int(default)]
    if which == "double_array_value":
        return list(default)
    return default


def browser_url(at: AppTest) -> dict[str, str | list[str]]:
    """The URL the browser would show after the last run, without the language."""
    bound = {}
    for kind in WIDGETS:
        for widget in getattr(at, kind):
            proto = widget.proto
            if "query_param_key" not in proto.DESCRIPTOR.fields_by_name:
                continue
            if not proto.HasField("query_param_key"):
                continue
            state = widget._widget_state
            which = state.WhichOneof("value")
            value = getattr(state, which)
            value = list(value.data) if hasattr(value, "data") else value
            if value != _default(proto, which):
                bound[proto.query_param_key] = _coerce_value_for_query_url(value, which)
            else:
                bound[proto.query_param_key] = None
    url = {k: v for k, v in at.query_params.items() if k != "lang" and k not in bound}
    return {**url, **{k: v for k, v in bound.items() if v is not None}}


def _same(a: object, b: object) -> bool:
    if isinstance(a, list) or isinstance(b, list):
        a, b = (a if isinstance(a, list) else [a]), (b if isinstance(b, list) else [b])
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    try:
        return math.isclose(float(a), float(b), rel_tol=1e-9)
    except ValueError:
        return a == b


def check_url(at: AppTest, page: str, expected: dict[str, object]) -> None:
    url = browser_url(at)
    assert set(url) == set(expected), url
    assert all(_same(url[k], expected[k]) for k in expected), url
    unknown = [
        k for k in url if not (known(SITE, page, k) or k in GLOBAL or k in SITE.params(page))
    ]
    assert not unknown, unknown  # every name a page writes is one the link check knows


def edit(at: AppTest, kind: str, key: str, value: object) -> None:
    if kind == "state":
        at.session_state[key] = value
    else:
        getattr(at, kind)(key=key).set_value(value)
    at.run()
    assert not at.exception, [e.value for e in at.exception]


LANGS = ["en", "zh"]


@pytest.mark.parametrize("lang", LANGS)
def test_derivatives(lang: str) -> None:
    at = open_link("pages/derivatives.py", {}, lang)
    check_url(at, "derivatives", {})
    edits = [
        ("text_input", "deriv.fn", "tanh(x)"),
        ("radio", f"deriv.method.{lang}", "taylor"),
        ("toggle", "deriv.separate", True),
        ("slider", "deriv.order", 6),
        ("slider", "deriv.range", (-2.0, 2.5)),
        ("select_slider", "deriv.points", 200),
        ("slider", "deriv.x0", 0.3),
        ("state", "deriv.tab", "symbolic"),
    ]
    for e in edits:
        edit(at, *e)
    check_url(
        at,
        "derivatives",
        {
            "deriv.fn": "tanh(x)",
            "deriv.method": "taylor",
            "deriv.separate": "true",
            "deriv.order": "6",
            "deriv.range": ["-2", "2.5"],
            "deriv.points": "200",
            "deriv.x0": "0.3",
            "deriv.tab": "symbolic",
        },
    )
    for e in [
        ("slider", "deriv.order", 4),
        ("radio", f"deriv.method.{lang}", "autograd"),
        ("state", "deriv.tab", "inspector"),
    ]:
        edit(at, *e)  # back to the defaults: out of the URL
    check_url(
        at,
        "derivatives",
        {
            "deriv.fn": "tanh(x)",
            "deriv.separate": "true",
            "deriv.range": ["-2", "2.5"],
            "deriv.points": "200",
            "deriv.x0": "0.3",
        },
    )


@pytest.mark.parametrize("lang", LANGS)
def test_graph(lang: str) -> None:
    at = open_link("pages/graph.py", {}, lang)
    check_url(at, "graph", {})
    edits = [
        ("text_input", "graph.fn", "sin(x)"),
        ("number_input", "graph.x0", 1.5),
        ("slider", "graph.order", 3),
        ("toggle", "graph.saved", True),
        ("toggle", "graph.highlight", False),
        ("button_group", f"graph.direction.{lang}", "LR"),
        ("toggle", "graph.flag.create_graph", True),
        ("button_group", "graph.flag.retain_graph", "True"),
        ("toggle", "graph.flag.unused", True),
        ("radio", f"graph.flag.action.{lang}", "again"),
    ]
    for e in edits:
        edit(at, *e)
    case = list(CASES)[1]
    variant = list(CASES[case].variants)[1]
    for e in [
        ("state", "graph.tv.open", True),  # torchviz's view draws only while unfolded
        ("toggle", "graph.tv.attrs", True),
        ("selectbox", f"graph.case.{lang}", case),
        ("button_group", f"graph.variant.{case}.{lang}", variant),
    ]:
        edit(at, *e)
    check_url(
        at,
        "graph",
        {
            "graph.fn": "sin(x)",
            "graph.x0": "1.5",
            "graph.order": "3",
            "graph.saved": "true",
            "graph.highlight": "false",
            "graph.direction": "LR",
            "graph.flag.create_graph": "true",
            "graph.flag.retain_graph": "True",
            "graph.flag.unused": "true",
            "graph.flag.action": "again",
            "graph.tv.attrs": "true",
            "graph.case": case,
            f"graph.variant.{case}": variant,
        },
    )  # by name, in any language
    other = list(CASES)[2]  # another case: the first one's variant leaves the link
    edit(at, "selectbox", f"graph.case.{lang}", other)
    assert browser_url(at)["graph.case"] == other and f"graph.variant.{case}" not in at.query_params
    edit(at, "selectbox", f"graph.case.{lang}", case)  # and comes back with its case
    assert at.query_params[f"graph.variant.{case}"] == variant


@pytest.mark.parametrize("lang", LANGS)
def test_graph_of_several_variables(lang: str) -> None:
    at = open_link("pages/graph.py", {"graph.fn": "x*y"}, lang)
    for e in [("text_input", "graphvars.point", "1, 2"), ("toggle", "graphvars.record", True)]:
        edit(at, *e)
    check_url(
        at, "graph", {"graph.fn": "x*y", "graphvars.point": "1, 2", "graphvars.record": "true"}
    )


@pytest.mark.parametrize("lang", LANGS)
def test_hvp_typed(lang: str) -> None:
    at = open_link("pages/hvp.py", {}, lang)
    check_url(at, "hvp", {})
    edits = [
        ("text_input", "hvp.fn", "x**2 + 3*y**2"),
        ("toggle", "hvp.surface", True),
        ("slider", "hvp.p.x", 1.5),
        ("slider", "hvp.v.y", -0.5),
        ("slider", "hvp.radius", 2.0),
        ("select_slider", "hvp.kappa", 100),
        ("state", "hvp.tab", "hessian"),
    ]
    for e in edits:
        edit(at, *e)
    check_url(
        at,
        "hvp",
        {
            "hvp.fn": "x**2 + 3*y**2",
            "hvp.p.x": "1.5",
            "hvp.v.y": "-0.5",
            "hvp.radius": "2",
            "hvp.kappa": "100",
            "hvp.tab": "hessian",
        },
    )
    # hvp.surface is in the picture tab, closed now: Streamlit drops a hidden widget's value


@pytest.mark.parametrize("lang", LANGS)
def test_hvp_network(lang: str) -> None:
    at = open_link("pages/hvp.py", {}, lang)
    for e in [
        ("radio", f"hvp.mode.{lang}", "network"),
        ("radio", f"hvp.net.dataset.{lang}", "moons"),
        ("slider", "hvp.net.layers", 2),
        ("select_slider", "hvp.net.width", 8),
    ]:
        edit(at, *e)
    _submit(at, "hvp.net", ("slider", "hvp.net.steps", 100), ("slider", "hvp.net.top_k", 2))
    edit(at, "state", "hvp.net.tab", "trace")
    check_url(
        at,
        "hvp",
        {
            "hvp.mode": "network",
            "hvp.net.dataset": "moons",
            "hvp.net.layers": "2",
            "hvp.net.width": "8",
            "hvp.net.steps": "100",
            "hvp.net.top_k": "2",
            "hvp.net.tab": "trace",
        },
    )


def _why(lang: str, tab: str) -> AppTest:
    at = open_link("pages/why.py", {"why.tab": tab} if tab != "newton" else {}, lang)
    check_url(at, "why", {"why.tab": tab} if tab != "newton" else {})
    return at


@pytest.mark.parametrize("lang", LANGS)
def test_why_newton(lang: str) -> None:
    at = _why(lang, "newton")
    for e in [
        ("number_input", "why.newton.x0", 0.5),
        ("number_input", "why.newton.lr", 0.002),
        ("slider", "why.newton.steps", 50),
        ("checkbox", "why.newton.gd", False),
        ("select_slider", "why.newton.damping", 10.0),
        ("select_slider", "why.newton.radius", 2.0),
    ]:
        edit(at, *e)
    check_url(
        at,
        "why",
        {
            "why.newton.x0": "0.5",
            "why.newton.lr": "0.002",
            "why.newton.steps": "50",
            "why.newton.gd": "false",
            "why.newton.damping": "10.0",
            "why.newton.radius": "2.0",
        },
    )


@pytest.mark.parametrize("lang", LANGS)
def test_why_hessian_free(lang: str) -> None:
    at = _why(lang, "hf")
    _submit(
        at,
        "why.hf",
        ("radio", f"why.hf.data.{lang}", "digits"),
        ("slider", "why.hf.steps", 3),
        ("slider", "why.hf.cg", 5),
        ("number_input", "why.hf.seed", 7),
    )
    edit(at, "radio", f"why.hf.axis.{lang}", "seconds")
    check_url(
        at,
        "why",
        {
            "why.tab": "hf",
            "why.hf.data": "digits",
            "why.hf.steps": "3",
            "why.hf.cg": "5",
            "why.hf.seed": "7",
            "why.hf.axis": "seconds",
        },
    )


@pytest.mark.parametrize("lang", LANGS)
def test_why_stability(lang: str) -> None:
    at = _why(lang, "stability")
    for e in [
        ("select_slider", "why.stability.kappa", 100),
        ("slider", "why.stability.lr", 0.015),
        ("slider", "why.stability.steps", 300),
    ]:
        edit(at, *e)
    check_url(
        at,
        "why",
        {
            "why.tab": "stability",
            "why.stability.kappa": "100",
            "why.stability.lr": "0.015",
            "why.stability.steps": "300",
        },
    )
    edit(at, "radio", f"why.stability.part.{lang}", "network")
    _submit(
        at,
        "why.stability",
        ("slider", "why.stability.net_steps", 50),
        ("select_slider", "why.stability.every", 10),
    )
    check_url(
        at,
        "why",
        {
            "why.tab": "stability",
            "why.stability.part": "network",
            "why.stability.net_steps": "50",
            "why.stability.every": "10",
        },
    )


@pytest.mark.parametrize("lang", LANGS)
def test_why_stats(lang: str) -> None:
    at = _why(lang, "stats")
    _submit(
        at,
        "why.stats",
        ("radio", f"why.stats.dtype.{lang}", "float32"),
        ("slider", "why.stats.depth", 3),
        ("slider", "why.stats.steps", 20),
        ("select_slider", "why.stats.clip", 1.0),
        ("checkbox", "why.stats.naive_loss", True),
    )
    check_url(
        at,
        "why",
        {
            "why.tab": "stats",
            "why.stats.dtype": "float32",
            "why.stats.depth": "3",
            "why.stats.steps": "20",
            "why.stats.clip": "1.0",
            "why.stats.naive_loss": "true",
        },
    )


@pytest.mark.parametrize("lang", LANGS)
def test_why_maml(lang: str) -> None:
    at = _why(lang, "maml")
    _submit(
        at,
        "why.maml",
        ("slider", "why.maml.steps", 50),
        ("slider", "why.maml.tasks", 2),
        ("radio", "why.maml.activation", "tanh"),
    )
    for e in [
        ("slider", "why.maml.amp", 1.0),
        ("slider", "why.maml.phase", 0.5),
        ("slider", "why.maml.adapt", 3),
    ]:
        edit(at, *e)
    check_url(
        at,
        "why",
        {
            "why.tab": "maml",
            "why.maml.steps": "50",
            "why.maml.tasks": "2",
            "why.maml.activation": "tanh",
            "why.maml.amp": "1",
            "why.maml.phase": "0.5",
            "why.maml.adapt": "3",
        },
    )


@pytest.mark.parametrize("lang", LANGS)
def test_why_pinn(lang: str) -> None:
    at = _why(lang, "pinn")
    edit(at, "radio", f"why.pinn.equation.{lang}", "wave")
    check_url(at, "why", {"why.tab": "pinn", "why.pinn.equation": "wave"})  # its name
    _submit(
        at,
        "why.pinn",
        ("slider", "why.pinn.steps", 50),
        ("select_slider", "why.pinn.width", 8),
        ("toggle", "why.pinn.create_graph", False),
    )
    check_url(
        at,
        "why",
        {
            "why.tab": "pinn",
            "why.pinn.equation": "wave",
            "why.pinn.steps": "50",
            "why.pinn.width": "8",
            "why.pinn.create_graph": "false",
        },
    )
    edit(at, "radio", f"why.pinn.equation.{lang}", "heat")  # the default: out of the link
    assert "why.pinn.equation" not in browser_url(at)


@pytest.mark.parametrize("lang", LANGS)
def test_why_wgan(lang: str) -> None:
    at = _why(lang, "wgan")
    _submit(
        at,
        "why.wgan",
        ("radio", f"why.wgan.data.{lang}", "ring"),
        ("slider", "why.wgan.steps", 20),
        ("select_slider", "why.wgan.hidden", 16),
    )
    edit(at, "radio", "why.wgan.graph", "False")
    check_url(
        at,
        "why",
        {
            "why.tab": "wgan",
            "why.wgan.data": "ring",
            "why.wgan.steps": "20",
            "why.wgan.hidden": "16",
            "why.wgan.graph": "create_graph=False",
        },
    )  # its label, bound as is


@pytest.mark.parametrize("lang", LANGS)
def test_lesson(lang: str) -> None:
    at = open_link("pages/lesson.py", {"step": "4"}, lang)
    edit(at, "button_group", "lesson.growth.fn", "sin(x)")
    check_url(at, "lesson", {"step": "4", "lesson.growth.fn": "sin(x)"})


def test_home_has_nothing_to_put_in_its_url() -> None:
    at = open_link("pages/home.py", {})
    check_url(at, "", {})
