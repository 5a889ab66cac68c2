"""The lab's drawings and tables: the graph as the graph page draws it, the derivatives and
the Jacobian entries as rows. Language comes in as an argument."""

from __future__ import annotations

import math

import pandas as pd

from hograd_core.graph_trace import TensorGraph
from hograd_ui.graph_steps import Step, Words, tensor_steps
from hograd_ui.i18n import tr
from hograd_ui.tensor_drawing import flag_dot, flag_legend_html

from .compute import Lab, Penalty

__all__ = [
    "case_steps",
    "derivative_rows",
    "graph_dot",
    "graph_legend",
    "graph_steps",
    "mismatch_rows",
    "number",
    "penalty_rows",
]

# Every key a whole literal (the locale test finds used keys that way).
DERIVATIVE_COLUMNS = (
    "backward.col.x",
    "backward.col.first",
    "backward.col.first_autograd",
    "backward.col.first_sympy",
    "backward.col.second",
    "backward.col.second_autograd",
    "backward.col.second_sympy",
)
PENALTY_COLUMNS = (
    "backward.col.x",
    "backward.penalty.col.through",
    "backward.penalty.col.truth",
    "backward.penalty.col.first",
)
ENTRY_COLUMNS = (
    "backward.check.col.input",
    "backward.check.col.row",
    "backward.check.col.column",
    "backward.check.col.numerical",
    "backward.check.col.analytical",
)

#: points: a graph narrower than this is drawn as if this wide (the graph page's STRUT)
STRUT = 420.0


def number(value: float) -> str:
    """A value as the tables print it: 10 significant digits, NaN as "nan"."""
    return "nan" if math.isnan(value) else f"{value + 0.0:.10g}"  # + 0.0: no -0


def derivative_rows(lab: Lab, lang: str) -> pd.DataFrame:
    """x, then f′ and f″ three ways: through the custom backward, f's autograd, sympy."""
    raised = lab.run.error is not None
    head = [tr(key, lang) for key in DERIVATIVE_COLUMNS]
    rows = []
    for i, x in enumerate(lab.run.points):
        second = tr("backward.col.raised", lang) if raised else number(lab.run.second[i])
        values = (
            number(x),
            number(lab.run.first[i]),
            number(lab.autograd[0][i]),
            number(lab.exact[0][i]),
            second,
            number(lab.autograd[1][i]),
            number(lab.exact[1][i]),
        )
        rows.append(dict(zip(head, values, strict=True)))
    return pd.DataFrame(rows)


def mismatch_rows(check: object, lang: str) -> pd.DataFrame:
    """The Jacobian entries a failed check found outside the tolerance, at most 20."""
    head = [tr(key, lang) for key in ENTRY_COLUMNS]
    rows = [
        dict(
            zip(
                head,
                (
                    ("x", "v")[m.input],
                    number(check.points[m.row]),
                    number(check.points[m.column]),
                    number(m.numerical),
                    number(m.analytical),
                ),
                strict=True,
            )
        )
        for m in check.mismatches[:20]
    ]
    return pd.DataFrame(rows)


def graph_dot(graph: TensorGraph, lang: str, wide: bool = False) -> str:
    """DOT of the custom Function's graph, in the graph page's pass colours; ``wide``: left to
    right, nodes closer together, for a screen wider than the room under it (the slide a
    projector shows: hograd_ui/parts/a11y.py's ``graphviz(slide=...)``). Top to bottom the
    default graph (tanh) was wider than the page and 780 px tall at the projector's text
    size, with about 580 px of room under the controls; left to right and tight it is 500 px
    tall (issue 38)."""
    return flag_dot(graph, lang, min_width=STRUT, direction="LR" if wide else "TB", tight=wide)


def graph_steps(graph: TensorGraph, lang: str) -> tuple[Step, ...]:
    """:func:`graph_dot`'s graph told pass by pass (:mod:`hograd_ui.graph_steps`): both
    backward passes are ``grad(..., create_graph=True)`` (:func:`.compute.graph_at`); where
    the graph marks a node PyTorch raises at (``@once_differentiable``'s), nothing ran it."""
    return tensor_steps(graph, lang, gradients=(1, 2), words=Words(raised="backward.said.raises"))


def case_steps(graph: TensorGraph, lang: str) -> tuple[Step, ...]:
    """The decoder's gallery case told pass by pass: a case's calls print tensors of any kind
    (as the graph page tells a case), and it ran: where it raised, it raised."""
    return tensor_steps(graph, lang)


def graph_legend(graph: TensorGraph, lang: str) -> str:
    """Which colour is which pass (fixed names, escaped: no user text)."""
    return flag_legend_html(graph, lang)


def penalty_rows(penalty: Penalty, lang: str) -> pd.DataFrame:
    """x, the penalty's x.grad through the Function, the true one, and f′ alone."""
    head = [tr(key, lang) for key in PENALTY_COLUMNS]
    columns = (penalty.points, penalty.through, penalty.truth, penalty.first_only)
    rows = [[number(v) for v in row] for row in zip(*columns, strict=True)]
    return pd.DataFrame(rows, columns=head)
