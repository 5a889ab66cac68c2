"""The Newton-vs-gradient-descent tab of "Why gradients of gradients": the methods race on the
function typed in its box. ``draw()`` is registered in pages/why.py's TABS; the code it shows
and offers is :mod:`.compute`, the module that ran, with that function written in PyTorch.
hograd_ui/parts/frame.py draws it: the table, then the paths and the convergence side by side
on a laptop, one screen each projected, the table first and the settings folded under the
charts on a phone."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import streamlit as st

from hograd_core import HogradError, parse
from hograd_ui.parts.chart import chart
from hograd_ui.parts.downloads import why_script
from hograd_ui.parts.form_kit import KAPPAS, caption, num
from hograd_ui.parts.frame import Frame
from hograd_ui.parts.link_form import Field, draw_linked, seed_linked
from hograd_ui.parts.links import BIND
from hograd_ui.parts.ui import function_box, lang, show_error, static_table, t

from . import compute, presets
from . import figures as figs
from .cached import script, why_newton

STATUS = {
    "converged": "newton.status.converged",
    "steps": "newton.status.steps",
    "diverged": "newton.status.diverged",
    "singular": "newton.status.singular",
}
KINDS = {
    "minimum": "hessian.kind.minimum",
    "maximum": "hessian.kind.maximum",
    "saddle": "hessian.kind.saddle",
    "degenerate": "hessian.kind.degenerate",
    "not_critical": "hessian.kind.not_critical",
}

#: The κ slider's field: in the link while it is not 10 (unbound: f's κ sets it).
KAPPA = Field("select", 10, options=tuple(KAPPAS))


def use_kappa() -> None:
    """The slider's callback: f becomes the quadratic for the chosen κ, only when f is that
    quadratic already (the slider is disabled otherwise; a modified client could still send a
    change, and a function the student typed is never replaced by it)."""
    if kappa_in_use(st.session_state.get("why.newton.fn", "")) is not None:
        st.session_state["why.newton.fn"] = presets.quadratic(st.session_state["why.newton.kappa"])


def kappa_in_use(text: str) -> float | None:
    """κ when f is the quadratic for one of the slider's κ, else None (the slider is off)."""
    kappa = presets.kappa_of(text)
    return kappa if kappa in KAPPAS else None


def kappa_slider(text: str) -> None:
    """The κ slider, in use only while f is the κ quadratic: it then shows f's κ and moving it
    replaces f by the quadratic for the new κ; for any other f it is disabled and says why."""
    seed_linked("why.newton.kappa", KAPPA)  # first the link's κ, then f's when f has one
    kappa = kappa_in_use(text)
    if kappa is not None and st.session_state.get("why.newton.kappa") != int(kappa):
        st.session_state["why.newton.kappa"] = int(kappa)  # the κ of f, typed or from a link
    draw_linked(
        st,
        t("quadratic.kappa"),
        "why.newton.kappa",
        KAPPA,
        help=t("newton.kappa.help"),
        on_change=use_kappa,
        disabled=kappa is None,
    )
    if kappa is None:
        st.caption(t("newton.kappa.off", kappas=", ".join(map(str, KAPPAS))))
    else:
        st.caption(t("newton.kappa.on", kappa=f"{kappa:g}"))


def apply_preset(text: str) -> None:
    p = presets.preset_for(text) or presets.Preset((1.0, 1.0), 0.01, 100, None)
    st.session_state["why.newton.x0"], st.session_state["why.newton.y0"] = p.start
    st.session_state["why.newton.lr"], st.session_state["why.newton.steps"] = p.lr, p.steps


def draw() -> None:
    """The tab, drawn by the frame: the intro, f and the settings (f with them: the charts get
    the projector's screen), then three screens: the table, the paths, the convergence."""
    view = Frame("newton")
    with view.lead():
        st.markdown(t("newton.intro"))
    with view.controls():
        fn = function_box("why.newton", t("newton.fn"), list(presets.PRESETS), stop=False)
        settings = None if fn is None else _settings(fn)
    if fn is None:  # refused: the message is under the box, in the settings
        view.results.error(t("newton.fn_refused"), icon=":material/error:")
        st.stop()
    try:
        race, picture, code = why_newton(fn.text, *settings, _caption=caption)
    except HogradError as err:
        with view.results:
            show_error(err)
        return
    variables = (*fn.variables, "x", "y")[:2]
    preset = presets.preset_for(fn.text)
    minimum = None if preset is None else preset.minimum  # f*, where known
    view.screens(
        {
            "table": (t("newton.screen.table"), lambda: _table(race)),
            "paths": (
                t("newton.screen.paths"),
                lambda: chart(figs.paths_figure(race, picture, variables, lang())),
            ),
            "convergence": (
                t("newton.screen.convergence"),
                lambda: chart(figs.convergence_figure(race, minimum, lang())),
            ),
        },
        "why.newton.screen",
        "newton.screen",
        headers=False,  # the tab's parts were never sections of the page's outline
        # side by side on a laptop; projected, each chart is a screen of its own, so the
        # convergence's two log panels get the screen's height, not a third of it
        side={"paths": 3, "convergence": 2},
    )
    head = "".join(f"# {line}\n" for line in t("newton.func.note").splitlines())
    func = head + script(parse(fn.text), race.config, func=True).source
    with view.results:
        why_script(code, func, "newton", notebook(code.source), page="why", tab="newton")


def _settings(fn) -> tuple:  # a parsed Function
    """κ, the start, the step size, the steps and the methods with their settings; returns
    ``why_newton``'s arguments after f."""
    kappa_slider(fn.text)
    if st.session_state.get("why.newton.applied") != fn.text:
        st.session_state["why.newton.applied"] = fn.text
        apply_preset(fn.text)
    names = (*fn.variables, "x", "y")[:2]
    p = presets.preset_for(fn.text) or presets.Preset(
        (1.0, 1.0), 0.01, 100, None
    )  # the URL's defaults
    # unbound, in the link while they differ from f's preset: apply_preset sets them
    c = st.columns(4)
    x0 = draw_linked(
        c[0],
        t("newton.start", name=names[0]),
        "why.newton.x0",
        Field("number", float(p.start[0]), -100.0, 100.0),
        step=0.1,
    )
    y0 = draw_linked(
        c[1],
        t("newton.start", name=names[1]),
        "why.newton.y0",
        Field("number", float(p.start[1]), -100.0, 100.0),
        step=0.1,
    )
    lr = draw_linked(
        c[2],
        t("newton.lr"),
        "why.newton.lr",
        Field("number", float(p.lr), 1e-6, 10.0),
        format="%.4g",
    )
    steps = draw_linked(
        c[3],
        t("newton.steps"),
        "why.newton.steps",
        Field("slider", int(p.steps), 1, compute.MAX_STEPS),
    )
    # One column per method, each method's own setting under it: six columns in one row cut
    # the checkboxes' labels short on a 1280-pixel screen.
    c = st.columns(len(compute.METHODS))
    chosen = tuple(
        m
        for i, m in enumerate(compute.METHODS)
        if c[i].checkbox(
            t(figs.METHOD_KEYS[m]), value=m in ("gd", "newton"), key=f"why.newton.{m}", bind=BIND
        )
    )
    c = st.columns(len(compute.METHODS))
    damping = c[compute.METHODS.index("damped")].select_slider(
        t("newton.damping"),
        [0.01, 0.1, 0.5, 1.0, 2.0, 10.0, 100.0],
        value=1.0,
        key="why.newton.damping",
        bind=BIND,
    )
    radius = c[compute.METHODS.index("trust")].select_slider(
        t("newton.radius"),
        [0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0],
        value=0.5,
        key="why.newton.radius",
        bind=BIND,
    )
    return (x0, y0), steps, lr, damping, radius, chosen or ("gd",)


def _table(race: compute.NewtonRace) -> None:
    """Each method's end, what went wrong where something did, and the cost of a step."""
    rows = [
        [
            t(figs.METHOD_KEYS[p.method]),
            t(STATUS[p.status]),
            "—" if p.converged_at is None else str(p.converged_at),
            num(p.values[-1], 6),
            f"{p.grad_norms[-1]:.1e}",
            t(KINDS[p.end_kind]),
            f"{p.seconds * 1e3:.1f}",
        ]
        for p in race.paths
    ]
    cols = [
        "newton.col.method",
        "newton.col.status",
        "newton.col.iterations",
        "newton.col.f",
        "newton.col.grad",
        "newton.col.kind",
        "newton.col.ms",
    ]
    static_table(pd.DataFrame(rows, columns=[t(c) for c in cols]))
    st.caption(t("newton.table_note", tol=f"{race.config.tol:g}"))
    for p in race.paths:
        name = t(figs.METHOD_KEYS[p.method])
        if p.status == "diverged" and p.stopped_at == 0:
            st.warning(t("newton.bad_start", method=name))
        elif p.status == "diverged":
            key = "newton.diverged_gd" if p.method == "gd" else "newton.diverged_newton"
            st.warning(t(key, method=name, step=p.stopped_at))
        elif p.status == "singular":
            st.warning(t("newton.singular", method=name, step=p.stopped_at))
        elif p.method == "newton" and p.end_kind in ("saddle", "maximum", "degenerate"):
            eig = ", ".join(num(v) for v in p.end_eigenvalues)
            st.warning(t("newton.saddle", kind=t(KINDS[p.end_kind]), eig=eig))
    ratio = race.newton_step_seconds / race.gd_step_seconds
    st.markdown(
        t(
            "newton.cost",
            gd=f"{race.gd_step_seconds * 1e3:.2f}",
            newton=f"{race.newton_step_seconds * 1e3:.2f}",
            ratio=f"{ratio:.1f}",
            gd_bytes=f"{race.gd_saved_bytes:,}",
            newton_bytes=f"{race.newton_saved_bytes:,}",
            memory=f"{race.newton_saved_bytes / race.gd_saved_bytes:.1f}",
        )
    )


def notebook(source: str) -> Callable[[], str]:
    """The notebook download, made on click (outside the script run: the texts are read now)."""
    title, figure = t("newton.nb.title"), t("newton.nb.figure")
    return lambda: figs.notebook(source, title, figure)


def lesson_view(step: object, frame: object = None) -> None:
    """The lesson's Newton step (pages/lesson.py): the race on the κ = 10 quadratic from its
    preset, gradient descent against Newton, and the way to this tab (``frame``: the lesson's
    frame, hograd_ui/parts/frame.py; this view has no controls of its own)."""
    text = presets.quadratic(10)
    preset = presets.preset_for(text)
    try:
        race, picture, _ = why_newton(
            text,
            preset.start,
            preset.steps,
            preset.lr,
            1.0,
            0.5,
            ("gd", "newton"),
            _caption=caption,
        )
    except HogradError as err:
        show_error(err)
        return
    chart(
        figs.paths_figure(race, picture, ("x", "y"), lang()),
        key=f"lesson.chart.{step.name}",
    )
    st.page_link(
        "pages/why.py",
        label=t("newton.lesson.link", page=t("app.page.why")),
        icon=":material/lightbulb:",
    )
