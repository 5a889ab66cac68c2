"""The double-backward graph of a Hessian-vector product (issue 15, point 3).

Oracles: the seed example w1**2*sin(w2) at (1, π/2), v = (0.5, 1), whose graph is worked out by
hand below; closed-form and sympy Hessians for the numbers; the script the result carries,
executed on its own; torchviz's make_dot on the same objects for node and edge counts; PyTorch
itself for which saved tensors are freed (reading one raises).
"""

from __future__ import annotations

import contextlib
import io
import math
import re
from collections import Counter

import numpy as np
import pytest
import sympy as sp
import torch

from hograd_core import parse
from hograd_core.errors import ArgumentError, BudgetError
from hograd_core.graph_dot import tensor_dot
from hograd_core.hvp_graph import HVP_PASSES, hvp_graph, numbers
from tests.english import raises
from tests.graph_walk import walk_tensors as walk

SEED = "w1**2*sin(w2)"


def ops_by_pass(result) -> dict[int, Counter]:
    out: dict[int, Counter] = {k: Counter() for k in range(len(HVP_PASSES))}
    for node in result.graph.nodes:
        if node.kind == "op":
            out[node.pass_index][node.label] += 1
    return out


def test_seed_numbers() -> None:
    r = hvp_graph(parse(SEED), "1, pi/2", "0.5, 1")
    np.testing.assert_allclose(r.gradient, [2.0, 0.0], atol=1e-15)  # (2 w1 sin w2, w1² cos w2)
    # H = [[2 sin w2, 2 w1 cos w2], [2 w1 cos w2, -w1² sin w2]] = [[2, 0], [0, -1]]
    np.testing.assert_allclose(r.hvp, [1.0, -1.0], atol=1e-15)
    assert r.value == 1.0 and r.point == (1.0, math.pi / 2) and r.vector == (0.5, 1.0)


def test_seed_graph_passes_by_hand() -> None:
    """f = w1**2 * sin(w2), worked out by hand from PyTorch's derivative formulas.

    Forward (stage 0): f = MulBackward0(PowBackward0(w1), SinBackward0(w2)), plus one
    AccumulateGrad per leaf: 5 nodes.
    1st backward, recorded (stage 1): mul's backward gives grad * sin(w2) for the w1**2 branch
    and grad * w1**2 for the sin branch (two MulBackward0, reusing the forward's outputs);
    pow's backward multiplies by 2 * w1**1 (MulBackward0 for the product, MulBackward1 for the
    constant 2, PowBackward0 for w1**1); sin's backward multiplies by cos(w2) (MulBackward0,
    CosBackward0): 7 nodes.
    g·v (stage 2): torch.stack(g) and the dot product: StackBackward0, DotBackward0.
    2nd backward (stage 3): not recorded (plain grad), so it adds no node.
    """
    r = hvp_graph(parse(SEED), "1, pi/2", "0.5, 1")
    assert ops_by_pass(r) == {
        0: Counter(MulBackward0=1, PowBackward0=1, SinBackward0=1, AccumulateGrad=2),
        1: Counter(MulBackward0=4, MulBackward1=1, PowBackward0=1, CosBackward0=1),
        2: Counter(StackBackward0=1, DotBackward0=1),
        3: Counter(),
    }
    assert r.graph.per_pass == (5, 7, 2, 0)
    labels = {n.name: (n.pass_index, n.label) for n in r.graph.nodes}
    edges = {
        (labels[e.src], labels[e.dst])
        for e in r.graph.edges
        if not e.saved
        if labels[e.src][1] and e.src.startswith("p") and e.dst.startswith("p")
    }
    # the first backward reuses the forward's results: sin(w2) and w1**2 feed its products,
    # and it reaches the leaves through their AccumulateGrad (w1**1 and cos(w2))
    assert ((0, "SinBackward0"), (1, "MulBackward0")) in edges
    assert ((0, "PowBackward0"), (1, "MulBackward0")) in edges
    assert ((0, "AccumulateGrad"), (1, "PowBackward0")) in edges
    assert ((0, "AccumulateGrad"), (1, "CosBackward0")) in edges
    # g·v stacks the two gradients (both stage-1 roots) and takes the dot product
    assert sum(1 for a, b in edges if a == (1, "MulBackward0") and b == (2, "StackBackward0")) == 1
    stack_inputs = [e for e in r.graph.edges if labels[e.dst] == (2, "StackBackward0")]
    assert len(stack_inputs) == 2
    # the results: f, ∂f/∂w1, ∂f/∂w2, g·v, then Hv, which has no grad_fn
    outputs = [(n.pass_index, n.label) for n in r.graph.nodes if n.kind == "output"]
    assert outputs == [
        (0, "f"),
        (1, "df/dw1"),
        (1, "df/dw2"),
        (2, "g·v"),
        (3, "(Hv)_w1"),
        (3, "(Hv)_w2"),
    ]
    assert not any(e.dst in ("out4", "out5") for e in r.graph.edges)


def test_recording_the_second_backward_adds_its_nodes() -> None:
    plain = hvp_graph(parse(SEED), "1, pi/2", "0.5, 1")
    recorded = hvp_graph(parse(SEED), "1, pi/2", "0.5, 1", record_second=True)
    assert recorded.graph.per_pass[:3] == plain.graph.per_pass[:3]
    assert recorded.graph.per_pass[3] > 0 and recorded.hvp == plain.hvp
    assert any(e.dst == "out4" for e in recorded.graph.edges)  # Hv now has a grad_fn
    assert recorded.saved_states[0] == 0  # nothing freed when the graph is kept
    # plain: everything the second call walked was freed, except what it did not need: the
    # forward MulBackward0 (f itself), whose two saved tensors g's graph never reads
    freed, kept = plain.saved_states
    labels = {n.name: n for n in plain.graph.nodes}
    owner = {e.src: e.dst for e in plain.graph.edges if e.saved}
    still = [
        (labels[owner[n.name]].name, n.label)
        for n in plain.graph.nodes
        if n.kind == "saved" and not n.freed
    ]
    assert sorted(still) == [("p0_0", "other"), ("p0_0", "self")] and kept == 2 and freed == 11


def replay(text: str, point: list[float], vector: list[float]):
    """The same calls with plain torch: the tensors and the graph functions behind them."""
    fn = parse(text)
    w = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in point]
    f = fn.torch(dict(zip(fn.variables, w, strict=True)))
    g = torch.autograd.grad(f, w, create_graph=True, materialize_grads=True)
    gv = torch.dot(torch.stack(g), torch.tensor(vector, dtype=torch.float64))
    hv = torch.autograd.grad(gv, w, materialize_grads=True)
    return [f, *g, gv, *hv]


def freed_state(fns: list) -> Counter:
    state: Counter = Counter()
    for fn in fns:
        for attr in (a for a in dir(fn) if a.startswith("_saved_")):
            try:
                value = getattr(fn, attr)
            except RuntimeError as err:
                assert "freed" in str(err)
                state[(type(fn).__name__, attr[7:], True)] += 1
                continue
            if torch.is_tensor(value):
                state[(type(fn).__name__, attr[7:], False)] += 1
    return state


CASES = [
    (SEED, [1.0, math.pi / 2], [0.5, 1.0]),
    ("x*y*z + sin(x)*exp(y)", [0.3, -0.7, 1.1], [1.0, 2.0, -1.0]),
    ("tanh(a*b) + a**3", [0.5, 0.25], [1.0, 0.0]),
    ("w1*w2", [2.0, 3.0], [1.0, 1.0]),
]


@pytest.mark.parametrize(("text", "point", "vector"), CASES)
def test_against_plain_torch_sympy_and_torchviz(text: str, point: list, vector: list) -> None:
    from torchviz import make_dot

    fn = parse(text)
    r = hvp_graph(fn, point, vector)
    # numbers: sympy's Hessian times v
    symbols = [sp.Symbol(name) for name in fn.variables]
    expr = sp.sympify(text)  # sympy's own reading of the text, not the project's
    subs = dict(zip(symbols, point, strict=True))
    hess = np.array(sp.hessian(expr, symbols).subs(subs).evalf(), dtype=float)
    grad = np.array([float(sp.diff(expr, s).subs(subs).evalf()) for s in symbols])
    np.testing.assert_allclose(r.gradient, grad, atol=1e-12)
    np.testing.assert_allclose(r.hvp, hess @ np.array(vector), atol=1e-12)
    # graph: the same backward functions as the replayed objects, freed where PyTorch says so
    tensors = replay(text, point, vector)
    fns = walk(tensors)
    drawn = Counter(n.label for n in r.graph.nodes if n.kind == "op")
    assert drawn == Counter(type(fn).__name__ for fn in fns)
    labels = {n.name: n.label for n in r.graph.nodes}
    owner = {e.src: e.dst for e in r.graph.edges if e.saved}
    drawn_saved = Counter(
        (labels[owner[n.name]], n.label, n.freed) for n in r.graph.nodes if n.kind == "saved"
    )
    assert drawn_saved == freed_state(fns)
    # torchviz on the same objects: backward-function nodes and the edges between them
    source = make_dot(tuple(t for t in tensors if t.grad_fn is not None)).source
    found = dict(re.findall(r"^\t(\d+) \[label=([^\s\]]+)", source, re.M))
    ops = {n for n, label in found.items() if not label.startswith('"')}
    tv_edges = {
        (a, b) for a, b in re.findall(r"^\t(\d+) -> (\d+)", source, re.M) if a in ops and b in ops
    }
    kinds = {n.name: n.kind for n in r.graph.nodes}
    mine = {(e.src, e.dst) for e in r.graph.edges if kinds[e.src] == kinds[e.dst] == "op"}
    assert (len(ops), len(tv_edges)) == (sum(drawn.values()), len(mine))
    assert tensor_dot(r.graph)  # drawable


def test_the_script_it_shows_prints_the_same_numbers() -> None:
    r = hvp_graph(parse(SEED), "1, pi/2", "0.5, 1")
    namespace: dict = {}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(r.code, namespace)  # the project's own generated script
    assert [float(t.detach()) for t in namespace["g"]] == list(r.gradient)
    assert [float(t) for t in namespace["hv"]] == list(r.hvp)
    assert "create_graph=True" in r.code.splitlines()[5]  # g's line; hv's line has none
    assert "create_graph" not in r.code.splitlines()[7]


def test_linear_function_has_no_second_graph() -> None:
    r = hvp_graph(parse("2*w1 + 3*w2"), [1.0, 2.0], [1.0, 1.0])
    assert r.constant_gradient and r.hvp == (0.0, 0.0) and r.gradient == (2.0, 3.0)


@pytest.mark.parametrize(
    ("point", "error", "message"),
    [
        ("1, x", ArgumentError, "point: 'x' is not a number"),
        ("1,", ArgumentError, r"point: '\(empty\)' is not a number"),
        ("1, 2, 3", BudgetError, r"point: expected 2 numbers \(one per variable: w1, w2\), got 3"),
        ("1, 1e7", ArgumentError, "at most 1e6"),
        ("1, inf", ArgumentError, "point: expected finite numbers, got 1, inf"),
        ("1, 1/0", ArgumentError, "point: '1/0' is not a number"),
    ],
)
def test_bad_points_are_refused_with_a_reason(point: str, error: type, message: str) -> None:
    with raises(error, match=message):
        hvp_graph(parse(SEED), point, "0.5, 1")


def test_constant_expressions_in_the_list() -> None:
    np.testing.assert_allclose(numbers("pi/2, -sqrt(4)", "point", parse(SEED)), [math.pi / 2, -2])


@pytest.mark.parametrize("record", [False, True])
def test_the_graph_without_its_saved_tensors(record: bool) -> None:
    """Issue 38: the projector draws the H v graph without its saved tensors. What is left is
    every backward function, leaf and result, every edge between them, and no edge that
    points at a node no longer there; the counts per stage are the same."""
    graph = hvp_graph(parse(SEED), "1, pi/2", "0.5, 1", record_second=record).graph
    bare = graph.without_saved()
    saved = {n.name for n in graph.nodes if n.kind == "saved"}
    assert saved and not any(n.kind == "saved" for n in bare.nodes)
    assert [n for n in graph.nodes if n.name not in saved] == list(bare.nodes)
    names = {n.name for n in bare.nodes}
    assert all(e.src in names and e.dst in names for e in bare.edges)
    assert {(e.src, e.dst) for e in bare.edges} == {
        (e.src, e.dst) for e in graph.edges if not e.saved
    }
    assert bare.per_pass == graph.per_pass and bare.counts[0] == graph.counts[0]
    assert "saved tensor freed" not in tensor_dot(bare)
    assert "saved tensor freed" in tensor_dot(graph) or record  # recorded: nothing is freed
