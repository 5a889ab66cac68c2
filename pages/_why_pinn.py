"""The physics-informed network tab of "Why gradients of gradients" (pages/why.py calls draw)."""

from __future__ import annotations

import streamlit as st

from hograd_core import HogradError
from hograd_core.applications import pinn as core
from hograd_serving.cached import why_pinn_run
from hograd_ui import pinn_figures as figs
from hograd_ui.why_figures import finite_or_dash
from pages._downloads import pinn_func, why_script
from pages._ui import lang, show_error, t

ALPHAS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0]
SPEEDS = [0.25, 0.5, 0.75, 1.0, 1.5, 2.0]
TIMES = [0.25, 0.5, 1.0, 1.5, 2.0]
WIDTHS = [4, 8, 16, 20, 32, 48, 64]
POINTS = [32, 64, 128, 256, 512, 1024]
LRS = [0.001, 0.003, 0.01, 0.02, 0.05, 0.1]
WEIGHTS = [0.0, 0.1, 1.0, 10.0, 100.0]
Q = {"bind": "query-params"}  # every setting is part of the link


def _preset() -> None:
    """A new equation starts from its own steps (the wave trains longer)."""
    st.session_state["why.pinn.steps"] = core.preset(st.session_state["why.pinn.equation"]).steps


def _settings() -> core.PinnConfig:
    d = core.PinnConfig()
    equations = {"heat": t("pinn.equation.heat"), "wave": t("pinn.equation.wave")}
    equation = st.radio(t("pinn.equation.label"), list(equations), format_func=equations.__getitem__,
                        key="why.pinn.equation", horizontal=True, on_change=_preset, **Q)  # fmt: skip
    st.session_state.setdefault("why.pinn.steps", core.preset(equation).steps)
    with st.form("why.pinn.form"):
        c = st.columns(4)
        if equation == "heat":
            k = c[0].select_slider("α", ALPHAS, d.coefficient, key="why.pinn.alpha", **Q)
        else:
            k = c[0].select_slider("c", SPEEDS, 1.0, key="why.pinn.c", **Q)
        t_max = c[1].select_slider(t("pinn.t_max"), TIMES, d.t_max, key="why.pinn.t_max", **Q)
        depth = c[2].slider(t("hvp.net.layers"), 1, core.PINN_BUDGET.max_depth, d.depth,
                            key="why.pinn.depth", **Q)  # fmt: skip
        width = c[3].select_slider(t("hvp.net.width"), WIDTHS, d.width, key="why.pinn.width", **Q)
        c = st.columns(4)
        steps = c[0].slider(t("why.newton.steps"), 50, core.PINN_BUDGET.max_steps, step=50,
                            key="why.pinn.steps", **Q)  # fmt: skip
        points = c[1].select_slider(t("pinn.points"), POINTS, d.points, key="why.pinn.points", **Q)
        lr = c[2].select_slider(t("pinn.lr"), LRS, d.lr, key="why.pinn.lr", **Q)
        seed = c[3].number_input(t("hvp.net.seed"), 0, 999, d.seed, key="why.pinn.seed", **Q)
        c = st.columns(3)
        labels = (t("pinn.w.residual"), t("pinn.w.initial"), t("pinn.w.boundary"))
        weights = [
            c[i].select_slider(label, WEIGHTS, 1.0, key=f"why.pinn.w{i}", **Q)
            for i, label in enumerate(labels)
        ]  # fmt: skip
        keep = st.toggle("create_graph=True", True, key="why.pinn.create_graph",
                         help=t("pinn.create_graph_help"), **Q)  # fmt: skip
        st.form_submit_button(t("why.run"), type="primary")
    return core.PinnConfig(equation, float(k), float(t_max), int(width), int(depth), int(steps),
                           int(points), d.edge, float(lr), *map(float, weights), bool(keep),
                           int(seed))  # fmt: skip


def draw() -> None:
    st.markdown(t("pinn.intro"))
    config = _settings()
    try:
        run, code = why_pinn_run(config, _caption=lambda d, n: t("why.progress", done=d, total=n))
    except HogradError as err:
        show_error(err)
        return
    num = finite_or_dash
    m = st.columns(4)
    m[0].metric(t("hvp.net.metric.parameters"), f"{run.parameters:,}")
    m[1].metric(t("pinn.metric.max_error"), num(run.max_error, 3))
    m[2].metric(t("pinn.metric.rel_error"), num(run.rel_error, 3))
    m[3].metric(t("pinn.metric.residual"), num(run.residual_rms, 3), help=t("pinn.residual_help"))
    if run.status == "diverged":
        st.error(t("pinn.diverged", step=run.stopped_at))
    elif config.create_graph:
        st.success(t("pinn.trained", grad=num(run.residual_grad, 3), rms=num(run.residual_rms, 3)))
    else:
        st.warning(t("pinn.silent", rms=num(run.residual_rms, 3), error=num(run.max_error, 3)))
    ratio = run.pinn_step_seconds / run.plain_step_seconds
    st.markdown(t("pinn.cost", pinn=f"{run.pinn_step_seconds * 1e3:.2f}",
                  plain=f"{run.plain_step_seconds * 1e3:.2f}", ratio=f"{ratio:.1f}"))  # fmt: skip
    st.plotly_chart(figs.heatmaps_figure(run, lang()), width="stretch", key="why.pinn.maps")
    left, right = st.columns(2, gap="large")
    left.plotly_chart(figs.slices_figure(run, lang()), width="stretch", key="why.pinn.slices")
    right.plotly_chart(figs.losses_figure(run, lang()), width="stretch", key="why.pinn.losses")
    st.markdown(t("pinn.explain"))
    why_script(code, pinn_func(config), "pinn")  # .py, torch.func, notebook
