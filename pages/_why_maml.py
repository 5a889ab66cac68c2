"""The MAML tab of "Why gradients of gradients": meta-train three starts, adapt them to a new
sine the student shapes. ``draw()`` is registered in pages/why.py's TABS."""

from __future__ import annotations

import math

import streamlit as st

from hograd_core import HogradError
from hograd_core.applications.maml import MAML_BUDGET, METHODS, MamlConfig
from hograd_serving.cached import why_maml, why_maml_adapt
from hograd_ui import maml_figures as figs
from hograd_ui.why_figures import finite_or_dash
from pages._downloads import why_func, why_script
from pages._ui import lang, show_error, t

Q = {"bind": "query-params"}  # the view is a link (issue 18)
ACTIVATIONS = {"relu": "ReLU", "tanh": "tanh"}


def caption(done: int, total: int) -> str:
    return t("why.progress", done=done, total=total)


def settings() -> MamlConfig:
    """The meta-training settings, in a form: nothing trains until Run is pressed."""
    d = MamlConfig()
    with st.form("why.maml.form"):
        c = st.columns(4)
        hidden = c[0].select_slider(t("maml.hidden"), [8, 16, 32, 40, 64], d.hidden,
                                    key="why.maml.hidden", **Q)  # fmt: skip
        activation = c[1].radio(t("maml.activation_label"), list(ACTIVATIONS),
                                format_func=ACTIVATIONS.__getitem__, horizontal=True,
                                key="why.maml.activation", **Q)  # fmt: skip
        steps = c[2].slider(t("maml.meta_steps"), 50, MAML_BUDGET.max_meta_steps, d.meta_steps,
                            50, key="why.maml.steps", **Q)  # fmt: skip
        tasks = c[3].slider(t("maml.tasks"), 1, MAML_BUDGET.max_tasks, d.tasks,
                            key="why.maml.tasks", **Q)  # fmt: skip
        c = st.columns(5)
        k = c[0].slider(t("maml.k_shot"), 1, MAML_BUDGET.max_k, d.k_shot, key="why.maml.k", **Q)
        inner = c[1].slider(t("maml.inner_steps"), 1, MAML_BUDGET.max_inner_steps,
                            d.inner_steps, key="why.maml.inner", **Q)  # fmt: skip
        alpha = c[2].select_slider(t("maml.inner_lr"), [0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5],
                                   d.inner_lr, key="why.maml.alpha", **Q)  # fmt: skip
        outer = c[3].select_slider(t("maml.outer_lr"), [0.001, 0.003, 0.005, 0.01, 0.03],
                                   d.outer_lr, key="why.maml.outer", **Q)  # fmt: skip
        seed = c[4].number_input(t("maml.seed"), 0, 999, d.seed, key="why.maml.seed", **Q)
        st.form_submit_button(t("why.run"), type="primary")
    return MamlConfig(int(hidden), activation, int(steps), int(tasks), int(k), int(inner),
                      float(alpha), float(outer), int(seed))  # fmt: skip


def cost(run) -> None:  # noqa: ANN001
    m = st.columns(4)
    m[0].metric(t("hvp.net.metric.parameters"), f"{run.parameters:,}")
    m[1].metric(t("maml.metric.time"), f"{run.seconds['second'] / run.seconds['first']:.2f} ×")
    m[2].metric(t("maml.metric.nodes"), f"{run.nodes['second']} / {run.nodes['first']}")
    ratio = run.saved_bytes["second"] / max(run.saved_bytes["first"], 1)
    m[3].metric(t("maml.metric.memory"), f"{ratio:.2f} ×")
    st.markdown(t(
        "maml.cost", t2=f"{run.seconds['second'] * 1e3:.2f}", t1=f"{run.seconds['first'] * 1e3:.2f}",
        n2=run.nodes["second"], n1=run.nodes["first"], b2=f"{run.saved_bytes['second'] / 1e3:.1f}",
        b1=f"{run.saved_bytes['first'] / 1e3:.1f}", cosine=f"{run.cosine:.3f}",
        share=f"{100 * run.hessian_share:.1f}",
    ))  # fmt: skip


def draw() -> None:
    st.markdown(t("maml.intro"))
    config = settings()
    try:
        run = why_maml(config, _caption=caption)
    except HogradError as err:
        show_error(err)
        return
    for method in METHODS:
        if run.status[method] == "diverged":
            st.warning(t("maml.diverged", method=t(figs.METHOD_KEYS[method])))
    cost(run)
    st.subheader(t("maml.sine_title"))
    c = st.columns(3)
    amplitude = c[0].slider(t("maml.amplitude"), 0.1, 5.0, 3.0, 0.1, key="why.maml.amp", **Q)
    phase = c[1].slider(t("maml.phase"), 0.0, round(math.pi, 2), 1.0, 0.01, key="why.maml.phase",
                        **Q)  # fmt: skip
    steps = c[2].slider(t("maml.adapt_steps"), 0, MAML_BUDGET.max_adapt_steps, 1,
                        key="why.maml.adapt", **Q)  # fmt: skip
    try:
        adaptation, code = why_maml_adapt(config, float(amplitude), float(phase), _run=run)
    except HogradError as err:
        show_error(err)
        return
    st.caption(t("maml.adapt_note", k=config.k_shot, alpha=f"{config.inner_lr:g}"))
    for method in METHODS:
        if adaptation.blew_up(method, steps):
            error = f"{adaptation.errors[method][steps]:.3g}"
            st.warning(t("maml.blew_up", method=t(figs.METHOD_KEYS[method]), steps=steps,
                         error=error, alpha=f"{config.inner_lr:g}"))  # fmt: skip
    st.plotly_chart(figs.adaptation_figure(adaptation, steps, lang()), width="stretch")
    final = {m: finite_or_dash(float(run.eval_losses[m][-1]), 3) for m in METHODS}
    errors = {m: finite_or_dash(float(adaptation.errors[m][steps]), 3) for m in METHODS}
    st.markdown(t("maml.result", steps=steps, **errors, e2=final["second"], e1=final["first"],
                  e0=final["pretrain"]))  # fmt: skip
    left, right = st.columns(2, gap="medium")
    left.plotly_chart(figs.error_figure(adaptation, steps, lang()), width="stretch")
    right.plotly_chart(figs.meta_training_figure(run, lang()), width="stretch")
    st.markdown(t("maml.explain"))
    why_script(code, why_func("maml", code.source), "maml")  # .py, torch.func, notebook
