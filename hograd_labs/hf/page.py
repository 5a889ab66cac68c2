"""The Hessian-free Newton tab of "Why gradients of gradients": Newton steps from
Hessian-vector products against SGD and Adam. ``draw()`` is registered in pages/why.py's TABS;
the code it shows and offers is :mod:`.compute`, the module that ran."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import streamlit as st

from hograd_core import HogradError
from hograd_core.network import DATASETS
from hograd_ui.parts.chart import chart
from hograd_ui.parts.downloads import why_script
from hograd_ui.parts.form_kit import WIDTHS, caption, keep, network_widgets, num
from hograd_ui.parts.frame import Frame, aside
from hograd_ui.parts.link_form import Field, LinkedForm
from hograd_ui.parts.ui import lang, show_error, t

from . import figures as figs
from .cached import HF_BUDGET, script, why_hessian_free
from .compute import HFConfig, HFRun, func_form_gaps

# The form's settings enter the URL when Run is pressed, not while they are edited
# (hograd_ui/parts/link_form.py); a link with them opens the tab computed with them.
D = HFConfig()
HF_FORM = LinkedForm(
    {
        "why.hf.data": Field("radio", D.dataset, options=DATASETS),  # moons: fast to train
        "why.hf.layers": Field("slider", len(D.hidden), 1, HF_BUDGET.max_layers),
        "why.hf.width": Field("select", D.hidden[0], options=WIDTHS),
        "why.hf.steps": Field("slider", D.steps, 1, HF_BUDGET.max_steps),
        "why.hf.cg": Field("slider", D.cg_iters, 1, HF_BUDGET.max_cg),
        "why.hf.damping": Field("select", D.damping, options=(0.01, 0.1, 1.0, 10.0, 100.0)),
        "why.hf.sgd_lr": Field("select", D.sgd_lr, options=(0.01, 0.05, 0.1, 0.5, 1.0, 2.0)),
        "why.hf.adam_lr": Field("select", D.adam_lr, options=(0.001, 0.003, 0.01, 0.03, 0.1)),
        "why.hf.seed": Field("number", D.seed, 0, 999),
    }
)


def draw() -> None:
    """The tab, drawn by the frame (hograd_ui/parts/frame.py): the intro and the form, then
    two screens: the numbers with the loss curves, and the steps' table with what the run
    says."""
    view = Frame("hf")
    with view.lead():
        st.markdown(t("hf.intro"))
    try:  # the settings themselves may be refused (HFConfig checks them)
        with view.controls():
            config = _settings()
        run, code = why_hessian_free(config, _caption=caption)
    except HogradError as err:
        show_error(err)
        return
    view.screens(
        {
            "curves": (t("hf.screen.curves"), lambda: _curves(view, run)),
            "steps": (t("hf.screen.steps"), lambda: _steps_screen(run)),
        },
        "why.hf.screen",
        "hf.screen",
        bold=True,  # titles, not sections of the page's outline
    )
    with view.results:
        last, most = func_form_gaps(run)
        st.caption(t("hf.func_agreement", last=f"{last:.1e}", most=f"{most:.1e}"))
        # the torch.func form's note gives the difference measured here, not a promise
        func = "".join(f"# {line}\n" for line in t("hf.func.note", rel=f"{last:.1e}").splitlines())
        why_script(
            code,
            func + script(config, func=True).source,
            "hf",
            notebook(code.source),
            page="why",
            tab="hf",
        )


def _curves(view: Frame, run: HFRun) -> None:
    """The numbers, then the loss curves against passes or seconds (the axis a choice over
    the chart; projected, in the row: the chart higher on the screen)."""
    _metrics(run)
    axes = {"passes": t("hf.axis.passes"), "seconds": t("hf.axis.seconds")}
    axis = view.part(t("hf.axis"), axes, "why.hf.axis", short=axes, where=st)
    chart(figs.hf_figure(run, lang(), axis))


def _steps_screen(run: HFRun) -> None:
    """What the run says (under the table projected and on a phone), then the steps' table."""
    with aside("hf.result"):
        _result(run)
    _steps(run)


def _settings() -> HFConfig:
    """The form (its settings enter the URL when Run is pressed); refused settings raise."""
    HF_FORM.seed()
    with st.form("why.hf.form"):
        data, hidden = network_widgets(HF_FORM, "why.hf")
        steps, cg, damping = HF_FORM.row(
            {
                "why.hf.steps": t("hf.steps"),
                "why.hf.cg": t("hf.cg"),
                "why.hf.damping": t("hf.damping"),
            }
        )
        sgd_lr, adam_lr, seed = HF_FORM.row(
            {
                "why.hf.sgd_lr": t("hf.sgd_lr"),
                "why.hf.adam_lr": t("hf.adam_lr"),
                "why.hf.seed": t("net.seed"),
            }
        )
        st.form_submit_button(t("why.run"), type="primary")
    keep("why.hf.data", data)
    HF_FORM.write()
    return HFConfig(
        data,
        tuple(hidden),
        int(steps),
        int(cg),
        float(damping),
        float(sgd_lr),
        float(adam_lr),
        int(seed),
    )


def _metrics(run: HFRun) -> None:
    m = st.columns(4)  # the passes are in the sentence below; five labels did not fit at 1280 px
    m[0].metric(t("net.parameters"), f"{run.parameters:,}")
    m[1].metric(t("hf.metric.hvps"), f"{run.hvps.mean():.1f}" if run.hvps.size else "—")
    m[2].metric(
        t("hf.metric.hvp_cost"),
        f"{run.hvp_seconds / run.grad_seconds:.2f} ×",
        help=t("hf.metric.hvp_cost.help"),
    )
    m[3].metric(
        t("hf.metric.hvp_memory"),
        f"{run.hvp_saved_bytes / run.grad_saved_bytes:.2f} ×",
        help=t("hf.metric.hvp_memory.help"),
    )


def _result(run: HFRun) -> None:
    """The losses after as many passes as HF used, and the ones that diverged."""
    hf_passes = int(run.hf_passes[-1])
    st.markdown(
        t(
            "hf.result",
            hf=num(run.hf_losses[-1]),
            passes=hf_passes,
            seconds=f"{run.hf_seconds[-1]:.2f}",
            sgd=num(run.sgd_losses[min(hf_passes, len(run.sgd_losses) - 1)]),
            adam=num(run.adam_losses[min(hf_passes, len(run.adam_losses) - 1)]),
            sgd_wall=num(run.sgd_losses[-1]),
            adam_wall=num(run.adam_losses[-1]),
            sgd_passes=len(run.sgd_losses) - 1,
            adam_passes=len(run.adam_losses) - 1,
            grad=f"{run.grad_seconds * 1e3:.2f}",
            hvp=f"{run.hvp_seconds * 1e3:.2f}",
            grad_kb=f"{run.grad_saved_bytes / 1024:,.0f}",
            hvp_kb=f"{run.hvp_saved_bytes / 1024:,.0f}",
        )
    )
    for method, status in run.status.items():
        if status == "diverged":
            st.warning(t("hf.diverged", method=t(figs.METHOD_KEYS[method])))


def _steps(run: HFRun) -> None:
    """One row per HF step: its CG iterations, damping, residual, ρ and loss."""
    steps_table = pd.DataFrame(
        {
            t("hf.col.step"): range(1, run.hvps.size + 1),
            t("hf.col.hvps"): run.hvps,
            t("hf.col.damping"): [f"{v:.3g}" for v in run.damping],
            t("hf.col.residual"): [f"{v:.1e}" for v in run.residuals],
            t("hf.col.rho"): [num(v, 3) for v in run.rho],
            t("hf.col.loss"): [num(v, 5) for v in run.hf_losses[1:]],
        }
    )
    st.dataframe(steps_table, hide_index=True, width="stretch", height=340)
    st.caption(t("hf.table_note"))


def notebook(source: str) -> Callable[[], str]:
    """The notebook download, made on click (outside the script run: the texts are read now)."""
    title, figure = t("hf.nb.title"), t("hf.nb.figure")
    return lambda: figs.notebook(source, title, figure)
