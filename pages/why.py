"""Why gradients of gradients: one live experiment per tab, each with its runnable code.

A tab is a function in TABS; a new application adds its function and one entry there.
"""

from collections.abc import Callable

import pandas as pd
import streamlit as st

from hograd_core import HogradError
from hograd_core.applications import gradient_stats as gs
from hograd_core.applications import newton as nt
from hograd_core.applications.hessian_free import HF_BUDGET
from hograd_core.network import DATASETS
from hograd_serving.cached import (
    why_anomaly,
    why_gradient_stats,
    why_hessian_free,
    why_newton,
    why_quadratic,
    why_stability,
)
from hograd_ui import why_figures as figs
from pages import _why_maml, _why_pinn, _why_wgan
from pages._downloads import newton_func, why_func, why_script
from pages._link_form import Field, LinkedForm
from pages._links import BIND
from pages._ui import function_box, lang, lazy_tabs, localized_radio, show_error, static_table, t

KAPPAS = [1, 2, 5, 10, 100, 1000]
STATUS = {"converged": "why.status.converged", "steps": "why.status.steps",
          "diverged": "why.status.diverged", "singular": "why.status.singular"}  # fmt: skip
KINDS = {"minimum": "hvp.kind.minimum", "maximum": "hvp.kind.maximum",
         "saddle": "hvp.kind.saddle", "degenerate": "hvp.kind.degenerate",
         "not_critical": "hvp.kind.not_critical"}  # fmt: skip


def num(x: float, digits: int = 4) -> str:
    return figs.finite_or_dash(float(x), digits)


def caption(done: int, total: int) -> str:
    return t("why.progress", done=done, total=total)


# The forms' settings enter the URL when Run is pressed, not while they are edited
# (pages/_link_form.py); a link with them opens the tab computed with them.
WIDTHS = (4, 8, 16, 32, 64)
HF_FORM = LinkedForm({
    "why.hf.data": Field("radio", "moons", options=DATASETS),  # fast to train
    "why.hf.layers": Field("slider", 1, 1, HF_BUDGET.max_layers),
    "why.hf.width": Field("select", 16, options=WIDTHS),
    "why.hf.steps": Field("slider", 15, 1, HF_BUDGET.max_steps),
    "why.hf.cg": Field("slider", 20, 1, HF_BUDGET.max_cg),
    "why.hf.damping": Field("select", 1.0, options=(0.01, 0.1, 1.0, 10.0, 100.0)),
    "why.hf.sgd_lr": Field("select", 0.5, options=(0.01, 0.05, 0.1, 0.5, 1.0, 2.0)),
    "why.hf.adam_lr": Field("select", 0.01, options=(0.001, 0.003, 0.01, 0.03, 0.1)),
    "why.hf.seed": Field("number", 0, 0, 999),
})  # fmt: skip
STABILITY_FORM = LinkedForm({
    "why.stability.data": Field("radio", "moons", options=DATASETS),
    "why.stability.layers": Field("slider", 2, 1, 3),
    "why.stability.width": Field("select", 16, options=WIDTHS),
    "why.stability.net_lr": Field("select", 0.5, options=(0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0)),
    "why.stability.net_steps": Field("slider", 500, 50, 1000, 50),
    "why.stability.every": Field("select", 20, options=(5, 10, 20, 50, 100)),
})  # fmt: skip
_H = gs.SCENARIOS["healthy"]  # the stats form's defaults
STATS_FORM = LinkedForm({
    "why.stats.activation": Field("radio", _H.activation, options=("tanh", "relu")),
    "why.stats.dtype": Field("radio", _H.dtype, options=("float64", "float32")),
    "why.stats.depth": Field("slider", _H.depth, 1, 12),
    "why.stats.width": Field("select", _H.width, options=(8, 16, 32, 64, 128)),
    "why.stats.steps": Field("slider", _H.steps, 10, 300, 10),
    "why.stats.batch": Field("select", _H.batch, options=(32, 64, 128, 256)),
    "why.stats.lr": Field("select", _H.lr, options=(0.001, 0.01, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0)),
    "why.stats.gain": Field("slider", _H.gain, 0.5, 3.0, 0.1),
    "why.stats.clip": Field("select", _H.clip, options=(0.0, 0.1, 0.5, 1.0, 5.0, 10.0),
                            label=lambda v: t("why.stats.clip_off") if v == 0 else f"{v:g}"),
    "why.stats.naive_loss": Field("checkbox", _H.naive_loss),
})  # fmt: skip


def form_radio(label: str, options: dict[str, str], key: str, default: str) -> str:
    """A radio inside a form (no callbacks there), keyed per language so the browser keeps the
    choice when the labels change; ``key`` holds the choice between languages (and the link's
    value, which the form's ``seed`` put there)."""
    widget = f"{key}.{lang()}"
    if widget not in st.session_state:
        st.session_state[widget] = st.session_state.get(key, default)
    return st.radio(label, list(options), key=widget, format_func=options.__getitem__,
                    horizontal=True)  # fmt: skip


def keep(key: str, value: object) -> None:
    """Remember a form radio's choice for the other language and for the link (after the
    form is drawn: inside a form the radio's value changes only when Run is pressed)."""
    st.session_state[key] = value


# ---- Newton vs gradient descent --------------------------------------------------------------


def use_kappa() -> None:
    st.session_state["why.newton.fn"] = nt.quadratic(st.session_state["why.newton.kappa"])


def apply_preset(text: str) -> None:
    p = nt.preset_for(text) or nt.Preset((1.0, 1.0), 0.01, 100, None)
    st.session_state["why.newton.x0"], st.session_state["why.newton.y0"] = p.start
    st.session_state["why.newton.lr"], st.session_state["why.newton.steps"] = p.lr, p.steps


def newton_tab() -> None:
    st.markdown(t("why.newton.intro"))
    fn = function_box("why.newton", t("why.newton.fn"), list(nt.PRESETS))
    st.select_slider(t("hvp.kappa.label"), KAPPAS, value=10, key="why.newton.kappa", bind=BIND,
                     help=t("hvp.kappa.help"), on_change=use_kappa)  # fmt: skip
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
    c = st.columns(6)
    chosen = tuple(
        m for i, m in enumerate(nt.METHODS)
        if c[i].checkbox(t(figs.METHOD_KEYS[m]), value=m in ("gd", "newton"), key=f"why.newton.{m}", bind=BIND)
    )  # fmt: skip
    damping = c[4].select_slider(t("why.newton.damping"), [0.01, 0.1, 0.5, 1.0, 2.0, 10.0, 100.0],
                                 value=1.0, key="why.newton.damping", bind=BIND)  # fmt: skip
    radius = c[5].select_slider(t("why.newton.radius"), [0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0],
                                value=0.5, key="why.newton.radius", bind=BIND)  # fmt: skip
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
    left.plotly_chart(figs.newton_paths_figure(race, lang()), width="stretch")
    right.plotly_chart(figs.newton_convergence_figure(race, lang()), width="stretch")
    why_script(code, newton_func(code.source), "newton", text=fn.text, start=(x0, y0))


# ---- Hessian-free Newton ---------------------------------------------------------------------


def network_widgets(form: LinkedForm, prefix: str) -> tuple[str, tuple]:
    data = form_radio(t("hvp.net.dataset"), {d: t(f"hvp.net.dataset.{d}") for d in DATASETS},
                      f"{prefix}.data", form.fields[f"{prefix}.data"].default)  # fmt: skip
    c = st.columns(2)
    depth = form.draw(f"{prefix}.layers", c[0], t("hvp.net.layers"))
    width = form.draw(f"{prefix}.width", c[1], t("hvp.net.width"))
    return data, (width,) * depth


def hf_tab() -> None:
    st.markdown(t("why.hf.intro"))
    HF_FORM.seed()
    with st.form("why.hf.form"):
        data, hidden = network_widgets(HF_FORM, "why.hf")
        c = st.columns(3)
        steps = HF_FORM.draw("why.hf.steps", c[0], t("why.hf.steps"))
        cg = HF_FORM.draw("why.hf.cg", c[1], t("why.hf.cg"))
        damping = HF_FORM.draw("why.hf.damping", c[2], t("why.hf.damping"))
        c = st.columns(3)
        sgd_lr = HF_FORM.draw("why.hf.sgd_lr", c[0], t("why.hf.sgd_lr"))
        adam_lr = HF_FORM.draw("why.hf.adam_lr", c[1], t("why.hf.adam_lr"))
        seed = HF_FORM.draw("why.hf.seed", c[2], t("hvp.net.seed"))
        st.form_submit_button(t("why.run"), type="primary")
    keep("why.hf.data", data)
    HF_FORM.write()
    try:
        run, code = why_hessian_free(data, hidden, steps, cg, damping, sgd_lr, adam_lr, seed,
                                     _caption=caption)  # fmt: skip
    except HogradError as err:
        show_error(err)
        return
    m = st.columns(5)
    m[0].metric(t("hvp.net.metric.parameters"), f"{run.parameters:,}")
    m[1].metric(t("why.hf.metric.hvps"), f"{run.hvps.mean():.1f}" if run.hvps.size else "—")
    m[2].metric(t("why.hf.metric.passes"), f"{int(run.hf_passes[-1]):,}")
    m[3].metric(t("why.hf.metric.hvp_cost"), f"{run.hvp_seconds / run.grad_seconds:.2f} ×")
    m[4].metric(
        t("why.hf.metric.hvp_memory"), f"{run.hvp_saved_bytes / run.grad_saved_bytes:.2f} ×"
    )
    hf_passes = int(run.hf_passes[-1])
    st.markdown(t(
        "why.hf.result", hf=num(run.hf_losses[-1]), passes=hf_passes,
        seconds=f"{run.hf_seconds[-1]:.2f}", sgd=num(run.sgd_losses[min(hf_passes, len(run.sgd_losses) - 1)]),
        adam=num(run.adam_losses[min(hf_passes, len(run.adam_losses) - 1)]), sgd_wall=num(run.sgd_losses[-1]),
        adam_wall=num(run.adam_losses[-1]), sgd_passes=len(run.sgd_losses) - 1,
        adam_passes=len(run.adam_losses) - 1, grad=f"{run.grad_seconds * 1e3:.2f}",
        hvp=f"{run.hvp_seconds * 1e3:.2f}", grad_kb=f"{run.grad_saved_bytes / 1024:,.0f}",
        hvp_kb=f"{run.hvp_saved_bytes / 1024:,.0f}",
    ))  # fmt: skip
    for method, status in run.status.items():
        if status == "diverged":
            st.warning(t("why.hf.diverged", method=t(figs.METHOD_KEYS[method])))
    axes = {"passes": t("why.hf.axis.passes"), "seconds": t("why.hf.axis.seconds")}
    axis = localized_radio(t("why.hf.axis"), axes, "why.hf.axis", horizontal=True)
    left, right = st.columns([3, 2], gap="large")
    left.plotly_chart(figs.hf_figure(run, lang(), axis), width="stretch")
    with right:
        steps_table = pd.DataFrame({
            t("why.hf.col.step"): range(1, run.hvps.size + 1), t("why.hf.col.hvps"): run.hvps,
            t("why.hf.col.damping"): [f"{v:.3g}" for v in run.damping],
            t("why.hf.col.residual"): [f"{v:.1e}" for v in run.residuals],
            t("why.hf.col.rho"): [num(v, 3) for v in run.rho],
            t("why.hf.col.loss"): [num(v, 5) for v in run.hf_losses[1:]],
        })  # fmt: skip
        st.dataframe(steps_table, hide_index=True, width="stretch", height=340)
        st.caption(t("why.hf.table_note"))
    why_script(code, why_func("hf", code.source), "hf")


# ---- the stability limit ---------------------------------------------------------------------


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
    key = {"shrinks": "why.stability.shrinks", "grows": "why.stability.grows",
           "diverged": "why.stability.overflow"}[run.status]  # fmt: skip
    key = "why.stability.edge" if run.regime == "edge" else key
    box = st.success if run.regime == "stable" else st.info if run.regime == "edge" else st.warning
    box(t(key, factor=num(run.factors[1], 4), limit=num(2 / run.lambda_max, 4),
          step=len(run.losses) - 1))  # fmt: skip
    st.plotly_chart(figs.quadratic_figure(run, lang()), width="stretch")
    why_script(code, why_func("quadratic", code.source), "quadratic")


def network_part() -> None:
    st.markdown(t("why.stability.net_intro"))
    STABILITY_FORM.seed()
    with st.form("why.stability.form"):
        data, hidden = network_widgets(STABILITY_FORM, "why.stability")
        c = st.columns(3)
        lr = STABILITY_FORM.draw("why.stability.net_lr", c[0], "lr")
        steps = STABILITY_FORM.draw("why.stability.net_steps", c[1], t("why.newton.steps"))
        every = STABILITY_FORM.draw("why.stability.every", c[2], t("why.stability.every"))
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
    st.plotly_chart(figs.sharpness_figure(run, lang()), width="stretch")
    why_script(code, why_func("stability", code.source), "stability", lr=lr, every=every)


def stability_tab() -> None:
    parts = {"quadratic": t("why.stability.part.quadratic"),
             "network": t("why.stability.part.network")}  # fmt: skip
    part = localized_radio(t("why.stability.part"), parts, "why.stability.part", horizontal=True)
    quadratic_part() if part == "quadratic" else network_part()


# ---- gradient statistics ---------------------------------------------------------------------

STATS_KEYS = ("activation", "depth", "width", "lr", "steps", "batch", "gain", "clip", "dtype",
              "naive_loss")  # fmt: skip


def use_scenario(name: str) -> None:
    config = gs.SCENARIOS[name]
    for field in STATS_KEYS:
        st.session_state[f"why.stats.{field}"] = getattr(config, field)
    for code in ("en", "zh"):  # the form radios, keyed per language
        st.session_state.pop(f"why.stats.activation.{code}", None)
        st.session_state.pop(f"why.stats.dtype.{code}", None)


def stats_tab() -> None:
    st.markdown(t("why.stats.intro"))
    scenarios = {"healthy": t("why.stats.scenario.healthy"), "vanish": t("why.stats.scenario.vanish"),
                 "explode": t("why.stats.scenario.explode"), "nan32": t("why.stats.scenario.nan32")}  # fmt: skip
    c = st.columns(len(scenarios))
    for col, (name, label) in zip(c, scenarios.items(), strict=True):
        col.button(label, key=f"why.stats.use.{name}", on_click=use_scenario, args=(name,),
                   width="stretch")  # fmt: skip
    STATS_FORM.seed()  # the fields' defaults are the healthy scenario
    with st.form("why.stats.form"):
        c = st.columns(2)
        with c[0]:
            act = form_radio(t("why.stats.activation_label"), {"tanh": "tanh", "relu": "ReLU"},
                             "why.stats.activation", _H.activation)  # fmt: skip
        with c[1]:
            dtype = form_radio(t("why.stats.dtype_label"), {"float64": "float64", "float32": "float32"},
                               "why.stats.dtype", _H.dtype)  # fmt: skip
        c = st.columns(4)
        f = STATS_FORM.draw
        depth = f("why.stats.depth", c[0], t("why.stats.depth"))
        width = f("why.stats.width", c[1], t("hvp.net.width"))
        steps = f("why.stats.steps", c[2], t("why.newton.steps"))
        batch = f("why.stats.batch", c[3], t("why.stats.batch"))
        c = st.columns(4)
        lr = f("why.stats.lr", c[0], "lr")
        gain = f("why.stats.gain", c[1], t("why.stats.gain"))
        clip = f("why.stats.clip", c[2], t("why.stats.clip"))
        naive = f(
            "why.stats.naive_loss", c[3], t("why.stats.naive"), help=t("why.stats.naive_help")
        )
        st.form_submit_button(t("why.run"), type="primary")
    keep("why.stats.activation", act)
    keep("why.stats.dtype", dtype)
    STATS_FORM.write()
    config = gs.StatsConfig(act, depth, width, lr, steps, batch, round(gain, 2), clip, dtype, naive)
    try:
        stats, code, csv_text, json_text = why_gradient_stats(config, _caption=caption)
    except HogradError as err:
        show_error(err)
        return
    show_nan(stats, config)
    left, right = st.columns(2, gap="large")
    with left:
        st.markdown("**" + t("why.stats.norms_title") + "**")
        st.plotly_chart(figs.layer_norms_figure(stats, lang()), width="stretch")
        st.caption(
            t("why.stats.norms_note", clipped=int(stats.clipped.sum()), steps=len(stats.losses))
        )
        st.markdown("**" + t("why.stats.precision_title") + "**")
        st.plotly_chart(figs.precision_figure(stats, lang()), width="stretch")
        st.markdown(precision_text(stats))
    with right:
        if stats.hist_steps.size:
            at = st.select_slider(t("why.stats.hist_step"), list(stats.hist_steps),
                                  value=int(stats.hist_steps[-1]),
                                  key=f"why.stats.hist_at.{stats.hist_steps[-1]}")  # fmt: skip
            index = list(stats.hist_steps).index(at)
            st.plotly_chart(figs.histogram_figure(stats, index, lang()), width="stretch")
            st.caption(t("why.stats.hist_note"))
        downloads(stats, csv_text, json_text)
    why_script(code, why_func("stats", code.source), "stats")


def show_nan(stats: gs.GradientStats, config: gs.StatsConfig) -> None:
    if stats.nan_step is None:
        st.success(t("why.stats.no_nan", steps=len(stats.losses)))
        return
    layers = ", ".join(stats.nan_layers) or "—"
    st.error(t("why.stats.nan", step=stats.nan_step, layers=layers,
               loss=t("why.stats.nan_loss") if stats.nan_in_loss else ""), icon=":material/warning:")  # fmt: skip
    if stats.nan_source is not None:
        node, output = stats.nan_source
        st.markdown(t("why.stats.nan_source", node=node, output=output))
    if st.button(t("why.stats.anomaly_button"), key="why.stats.anomaly"):
        st.session_state["why.stats.anomaly_for"] = config
    if st.session_state.get("why.stats.anomaly_for") == config:
        try:
            with st.spinner(t("why.stats.anomaly_running")):
                message = why_anomaly(config)
        except HogradError as err:
            show_error(err)
            return
        st.caption(t("why.stats.anomaly_said"))
        st.code(message or "—", language=None)


def precision_text(stats: gs.GradientStats) -> str:
    mine, other = stats.config.dtype, stats.other_dtype
    if stats.nan_step is not None and stats.other_nan_step is None:
        return t("why.stats.precision_saved", bad=mine, good=other, step=stats.nan_step)
    if stats.nan_step is None and stats.other_nan_step is not None:
        return t("why.stats.precision_saved", bad=other, good=mine, step=stats.other_nan_step)
    n = min(len(stats.losses), len(stats.other_losses))
    gap = abs(stats.losses[:n] - stats.other_losses[:n])
    return t("why.stats.precision_gap", gap=f"{float(gap.max()):.1e}" if n else "—")


def downloads(stats: gs.GradientStats, csv_text: str, json_text: str) -> None:
    c = st.columns(3)
    c[0].download_button(t("why.stats.csv"), csv_text, "gradient-stats.csv", "text/csv",
                         key="why.stats.csv", on_click="ignore")  # fmt: skip
    c[1].download_button(t("why.stats.json"), json_text, "gradient-stats.json",
                         "application/json", key="why.stats.json", on_click="ignore")  # fmt: skip
    if figs.tensorboard_available():
        c[2].download_button(t("why.stats.tensorboard"), lambda: figs.tensorboard_archive(stats),
                             "gradient-stats-tensorboard.zip", "application/zip",
                             key="why.stats.tb", on_click="ignore")  # fmt: skip
    else:
        c[2].caption(t("why.stats.no_tensorboard"))


TABS: dict[str, tuple[str, Callable[[], None]]] = {
    "newton": ("why.tab.newton", newton_tab),
    "hf": ("why.tab.hf", hf_tab),
    "stability": ("why.tab.stability", stability_tab),
    "stats": ("why.tab.stats", stats_tab),
    # maml
    "maml": ("maml.tab", _why_maml.draw),
    # pinn
    "pinn": ("pinn.tab", _why_pinn.draw),
    # wgan
    "wgan": ("wgan.tab", _why_wgan.draw),
}

st.title(t("why.title"))
st.markdown(t("why.lead"))
tabs = lazy_tabs({name: t(key) for name, (key, _) in TABS.items()}, "why.tab")
for name, (_, draw) in TABS.items():
    if tabs[name].open:
        with tabs[name]:
            draw()
