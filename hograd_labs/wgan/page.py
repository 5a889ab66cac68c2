"""The WGAN-GP tab of "Why gradients of gradients": train on 2-D toy data with the gradient
penalty, without it, with its create_graph missing, or with weight clipping; then look at the
penalty's gradient both ways and at its graph. ``draw()`` is registered in pages/why.py's
TABS; the code it shows and offers is :mod:`.compute`, the module that ran."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import streamlit as st

from hograd_core import HogradError
from hograd_ui.graph_steps import labels
from hograd_ui.graph_text import describe
from hograd_ui.parts.a11y import graphviz
from hograd_ui.parts.chart import chart
from hograd_ui.parts.downloads import why_script
from hograd_ui.parts.form_kit import caption, form_radio, keep, step_slider
from hograd_ui.parts.frame import Frame, aside
from hograd_ui.parts.link_form import Field, LinkedForm
from hograd_ui.parts.narration import narration
from hograd_ui.parts.ui import lang, show_error, t
from hograd_ui.tensor_drawing import flag_legend_html

from . import figures as figs
from .cached import WGAN_BUDGET, script, why_wgan_graph, why_wgan_run
from .compute import DATASETS, MODES, WganConfig, smoothed_gap

P = "why.wgan"
LABELS = {
    "data": {
        "8gaussians": "wgan.data.8gaussians",
        "moons": "wgan.data.moons",
        "ring": "wgan.data.ring",
    },
    "mode": {
        "gp": "wgan.mode.gp",
        "gp_no_graph": "wgan.mode.gp_no_graph",
        "none": "wgan.mode.none",
        "clip": "wgan.mode.clip",
    },
}
RESULTS = {
    "gp": "wgan.result.gp",
    "gp_no_graph": "wgan.result.gp_no_graph",
    "none": "wgan.result.none",
    "clip": "wgan.result.clip",
}


#: The training settings: they enter the URL when Run is pressed (hograd_ui/parts/link_form.py).
FORM = LinkedForm(
    {
        f"{P}.data": Field("radio", DATASETS[0], options=DATASETS),
        f"{P}.mode": Field("radio", MODES[0], options=MODES),
        f"{P}.steps": Field("slider", 200, 10, WGAN_BUDGET.max_steps, 10),
        f"{P}.n_critic": Field("slider", 5, 1, WGAN_BUDGET.max_n_critic),
        f"{P}.lam": Field("select", 10.0, options=(0.1, 1.0, 5.0, 10.0, 50.0, 100.0)),
        f"{P}.clip": Field("select", 0.01, options=(0.01, 0.05, 0.1, 0.5)),
        f"{P}.batch": Field("select", 64, options=(16, 32, 64, 128, 256, 512)),
        f"{P}.hidden": Field("select", 32, options=(8, 16, 32, 64, 128)),
        f"{P}.lr": Field("select", 3e-3, options=(1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2)),
        f"{P}.seed": Field("number", 0, 0, 999),
    }
)


def choice(label: str, options: tuple[str, ...], name: str) -> str:
    """A radio with translated labels inside the form; ``P.name`` keeps the choice across a
    language switch and for the link (hograd_ui/parts/form_kit.py form_radio)."""
    key = f"{P}.{name}"
    value = form_radio(label, {o: t(LABELS[name][o]) for o in options}, key, options[0])
    keep(key, value)
    return value


def settings() -> WganConfig:
    """The form: nothing trains until Run is pressed."""
    FORM.seed()
    with st.form(f"{P}.form"):
        data = choice(t("wgan.data"), DATASETS, "data")
        mode = choice(t("wgan.mode_label"), MODES, "mode")
        steps, n_critic, lam, clip = FORM.row(
            {
                f"{P}.steps": t("wgan.steps"),
                f"{P}.n_critic": t("wgan.n_critic"),
                f"{P}.lam": "λ",
                f"{P}.clip": t("wgan.clip"),
            },
            extra={
                f"{P}.lam": {"help": t("wgan.lam_help")},
                f"{P}.clip": {"help": t("wgan.clip_help")},
            },
        )
        batch, hidden, lr, seed = FORM.row(
            {
                f"{P}.batch": t("wgan.batch"),
                f"{P}.hidden": t("wgan.hidden"),
                f"{P}.lr": t("wgan.lr"),
                f"{P}.seed": t("net.seed"),
            }
        )
        st.form_submit_button(t("why.run"), type="primary")
    FORM.write()
    return WganConfig(
        data,
        mode,
        float(lam),
        int(n_critic),
        float(clip),
        int(steps),
        int(batch),
        int(hidden),
        float(lr),
        seed=int(seed),
    )


def draw() -> None:
    """The tab, drawn by the frame (hograd_ui/parts/frame.py): the intro and the form, then
    three screens: the points with the critic's gradient norms and the numbers, the training
    curves, and the silent bug."""
    view = Frame("wgan")
    with view.lead():
        st.markdown(t("wgan.intro"))
    with view.controls():
        config = settings()
    try:
        run, check, costs, code = why_wgan_run(config, _caption=caption)
    except HogradError as err:
        show_error(err)
        return
    view.screens(
        {
            "points": (t("wgan.screen.points"), lambda: _points(view, run, costs, config)),
            "curves": (t("wgan.screen.curves"), lambda: chart(figs.curves_figure(run, lang()))),
            "bug": (t("wgan.bug.title"), lambda: silent_bug(check)),
        },
        f"{P}.screen",
        "wgan.screen",
        headers=False,  # the points' screen opens the tab's results; the bug's has its own
    )
    with view.results:
        st.markdown(
            t(
                "wgan.cost",
                gp=f"{costs.gp_seconds * 1e3:.2f}",
                plain=f"{costs.plain_seconds * 1e3:.2f}",
                rounds=costs.rounds,
            )
        )
        # the script; the .py, its torch.func form, and the view as a notebook
        why_script(code, func_source(config), "wgan", notebook(code.source), page="why", tab="wgan")


def _points(view: Frame, run: object, costs: object, config: WganConfig) -> None:
    """The verdict, then the points beside the numbers (two by two) and the critic's gradient
    norms at a step. The step is a button of the row projected and the verdict under the
    charts there (an aside): the charts lie on the first screen
    (tests/e2e/test_slides_browser.py)."""
    last = len(run.snap_steps) - 1
    if run.status == "diverged":
        st.warning(t("wgan.diverged", step=len(run.wasserstein)))
    box = st.warning if config.mode in ("gp_no_graph", "none") else st.info
    with aside("wgan.verdict"):
        box(t(RESULTS[config.mode]))
    index = step_slider(t("wgan.at"), run.snap_steps, f"{P}.at", view.row)
    left, right = st.columns([3, 2], gap="medium")
    chart(figs.points_figure(run, index, lang()), where=left)
    with right.container(key="wgan.screen.metrics"):
        m = [*st.columns(2), *st.columns(2)]
    m[0].metric(t("wgan.metric.parameters"), f"{run.critic_parameters:,}")
    gap, window, negative = smoothed_gap(run)
    m[1].metric(
        t("wgan.metric.gap", steps=window),
        f"{gap:.3g}",
        help=t(
            "wgan.metric.gap_help",
            steps=window,
            last=f"{run.wasserstein[-1]:.3g}",
            negative=f"{negative:.0%}",
        ),
    )
    m[2].metric(
        t("wgan.metric.norm"),
        f"{float(abs(run.norms[last] - 1).mean()):.3g}",
        help=t("wgan.metric.norm_help"),
    )
    m[3].metric(
        t("wgan.metric.cost"),
        f"{costs.gp_seconds / costs.plain_seconds:.1f} ×",
        help=t("wgan.metric.cost_help"),
    )
    with right:
        st.markdown("**" + t("wgan.norms_title") + "**")
        chart(figs.norms_figure(run, index, lang()))
        st.caption(t("wgan.norms_note"))


def func_source(config: WganConfig) -> str:
    """The torch.func download: the same file, the penalty by ``gradient_penalty_func``, its
    note in the reader's language on top."""
    head = "".join(f"# {line}\n" for line in t("wgan.func.note").splitlines())
    return head + script(config, func=True).source


def notebook(source: str) -> Callable[[], str]:
    """The notebook download, made on click (outside the script run: the texts are read now)."""
    title, figure = t("wgan.nb.title"), t("wgan.nb.figure")
    return lambda: figs.notebook(source, title, figure)


def silent_bug(check: object) -> None:
    st.header(t("wgan.bug.title"))
    st.markdown(t("wgan.bug.text", penalty=f"{check.penalty:.4g}"))
    table = pd.DataFrame(
        {
            t("wgan.bug.col.param"): check.names,
            t("wgan.bug.col.with"): [f"{v:.6g}" for v in check.with_graph],
            t("wgan.bug.col.without"): [f"{v:.6g}" for v in check.without_graph],
        }
    ).set_index(t("wgan.bug.col.param"))
    st.table(table)
    st.caption(t("wgan.bug.note"))
    st.markdown("**" + t("wgan.graph.title") + "**")
    flag = st.radio(
        "create_graph",
        ["True", "False"],
        key=f"{P}.graph",
        horizontal=True,
        format_func=lambda f: f"create_graph={f}",
        bind="query-params",
        label_visibility="collapsed",
    )
    graph = why_wgan_graph(flag == "True")
    st.markdown(t("wgan.graph.on" if flag == "True" else "wgan.graph.off"))
    st.html(flag_legend_html(graph, lang()))  # fixed text, escaped: no user input
    said = describe(graph.nodes, graph.edges, lang())
    graphviz(figs.penalty_dot(graph, lang()), said, key=f"{P}.graph.said", width="stretch")
    steps = figs.penalty_steps(graph, lang())
    narration(t("wgan.said.title"), steps, labels=labels(lang()), key=f"{P}.graph.steps")
    st.caption(t("wgan.graph.note"))
