"""The gradient-statistics tab of "Why gradients of gradients": train a deep network and watch
its gradients layer by layer. ``draw()`` is registered in pages/why.py's TABS; the code it shows
and offers is :mod:`.compute`, the module that ran."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from hograd_core import HogradError
from hograd_ui.parts.chart import chart
from hograd_ui.parts.downloads import why_script
from hograd_ui.parts.form_kit import caption, form_radio, keep, step_slider
from hograd_ui.parts.frame import Frame
from hograd_ui.parts.link_form import Field, LinkedForm
from hograd_ui.parts.ui import lang, show_error, t

from . import compute
from . import figures as figs
from .cached import script, why_anomaly, why_gradient_stats

# The form's settings enter the URL when Run is pressed (hograd_ui/parts/link_form.py).
_H = compute.SCENARIOS["healthy"]  # the stats form's defaults
STATS_FORM = LinkedForm(
    {
        "why.stats.activation": Field("radio", _H.activation, options=("tanh", "relu")),
        "why.stats.dtype": Field("radio", _H.dtype, options=("float64", "float32")),
        "why.stats.depth": Field("slider", _H.depth, 1, 12),
        "why.stats.width": Field("select", _H.width, options=(8, 16, 32, 64, 128)),
        "why.stats.steps": Field("slider", _H.steps, 10, 300, 10),
        "why.stats.batch": Field("select", _H.batch, options=(32, 64, 128, 256)),
        "why.stats.lr": Field(
            "select", _H.lr, options=(0.001, 0.01, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0)
        ),
        "why.stats.gain": Field("slider", _H.gain, 0.5, 3.0, 0.1),
        "why.stats.clip": Field(
            "select",
            _H.clip,
            options=(0.0, 0.1, 0.5, 1.0, 5.0, 10.0),
            label=lambda v: t("stats.clip_off") if v == 0 else f"{v:g}",
        ),
        "why.stats.naive_loss": Field("checkbox", _H.naive_loss),
    }
)
STATS_KEYS = (
    "activation",
    "depth",
    "width",
    "lr",
    "steps",
    "batch",
    "gain",
    "clip",
    "dtype",
    "naive_loss",
)


def use_scenario(name: str) -> None:
    config = compute.SCENARIOS[name]
    for field in STATS_KEYS:
        st.session_state[f"why.stats.{field}"] = getattr(config, field)
    for code in ("en", "zh"):  # the form radios, keyed per language
        st.session_state.pop(f"why.stats.activation.{code}", None)
        st.session_state.pop(f"why.stats.dtype.{code}", None)


def draw() -> None:
    """The tab, drawn by the frame (hograd_ui/parts/frame.py): the intro, the scenarios (one
    click each; projected, in the row), the form, then one screen per chart: the layers'
    gradient norms, the two precisions, the histogram at a step."""
    view = Frame("stats")
    with view.lead():
        st.markdown(t("stats.intro"))
    scenarios = {
        "healthy": t("stats.scenario.healthy"),
        "vanish": t("stats.scenario.vanish"),
        "explode": t("stats.scenario.explode"),
        "nan32": t("stats.scenario.nan32"),
    }
    with view.buttons():  # each at its label's width
        for name, label in scenarios.items():
            st.button(label, key=f"why.stats.use.{name}", on_click=use_scenario, args=(name,))
    with view.controls():
        config = settings()
    try:
        stats, code, csv_text, json_text = why_gradient_stats(config, _caption=caption)
    except HogradError as err:
        show_error(err)
        return
    with view.results:
        show_nan(stats, config)
    view.screens(
        {
            "norms": (t("stats.norms_title"), lambda: norms(stats)),
            "precision": (t("stats.precision_title"), lambda: precision(stats)),
            "hist": (t("stats.screen.hist"), lambda: histogram(view, stats)),
        },
        "why.stats.screen",
        "stats",
        bold=True,  # the charts' titles, as links of before the frame showed them
    )
    with view.results:
        downloads(stats, csv_text, json_text)
        why_script(
            code, func_source(config), "stats", notebook(code.source), page="why", tab="stats"
        )


def settings() -> compute.StatsConfig:
    """The form (its settings enter the URL when Run is pressed; the healthy scenario's by
    default)."""
    STATS_FORM.seed()
    with st.form("why.stats.form"):
        c = st.columns(2)
        with c[0]:
            act = form_radio(
                t("stats.activation_label"),
                {"tanh": "tanh", "relu": "ReLU"},
                "why.stats.activation",
                _H.activation,
            )
        with c[1]:
            dtype = form_radio(
                t("stats.dtype_label"),
                {"float64": "float64", "float32": "float32"},
                "why.stats.dtype",
                _H.dtype,
            )
        depth, width, steps, batch = STATS_FORM.row(
            {
                "why.stats.depth": t("stats.depth"),
                "why.stats.width": t("net.width"),
                "why.stats.steps": t("why.newton.steps"),
                "why.stats.batch": t("stats.batch"),
            }
        )
        lr, gain, clip = STATS_FORM.row(
            {
                "why.stats.lr": "lr",
                "why.stats.gain": t("stats.gain"),
                "why.stats.clip": t("stats.clip"),
            }
        )
        naive = STATS_FORM.draw(
            "why.stats.naive_loss", st, t("stats.naive"), help=t("stats.naive_help")
        )  # its own line: read in full
        st.form_submit_button(t("why.run"), type="primary")
    keep("why.stats.activation", act)
    keep("why.stats.dtype", dtype)
    STATS_FORM.write()
    return compute.StatsConfig(
        act, depth, width, lr, steps, batch, round(gain, 2), clip, dtype, naive
    )


def norms(stats: compute.GradientStats) -> None:
    """Each layer's gradient norm along training."""
    chart(figs.layer_norms_figure(stats, lang()))
    st.caption(
        t("stats.norms_note", clipped=int(stats.clipped.sum()), steps=len(stats.losses))
        + (" " + saturation_text(stats) if stats.saturated.size else "")
    )


def precision(stats: compute.GradientStats) -> None:
    """The loss in both precisions, and what their difference says."""
    chart(figs.precision_figure(stats, lang()))
    st.markdown(precision_text(stats))


def histogram(view: Frame, stats: compute.GradientStats) -> None:
    """The gradients' histogram at a step (the step projected a button of the row: the
    histogram first on the screen)."""
    if not stats.hist_steps.size:
        return
    index = step_slider(t("stats.hist_step"), stats.hist_steps, "why.stats.hist_at", view.row)
    chart(figs.histogram_figure(stats, index, lang()))
    st.caption(t("stats.hist_note"))


def show_nan(stats: compute.GradientStats, config: compute.StatsConfig) -> None:
    if stats.nan_step is None:
        st.success(t("stats.no_nan", steps=len(stats.losses)))
        return
    layers = ", ".join(stats.nan_layers) or "—"
    st.error(
        t(
            "stats.nan",
            step=stats.nan_step,
            layers=layers,
            loss=t("stats.nan_loss") if stats.nan_in_loss else "",
        ),
        icon=":material/warning:",
    )
    if stats.nan_source is not None:
        node, output = stats.nan_source
        st.markdown(t("stats.nan_source", node=node, output=output))
    if st.button(t("stats.anomaly_button"), key="why.stats.anomaly"):
        st.session_state["why.stats.anomaly_for"] = config
    if st.session_state.get("why.stats.anomaly_for") == config:
        try:
            with st.spinner(t("stats.anomaly_running")):
                message = why_anomaly(config)
        except HogradError as err:
            show_error(err)
            return
        st.caption(t("stats.anomaly_said"))
        st.code(message or "—", language=None)


def precision_text(stats: compute.GradientStats) -> str:
    """One true sentence for each case: neither, one or both precisions stopped by the NaN
    check (a gradient held a NaN or the loss was not finite), with the step of each."""
    mine, other = stats.config.dtype, stats.other_dtype
    steps = stats.config.steps
    if stats.nan_step is not None and stats.other_nan_step is None:
        return t("stats.precision_saved", bad=mine, good=other, step=stats.nan_step, steps=steps)
    if stats.nan_step is None and stats.other_nan_step is not None:
        return t(
            "stats.precision_saved", bad=other, good=mine, step=stats.other_nan_step, steps=steps
        )
    if stats.nan_step is None:  # both ran every step with finite losses
        gap = abs(stats.losses - stats.other_losses)
        return t("stats.precision_gap", gap=f"{float(gap.max()):.1e}", steps=steps)
    both = min(stats.nan_step, stats.other_nan_step)  # steps before either stopped
    before = ""
    if both > 0:
        gap = abs(stats.losses[:both] - stats.other_losses[:both])
        before = t("stats.precision_before", steps=both, gap=f"{float(gap.max()):.1e}")
    return t(
        "stats.precision_both",
        a=mine,
        a_step=stats.nan_step,
        b=other,
        b_step=stats.other_nan_step,
        before=before,
    ).strip()


def saturation_text(stats: compute.GradientStats) -> str:
    """For tanh: the share of saturated hidden units at the first and the last step."""
    sat = stats.saturated
    if not sat.size:
        return ""
    return t(
        "stats.saturated",
        start=f"{sat[0]:.1%}",
        end=f"{sat[-1]:.1%}",
        most=f"{sat.max():.1%}",
        step=int(sat.argmax()),
    )


def downloads(stats: compute.GradientStats, csv_text: str, json_text: str) -> None:
    """The run's numbers as files; the buttons sit side by side at their labels' width and
    wrap to a new line in a narrow column (three equal columns cut the labels short)."""
    with st.container(horizontal=True):
        st.download_button(
            t("stats.csv"),
            csv_text,
            "gradient-stats.csv",
            "text/csv",
            key="why.stats.csv",
            on_click="ignore",
        )
        st.download_button(
            t("stats.json"),
            json_text,
            "gradient-stats.json",
            "application/json",
            key="why.stats.json",
            on_click="ignore",
        )
        st.download_button(
            t("stats.tensorboard"),
            lambda: figs.tensorboard_archive(stats),
            "gradient-stats-tensorboard.zip",
            "application/zip",
            key="why.stats.tb",
            on_click="ignore",
        )


def func_source(config: compute.StatsConfig) -> str:
    """The torch.func download: the same file, each step's gradients by ``gradients_func``,
    its note in the reader's language on top."""
    head = "".join(f"# {line}\n" for line in t("stats.func.note").splitlines())
    return head + script(config, func=True).source


def notebook(source: str) -> Callable[[], str]:
    """The notebook download, made on click (outside the script run: the texts are read now)."""
    title, figure = t("stats.nb.title"), t("stats.nb.figure")
    return lambda: figs.notebook(source, title, figure)
