"""The code lab's drawings and tables: the graph behind a variable, the variables after a
line. Language comes in as an argument."""

from __future__ import annotations

import pandas as pd

from hograd_core.graph_trace import TensorGraph
from hograd_core.program import Variable
from hograd_ui.i18n import tr
from hograd_ui.tensor_drawing import flag_dot, flag_legend_html

from .compute import shown_value

__all__ = ["graph_dot", "graph_legend", "variable_rows"]

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


def graph_dot(graph: TensorGraph, lang: str) -> str:
    """DOT of the graph behind a variable, in the graph page's pass colours, top to bottom
    (on the projector too: its slide holds a small drawing whole, and a large one scrolls in
    its box at a readable size; tests/e2e/test_code_browser.py)."""
    return flag_dot(graph, lang, min_width=STRUT, direction="TB", tight=False)


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
