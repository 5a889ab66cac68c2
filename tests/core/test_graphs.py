"""The graph lab's trace: pass colouring against hand-counted graphs, torchviz and sympy.

Oracles: the node types each pass must add, derived by hand from PyTorch's derivative formulas
(tools/autograd/derivatives.yaml) and written out below; torchviz ``make_dot`` on the same
tensors (same nodes and edges); sympy for the values of every order.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest
import sympy as sp
import torch

from hograd_core import HogradError, parse
from hograd_core import graphs as graphs_module
from hograd_core.graphs import GRAPH_BUDGET, GraphBudget, graph_lab, output_label, trend
from hograd_core.language.to_sympy import to_sympy
from hograd_labs.graph.cached import dot_available, to_svg
from hograd_labs.graph.figures import (
    drawn_counts,
    growth_figure,
    legend_html,
    stats_rows,
    summary_rows,
    to_dot,
)
from hograd_ui.tensor_drawing import PASS_COLOURS
from tests.english import raises


def per_pass(lab, order: int) -> list[Counter]:
    """The grad_fn types each pass added, passes 0..order."""
    view = lab.view(order)
    out = [Counter() for _ in range(order + 1)]
    for node in view.nodes:
        if node.kind == "op":
            out[node.pass_index][node.label] += 1
    return out


# ---- hand-counted graphs --------------------------------------------------------------------


def test_cube_adds_three_nodes_per_pass_then_stops() -> None:
    # y = pow(x, 3.0): forward = PowBackward0 fed by x's AccumulateGrad.
    # Each backward differentiates c*x^n by pow_backward: grad * n * x.pow(n - 1), recorded as
    # a new PowBackward0 (x^(n-1)), a MulBackward1 (times the Python number n) and a
    # MulBackward0 (grad times that tensor). x^3 -> x^2 -> x^1 -> x^0: three such passes;
    # the 4th differentiates 6*x^0, whose pow_backward returns plain zeros: no node at all.
    lab = graph_lab(parse("x**3"), 2.0)
    forward = Counter({"AccumulateGrad": 1, "PowBackward0": 1})
    step = Counter({"PowBackward0": 1, "MulBackward1": 1, "MulBackward0": 1})
    assert per_pass(lab, 6) == [forward, step, step, step, Counter(), Counter(), Counter()]
    assert [s.nodes for s in lab.stats] == [2, 5, 8, 11, 11, 11, 11]
    assert [s.value for s in lab.stats] == [8.0, 12.0, 12.0, 6.0, 0.0, 0.0, 0.0]
    assert lab.constant_from == 4  # f'''' = 0 has no grad_fn
    assert [s.requires_grad for s in lab.stats] == [True] * 4 + [False] * 3


def test_sine_alternates_two_and_three_nodes() -> None:
    # sin' = grad * cos(x): CosBackward0 + MulBackward0 (grad is a constant 1).
    # cos' = grad * -sin(x): SinBackward0 + NegBackward0 + MulBackward0.
    # The incoming grads (1, then products of constants) never need a node of their own.
    lab = graph_lab(parse("sin(x)"), 0.7)
    two = Counter({"CosBackward0": 1, "MulBackward0": 1})
    three = Counter({"SinBackward0": 1, "NegBackward0": 1, "MulBackward0": 1})
    forward = Counter({"AccumulateGrad": 1, "SinBackward0": 1})
    assert per_pass(lab, 6) == [forward, two, three, two, three, two, three]
    assert lab.constant_from is None


def test_tanh_passes() -> None:
    # Pass 1: tanh_backward(grad, y) -> one TanhBackwardBackward0 (y is the forward's output).
    # Pass 2 differentiates tanh_backward w.r.t. its saved output y:
    #   grad * (-2 * y * grad_output) -> MulBackward1 (-2*y), MulBackward0 (* grad_output),
    #   MulBackward0 (grad * ...); the result flows into y's TanhBackward0, whose backward
    #   tanh_backward(g, y) is recorded: one more TanhBackwardBackward0.
    # Pass 3 repeats that for both TanhBackwardBackward0 of pass 2's graph and adds their two
    # contributions to y (AddBackward0): 2 Tanh..., 2 MulBackward1, 4 MulBackward0, 1 Add.
    lab = graph_lab(parse("tanh(x)"), 0.7)
    assert per_pass(lab, 3) == [
        Counter({"AccumulateGrad": 1, "TanhBackward0": 1}),
        Counter({"TanhBackwardBackward0": 1}),
        Counter({"MulBackward1": 1, "MulBackward0": 2, "TanhBackwardBackward0": 1}),
        Counter(
            {"TanhBackwardBackward0": 2, "MulBackward1": 2, "MulBackward0": 4, "AddBackward0": 1}
        ),
    ]
    # Beyond order 3 the counts are measured, pinned as a regression (tests/core/
    # test_graph_growth.py checks them against an independent walk): hundreds at order 6.
    assert [s.nodes for s in lab.stats] == [2, 3, 7, 16, 37, 88, 217]
    assert trend([s.nodes for s in lab.stats]).kind == "growing"


def test_linear_function_is_a_constant_after_one_pass() -> None:
    # Python's 2.0 * x wraps 2.0 as a tensor: MulBackward0 (C++ code multiplying by a Scalar,
    # as pow_backward does, records MulBackward1). Its derivative 2 needs no graph.
    lab = graph_lab(parse("2*x"), 1.5)
    forward = Counter({"AccumulateGrad": 1, "MulBackward0": 1})
    assert per_pass(lab, 2) == [forward, Counter(), Counter()]
    assert lab.constant_from == 1
    assert [s.value for s in lab.stats[:3]] == [3.0, 2.0, 0.0]


def test_relu_keeps_a_graph_of_zeros() -> None:
    # threshold_backward is itself differentiable (derivative 0): every order adds one node.
    lab = graph_lab(parse("relu(x)"), 1.5)
    assert [s.new_nodes for s in lab.stats] == [2, 1, 1, 1, 1, 1, 1]
    assert all(s.grad_fn == "ThresholdBackwardBackward0" for s in lab.stats[1:])
    assert [s.value for s in lab.stats] == [1.5, 1.0, 0, 0, 0, 0, 0]
    assert lab.constant_from is None


def test_constant_function_has_no_graph() -> None:
    lab = graph_lab(parse("3"), 0.0)
    assert [s.nodes for s in lab.stats] == [0] * 7
    assert lab.constant_from == 0
    view = lab.view(2)
    assert [n.kind for n in view.nodes] == ["output"] * 3 and not view.edges


# ---- independent oracles --------------------------------------------------------------------


@pytest.mark.parametrize(
    "text", ["x**3", "sin(x)", "tanh(x)", "sin(x)*exp(-x**2)", "1/(1+x**2)", "softplus(x)"]
)
def test_values_match_sympy(text: str) -> None:
    x0 = 0.7
    lab = graph_lab(parse(text), x0, 4)
    x = sp.Symbol("x", real=True)
    expr = to_sympy(parse(text).tree)
    for k, stat in enumerate(lab.stats):
        exact = float(sp.diff(expr, x, k).subs(x, x0))
        assert stat.value == pytest.approx(exact, rel=1e-12, abs=1e-12), (text, k)


def _rows(text: str, x0: float, order: int) -> list[torch.Tensor]:
    """Nested autograd written out directly (not through hograd)."""
    x = torch.tensor(x0, dtype=torch.float64, requires_grad=True)
    rows = [parse(text).torch({"x": x})]
    for _ in range(order):
        rows.append(torch.autograd.grad(rows[-1], x, create_graph=True)[0])
    return rows


@pytest.mark.parametrize(("text", "order"), [("x**3", 3), ("tanh(x)", 4), ("sin(x)*exp(-x**2)", 3)])
def test_same_nodes_and_edges_as_torchviz(text: str, order: int) -> None:
    from torchviz import make_dot

    dot = make_dot(tuple(_rows(text, 0.7, order)))
    labels = dict(re.findall(r"^\t(\d+) \[label=([^\s\]]+)", dot.source, re.M))
    ops = Counter(v for v in labels.values() if not v.startswith('"'))  # tensors are quoted
    edges = re.findall(r"^\t(\d+) -> (\d+)", dot.source, re.M)
    op_edges = [
        (a, b) for a, b in edges if not labels[a].startswith('"') and not labels[b].startswith('"')
    ]

    view = graph_lab(parse(text), 0.7, order).view(order)
    mine = Counter(n.label for n in view.nodes if n.kind == "op")
    kinds = {n.name: n.kind for n in view.nodes}
    my_edges = [e for e in view.edges if kinds[e.src] == kinds[e.dst] == "op"]
    assert mine == ops
    assert len(my_edges) == len(op_edges)


def test_a_node_never_feeds_an_earlier_pass() -> None:
    view = graph_lab(parse("sin(x)*exp(-x**2)"), 0.3, 4).view(4, show_saved=True)
    passes = {n.name: n.pass_index for n in view.nodes}
    for edge in view.edges:
        if not edge.saved:
            assert passes[edge.src] <= passes[edge.dst], edge


# ---- names, budgets, drawing ----------------------------------------------------------------


def test_names_are_stable_across_runs_points_and_orders() -> None:
    first = graph_lab(parse("tanh(x)"), 0.7)
    again = graph_lab(parse("tanh(x)"), 0.7)
    elsewhere = graph_lab(parse("tanh(x)"), -1.3)
    structure = lambda lab: [(n.name, n.kind, n.pass_index, n.label) for n in lab.nodes]
    assert first.nodes == again.nodes and first.edges == again.edges
    assert structure(first) == structure(elsewhere) and first.edges == elsewhere.edges
    low = graph_lab(parse("tanh(x)"), 0.7, 3)
    assert low.view(3).nodes == first.view(3).nodes and low.view(3).edges == first.view(3).edges
    assert all(
        re.fullmatch(r"leaf|out\d|p\d_\d+|p\d_\d+\.\w+(\[\d\])?", n.name) for n in first.nodes
    )


def test_output_names() -> None:
    assert [output_label(k) for k in range(3)] == ["y", "dy/dx", "d2y/dx2"]
    lab = graph_lab(parse("t**2"), 1.0, 2)
    assert lab.variable == "t"
    assert [n.label for n in lab.nodes if n.kind == "output"] == ["y", "dy/dt", "d2y/dt2"]


def test_saved_tensors_and_bytes() -> None:
    lab = graph_lab(parse("x**3"), 2.0)
    view = lab.view(1, show_saved=True)
    saved = [n for n in view.nodes if n.kind == "saved"]
    assert saved and all(n.nbytes == 8 for n in saved)  # float64 scalars
    assert ("p0_0.self", "self", 2.0) in [(n.name, n.label, n.value) for n in saved]  # pow saves x
    bytes_ = [s.saved_bytes for s in lab.stats]
    assert bytes_ == sorted(bytes_) and bytes_[3:] == [bytes_[3]] * 4  # stops with the graph
    assert all(s.saved_bytes == 8 * s.saved_tensors for s in lab.stats)
    assert all(s.seconds >= 0 for s in lab.stats)


def test_bad_requests_are_refused() -> None:
    fn = parse("x**3")
    with raises(HogradError, match="order: expected 0 to 6, got 7"):
        graph_lab(fn, 1.0, 7)
    with raises(HogradError, match="x0: expected a finite number"):
        graph_lab(fn, float("nan"))
    with raises(HogradError, match="one variable"):
        graph_lab(parse("x*y"), 1.0)
    with raises(HogradError, match="order"):
        graph_lab(fn, 1.0).view(True)


def test_node_budget_stops_the_build(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(graphs_module, "GRAPH_BUDGET", GraphBudget(max_nodes=40))
    lab = graph_lab(parse("tanh(x)"), 0.7)
    assert lab.built == 4 and lab.stopped_nodes == 88  # order 5 has 88 nodes > 40
    assert lab.view(4).ops == 37
    with raises(HogradError, match="order 5: .* 88 nodes, over the budget of 40"):
        lab.view(5)


def test_too_large_to_draw() -> None:
    lab = graph_lab(parse("sin(x)*exp(-x**2)"), 0.7)
    view = lab.view(5)
    assert view.ops == 511 and not view.drawable and len(view.nodes) > GRAPH_BUDGET.max_draw
    with raises(HogradError, match="more than the 400 that are drawn"):
        to_dot(view)
    assert sum(t.total for t in view.summary) == view.ops  # the summary still describes it
    assert [sum(t.per_pass[k] for t in view.summary) for k in range(6)] == list(view.per_pass)
    rows = summary_rows(view, "zh")
    assert rows[0]["合计"] == max(t.total for t in view.summary)


def test_dot_colours_every_node_by_its_pass_and_outlines_the_newest() -> None:
    view = graph_lab(parse("x**3"), 2.0).view(2)
    source = to_dot(view, "en")
    for node in view.nodes:
        line = re.search(rf"^\t{re.escape(node.name)} \[(.*)\]$", source, re.M)
        assert line and f'fillcolor="{PASS_COLOURS[node.pass_index]}"' in line.group(1)
        assert ("penwidth=3.5" in line.group(1)) == (node.pass_index == 2)
    assert '"x = 2"' in source and '"d2y/dx2 = 12"' in source
    assert "2nd backward pass: 3 nodes" in source  # the legend
    assert "penwidth" not in to_dot(view, highlight=False).replace("penwidth=2", "")
    chart = to_dot(view, legend=False, min_width=420)
    assert "backward pass" not in chart and 'WIDTH="420"' in chart
    assert "第 2 次反向传播：3 个节点" in to_dot(view, "zh")
    with raises(HogradError, match="direction"):
        to_dot(view, direction="BT")


def test_constant_derivative_is_drawn_unconnected() -> None:
    source = to_dot(graph_lab(parse("2*x"), 1.5).view(2))
    assert '"d2y/dx2 = 0\n(no grad_fn)"' in source
    assert "-> out2" not in source and "-> out1" not in source


@pytest.mark.skipif(not dot_available(), reason="the graphviz dot binary is not installed")
def test_svg_from_the_dot_binary() -> None:
    svg = to_svg(to_dot(graph_lab(parse("x**3"), 2.0).view(1)))
    assert svg is not None and b"<svg" in svg and b"MulBackward1" in svg


def test_legend_and_tables() -> None:
    view = graph_lab(parse("tanh(x)"), 0.7).view(1)
    html = legend_html(view, "en")
    assert PASS_COLOURS[0] in html and PASS_COLOURS[1] in html and PASS_COLOURS[2] not in html
    assert "1st backward pass: 1 node · dotted<" in html
    assert "forward pass: 2 nodes · solid<" in html
    rows = stats_rows(graph_lab(parse("x**3"), 2.0).stats, "en")
    assert [r["nodes"] for r in rows] == [2, 5, 8, 11, 11, 11, 11]
    assert rows[4]["grad_fn"] == "None"


def test_growth_figure_shows_the_stats() -> None:
    lab = graph_lab(parse("tanh(x)"), 0.7)
    fig = growth_figure(lab.stats, 3, "en").figure()
    nodes, depth, saved, ms = fig.data
    assert list(nodes.y) == [s.nodes for s in lab.stats]
    assert list(depth.y) == [s.depth for s in lab.stats]
    assert list(saved.y) == [s.saved_bytes for s in lab.stats]
    assert len(ms.y) == 7 and fig.layout.yaxis.type == "log"
    assert nodes.marker.size[3] > nodes.marker.size[2]  # the selected order stands out


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_shape_legend_reads_as_separate_items_in_a_browser(lang: str) -> None:
    """HTML collapses runs of spaces, so the legend's items need a visible separator (issue
    36, item 24: "…(grad_fn) oval: tensor dashed: …" ran together)."""
    html_text = legend_html(graph_lab(parse("tanh(x)"), 0.7).view(1), lang)
    shapes = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "|", html_text).split("|")[-2]).strip()
    items = [item.strip() for item in shapes.split("·")]
    assert len(items) == 5, shapes
    colon = ":" if lang == "en" else "："
    assert all(colon in item for item in items), items


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(("ops", "saved", "freed"), [(1, 1, 0), (1, 1, 1), (2, 0, 0), (3, 2, 1)])
def test_the_drawn_counts_use_singular_and_plural(
    ops: int, saved: int, freed: int, lang: str
) -> None:
    text = drawn_counts(ops, saved, freed, lang)
    if lang == "en":
        assert f"{ops} backward function{'s' if ops != 1 else ''}," in text
        assert f"{saved} saved tensor{'s' if saved != 1 else ''};" in text
        assert "1 saved tensors" not in text and "1 backward functions" not in text
    else:
        assert f"{ops} 个反向函数" in text and f"{saved} 个保存的张量" in text
    assert str(freed) in text
