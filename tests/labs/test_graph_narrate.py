"""The graph told in words, pass by pass, against the extraction and against plain PyTorch.

Oracles: the traced graph's own counts (``GraphView.per_pass``, ``TensorGraph.per_pass``,
``OrderStats.depth``), and an independent walk of ``grad_fn.next_functions`` over the tensors
built here with plain PyTorch (tests/graph_walk.py): the backward functions each pass added,
their types, the longest chain, and which results have a ``grad_fn``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

import pytest
import torch

from hograd_core import parse
from hograd_core.flaglab.flags import FlagSettings, run_flags
from hograd_core.graphs import graph_lab
from hograd_core.hvp_graph import hvp_graph
from hograd_labs.graph.narrate import flag_steps, hvp_steps, view_steps
from hograd_ui.graph_text import facts
from tests.graph_walk import walk

ADDED = re.compile(r"(?:recorded|added) (\d+) backward functions?")
LONGEST = re.compile(r"Longest path so far: (\d+) backward functions?")

CASES: list[tuple[str, Callable[[torch.Tensor], torch.Tensor], int]] = [
    ("x**3", lambda x: x**3, 2),
    ("sin(x)*exp(-x)", lambda x: torch.sin(x) * torch.exp(-x), 3),
    ("tanh(x)", torch.tanh, 3),
]


def _longest(fn: object, memo: dict[object, int]) -> int:
    """Backward functions on the longest chain of next_functions from ``fn``."""
    if fn is None:
        return 0
    if fn not in memo:
        memo[fn] = 1 + max((_longest(nxt, memo) for nxt, _ in fn.next_functions), default=0)
    return memo[fn]


def plain(f: Callable[[torch.Tensor], torch.Tensor], x0: float, order: int) -> list[dict]:
    """Each pass of nested grad(create_graph=True) in plain PyTorch: the types of the backward
    functions it added, the longest chain so far, and its result's grad_fn type."""
    x = torch.tensor(x0, dtype=torch.float64, requires_grad=True)
    rows = [f(x)]
    for _ in range(order):
        (row,) = torch.autograd.grad(rows[-1], x, create_graph=True)
        rows.append(row)
    seen: set[object] = set()
    memo: dict[object, int] = {}
    out = []
    for row in rows:
        new = [fn for fn in walk(row.grad_fn) if fn not in seen]
        seen.update(new)
        longest = max(_longest(r.grad_fn, memo) for r in rows[: len(out) + 1])
        kind = type(row.grad_fn).__name__ if row.grad_fn is not None else ""
        out.append(
            {"types": Counter(type(fn).__name__ for fn in new), "longest": longest, "grad_fn": kind}
        )
    return out


@pytest.mark.parametrize(("text", "f", "order"), CASES, ids=[c[0] for c in CASES])
def test_each_pass_is_told_with_the_nodes_plain_pytorch_walks(text, f, order) -> None:
    lab = graph_lab(parse(text), 0.7, order)
    view = lab.view(order, show_saved=True)
    steps = view_steps(view, "en")
    truth = plain(f, 0.7, order)
    assert len(steps) == order + 1 == len(truth)
    read = facts(view.nodes, view.edges)
    for k, ((title, said), p, want) in enumerate(zip(steps, read.passes, truth, strict=True)):
        assert title.endswith(f"step {k + 1} of {order + 1}")
        n = sum(want["types"].values())
        assert int(ADDED.search(said).group(1)) == n == view.per_pass[k]  # told = traced = torch
        assert Counter(p.ops) == want["types"]  # the same types, each as often
        for op in want["types"]:
            assert op in said
        assert int(LONGEST.search(said).group(1)) == want["longest"] == lab.stats[k].depth
        assert f"hangs from {want['grad_fn']}, which leads back to x" in said
        if k:  # a gradient with a grad_fn: another pass can differentiate it
            assert "create_graph=True" in said and "another backward pass" in said


def test_a_constant_derivative_is_told_as_having_no_grad_fn() -> None:
    """2*x: dy/dx = 2 has no grad_fn in plain PyTorch, with create_graph=True (its backward
    multiplied a gradient that requires no grad by 2). x**2's d2y/dx2 = 2 does have one."""
    x = torch.tensor(0.7, dtype=torch.float64, requires_grad=True)
    (dy,) = torch.autograd.grad(2 * x, x, create_graph=True)
    assert dy.grad_fn is None and not dy.requires_grad
    with pytest.raises(RuntimeError, match="does not require grad"):  # what the step says
        torch.autograd.grad(dy, x)
    steps = view_steps(graph_lab(parse("2*x"), 0.7, 1).view(1), "en")
    assert "dy/dx = 2 has no grad_fn" in steps[1][1]
    assert "grad of dy/dx would raise" in steps[1][1]
    (d2y,) = torch.autograd.grad(
        torch.autograd.grad(x**2, x, create_graph=True)[0], x, create_graph=True
    )
    assert d2y.grad_fn is not None
    steps = view_steps(graph_lab(parse("x**2"), 0.7, 2).view(2), "en")
    assert f"d2y/dx2 = 2 hangs from {type(d2y.grad_fn).__name__}" in steps[2][1]


@pytest.mark.parametrize("create_graph", [False, True])
def test_the_flag_lab_tells_what_create_graph_kept(create_graph: bool) -> None:
    """The first call's dy has a grad_fn exactly when create_graph=True, in plain PyTorch and
    in the words; the per-pass counts are the drawing's."""
    x = torch.tensor(0.7, dtype=torch.float64, requires_grad=True)
    (dy,) = torch.autograd.grad(x**3, x, create_graph=create_graph)
    assert (dy.grad_fn is not None) == create_graph
    outcome = run_flags(parse("x**3"), 0.7, FlagSettings(create_graph, True, False, False))
    graph = outcome.drawing
    steps = flag_steps(graph, "en")
    assert len(steps) == len({n.pass_index for n in graph.nodes})
    read = facts(graph.nodes, graph.edges)
    assert tuple(len(p.ops) for p in read.passes) == graph.per_pass
    first = steps[1][1]
    if create_graph:
        assert f"dy = 1.47 hangs from {type(dy.grad_fn).__name__}, which leads back to x" in first
        assert "create_graph=True" in first
    else:
        assert "dy = 1.47 has no grad_fn" in first and "create_graph=False" in first
        assert "raised an error at dy" in first  # grad of dy raised, as the words say it would


@pytest.mark.parametrize("record", [False, True])
def test_the_hvp_graph_is_told_stage_by_stage(record: bool) -> None:
    result = hvp_graph(parse("w1**2*sin(w2)"), "1, pi/2", "0.5, 1", record)
    steps = hvp_steps(result, "en")
    assert [title.split(",")[0] for title, _ in steps][:1] == ["Forward pass (f)"]
    told = [int(m.group(1)) if (m := ADDED.search(said)) else 0 for _, said in steps]
    assert told == list(result.graph.per_pass)
    # plain PyTorch: H v has a grad_fn only when the second call records its graph
    w = torch.tensor([1.0, torch.pi / 2], dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(w[0] ** 2 * torch.sin(w[1]), w, create_graph=True)
    (hv,) = torch.autograd.grad(
        g @ torch.tensor([0.5, 1.0], dtype=torch.float64), w, create_graph=record
    )
    assert (hv.grad_fn is not None) == record
    last = steps[-1][1]
    assert ("has no grad_fn" in last) == (not record)


def test_chinese_steps_say_the_same_numbers() -> None:
    view = graph_lab(parse("x**3"), 0.7, 2).view(2, show_saved=True)
    en, zh = view_steps(view, "en"), view_steps(view, "zh")
    for (_, a), (title, b) in zip(en, zh, strict=True):
        assert re.findall(r"\d+", a) == re.findall(r"\d+", b)
        assert "步" in title
