"""Drawing the traced graph for the page: DOT in the learner's language, SVG, legends, growth.

The DOT source itself, one colour per pass, is written by :mod:`hograd_core.graph_dot` (the
command line prints the same drawings); this module passes it the translated words and
legends, lays it out with graphviz's ``dot`` for SVG downloads, and draws the page's HTML
legends and the growth chart.

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
import shutil
import subprocess

import plotly.graph_objects as go
import streamlit as st

from hograd_core.errors import BudgetError
from hograd_core.graph_dot import NEW as _NEW
from hograd_core.graph_dot import PASS_BORDERS, PASS_COLOURS, Legend, Words, tensor_dot, view_dot
from hograd_core.graphs import GraphView, OrderStats, TensorGraph, trend
from hograd_serving.cached import lab_for
from hograd_serving.gate import heavy_work
from hograd_ui.i18n import tr

from .plotting import cell_title, grid_cells, new_figure, vline

__all__ = [
    "PASS_BORDERS",
    "PASS_COLOURS",
    "dot_available",
    "drawn_counts",
    "flag_dot",
    "flag_legend_html",
    "growth_figure",
    "growth_text",
    "legend_html",
    "pass_name",
    "stats_rows",
    "summary_rows",
    "to_dot",
    "to_svg",
]

_SVG_TIMEOUT = 30.0  # seconds; within max_draw nodes dot needs about 1 s here


def pass_name(k: int, lang: str = "en") -> str:
    """The name of pass ``k`` in ``lang``: "forward pass", "1st backward pass", ..."""
    return tr(f"graph.pass.{k}", lang)


def _pass_count(k: int, n: int, lang: str) -> str:
    key = "graph.legend.pass_one" if n == 1 else "graph.legend.pass"
    return tr(key, lang, name=pass_name(k, lang), n=n)


def _legend(view: GraphView, lang: str, highlight: bool) -> Legend:
    """The legend under a downloaded graph: each pass's colour and node count."""
    cells = tuple((k, _pass_count(k, view.per_pass[k], lang)) for k in range(view.order + 1))
    return Legend(cells, tr("graph.legend.shapes", lang), view.order if highlight else -1)


def words(lang: str) -> Words:
    """What a tensor drawing writes into its nodes, in ``lang``."""
    return Words(
        tr("graph.draw.freed", lang), tr("graphvars.draw.modified", lang),
        tr("graph.draw.raised", lang),
    )  # fmt: skip


def drawn_counts(ops: int, saved: int, freed: int, lang: str = "en") -> str:
    """The caption under a flag-lab drawing: its backward functions and saved tensors, each
    count with its noun in the singular or the plural, and how many of them were freed."""

    def count(key: str, n: int) -> str:
        return tr(f"{key}_one" if n == 1 else key, lang, n=n)

    return tr(
        "graphvars.draw.count", lang, ops=count("graphvars.draw.ops", ops),
        saved=count("graphvars.draw.saved", saved), freed=freed,
    )  # fmt: skip


def legend_html(view: GraphView, lang: str = "en", *, highlight: bool = True) -> str:
    """The legend as a line of coloured chips for the page (fixed text, escaped; no user input)."""
    chip = (
        '<span style="display:inline-block;margin:0 .4em .4em 0;padding:.15em .6em;'
        'border-radius:.3em;background:{fill};border:{width}px solid {border};color:#111827">'
        "{text}</span>"
    )
    chips = []
    for k, n in enumerate(view.per_pass):
        text = html.escape(_pass_count(k, n, lang))
        newest = highlight and k == view.order
        border = _NEW if newest else PASS_BORDERS[k]
        chips.append(
            chip.format(fill=PASS_COLOURS[k], text=text, width=3 if newest else 1, border=border)
        )  # noqa: E501
    shapes = html.escape(tr("graph.legend.shapes", lang))
    return (
        f'<div style="line-height:2">{"".join(chips)}</div><div style="opacity:.75">{shapes}</div>'  # noqa: E501
    )


def to_dot(
    view: GraphView, lang: str = "en", *, highlight: bool = True, legend: bool = True,
    direction: str = "TB", min_width: float = 0.0,
) -> str:  # fmt: skip
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
        view, highlight=highlight, direction=direction, min_width=min_width,
        legend=_legend(view, lang, highlight) if legend else None,
    )  # fmt: skip


def flag_dot(graph: TensorGraph, lang: str = "en", *, min_width: float = 0.0) -> str:
    """DOT source of a flag-lab run's real graph, in the pass colours of the graph page.

    Saved tensors that a backward pass freed (or that were changed in place) are greyed and
    say so; the node where the run raised has a red outline; a result with no ``grad_fn``
    stands alone, marked "(no grad_fn)"; None is drawn as None
    (:func:`hograd_core.graph_dot.tensor_dot`).

    Raises:
        BudgetError: more than ``GRAPH_BUDGET.max_draw`` nodes (the graph page's limit).
    """
    return tensor_dot(graph, words(lang), min_width=min_width)


def flag_legend_html(graph: TensorGraph, lang: str = "en") -> str:
    """Which colour is which call: one chip per pass with the tensors it made (fixed names,
    escaped)."""
    chip = (
        '<span style="display:inline-block;margin:0 .4em .4em 0;padding:.1em .5em;'
        'border-radius:.3em;background:{fill};border:1px solid {border};color:#111827">'
        "{text}</span>"
    )
    made: dict[int, list[str]] = {}
    for node in graph.nodes:
        if node.kind == "output":
            names = made.setdefault(node.pass_index, [])
            if node.label not in names:  # x.grad printed twice, y rebuilt: named once
                names.append(node.label)
    chips = [
        chip.format(
            fill=PASS_COLOURS[k], border=PASS_BORDERS[k],
            text=html.escape(f"{', '.join(names)}: {pass_name(k, lang)}"),
        )
        for k, names in sorted(made.items())
    ]  # fmt: skip
    return f'<div style="line-height:2">{"".join(chips)}</div>'


def dot_available() -> bool:
    """Whether the graphviz ``dot`` binary is installed (needed for SVG, not for DOT)."""
    return shutil.which("dot") is not None


def to_svg(dot_source: str) -> bytes | None:
    """Lay out DOT source with the ``dot`` binary; None when the binary is missing.

    Only pass the source of a drawable view (``to_dot`` refuses larger ones).

    Raises:
        BudgetError: dot ran longer than 30 s or failed.
        BusyError: the server is busy with other heavy requests.
    """
    exe = shutil.which("dot")
    if exe is None:
        return None
    with heavy_work():
        try:
            done = subprocess.run(
                [exe, "-Tsvg"], input=dot_source.encode(), capture_output=True,
                timeout=_SVG_TIMEOUT, check=False,
            )  # fmt: skip
        except subprocess.TimeoutExpired as err:
            raise BudgetError("graph.budget.svg_timeout", seconds=f"{_SVG_TIMEOUT:g}") from err
    if done.returncode != 0:
        raise BudgetError("graph.budget.svg_failed", detail=done.stderr.decode()[:200])
    return done.stdout


def growth_figure(stats: tuple[OrderStats, ...], order: int, lang: str = "en") -> go.Figure:
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
        traces.append({
            "type": "scatter", "x": orders, "y": [v if v > 0 else None for v in values],
            "mode": "lines+markers", "name": title, "showlegend": False,
            "line": {"color": "#9ca3af", "width": 2}, "marker": marker,
            "hovertemplate": tr("graph.growth.hover", lang) + "<extra></extra>",
            "xaxis": f"x{n}", "yaxis": f"y{n}",
        })  # fmt: skip
        # counts on log scales (a constant growth factor is a straight line); times, small
        # and noisy, read best from zero
        yaxis = {"type": "log"} if col < 4 else {"rangemode": "tozero"}
        layout[f"yaxis{n}"] = {"anchor": f"x{n}", "domain": y_domain, **yaxis}
        layout[f"xaxis{n}"] = {
            "anchor": f"y{n}", "domain": x_domain, "dtick": 1,
            "title": {"text": tr("graph.growth.order", lang)},
        }  # fmt: skip
        shapes.append(vline(order, {"color": _NEW, "dash": "dot", "width": 1}, n))
        annotations.append(cell_title(title, x_domain, y_domain, size=15))
    return new_figure(
        traces, height=330, margin={"l": 10, "r": 10, "t": 40, "b": 10}, font={"size": 14},
        shapes=shapes, annotations=annotations, **layout,
    )  # fmt: skip


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
        parts.append(tr(
            "graph.growth.depth_stopped", lang, last=last, depths=values,
            depth=depth.values[-1], since=depth.since,
        ))  # fmt: skip
    else:
        parts.append(tr("graph.growth.depth_line", lang, last=last, depths=values))
    if last >= 2 and stats[1].nodes and stats[1].depth and stats[-1].nodes != stats[1].nodes:
        parts.append(tr(
            "graph.growth.compare", lang, last=last,
            nodes=f"{stats[-1].nodes / stats[1].nodes:.1f}",
            depth=f"{stats[-1].depth / stats[1].depth:.1f}",
        ))  # fmt: skip
    return " ".join(parts)


def summary_rows(view: GraphView, lang: str = "en") -> list[dict[str, object]]:
    """The view's nodes by type (rows) and pass (columns), with a total, for a table."""
    passes = [pass_name(k, lang) for k in range(view.order + 1)]
    return [
        {tr("graph.summary.type", lang): row.op, **dict(zip(passes, row.per_pass, strict=True)),
         tr("graph.summary.total", lang): row.total}
        for row in view.summary
    ]  # fmt: skip


def stats_rows(stats: tuple[OrderStats, ...], lang: str = "en") -> list[dict[str, object]]:
    """One row per order: value, nodes, new nodes, depth, saved tensors and bytes, time,
    grad_fn."""
    keys = ("order", "value", "nodes", "new", "depth", "saved", "bytes", "ms", "grad_fn")
    head = {k: tr(f"graph.table.{k}", lang) for k in keys}
    return [
        {head["order"]: s.order, head["value"]: f"{s.value:.6g}", head["nodes"]: s.nodes,
         head["new"]: s.new_nodes, head["depth"]: s.depth, head["saved"]: s.saved_tensors,
         head["bytes"]: s.saved_bytes,
         head["ms"]: round(s.seconds * 1000, 3), head["grad_fn"]: s.grad_fn or "None"}
        for s in stats
    ]  # fmt: skip


# ---- cached for the page (defined once per process) -----------------------------------------

#: points: a graph narrower than this is drawn as if this wide (text ~19 px)
STRUT = 420.0


@st.cache_data(max_entries=64, show_spinner=False)
def dot_for(
    text: str, x0: float, order: int, saved: bool, bold: bool, rankdir: str, language: str,
    page: bool,
) -> str:  # fmt: skip
    """The chart (fitted to the page, legend on the page) or the download (legend inside)."""
    view = lab_for(text, x0).view(order, show_saved=saved)
    strut = STRUT if page else 0.0
    return to_dot(
        view, language, highlight=bold, direction=rankdir, legend=not page, min_width=strut
    )


@st.cache_data(max_entries=16, show_spinner=False)
def svg_for(dot_source: str) -> bytes:
    return to_svg(dot_source) or b""
