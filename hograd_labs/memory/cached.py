"""The memory lab's cached calls: one run per setting, and the download, which is
:mod:`.compute`'s own source with the page's settings on the line ``__main__`` reads."""

from __future__ import annotations

import inspect

import streamlit as st

from hograd_serving.gate import HEAVY_SECONDS, heavy_work

from . import compute
from .compute import MemoryConfig, MemoryRun

MAIN = "    config = MemoryConfig()"


@st.cache_data(max_entries=32, show_spinner=False)
def run_for(config: MemoryConfig) -> MemoryRun:
    # four measurements, up to four create_graph=True passes
    with heavy_work(seconds=HEAVY_SECONDS):
        return compute.run(config)


@st.cache_data(max_entries=32, show_spinner=False)
def script_for(config: MemoryConfig) -> str:
    """The module that ran, its config line set to ``config``."""
    source = inspect.getsource(compute)
    assert source.count(MAIN) == 1  # the one line __main__ reads its settings from
    return source.replace(MAIN, f"    config = {config!r}")
