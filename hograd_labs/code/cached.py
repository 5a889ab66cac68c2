"""The code lab's cached calls: a program's run in its child process, the decoder's match."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from hograd_core.flaglab.decoder import Decoded, decode
from hograd_core.program import LineRecord, line_from
from hograd_core.program.to_cpp import program_cpp
from hograd_serving.code_child import WALL_SECONDS, run_program_child
from hograd_serving.gate import heavy_work

__all__ = ["Run", "cpp_for", "decoded", "run"]


@dataclass(frozen=True)
class Run:
    """A program's run: its records, the torch that ran it, and why it stopped early (None,
    "time", "memory" or "error")."""

    lines: tuple[LineRecord, ...]
    torch: str
    stopped: str | None


@st.cache_data(max_entries=32, show_spinner=False)  # a run's records: up to a few MB
def run(text: str) -> Run:
    """``text`` run in a fresh child process (one of the two heavy-work slots while it runs)."""
    with heavy_work(seconds=WALL_SECONDS + 10.0):  # the child's own kill comes first
        child = run_program_child(text)
    return Run(tuple(line_from(line) for line in child.lines), child.torch, child.stopped)


def decoded(message: str) -> Decoded | None:
    """What the error decoder makes of PyTorch's message (None if it cannot place it)."""
    return decode(message)


@st.cache_data(max_entries=32, show_spinner=False)
def cpp_for(text: str) -> str | None:
    """The program's C++ (LibTorch) form, None outside its subset (a checked program only)."""
    return program_cpp(text, "hograd_program")
