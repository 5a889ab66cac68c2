"""Drawing traced tensors in the learner's language: what several labs share.

The DOT source itself, one colour per pass, is written by :mod:`hograd_core.graph_dot` (the
command line prints the same drawings); this module passes it the translated words: a run's
real graph with its legend (the graph, backward and code labs, the WGAN tab) and the passes'
names. The graph lab's own drawings and its growth chart are in
``hograd_labs/graph/figures.py``; laying DOT out as SVG (a process) in its ``cached.py``.

Note:
    Streamlit's graphviz chart draws every label at its own small font size (0.6rem),
    whatever the DOT says. So the DOT uses a 10 pt font (then the boxes fit the text), and the
    pages draw the picture at its own size (``width="content"``), not stretched to the page's
    width, where a three-node graph had 8x larger text than a large one; a drawing wider than
    the page shrinks to fit, and presentation mode zooms them all alike (hograd_ui/parts/present.py).
    ``min_width`` gives a drawing a minimum width.
"""

from __future__ import annotations

import html

from hograd_core.graph_dot import NEW as _NEW
from hograd_core.graph_dot import PASS_BORDERS, PASS_COLOURS, Words, tensor_dot
from hograd_core.graphs import TensorGraph
from hograd_ui.i18n import tr

__all__ = [
    "NEW",
    "PASS_BORDERS",
    "PASS_COLOURS",
    "flag_dot",
    "flag_legend_html",
    "pass_name",
    "words",
]

NEW = _NEW  # the outline of the newest pass's nodes


def pass_name(k: int, lang: str = "en") -> str:
    """The name of pass ``k`` in ``lang``: "forward pass", "1st backward pass", ..."""
    return tr(f"pass.{k}", lang)


def words(lang: str) -> Words:
    """What a tensor drawing writes into its nodes, in ``lang``."""
    return Words(
        tr("drawing.freed", lang),
        tr("drawing.modified", lang),
        tr("drawing.raised", lang),
    )


def flag_dot(
    graph: TensorGraph,
    lang: str = "en",
    *,
    min_width: float = 0.0,
    direction: str = "TB",
    tight: bool = False,
) -> str:
    """DOT source of a flag-lab run's real graph, in the pass colours of the graph page.

    Saved tensors that a backward pass freed (or that were changed in place) are greyed and
    say so; the node where the run raised has a red outline; a result with no ``grad_fn``
    stands alone, marked "(no grad_fn)"; None is drawn as None
    (:func:`hograd_core.graph_dot.tensor_dot`). ``direction`` ("TB" or "LR") and ``tight``
    (nodes closer together), for a projector, as there.

    Raises:
        BudgetError: more than ``GRAPH_BUDGET.max_draw`` nodes (the graph page's limit).
    """
    return tensor_dot(graph, words(lang), min_width=min_width, direction=direction, tight=tight)


def flag_legend_html(
    graph: TensorGraph, lang: str = "en", *, also: tuple[TensorGraph, ...] = ()
) -> str:
    """Which colour is which call: one chip per pass with the tensors it made (fixed names,
    escaped); with ``also``, one legend for those drawings too (a pass's chip names the
    tensors it made in any of them)."""
    chip = (
        '<span style="display:inline-block;margin:0 .4em .4em 0;padding:.1em .5em;'
        'border-radius:.3em;background:{fill};border:1px solid {border};color:#111827">'
        "{text}</span>"
    )
    made: dict[int, list[str]] = {}
    for node in (n for g in (graph, *also) for n in g.nodes):
        if node.kind == "output":
            names = made.setdefault(node.pass_index, [])
            if node.label not in names:  # x.grad printed twice, y rebuilt: named once
                names.append(node.label)
    chips = [
        chip.format(
            fill=PASS_COLOURS[k],
            border=PASS_BORDERS[k],
            text=html.escape(f"{', '.join(names)}: {pass_name(k, lang)}"),
        )
        for k, names in sorted(made.items())
    ]
    return f'<div style="line-height:2">{"".join(chips)}</div>'
