"""Drawing traced graphs in the learner's language: what several pages share.

The DOT source itself, one colour per pass, is written by :mod:`hograd_core.graph_dot` (the
command line prints the same drawings); this module passes it the translated words: the flag
lab's drawings (the graph lab, the backward lab, the WGAN tab), the passes' names, and the
growth chart and table (the graph lab and the lesson). The graph lab's own drawings are in
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
from hograd_core.graph_dot import PASS_BORDERS, PASS_COLOURS, Legend, Words, tensor_dot
from hograd_core.graphs import GraphView, OrderStats, TensorGraph
from hograd_ui.i18n import tr

from .plotting import PlainFigure, cell_title, grid_cells, plain_figure, vline

__all__ = [
    "NEW",
    "PASS_BORDERS",
    "PASS_COLOURS",
    "drawn_counts",
    "flag_dot",
    "flag_legend_html",
    "growth_figure",
    "pass_count",
    "pass_legend",
    "pass_name",
    "stats_rows",
    "words",
]

NEW = _NEW  # the outline of the newest pass's nodes


def pass_name(k: int, lang: str = "en") -> str:
    """The name of pass ``k`` in ``lang``: "forward pass", "1st backward pass", ..."""
    return tr(f"graph.pass.{k}", lang)


def pass_count(k: int, n: int, lang: str) -> str:
    key = "graph.legend.pass_one" if n == 1 else "graph.legend.pass"
    return tr(key, lang, name=pass_name(k, lang), n=n)


def pass_legend(view: GraphView, lang: str, highlight: bool) -> Legend:
    """The legend under a downloaded graph: each pass's colour and node count."""
    cells = tuple((k, pass_count(k, view.per_pass[k], lang)) for k in range(view.order + 1))
    return Legend(cells, tr("graph.legend.shapes", lang), view.order if highlight else -1)


def words(lang: str) -> Words:
    """What a tensor drawing writes into its nodes, in ``lang``."""
    return Words(
        tr("graph.draw.freed", lang),
        tr("graphvars.draw.modified", lang),
        tr("graph.draw.raised", lang),
    )


def drawn_counts(ops: int, saved: int, freed: int, lang: str = "en") -> str:
    """The caption under a flag-lab drawing: its backward functions and saved tensors, each
    count with its noun in the singular or the plural, and how many of them were freed."""

    def count(key: str, n: int) -> str:
        return tr(f"{key}_one" if n == 1 else key, lang, n=n)

    return tr(
        "graphvars.draw.count",
        lang,
        ops=count("graphvars.draw.ops", ops),
        saved=count("graphvars.draw.saved", saved),
        freed=freed,
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


def growth_figure(stats: tuple[OrderStats, ...], order: int, lang: str = "en") -> PlainFigure:
    """Four small panels by order: graph nodes, depth, saved-tensor bytes, time of each pass.

    Counts on log scales, so a constant growth factor is a straight line; zero counts (a
    constant function has no nodes) are left out. The selected ``order`` is marked.
    """
    titles = [tr(f"graph.growth.{name}", lang) for name in ("nodes", "depth", "bytes", "ms")]
    orders = [s.order for s in stats]
    series = (
        [s.nodes for s in stats],
        [s.depth for s in stats],
        [s.saved_bytes for s in stats],
        [s.seconds * 1000 for s in stats],
    )
    marker = {
        "color": [PASS_BORDERS[k] for k in orders],
        "size": [14 if k == order else 8 for k in orders],
        "line": {"color": _NEW, "width": 1},
    }
    # Four panels side by side, as make_subplots(cols=4, horizontal_spacing=0.06) lays them
    # out, written as plain dicts (drawn on every rerun; see plotting.py).
    traces, shapes, annotations, layout = [], [], [], {}
    cells = grid_cells(1, 4, 0.06, 0.0)
    for col, (title, values, (x_domain, y_domain)) in enumerate(
        zip(titles, series, cells, strict=True), start=1
    ):
        n = "" if col == 1 else str(col)
        traces.append(
            {
                "type": "scatter",
                "x": orders,
                "y": [v if v > 0 else None for v in values],
                "mode": "lines+markers",
                "name": title,
                "showlegend": False,
                "line": {"color": "#9ca3af", "width": 2},
                "marker": marker,
                "hovertemplate": tr("graph.growth.hover", lang) + "<extra></extra>",
                "xaxis": f"x{n}",
                "yaxis": f"y{n}",
            }
        )
        # counts on log scales (a constant growth factor is a straight line); times, small
        # and noisy, read best from zero
        yaxis = {"type": "log"} if col < 4 else {"rangemode": "tozero"}
        layout[f"yaxis{n}"] = {"anchor": f"x{n}", "domain": y_domain, **yaxis}
        layout[f"xaxis{n}"] = {
            "anchor": f"y{n}",
            "domain": x_domain,
            "dtick": 1,
            "title": {"text": tr("graph.growth.order", lang)},
        }
        shapes.append(vline(order, {"color": _NEW, "dash": "dot", "width": 1}, n))
        annotations.append(cell_title(title, x_domain, y_domain, size=15))
    return plain_figure(
        traces,
        height=330,
        margin={"l": 10, "r": 10, "t": 40, "b": 10},
        font={"size": 14},
        shapes=shapes,
        annotations=annotations,
        **layout,
    )


def stats_rows(stats: tuple[OrderStats, ...], lang: str = "en") -> list[dict[str, object]]:
    """One row per order: value, nodes, new nodes, depth, saved tensors and bytes, time,
    grad_fn."""
    keys = ("order", "value", "nodes", "new", "depth", "saved", "bytes", "ms", "grad_fn")
    head = {k: tr(f"graph.table.{k}", lang) for k in keys}
    return [
        {
            head["order"]: s.order,
            head["value"]: f"{s.value:.6g}",
            head["nodes"]: s.nodes,
            head["new"]: s.new_nodes,
            head["depth"]: s.depth,
            head["saved"]: s.saved_tensors,
            head["bytes"]: s.saved_bytes,
            head["ms"]: round(s.seconds * 1000, 3),
            head["grad_fn"]: s.grad_fn or "None",
        }
        for s in stats
    ]
