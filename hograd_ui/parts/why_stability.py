"""The stability-limit tab of "Why gradients of gradients": the quadratic bowl and a small
network's sharpness (pages/why.py calls draw)."""

from __future__ import annotations

import streamlit as st

from hograd_core import HogradError
from hograd_core.network import DATASETS
from hograd_serving.cached import why_quadratic, why_stability
from hograd_ui import why_figures as figs
from hograd_ui.parts.chart import chart
from hograd_ui.parts.downloads import why_func, why_script
from hograd_ui.parts.link_form import Field, LinkedForm
from hograd_ui.parts.links import BIND
from hograd_ui.parts.ui import lang, localized_radio, show_error, t
from hograd_ui.parts.why_common import KAPPAS, WIDTHS, caption, keep, network_widgets, num

# The network part's settings enter the URL when Run is pressed (hograd_ui/parts/link_form.py).
STABILITY_FORM = LinkedForm({
    "why.stability.data": Field("radio", "moons", options=DATASETS),
    "why.stability.layers": Field("slider", 2, 1, 3),
    "why.stability.width": Field("select", 16, options=WIDTHS),
    "why.stability.net_lr": Field("select", 0.5, options=(0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0)),
    "why.stability.net_steps": Field("slider", 500, 50, 1000, 50),
    "why.stability.every": Field("select", 20, options=(5, 10, 20, 50, 100)),
})  # fmt: skip


def quadratic_part() -> None:
    st.markdown(t("why.stability.quadratic_intro"))
    c = st.columns(3)
    kappa = c[0].select_slider(
        t("hvp.kappa.label"), KAPPAS, 10, key="why.stability.kappa", bind=BIND
    )
    lr = c[1].slider(t("why.newton.lr"), 0.001, 2.5, 0.19, 0.001, format="%.3f",
                     key="why.stability.lr", bind=BIND)  # fmt: skip
    steps = c[2].slider(
        t("why.newton.steps"), 10, 1000, 200, 10, key="why.stability.steps", bind=BIND
    )
    try:
        run, code = why_quadratic(float(kappa), lr, steps)
    except HogradError as err:
        show_error(err)
        return
    m = st.columns(4)
    m[0].metric(t("why.stability.lambda"), num(run.lambda_max, 6),
                help=t("why.stability.lambda_help", hvps=run.lanczos_hvps))  # fmt: skip
    m[1].metric("2 / λ_max", num(2 / run.lambda_max, 6))
    m[2].metric("lr", num(lr, 6))
    m[3].metric("|1 − lr·λ_max|", num(run.factors[1], 6))
    keys = {"stable": "why.stability.shrinks", "edge": "why.stability.edge",
            "edge_even": "why.stability.edge_even", "fell_for_now": "why.stability.fell_for_now",
            "grows": "why.stability.grows", "diverged": "why.stability.overflow"}  # fmt: skip
    box = st.success if run.regime == "stable" else st.info if run.regime == "edge" else st.warning
    box(t(keys[run.verdict], factor=num(run.factors[1], 4), limit=num(2 / run.lambda_max, 4),
          step=len(run.losses) - 1, steps=len(run.losses) - 1, start=num(run.losses[0], 4),
          end=num(run.losses[-1], 4), flat=num(run.factors[0], 4),
          again=f"{run.regrows_at:,}" if run.regrows_at else "—"))  # fmt: skip
    chart(figs.quadratic_figure(run, lang()))
    why_script(code, why_func("quadratic", code.source), "quadratic")


def network_part() -> None:
    st.markdown(t("why.stability.net_intro"))
    STABILITY_FORM.seed()
    with st.form("why.stability.form"):
        data, hidden = network_widgets(STABILITY_FORM, "why.stability")
        lr, steps, every = STABILITY_FORM.row({
            "why.stability.net_lr": "lr", "why.stability.net_steps": t("why.newton.steps"),
            "why.stability.every": t("why.stability.every"),
        })  # fmt: skip
        st.form_submit_button(t("why.run"), type="primary")
    keep("why.stability.data", data)
    STABILITY_FORM.write()
    try:
        run, code = why_stability(data, hidden, lr, steps, every, 0, _caption=caption)
    except HogradError as err:
        show_error(err)
        return
    m = st.columns(4)
    m[0].metric(t("hvp.net.metric.parameters"), f"{run.parameters:,}")
    m[1].metric(t("why.stability.lambda0"), num(run.lambda0))
    m[2].metric("2 / λ_max(θ₀)", num(2 / run.lambda0))
    m[3].metric("2 / lr", num(2 / lr))
    if run.status == "diverged":
        st.warning(t("why.stability.net_diverged", step=len(run.losses) - 1, lr=num(lr)))
    else:
        last = run.sharpness[-1] if run.sharpness.size else float("nan")
        st.info(t("why.stability.net_result", last=num(last), limit=num(2 / lr),
                  start=num(run.losses[0]), end=num(run.losses[-1])))  # fmt: skip
    st.markdown(t("why.stability.cost", hvps=run.hvps, grad=f"{run.grad_seconds * 1e3:.2f}",
                  hvp=f"{run.hvp_seconds * 1e3:.2f}", grad_kb=f"{run.grad_saved_bytes / 1024:,.0f}",
                  hvp_kb=f"{run.hvp_saved_bytes / 1024:,.0f}",
                  memory=f"{run.hvp_saved_bytes / run.grad_saved_bytes:.2f}"))  # fmt: skip
    chart(figs.sharpness_figure(run, lang()))
    why_script(code, why_func("stability", code.source), "stability", lr=lr, every=every)


def draw() -> None:
    parts = {"quadratic": t("why.stability.part.quadratic"),
             "network": t("why.stability.part.network")}  # fmt: skip
    part = localized_radio(t("why.stability.part"), parts, "why.stability.part", horizontal=True)
    quadratic_part() if part == "quadratic" else network_part()
