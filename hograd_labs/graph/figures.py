"""The graph lab's drawings: the graph of f, f', ..., f^(k) pass by pass (DOT, legend, tables,
the growth in words) and the Hessian-vector product's graph, in the learner's language.

The DOT source itself is written by :mod:`hograd_core.graph_dot`; the flag lab's drawings and
the passes' names are shared with other labs (:mod:`hograd_ui.tensor_drawing`, whose note says
why every drawing is drawn at its own size). The growth chart and table are drawn by the lesson
too (through :mod:`.embed`). Nothing here runs a process or reads a cache: laying DOT out as
SVG is :mod:`.cached`'s. ``min_width`` gives a drawing a minimum width.
"""

from __future__ import annotations

import dataclasses
import html

from hograd_core.graph_dot import SAVED_LINE, Legend, tensor_dot, view_dot
from hograd_core.graphs import GraphLab, GraphView, OrderStats, trend
from hograd_core.hvp_graph import HVP_PASSES, HVPGraph
from hograd_ui.i18n import tr
from hograd_ui.plotting import PlainFigure, cell_title, grid_cells, plain_figure, vline
from hograd_ui.tensor_drawing import NEW, PASS_BORDERS, pass_chip, pass_name, with_cue, words

from .compute import shown

__all__ = [
    "ON_PAGE",
    "ON_SLIDE",
    "STRUT",
    "drawn_counts",
    "growth_figure",
    "growth_text",
    "hvp_dot",
    "hvp_legend_html",
    "hvp_summary_rows",
    "legend_html",
    "pass_count",
    "pass_dots",
    "pass_legend",
    "stage_name",
    "stats_rows",
    "summary_rows",
    "to_dot",
]


def pass_count(k: int, n: int, lang: str) -> str:
    key = "graph.legend.pass_one" if n == 1 else "graph.legend.pass"
    return tr(key, lang, name=pass_name(k, lang), n=n)


def pass_legend(view: GraphView, lang: str, highlight: bool) -> Legend:
    """The legend under a downloaded graph: each pass's colour and node count."""
    counts = view.per_pass[: view.order + 1]
    cells = tuple((k, with_cue(k, pass_count(k, n, lang), lang)) for k, n in enumerate(counts))
    return Legend(cells, tr("graph.legend.shapes", lang), view.order if highlight else -1)


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
        "line": {"color": NEW, "width": 1},
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
                "line": {"color": SAVED_LINE, "width": 2},  # 4.83:1 on white
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
        shapes.append(vline(order, {"color": NEW, "dash": "dot", "width": 1}, n))
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


#: points: a graph narrower than this is drawn as if this wide (text ~19 px)
STRUT = 420.0

#: How a run's drawing is laid out (keywords of :func:`hvp_dot` and of
#: hograd_ui/tensor_drawing.py's ``flag_dot``): top to bottom on a page; left to right and
#: tight on a slide, where the screen is wide and short (issue 38: top to bottom, the seed's
#: H v graph was 790 px tall at the projector's text size). The frame picks one
#: (hograd_ui/parts/frame.py's ``Frame.setting``).
ON_PAGE: dict = {"direction": "TB"}
ON_SLIDE: dict = {"direction": "LR", "tight": True}


def legend_html(view: GraphView, lang: str = "en", *, highlight: bool = True) -> str:
    """The legend as a line of chips for the page, each in its pass's colour and border and
    naming the border (fixed text, escaped; no user input)."""
    chips = [
        pass_chip(k, pass_count(k, n, lang), lang, newest=highlight and k == view.order)
        for k, n in enumerate(view.per_pass)
    ]
    shapes = html.escape(tr("graph.legend.shapes", lang))
    return (
        f'<div style="line-height:2">{"".join(chips)}</div><div style="opacity:.75">{shapes}</div>'
    )


def to_dot(
    view: GraphView,
    lang: str = "en",
    *,
    highlight: bool = True,
    legend: bool = True,
    direction: str = "TB",
    min_width: float = 0.0,
) -> str:
    """DOT source of a graph view, nodes coloured by pass, the newest pass outlined.

    Args:
        view: from ``GraphLab.view(order)``.
        lang: language of the legend ("en" or "zh").
        highlight: outline the nodes the newest pass (``view.order``) added.
        legend: put the legend (pass colours and counts) under the graph (for downloads; the
            page shows :func:`legend_html` instead, which stays readable on large graphs).
        direction: graphviz ``rankdir``: "TB" (inputs on top, as torchviz) or "LR".
        min_width: the least width of the drawing in points (an invisible strut under it),
            which caps how much a chart stretched to the page enlarges a small graph.

    Raises:
        BudgetError: the view has more than ``GRAPH_BUDGET.max_draw`` nodes: graphviz would
            take seconds to minutes to lay it out and nobody could read it.
    """
    return view_dot(
        view,
        highlight=highlight,
        direction=direction,
        min_width=min_width,
        legend=pass_legend(view, lang, highlight) if legend else None,
    )


def _numbers(values: tuple[int, ...] | tuple[float, ...], fmt: str = "{}") -> str:
    return ", ".join(fmt.format(v) for v in values)


def growth_text(stats: tuple[OrderStats, ...], lang: str = "en") -> str:
    """What grew, order by order, in sentences built from the measured counts.

    One sentence on the node count (stopped, growing by more each order, or not by a factor:
    :func:`hograd_core.graphs.trend` decides), one on the depth (its values per order), and
    the factor each grew by from order 1 to the last; no number in them is fixed text.
    """
    nodes = trend([s.nodes for s in stats])
    depth = trend([s.depth for s in stats])
    last = len(stats) - 1
    if nodes.kind == "none":
        return tr("graph.growth.none", lang)
    if nodes.kind == "stopped":
        parts = [tr("graph.growth.flat", lang, since=nodes.since, nodes=nodes.values[-1])]
    else:
        added = _numbers(nodes.added)
        key = "graph.growth.growing" if nodes.kind == "growing" else "graph.growth.steady"
        ratios = _numbers(nodes.ratios, "×{:.2f}")
        parts = [tr(key, lang, span=nodes.span, added=added, ratios=ratios)]
        if nodes.rising:
            parts.append(tr("graph.growth.rising", lang))
    values = _numbers(depth.values)
    if depth.kind == "stopped" and depth.since < last:
        parts.append(
            tr(
                "graph.growth.depth_stopped",
                lang,
                last=last,
                depths=values,
                depth=depth.values[-1],
                since=depth.since,
            )
        )
    else:
        parts.append(tr("graph.growth.depth_line", lang, last=last, depths=values))
    if last >= 2 and stats[1].nodes and stats[1].depth and stats[-1].nodes != stats[1].nodes:
        parts.append(
            tr(
                "graph.growth.compare",
                lang,
                last=last,
                nodes=f"{stats[-1].nodes / stats[1].nodes:.1f}",
                depth=f"{stats[-1].depth / stats[1].depth:.1f}",
            )
        )
    return " ".join(parts)


def pass_dots(
    lab: GraphLab,
    order: int,
    lang: str = "en",
    *,
    saved: bool = False,
    highlight: bool = True,
    direction: str = "TB",
) -> tuple[str, ...]:
    """The downloads' DOT of the graph after each pass 0..``order`` (legend inside, the newest
    pass outlined): one slide per step, as ``python -m hograd_core graph --steps`` draws them.
    """
    return tuple(
        to_dot(lab.view(k, show_saved=saved), lang, highlight=highlight, direction=direction)
        for k in range(order + 1)
    )


def summary_rows(view: GraphView, lang: str = "en") -> list[dict[str, object]]:
    """The view's nodes by type (rows) and pass (columns), with a total, for a table."""
    passes = [pass_name(k, lang) for k in range(view.order + 1)]
    return [
        {
            tr("graph.summary.type", lang): row.op,
            **dict(zip(passes, row.per_pass, strict=True)),
            tr("graph.summary.total", lang): row.total,
        }
        for row in view.summary
    ]


# ---- the graph of one Hessian-vector product (two or more variables) ------------------------
# Its four colours are the four stages of ``hvp_graph`` (forward, the recorded first backward,
# g·v, the second backward), named here in the learner's language.

#: The name of each stage, in the order of HVP_PASSES (forward, grad, dot, hvp).
_STAGES = (
    "graphvars.pass.forward",
    "graphvars.pass.grad",
    "graphvars.pass.dot",
    "graphvars.pass.hvp",
)


def stage_name(k: int, lang: str = "en") -> str:
    """The name of stage ``k`` of the HVP graph in ``lang``."""
    assert _STAGES[k].endswith(HVP_PASSES[k])
    return tr(_STAGES[k], lang)


def hvp_dot(
    result: HVPGraph,
    lang: str = "en",
    *,
    min_width: float = 0.0,
    saved: bool = True,
    direction: str = "TB",
    tight: bool = False,
) -> str:
    """DOT source of the HVP graph, its values rounded by :func:`.compute.shown` (then written
    with 4 significant digits); raises BudgetError over the drawing limit. ``saved``: draw
    the saved tensors; ``direction`` and ``tight`` as for
    :func:`hograd_core.graph_dot.tensor_dot`; tight, the results without a grad_fn (H v,
    unless recorded) come last, where the eye ends, instead of first."""
    nodes = tuple(
        n if n.value is None else dataclasses.replace(n, value=shown(n.value))
        for n in result.graph.nodes
    )
    graph = dataclasses.replace(result.graph, nodes=nodes)
    if not saved:
        graph = graph.without_saved()
    return tensor_dot(
        graph,
        words(lang),
        min_width=min_width,
        direction=direction,
        tight=tight,
        alone_last=tight,
    )


def hvp_legend_html(result: HVPGraph, lang: str = "en") -> str:
    """One chip per stage: its colour and border, its name and how many backward functions it
    added (fixed text, escaped; no user input)."""
    chips = []
    for k, n in enumerate(result.graph.per_pass):
        key = "graph.legend.pass_one" if n == 1 else "graph.legend.pass"
        chips.append(pass_chip(k, tr(key, lang, name=stage_name(k, lang), n=n), lang))
    return f'<div style="line-height:2">{"".join(chips)}</div>'


def hvp_summary_rows(result: HVPGraph, lang: str = "en") -> list[dict[str, object]]:
    """Backward functions by type (rows) and stage (columns), with a total, for a table."""
    stages = [stage_name(k, lang) for k in range(len(HVP_PASSES))]
    return [
        {
            tr("graphvars.summary.type", lang): row.op,
            **dict(zip(stages, row.per_pass, strict=True)),
            tr("graphvars.summary.total", lang): row.total,
        }
        for row in result.summary
    ]
