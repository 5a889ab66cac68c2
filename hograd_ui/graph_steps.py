"""An autograd drawing told in words, pass by pass, for a screen reader and for anyone.

One step per pass, in the order the passes ran: what the pass added (its backward functions,
each after its inputs), where its functions lead back into earlier passes, what they saved and
what was freed, the longest path so far, and each result it made: whether the result hangs from
a ``grad_fn`` that leads back to the inputs, so that a further backward pass can differentiate
it. Read from the same traced nodes and edges the drawing is written from
(:func:`hograd_ui.graph_text.facts`); :func:`hograd_ui.parts.narration.narration` shows the
steps with keyboard stepping and a live region. Every lab that draws a traced graph tells it
with :func:`narrate` (a :class:`~hograd_core.graph_trace.TensorGraph`: :func:`tensor_steps`);
a lab whose passes were made in a way the default sentences do not cover words those
sentences itself (:class:`Words`).

What a step says of a gradient holds in plain PyTorch: a backward pass run with
``create_graph=True`` records its own steps, so the gradient it returns has a ``grad_fn``
whenever some step used a tensor that requires grad; with ``create_graph=False`` it has none,
and ``torch.autograd.grad`` of a tensor with no ``grad_fn`` that is not a leaf raises
("element 0 of tensors does not require grad"). tests/labs/test_graph_narrate.py and
tests/ui/test_drawings_told.py check the steps against the drawings and against
``grad_fn.next_functions`` walked in plain PyTorch.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass

from hograd_core.graph_trace import GraphEdge, GraphNode, TensorGraph
from hograd_ui.graph_text import Output, PassFacts, capital, counted, facts, listed, sentences
from hograd_ui.i18n import tr
from hograd_ui.tensor_drawing import pass_name

__all__ = ["Step", "Words", "labels", "narrate", "tensor_steps"]

Step = tuple[str, str]  # (the step's title, what it says)


@dataclass(frozen=True)
class Words:
    """The string keys of the sentences a lab may say its own way, each with the default's
    placeholders: a gradient pass's result with a ``grad_fn`` (``what``, ``out``, ``fn``,
    ``leaves``) and without one (``what``, ``out``), and the node where PyTorch raised or
    raises (``where``)."""

    recorded: str = "drawing.step.recorded"
    alone_grad: str = "drawing.step.alone_grad"
    raised: str = "drawing.step.raised"


DEFAULT = Words()


def labels(lang: str = "en") -> tuple[str, str, str]:
    """The words of the narration's Previous and Next buttons and of its folded list."""
    return (
        tr("drawing.step.prev", lang),
        tr("drawing.step.next", lang),
        tr("drawing.step.all", lang),
    )


def _functions(n: int, lang: str) -> str:
    return counted("drawing.said.functions", n, lang)


def _result(out: Output, gradient: bool, raised_at: str, words: Words, lang: str) -> str:
    """One result: None, hanging from a grad_fn (leading back to which inputs, or to where
    PyTorch raises), or alone."""
    what = out.shown
    if out.none:
        return tr("drawing.step.none", lang, out=out.label)
    if out.grad_fn and raised_at and out.node == raised_at:
        return tr("drawing.step.hangs_raised", lang, what=what, out=out.label, fn=out.grad_fn)
    if out.grad_fn and out.leaves:
        key = words.recorded if gradient else "drawing.step.connected"
        leaves = listed(out.leaves, lang)
        return tr(key, lang, what=what, out=out.label, fn=out.grad_fn, leaves=leaves)
    if out.grad_fn:
        return tr("drawing.step.hangs", lang, what=what, fn=out.grad_fn)
    key = words.alone_grad if gradient else "drawing.step.alone"
    return tr(key, lang, what=what, out=out.label)


def _said(
    p: PassFacts,
    lang: str,
    name: str,
    gradient: bool,
    saved_drawn: bool,
    raised: tuple[str, str],
    words: Words,
) -> str:
    """What pass ``p`` did; ``raised``: (the node's name, its label) where PyTorch raised, if
    that node is this pass's."""
    parts = []
    if not p.ops:
        parts.append(tr("drawing.step.added_none", lang, name=name))
    else:
        one = len(p.ops) == 1  # "each after its inputs" says nothing of one function
        if p.index == 0:
            key = "drawing.step.forward_one" if one else "drawing.step.forward"
        else:
            key = "drawing.step.added_one" if one else "drawing.step.added"
        ops = listed(p.ops, lang)
        parts.append(tr(key, lang, name=name, functions=_functions(len(p.ops), lang), ops=ops))
    if p.reads:
        functions = _functions(len(p.reads), lang)
        parts.append(tr("drawing.step.reads", lang, functions=functions, ops=listed(p.reads, lang)))
    if saved_drawn and p.saved:
        tensors = counted("drawing.said.tensors", p.saved, lang)
        key = "drawing.step.saved_freed" if p.freed else "drawing.step.saved"
        parts.append(tr(key, lang, tensors=tensors, freed=p.freed))
    if p.alone:
        key = "drawing.step.alone_leaf" if len(p.alone) == 1 else "drawing.step.alone_leaves"
        parts.append(tr(key, lang, leaves=listed(p.alone, lang)))
    if raised[1]:
        parts.append(tr(words.raised, lang, where=raised[1]))
    parts.append(tr("drawing.step.longest", lang, functions=_functions(p.longest, lang)))
    parts += [_result(out, gradient, raised[0], words, lang) for out in p.outputs]
    return sentences(parts, lang)


def narrate(
    nodes: tuple[GraphNode, ...],
    edges: tuple[GraphEdge, ...],
    lang: str = "en",
    *,
    pass_name: Callable[[int, str], str] = pass_name,
    gradients: Collection[int] = (),
    variable: str = "x",
    raised_at: str = "",
    words: Words = DEFAULT,
) -> tuple[Step, ...]:
    """The drawing of ``nodes`` and ``edges`` told pass by pass: one ``(title, text)`` each.

    Args:
        nodes, edges: the traced graph as drawn (:mod:`hograd_core.graph_trace`).
        lang: "en" or "zh".
        pass_name: ``pass_name(k, lang)`` names pass k.
        gradients: the passes whose results are gradients (from ``grad`` or ``backward``):
            their results are told with what ``create_graph`` does (``words``).
        variable: the name of an unnamed leaf.
        raised_at: the node where PyTorch raised ("" if it did not).
        words: the keys of the sentences the caller words its own way.
    """
    read = facts(nodes, edges, variable)
    where = {n.name: n for n in nodes}.get(raised_at)
    steps = []
    for i, p in enumerate(read.passes, 1):
        name = pass_name(p.index, lang)
        title = tr("drawing.step.step", lang, name=capital(name), i=i, n=len(read.passes))
        here = where is not None and where.pass_index == p.index
        raised = (raised_at, where.label if here else "")
        said = _said(p, lang, capital(name), p.index in gradients, read.saved_drawn, raised, words)
        steps.append((title, said))
    return tuple(steps)


def tensor_steps(
    graph: TensorGraph,
    lang: str = "en",
    *,
    gradients: Collection[int] = (),
    words: Words = DEFAULT,
) -> tuple[Step, ...]:
    """The drawing of a run's traced tensors (``graph`` as drawn, saved tensors included),
    with the node where the run raised; ``gradients`` and ``words`` as for :func:`narrate`."""
    return narrate(
        graph.nodes,
        graph.edges,
        lang,
        gradients=gradients,
        raised_at=graph.raised_at,
        words=words,
    )
