"""The physics-informed network tab of "Why gradients of gradients": train u(x, t) so that
the heat or the wave equation holds. ``draw()`` is registered in pages/why.py's TABS; the code
it shows and offers is :mod:`.compute`, the module that ran."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from hograd_core import HogradError
from hograd_ui.parts.chart import chart
from hograd_ui.parts.downloads import why_script
from hograd_ui.parts.frame import Frame
from hograd_ui.parts.link_form import Field, LinkedForm
from hograd_ui.parts.ui import (
    lang,
    show_error,
    t,
)
from hograd_ui.plot_kit import finite_or_dash

from . import compute as core
from . import figures as figs
from .cached import PINN_BUDGET, script, why_pinn_run

ALPHAS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0]
SPEEDS = [0.25, 0.5, 0.75, 1.0, 1.5, 2.0]
TIMES = [0.25, 0.5, 1.0, 1.5, 2.0]
WIDTHS = [4, 8, 16, 20, 32, 48, 64]
POINTS = [32, 64, 128, 256, 512, 1024]
LRS = [0.001, 0.003, 0.01, 0.02, 0.05, 0.1]
WEIGHTS = [0.0, 0.1, 1.0, 10.0, 100.0]


def _form(equation: str) -> LinkedForm:
    """The training settings of ``equation``: they enter the URL when Run is pressed
    (hograd_ui/parts/link_form.py). Only α or c differs, and the default number of steps."""
    d = core.preset(equation)
    k = ("why.pinn.alpha", Field("select", d.coefficient, options=tuple(ALPHAS)))
    if equation == "wave":
        k = ("why.pinn.c", Field("select", d.coefficient, options=tuple(SPEEDS)))
    return LinkedForm(
        {
            k[0]: k[1],
            "why.pinn.t_max": Field("select", d.t_max, options=tuple(TIMES)),
            "why.pinn.depth": Field("slider", d.depth, 1, PINN_BUDGET.max_depth),
            "why.pinn.width": Field("select", d.width, options=tuple(WIDTHS)),
            "why.pinn.steps": Field("slider", d.steps, 50, PINN_BUDGET.max_steps, 50),
            "why.pinn.points": Field("select", d.points, options=tuple(POINTS)),
            "why.pinn.lr": Field("select", d.lr, options=tuple(LRS)),
            "why.pinn.seed": Field("number", d.seed, 0, 999),
            **{f"why.pinn.w{i}": Field("select", 1.0, options=tuple(WEIGHTS)) for i in range(3)},
            "why.pinn.create_graph": Field("toggle", d.create_graph),
        }
    )


FORMS = {equation: _form(equation) for equation in ("heat", "wave")}


def _preset() -> None:
    """A new equation starts from its own steps (the wave trains longer)."""
    st.session_state["why.pinn.steps"] = core.preset(st.session_state["why.pinn.equation"]).steps


def _settings(view: Frame) -> core.PinnConfig:
    """The equation (in presentation mode in the row, one click) and the form (folded)."""
    d = core.PinnConfig()
    equations = {"heat": t("pinn.equation.heat"), "wave": t("pinn.equation.wave")}
    equation = view.part(
        t("pinn.equation.label"),
        equations,
        "why.pinn.equation",
        on_change=_preset,
        old_labels="pinn.equation.",
    )
    form = FORMS[equation]
    form.seed()
    with view.controls(), st.form("why.pinn.form"):
        k, t_max, depth, width = form.row(
            {
                next(iter(form.fields)): "α" if equation == "heat" else "c",
                "why.pinn.t_max": t("pinn.t_max"),
                "why.pinn.depth": t("net.layers"),
                "why.pinn.width": t("net.width"),
            }
        )
        steps, points, lr, seed = form.row(
            {
                "why.pinn.steps": t("why.newton.steps"),
                "why.pinn.points": t("pinn.points"),
                "why.pinn.lr": t("pinn.lr"),
                "why.pinn.seed": t("net.seed"),
            }
        )
        weights = form.row(
            {
                "why.pinn.w0": t("pinn.w.residual"),
                "why.pinn.w1": t("pinn.w.initial"),
                "why.pinn.w2": t("pinn.w.boundary"),
            }
        )
        keep = form.draw(
            "why.pinn.create_graph", st, "create_graph=True", help=t("pinn.create_graph_help")
        )
        st.form_submit_button(t("why.run"), type="primary")
    form.write()
    other = "why.pinn.c" if equation == "heat" else "why.pinn.alpha"
    if other in st.query_params:  # the other equation's coefficient: not part of this view
        del st.query_params[other]
    return core.PinnConfig(
        equation,
        float(k),
        float(t_max),
        int(width),
        int(depth),
        int(steps),
        int(points),
        d.edge,
        float(lr),
        *map(float, weights),
        bool(keep),
        int(seed),
    )


DIAGONAL = {"heat": "pinn.diagonal.heat", "wave": "pinn.diagonal.wave"}
SILENT = {"heat": "pinn.silent.heat", "wave": "pinn.silent.wave"}
FIT = {
    "trained": "pinn.fit.trained",
    "partly": "pinn.fit.partly",
    "constant": "pinn.fit.constant",
    "weight0": "pinn.fit.weight0",
}
TERMS = {
    "residual": "pinn.term.residual",
    "position": "pinn.term.position",
    "velocity": "pinn.term.velocity",
    "boundary": "pinn.term.boundary",
}


def fit_list(run: core.PinnRun) -> None:
    """What the optimiser could do with each term of the loss, with its values from the run."""
    rows = core.fit_summary(run)
    if not rows:
        return
    lines = [
        "- "
        + t(
            FIT[how],
            term=t(TERMS[term]),
            start=finite_or_dash(a, 3),
            end=finite_or_dash(b, 3),
            grad=finite_or_dash(run.residual_grad, 3),
        )
        for term, how, a, b in rows
    ]
    st.markdown(t("pinn.fit.title") + "\n\n" + "\n".join(lines))


def _status(run: core.PinnRun, config: core.PinnConfig) -> None:
    """Whether the network trained, what each loss term did, and the cost of a step."""
    num = finite_or_dash
    if run.status == "diverged":
        st.error(t("pinn.diverged", step=run.stopped_at))
    elif config.create_graph:
        st.success(t("pinn.trained", grad=num(run.residual_grad, 3), rms=num(run.residual_rms, 3)))
    else:
        st.warning(
            t(SILENT[config.equation], rms=num(run.residual_rms, 3), error=num(run.max_error, 3))
        )
        st.caption(t("pinn.raised"))
        st.code(run.omission_error, language=None, wrap_lines=True)
    fit_list(run)
    ratio = run.pinn_step_seconds / run.plain_step_seconds
    st.markdown(
        t(
            "pinn.cost",
            pinn=f"{run.pinn_step_seconds * 1e3:.2f}",
            plain=f"{run.plain_step_seconds * 1e3:.2f}",
            ratio=f"{ratio:.1f}",
        )
    )
    st.markdown(
        t(
            DIAGONAL[config.equation],
            whole=f"{run.hessian_seconds * 1e3:.2f}",
            diagonal=f"{run.diagonal_seconds * 1e3:.2f}",
            points=config.points,
            entries=run.diagonal_entries,
            gap=f"{run.diagonal_gap:.1e}",
        )
    )


def draw() -> None:
    """The tab, drawn by the frame (hograd_ui/parts/frame.py): the intro, the equation and the
    form, then three screens: the numbers and the heat maps, the slices and the losses, and
    what the run says."""
    view = Frame("pinn")
    with view.lead():
        st.markdown(t("pinn.intro"))
    config = _settings(view)
    try:
        run, code = why_pinn_run(
            config, _caption=lambda d, n: t("progress.running", done=d, total=n)
        )
    except HogradError as err:
        show_error(err)
        return
    view.screens(
        {
            "maps": (t("pinn.screen.maps"), lambda: _maps(run)),
            "curves": (t("pinn.screen.curves"), lambda: _curves(run)),
            "status": (t("pinn.screen.status"), lambda: _status(run, config)),
        },
        "why.pinn.screen",
        "pinn.screen",
        headers=False,  # the charts carry their own titles; the page's outline stays as it was
    )
    with view.results:
        st.markdown(t("pinn.explain"))
        why_script(code, func_source(config), "pinn", notebook(code.source), page="why", tab="pinn")


def _maps(run: object) -> None:
    """The run's numbers and the heat maps of u, the exact solution and the error."""
    num = finite_or_dash
    m = st.columns(4)
    m[0].metric(t("net.parameters"), f"{run.parameters:,}")
    m[1].metric(t("pinn.metric.max_error"), num(run.max_error, 3))
    m[2].metric(t("pinn.metric.rel_error"), num(run.rel_error, 3))
    m[3].metric(t("pinn.metric.residual"), num(run.residual_rms, 3), help=t("pinn.residual_help"))
    chart(figs.heatmaps_figure(run, lang()), key="why.pinn.maps")


def _curves(run: object) -> None:
    left, right = st.columns(2, gap="large")
    chart(figs.slices_figure(run, lang()), key="why.pinn.slices", where=left)
    chart(figs.losses_figure(run, lang()), key="why.pinn.losses", where=right)


def func_source(config: core.PinnConfig) -> str:
    """The torch.func download: the same file, its input derivatives by ``terms_func``, its
    note in the reader's language on top."""
    head = "".join(f"# {line}\n" for line in t("pinn.func.note").splitlines())
    return head + script(config, func=True).source


def notebook(source: str) -> Callable[[], str]:
    """The notebook download, made on click (outside the script run: the texts are read now)."""
    title, figure = t("pinn.nb.title"), t("pinn.nb.figure")
    return lambda: figs.notebook(source, title, figure)
