"""The core's DOT writer against the graphviz package (an oracle it does not use): the same
statements give the same source, byte for byte, quoting included."""

from __future__ import annotations

import itertools
import re

import pytest
from graphviz import Digraph

from hograd_core import parse
from hograd_core.flaglab.cases import CASES, run_case
from hograd_core.flaglab.flags import ACTIONS, FlagSettings, run_flags
from hograd_core.graph_dot import (
    ENGLISH,
    SAVED_LINE,
    Legend,
    _attrs,
    _legend,
    node_attrs,
    tensor_dot,
    view_dot,
)
from hograd_core.graphs import graph_lab
from hograd_core.hvp_graph import hvp_graph


def reference(nodes, edges, attrs_of, label: str = "", spacing=("TB", "0.25", "0.35")) -> str:
    """The same drawing built statement by statement with graphviz.Digraph; ``spacing``: its
    rankdir, nodesep and ranksep."""
    rankdir, nodesep, ranksep = spacing
    dot = Digraph(
        "autograd",
        graph_attr={
            "rankdir": rankdir,
            "nodesep": nodesep,
            "ranksep": ranksep,
            "fontname": "Helvetica,Arial,sans-serif",
            "fontsize": "10",
            "bgcolor": "transparent",
            "labelloc": "b",
        },
        node_attr={
            "shape": "box",
            "style": "filled",
            "fontname": "Helvetica,Arial,sans-serif",
            "fontsize": "10",
            "height": "0.25",
            "margin": "0.08,0.03",
        },
        edge_attr={"color": "#4b5563", "arrowsize": "0.6"},
    )
    for node in nodes:
        dot.node(node.name, **attrs_of(node))
    for e in edges:
        if e.saved:
            dot.edge(e.src, e.dst, style="dashed", dir="none", color=SAVED_LINE)
        else:
            dot.edge(e.src, e.dst)
    if label:
        dot.attr(label=label)
    return dot.source


@pytest.mark.parametrize("text", ["x**3", "tanh(x)", "2*x", "sin(x)*exp(-x**2)"])
def test_views_match_graphviz(text: str) -> None:
    lab = graph_lab(parse(text), 0.7, 3)
    for order, saved, highlight in itertools.product(range(4), [False, True], [False, True]):
        view = lab.view(order, show_saved=saved)
        has = {e.dst for e in view.edges if not e.saved}
        legend = Legend(((0, 'a "quoted" <cell> & more'), (1, "b")), "shapes", order)

        def attrs(n, view=view, has=has, highlight=highlight):
            constant = n.kind == "output" and n.name not in has
            return node_attrs(n, n.pass_index == view.order, highlight, view.variable, constant)

        mine = view_dot(view, highlight=highlight, legend=legend)
        assert mine == reference(view.nodes, view.edges, attrs, _legend(legend))


def test_tensor_drawings_match_graphviz() -> None:
    graphs = [
        run_flags(parse("x**3"), 0.7, FlagSettings(cg, None, False, False, z, a)).drawing
        for cg in (False, True)
        for z in (False, True)
        for a in ACTIONS
    ]
    graphs += [run_case(c, v).drawing for c in CASES for v in CASES[c].variants]
    graphs.append(hvp_graph(parse("w1**2*sin(w2)"), "1, pi/2", "0.5, 1").graph)
    for graph in graphs:
        source = tensor_dot(graph, ENGLISH)
        for node in graph.nodes:  # every node's statement is written as graphviz writes it
            line = f"\t{node.name} [" if node.name.isidentifier() else f'\t"{node.name}" ['
            assert line in source, node
        assert source.count(" -> ") == len(graph.edges)


@pytest.mark.parametrize("direction", ["TB", "LR"])
def test_projector_drawings_are_tight_in_either_direction(direction: str) -> None:
    """``tight`` (presentation mode) puts nodes 0.1 and ranks 0.2 inches apart, in either
    direction, the statements otherwise unchanged; an unknown direction is refused."""
    from hograd_core.errors import ArgumentError

    settings = FlagSettings(True, None, False, False, False, "next")
    graph = run_flags(parse("x**3"), 0.7, settings).drawing
    has = {e.dst for e in graph.edges if not e.saved}

    def attrs(n):
        alone = n.kind == "output" and n.name not in has and n.value is not None
        return node_attrs(n, False, False, "x", alone)

    plain = tensor_dot(graph, ENGLISH, direction=direction)
    tight = tensor_dot(graph, ENGLISH, direction=direction, tight=True)
    spacing = (direction, "0.1", "0.2")
    oracle = reference(graph.nodes, graph.edges, attrs, "", spacing)
    assert tight.splitlines()[:4] == oracle.splitlines()[:4]  # digraph, graph, node, edge
    assert tight.count(" -> ") == oracle.count(" -> ") == len(graph.edges)
    assert (
        tight.replace("nodesep=0.1", "nodesep=0.25").replace("ranksep=0.2", "ranksep=0.35") == plain
    )
    with pytest.raises(ArgumentError, match="direction"):
        tensor_dot(graph, ENGLISH, direction="BT")
    view = graph_lab(parse("x**3"), 0.7, 2).view(2)
    assert f"nodesep=0.1 rankdir={direction} ranksep=0.2" in view_dot(
        view, direction=direction, tight=True
    )


def test_quoting_as_graphviz_quotes() -> None:
    from graphviz.quoting import quote

    from hograd_core.graph_dot import _quote

    for text in [
        "p0_1",
        "x = 0.7",
        'say "hi"',
        "-4.2",
        ".42",
        "node",
        "Edge",
        "d2y/dx2 = 4",
        "a\nb",
        "<<TABLE></TABLE>>",
        "",
        "tanh",
        "p1_0.self",
        "g·v = 1",
    ]:
        assert _quote(text) == quote(text), text
    assert _attrs({"label": "x y", "b": "1", "a": "#fff"}) == 'label="x y" a="#fff" b=1'


def test_torchviz_labels_keep_their_lines_with_escaped_newlines() -> None:
    """Issue 36, finding 4: torchviz labels an unnamed tensor "\\n ()" (an empty first line),
    and a Graphviz chart with such a label, after another chart, came out empty in the
    browser (tests/e2e/test_graph_browser.py shows it drawn now). The fixed source has no raw
    newline in a quoted string and no string that starts with a line break; that Graphviz draws
    the same text lines from both (dot's own drawing as the oracle) is checked in
    tests/programs/test_graph_dot_drawn.py, which runs dot."""
    raw, fixed = torchviz_sources()
    quoted = re.findall(r'"(?:[^"\\]|\\.)*"', fixed, re.S)
    assert quoted and not any("\n" in q or q.startswith('"\\n') for q in quoted)
    assert any("\n" in q for q in re.findall(r'"(?:[^"\\]|\\.)*"', raw, re.S))  # it had some


def torchviz_sources() -> tuple[str, str]:
    """torchviz's DOT of x**3 and its first derivative at 0.7 (saved tensors shown), and the
    same source with :func:`hograd_core.graph_dot.escape_newlines` applied."""
    import torch
    from torchviz import make_dot

    from hograd_core.graph_dot import escape_newlines

    x = torch.tensor(0.7, dtype=torch.float64, requires_grad=True)
    y = x**3
    (g,) = torch.autograd.grad(y, x, create_graph=True)
    raw = make_dot((y, g), params={"x": x}, show_attrs=True, show_saved=True).source
    return raw, escape_newlines(raw)
