"""The graph lab's drawings told in words, pass by pass, for a screen reader and for anyone.

One step per pass, in the order the passes ran: what the pass added (its backward functions,
each after its inputs), where its functions lead back into earlier passes, what they saved and
what was freed, the longest path so far, and each result it made: whether the result hangs from
a ``grad_fn`` that leads back to the inputs, so that a further backward pass can differentiate
it. Read from the same traced nodes and edges the drawing is written from
(:func:`hograd_ui.graph_text.facts`); :func:`hograd_ui.parts.narration.narration` shows the
steps with keyboard stepping and a live region.

What a step says of a gradient holds in plain PyTorch: a backward pass run with
``create_graph=True`` records its own steps, so the gradient it returns has a ``grad_fn``
whenever some step used a tensor that requires grad; with ``create_graph=False`` it has none,
and ``torch.autograd.grad`` of a tensor with no ``grad_fn`` that is not a leaf raises
("element 0 of tensors does not require grad"). tests/labs/test_graph_narrate.py checks the
steps against the drawings and against ``grad_fn.next_functions`` walked in plain PyTorch.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from hograd_core.graph_trace import GraphEdge, GraphNode, TensorGraph
from hograd_core.graphs import GraphView
from hograd_core.hvp_graph import HVPGraph
from hograd_ui.graph_text import Output, PassFacts, capital, counted, facts, listed, number
from hograd_ui.graph_text import sentences as joined
from hograd_ui.i18n import tr
from hograd_ui.tensor_drawing import pass_name

from .figures import stage_name

__all__ = ["Step", "flag_steps", "hvp_steps", "labels", "narrate", "view_steps"]

Step = tuple[str, str]  # (the step's title, what it says)


def labels(lang: str = "en") -> tuple[str, str, str]:
    """The words of the narration's Previous and Next buttons and of its folded list."""
    return tr("graph.said.prev", lang), tr("graph.said.next", lang), tr("graph.said.all", lang)


def _functions(n: int, lang: str) -> str:
    return counted("drawing.said.functions", n, lang)


def _result(out: Output, gradient: bool, lang: str) -> str:
    """One result: None, hanging from a grad_fn (leading back to which inputs), or alone."""
    value = number(out.value)
    if out.none:
        return tr("graph.said.none", lang, out=out.label)
    if out.grad_fn and out.leaves:
        key = "graph.said.recorded" if gradient else "graph.said.connected"
        leaves = listed(out.leaves, lang)
        return tr(key, lang, out=out.label, value=value, fn=out.grad_fn, leaves=leaves)
    if out.grad_fn:
        return tr("graph.said.hangs", lang, out=out.label, value=value, fn=out.grad_fn)
    key = "graph.said.alone_grad" if gradient else "graph.said.alone"
    return tr(key, lang, out=out.label, value=value)


def _said(
    p: PassFacts,
    lang: str,
    name: str,
    gradient: bool,
    saved_drawn: bool,
    raised: str,
) -> str:
    parts = []
    if not p.ops:
        parts.append(tr("graph.said.added_none", lang, name=name))
    else:
        key = "graph.said.forward" if p.index == 0 else "graph.said.added"
        ops = listed(p.ops, lang)
        parts.append(tr(key, lang, name=name, functions=_functions(len(p.ops), lang), ops=ops))
    if p.reads:
        functions = _functions(len(p.reads), lang)
        parts.append(tr("graph.said.reads", lang, functions=functions, ops=listed(p.reads, lang)))
    if saved_drawn and p.saved:
        tensors = counted("drawing.said.tensors", p.saved, lang)
        key = "graph.said.saved_freed" if p.freed else "graph.said.saved"
        parts.append(tr(key, lang, tensors=tensors, freed=p.freed))
    if raised:
        parts.append(tr("graph.said.raised", lang, where=raised))
    parts.append(tr("graph.said.longest", lang, functions=_functions(p.longest, lang)))
    parts += [_result(out, gradient, lang) for out in p.outputs]
    return joined(parts, lang)


def narrate(
    nodes: tuple[GraphNode, ...],
    edges: tuple[GraphEdge, ...],
    lang: str = "en",
    *,
    pass_name: Callable[[int, str], str] = pass_name,
    gradients: Collection[int] = (),
    variable: str = "x",
    raised_at: str = "",
) -> tuple[Step, ...]:
    """The drawing of ``nodes`` and ``edges`` told pass by pass: one ``(title, text)`` each.

    Args:
        nodes, edges: the traced graph as drawn (:mod:`hograd_core.graph_trace`).
        lang: "en" or "zh".
        pass_name: ``pass_name(k, lang)`` names pass k.
        gradients: the passes whose results are gradients (from ``grad`` or ``backward``):
            their results are told with what ``create_graph`` does.
        variable: the name of an unnamed leaf.
        raised_at: the node where the run raised ("" if it did not).
    """
    read = facts(nodes, edges, variable)
    where = {n.name: n for n in nodes}.get(raised_at)
    steps = []
    for i, p in enumerate(read.passes, 1):
        name = pass_name(p.index, lang)
        title = tr("graph.said.step", lang, name=capital(name), i=i, n=len(read.passes))
        raised = where.label if where is not None and where.pass_index == p.index else ""
        said = _said(p, lang, capital(name), p.index in gradients, read.saved_drawn, raised)
        steps.append((title, said))
    return tuple(steps)


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
    return narrate(graph.nodes, graph.edges, lang, gradients=passes, raised_at=graph.raised_at)


def hvp_steps(result: HVPGraph, lang: str = "en") -> tuple[Step, ...]:
    """The graph of one H v, stage by stage: the gradients are g (stage 1) and H v (stage 3)."""
    return narrate(
        result.graph.nodes, result.graph.edges, lang, pass_name=stage_name, gradients=(1, 3)
    )
