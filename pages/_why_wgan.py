"""The WGAN-GP tab of "Why gradients of gradients": train on 2-D toy data with the gradient
penalty, without it, with its create_graph missing, or with weight clipping; then look at the
penalty's gradient both ways and at its graph."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from hograd_core import HogradError
from hograd_core.applications.wgan_gp import DATASETS, MODES, WGAN_BUDGET, WganConfig
from hograd_serving.cached import why_wgan_graph, why_wgan_run
from hograd_ui import wgan_figures as figs
from hograd_ui.graph_figures import flag_legend_html
from pages._downloads import why_func, why_script
from pages._ui import lang, show_error, t

P = "why.wgan"
LABELS = {
    "data": {"8gaussians": "wgan.data.8gaussians", "moons": "wgan.data.moons",
             "ring": "wgan.data.ring"},
    "mode": {"gp": "wgan.mode.gp", "gp_no_graph": "wgan.mode.gp_no_graph",
             "none": "wgan.mode.none", "clip": "wgan.mode.clip"},
}  # fmt: skip
RESULTS = {"gp": "wgan.result.gp", "gp_no_graph": "wgan.result.gp_no_graph",
           "none": "wgan.result.none", "clip": "wgan.result.clip"}  # fmt: skip


def caption(done: int, total: int) -> str:
    return t("why.progress", done=done, total=total)


def choice(label: str, options: tuple[str, ...], name: str) -> str:
    """A radio with translated labels inside the form, keyed per language (the browser forgets
    a choice whose labels change); ``P.name`` keeps the choice across a language switch."""
    key, widget = f"{P}.{name}", f"{P}.{name}.{lang()}"
    if widget not in st.session_state:
        st.session_state[widget] = st.session_state.get(key, options[0])
    value = st.radio(label, options, key=widget, horizontal=True,
                     format_func=lambda o: t(LABELS[name][o]))  # fmt: skip
    st.session_state[key] = value
    return value


def settings() -> WganConfig:
    with st.form(f"{P}.form"):
        data = choice(t("wgan.data"), DATASETS, "data")
        mode = choice(t("wgan.mode_label"), MODES, "mode")
        c = st.columns(4)
        steps = c[0].slider(t("wgan.steps"), 10, WGAN_BUDGET.max_steps, 200, 10,
                            key=f"{P}.steps", bind="query-params")  # fmt: skip
        n_critic = c[1].slider(t("wgan.n_critic"), 1, WGAN_BUDGET.max_n_critic, 5,
                               key=f"{P}.n_critic", bind="query-params")  # fmt: skip
        lam = c[2].select_slider("λ", [0.1, 1.0, 5.0, 10.0, 50.0, 100.0], 10.0, key=f"{P}.lam",
                                 help=t("wgan.lam_help"), bind="query-params")  # fmt: skip
        clip = c[3].select_slider(t("wgan.clip"), [0.01, 0.05, 0.1, 0.5], 0.01, key=f"{P}.clip",
                                  help=t("wgan.clip_help"), bind="query-params")  # fmt: skip
        c = st.columns(4)
        batch = c[0].select_slider(t("wgan.batch"), [16, 32, 64, 128, 256, 512], 64,
                                   key=f"{P}.batch", bind="query-params")  # fmt: skip
        hidden = c[1].select_slider(t("wgan.hidden"), [8, 16, 32, 64, 128], 32, key=f"{P}.hidden",
                                    bind="query-params")  # fmt: skip
        lr = c[2].select_slider(t("wgan.lr"), [1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2], 3e-3,
                                key=f"{P}.lr", bind="query-params")  # fmt: skip
        seed = c[3].number_input(t("hvp.net.seed"), 0, 999, 0, key=f"{P}.seed",
                                 bind="query-params")  # fmt: skip
        st.form_submit_button(t("why.run"), type="primary")
    return WganConfig(data, mode, float(lam), int(n_critic), float(clip), int(steps), int(batch),
                      int(hidden), float(lr), seed=int(seed))  # fmt: skip


def draw() -> None:
    st.markdown(t("wgan.intro"))
    config = settings()
    try:
        run, check, costs, code = why_wgan_run(config, _caption=caption)
    except HogradError as err:
        show_error(err)
        return
    last = len(run.snap_steps) - 1
    m = st.columns(4)
    m[0].metric(t("wgan.metric.parameters"), f"{run.critic_parameters:,}")
    m[1].metric(t("wgan.metric.wasserstein"), f"{run.wasserstein[-1]:.3g}")
    m[2].metric(t("wgan.metric.norm"), f"{float(abs(run.norms[last] - 1).mean()):.3g}",
                help=t("wgan.metric.norm_help"))  # fmt: skip
    m[3].metric(t("wgan.metric.cost"), f"{costs.gp_seconds / costs.plain_seconds:.1f} ×",
                help=t("wgan.metric.cost_help"))  # fmt: skip
    if run.status == "diverged":
        st.warning(t("wgan.diverged", step=len(run.wasserstein)))
    box = st.warning if config.mode in ("gp_no_graph", "none") else st.info
    box(t(RESULTS[config.mode]))
    at = st.select_slider(t("wgan.at"), list(run.snap_steps), value=int(run.snap_steps[-1]),
                          key=f"{P}.at.{run.snap_steps[-1]}")  # fmt: skip
    index = list(run.snap_steps).index(at)
    left, right = st.columns([3, 2], gap="medium")
    left.plotly_chart(figs.points_figure(run, index, lang()), width="stretch")
    with right:
        st.markdown("**" + t("wgan.norms_title") + "**")
        st.plotly_chart(figs.norms_figure(run, index, lang()), width="stretch")
        st.caption(t("wgan.norms_note"))
    st.plotly_chart(figs.curves_figure(run, lang()), width="stretch")
    silent_bug(check)
    st.markdown(t("wgan.cost", gp=f"{costs.gp_seconds * 1e3:.2f}",
                  plain=f"{costs.plain_seconds * 1e3:.2f}", rounds=costs.rounds))  # fmt: skip
    # the script; the .py, its torch.func form, and the view as a notebook
    why_script(code, why_func("wgan", code.source), "wgan", dataset=config.dataset)


def silent_bug(check: object) -> None:
    st.subheader(t("wgan.bug.title"))
    st.markdown(t("wgan.bug.text", penalty=f"{check.penalty:.4g}"))
    table = pd.DataFrame({
        t("wgan.bug.col.param"): check.names,
        t("wgan.bug.col.with"): [f"{v:.6g}" for v in check.with_graph],
        t("wgan.bug.col.without"): [f"{v:.6g}" for v in check.without_graph],
    }).set_index(t("wgan.bug.col.param"))  # fmt: skip
    st.table(table)
    st.caption(t("wgan.bug.note"))
    st.markdown("**" + t("wgan.graph.title") + "**")
    flag = st.radio("create_graph", ["True", "False"], key=f"{P}.graph", horizontal=True,
                    format_func=lambda f: f"create_graph={f}", bind="query-params",
                    label_visibility="collapsed")  # fmt: skip
    graph = why_wgan_graph(flag == "True")
    st.markdown(t("wgan.graph.on" if flag == "True" else "wgan.graph.off"))
    st.html(flag_legend_html(graph, lang()))  # fixed text, escaped: no user input
    st.graphviz_chart(figs.penalty_dot(graph, lang()), width="stretch")
    st.caption(t("wgan.graph.note"))
