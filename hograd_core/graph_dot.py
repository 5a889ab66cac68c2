"""DOT source of a traced graph, one colour and one border per pass: the drawing, without
graphviz.

The colours follow the pass that created a node (:mod:`hograd_core.graphs`): grey for the
forward pass, then blue, orange, green, purple, yellow and red for backward passes 1 to 6.
So that the pass is not told by colour alone (WCAG 1.4.1: a greyscale print, colour-vision
deficiency), each pass also has its own border (:data:`PASS_CUES`): the forward pass a solid
line, the 1st backward pass a dotted line, the 2nd a double line, the 3rd a double dotted one,
and so on to the 6th's quadruple line; every legend draws and names them. Boxes are backward
functions (``grad_fn``), ovals are tensors (leaves and outputs), dashed ovals are tensors a
function saved for its own backward (one dashed line: their pass is that of the function
their dashed edge leads to). When stepping order by order, the nodes the newest pass added get
a thick black outline.

This module only writes text (the DOT language), so the command line can print a graph for
slides with no UI stack; laying it out is graphviz's job. Every word shown in a drawing is
passed in (the page passes its translations, the command line English: :data:`ENGLISH`). Of
what the user typed only variable names reach the source (identifiers the parser checked);
every other label is a PyTorch type name, a number or a fixed name. The output is the same,
byte for byte, as the ``graphviz`` package writes for the same statements.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from .errors import ArgumentError, BudgetError
from .graphs import GRAPH_BUDGET, GraphNode, GraphView, TensorGraph

__all__ = [
    "escape_newlines",
    "ENGLISH",
    "FREED_FILL",
    "FREED_TEXT",
    "PASS_BORDERS",
    "PASS_COLOURS",
    "PASS_CUES",
    "Cue",
    "SAVED_LINE",
    "Legend",
    "Words",
    "tensor_dot",
    "view_dot",
]

#: Fill of the nodes each pass created: forward, then backward passes 1..6.
PASS_COLOURS = ("#e5e7eb", "#93c5fd", "#fdba74", "#86efac", "#d8b4fe", "#fde047", "#fca5a5")
#: Outline and marker colour that goes with each fill (a darker shade of the same hue).
PASS_BORDERS = ("#6b7280", "#1d4ed8", "#c2410c", "#15803d", "#7e22ce", "#a16207", "#b91c1c")


@dataclass(frozen=True)
class Cue:
    """A pass's border, the cue beside its colour: ``rings`` lines drawn ``line``."""

    line: str  # "solid" or "dotted" (graphviz and CSS both name them so); dashed: saved
    rings: int  # graphviz ``peripheries``

    @property
    def english(self) -> str:
        """The border in English words: "solid", "dotted", "double", "double dotted", ...
        (the catalogue's ``pass.cue.*`` strings, which the legends of the app and the command
        line use in either language, say the same: tests/ui/test_pass_cues.py)."""
        many = ("", "double", "triple", "quadruple")[self.rings - 1]
        if not many:
            return self.line
        return many if self.line == "solid" else f"{many} {self.line}"

    def dot(self, saved: bool = False) -> dict[str, str]:
        """The DOT attributes of a node with this border; a saved tensor's: one dashed line.

        Graphviz draws each further line 4 pt outside the one before, so a node of 2 lines
        would be 8 pt wider and taller than one of 1: the lines take the place of the space
        around the text instead (no margin above and below it, less beside it, no least
        height), so that a double box is 1 pt taller than a single one (an oval 2 to 3 pt), and
        a drawing of the 2nd pass still fits a projector's screen."""
        if saved:
            return {"style": "dashed,filled", "peripheries": "1"}
        style = "filled" if self.line == "solid" else f"{self.line},filled"
        attrs = {"style": style, "peripheries": str(self.rings)}
        if self.rings > 1:
            attrs.update(margin="0.04,0", height="0")
        return attrs


#: The border of each pass's nodes, the cue that does not need colour.
#: Solid and dotted by turns, one more line every second pass: the common passes 0 to 2 add
#: one line at most.
PASS_CUES = tuple(Cue("solid" if k % 2 == 0 else "dotted", 1 + k // 2) for k in range(7))
NEW = "#111827"  # outline of the nodes the newest pass added
FONT = "Helvetica,Arial,sans-serif"
#: A saved tensor's dashed edge, and a freed saved tensor's dashed outline: 4.83:1 on the
#: page's white and 4.39:1 on the freed node's fill (WCAG 1.4.11 asks 3:1 of a graphical
#: object); the freed node's text 6.87:1 on its fill (1.4.3 asks 4.5:1 of text).
SAVED_LINE, FREED_FILL, FREED_TEXT = "#6b7280", "#f3f4f6", "#4b5563"
_FREED = {
    "style": "dashed,filled",
    "fillcolor": FREED_FILL,
    "color": SAVED_LINE,
    "fontcolor": FREED_TEXT,
}
_RAISED = "#dc2626"
#: inches between the nodes of a rank and between ranks: as the graphviz package draws
#: them, and ``tight`` for a projector, where a drawing is zoomed and the screen's room is short
_SPACING = {False: ("0.25", "0.35"), True: ("0.1", "0.2")}


@dataclass(frozen=True)
class Words:
    """The words a tensor drawing writes into nodes (see :data:`ENGLISH`)."""

    freed: str
    modified: str
    raised: str


#: The words of the command line, which speaks English.
ENGLISH = Words("saved tensor freed", "changed in place after it was saved", "raised here")


@dataclass(frozen=True)
class Legend:
    """A legend under the graph: one coloured cell per pass, then a line of text.

    Attributes:
        cells: ``(pass, text)`` for each cell, in order.
        footer: the line under the cells (what the shapes mean).
        outlined: the pass whose cell gets the newest pass's thick outline (-1: none).
    """

    cells: tuple[tuple[int, str], ...]
    footer: str
    outlined: int = -1


# ----------------------------------------------------------------------------------------------
# Writing DOT (the quoting and layout of the graphviz package's ``Digraph.source``)

_ID = re.compile(r"([a-zA-Z_][a-zA-Z0-9_]*|-?(\.[0-9]+|[0-9]+(\.[0-9]*)?))$")
_KEYWORDS = {"node", "edge", "graph", "digraph", "subgraph", "strict"}
_UNESCAPED_QUOTE = re.compile(r'(?<!\\)(?:\\\\)*"')


_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)


def escape_newlines(source: str) -> str:
    """DOT ``source`` as the browser's Graphviz draws it: every line break inside a quoted
    string written as DOT's ``\\n`` escape, and a string that starts with a line break given a
    space before it. torchviz labels a tensor with no name ``"\\n ()"`` (an empty first line,
    then its size), and in the browser a Graphviz chart with such a label, placed after another
    chart on the page, drew nothing at all; the space draws nothing either."""

    def fix(quoted: re.Match) -> str:
        text = quoted.group(0).replace("\r\n", "\\n").replace("\n", "\\n")
        return '" ' + text[1:] if text.startswith('"\\n') else text

    return _QUOTED.sub(fix, source)


def _quote(text: str) -> str:
    """A DOT identifier: bare if it is a valid ID, ``<...>`` as HTML, else double-quoted."""
    if text.startswith("<") and text.endswith(">"):
        return text
    if _ID.match(text) and text.lower() not in _KEYWORDS:
        return text
    return '"' + _UNESCAPED_QUOTE.sub(lambda m: m.group(0)[:-1] + '\\"', text) + '"'


def _attrs(attrs: dict[str, str], *, label_first: bool = True) -> str:
    items = dict(attrs)
    head = [f"label={_quote(items.pop('label'))}"] if label_first and "label" in items else []
    return " ".join(head + [f"{k}={_quote(v)}" for k, v in sorted(items.items())])


class _Source:
    def __init__(self, direction: str, tight: bool = False) -> None:
        nodesep, ranksep = _SPACING[tight]
        graph = {
            "rankdir": direction,
            "nodesep": nodesep,
            "ranksep": ranksep,
            "fontname": FONT,
            "fontsize": "10",
            "bgcolor": "transparent",
            "labelloc": "b",
        }
        node = {
            "shape": "box",
            "style": "filled",
            "fontname": FONT,
            "fontsize": "10",
            "height": "0.25",
            "margin": "0.08,0.03",
        }
        edge = {"color": "#4b5563", "arrowsize": "0.6"}
        self.lines = ["digraph autograd {"]
        for kind, attrs in (("graph", graph), ("node", node), ("edge", edge)):
            self.lines.append(f"\t{kind} [{_attrs(attrs, label_first=False)}]")

    def node(self, name: str, attrs: dict[str, str]) -> None:
        self.lines.append(f"\t{_quote(name)} [{_attrs(attrs)}]")

    def edge(self, src: str, dst: str, saved: bool) -> None:
        extra = f' [color="{SAVED_LINE}" dir=none style=dashed]' if saved else ""
        self.lines.append(f"\t{_quote(src)} -> {_quote(dst)}{extra}")

    def same_rank(self, names: list[str], rank: str) -> None:
        """Put ``names`` in one rank: "source" (first) or "sink" (last)."""
        if names:
            self.lines.append(f"\t{{rank={rank}; {'; '.join(_quote(n) for n in names)}}}")

    def finish(self, label: str = "") -> str:
        if label:
            self.lines.append(f"\tlabel={_quote(label)}")
        return "\n".join([*self.lines, "}"]) + "\n"


def _strut(min_width: float) -> str:
    """An invisible cell ``min_width`` points wide under the graph (see hograd_ui's note)."""
    cell = f'<TD WIDTH="{min_width:.0f}" HEIGHT="1"></TD>'
    return f'<<TABLE BORDER="0" CELLPADDING="0"><TR>{cell}</TR></TABLE>>'


def _swatch(k: int, text: str, outlined: bool) -> str:
    """Pass ``k``'s legend cell: its fill inside its border's lines (nested tables, one per
    line, as the nodes' ``peripheries``), the outermost thick and dark when ``outlined``."""
    cue = PASS_CUES[k]
    line = "" if cue.line == "solid" else f' STYLE="{cue.line}"'
    cell = f'<TD BGCOLOR="{PASS_COLOURS[k]}">{html.escape(text)}</TD>'
    for ring in range(cue.rings):
        last = ring == cue.rings - 1
        width, colour = ("3", NEW) if outlined and last else ("1", PASS_BORDERS[k])
        gap, pad = (1, 4) if ring == 0 else (2, 0)  # the fill inside its line, a gap between
        cell = (
            f'<TD><TABLE BORDER="{width}" COLOR="{colour}"{line} CELLBORDER="0" '
            f'CELLSPACING="{gap}" CELLPADDING="{pad}"><TR>{cell}</TR></TABLE></TD>'
        )
    return cell


def _legend(legend: Legend) -> str:
    """An HTML-like table: one cell per pass with its colour, its border and its text, at
    most 4 per row."""
    cells = [_swatch(k, text, k == legend.outlined) for k, text in legend.cells]
    rows = [cells[i : i + 4] for i in range(0, len(cells), 4)]
    body = "".join(f"<TR>{''.join(row)}</TR>" for row in rows)
    return (
        '<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="4" CELLPADDING="0">'
        f'{body}<TR><TD COLSPAN="{min(4, len(cells))}" BORDER="0" ALIGN="LEFT">'
        f"{html.escape(legend.footer)}</TD></TR></TABLE>>"
    )


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:.4g}"


def node_attrs(
    node: GraphNode,
    new: bool,
    highlight: bool,
    variable: str,
    constant: bool,
) -> dict[str, str]:
    """The DOT attributes of one node: its pass's colours, its shape, its label."""
    k = node.pass_index
    attrs = {"fillcolor": PASS_COLOURS[k], "color": PASS_BORDERS[k]}
    attrs.update(PASS_CUES[k].dot(saved=node.kind == "saved"))
    if node.kind == "op":
        attrs["label"] = node.label
    elif node.kind == "saved":
        label = node.label if node.value is None else f"{node.label} = {_number(node.value)}"
        attrs.update(label=label, shape="ellipse", fillcolor="#ffffff")
    else:
        name = (node.label or variable) if node.kind == "leaf" else node.label
        value = "None" if node.kind == "output" and node.value is None else _number(node.value)
        label = f"{name} = {value}" if value else name  # more than one number: the name
        label += "\n(no grad_fn)" if constant else ""
        attrs.update(label=label, shape="ellipse", penwidth="2")
    if highlight and new and node.kind != "saved":
        attrs.update(color=NEW, penwidth="3.5")
    return attrs


def _too_large(count: int) -> BudgetError:
    return BudgetError("graph.budget.draw", nodes=f"{count:,}", limit=GRAPH_BUDGET.max_draw)


# ----------------------------------------------------------------------------------------------
# Public API


def _check_direction(direction: str) -> None:
    if direction not in ("TB", "LR"):
        raise ArgumentError("graph.budget.direction", got=direction)


def view_dot(
    view: GraphView,
    *,
    highlight: bool = True,
    direction: str = "TB",
    min_width: float = 0.0,
    legend: Legend | None = None,
    tight: bool = False,
) -> str:
    """DOT source of a graph view, nodes in their pass's colour and border, the newest pass
    outlined.

    Args:
        view: from ``GraphLab.view(order)``.
        highlight: outline the nodes the newest pass (``view.order``) added.
        direction: graphviz ``rankdir``: "TB" (inputs on top, as torchviz) or "LR".
        min_width: the least width of the drawing in points (an invisible strut under it),
            used when there is no legend.
        legend: the legend to put under the graph, or None.
        tight: nodes and ranks closer together (0.1 and 0.2 inches apart instead of 0.25 and
            0.35), for a projector.

    Raises:
        BudgetError: more than ``GRAPH_BUDGET.max_draw`` nodes: graphviz would take seconds to
            minutes to lay it out and nobody could read it.
        ArgumentError: an unknown direction.
    """
    if not view.drawable:
        raise _too_large(len(view.nodes))
    _check_direction(direction)
    dot = _Source(direction, tight)
    has_grad_fn = {e.dst for e in view.edges if not e.saved}
    for node in view.nodes:
        constant = node.kind == "output" and node.name not in has_grad_fn
        new = node.pass_index == view.order
        dot.node(node.name, node_attrs(node, new, highlight, view.variable, constant))
    for edge in view.edges:
        dot.edge(edge.src, edge.dst, edge.saved)
    if legend is not None:
        return dot.finish(_legend(legend))
    return dot.finish(_strut(min_width) if min_width > 0 else "")


def tensor_dot(
    graph: TensorGraph,
    words: Words = ENGLISH,
    *,
    min_width: float = 0.0,
    legend: Legend | None = None,
    direction: str = "TB",
    tight: bool = False,
    alone_last: bool = False,
) -> str:
    """DOT source of the real graph behind some tensors, in the pass colours.

    Saved tensors that a backward pass freed (or that were changed in place) are greyed and
    say so; the node where the run raised (a backward function, or the tensor PyTorch refused)
    has a red outline; a result with no ``grad_fn`` stands alone, marked "(no grad_fn)"; None
    is drawn as None. ``direction`` and ``tight`` as for :func:`view_dot`; ``alone_last``
    puts the results that stand alone in the last rank, after the rest, instead of where dot
    puts unconnected nodes (the first): left to right, the seed's H v graph is then 129 pt
    tall instead of 178.

    Raises:
        BudgetError: more than ``GRAPH_BUDGET.max_draw`` nodes (the graph page's limit).
        ArgumentError: an unknown direction.
    """
    if not graph.drawable:
        raise _too_large(len(graph.nodes))
    _check_direction(direction)
    dot = _Source(direction, tight)
    has_grad_fn = {e.dst for e in graph.edges if not e.saved}
    alone_nodes = []
    for node in graph.nodes:
        alone = node.kind == "output" and node.name not in has_grad_fn and node.value is not None
        if alone:
            alone_nodes.append(node.name)
        attrs = node_attrs(node, False, False, "x", alone)
        if node.freed or node.modified:
            why = words.freed if node.freed else words.modified
            attrs.update(_FREED, label=f"{node.label}\n{why}")
        if node.name == graph.raised_at:
            attrs.update(label=f"{attrs['label']}\n{words.raised}", color=_RAISED, penwidth="3.5")
        dot.node(node.name, attrs)
    for edge in graph.edges:
        dot.edge(edge.src, edge.dst, edge.saved)
    if alone_last:
        dot.same_rank(alone_nodes, "sink")
    if legend is not None:
        return dot.finish(_legend(legend))
    return dot.finish(_strut(min_width) if min_width > 0 else "")
