"""A drawing's name and description against the traced graph it draws.

Oracles: the extraction's own counts (``GraphView.per_pass``, ``OrderStats.depth``,
``TensorGraph.counts``), computed by a different walk (the tracer's, over ``next_functions``)
than the one that reads the drawing's nodes and edges here.
"""

from __future__ import annotations

import re

import pytest

from hograd_core import parse
from hograd_core.flaglab.flags import FlagSettings, run_flags
from hograd_core.graphs import graph_lab
from hograd_ui.graph_text import describe, facts, listed


@pytest.mark.parametrize("text", ["x**3", "tanh(x)", "sin(x)*exp(-x**2)", "2*x"])
def test_counts_and_longest_path_are_the_extractions(text: str) -> None:
    lab = graph_lab(parse(text), 0.7, 3)
    for order in range(lab.built + 1):
        view = lab.view(order, show_saved=True)
        read = facts(view.nodes, view.edges)
        assert tuple(len(p.ops) for p in read.passes) == view.per_pass
        assert read.ops == view.ops
        assert read.longest == lab.stats[order].depth
        name, said = describe(view.nodes, view.edges, "en")
        assert name.startswith(f"Autograd graph: {view.ops} backward function")
        assert f"Longest path: {lab.stats[order].depth} backward function" in said
        told = [int(n) for n in re.findall(r"pass: (\d+) backward function", said)]
        assert told == list(view.per_pass)


def test_saved_and_freed_tensors_are_the_drawings() -> None:
    graph = run_flags(parse("x**3"), 0.7, FlagSettings(True, None, False, False)).drawing
    ops, saved, stale = graph.counts
    read = facts(graph.nodes, graph.edges)
    assert sum(p.saved for p in read.passes) == saved
    assert sum(p.freed for p in read.passes) == stale > 0  # the second call freed them
    _, said = describe(graph.nodes, graph.edges, "en")
    kept = [int(n) for n in re.findall(r"keep (\d+) saved tensor", said)]
    assert sum(kept) == saved
    assert "dy = 1.47 (grad_fn MulBackward0)" in said
    _, bare = describe(graph.without_saved().nodes, graph.without_saved().edges, "en")
    assert "saved tensor" not in bare  # not drawn, not told


def test_lists_say_runs_once_and_stop_at_a_dozen() -> None:
    assert listed(["A", "A", "B"], "en") == "A ×2, B"
    assert listed([str(i) for i in range(15)], "en").endswith(" and 3 more")
    assert listed(["A", "B"], "zh") == "A，B"
