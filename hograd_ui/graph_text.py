"""An autograd drawing told in words: the facts of a traced graph, and its name and description.

Every Graphviz drawing of the app draws a traced graph (:mod:`hograd_core.graph_trace`: nodes
tagged with the pass that created them, edges from an input to its consumer). A screen reader
gets no picture, so :func:`describe` says what the drawing shows, from the same nodes and edges
the DOT was written from (WCAG 1.1.1): how many backward functions each pass added, the longest
path, what is saved and what was freed, and each result with its ``grad_fn``. :func:`facts` is
the reading itself, which a lab's longer narration (pass by pass) builds on.

The longest path counts backward functions (boxes) on the longest chain of edges between them,
as :class:`hograd_core.graphs.OrderStats` ``depth`` does: the calls a backward through the
whole graph must make one after another.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from hograd_core.graph_trace import GraphEdge, GraphNode
from hograd_ui.i18n import tr

__all__ = [
    "GraphFacts",
    "Output",
    "PassFacts",
    "capital",
    "counted",
    "describe",
    "facts",
    "listed",
    "number",
    "sentences",
]

_MOST = 12  # names listed, at most, in one sentence


@dataclass(frozen=True)
class Output:
    """A result drawn as an oval (``y``, ``dy/dx``, ``x.grad``).

    Attributes:
        label: its name. value: its value, None when PyTorch gave None (or it is not a number).
        grad_fn: the type of the backward function it hangs from, "" if it has none.
        leaves: names of the inputs (leaves) its ``grad_fn`` leads back to, in drawing order.
        none: PyTorch returned None for it (no tensor at all).
        node: the name of its ``grad_fn``'s node in the drawing, "" if it has none.
    """

    label: str
    value: float | None
    grad_fn: str
    leaves: tuple[str, ...]
    none: bool
    node: str = ""

    @property
    def shown(self) -> str:
        """``y = 0.343`` as the drawing writes it; the name alone for a result with more than
        one element (drawn with its shape, no value)."""
        if self.value is None and not self.none and self.grad_fn:
            return self.label
        return f"{self.label} = {number(self.value)}"


@dataclass(frozen=True)
class PassFacts:
    """What one pass added to the drawing.

    Attributes:
        index: the pass (0 the forward pass).
        ops: the types of the backward functions it added, inputs before their consumers.
        reads: the earlier passes' backward functions that its functions take as inputs
            (types, each node once, in drawing order).
        saved, freed: tensors its functions saved (drawn ones), and how many of those were freed
            or changed in place.
        outputs: the results this pass made.
        longest: backward functions on the longest path of the graph of passes 0..index.
        alone: the inputs (leaves) drawn on their own, no edge joining them to a backward
            function (``x = 2`` before anything used it, an unused input), as drawn.
    """

    index: int
    ops: tuple[str, ...]
    reads: tuple[str, ...]
    saved: int
    freed: int
    outputs: tuple[Output, ...]
    longest: int
    alone: tuple[str, ...] = ()


@dataclass(frozen=True)
class GraphFacts:
    """The facts of a whole drawing: one :class:`PassFacts` per pass that has a node."""

    passes: tuple[PassFacts, ...]
    saved_drawn: bool  # whether the drawing includes saved tensors

    @property
    def ops(self) -> int:
        return sum(len(p.ops) for p in self.passes)

    @property
    def longest(self) -> int:
        return max((p.longest for p in self.passes), default=0)


def number(value: float | None) -> str:
    """A value as the drawing writes it (4 significant digits)."""
    return "None" if value is None else f"{value:.4g}"


def listed(names: Iterable[str], lang: str) -> str:
    """``a, b, c`` with runs of one name said once with a count (``MulBackward0 ×3``), at
    most a dozen entries, then "and n more"."""
    runs: list[list] = []
    for name in names:
        if runs and runs[-1][0] == name:
            runs[-1][1] += 1
        else:
            runs.append([name, 1])
    said = [name if n == 1 else f"{name} ×{n}" for name, n in runs]
    more = len(said) - _MOST
    text = tr("drawing.said.comma", lang).join(said[:_MOST])
    return text if more <= 0 else text + tr("drawing.said.more", lang, n=more)


def _order(nodes: tuple[GraphNode, ...], edges: tuple[GraphEdge, ...]) -> list[GraphNode]:
    """Leaves and backward functions, every node after its inputs (Kahn's algorithm, ties in
    drawing order)."""
    kept = {n.name: i for i, n in enumerate(nodes) if n.kind in ("leaf", "op")}
    inputs = {name: 0 for name in kept}
    users: dict[str, list[str]] = {name: [] for name in kept}
    for e in edges:
        if not e.saved and e.src in kept and e.dst in kept:
            inputs[e.dst] += 1
            users[e.src].append(e.dst)
    ready = sorted((kept[n] for n, c in inputs.items() if c == 0), reverse=True)
    out: list[GraphNode] = []
    while ready:
        node = nodes[ready.pop()]
        out.append(node)
        for user in users[node.name]:
            inputs[user] -= 1
            if inputs[user] == 0:
                ready.append(kept[user])
        ready.sort(reverse=True)
    return out


def facts(
    nodes: tuple[GraphNode, ...], edges: tuple[GraphEdge, ...], variable: str = "x"
) -> GraphFacts:
    """Read a drawing's nodes and edges pass by pass (``variable``: the name of an unnamed
    leaf, as the drawing writes it)."""
    by_name = {n.name: n for n in nodes}
    order = _order(nodes, edges)
    sources: dict[str, list[str]] = {}  # node -> its inputs (not saved tensors)
    for e in edges:
        if not e.saved and e.src in by_name and e.dst in by_name:
            sources.setdefault(e.dst, []).append(e.src)
    depth: dict[str, int] = {}
    for node in order:  # boxes on the longest chain ending at each node
        below = max((depth.get(s, 0) for s in sources.get(node.name, ())), default=0)
        depth[node.name] = below + (node.kind == "op")
    joined = {e.src for e in edges if not e.saved} | {e.dst for e in edges if not e.saved}
    passes = sorted({n.pass_index for n in nodes})
    out = []
    for k in passes:
        ops = [n for n in order if n.kind == "op" and n.pass_index == k]
        reads: list[str] = []
        seen: set[str] = set()
        for node in ops:
            for src in sources.get(node.name, ()):
                old = by_name[src]
                if old.kind == "op" and old.pass_index < k and src not in seen:
                    seen.add(src)
                    reads.append(old.label)
        saved = [n for n in nodes if n.kind == "saved" and n.pass_index == k]
        results = tuple(
            _output(n, sources, by_name, variable)
            for n in nodes
            if _result(n, sources, by_name) and n.pass_index == k
        )
        longest = max(
            (depth[n.name] for n in order if n.kind == "op" and n.pass_index <= k), default=0
        )
        out.append(
            PassFacts(
                index=k,
                ops=tuple(n.label for n in ops),
                reads=tuple(reads),
                saved=len(saved),
                freed=sum(1 for n in saved if n.freed or n.modified),
                outputs=results,
                longest=longest,
                alone=tuple(
                    _leaf(n, variable)
                    for n in nodes
                    if n.kind == "leaf" and n.pass_index == k and n.name not in joined
                ),
            )
        )
    return GraphFacts(tuple(out), any(n.kind == "saved" for n in nodes))


def _leaf(node: GraphNode, variable: str) -> str:
    """An input as the drawing writes it: ``x = 2``, or its name alone (several elements)."""
    name = node.label or variable
    return name if node.value is None else f"{name} = {number(node.value)}"


def _result(node: GraphNode, sources: dict[str, list[str]], by_name: dict[str, GraphNode]) -> bool:
    """A result: an oval of kind "output", or a tensor of several elements drawn with its
    shape (kind "leaf") that hangs from a backward function, as the code lab draws one."""
    if node.kind == "output":
        return True
    return node.kind == "leaf" and any(by_name[s].kind == "op" for s in sources.get(node.name, ()))


def _output(
    node: GraphNode,
    sources: dict[str, list[str]],
    by_name: dict[str, GraphNode],
    variable: str,
) -> Output:
    """A result, its grad_fn and the leaves that grad_fn leads back to."""
    fn = next((by_name[s] for s in sources.get(node.name, ()) if by_name[s].kind == "op"), None)
    leaves: list[str] = []
    if fn is not None:
        stack, seen = [fn.name], {fn.name}
        while stack:
            for src in sources.get(stack.pop(), ()):
                if src in seen:
                    continue
                seen.add(src)
                if by_name[src].kind == "leaf":
                    leaves.append(by_name[src].label or variable)
                stack.append(src)
    ordered = [n.label or variable for n in by_name.values() if n.kind == "leaf"]
    leaves.sort(key=lambda name: ordered.index(name) if name in ordered else len(ordered))
    return Output(
        label=node.label,
        value=node.value,
        grad_fn=fn.label if fn is not None else "",
        leaves=tuple(dict.fromkeys(leaves)),
        none=fn is None and node.value is None,
        node=fn.name if fn is not None else "",
    )


_COUNTS = {  # each key, and the one for a count of 1 (English's singular)
    "drawing.said.functions": "drawing.said.functions_one",
    "drawing.said.passes": "drawing.said.passes_one",
    "drawing.said.tensors": "drawing.said.tensors_one",
}


def counted(key: str, n: int, lang: str, **values: object) -> str:
    """The string ``key`` (a key of ``_COUNTS``) for the count ``n``: its singular when n is 1."""
    return tr(_COUNTS[key] if n == 1 else key, lang, n=n, **values)


def sentences(parts: Iterable[str], lang: str) -> str:
    """Sentences one after another: a space between them in English, none in Chinese."""
    return ("" if lang == "zh" else " ").join(parts)


def capital(text: str) -> str:
    """``text`` with its first letter upper case (a pass's name opening a sentence)."""
    return text[:1].upper() + text[1:]


def _pass_name(k: int, lang: str) -> str:
    return tr(f"pass.{k}", lang) if 0 <= k <= 6 else str(k)


def describe(
    nodes: tuple[GraphNode, ...],
    edges: tuple[GraphEdge, ...],
    lang: str = "en",
    pass_name: Callable[[int, str], str] | None = None,
    variable: str = "x",
) -> tuple[str, str]:
    """``(name, description)`` of the drawing of ``nodes`` and ``edges`` in ``lang``.

    ``pass_name(k, lang)`` names pass k (default: "forward pass", "1st backward pass", ...).

    Example: the graph of x**3 at 0.7 to order 1 is named "Autograd graph: 5 backward
    functions, 2 passes" and described "Forward pass: 2 backward functions. 1st backward
    pass: 3 backward functions. Longest path: 4 backward functions. Results: y = 0.343,
    grad_fn PowBackward0, dy/dx = 1.47, grad_fn MulBackward0."
    """
    name_of = pass_name or _pass_name
    read = facts(nodes, edges, variable)
    name = tr(
        "drawing.said.name",
        lang,
        ops=counted("drawing.said.functions", read.ops, lang),
        passes=counted("drawing.said.passes", len(read.passes), lang),
    )
    parts = []
    for p in read.passes:
        said = tr(
            "drawing.said.pass",
            lang,
            name=capital(name_of(p.index, lang)),
            functions=counted("drawing.said.functions", len(p.ops), lang),
        )
        if read.saved_drawn:
            tensors = counted("drawing.said.tensors", p.saved, lang)
            said += tr("drawing.said.saved", lang, tensors=tensors, freed=p.freed)
        parts.append(said)
    longest = counted("drawing.said.functions", read.longest, lang)
    parts.append(tr("drawing.said.longest", lang, functions=longest))
    results = []
    for p in read.passes:
        for o in p.outputs:
            if o.none:
                results.append(tr("drawing.said.none", lang, out=o.label))
            elif o.grad_fn:
                results.append(tr("drawing.said.result", lang, what=o.shown, fn=o.grad_fn))
            else:
                results.append(tr("drawing.said.alone", lang, out=o.label, value=number(o.value)))
    if results:
        parts.append(tr("drawing.said.results", lang, results=listed(results, lang)))
    return name, sentences(parts, lang)
