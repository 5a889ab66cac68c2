"""The H v graph as the projector draws it (issue 38): left to right, tight, without saved
tensors, and the results that stand alone (H v without a grad_fn) last. Graphviz's own layout
(``dot -Tplain``) is the oracle: where it puts the nodes and how tall the drawing is."""

from __future__ import annotations

import subprocess

import pytest

from hograd_core import parse
from hograd_core.graph_dot import tensor_dot
from hograd_core.hvp_graph import hvp_graph
from hograd_labs.graph.figures import hvp_dot


def layout(source: str) -> tuple[float, dict[str, float]]:
    """(the drawing's height, each node's x), in inches, as dot lays it out."""
    plain = subprocess.run(
        ["dot", "-Tplain"], input=source, capture_output=True, text=True, check=True
    ).stdout
    lines = [line.split() for line in plain.splitlines()]
    height = float(next(words for words in lines if words[0] == "graph")[3])
    return height, {w[1].strip('"'): float(w[2]) for w in lines if w[0] == "node"}


@pytest.mark.parametrize(
    ("text", "point", "vector"),
    [("w1**2*sin(w2)", "1, pi/2", "0.5, 1"), ("x*y*z + x**2*y", "1, 2, 3", "1, 0, -1")],
)
def test_the_results_without_a_grad_fn_come_last(text: str, point: str, vector: str) -> None:
    result = hvp_graph(parse(text), point, vector)
    alone = [n.name for n in result.graph.nodes if n.label.startswith("(Hv)_")]
    assert len(alone) == len(result.point)  # one (Hv)_i per variable, none recorded
    height, x = layout(hvp_dot(result, saved=False, direction="LR", tight=True))
    rest = [v for name, v in x.items() if name not in alone]
    assert min(x[name] for name in alone) > max(rest)  # right of everything else
    # where dot puts them otherwise: first, stacked above the leaves, a taller drawing
    graph = result.graph.without_saved()
    before, x = layout(tensor_dot(graph, direction="LR", tight=True))
    assert max(x[name] for name in alone) < min(x[name] for name in x if name not in alone) + 1
    assert height < before


def test_recorded_results_have_a_grad_fn_and_stay_in_their_place() -> None:
    result = hvp_graph(parse("w1**2*sin(w2)"), "1, pi/2", "0.5, 1", record_second=True)
    source = hvp_dot(result, saved=False, direction="LR", tight=True)
    assert "rank=sink" not in source and "no grad_fn" not in source
