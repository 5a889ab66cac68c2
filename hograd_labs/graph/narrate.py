"""The graph lab's drawings told in words, pass by pass (:mod:`hograd_ui.graph_steps`, which
every lab that draws a traced graph shares): the graph of f, f', ..., f^(k), a flag-lab run
or a classic case, and the graph of one H v, stage by stage. tests/labs/test_graph_narrate.py
checks the steps against the drawings and against ``grad_fn.next_functions`` walked in plain
PyTorch.
"""

from __future__ import annotations

from hograd_core.graph_trace import TensorGraph
from hograd_core.graphs import GraphView
from hograd_core.hvp_graph import HVPGraph
from hograd_ui.graph_steps import Step, labels, narrate, tensor_steps

from .figures import stage_name

__all__ = ["flag_steps", "hvp_steps", "labels", "view_steps"]


def view_steps(view: GraphView, lang: str = "en") -> tuple[Step, ...]:
    """The graph lab's graph of f, f', ..., f^(k): every pass after the forward one is
    ``grad(..., create_graph=True)`` (:func:`hograd_core.graphs.graph_lab`)."""
    gradients = range(1, view.order + 1)
    return narrate(view.nodes, view.edges, lang, gradients=gradients, variable=view.variable)


def flag_steps(graph: TensorGraph, lang: str = "en", *, gradients: bool = True) -> tuple[Step, ...]:
    """A flag-lab run (``gradients``: each call after the forward pass printed gradients, as
    the flag lab's calls do), or a classic case (not ``gradients``: its steps print tensors
    of any kind)."""
    passes = range(1, len(graph.per_pass)) if gradients else ()
    return tensor_steps(graph, lang, gradients=passes)


def hvp_steps(result: HVPGraph, lang: str = "en") -> tuple[Step, ...]:
    """The graph of one H v, stage by stage: the gradients are g (stage 1) and H v (stage 3)."""
    return narrate(
        result.graph.nodes, result.graph.edges, lang, pass_name=stage_name, gradients=(1, 3)
    )
