"""The code lab's drawings and tables: the graph behind a variable, the variables after a
line. Language comes in as an argument."""

from __future__ import annotations

import pandas as pd

from hograd_core.graph_trace import TensorGraph
from hograd_core.program import Variable
from hograd_ui.graph_steps import Step, Words, tensor_steps
from hograd_ui.i18n import tr
from hograd_ui.tensor_drawing import flag_dot, flag_legend_html

from .compute import shown_value

__all__ = ["graph_dot", "graph_legend", "graph_steps", "variable_rows"]

# Every key a whole literal (the locale test finds used keys that way).
COLUMNS = (
    "code.col.name",
    "code.col.shape",
    "code.col.dtype",
    "code.col.value",
    "code.col.requires_grad",
    "code.col.grad_fn",
    "code.col.grad",
)
STRUT = 360.0  # points: a narrower graph is drawn as if this wide
#: Every pass after the forward one was begun by a differentiating call (grad, backward,
#: torch.func's and torch.autograd.functional's), and holds what was computed from its
#: results; the kernel draws at most 7 passes (hograd_core/program/record.py).
GRADIENT_PASSES = range(1, 7)
#: A pass's result is told without claiming which flag made it: torch.func's transforms
#: record their steps with no create_graph, and a result may be computed from a gradient.
WORDS = Words(recorded="code.said.recorded", alone_grad="code.said.alone_grad")


def graph_dot(graph: TensorGraph, lang: str) -> str:
    """DOT of the graph behind a variable, in the graph page's pass colours, top to bottom
    (on the projector too: its slide holds a small drawing whole, and a large one scrolls in
    its box at a readable size; tests/e2e/test_code_browser.py)."""
    return flag_dot(graph, lang, min_width=STRUT, direction="TB", tight=False)


def graph_steps(graph: TensorGraph, lang: str) -> tuple[Step, ...]:
    """The drawing of :func:`graph_dot` told pass by pass (:mod:`hograd_ui.graph_steps`)."""
    return tensor_steps(graph, lang, gradients=GRADIENT_PASSES, words=WORDS)


def graph_legend(graph: TensorGraph, lang: str) -> str:
    """Which colour is which pass (the names escaped)."""
    return flag_legend_html(graph, lang)


def variable_rows(variables: tuple[Variable, ...], lang: str) -> pd.DataFrame:
    """One row per variable: name, shape, dtype, value, requires_grad, grad_fn, .grad."""
    rows = []
    for v in variables:
        tensor = v.kind == "tensor"
        rows.append(
            (
                v.name,
                str(list(v.shape)) if tensor else "",
                v.dtype.removeprefix("torch.") if tensor else v.kind,
                shown_value(v),
                str(v.requires_grad) if tensor else "",
                v.grad_fn or ("None" if tensor else ""),
                shown_value(v, grad=True)
                if tensor and v.grad_text != "None"
                else "None"
                if tensor
                else "",
            )
        )
    return pd.DataFrame(rows, columns=[tr(key, lang) for key in COLUMNS])
