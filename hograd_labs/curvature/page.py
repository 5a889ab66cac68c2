"""The curvature tab of "Why gradients of gradients": the Hessian's diagonal (exact, Hutchinson,
and what each costs) of a typed function and of a small network, and heavy-ball momentum on the
κ quadratic beside its closed form. ``draw()`` is registered in pages/why.py's TABS; the code it
shows and offers is :mod:`.compute`, the module that ran."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
import streamlit as st

from hograd_core import HogradError
from hograd_ui.parts.chart import chart
from hograd_ui.parts.downloads import why_code
from hograd_ui.parts.form_kit import KAPPAS, caption, num
from hograd_ui.parts.frame import Frame, aside
from hograd_ui.parts.links import BIND
from hograd_ui.parts.ui import (
    function_box,
    lang,
    lazy_expander,
    show_error,
    static_table,
    t,
)

from . import figures as figs
from .cached import (
    CURVATURE_BUDGET,
    curvature_momentum,
    curvature_network,
    curvature_spectra,
    curvature_typed,
    read_point,
    script,
)
from .compute import (
    DiagonalConfig,
    DiagonalStudy,
    MomentumConfig,
    MomentumRun,
    NetworkCurvatureConfig,
    Spectra,
)

#: The preset functions and the point each is shown at.
PRESETS = {
    "x^2*y + sin(x*y) + z^3*x": "1, 2, 0.5",
    "(1 - x)^2 + 100*(y - x^2)^2": "1, 1",
    "log(1 + x^2 + y^2) + x*y*z*w": "0.5, -1, 2, 1.5",
    "x^2 + 3*y^2 + sin(z)": "1, 2, 0.5",
}
PROBES = (10, 20, 50, 100, 200, 500, 1000)
D, M, N = DiagonalConfig(), MomentumConfig(), NetworkCurvatureConfig()
DAMPINGS = (0.001, 0.01, 0.1, 1.0)
#: The second form's strings and file suffix (hograd_ui.parts.downloads.code_file)
AUTOGRAD_FORM = (
    "curvature.autograd.py",
    "curvature.autograd.title",
    "curvature.autograd.caption",
    "_autograd",
)


def costs(s: DiagonalStudy) -> None:
    """The three ways side by side: Hessian-vector products and median time."""
    ways = ("curvature.way.exact", "curvature.way.hessian", "curvature.way.hutchinson")
    rows = [
        [t(way), f"{products:,}", f"{seconds * 1e3:.2f}"]
        for way, products, seconds in zip(ways, s.products, s.seconds, strict=True)
    ]
    header = [t(c) for c in ("curvature.col.way", "curvature.col.products", "curvature.col.ms")]
    static_table(pd.DataFrame(rows, columns=header))


RESULT = {"typed": "curvature.typed.result", "network": "curvature.network.result"}


def study_view(s: DiagonalStudy, repeats: int, what: str) -> None:
    if not np.isfinite(s.hessian).all():
        st.warning(t("curvature.not_finite"))
        return
    gap = s.estimate - s.exact
    result = t(
        RESULT[what],
        n=len(s.names),
        probes=len(s.rms_error),
        rms=num(s.rms_error[-1], 3),
        predicted=num(s.predicted[-1], 3),
        gap=num(float(abs(gap).max()), 3),
    )
    with aside(f"curvature.result.{what}"):  # projected, the charts first, the sentence under
        st.markdown(result)
    left, right = st.columns(2, gap="medium")
    chart(figs.diagonal_figure(s, lang()), where=left)
    chart(figs.error_figure(s, repeats, lang()), where=right)
    costs(s)


def net_settings() -> tuple[int, int]:
    """The small network's width and training steps."""
    c = st.columns(2)
    hidden = c[0].select_slider(
        t("curvature.hidden"), CURVATURE_BUDGET.hidden, D.hidden, key="why.curv.hidden", bind=BIND
    )
    train = c[1].select_slider(
        t("curvature.train_steps"),
        (50, 100, 200, 500),
        D.train_steps,
        key="why.curv.train",
        bind=BIND,
    )
    return hidden, train


def diagonal_part(view: Frame) -> DiagonalConfig:
    """f and the estimator's settings (the network's too), then the typed function's study
    and the network's, two screens."""
    with view.lead():
        st.markdown(t("curvature.diagonal.intro"))
    with view.controls(fold=False):
        fn = function_box("why.curv", t("curvature.fn"), list(PRESETS))
    with view.controls():
        typed, probes, repeats, seed = diagonal_settings(fn)
        hidden, train = net_settings()
    text = typed.strip() or PRESETS.get(fn.text, ", ".join(["1"] * len(fn.variables)))
    try:
        point = read_point(fn.text, text)
        s = curvature_typed(DiagonalConfig(fn.text, point, int(probes), int(repeats), int(seed)))
    except HogradError as err:
        show_error(err, text)
        return D
    config = DiagonalConfig(
        fn.text, point, int(probes), int(repeats), int(seed), int(hidden), int(train)
    )

    def typed_study() -> None:
        study_view(s, config.repeats, "typed")
        st.markdown(t("curvature.pinn"))

    def network_study() -> None:
        try:
            net_study = curvature_network(config, _caption=caption)
        except HogradError as err:
            show_error(err)
            return
        with aside("curvature.network.intro"):  # projected, under the study
            st.markdown(t("curvature.network.intro", n=len(net_study.names), steps=train))
        study_view(net_study, config.repeats, "network")

    view.screens(
        {
            "typed": (t("curvature.typed.title"), typed_study),
            "network": (t("curvature.network.title"), network_study),
        },
        "why.curv.screen",
        "curvature.screen",
    )
    return config


def diagonal_settings(fn) -> tuple:  # a parsed Function
    """The point, probes, repeats and seed."""
    c = st.columns([2, 1, 1, 1])
    typed = c[0].text_input(
        t("curvature.point"),
        "",
        key="why.curv.point",
        bind=BIND,
        placeholder=PRESETS.get(fn.text, ", ".join(["1"] * len(fn.variables))),
        max_chars=200,
    )
    probes = c[1].select_slider(
        t("curvature.probes"), PROBES, D.probes, key="why.curv.probes", bind=BIND
    )
    repeats = c[2].slider(
        t("curvature.repeats"),
        1,
        CURVATURE_BUDGET.max_repeats,
        D.repeats,
        key="why.curv.repeats",
        bind=BIND,
    )
    seed = c[3].number_input(t("curvature.seed"), 0, 999, D.seed, key="why.curv.seed", bind=BIND)
    return typed, probes, repeats, seed


def momentum_part(view: Frame) -> MomentumConfig:
    with view.lead():
        st.markdown(t("curvature.momentum.intro"))
    with view.controls():
        kappa, lr, beta, steps = momentum_settings()
    config = MomentumConfig(float(kappa), float(lr), float(beta), int(steps))
    try:
        run = curvature_momentum(config)
    except HogradError as err:
        show_error(err)
        return M
    view.screens({"momentum": ("", lambda: momentum_view(run, lr, kappa))}, "curvature.screen")
    return config


def momentum_settings() -> tuple:
    """κ, lr, β and the steps."""
    c = st.columns(4)
    kappa = c[0].select_slider(
        t("quadratic.kappa"), KAPPAS, int(M.kappa), key="why.curv.kappa", bind=BIND
    )
    lr = c[1].slider(
        "lr",
        0.001,
        CURVATURE_BUDGET.max_lr,
        M.lr,
        0.001,
        format="%.3f",
        key="why.curv.lr",
        bind=BIND,
    )
    beta = c[2].slider(
        "β", 0.0, CURVATURE_BUDGET.max_beta, M.beta, 0.01, key="why.curv.beta", bind=BIND
    )
    steps = c[3].slider(
        t("why.newton.steps"),
        10,
        CURVATURE_BUDGET.max_steps,
        M.steps,
        10,
        key="why.curv.steps",
        bind=BIND,
    )
    return kappa, lr, beta, steps


def momentum_view(run: MomentumRun, lr: float, kappa: float) -> None:
    """The rates, the verdict, the curves (projected: the curves before the verdict)."""
    slow_hb, slow_gd = max(run.rates["momentum"]), max(run.rates["gd"])
    m = st.columns(4)
    m[0].metric("2(1 + β) / λ_max", num(run.limit, 4))
    m[1].metric(t("curvature.metric.rate_hb"), num(slow_hb, 4))
    m[2].metric(t("curvature.metric.rate_gd"), num(slow_gd, 4))
    m[3].metric(
        t("curvature.metric.best"),
        num(run.best_rate, 4),
        help=t(
            "curvature.metric.best_help",
            lr=num(run.best_lr, 4),
            beta=num(run.best_beta, 4),
            gd=num(run.gd_best_rate, 4),
        ),
    )
    with aside("curvature.momentum.verdict"):  # projected, the curves right under the numbers
        _momentum_verdict(run, lr, slow_hb, slow_gd)
    left, right = st.columns([3, 2], gap="medium")
    curves(run, left, right)
    st.markdown(
        t(
            "curvature.momentum.explain",
            best_lr=num(run.best_lr, 4),
            best_beta=num(run.best_beta, 4),
            best=num(run.best_rate, 4),
            gd=num(run.gd_best_rate, 4),
            kappa=f"{kappa:g}",
        )
    )


def _momentum_verdict(run: MomentumRun, lr: float, slow_hb: float, slow_gd: float) -> None:
    rates = ", ".join(num(r, 4) for r in run.rates["momentum"])
    if slow_hb < 1:
        st.success(
            t(
                "curvature.momentum.stable",
                lr=num(lr, 4),
                limit=num(run.limit, 4),
                rates=rates,
                gd=num(slow_gd, 4),
            )
        )
    else:
        st.warning(
            t("curvature.momentum.unstable", lr=num(lr, 4), limit=num(run.limit, 4), rates=rates)
        )
    if any(run.diverged.values()):
        st.info(t("curvature.momentum.overflow"))


def curves(run: MomentumRun, left: object, right: object) -> None:
    chart(figs.momentum_figure(run, lang()), where=left)
    chart(figs.rate_figure(run, lang()), where=right)


def network_settings(part: str) -> NetworkCurvatureConfig:
    """The network's width and training (both parts), and the part's own settings."""
    c = st.columns(4)
    hidden = c[0].select_slider(
        t("curvature.hidden"),
        CURVATURE_BUDGET.hidden,
        N.hidden,
        key="why.curv.net_hidden",
        bind=BIND,
    )
    train = c[1].select_slider(
        t("curvature.train_steps"),
        (50, 100, 200, 500),
        N.train_steps,
        key="why.curv.net_train",
        bind=BIND,
    )
    if part == "gauss_newton":
        damping = c[2].select_slider(
            t("curvature.damping"), DAMPINGS, N.damping, key="why.curv.damping", bind=BIND
        )
        cg = c[3].slider(
            t("curvature.cg_iterations"),
            5,
            CURVATURE_BUDGET.max_cg_iterations,
            N.cg_iterations,
            key="why.curv.cg",
            bind=BIND,
        )
        return NetworkCurvatureConfig(
            int(hidden), int(train), damping=float(damping), cg_iterations=int(cg)
        )
    steps = c[2].slider(
        t("curvature.lanczos_steps"),
        5,
        CURVATURE_BUDGET.max_lanczos_steps,
        N.lanczos_steps,
        key="why.curv.lanczos",
        bind=BIND,
    )
    starts = c[3].slider(
        t("curvature.starts"),
        1,
        CURVATURE_BUDGET.max_starts,
        N.starts,
        key="why.curv.starts",
        bind=BIND,
    )
    return NetworkCurvatureConfig(
        int(hidden), int(train), lanczos_steps=int(steps), starts=int(starts)
    )


def spectra_of(config: NetworkCurvatureConfig) -> Spectra | None:
    try:
        return curvature_spectra(config, _caption=caption)
    except HogradError as err:
        show_error(err)
        return None


def gauss_newton_part(view: Frame) -> NetworkCurvatureConfig:
    with view.lead():
        st.markdown(t("curvature.gn.intro"))
    with view.controls():
        config = network_settings("gauss_newton")
    sp = spectra_of(config)
    if sp is None:
        return N
    view.screens({"gauss_newton": ("", lambda: gauss_newton_view(sp, config))}, "curvature.screen")
    return config


def gauss_newton_view(sp: Spectra, config: NetworkCurvatureConfig) -> None:
    g, h = sp.hf
    m = st.columns(4)
    m[0].metric(t("curvature.metric.ggn_min"), num(float(sp.ggn[0]), 3))
    m[1].metric(t("curvature.metric.h_min"), num(float(sp.hessian[0]), 3))
    m[2].metric(
        t("curvature.metric.negative"), f"{int((sp.hessian < 0).sum())} / {len(sp.hessian)}"
    )
    m[3].metric(
        t("curvature.metric.gap"),
        num(float(np.abs(sp.ggn - sp.hessian).max()), 3),
        help=t("curvature.metric.gap_help"),
    )
    left, right = st.columns(2, gap="medium")
    chart(figs.spectrum_figure(sp, lang()), where=left)
    chart(figs.hf_figure(sp, lang()), where=right)
    st.markdown(
        t(
            "curvature.gn.result",
            n=len(sp.hessian),
            g_min=num(float(sp.ggn[0]), 3),
            h_min=num(float(sp.hessian[0]), 3),
            g_loss=num(g.losses[-1], 4),
            h_loss=num(h.losses[-1], 4),
            start=num(g.losses[0], 4),
            steps=len(g.losses) - 1,
            g_stops=int(g.negative.sum()),
            h_stops=int(h.negative.sum()),
            g_products=g.products,
            h_products=h.products,
            damping=num(config.damping, 3),
        )
    )


def density_part(view: Frame) -> NetworkCurvatureConfig:
    with view.lead():
        st.markdown(t("curvature.slq.intro"))
    with view.controls():
        config = network_settings("density")
    sp = spectra_of(config)
    if sp is None:
        return N
    view.screens({"density": ("", lambda: density_view(sp, config))}, "curvature.screen")
    return config


def density_view(sp: Spectra, config: NetworkCurvatureConfig) -> None:
    m = st.columns(4)
    m[0].metric(t("curvature.metric.l1"), num(sp.l1_error, 3))
    m[1].metric(
        "tr(H)",
        num(sp.trace, 4),
        help=t("curvature.metric.trace_help", exact=num(sp.trace_exact, 4), sd=num(sp.trace_sd, 3)),
    )
    m[2].metric(
        "tr(H²)",
        num(sp.trace_sq, 4),
        help=t(
            "curvature.metric.trace_help",
            exact=num(sp.trace_sq_exact, 4),
            sd=num(sp.trace_sq_sd, 3),
        ),
    )
    m[3].metric(
        t("curvature.metric.products"),
        f"{sp.products[2]:,}",
        help=t("curvature.metric.products_help", full=sp.products[1]),
    )
    chart(figs.density_figure(sp, lang()))
    r = sp.regions
    st.markdown(
        t(
            "curvature.slq.result",
            n=len(sp.hessian),
            starts=config.starts,
            steps=min(config.lanczos_steps, len(sp.hessian)),
            sigma=num(sp.sigma, 3),
            l1=num(sp.l1_error, 3),
            trace=num(sp.trace, 4),
            exact=num(sp.trace_exact, 4),
            sd=num(sp.trace_sd, 3),
            low=num(r.bulk[0], 3),
            high=num(r.bulk[1], 3),
            outliers=", ".join(num(v, 3) for v in r.outliers) or "—",
            top=", ".join(num(v, 3) for v in sp.hessian[::-1][: max(1, len(r.outliers))]),
            mass=f"{r.negative_mass:.0%}",
            k=int((sp.hessian < 0).sum()),
            exact_mass=f"{(sp.hessian < 0).mean():.0%}",
            products=f"{sp.products[2]:,}",
            full=f"{sp.products[1]:,}",
        )
    )


def draw() -> None:
    """The tab, drawn by the frame (hograd_ui/parts/frame.py): the intros, the part, its
    settings and its result."""
    view = Frame("curvature")
    with view.lead():
        st.markdown(t("curvature.intro"))
    parts = {
        "diagonal": t("curvature.part.diagonal"),
        "momentum": t("curvature.part.momentum"),
        "gauss_newton": t("curvature.part.gauss_newton"),
        "density": t("curvature.part.density"),
    }
    part = view.part(t("curvature.part"), parts, "why.curv.part")
    diagonal, momentum, network = D, M, N
    if part == "diagonal":
        diagonal = diagonal_part(view)
    elif part == "momentum":
        momentum = momentum_part(view)
    elif part == "gauss_newton":
        network = gauss_newton_part(view)
    else:
        network = density_part(view)
    code = script(diagonal, momentum, network)
    box = lazy_expander(t("downloads.script.title"), "why.code.curvature", icon=":material/code:")
    with box:
        if box.open:
            st.code(code.source, language="python", line_numbers=True, height=480)
            st.caption(t("curvature.code.marked", lines=", ".join(map(str, code.marked))))
    # the second form: the same file with every product by torch.autograd (the first is
    # torch.func's), its note in the reader's language on top
    head = "".join(f"# {line}\n" for line in t("curvature.autograd.note").splitlines())
    second = head + script(diagonal, momentum, network, autograd=True).source
    why_code(code.source, second, notebook(code.source), AUTOGRAD_FORM, page="why", tab="curvature")


def notebook(source: str) -> Callable[[], str]:
    """The notebook download, made on click (outside the script run: the title is read now)."""
    title = t("curvature.nb.title")
    return lambda: figs.notebook(source, title)
