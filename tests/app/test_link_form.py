"""A form's settings in the link (issue 18, hograd_ui/parts/link_form.py): read from a link by the rules
Streamlit applies to a bound widget (checked against Streamlit itself), written into the URL
only when the form is submitted, and a link with them opens the view computed with them."""

from __future__ import annotations

from dataclasses import astuple

import pytest
from streamlit.testing.v1 import AppTest

import hograd_serving.cached as cached
from hograd_labs.hf import cached as hf_cached
from hograd_labs.hf import page as hf_page
from hograd_labs.hvp import cached as hvp_cached
from hograd_labs.hvp import page as hvp_page
from hograd_labs.maml import cached as maml_cached
from hograd_labs.maml import page as maml_page
from hograd_labs.pinn import cached as pinn_cached
from hograd_labs.pinn import page as pinn_page
from hograd_labs.stability import cached as stability_cached
from hograd_labs.stability import page as stability_page
from hograd_labs.stats import cached as stats_cached
from hograd_labs.stats import page as stats_page
from hograd_labs.wgan import cached as wgan_cached
from hograd_labs.wgan import page as wgan_page
from hograd_ui.i18n import tr
from hograd_ui.parts.link_form import REFUSED, Field
from tests.app.test_links import notes, open_link, query
from tests.apptest import APP_TEST_CEILING

# ---- Field.read judges a link's value as Streamlit judges it for a bound widget ----------------

KINDS = {
    "int slider": Field("slider", 300, 50, 1000, 50),
    "float slider": Field("slider", 1.0, 0.5, 3.0, 0.1),
    "float select": Field("select", 0.5, options=(0.05, 0.1, 0.5, 1.0, 16.0)),
    "int select": Field("select", 16, options=(4, 8, 16, 32)),
    "number": Field("number", 0, 0, 999),
    "radio": Field("radio", "relu", options=("relu", "tanh")),
    "toggle": Field("toggle", True),
    "checkbox": Field("checkbox", False),
}
RAW: list[str | list[str]] = [
    "",
    "abc",
    "nan",
    "-inf",
    "1e2",
    "2.5",
    "-5",
    "99999",
    "100",
    "0",
    "0.5",
    "1.0",
    "1",
    "16",
    "16.0",
    "8",
    "tanh",
    "TANH",
    "relu",
    "True",
    "false",
    "FALSE",
    "maybe",
    "<b>x</b>",
    "x" * 10_000,
    ["3", "5"],
    ["100", "200"],
    ["tanh", "relu"],
    ["", "7"],
    ["true", "false"],
    ["8", "8"],
    " 100 ",
    "1_000",
]


def _bound_widget(field) -> None:  # the script AppTest runs: no annotations
    import streamlit as st

    field.draw(st, "w", "w", bind="query-params")


@pytest.mark.parametrize("kind", list(KINDS))
def test_a_link_value_is_read_as_a_bound_widget_reads_it(kind: str) -> None:
    """Oracle: the same widget drawn bound (Streamlit's own checks) for every hostile value."""
    field = KINDS[kind]
    for raw in RAW:
        at = AppTest.from_function(_bound_widget, args=(field,), default_timeout=APP_TEST_CEILING)
        at.query_params["w"] = raw
        at.run()
        mine = field.read(raw if isinstance(raw, list) else [raw])
        if field.kind == "number" and raw == "-inf":  # Streamlit's own int(-inf) fails there
            assert at.exception and mine is REFUSED
            continue
        assert not at.exception, (kind, raw, [e.value for e in at.exception])
        expected = field.default if mine is REFUSED else mine
        assert at.session_state["w"] == expected, (kind, raw)
        assert type(at.session_state["w"]) is type(expected), (kind, raw)
        kept = mine is not REFUSED and mine != field.default
        assert ("w" in at.query_params) == kept, (kind, raw)


def test_a_whole_number_that_is_not_finite_is_refused() -> None:
    """Streamlit 1.67's bound integer number_input fails on ?seed=inf (``int(inf)`` raises
    OverflowError, which its URL checks do not catch); the form's field refuses it, as nan."""
    field = KINDS["number"]
    assert all(field.read([v]) is REFUSED for v in ("inf", "-inf", "1e400", "nan"))


@pytest.mark.parametrize("kind", list(KINDS))
def test_every_value_a_widget_can_hold_goes_into_the_url_and_back(kind: str) -> None:
    field = KINDS[kind]
    if field.kind in ("select", "radio"):
        values = list(field.options)
    elif field.kind in ("toggle", "checkbox"):
        values = [True, False]
    elif isinstance(field.default, int):
        values = [int(field.low), field.default, int(field.high), 73]
    else:
        values = [field.low, 1.7, field.high, 2.0]
    for value in values:
        back = field.read([field.text(value)])
        assert back == value and type(back) is type(value)


# ---- the forms of the pages -------------------------------------------------------------------

WAVE = "wave"  # a choice with translated labels is named in the link (localized_choice)
#: form: (page, the link, the cached function the page computes with, what it must be given)
FORMS = {
    "hvp.net": (
        "pages/hvp.py",
        {
            "hvp.mode": "network",
            "hvp.net.steps": "100",
            "hvp.net.seed": "3",
            "hvp.net.top_k": "2",
            "hvp.net.power": "10",
            "hvp.net.probes": "20",
        },
        "trained",
        lambda a: a[:4] == ("digits", (16,), 100, 3),
    ),
    "why.hf": (
        "pages/why.py",
        {
            "why.tab": "hf",
            "why.hf.data": "digits",
            "why.hf.layers": "2",
            "why.hf.width": "8",
            "why.hf.steps": "3",
            "why.hf.cg": "5",
            "why.hf.damping": "10.0",
            "why.hf.sgd_lr": "0.1",
            "why.hf.adam_lr": "0.03",
            "why.hf.seed": "7",
        },
        "why_hessian_free",
        lambda a: astuple(a[0]) == ("digits", (8, 8), 3, 5, 10.0, 0.1, 0.03, 7),
    ),
    "why.stability": (
        "pages/why.py",
        {
            "why.tab": "stability",
            "why.stability.part": "network",
            "why.stability.data": "digits",
            "why.stability.layers": "1",
            "why.stability.width": "8",
            "why.stability.net_lr": "2.0",
            "why.stability.net_steps": "50",
            "why.stability.every": "10",
        },
        "why_stability",
        lambda a: astuple(a[0])[3:] == ("digits", (8,), 2.0, 50, 10, 12, 0),
    ),
    "why.stats": (
        "pages/why.py",
        {
            "why.tab": "stats",
            "why.stats.activation": "relu",
            "why.stats.dtype": "float32",
            "why.stats.depth": "3",
            "why.stats.width": "16",
            "why.stats.steps": "20",
            "why.stats.batch": "64",
            "why.stats.lr": "0.05",
            "why.stats.gain": "1.5",
            "why.stats.clip": "1.0",
            "why.stats.naive_loss": "true",
        },
        "why_gradient_stats",
        lambda a: astuple(a[0])[:10] == ("relu", 3, 16, 0.05, 20, 64, 1.5, 1.0, "float32", True),
    ),
    "why.maml": (
        "pages/why.py",
        {
            "why.tab": "maml",
            "why.maml.hidden": "8",
            "why.maml.activation": "tanh",
            "why.maml.steps": "50",
            "why.maml.tasks": "2",
            "why.maml.k": "5",
            "why.maml.inner": "2",
            "why.maml.alpha": "0.05",
            "why.maml.outer": "0.003",
            "why.maml.seed": "4",
        },
        "why_maml",
        lambda a: astuple(a[0]) == (8, "tanh", 50, 2, 5, 2, 0.05, 0.003, 4),
    ),
    "why.pinn": (
        "pages/why.py",
        {
            "why.tab": "pinn",
            "why.pinn.equation": WAVE,
            "why.pinn.c": "0.5",
            "why.pinn.t_max": "0.5",
            "why.pinn.depth": "1",
            "why.pinn.width": "8",
            "why.pinn.steps": "50",
            "why.pinn.points": "64",
            "why.pinn.lr": "0.01",
            "why.pinn.seed": "2",
            "why.pinn.w1": "10.0",
            "why.pinn.create_graph": "false",
        },
        "why_pinn_run",
        lambda a: (
            (
                a[0].equation,
                a[0].coefficient,
                a[0].t_max,
                a[0].depth,
                a[0].width,
                a[0].steps,
                a[0].points,
                a[0].lr,
                a[0].seed,
                a[0].w_initial,
                a[0].create_graph,
            )
            == ("wave", 0.5, 0.5, 1, 8, 50, 64, 0.01, 2, 10.0, False)
        ),
    ),
    "why.wgan": (
        "pages/why.py",
        {
            "why.tab": "wgan",
            "why.wgan.data": "ring",
            "why.wgan.mode": "clip",
            "why.wgan.steps": "20",
            "why.wgan.n_critic": "2",
            "why.wgan.lam": "1.0",
            "why.wgan.clip": "0.1",
            "why.wgan.batch": "32",
            "why.wgan.hidden": "16",
            "why.wgan.lr": "0.001",
            "why.wgan.seed": "5",
        },
        "why_wgan_run",
        lambda a: (
            (
                a[0].dataset,
                a[0].mode,
                a[0].lam,
                a[0].n_critic,
                a[0].clip,
                a[0].steps,
                a[0].batch,
                a[0].hidden,
                a[0].lr,
                a[0].seed,
            )
            == ("ring", "clip", 1.0, 2, 0.1, 20, 32, 16, 0.001, 5)
        ),
    ),
}


@pytest.fixture()
def calls(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[tuple]]:
    """The arguments every cached computation of the forms was called with (it still runs)."""
    seen: dict[str, list[tuple]] = {}
    for name in {spy for _, _, spy, _ in FORMS.values()}:
        labs = {
            "why_hessian_free": hf_cached,
            "trained": hvp_cached,
            "why_maml": maml_cached,
            "why_pinn": pinn_cached,
            "why_wgan": wgan_cached,
            "why_gradient_stats": stats_cached,
            "why_stability": stability_cached,
        }
        home = next((m for prefix, m in labs.items() if name.startswith(prefix)), cached)
        real = getattr(home, name)

        def spy(*args: object, _real=real, _name=name, **kwargs: object) -> object:
            seen.setdefault(_name, []).append(args)
            return _real(*args, **kwargs)

        tabs = (hf_page, stability_page, hvp_page, stats_page, maml_page, pinn_page, wgan_page)
        labs = (
            hf_cached,
            hvp_cached,
            maml_cached,
            stats_cached,
            pinn_cached,
            wgan_cached,
            stability_cached,
        )
        for module in (cached, *labs, *tabs):  # imported by name there
            if hasattr(module, name):
                monkeypatch.setattr(module, name, spy)
    return seen


@pytest.mark.parametrize("form", list(FORMS))
def test_a_link_with_a_forms_settings_opens_the_view_computed_with_them(
    form: str, calls: dict[str, list[tuple]]
) -> None:
    page, link, spy, wanted = FORMS[form]
    lang = "zh" if form in ("why.stats", "why.wgan") else "en"
    at = open_link(page, link, lang)
    assert notes(at) == []
    assert query(at) == link  # the settings stay in the link, as given
    assert calls[spy] and wanted(calls[spy][-1]), calls[spy][-1]  # computed with them
    assert not at.error, [e.value for e in at.error]


def _submit(at: AppTest, form: str, *edits: tuple[str, str, object]) -> None:
    """Make the ``(kind, key, value)`` edits and press the form's button in one run: AppTest,
    like the browser, sends a form's widgets only with its submission."""
    for kind, key, value in edits:
        getattr(at, kind)(key=key).set_value(value)
    [button] = [b for b in at.button if b.key.startswith(f"FormSubmitter:{form}.form")]
    button.click().run()
    assert not at.exception, [e.value for e in at.exception]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_form_writes_the_url_only_when_submitted(lang: str, calls: dict) -> None:
    at = open_link("pages/hvp.py", {"hvp.mode": "network", "hvp.net.steps": "100"}, lang)
    at.slider(key="hvp.net.steps").set_value(150)
    at.number_input(key="hvp.net.seed").set_value(9)
    at.run()  # edited, not submitted: nothing trains, the link is unchanged
    assert query(at) == {"hvp.mode": "network", "hvp.net.steps": "100"}
    assert at.session_state["hvp.net.run"][2:4] == (100, 0)
    _submit(at, "hvp.net", ("slider", "hvp.net.steps", 150), ("number_input", "hvp.net.seed", 9))
    assert query(at) == {"hvp.mode": "network", "hvp.net.steps": "150", "hvp.net.seed": "9"}
    assert at.session_state["hvp.net.run"][2:4] == (150, 9)
    _submit(at, "hvp.net", ("slider", "hvp.net.steps", 300))  # the default: out of the link
    assert query(at) == {"hvp.mode": "network", "hvp.net.seed": "9"}


def test_a_why_tabs_form_and_its_radio_write_the_url_only_when_submitted(calls: dict) -> None:
    at = open_link("pages/why.py", {"why.tab": "stats", "why.stats.steps": "20"})
    at.radio(key="why.stats.activation.en").set_value("relu")
    at.slider(key="why.stats.depth").set_value(4)
    at.run()
    assert query(at) == {"why.tab": "stats", "why.stats.steps": "20"}
    _submit(
        at,
        "why.stats",
        ("radio", "why.stats.activation.en", "relu"),
        ("slider", "why.stats.depth", 4),
    )
    assert query(at) == {
        "why.tab": "stats",
        "why.stats.steps": "20",
        "why.stats.activation": "relu",
        "why.stats.depth": "4",
    }
    assert calls["why_gradient_stats"][-1][0].activation == "relu"


def test_a_scenario_button_runs_and_its_settings_are_the_link() -> None:
    """A preset button sets the form and computes at once: the link follows what was run."""
    at = open_link("pages/why.py", {"why.tab": "stats"})
    at.button(key="why.stats.use.vanish").click().run()
    link = query(at)
    again = open_link("pages/why.py", link)
    keys = [k for k in link if k.startswith("why.stats.")]
    assert keys and all(again.session_state[k] == at.session_state[k] for k in keys)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_share_box_says_when_a_forms_settings_join_the_link(lang: str) -> None:
    said = tr("links.forms.share", lang)
    with_form = open_link("pages/why.py", {"why.tab": "stats"}, lang)
    assert said in [c.value for c in with_form.caption]
    without = open_link("pages/derivatives.py", {}, lang)
    assert said not in [c.value for c in without.caption]
