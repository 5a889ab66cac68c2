"""The Newton-vs-gradient-descent tab of "Why gradients of gradients" (pages/why.py calls
draw)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from hograd_core import HogradError
from hograd_core.applications import newton as nt
from hograd_serving.cached import why_newton
from hograd_ui import why_figures as figs
from hograd_ui.parts.chart import chart
from hograd_ui.parts.downloads import newton_func, why_script
from hograd_ui.parts.links import BIND
from hograd_ui.parts.ui import function_box, lang, show_error, static_table, t
from hograd_ui.parts.why_common import KAPPAS, caption, num

STATUS = {"converged": "why.status.converged", "steps": "why.status.steps",
          "diverged": "why.status.diverged", "singular": "why.status.singular"}  # fmt: skip
KINDS = {"minimum": "hvp.kind.minimum", "maximum": "hvp.kind.maximum",
         "saddle": "hvp.kind.saddle", "degenerate": "hvp.kind.degenerate",
         "not_critical": "hvp.kind.not_critical"}  # fmt: skip


def use_kappa() -> None:
    """The slider's callback: f becomes the quadratic for the chosen κ, only when f is that
    quadratic already (the slider is disabled otherwise; a modified client could still send a
    change, and a function the student typed is never replaced by it)."""
    if kappa_in_use(st.session_state.get("why.newton.fn", "")) is not None:
        st.session_state["why.newton.fn"] = nt.quadratic(st.session_state["why.newton.kappa"])


def kappa_in_use(text: str) -> float | None:
    """κ when f is the quadratic for one of the slider's κ, else None (the slider is off)."""
    kappa = nt.kappa_of(text)
    return kappa if kappa in KAPPAS else None


def kappa_slider(text: str) -> None:
    """The κ slider, in use only while f is the κ quadratic: it then shows f's κ and moving it
    replaces f by the quadratic for the new κ; for any other f it is disabled and says why."""
    kappa = kappa_in_use(text)
    if kappa is not None and st.session_state.get("why.newton.kappa") != int(kappa):
        st.session_state["why.newton.kappa"] = int(kappa)  # the κ of f, typed or from a link
    st.select_slider(t("hvp.kappa.label"), KAPPAS, value=10, key="why.newton.kappa", bind=BIND,
                     help=t("why.newton.kappa.help"), on_change=use_kappa,
                     disabled=kappa is None)  # fmt: skip
    if kappa is None:
        st.caption(t("why.newton.kappa.off", kappas=", ".join(map(str, KAPPAS))))
    else:
        st.caption(t("why.newton.kappa.on", kappa=f"{kappa:g}"))


def apply_preset(text: str) -> None:
    p = nt.preset_for(text) or nt.Preset((1.0, 1.0), 0.01, 100, None)
    st.session_state["why.newton.x0"], st.session_state["why.newton.y0"] = p.start
    st.session_state["why.newton.lr"], st.session_state["why.newton.steps"] = p.lr, p.steps


def draw() -> None:
    st.markdown(t("why.newton.intro"))
    fn = function_box("why.newton", t("why.newton.fn"), list(nt.PRESETS))
    kappa_slider(fn.text)
    if st.session_state.get("why.newton.applied") != fn.text:
        st.session_state["why.newton.applied"] = fn.text
        apply_preset(fn.text)
    names = (*fn.variables, "x", "y")[:2]
    p = nt.preset_for(fn.text) or nt.Preset((1.0, 1.0), 0.01, 100, None)  # the URL's defaults
    c = st.columns(4)
    x0 = c[0].number_input(t("why.newton.start", name=names[0]), -100.0, 100.0, p.start[0],
                           step=0.1, key="why.newton.x0", bind=BIND)  # fmt: skip
    y0 = c[1].number_input(t("why.newton.start", name=names[1]), -100.0, 100.0, p.start[1],
                           step=0.1, key="why.newton.y0", bind=BIND)  # fmt: skip
    lr = c[2].number_input(t("why.newton.lr"), 1e-6, 10.0, p.lr, format="%.4g",
                           key="why.newton.lr", bind=BIND)  # fmt: skip
    steps = c[3].slider(t("why.newton.steps"), 1, nt.MAX_STEPS, p.steps, key="why.newton.steps",
                        bind=BIND)  # fmt: skip
    # One column per method, each method's own setting under it: six columns in one row cut
    # the checkboxes' labels short on a 1280-pixel screen.
    c = st.columns(len(nt.METHODS))
    chosen = tuple(
        m for i, m in enumerate(nt.METHODS)
        if c[i].checkbox(t(figs.METHOD_KEYS[m]), value=m in ("gd", "newton"), key=f"why.newton.{m}", bind=BIND)
    )  # fmt: skip
    c = st.columns(len(nt.METHODS))
    damping = c[nt.METHODS.index("damped")].select_slider(
        t("why.newton.damping"), [0.01, 0.1, 0.5, 1.0, 2.0, 10.0, 100.0], value=1.0,
        key="why.newton.damping", bind=BIND,
    )  # fmt: skip
    radius = c[nt.METHODS.index("trust")].select_slider(
        t("why.newton.radius"), [0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0], value=0.5,
        key="why.newton.radius", bind=BIND,
    )  # fmt: skip
    try:
        race, code = why_newton(fn.text, (x0, y0), steps, lr, damping, radius, chosen or ("gd",),
                                _caption=caption)  # fmt: skip
    except HogradError as err:
        show_error(err)
        return
    rows = [[t(figs.METHOD_KEYS[p.method]), t(STATUS[p.status]),
             "—" if p.converged_at is None else str(p.converged_at), num(p.values[-1], 6),
             f"{p.grad_norms[-1]:.1e}", t(KINDS[p.end_kind]), f"{p.seconds * 1e3:.1f}"]
            for p in race.paths]  # fmt: skip
    cols = [
        "why.newton.col.method",
        "why.newton.col.status",
        "why.newton.col.iterations",
        "why.newton.col.f",
        "why.newton.col.grad",
        "why.newton.col.kind",
        "why.newton.col.ms",
    ]
    static_table(pd.DataFrame(rows, columns=[t(c) for c in cols]))
    st.caption(t("why.newton.table_note", tol=f"{race.config.tol:g}"))
    for p in race.paths:
        name = t(figs.METHOD_KEYS[p.method])
        if p.status == "diverged" and p.stopped_at == 0:
            st.warning(t("why.newton.bad_start", method=name))
        elif p.status == "diverged":
            key = "why.newton.diverged_gd" if p.method == "gd" else "why.newton.diverged_newton"
            st.warning(t(key, method=name, step=p.stopped_at))
        elif p.status == "singular":
            st.warning(t("why.newton.singular", method=name, step=p.stopped_at))
        elif p.method == "newton" and p.end_kind in ("saddle", "maximum", "degenerate"):
            eig = ", ".join(num(v) for v in p.end_eigenvalues)
            st.warning(t("why.newton.saddle", kind=t(KINDS[p.end_kind]), eig=eig))
    ratio = race.newton_step_seconds / race.gd_step_seconds
    st.markdown(t("why.newton.cost", gd=f"{race.gd_step_seconds * 1e3:.2f}",
                  newton=f"{race.newton_step_seconds * 1e3:.2f}", ratio=f"{ratio:.1f}",
                  gd_bytes=f"{race.gd_saved_bytes:,}", newton_bytes=f"{race.newton_saved_bytes:,}",
                  memory=f"{race.newton_saved_bytes / race.gd_saved_bytes:.1f}"))  # fmt: skip
    left, right = st.columns([3, 2], gap="medium")
    chart(figs.newton_paths_figure(race, lang()), where=left)
    chart(figs.newton_convergence_figure(race, lang()), where=right)
    why_script(code, newton_func(code.source), "newton", text=fn.text, start=(x0, y0))
