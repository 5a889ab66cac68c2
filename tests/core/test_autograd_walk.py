"""The one walk over autograd graphs (hograd_core/autograd_walk.py) against graphs counted by
hand, a recursive depth-first search written out here, and torchviz's drawing of the same
objects; then the four parts of the kernel that walk with it, on the counts they gave before
they did (pinned from the branch point: main at 87b1192)."""

from __future__ import annotations

import torch
from torchviz import make_dot

from hograd_core import parse
from hograd_core.autograd_walk import inputs, walk
from hograd_core.flaglab.record import backward_functions
from hograd_core.graphs import graph_lab
from hograd_core.hvp_graph import hvp_graph
from hograd_core.nested_autograd import autograd_rows, graph_nodes


def names(nodes: list[object]) -> list[str]:
    return [type(n).__name__ for n in nodes]


def leaf(value: float = 2.0) -> torch.Tensor:
    return torch.tensor(value, dtype=torch.float64, requires_grad=True)


def cube() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """x, y = x**3, its first and its second derivative (each recorded: create_graph)."""
    x = leaf()
    y = x**3
    (d1,) = torch.autograd.grad(y, x, create_graph=True)
    (d2,) = torch.autograd.grad(d1, x, create_graph=True)
    return x, y, d1, d2


def test_x_cubed_forward_graph_is_pow_then_the_leafs_accumulate_grad() -> None:
    x, y, _, _ = cube()
    found = walk([y.grad_fn])
    assert names(found.nodes) == ["PowBackward0", "AccumulateGrad"]
    assert names(found.finished) == ["AccumulateGrad", "PowBackward0"]
    accumulate = found.nodes[1]
    assert accumulate.variable is x and inputs(accumulate) == []  # a leaf's node: no edges


def test_x_cubed_first_and_second_backward_graphs_by_hand() -> None:
    # d1 = 3 * x**2 * (grad_output = 1): MulBackward0(1, MulBackward1(PowBackward0(x))); the
    # constant grad_output needs no gradient, so its edge is None. d2 = 6 * x, written by
    # PowBackward0's backward as the same three operations on a new x**1.
    x, y, d1, d2 = cube()
    for d in (d1, d2):
        found = walk([d.grad_fn])
        assert names(found.nodes) == [
            "MulBackward0",
            "MulBackward1",
            "PowBackward0",
            "AccumulateGrad",
        ]
        assert found.nodes[0].next_functions[0][0] is None  # the None edge, not a node
        assert names(inputs(found.nodes[0])) == ["MulBackward1"]
        assert found.finished == found.nodes[::-1]  # a chain: post-order is its reverse
    # all three graphs: 2 + 3 + 3 nodes, x's AccumulateGrad shared by all of them
    seen: set[object] = set()
    new = [len(walk([t.grad_fn], seen).nodes) for t in (y, d1, d2)]
    assert new == [2, 3, 3] and len(seen) == 8
    assert graph_nodes(y, d1, d2) == 8


def test_a_shared_subgraph_is_walked_once_and_inputs_come_in_order() -> None:
    x = leaf(0.5)
    s = torch.sin(x)
    y = s * s + torch.cos(x)  # AddBackward0(MulBackward0(Sin, Sin), CosBackward0)
    found = walk([y.grad_fn])
    assert names(found.nodes) == [
        "AddBackward0",
        "MulBackward0",
        "SinBackward0",
        "AccumulateGrad",
        "CosBackward0",
    ]
    assert names(found.finished) == [
        "AccumulateGrad",
        "SinBackward0",
        "MulBackward0",
        "CosBackward0",
        "AddBackward0",
    ]
    mul = found.nodes[1]
    assert names(inputs(mul)) == ["SinBackward0", "SinBackward0"]  # two edges, one node


def test_none_roots_and_none_edges_are_not_nodes() -> None:
    x = leaf()
    assert walk([None]).nodes == [] and walk([x.grad_fn]).nodes == []  # a leaf has no grad_fn
    y = x * torch.tensor(3.0, dtype=torch.float64)  # the constant factor's edge is None
    assert [n is None for n, _ in y.grad_fn.next_functions] == [False, True]
    assert names(walk([None, y.grad_fn]).nodes) == ["MulBackward0", "AccumulateGrad"]


def recursive(roots: list[object]) -> tuple[list[object], list[object]]:
    """Pre- and post-order of a recursive depth-first search (the textbook form)."""
    pre: list[object] = []
    post: list[object] = []
    seen: set[object] = set()

    def visit(node: object) -> None:
        if node is None or node in seen:
            return
        seen.add(node)
        pre.append(node)
        for nxt, _ in node.next_functions:
            visit(nxt)
        post.append(node)

    for root in roots:
        visit(root)
    return pre, post


def test_both_orders_are_a_recursive_depth_first_search_and_torchvizs_node_set() -> None:
    x = torch.tensor([0.3], dtype=torch.float64, requires_grad=True)
    rows, _, _ = autograd_rows(parse("sin(x)*exp(-x^2)"), x, 4)
    roots = [r.grad_fn for r in rows]
    found = walk(roots)
    pre, post = recursive(roots)
    assert found.nodes == pre and found.finished == post and len(pre) == 238
    done: set[object] = set()
    for node in found.finished:  # every node after all of its inputs
        assert all(nxt in done for nxt in inputs(node))
        done.add(node)
    # torchviz draws one box per backward function, one for the leaf x, one for the output
    dot = make_dot(rows[-1], params={"x": x})
    boxes = {line.split()[0] for line in dot.body if "label=" in line and "->" not in line}
    assert len(boxes) == len(walk([rows[-1].grad_fn]).nodes) + 2


def test_the_four_callers_give_the_counts_they_gave_before() -> None:
    # nested autograd's node count per order (tests/core/test_derivatives.py pins more)
    x = torch.tensor([0.5, 0.7], dtype=torch.float64, requires_grad=True)
    counts = {
        "x**3": [2, 5, 8, 11, 11, 11, 11],
        "tanh(x)": [2, 3, 7, 16, 37, 88, 217],
        "sin(x)*exp(-x^2)": [6, 16, 43, 106, 238, 511, 1082],
        "relu(x)": [2, 3, 4, 5, 6, 7, 8],
    }
    for text, sizes in counts.items():
        assert autograd_rows(parse(text), x, 6, node_limit=10**6)[2] == sizes, text
    # the graph lab's tracer: nodes, new nodes and longest path after each order
    stats = {
        "x**3": [(2, 2, 2), (5, 3, 4), (8, 3, 4), (11, 3, 4), (11, 0, 4)],
        "tanh(x)": [(2, 2, 2), (3, 1, 3), (7, 4, 6), (16, 9, 9), (37, 21, 14)],
        "sin(x)*exp(-x^2)": [(6, 6, 5), (16, 10, 8), (43, 27, 12), (106, 63, 19), (238, 132, 30)],
    }
    for text, want in stats.items():
        lab = graph_lab(parse(text), 0.7, 4)
        assert [(s.nodes, s.new_nodes, s.depth) for s in lab.stats] == want, text
    lab = graph_lab(parse("x**3"), 0.7, 2)
    ops = [n.name for n in lab.nodes if n.kind == "op"]
    assert ops == ["p0_0", "p0_1", "p1_0", "p1_1", "p1_2", "p2_0", "p2_1", "p2_2"]
    # by hand: Pow <- AccumulateGrad <- x, then per backward Mul0 <- Mul1 <- Pow <- x's node
    assert [(e.src, e.dst) for e in lab.edges if not e.saved] == [
        ("p0_1", "p0_0"),
        ("leaf", "p0_1"),
        ("p0_0", "out0"),
        ("p1_1", "p1_0"),
        ("p1_2", "p1_1"),
        ("p0_1", "p1_2"),
        ("p1_0", "out1"),
        ("p2_1", "p2_0"),
        ("p2_2", "p2_1"),
        ("p0_1", "p2_2"),
        ("p2_0", "out2"),
    ]
    # the HVP graph: nodes each pass added, and (backward functions, saved, stale)
    for text, record, per_pass, summary in [
        ("w1**2*sin(w2)", True, (5, 7, 2, 20), (34, 31, 0)),
        ("w1*w2", False, (3, 2, 2, 0), (7, 5, 3)),
    ]:
        graph = hvp_graph(parse(text), [0.5, 0.5], [1.0, 1.0], record).graph
        assert (graph.per_pass, graph.counts) == (per_pass, summary), text
    # the flag lab: the backward functions of x**3's second derivative, depth first
    _, _, _, d2 = cube()
    assert names(backward_functions(d2.grad_fn)) == [
        "MulBackward0",
        "MulBackward1",
        "PowBackward0",
        "AccumulateGrad",
    ]
    assert backward_functions(None) == []
