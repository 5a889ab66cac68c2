"""The stability tab of "Why gradients of gradients": the quadratic bowl and a small network's
sharpness. ``draw()`` is registered in pages/why.py's TABS; the code it shows and offers is
:mod:`.compute`, the module that ran."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from hograd_core import HogradError
from hograd_core.applications.common import Code
from hograd_ui.parts.chart import chart
from hograd_ui.parts.downloads import why_script
from hograd_ui.parts.form_kit import KAPPAS, WIDTHS, caption, keep, network_widgets, num
from hograd_ui.parts.frame import Frame, aside
from hograd_ui.parts.link_form import Field, LinkedForm
from hograd_ui.parts.links import BIND
from hograd_ui.parts.ui import lang, show_error, t

from . import figures as figs
from .cached import script, why_quadratic, why_stability
from .compute import DATASETS, NetStability, QuadraticRun, StabilityConfig

D = StabilityConfig()
# The network part's settings enter the URL when Run is pressed (hograd_ui/parts/link_form.py).
FORM = LinkedForm(
    {
        "why.stability.data": Field("radio", D.dataset, options=DATASETS),
        "why.stability.layers": Field("slider", len(D.hidden), 1, 3),
        "why.stability.width": Field("select", D.hidden[0], options=WIDTHS),
        "why.stability.net_lr": Field(
            "select", D.lr, options=(0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0)
        ),
        "why.stability.net_steps": Field("slider", D.steps, 50, 1000, 50),
        "why.stability.every": Field("select", D.every, options=(5, 10, 20, 50, 100)),
    }
)
#: What the page says about the quadratic's run, by its verdict.
VERDICTS = {
    "stable": "stability.shrinks",
    "edge": "stability.edge",
    "edge_even": "stability.edge_even",
    "fell_for_now": "stability.fell_for_now",
    "grows": "stability.grows",
    "diverged": "stability.overflow",
}


def quadratic_part(view: Frame) -> None:
    """κ, lr and the steps, then the run: its numbers, its verdict and the loss curve, one
    screen."""
    with view.lead():
        st.markdown(t("stability.quadratic_intro"))
    with view.controls():
        c = st.columns(3)
        kappa = c[0].select_slider(
            t("quadratic.kappa"), KAPPAS, int(D.kappa), key="why.stability.kappa", bind=BIND
        )
        lr = c[1].slider(
            t("why.newton.lr"),
            0.001,
            2.5,
            D.quadratic_lr,
            0.001,
            format="%.3f",
            key="why.stability.lr",
            bind=BIND,
        )
        steps = c[2].slider(
            t("why.newton.steps"),
            10,
            1000,
            D.quadratic_steps,
            10,
            key="why.stability.steps",
            bind=BIND,
        )
    config = StabilityConfig(kappa=float(kappa), quadratic_lr=float(lr), quadratic_steps=int(steps))
    try:
        run, code = why_quadratic(config)
    except HogradError as err:
        show_error(err)
        return
    view.screens({"quadratic": ("", lambda: _quadratic_result(run, lr))}, "stability.screen")
    with view.results:
        downloads(code, config, "quadratic")


def _quadratic_result(run: QuadraticRun, lr: float) -> None:
    m = st.columns(4)
    m[0].metric(
        t("stability.lambda"),
        num(run.lambda_max, 6),
        help=t("stability.lambda_help", hvps=run.lanczos_hvps),
    )
    m[1].metric("2 / λ_max", num(2 / run.lambda_max, 6))
    m[2].metric("lr", num(lr, 6))
    m[3].metric("|1 − lr·λ_max|", num(run.factors[1], 6))
    box = st.success if run.regime == "stable" else st.info if run.regime == "edge" else st.warning
    verdict = t(
        VERDICTS[run.verdict],
        factor=num(run.factors[1], 4),
        limit=num(2 / run.lambda_max, 4),
        step=len(run.losses) - 1,
        steps=len(run.losses) - 1,
        start=num(run.losses[0], 4),
        end=num(run.losses[-1], 4),
        flat=num(run.factors[0], 4),
        again=f"{run.regrows_at:,}" if run.regrows_at else "—",
    )
    with aside("stability.verdict"):  # under the chart projected: all on one screen
        box(verdict)
    chart(figs.quadratic_figure(run, lang()))


def network_part(view: Frame) -> None:
    """The network and its training, then the run: its numbers, its verdict and the sharpness
    curve, one screen (the cost after it, projected)."""
    with view.lead():
        st.markdown(t("stability.net_intro"))
    with view.controls():
        FORM.seed()
        with st.form("why.stability.form"):
            data, hidden = network_widgets(FORM, "why.stability")
            lr, steps, every = FORM.row(
                {
                    "why.stability.net_lr": "lr",
                    "why.stability.net_steps": t("why.newton.steps"),
                    "why.stability.every": t("stability.every"),
                }
            )
            st.form_submit_button(t("why.run"), type="primary")
    keep("why.stability.data", data)
    FORM.write()
    config = StabilityConfig(
        dataset=data, hidden=tuple(hidden), lr=float(lr), steps=int(steps), every=int(every)
    )
    try:
        run, code = why_stability(config, _caption=caption)
    except HogradError as err:
        show_error(err)
        return
    view.screens({"network": ("", lambda: _network_result(run, lr))}, "stability.screen")
    with view.results:
        downloads(code, config, "stability")


def _network_result(run: NetStability, lr: float) -> None:
    m = st.columns(4)
    m[0].metric(t("net.parameters"), f"{run.parameters:,}")
    m[1].metric(t("stability.lambda0"), num(run.lambda0))
    m[2].metric("2 / λ_max(θ₀)", num(2 / run.lambda0))
    m[3].metric("2 / lr", num(2 / lr))
    if run.status == "diverged":
        st.warning(t("stability.net_diverged", step=len(run.losses) - 1, lr=num(lr)))
    else:
        last = run.sharpness[-1] if run.sharpness.size else float("nan")
        st.info(
            t(
                "stability.net_result",
                last=num(last),
                limit=num(2 / lr),
                start=num(run.losses[0]),
                end=num(run.losses[-1]),
            )
        )
    cost = t(
        "stability.cost",
        hvps=run.hvps,
        grad=f"{run.grad_seconds * 1e3:.2f}",
        hvp=f"{run.hvp_seconds * 1e3:.2f}",
        grad_kb=f"{run.grad_saved_bytes / 1024:,.0f}",
        hvp_kb=f"{run.hvp_saved_bytes / 1024:,.0f}",
        memory=f"{run.hvp_saved_bytes / run.grad_saved_bytes:.2f}",
    )
    with aside("stability.cost"):  # the curve first on the projector's screen, the cost under it
        st.markdown(cost)
    chart(figs.sharpness_figure(run, lang()))


def downloads(code: Code, config: StabilityConfig, kind: str) -> None:
    """The script (this part's settings filled in, the other part's at their defaults), its
    torch.func form and the notebook; ``kind`` keys the folded code view."""
    st.caption(t("stability.download_note"))
    why_script(code, func_source(config), kind, notebook(code.source), page="why", tab="stability")


def func_source(config: StabilityConfig) -> str:
    """The torch.func download: the same file, derivatives by ``grad_and_hvp_func``, its note
    in the reader's language on top."""
    head = "".join(f"# {line}\n" for line in t("stability.func.note").splitlines())
    return head + script(config, func=True).source


def notebook(source: str) -> Callable[[], str]:
    """The notebook download, made on click (outside the script run: the texts are read now)."""
    title, figure = t("stability.nb.title"), t("stability.nb.figure")
    return lambda: figs.notebook(source, title, figure)


def draw() -> None:
    """The tab, drawn by the frame (hograd_ui/parts/frame.py): the part, its intro and its
    settings, then its result."""
    view = Frame("stability")
    parts = {"quadratic": t("stability.part.quadratic"), "network": t("stability.part.network")}
    part = view.part(t("stability.part"), parts, "why.stability.part")
    quadratic_part(view) if part == "quadratic" else network_part(view)
