"""The Hessian-vector-product graph for the page: its DOT, legend and table, translated.

The drawing is :func:`hograd_core.graph_dot.tensor_dot` of the traced graph; its four colours
are the four stages of ``hvp_graph`` (forward, the recorded first backward, g·v, the second
backward), named here in the learner's language.
"""

from __future__ import annotations

import dataclasses
import html

from hograd_core.graph_dot import PASS_BORDERS, PASS_COLOURS, tensor_dot
from hograd_core.hvp_graph import HVP_PASSES, HVPGraph
from hograd_ui.graph_figures import words
from hograd_ui.i18n import tr

__all__ = ["DECIMALS", "hvp_dot", "hvp_legend_html", "hvp_summary_rows", "shown", "stage_name"]

#: The HVP graph's numbers, in the drawing and in the summary above it, are rounded to this
#: many decimal places: in float64 cos(π/2) is 6.1e-17, and ∂f/∂w2 of w1²·sin(w2) at (1, π/2)
#: would read 6.123e-17 beside a summary saying ∇f = (2, 0).
DECIMALS = 12


def shown(value: float) -> float:
    """``value`` rounded as the page shows it; + 0.0 turns −0 into 0."""
    return round(value, DECIMALS) + 0.0


#: The name of each stage, in the order of HVP_PASSES (forward, grad, dot, hvp).
_STAGES = ("graphvars.pass.forward", "graphvars.pass.grad", "graphvars.pass.dot",
           "graphvars.pass.hvp")  # fmt: skip


def stage_name(k: int, lang: str = "en") -> str:
    """The name of stage ``k`` of the HVP graph in ``lang``."""
    assert _STAGES[k].endswith(HVP_PASSES[k])
    return tr(_STAGES[k], lang)


def hvp_dot(result: HVPGraph, lang: str = "en", *, min_width: float = 0.0) -> str:
    """DOT source of the HVP graph, its values rounded by :func:`shown` (then written with 4
    significant digits); raises BudgetError over the drawing limit."""
    nodes = tuple(n if n.value is None else dataclasses.replace(n, value=shown(n.value))
                  for n in result.graph.nodes)  # fmt: skip
    graph = dataclasses.replace(result.graph, nodes=nodes)
    return tensor_dot(graph, words(lang), min_width=min_width)


def hvp_legend_html(result: HVPGraph, lang: str = "en") -> str:
    """One chip per stage: its colour, its name and how many backward functions it added
    (fixed text, escaped; no user input)."""
    chip = (
        '<span style="display:inline-block;margin:0 .4em .4em 0;padding:.1em .5em;'
        'border-radius:.3em;background:{fill};border:1px solid {border};color:#111827">'
        "{text}</span>"
    )
    chips = []
    for k, n in enumerate(result.graph.per_pass):
        key = "graph.legend.pass_one" if n == 1 else "graph.legend.pass"
        text = html.escape(tr(key, lang, name=stage_name(k, lang), n=n))
        chips.append(chip.format(fill=PASS_COLOURS[k], border=PASS_BORDERS[k], text=text))
    return f'<div style="line-height:2">{"".join(chips)}</div>'


def hvp_summary_rows(result: HVPGraph, lang: str = "en") -> list[dict[str, object]]:
    """Backward functions by type (rows) and stage (columns), with a total, for a table."""
    stages = [stage_name(k, lang) for k in range(len(HVP_PASSES))]
    return [
        {tr("graphvars.summary.type", lang): row.op,
         **dict(zip(stages, row.per_pass, strict=True)),
         tr("graphvars.summary.total", lang): row.total}
        for row in result.summary
    ]  # fmt: skip
