"""Which pass made a node is told by its border too, not by colour alone (WCAG 2.1 SC 1.4.1).

Every drawing of a traced graph is parsed as DOT and its legend as HTML (graphviz's HTML-like
label or the page's chips): the nodes of each pass share one border (line and number of
lines), the passes' borders differ, and the legend draws and names each of them. With the
colours taken away (a greyscale print, where the passes' fills can be equally light) the
border still tells the pass.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from hograd_core import parse
from hograd_core.flaglab.flags import FlagSettings, run_flags
from hograd_core.graph_dot import PASS_COLOURS, Legend, tensor_dot, view_dot
from hograd_core.graphs import graph_lab
from hograd_core.hvp_graph import hvp_graph
from hograd_labs.backward import figures as backward_figures
from hograd_labs.code import figures as code_figures
from hograd_labs.graph import figures as graph_figures
from hograd_labs.wgan import figures as wgan_figures
from hograd_ui.i18n import tr
from hograd_ui.tensor_drawing import flag_dot, flag_legend_html
from tests.ui.test_palette import contrast, linear


def cue_name(k: int, lang: str) -> str:
    """Pass ``k``'s border in words, from the catalogue (as hograd_ui.tensor_drawing's)."""
    return tr(f"pass.cue.{k}", lang)


# ---- reading DOT -------------------------------------------------------------------------------

_VALUE = r'"(?:[^"\\]|\\.)*"|<(?:[^<>]|<[^<>]*>)*>|[^\s\]"]+'
_ATTR = re.compile(rf"(\w+)=({_VALUE})", re.S)


def _unquote(value: str) -> str:
    return value[1:-1] if value.startswith('"') else value


def node_attrs(dot: str, name: str) -> dict[str, str]:
    """The attributes of node ``name``'s statement in ``dot`` (labels may span lines)."""
    quoted = name if name.isidentifier() else f'"{name}"'
    start = dot.index(f"\n\t{quoted} [") + len(quoted) + 4
    attrs, pos = {}, start
    while dot[pos] != "]":
        match = _ATTR.match(dot, pos)
        assert match, dot[pos : pos + 80]
        attrs[match.group(1)] = _unquote(match.group(2))
        pos = match.end()
        while dot[pos] == " ":
            pos += 1
    return attrs


def saved_to(dot: str) -> dict[str, str]:
    """Saved tensor -> the backward function that saved it, from the dashed edges."""
    edges = re.findall(r'^\t("?[^"\s]+"?) -> ("?[^"\s]+"?) \[[^\]]*style=dashed', dot, re.M)
    return {_unquote(src): _unquote(dst) for src, dst in edges}


def border(attrs: dict[str, str]) -> tuple[str, int]:
    """A node's non-colour pass cue: its line ("solid", "dotted", "dashed") and its lines."""
    lines = [s for s in attrs.get("style", "filled").split(",") if s != "filled"]
    return (lines[0] if lines else "solid", int(attrs.get("peripheries", "1")))


# ---- reading legends -------------------------------------------------------------------------

_DOT_SWATCH = re.compile(
    r'((?:<TD><TABLE BORDER="\d" COLOR="#\w{6}"(?: STYLE="(\w+)")?[^>]*><TR>)+)'
    r'<TD BGCOLOR="(#\w{6})">([^<]*)</TD>'
)
_CHIP = re.compile(
    r'((?:<span style="[^"]*border:\d+px (\w+) #\w{6}">)+)'
    r'<span style="[^"]*background:(#\w{6})[^"]*">([^<]*)</span>'
)


def legend_cues(legend: str) -> dict[int, tuple[str, int, str]]:
    """Pass -> (line, number of lines, text) of each swatch in a legend, DOT or HTML."""
    found = {}
    for rings, line, fill, text in _DOT_SWATCH.findall(legend):
        found[PASS_COLOURS.index(fill)] = (line or "solid", rings.count("<TABLE"), text)
    for rings, line, fill, text in _CHIP.findall(legend):
        found[PASS_COLOURS.index(fill)] = (line, rings.count("<span"), text)
    return found


# ---- the drawings ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Drawing:
    dot: str
    legend: str
    passes: dict[str, int]  # node name -> pass
    kinds: dict[str, str]  # node name -> kind ("op", "leaf", "output", "saved")


def _flag_graph():
    """x**3 at 2: y, then dy = grad(y, x, create_graph=True), then d2y = grad(dy, x)."""
    return run_flags(parse("x**3"), 2.0, FlagSettings(create_graph=True)).drawing


def _of(graph) -> tuple[dict[str, int], dict[str, str]]:
    return {n.name: n.pass_index for n in graph.nodes}, {n.name: n.kind for n in graph.nodes}


def _view():
    return graph_lab(parse("x**3"), 2.0).view(2, show_saved=True)


def graph_lab_download(lang: str) -> Drawing:
    view = _view()
    dot = graph_figures.to_dot(view, lang, highlight=False)
    return Drawing(dot, dot, *_of(view))


def graph_lab_page(lang: str) -> Drawing:
    view = _view()
    dot = graph_figures.to_dot(view, lang, legend=False, min_width=420)
    return Drawing(dot, graph_figures.legend_html(view, lang, highlight=False), *_of(view))


def core_view_dot(lang: str) -> Drawing:
    view = _view()
    dot = view_dot(view, highlight=False, legend=Legend(((0, "a"), (1, "b"), (2, "c")), "f"))
    return Drawing(dot, dot, *_of(view))


def core_tensor_dot(lang: str) -> Drawing:
    graph = _flag_graph()
    dot = tensor_dot(graph, legend=Legend(((0, "a"), (1, "b"), (2, "c")), "f"))
    return Drawing(dot, dot, *_of(graph))


def flag_lab(lang: str) -> Drawing:
    graph = _flag_graph()
    return Drawing(flag_dot(graph, lang), flag_legend_html(graph, lang), *_of(graph))


def hvp(lang: str) -> Drawing:
    result = hvp_graph(parse("w1**2*sin(w2)"), "1, pi/2", "0.5, 1", record_second=True)
    dot = graph_figures.hvp_dot(result, lang)
    return Drawing(dot, graph_figures.hvp_legend_html(result, lang), *_of(result.graph))


def code_lab(lang: str) -> Drawing:
    graph = _flag_graph()
    dot = code_figures.graph_dot(graph, lang)
    return Drawing(dot, code_figures.graph_legend(graph, lang), *_of(graph))


def backward_lab(lang: str) -> Drawing:
    graph = _flag_graph()
    dot = backward_figures.graph_dot(graph, lang)
    return Drawing(dot, backward_figures.graph_legend(graph, lang), *_of(graph))


def wgan_penalty(lang: str) -> Drawing:
    graph = _flag_graph()  # the tab draws its run with flag_dot and flag_legend_html too
    return Drawing(
        wgan_figures.penalty_dot(graph, lang), flag_legend_html(graph, lang), *_of(graph)
    )


BUILDERS: dict[str, Callable[[str], Drawing]] = {
    "graph-download": graph_lab_download,
    "graph-page": graph_lab_page,
    "view_dot": core_view_dot,
    "tensor_dot": core_tensor_dot,
    "flag_dot": flag_lab,
    "hvp_dot": hvp,
    "code": code_lab,
    "backward": backward_lab,
    "wgan": wgan_penalty,
}
_WORDED = {"view_dot", "tensor_dot"}  # the kernel's: the caller writes the legend's words


def cues_by_pass(drawing: Drawing) -> dict[int, set[tuple[str, int]]]:
    """Pass -> the borders of its nodes (saved tensors apart: their lines are dashed)."""
    cues: dict[int, set[tuple[str, int]]] = {}
    for name, k in drawing.passes.items():
        if drawing.kinds[name] != "saved":
            cues.setdefault(k, set()).add(border(node_attrs(drawing.dot, name)))
    return cues


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("builder", BUILDERS, ids=list(BUILDERS))
def test_each_pass_has_its_own_border_and_the_legend_shows_it(builder: str, lang: str) -> None:
    drawing = BUILDERS[builder](lang)
    passes = sorted(set(drawing.passes.values()))
    assert len(passes) >= 3  # forward and two backward passes (four stages for H v)
    cues = cues_by_pass(drawing)
    assert sorted(cues) == passes
    for k, seen in cues.items():
        assert len(seen) == 1, (k, seen)  # every node of one pass has the same border
    one = {k: next(iter(seen)) for k, seen in cues.items()}
    assert len(set(one.values())) == len(one), one  # and the passes' borders differ
    owner = saved_to(drawing.dot)
    for name, k in drawing.passes.items():
        if drawing.kinds[name] == "saved":  # one dashed line, tied to a function of its pass
            assert border(node_attrs(drawing.dot, name)) == ("dashed", 1), name
            assert drawing.passes[owner[name]] == k
    swatches = legend_cues(drawing.legend)
    assert sorted(swatches) == passes, swatches
    for k in passes:
        line, rings, text = swatches[k]
        assert (line, rings) == one[k], k  # the legend draws the nodes' border
        if builder not in _WORDED:
            assert cue_name(k, lang) in text, (k, text)  # and names it in words


def test_the_border_tells_the_pass_in_greyscale() -> None:
    """In grey the fills of the 1st and 2nd backward passes are as light as each other
    (contrast 1.07:1); with every colour removed from the drawing (a greyscale print, or
    fills made equal) each node's shape and border still name exactly one pass (a saved
    tensor's dashed lines with the border of the function its dashed edge leads to)."""
    assert contrast(PASS_COLOURS[1], PASS_COLOURS[2]) < 1.1
    luminance = [float(linear(c) @ [0.2126, 0.7152, 0.0722]) for c in PASS_COLOURS]
    assert min(abs(a - b) for a in luminance for b in luminance if a != b) < 0.02
    for builder in BUILDERS.values():
        drawing = builder("en")
        grey = re.sub(r'(fillcolor|color)="#\w{6}"', r'\1="#cccccc"', drawing.dot)
        owner = saved_to(grey)
        passes_of: dict[tuple[str, ...], set[int]] = {}
        for name, k in drawing.passes.items():
            attrs = node_attrs(grey, name)
            assert {attrs.get("fillcolor"), attrs.get("color")} <= {"#cccccc", None}
            key = (attrs.get("shape", "box"), *border(attrs))
            if drawing.kinds[name] == "saved":  # read with the function it hangs from
                key += border(node_attrs(grey, owner[name]))
            passes_of.setdefault(key, set()).add(k)
        assert all(len(ks) == 1 for ks in passes_of.values()), passes_of


def test_every_pass_has_a_border_of_its_own_and_words_for_it() -> None:
    """All seven passes (the graph lab draws up to 6 backward passes): seven borders, none
    dashed (dashes mean a saved tensor), each named in en and zh by its line and how many
    (their contrast is in tests/ui/test_palette.py)."""
    from hograd_core.graph_dot import PASS_CUES

    assert len(PASS_CUES) == len(PASS_COLOURS) == 7
    assert len({(c.line, c.rings) for c in PASS_CUES}) == 7
    assert {c.line for c in PASS_CUES} <= {"solid", "dotted"}
    many = {1: ("", ""), 2: ("double ", "双"), 3: ("triple ", "三"), 4: ("quadruple ", "四")}
    for k, cue in enumerate(PASS_CUES):
        en, zh = cue_name(k, "en"), cue_name(k, "zh")
        times, chinese = many[cue.rings]
        # "double" for two solid lines, "double dotted" for two dotted ones
        assert en == cue.english == f"{times}{cue.line}".replace(" solid", ""), en
        assert zh == f"{chinese}{'实线' if cue.line == 'solid' else '点线'}", zh


# ---- the projector's room ---------------------------------------------------------------------


def _plain(dot: str) -> dict[str, tuple[float, float]]:
    """``dot``'s layout by Graphviz (``dot -Tplain``): the drawing's ("", (width, height)) and
    each node's (width, height), in points."""
    out = subprocess.run(["dot", "-Tplain"], input=dot, capture_output=True, text=True, check=True)
    sizes = {}
    for words in (line.split() for line in out.stdout.splitlines()):
        if words[0] == "graph":
            sizes[""] = (float(words[2]) * 72, float(words[3]) * 72)
        elif words[0] == "node":
            sizes[words[1].strip('"')] = (float(words[4]) * 72, float(words[5]) * 72)
    return sizes


def _one_line_each(dot: str) -> str:
    """``dot`` with every node's border one line and its own size attributes dropped: the
    drawing as it was before the passes had borders (colour only)."""
    own = re.compile(r' (margin="[\d.,]+"|height=[\d.]+)(?=[ \]])')
    lines = dot.replace("peripheries=2", "peripheries=1").split("\n")
    return "\n".join(ln if ln.startswith("\tnode [") else own.sub("", ln) for ln in lines)


def _projected() -> dict[str, str]:
    """The drawings a projector shows of a 2nd backward pass, laid out for its screen: the
    backward lab's (tanh's graph at 0.5, its default) and the flag lab's create_graph=True
    run (x**3 at 0.7, left to right and tight as on its slide)."""
    from hograd_labs.backward.compute import graph_at

    flag = run_flags(parse("x**3"), 0.7, FlagSettings(create_graph=True)).drawing
    return {
        "backward": backward_figures.graph_dot(graph_at("tanh(x)", "(1 - y^2)*g", 0.5), "en", True),
        "flag": flag_dot(flag, "en", **graph_figures.ON_SLIDE),
    }


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
@pytest.mark.parametrize("name", ["backward", "flag"])
def test_a_border_of_two_lines_leaves_the_drawing_its_size(name: str) -> None:
    """Graphviz draws a further line 4 pt outside a node, so each node of the 2nd pass grew
    8 pt and the backward lab's projected drawing 243 -> 283 pt tall (its text then 17 px on
    the projector, under the 20 px floor). The lines take the room of the node's margin
    instead: every node is at most 3 pt taller than with one line (a box 1 pt, an oval
    2.3), and the drawing at most 3% taller (0.4% and 2.0%), as Graphviz lays both out."""
    dot = _projected()[name]
    assert "peripheries=2" in dot  # a 2nd pass drawn with its double line
    cued, plain = _plain(dot), _plain(_one_line_each(dot))
    assert cued.keys() == plain.keys()
    for node, (_, height) in cued.items():
        if node:
            assert height <= plain[node][1] + 3.0, (node, height, plain[node])
    assert cued[""][1] <= 1.03 * plain[""][1], (cued[""], plain[""])
