"""The HVP page: what H v means on a typed function, and on a small trained network."""

import math

import pandas as pd
import streamlit as st

from hograd_core import HogradError, curvature, network
from hograd_core.hessian import CRITICAL_TOLERANCE
from hograd_core.hvp_code import hvp_snippet
from hograd_ui.parts.chart import chart
from hograd_ui.parts.downloads import (
    code_file,
    eigen_file,
    grid_file,
    hessian_file,
    hvp_code,
    hvp_row,
)
from hograd_ui.parts.exact import exact_entry
from hograd_ui.parts.formula import draw_formula, typed_tex
from hograd_ui.parts.frame import Frame, aside
from hograd_ui.parts.link_form import Field, LinkedForm, draw_linked
from hograd_ui.parts.links import BIND
from hograd_ui.parts.ui import (
    function_box,
    lang,
    localized_radio,
    show_error,
    static_table,
    t,
)
from hograd_ui.plot_kit import clean

from . import figures as figs
from .cached import POWER_STEPS, analysed, explore, script, three_ways, trained
from .compute import NetCurvature, TrainedNet
from .presets import KAPPAS, PRESETS, example, quadratic

LIMIT, STEP = 3.0, 0.05  # the sliders of p: -3..3 in steps of 0.05
WIDTHS = [2, 4, 8, 16, 32, 64, 128, 256, 512]
NET_DEFAULTS = {"steps": 300, "seed": 0, "top_k": 3, "power": 20, "probes": 30}
#: The training form: its settings enter the URL when Train is pressed (hograd_ui/parts/link_form.py).
NET_FORM = LinkedForm(
    {
        "hvp.net.steps": Field("slider", NET_DEFAULTS["steps"], 50, 1000, 50),
        "hvp.net.seed": Field("number", NET_DEFAULTS["seed"], 0, 999),
        "hvp.net.top_k": Field(
            "slider", NET_DEFAULTS["top_k"], 1, network.NETWORK_BUDGET.max_top_k
        ),
        "hvp.net.power": Field("slider", NET_DEFAULTS["power"], 5, 100, 5),
        "hvp.net.probes": Field("slider", NET_DEFAULTS["probes"], 10, 200, 10),
    }
)


def num(x: float, digits: int = 6) -> str:
    return f"{x:.{digits}g}" if math.isfinite(x) else "—"


def size(n_bytes: float) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n_bytes >= scale:
            return f"{n_bytes / scale:.3g} {unit}"
    return f"{n_bytes:.0f} B"


def use_kappa() -> None:
    """The κ builder's button: replace f by the quadratic, and remember that it did."""
    kappa = st.session_state["hvp.kappa"]
    st.session_state["hvp.fn"] = quadratic(kappa)
    st.session_state["hvp.kappa.used"] = (quadratic(kappa), kappa)


def set_example(text: str, names: tuple) -> None:
    """Put p, v and r of the example ``text`` (or defaults) into the sliders' state (the
    Reset button's callback, and a new f before its sliders are drawn). The sliders are drawn
    unbound, with a default only while the session holds no value (``draw_linked``): Streamlit
    logs a warning with a stack trace for a widget given a default and a value set here."""
    where = example(text, len(names))
    for key, value in (
        *((f"hvp.p.{n}", p) for n, p in zip(names, where.point, strict=True)),
        *((f"hvp.v.{n}", v) for n, v in zip(names, where.vector, strict=True)),
        ("hvp.radius", where.radius),
    ):
        st.session_state[key] = value


def typed_mode(view: Frame) -> None:
    """f (in place), p, v and the window (folded when projected), the numbers at p, and the
    five views: tabs, or in presentation mode one screen each after the numbers."""
    with view.controls(fold=False):
        fn = function_box("hvp", t("hvp.fn.label"), list(PRESETS))
    names = fn.variables
    with view.controls():
        sliders, radius = _typed_inputs(fn, names)
    try:
        ex = explore(fn.text, sliders["p"], sliders["v"], radius)
    except HogradError as err:
        show_error(err)
        st.stop()
    draws = {
        "numbers": lambda: numbers(fn, ex, names, sliders, radius),
        "picture": lambda: picture(fn, ex, names),
        "hessian": lambda: hessian(ex, names, fn.text),
        "ways": lambda: ways(fn, sliders["p"], sliders["v"]),
        "slices": lambda: slices(ex, names),
        "power": lambda: power(ex.power, names),
    }
    labels = {"numbers": t("hvp.screen.numbers")} | {k: t(f"hvp.tab.{k}") for k in list(draws)[1:]}
    view.screens(
        {k: (labels[k], draw) for k, draw in draws.items()},
        "hvp.screen",
        headers=False,
        tabs=("hvp.tab", "picture"),  # off the projector the views after the numbers are tabs
    )


def slices(ex: curvature.Exploration, names: tuple) -> None:
    st.markdown(t("hvp.slices.intro"))
    chart(figs.slices_figure(ex.slices, names, lang()))


def _typed_inputs(fn, names: tuple) -> tuple[dict, float]:  # a parsed Function
    """f as LaTeX, the κ builder, the sliders of p and v and the window; returns the sliders'
    values ({"p": ..., "v": ...}) and the radius."""
    left, right = st.columns([3, 2], gap="large")
    draw_formula(left, "f", typed_tex(fn), fn.text)
    with right:
        kappa = st.select_slider(
            t("quadratic.kappa"),
            KAPPAS,
            value=10,
            key="hvp.kappa",
            help=t("hvp.kappa.help"),
            bind=BIND,
        )
        st.button(t("hvp.kappa.use", kappa=kappa), key="hvp.kappa.use", on_click=use_kappa)
        used = st.session_state.get("hvp.kappa.used")
        if used is not None and used[0] == fn.text:  # until f is changed another way
            st.caption(t("hvp.kappa.replaced", kappa=used[1]))
    if st.session_state.get("hvp.applied") != fn.text:  # a new function: its example's p, v
        st.session_state["hvp.applied"] = fn.text
        set_example(fn.text, names)  # a link's values, seeded once per session, then win
    cols = st.columns([2, 2, 1], gap="large")
    sliders = {}
    start = example(fn.text, len(names))  # the defaults: in the URL only what differs
    for col, kind, low, values in (
        (cols[0], "p", -LIMIT, start.point),
        (cols[1], "v", -2.0, start.vector),
    ):
        with col:
            st.markdown(f"**{t('hvp.point' if kind == 'p' else 'hvp.vector')}**")
            sliders[kind] = tuple(
                draw_linked(
                    st,
                    f"`{name}`",
                    f"hvp.{kind}.{name}",
                    Field("slider", float(value), low, -low, STEP),
                )
                for name, value in zip(names, values, strict=True)
            )
            if kind == "p":  # a slider steps by 0.05: a point such as (1, π/2) is typed here
                exact_entry(
                    "hvp.p.exact",
                    t("hvp.point.exact"),
                    [f"hvp.p.{n}" for n in names],
                    -LIMIT,
                    LIMIT,
                    sliders["p"],
                )
    with cols[2]:
        radius = draw_linked(
            st, t("hvp.radius"), "hvp.radius", Field("slider", float(start.radius), 0.25, 5.0, 0.25)
        )
        st.button(t("hvp.reset"), on_click=set_example, args=(fn.text, names))
    return sliders, radius


def numbers(fn, ex: curvature.Exploration, names: tuple, sliders: dict, radius: float) -> None:
    """f(p), |∇f|, the curvature along v and the test; p, v, ∇f and Hv as a table."""
    r, verdict = ex.result, ex.verdict
    m = st.columns([2, 2, 2, 3])
    m[0].metric(t("hvp.metric.value"), num(r.value, 4))
    m[1].metric(t("hvp.metric.grad_norm"), num(r.gradient_norm, 4))
    m[2].metric(t("hvp.metric.curvature"), num(r.curvature, 4), help=t("hvp.metric.curvature.help"))
    kind = t(f"hvp.kind.{verdict.kind}") if verdict.critical else t("hessian.kind.not_critical")
    m[3].metric(t("hvp.metric.verdict"), kind, help=t("hvp.metric.verdict.help"))
    rows = (r.point, r.vector, clean(r.gradient), clean(r.hvp))
    table = pd.DataFrame(
        [[num(x) for x in row] for row in rows],
        columns=names,
        index=[t(f"hvp.col.{c}") for c in ("point", "vector", "gradient", "hv")],
    )
    table.index.name = t("hvp.col.quantity")  # the row labels' header: no empty <th>
    static_table(table, hide_index=False)
    st.caption(t("hvp.table.caption", ms=f"{r.seconds * 1000:.2f}"))
    hvp_row(fn, sliders["p"], sliders["v"], radius, "hvp")  # downloads: the view as a notebook


def ways(fn, point: tuple, vector: tuple) -> None:  # a parsed Function
    timed = three_ways(fn.text, point, vector)
    st.markdown(t("hvp.ways.intro", repeats=timed.repeats))
    labels = [t(f"hvp.method.{m}") for m in curvature.METHODS]
    rows = [
        [
            labels[i],
            "(" + ", ".join(num(x) for x in clean(timed.values[i])) + ")",
            f"{timed.max_error[i]:.1e}" if timed.max_error[i] else "0",
            f"{timed.relative[i]:.1f}×" if math.isfinite(timed.relative[i]) else "—",
        ]
        for i in range(len(labels))
    ]
    header = ["hvp.ways.method", "hvp.ways.hv", "hvp.ways.error", "hvp.ways.relative"]
    st.dataframe(
        pd.DataFrame(rows, columns=[t(h) for h in header]), hide_index=True, width="stretch"
    )
    unresolved = [labels[i] for i, x in enumerate(timed.relative) if not math.isfinite(x)]
    if unresolved:
        methods = ", ".join(f"“{name}”" for name in unresolved)
        st.caption(t("hvp.ways.unresolved", methods=methods, repeats=timed.repeats))
    chart(figs.ways_figure(timed.seconds, labels, lang()))
    snippet = hvp_snippet(fn, point, vector)  # the source of the functions that ran above
    hvp_code(fn, snippet, point, vector, page="hvp")  # shown, .py, torch.func form; and in C++
    st.caption(t("hvp.ways.note"))


def picture(fn, ex: curvature.Exploration, names: tuple) -> None:  # a parsed Function
    if ex.grid is None:
        st.info(t("hvp.picture.need_two", n=len(names)))
        return

    def picked(x: float, y: float) -> None:  # a click on the contour moves p to that point
        if not (math.isfinite(x) and math.isfinite(y)):
            return  # hograd_ui/parts/chart.py passes finite numbers only; kept here, next to round()
        for name, value in zip(names, (x, y), strict=True):
            value = round(value / STEP) * STEP  # the nearest lattice point
            st.session_state[f"hvp.p.{name}"] = min(max(value, -LIMIT), LIMIT)

    fig = figs.contour_figure(ex.grid, ex.result, lang())
    with aside("hvp.surface"):  # the contour first on the projector's screen, the toggle under it
        surface = st.toggle(t("hvp.picture.surface"), key="hvp.surface", bind=BIND)
    chart(fig, key="hvp.contour", on_pick=picked)
    st.caption(t("hvp.picture.caption"))
    if surface:
        chart(figs.surface_figure(ex.grid, ex.result, lang(), fn.text), key="hvp.surface.chart")
    grid_file(ex.grid, names, fn.text, "hvp")  # downloads: the numbers both charts draw


def hessian(ex: curvature.Exploration, names: tuple, text: str) -> None:
    r, v = ex.result, ex.verdict
    left, right = st.columns([1, 1], gap="large")
    chart(figs.hessian_figure(r, lang()), where=left)
    with left:
        hessian_file(r, text, "hvp")  # downloads: the Hessian (CSV)
    with right:
        st.markdown("## " + t("hvp.eigen.title"))
        vectors = clean(r.eigenvectors)
        eig = pd.DataFrame(
            [[num(r.eigenvalues[i]), *[num(x) for x in vectors[:, i]]] for i in range(len(names))],
            columns=[t("hvp.eigen.value"), *names],
            index=pd.Index([f"e{i + 1}" for i in range(len(names))], name=t("hvp.eigen.index")),
        )
        st.dataframe(eig.reset_index(), hide_index=True, width="stretch")
        eigen_file(r, text, "hvp", t("hvp.eigen.value"))  # downloads: the eigen table
        st.caption(t("hvp.eigen.vector"))
        reason = t(
            f"hvp.reason.{v.reason}",
            n=len(names),
            pos=v.positive,
            neg=v.negative,
            zero=v.zero,
            tol=f"{v.tolerance:.0e}",
        )
        tol = f"{CRITICAL_TOLERANCE:g}"
        if v.critical:
            box = st.success if v.kind in ("minimum", "maximum") else st.warning
            box(f"**{t(f'hvp.verdict.{v.kind}')}** {reason}")
            st.markdown(t("hvp.verdict.critical", tol=tol))
            if v.reason == "zero_eigenvalue":
                st.markdown(t("hvp.verdict.inconclusive"))
        else:
            st.info(f"**{t('hvp.verdict.not_critical_title')}** {reason}")
            st.markdown(t("hvp.verdict.not_critical", norm=num(r.gradient_norm), tol=tol))
        if v.minors:
            minors = ", ".join(f"D{k + 1} = {num(d)}" for k, d in enumerate(v.minors))
            st.markdown(t("hvp.verdict.minors", minors=minors))
        if len(v.minors) == 2:
            st.markdown(t("hvp.verdict.minors_two", det=num(v.minors[1])))


def power(p: curvature.PowerIteration, names: tuple) -> None:
    st.markdown(t("hvp.power.intro"))
    if p.status != "ok":
        st.warning(t(f"hvp.power.{p.status}"))
        if p.status == "zero_start":
            return
    target = num(p.target, 4)
    if p.tie is not None:
        st.warning(
            t(f"hvp.power.tie.{p.tie}", target=target, neg=num(-p.target, 4), dim=p.multiplicity)
        )
    if p.status == "ok" and p.tie != "opposite" and p.ratio > 0:
        rates = dict(ratio=num(p.direction_rate, 3), square=num(p.value_rate, 3))
        st.markdown(t("hvp.power.rates", target=target, **rates))
    if p.orthogonal:
        st.warning(t("hvp.power.orthogonal", target=target))
    chart(figs.power_figure(p, names, lang()))
    m = st.columns(3)
    m[0].metric(t("hvp.power.rayleigh_at", k=p.last), num(p.rayleigh[p.last], 6))
    m[1].metric(t("hvp.power.target"), num(p.target, 6))
    m[2].metric(t("hvp.power.alignment"), num(p.alignment[p.last], 6))
    tol = f"{curvature.CONVERGED:g}"
    if p.converged_at is not None:
        st.caption(t("hvp.power.converged", k=p.converged_at, tol=tol))
    elif p.status == "ok":
        st.caption(t("hvp.power.not_converged", steps=POWER_STEPS, tol=tol))


def network_mode(view: Frame) -> None:
    """The network's shape and training form (folded when projected), then its results."""
    budget = network.NETWORK_BUDGET
    with view.lead():
        st.markdown(t("hvp.net.intro", limit=f"{budget.full_hessian_max:,}"))
    with view.controls():
        asked, pressed = _net_inputs(budget)
    try:  # refused or not by the numbers alone, before anything is trained
        network.check_config(network.NetConfig(*asked[:3], seed=asked[3]))
    except HogradError as err:
        show_error(err)
        st.stop()
    if pressed or "hvp.net.run" not in st.session_state:  # the first visit trains the defaults
        st.session_state["hvp.net.run"] = asked
    run = st.session_state["hvp.net.run"]
    if run != asked:
        trained_shape = " → ".join(str(w) for w in network.layer_sizes(network.NetConfig(*run[:2])))
        view.results.info(t("hvp.net.stale", shape=trained_shape, steps=run[2]))

    def training_caption(step: int, total: int, loss: str) -> str:
        if step == 0:  # before the first step: waiting for a free slot, then starting
            return t("hvp.net.starting")
        return t("hvp.net.training", step=step, total=total, loss=loss)

    key = run[:4]
    try:
        net = trained(*key, _caption=training_caption)
        with st.spinner(t("hvp.net.analysing")):
            curv = analysed(key, *run[4:], net)
    except HogradError as err:
        show_error(err)
        st.stop()
    results(net, curv, view)
    with view.results:
        network_script(run)  # downloads: the network's script (.py) and the view as a notebook


def _net_inputs(budget: network.NetworkBudget) -> tuple[tuple, bool]:
    """The network's shape (outside the form, so its size and limits show before Train) and
    the training form; returns the settings asked for and whether Train was pressed."""
    c = st.columns([2, 1, 1], gap="large")
    datasets = {d: t(f"hvp.net.dataset.{d}") for d in network.DATASETS}
    dataset = localized_radio(
        t("net.dataset"), datasets, "hvp.net.dataset", container=c[0], horizontal=True
    )
    layers = c[1].slider(t("net.layers"), 1, budget.max_layers, 1, key="hvp.net.layers", bind=BIND)
    width = c[2].select_slider(t("net.width"), WIDTHS, 16, key="hvp.net.width", bind=BIND)
    chosen = network.NetConfig(dataset, (width,) * layers)
    n = network.count_parameters(chosen)
    shape = " → ".join(str(w) for w in network.layer_sizes(chosen))
    st.caption(
        t("hvp.net.size", n=f"{n:,}", shape=shape, entries=f"{n * n:,}")
        + " "
        + t(
            "hvp.net.limits",
            steps=f"{network.most_steps(chosen):,}",
            batch=chosen.batch,
            work=f"{budget.max_train_work:,.0f}",
            hvps=f"{network.analysis_limit(n):,}",
        )
    )
    NET_FORM.seed()  # the link's training settings, read as a bound widget would read them
    with st.form("hvp.net.form", border=True):
        steps, seed, top_k, power_steps, probes = NET_FORM.row(
            {
                "hvp.net.steps": t("hvp.net.steps"),
                "hvp.net.seed": t("net.seed"),
                "hvp.net.top_k": t("hvp.net.top_k"),
                "hvp.net.power": t("hvp.net.power_steps"),
                "hvp.net.probes": t("hvp.net.probes"),
            },
            gap="large",
        )
        pressed = st.form_submit_button(t("hvp.net.train"), type="primary")
    NET_FORM.write()  # in the URL once submitted: a link trains what it shows
    asked = (dataset, (width,) * layers, steps, int(seed), top_k, power_steps, probes)
    return asked, pressed


def network_script(run: tuple) -> None:
    """Under the network's results: the script that trains and analyses the network ``run``
    (dataset, hidden, steps, seed, top_k, power steps, probes), which is the module the page
    ran with those settings written in, in an expander, as .py and as a notebook."""
    try:
        code = script(run)
    except HogradError as err:
        show_error(err)
        return
    limit = f"{network.NETWORK_BUDGET.full_hessian_max:,}"
    title, figure = t("hvp.net.nb.title", limit=limit), t("hvp.net.nb.figure")
    with st.expander(t("hvp.net.nb.code"), icon=":material/code:"):
        st.code(code.source, language="python", line_numbers=True, height=480)
        code_file(
            code.source,
            "hograd_hvp_network",
            "hvp.net",
            notebook=lambda: figs.notebook(code.source, title, figure),
        )


def results(net: TrainedNet, curv: NetCurvature, view: Frame) -> None:
    """The network's numbers, then five views: tabs, or in presentation mode one screen each
    (the numbers above every one of them)."""
    m = view.results.columns(4)
    m[0].metric(t("net.parameters"), f"{curv.parameters:,}")
    m[1].metric(t("hvp.net.metric.accuracy"), f"{net.test_accuracy:.1%}")
    m[2].metric(t("hvp.net.metric.loss", m=curv.examples), f"{curv.loss:.4f}")
    m[3].metric(t("hvp.net.metric.time", steps=net.steps), f"{net.seconds:.1f} s")
    names = ("top", "trace", "sharp", "hessian", "training")
    labels = {k: t(f"hvp.net.tab.{k}") for k in names}
    draws = {
        "top": lambda: top_eigenvalue(curv),
        "trace": lambda: trace(curv),
        "sharp": lambda: sharp(curv),
        "hessian": lambda: net_hessian(net, curv),
        "training": lambda: chart(figs.training_figure(net, lang())),
    }
    view.screens(
        {k: (labels[k], draws[k]) for k in names},
        "hvp.net.screen",
        headers=False,
        tabs=("hvp.net.tab", names[0]),  # off the projector, tabs
    )


def trace(curv: NetCurvature) -> None:
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
    chart(figs.hutchinson_figure(curv, lang()))


def sharp(curv: NetCurvature) -> None:
    mean = num(curv.trace / curv.parameters)
    st.markdown(t("hvp.net.sharp.intro", lam=num(curv.reference), mean=mean))
    chart(figs.directions_figure(curv, lang()))


def net_hessian(net: TrainedNet, curv: NetCurvature) -> None:
    budget = network.NETWORK_BUDGET
    mem = st.columns(2)
    mem[0].metric(t("hvp.net.memory.full"), size(curv.full_bytes))
    mem[1].metric(t("hvp.net.memory.hvp"), size(curv.hvp_bytes))
    st.caption(t("hvp.net.memory.help"))
    if curv.heatmap is None:
        limit, n = f"{budget.full_hessian_max:,}", f"{curv.parameters:,}"
        st.info(t("hvp.net.too_big", limit=limit, n=n))
    else:
        caption = (
            "hvp.net.hessian.caption" if curv.heatmap_block > 1 else "hvp.net.hessian.caption_full"
        )
        seconds = f"{curv.hessian_seconds:.1f}"
        st.caption(t(caption, n=f"{curv.parameters:,}", seconds=seconds, b=curv.heatmap_block))
        chart(figs.net_hessian_figure(curv, net.sizes, lang()))


def top_eigenvalue(curv: NetCurvature) -> None:
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
    header = [t(f"hvp.net.col.{c}") for c in ("method", "estimate", "hvps", "time", "error")]
    table = pd.DataFrame(rows, columns=header)
    table[header[4]] = table[header[4]].map(lambda e: f"{e:.2e}" if e else "0")
    st.dataframe(table, hide_index=True, width="stretch")
    if curv.exact is not None:
        st.caption(t("hvp.net.error_vs_exact"))
    else:
        st.caption(
            t("hvp.net.error_vs_lanczos", limit=f"{network.NETWORK_BUDGET.full_hessian_max:,}")
        )
    values = ", ".join(num(x) for x in curv.lanczos)
    st.markdown(t("hvp.net.topk", k=curv.lanczos.size, values=values))
    grad, hvp = f"{curv.grad_seconds * 1e3:.2f}", f"{curv.hvp_seconds * 1e3:.2f}"
    if curv.hvp_over_grad is None:
        st.markdown(t("hvp.net.cost_unresolved", grad=grad, hvp=hvp))
    else:
        st.markdown(t("hvp.net.cost", grad=grad, hvp=hvp, ratio=f"{curv.hvp_over_grad:.1f}"))
    residuals = dict(lanczos=f"{curv.lanczos_residual:.1e}", power=f"{curv.power_residual:.1e}")
    st.markdown(t("hvp.net.residual", **residuals))
    chart(figs.net_power_figure(curv, lang()))
    st.caption(t("hvp.net.power_note"))


def draw() -> None:
    """The page: its title, the mode, and the mode's view. In presentation mode the lead, the
    mode and the settings sit in one row of buttons above the result, and each view is a
    screen of its own (hograd_ui/parts/ui.py)."""
    st.title(t("hvp.title"))
    view = Frame("hvp")
    modes = {m: t(f"hvp.mode.{m}") for m in ("typed", "network")}
    # projected, two short buttons without a label: the row stays one line
    short = {"typed": t("hvp.mode.short.typed"), "network": t("hvp.mode.short.network")}
    mode = view.part(t("hvp.mode"), modes, "hvp.mode", short=short)
    with view.lead():
        st.markdown(t("hvp.lead"))
    typed_mode(view) if mode == "typed" else network_mode(view)
