"""Hessian-vector products: what Hv means on a typed function, and on a trained network."""

import math
from collections.abc import Callable

import numpy as np
import pandas as pd
import streamlit as st

from hograd_core import HogradError
from hograd_core import curvature as cv
from hograd_core import network as nw
from hograd_serving.cached import POWER_STEPS, analysed, explore, three_ways, trained
from hograd_ui import hvp_figures as figs
from hograd_ui.i18n import tr
from pages._ui import function_box, lang, lazy_tabs, localized_radio, show_error, t


def quadratic(kappa: float) -> str:
    """((x+y)² + κ(y−x)²)/4: eigenvalues 1 and κ along the diagonals."""
    return f"((x+y)^2 + {kappa:g}*(y-x)^2)/4"


KAPPAS = [1, 2, 5, 10, 100, 1000]
# Each example: its point p, direction v and window half-width r.
PRESETS = {
    "w1**2*sin(w2)": ((1.0, math.pi / 2), (0.5, 1.0), 1.5),
    "(1 - x)^2 + 100*(y - x^2)^2": ((1.0, 1.0), (1.0, 0.0), 1.5),
    "x^2 - y^2": ((0.0, 0.0), (1.0, 0.5), 1.5),
    "x^4 + y^4": ((0.0, 0.0), (1.0, 1.0), 1.5),
    quadratic(10): ((0.0, 0.0), (1.0, 0.0), 2.0),
}
EXAMPLES = {**PRESETS, **{quadratic(k): PRESETS[quadratic(10)] for k in KAPPAS}}
LIMIT, STEP = 3.0, 0.05
WIDTHS = [2, 4, 8, 16, 32, 64, 128, 256, 512]
CODE = """g = torch.autograd.grad(f(w), w, create_graph=True)[0]   # {kept}
hv = torch.autograd.grad(g @ v, w)[0]                       # 1. {one}

hv = torch.func.jvp(torch.func.grad(f), (w,), (v,))[1]      # 2. {two}

hv = torch.autograd.functional.hvp(f, w, v)[1]              # 3. {three}"""


def num(x: float, digits: int = 6) -> str:
    return f"{x:.{digits}g}" if math.isfinite(x) else "—"


def label(language: str, prefix: str) -> Callable[[str], str]:
    """A format_func with the language fixed now (it is also called outside the script run)."""
    return lambda option: tr(f"{prefix}.{option}", language)


def size(n_bytes: float) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n_bytes >= scale:
            return f"{n_bytes / scale:.3g} {unit}"
    return f"{n_bytes:.0f} B"


def use_kappa() -> None:
    st.session_state["hvp.fn"] = quadratic(st.session_state["hvp.kappa"])


def set_example(text: str, names: tuple) -> None:
    """Put p, v and r of the example ``text`` (or defaults) into the sliders' state."""
    point, vector, radius = EXAMPLES.get(text, ((1.0,) * len(names), (1.0,) * len(names), 1.5))
    for name, p, v in zip(names, point, vector, strict=False):
        st.session_state[f"hvp.p.{name}"], st.session_state[f"hvp.v.{name}"] = p, v
    st.session_state["hvp.radius"] = radius


def typed_mode() -> None:
    fn = function_box("hvp", t("hvp.fn.label"), list(PRESETS))
    names = fn.variables
    left, right = st.columns([3, 2], gap="large")
    left.latex("f = " + fn.latex)
    with right:
        st.select_slider(
            t("hvp.kappa.label"), KAPPAS, value=10, key="hvp.kappa", help=t("hvp.kappa.help"),
            on_change=use_kappa,
        )  # fmt: skip
    if st.session_state.get("hvp.applied") != fn.text:  # a new function: its example's p, v
        st.session_state["hvp.applied"] = fn.text
        set_example(fn.text, names)
    cols = st.columns([2, 2, 1], gap="large")
    sliders = {}
    for col, kind, low in ((cols[0], "p", -LIMIT), (cols[1], "v", -2.0)):
        with col:
            st.markdown(f"**{t('hvp.point' if kind == 'p' else 'hvp.vector')}**")
            sliders[kind] = tuple(
                st.slider(f"`{name}`", low, -low, step=STEP, key=f"hvp.{kind}.{name}")
                for name in names
            )  # fmt: skip
    with cols[2]:
        radius = st.slider(t("hvp.radius"), 0.25, 5.0, step=0.25, key="hvp.radius")
        st.button(t("hvp.reset"), on_click=set_example, args=(fn.text, names))
    try:
        ex = explore(fn.text, sliders["p"], sliders["v"], radius)
    except HogradError as err:
        show_error(err)
        st.stop()
    r, verdict = ex.result, ex.verdict
    m = st.columns([2, 2, 2, 3])
    m[0].metric(t("hvp.metric.value"), num(r.value, 4))
    m[1].metric(t("hvp.metric.grad_norm"), num(float(np.linalg.norm(figs.clean(r.gradient))), 4))
    m[2].metric(t("hvp.metric.curvature"), num(r.curvature, 4), help=t("hvp.metric.curvature.help"))
    kind = t(f"hvp.kind.{verdict.kind}") if verdict.critical else t("hvp.kind.not_critical")
    m[3].metric(t("hvp.metric.verdict"), kind, help=t("hvp.metric.verdict.help"))
    rows = (r.point, r.vector, figs.clean(r.gradient), figs.clean(r.hvp))
    table = pd.DataFrame(
        [[num(x) for x in row] for row in rows], columns=names,
        index=[t(f"hvp.col.{c}") for c in ("point", "vector", "gradient", "hv")],
    )  # fmt: skip
    st.dataframe(table, width="stretch")
    st.caption(t("hvp.table.caption", ms=f"{r.seconds * 1000:.2f}"))

    views = ("picture", "hessian", "ways", "slices", "power")
    tabs = lazy_tabs({k: t(f"hvp.tab.{k}") for k in views}, "hvp.tab")
    if tabs["picture"].open:
        with tabs["picture"]:
            picture(ex, names)
    if tabs["hessian"].open:
        with tabs["hessian"]:
            hessian(ex, names)
    if tabs["ways"].open:
        with tabs["ways"]:
            ways = three_ways(fn.text, sliders["p"], sliders["v"])
            st.markdown(t("hvp.ways.intro", repeats=ways.repeats))
            fastest = float(np.min(ways.seconds))
            labels = [t(f"hvp.method.{m}") for m in cv.METHODS]
            rows = [
                [labels[i], "(" + ", ".join(num(x) for x in figs.clean(ways.values[i])) + ")",
                 f"{ways.max_error[i]:.1e}" if ways.max_error[i] else "0",
                 f"{ways.seconds[i] / fastest:.1f}×"] for i in range(len(labels))
            ]  # fmt: skip
            header = ["hvp.ways.method", "hvp.ways.hv", "hvp.ways.error", "hvp.ways.relative"]
            st.dataframe(
                pd.DataFrame(rows, columns=[t(h) for h in header]), hide_index=True, width="stretch"
            )
            st.plotly_chart(figs.ways_figure(ways.seconds, labels, lang()), width="stretch")
            comments = {k: t(f"hvp.code.{k}") for k in ("kept", "one", "two", "three")}
            st.code(CODE.format(**comments), language="python")
            st.caption(t("hvp.ways.note"))
    if tabs["slices"].open:
        with tabs["slices"]:
            st.markdown(t("hvp.slices.intro"))
            st.plotly_chart(figs.slices_figure(ex.slices, names, lang()), width="stretch")
    if tabs["power"].open:
        with tabs["power"]:
            power(ex.power, names)


def picture(ex: cv.Exploration, names: tuple) -> None:
    if ex.grid is None:
        st.info(t("hvp.picture.need_two", n=len(names)))
        return

    def picked() -> None:  # a click on the contour moves p to the clicked lattice point
        points = st.session_state["hvp.contour"]["selection"]["points"]
        if points:
            for name, axis in zip(names, ("x", "y"), strict=True):
                value = round(points[0][axis] / STEP) * STEP
                st.session_state[f"hvp.p.{name}"] = float(np.clip(value, -LIMIT, LIMIT))

    surface = st.toggle(t("hvp.picture.surface"), key="hvp.surface")
    fig = figs.contour_figure(ex.grid, ex.result, lang())
    st.plotly_chart(
        fig, width="stretch", key="hvp.contour", on_select=picked, selection_mode="points"
    )
    st.caption(t("hvp.picture.caption"))
    if surface:
        st.plotly_chart(figs.surface_figure(ex.grid, ex.result, lang()), width="stretch")


def hessian(ex: cv.Exploration, names: tuple) -> None:
    r, v = ex.result, ex.verdict
    left, right = st.columns([1, 1], gap="large")
    left.plotly_chart(figs.hessian_figure(r, lang()), width="stretch")
    with right:
        st.markdown("#### " + t("hvp.eigen.title"))
        vectors = figs.clean(r.eigenvectors)
        eig = pd.DataFrame(
            [[num(r.eigenvalues[i]), *[num(x) for x in vectors[:, i]]] for i in range(len(names))],
            columns=[t("hvp.eigen.value"), *names], index=[f"e{i + 1}" for i in range(len(names))],
        )  # fmt: skip
        st.dataframe(eig, width="stretch")
        st.caption(t("hvp.eigen.vector"))
        reason = t(
            f"hvp.reason.{v.reason}",
            n=len(names),
            pos=v.positive,
            neg=v.negative,
            zero=v.zero,
            tol=f"{v.tolerance:.0e}",
        )
        if v.critical:
            box = st.success if v.kind in ("minimum", "maximum") else st.warning
            box(f"**{t(f'hvp.verdict.{v.kind}')}** {reason}")
            st.markdown(t("hvp.verdict.critical"))
        else:
            st.info(f"**{t('hvp.verdict.shape', kind=t(f'hvp.kind.{v.kind}'))}** {reason}")
            st.markdown(
                t(
                    "hvp.verdict.not_critical",
                    norm=num(float(np.linalg.norm(figs.clean(r.gradient)))),
                )
            )
        if v.minors:
            st.markdown(
                t(
                    "hvp.verdict.minors",
                    minors=", ".join(f"D{k + 1} = {num(d)}" for k, d in enumerate(v.minors)),
                )
            )
        if len(v.minors) == 2:
            st.markdown(t("hvp.verdict.minors_two", det=num(v.minors[1])))


def power(p: cv.PowerIteration, names: tuple) -> None:
    st.markdown(t("hvp.power.intro", target=num(p.target, 4), ratio=num(p.ratio, 3)))
    if p.status != "ok":
        st.warning(t(f"hvp.power.{p.status}"))
        if p.status == "zero_start":
            return
    if p.ratio >= 1 - 1e-9:
        st.warning(t("hvp.power.tie"))
    st.plotly_chart(figs.power_figure(p, names, lang()), width="stretch")
    last = (
        int(np.max(np.nonzero(np.isfinite(p.rayleigh))[0]))
        if np.any(np.isfinite(p.rayleigh))
        else 0
    )
    m = st.columns(3)
    m[0].metric(t("hvp.power.rayleigh_at", k=last), num(p.rayleigh[last], 6))
    m[1].metric(t("hvp.power.target"), num(p.target, 6))
    m[2].metric(t("hvp.power.alignment"), num(p.alignment[last], 6))
    if p.converged_at is not None:
        st.caption(t("hvp.power.converged", k=p.converged_at))
    elif p.status == "ok":
        st.caption(t("hvp.power.not_converged", steps=POWER_STEPS))


def network_mode() -> None:
    budget = nw.NETWORK_BUDGET
    st.markdown(t("hvp.net.intro", limit=f"{budget.full_hessian_max:,}"))
    with st.form("hvp.net.form", border=True):
        # Keyed per language like localized_radio (a form allows no on_change callback), so
        # the choice survives a language switch; "hvp.net.data" holds it.
        widget = f"hvp.net.dataset.{lang()}"
        if widget not in st.session_state:  # first run in this language: the last choice
            st.session_state[widget] = st.session_state.get("hvp.net.data", nw.DATASETS[0])
        dataset = st.radio(
            t("hvp.net.dataset"), nw.DATASETS, key=widget, horizontal=True,
            format_func=label(lang(), "hvp.net.dataset"),
        )  # fmt: skip
        c = st.columns(4, gap="large")
        layers = c[0].slider(t("hvp.net.layers"), 1, budget.max_layers, 1, key="hvp.net.layers")
        width = c[1].select_slider(t("hvp.net.width"), WIDTHS, 16, key="hvp.net.width")
        steps = c[2].slider(t("hvp.net.steps"), 50, 1000, 300, 50, key="hvp.net.steps")
        seed = c[3].number_input(t("hvp.net.seed"), 0, 999, 0, key="hvp.net.seed")
        c = st.columns(4, gap="large")
        top_k = c[0].slider(t("hvp.net.top_k"), 1, budget.max_top_k, 3, key="hvp.net.top_k")
        power_steps = c[1].slider(t("hvp.net.power_steps"), 5, 100, 20, 5, key="hvp.net.power")
        probes = c[2].slider(t("hvp.net.probes"), 10, 200, 30, 10, key="hvp.net.probes")
        st.form_submit_button(t("hvp.net.train"), type="primary")
    st.session_state["hvp.net.data"] = dataset
    key = (dataset, (width,) * layers, steps, int(seed))
    config = nw.NetConfig(dataset, key[1])
    n = nw.count_parameters(config)
    shape = " → ".join(str(w) for w in nw.layer_sizes(config))
    st.caption(t("hvp.net.size", n=f"{n:,}", shape=shape, entries=f"{n * n:,}"))

    def training_caption(step: int, total: int, loss: str) -> str:
        return t("hvp.net.training", step=step, total=total, loss=loss)

    try:
        net = trained(*key, _caption=training_caption)
        with st.spinner(t("hvp.net.analysing")):
            curv = analysed(key, top_k, power_steps, probes, net)
    except HogradError as err:
        show_error(err)
        st.stop()
    m = st.columns(4)
    m[0].metric(t("hvp.net.metric.parameters"), f"{curv.parameters:,}")
    m[1].metric(t("hvp.net.metric.accuracy"), f"{net.test_accuracy:.1%}")
    m[2].metric(t("hvp.net.metric.loss", m=curv.examples), f"{curv.loss:.4f}")
    m[3].metric(t("hvp.net.metric.time", steps=net.steps), f"{net.seconds:.1f} s")
    if net.stopped_by_time:
        st.warning(
            t("hvp.net.stopped", steps=net.steps, total=steps, limit=f"{budget.max_seconds:g}")
        )
    names = ("top", "trace", "sharp", "hessian", "training")
    tabs = lazy_tabs({k: t(f"hvp.net.tab.{k}") for k in names}, "hvp.net.tab")
    if tabs["top"].open:
        with tabs["top"]:
            ref = curv.reference
            rows = [
                [
                    t("hvp.net.method.lanczos"),
                    num(curv.lanczos[0]),
                    curv.lanczos_hvps,
                    f"{curv.lanczos_seconds * 1e3:.0f}",
                    abs(curv.lanczos[0] - ref) / abs(ref),
                ],
                [
                    t("hvp.net.method.power", steps=curv.power.size),
                    num(curv.power[-1]),
                    curv.power.size,
                    f"{curv.power_seconds * 1e3:.0f}",
                    abs(curv.power[-1] - ref) / abs(ref),
                ],
            ]
            if curv.exact is not None:
                rows.append(
                    [
                        t("hvp.net.method.exact"),
                        num(curv.exact[0]),
                        curv.parameters,
                        f"{curv.hessian_seconds * 1e3:.0f}",
                        0.0,
                    ]
                )
            header = [
                t(f"hvp.net.col.{c}") for c in ("method", "estimate", "hvps", "time", "error")
            ]
            table = pd.DataFrame(rows, columns=header)
            table[header[4]] = table[header[4]].map(lambda e: f"{e:.2e}" if e else "0")
            st.dataframe(table, hide_index=True, width="stretch")
            if curv.exact is not None:
                st.caption(t("hvp.net.error_vs_exact"))
            elif curv.full_skipped_seconds is not None:
                st.caption(t("hvp.net.error_vs_lanczos_time"))
            else:
                st.caption(t("hvp.net.error_vs_lanczos", limit=f"{budget.full_hessian_max:,}"))
            st.markdown(
                t(
                    "hvp.net.topk",
                    k=curv.lanczos.size,
                    values=", ".join(num(x) for x in curv.lanczos),
                )
            )
            st.markdown(
                t(
                    "hvp.net.cost",
                    grad=f"{curv.grad_seconds * 1e3:.2f}",
                    hvp=f"{curv.hvp_seconds * 1e3:.2f}",
                    ratio=f"{curv.hvp_seconds / curv.grad_seconds:.1f}",
                )
            )
            st.markdown(
                t(
                    "hvp.net.residual",
                    lanczos=f"{curv.lanczos_residual:.1e}",
                    power=f"{curv.power_residual:.1e}",
                )
            )
            st.plotly_chart(figs.net_power_figure(curv, lang()), width="stretch")
            st.caption(t("hvp.net.power_note"))
    if tabs["trace"].open:
        with tabs["trace"]:
            st.markdown(t("hvp.net.trace.intro"))
            st.markdown(
                "### "
                + t(
                    "hvp.net.trace.estimate",
                    trace=num(curv.trace),
                    error=num(2 * curv.trace_error),
                    m=curv.probes.size,
                )
            )
            if curv.trace_exact is not None:
                st.markdown(t("hvp.net.trace.exact", exact=num(curv.trace_exact)))
            st.plotly_chart(figs.hutchinson_figure(curv, lang()), width="stretch")
    if tabs["sharp"].open:
        with tabs["sharp"]:
            st.markdown(
                t(
                    "hvp.net.sharp.intro",
                    lam=num(curv.reference),
                    mean=num(curv.trace / curv.parameters),
                )
            )
            st.plotly_chart(figs.directions_figure(curv, lang()), width="stretch")
    if tabs["hessian"].open:
        with tabs["hessian"]:
            mem = st.columns(2)
            mem[0].metric(t("hvp.net.memory.full"), size(curv.full_bytes))
            mem[1].metric(t("hvp.net.memory.hvp"), size(curv.hvp_bytes))
            st.caption(t("hvp.net.memory.help"))
            if curv.full_skipped_seconds is not None:
                st.info(
                    t(
                        "hvp.net.full_skipped",
                        n=f"{curv.parameters:,}",
                        seconds=f"{curv.full_skipped_seconds:.1f}",
                    )
                )
            elif curv.heatmap is None:
                st.info(
                    t(
                        "hvp.net.too_big",
                        limit=f"{budget.full_hessian_max:,}",
                        n=f"{curv.parameters:,}",
                    )
                )
            else:
                caption = (
                    "hvp.net.hessian.caption"
                    if curv.heatmap_block > 1
                    else "hvp.net.hessian.caption_full"
                )
                st.caption(
                    t(
                        caption,
                        n=f"{curv.parameters:,}",
                        seconds=f"{curv.hessian_seconds:.1f}",
                        b=curv.heatmap_block,
                    )
                )
                st.plotly_chart(figs.net_hessian_figure(curv, net.sizes, lang()), width="stretch")
    if tabs["training"].open:
        with tabs["training"]:
            st.plotly_chart(figs.training_figure(net, lang()), width="stretch")


st.title(t("hvp.title"))
st.markdown(t("hvp.lead"))
modes = {m: t(f"hvp.mode.{m}") for m in ("typed", "network")}
mode = localized_radio(t("hvp.mode"), modes, "hvp.mode", horizontal=True)
if mode == "typed":
    typed_mode()
else:
    network_mode()
