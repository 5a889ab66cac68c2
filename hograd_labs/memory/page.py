"""Memory under double backward: the view. Reads the sizes, calls the cached run, renders."""

from __future__ import annotations

from functools import partial

import streamlit as st

from hograd_core import HogradError
from hograd_ui.parts.chart import chart
from hograd_ui.parts.downloads import code_file
from hograd_ui.parts.frame import Frame
from hograd_ui.parts.links import BIND
from hograd_ui.parts.ui import lang, show_error, static_table, t

from . import cached, figures
from .compute import LIMITS, MemoryConfig

BATCHES = [16, 32, 64, 128, 256]  # every one a multiple of every micro-batch count
MICROS = [1, 2, 4, 8, 16]


def _settings() -> MemoryConfig:
    a, b, c = st.columns(3)
    width = a.slider(t("memory.width"), *LIMITS["width"], 32, key="memory.width", bind=BIND)
    depth = b.slider(t("memory.depth"), *LIMITS["depth"], 3, key="memory.depth", bind=BIND)
    orders = c.slider(t("memory.orders"), *LIMITS["orders"], 3, key="memory.orders", bind=BIND)
    a, b = st.columns(2)
    batch = a.select_slider(t("memory.batch"), BATCHES, 64, key="memory.batch", bind=BIND)
    micro = b.select_slider(t("memory.micro"), MICROS, 4, key="memory.micro", bind=BIND)
    return MemoryConfig(width=width, depth=depth, batch=batch, micro=micro, orders=orders)


def _ratio(small: int, big: int) -> str:
    return f"{small / big:.3f}" if big else "—"


def draw() -> None:
    """The page: the sizes, then the four measurements and the script that made them, drawn
    by the frame (hograd_ui/parts/frame.py: stacked, as slides, or result first on a phone)."""
    st.title(t("memory.title"))
    view = Frame("memory")
    with view.lead():
        st.markdown(t("memory.lead"))
    with view.controls():
        config = _settings()
    try:
        run = cached.run_for(config)
    except HogradError as err:
        show_error(err)
        st.stop()
    view.results.caption(
        t(
            "memory.network",
            parameters=f"{run.parameters:,}",
            width=config.width,
            depth=config.depth,
            batch=config.batch,
        )
    )
    view.screens(
        {
            name: (t(label), partial(draw_screen, run, config))
            for name, (label, draw_screen) in SCREENS.items()
        },
        "memory.screen",
    )


def _orders(run: object, config: MemoryConfig) -> None:
    st.markdown(t("memory.orders.lead"))
    static_table(figures.orders_rows(run, lang()))
    chart(figures.orders_figure(run, lang()))
    st.caption(t("memory.orders.why"))


def _checkpoint(run: object, config: MemoryConfig) -> None:
    st.markdown(t("memory.checkpoint.lead"))
    left, right = st.columns(2)
    left.metric(
        t("memory.checkpoint.forward"),
        figures.kib(run.checkpoint_forward_bytes),
        t(
            "memory.checkpoint.of",
            plain=figures.kib(run.plain_forward_bytes),
            ratio=_ratio(run.checkpoint_forward_bytes, run.plain_forward_bytes),
        ),
        delta_color="off",
        delta_arrow="off",
    )
    right.metric(
        t("memory.checkpoint.held"),
        figures.kib(run.checkpoint_hv_bytes),
        t(
            "memory.checkpoint.of",
            plain=figures.kib(run.plain_hv_bytes),
            ratio=_ratio(run.checkpoint_hv_bytes, run.plain_hv_bytes),
        ),
        delta_color="off",
        delta_arrow="off",
    )
    extra = figures.kib(run.checkpoint_hv_bytes - run.plain_hv_bytes)
    st.markdown(t("memory.checkpoint.same", diff=f"{run.hv_difference:.3g}", extra=extra))
    st.caption(t("memory.checkpoint.inputs"))
    st.markdown(t("memory.reentrant"))
    st.code(run.reentrant_error, language=None, wrap_lines=True)  # PyTorch's own words


def _accumulate(run: object, config: MemoryConfig) -> None:
    st.markdown(t("memory.accumulate.lead", micro=config.micro, size=config.batch // config.micro))
    left, right = st.columns(2)
    left.metric(t("memory.accumulate.big", batch=config.batch), figures.kib(run.big_peak))
    right.metric(
        t("memory.accumulate.micro", micro=config.micro),
        figures.kib(run.micro_peak),
        t("memory.accumulate.ratio", ratio=_ratio(run.micro_peak, run.big_peak)),
        delta_color="off",
        delta_arrow="off",
    )
    st.markdown(t("memory.accumulate.same", diff=f"{run.grad_difference:.3g}"))


def _retain(run: object, config: MemoryConfig) -> None:
    st.markdown(t("memory.retain.lead"))
    static_table(figures.retain_rows(run, lang()))
    st.caption(t("memory.retain.why"))


def _code(run: object, config: MemoryConfig) -> None:
    st.caption(t("memory.code.lead"))
    source = cached.script_for(config)
    with st.expander(t("memory.code.show"), icon=":material/code:"):
        st.code(source, language="python")
    code_file(source, "hograd_memory", "memory")


#: The page's screens in order: name -> (its title's string key, what draws it).
SCREENS = {
    "orders": ("memory.orders.title", _orders),
    "checkpoint": ("memory.checkpoint.title", _checkpoint),
    "accumulate": ("memory.accumulate.title", _accumulate),
    "retain": ("memory.retain.title", _retain),
    "code": ("memory.code", _code),
}
