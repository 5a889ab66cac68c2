"""The MAML tab of "Why gradients of gradients": meta-train three starts, adapt them to a new
sine the student shapes. ``draw()`` is registered in pages/why.py's TABS; the code it shows and
offers is :mod:`.compute`, the module that ran."""

from __future__ import annotations

import math
from collections.abc import Callable

import streamlit as st

from hograd_core import HogradError
from hograd_ui.parts.chart import chart
from hograd_ui.parts.downloads import why_script
from hograd_ui.parts.form_kit import caption
from hograd_ui.parts.frame import Frame, aside
from hograd_ui.parts.link_form import Field, LinkedForm
from hograd_ui.parts.ui import lang, show_error, t
from hograd_ui.plot_kit import finite_or_dash

from . import figures as figs
from .cached import MAML_BUDGET, script, why_maml, why_maml_adapt
from .compute import METHODS, Adaptation, MamlConfig, NewSine, sine_against_held_out

Q = {"bind": "query-params"}  # the view is a link
ACTIVATIONS = {"relu": "ReLU", "tanh": "tanh"}


D = MamlConfig()
#: The meta-training settings: they enter the URL when Run is pressed (hograd_ui/parts/link_form.py).
FORM = LinkedForm(
    {
        "why.maml.hidden": Field("select", D.hidden, options=(8, 16, 32, 40, 64)),
        "why.maml.activation": Field(
            "radio", D.activation, options=tuple(ACTIVATIONS), label=ACTIVATIONS.__getitem__
        ),
        "why.maml.steps": Field("slider", D.meta_steps, 50, MAML_BUDGET.max_meta_steps, 50),
        "why.maml.tasks": Field("slider", D.tasks, 1, MAML_BUDGET.max_tasks),
        "why.maml.k": Field("slider", D.k_shot, 1, MAML_BUDGET.max_k),
        "why.maml.inner": Field("slider", D.inner_steps, 1, MAML_BUDGET.max_inner_steps),
        "why.maml.alpha": Field(
            "select", D.inner_lr, options=(0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5)
        ),
        "why.maml.outer": Field("select", D.outer_lr, options=(0.001, 0.003, 0.005, 0.01, 0.03)),
        "why.maml.seed": Field("number", D.seed, 0, 999),
    }
)


def settings() -> MamlConfig:
    """The meta-training settings, in a form: nothing trains until Run is pressed."""
    FORM.seed()
    with st.form("why.maml.form"):
        hidden, activation, steps, tasks = FORM.row(
            {
                "why.maml.hidden": t("maml.hidden"),
                "why.maml.activation": t("maml.activation_label"),
                "why.maml.steps": t("maml.meta_steps"),
                "why.maml.tasks": t("maml.tasks"),
            },
            extra={"why.maml.activation": {"horizontal": True}},
        )
        k, inner, alpha, outer, seed = FORM.row(
            {
                "why.maml.k": t("maml.k_shot"),
                "why.maml.inner": t("maml.inner_steps"),
                "why.maml.alpha": t("maml.inner_lr"),
                "why.maml.outer": t("maml.outer_lr"),
                "why.maml.seed": t("maml.seed"),
            }
        )
        st.form_submit_button(t("why.run"), type="primary")
    FORM.write()
    return MamlConfig(
        int(hidden),
        activation,
        int(steps),
        int(tasks),
        int(k),
        int(inner),
        float(alpha),
        float(outer),
        int(seed),
    )


def cost(run) -> None:
    m = st.columns(4)
    m[0].metric(t("net.parameters"), f"{run.parameters:,}")
    m[1].metric(t("maml.metric.time"), f"{run.seconds['second'] / run.seconds['first']:.2f} ×")
    m[2].metric(t("maml.metric.nodes"), f"{run.nodes['second']} / {run.nodes['first']}")
    ratio = run.saved_bytes["second"] / max(run.saved_bytes["first"], 1)
    m[3].metric(t("maml.metric.memory"), f"{ratio:.2f} ×")
    st.markdown(
        t(
            "maml.cost",
            t2=f"{run.seconds['second'] * 1e3:.2f}",
            t1=f"{run.seconds['first'] * 1e3:.2f}",
            n2=run.nodes["second"],
            n1=run.nodes["first"],
            b2=f"{run.saved_bytes['second'] / 1e3:.1f}",
            b1=f"{run.saved_bytes['first'] / 1e3:.1f}",
            cosine=f"{run.cosine:.3f}",
            share=f"{100 * run.hessian_share:.1f}",
        )
    )


def draw() -> None:
    """The tab, drawn by the frame (hograd_ui/parts/frame.py): the intro and the
    meta-training settings, the new sine's sliders (in place projected too), then three
    screens: the new sine with its adaptation, the error curves, and the cost of the
    second-order gradient."""
    view = Frame("maml")
    with view.lead():
        st.markdown(t("maml.intro"))
    with view.controls():
        config = settings()
    try:
        run = why_maml(config, _caption=caption)
    except HogradError as err:
        show_error(err)
        return
    for method in METHODS:
        if run.status[method] == "diverged":
            view.results.warning(t("maml.diverged", method=t(figs.METHOD_KEYS[method])))
    with view.controls(fold=False):
        c = st.columns(3)
        amplitude = c[0].slider(t("maml.amplitude"), 0.1, 5.0, 3.0, 0.1, key="why.maml.amp", **Q)
        phase = c[1].slider(
            t("maml.phase"), 0.0, round(math.pi, 2), 1.0, 0.01, key="why.maml.phase", **Q
        )
        steps = c[2].slider(
            t("maml.adapt_steps"), 0, MAML_BUDGET.max_adapt_steps, 1, key="why.maml.adapt", **Q
        )
    try:
        adaptation, code = why_maml_adapt(config, float(amplitude), float(phase), _run=run)
    except HogradError as err:
        show_error(err)
        return
    view.screens(
        {
            "adapt": (t("maml.sine_title"), lambda: _adapt(config, adaptation, steps)),
            "errors": (t("maml.screen.errors"), lambda: _errors(config, run, adaptation, steps)),
            "cost": (t("maml.screen.cost"), lambda: cost(run)),
        },
        "why.maml.screen",
        "maml",
        headers=("adapt",),  # the other two were never sections of the page
    )
    with view.results:
        st.markdown(t("maml.explain"))
        why_script(
            code,
            func_source(config, adaptation),
            "maml",
            notebook(code.source),
            page="why",
            tab="maml",
        )


def _adapt(config: MamlConfig, adaptation: Adaptation, steps: int) -> None:
    """The new sine: each start's network after ``steps`` steps on its K points."""
    with aside("maml.adapt.note"):  # projected, under the chart: the chart first on the screen
        st.caption(t("maml.adapt_note", k=config.k_shot, alpha=f"{config.inner_lr:g}"))
    for method in METHODS:
        if adaptation.blew_up(method, steps):
            error = f"{adaptation.errors[method][steps]:.3g}"
            st.warning(
                t(
                    "maml.blew_up",
                    method=t(figs.METHOD_KEYS[method]),
                    steps=steps,
                    error=error,
                    alpha=f"{config.inner_lr:g}",
                )
            )
    chart(figs.adaptation_figure(adaptation, steps, lang()))


def _errors(config: MamlConfig, run: object, adaptation: Adaptation, steps: int) -> None:
    """The error after each adaptation step, and the held-out loss along meta-training."""
    final = {m: finite_or_dash(float(run.eval_losses[m][-1]), 3) for m in METHODS}
    errors = {m: finite_or_dash(float(adaptation.errors[m][steps]), 3) for m in METHODS}
    text = t(
        "maml.result",
        steps=steps,
        **errors,
        e2=final["second"],
        e1=final["first"],
        e0=final["pretrain"],
        inner=config.inner_steps,
    )
    order = sine_against_held_out(run, adaptation, steps)
    if order is not None:
        lower, higher, agrees = order
        key = "maml.result.agree" if agrees else "maml.result.differ"
        text += " " + t(key, lower=t(figs.METHOD_KEYS[lower]), higher=t(figs.METHOD_KEYS[higher]))
    with aside("maml.errors.text"):  # projected, the charts come first and the text under them
        st.markdown(text)
    left, right = st.columns(2, gap="medium")
    chart(figs.error_figure(adaptation, steps, lang()), where=left)
    chart(figs.meta_training_figure(run, lang()), where=right)


def func_source(config: MamlConfig, adaptation: Adaptation) -> str:
    """The torch.func download: the same file, meta-training with ``meta_gradient_func``, its
    note in the reader's language on top."""
    sine = NewSine(adaptation.amplitude, adaptation.phase, adaptation.steps)
    head = "".join(f"# {line}\n" for line in t("maml.func.note").splitlines())
    return head + script(config, sine, func=True).source


def notebook(source: str) -> Callable[[], str]:
    """The notebook download, made on click (outside the script run: the texts are read now)."""
    title, figure = t("maml.nb.title"), t("maml.nb.figure")
    return lambda: figs.notebook(source, title, figure)
