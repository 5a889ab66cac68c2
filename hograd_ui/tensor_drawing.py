"""Drawing traced tensors in the learner's language: what several labs share.

The DOT source itself, one colour and one border per pass, is written by
:mod:`hograd_core.graph_dot` (the command line prints the same drawings); this module passes it
the translated words: a run's real graph with its legend (the graph, backward and code labs,
the WGAN tab), the passes' names and their borders' names, and the legends' chips. The graph lab's own drawings and its growth chart are in
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
from hograd_core.graph_dot import PASS_BORDERS, PASS_COLOURS, PASS_CUES, Words, tensor_dot
from hograd_core.graphs import TensorGraph
from hograd_ui.i18n import tr

__all__ = [
    "NEW",
    "PASS_BORDERS",
    "PASS_COLOURS",
    "cue_name",
    "flag_dot",
    "flag_legend_html",
    "pass_chip",
    "pass_name",
    "with_cue",
    "words",
]

NEW = _NEW  # the outline of the newest pass's nodes


def pass_name(k: int, lang: str = "en") -> str:
    """The name of pass ``k`` in ``lang``: "forward pass", "1st backward pass", ..."""
    return tr(f"pass.{k}", lang)


def cue_name(k: int, lang: str = "en") -> str:
    """The border of pass ``k``'s nodes in words, in ``lang``: "solid", "dotted", "double", ..."""
    return tr(f"pass.cue.{k}", lang)


def with_cue(k: int, text: str, lang: str = "en") -> str:
    """``text`` about pass ``k`` followed by its border in words: a legend's cell."""
    return tr("pass.cue.cell", lang, text=text, cue=cue_name(k, lang))


def pass_chip(k: int, text: str, lang: str = "en", *, newest: bool = False) -> str:
    """A legend chip for pass ``k`` on the page: its fill inside its border's lines (one
    nested span per line, as the drawing's nodes have ``peripheries``), and ``text`` with the
    border named in words (escaped here); the outermost line thick and dark when ``newest``."""
    cue = PASS_CUES[k]
    chip = (
        f'<span style="display:inline-block;padding:.1em .5em;border-radius:.2em;'
        f'background:{PASS_COLOURS[k]};color:#111827">{html.escape(with_cue(k, text, lang))}'
        "</span>"
    )
    for ring in range(cue.rings):
        last = ring == cue.rings - 1
        width, colour = (3, NEW) if newest and last else (1, PASS_BORDERS[k])
        gap = "0" if ring == 0 else "2px"
        chip = (
            f'<span style="display:inline-block;padding:{gap};border-radius:.3em;'
            f'border:{width}px {cue.line} {colour}">{chip}</span>'
        )
    return f'<span style="display:inline-block;margin:0 .4em .4em 0">{chip}</span>'


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
    """Which colour and border is which call: one chip per pass with the tensors it made
    (fixed names, escaped); with ``also``, one legend for those drawings too (a pass's chip names the
    tensors it made in any of them)."""
    made: dict[int, list[str]] = {}
    for node in (n for g in (graph, *also) for n in g.nodes):
        if node.kind == "output":
            names = made.setdefault(node.pass_index, [])
            if node.label not in names:  # x.grad printed twice, y rebuilt: named once
                names.append(node.label)
    chips = [
        pass_chip(k, f"{', '.join(names)}: {pass_name(k, lang)}", lang)
        for k, names in sorted(made.items())
    ]
    return f'<div style="line-height:2">{"".join(chips)}</div>'
