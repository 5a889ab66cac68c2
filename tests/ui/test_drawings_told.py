"""Every drawing of a traced graph told pass by pass: the code page's graph, the backward lab's
two drawings and the WGAN tab's penalty graph (hograd_ui/graph_steps.py).

Oracles: the DOT each lab sends to the browser (its backward functions counted per pass by
their fill, a box each: the words must tell the drawing the student sees), and the same
program run in plain PyTorch, its ``grad_fn.next_functions`` walked here (tests/graph_walk.py):
the backward functions each pass added, and which results have a ``grad_fn``.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest
import torch
from torch.autograd.function import once_differentiable

from hograd_core.graph_dot import PASS_COLOURS
from hograd_core.graph_trace import TensorGraph
from hograd_core.program import run_program
from hograd_labs.backward import figures as backward_figures
from hograd_labs.backward.compute import graph_at
from hograd_labs.code import figures as code_figures
from hograd_labs.code.presets import PRESETS
from hograd_labs.wgan import figures as wgan_figures
from hograd_labs.wgan.cached import penalty_graph
from hograd_ui.graph_steps import Step
from tests.graph_walk import walk
from tests.ui.test_pass_cues import _ATTR, _unquote

ADDED = re.compile(r"(?:recorded|added) (\d+) backward functions?")
NONE_ADDED = "added no backward function"
ZH_ADDED = re.compile(r"(?:记录了|新增了) (\d+) 个反向函数")

#: The seed program of issue 50, as the brief writes it (the first preset is its long form).
SEED = """\
import torch
x = torch.tensor([2.0], requires_grad=True)
y = x**3
g = torch.autograd.grad(y, x, create_graph=True)[0]
g2 = torch.autograd.grad(g, x)[0]
"""

_STATEMENT = re.compile(r'^\t("[^"]+"|\w+) \[', re.M)  # a node's statement starts a line


def dot_boxes(dot: str) -> Counter:
    """Pass -> the backward functions the DOT draws for it: its boxes (every other node is an
    ellipse: inputs, results, saved tensors), each pass's by its fill colour."""
    boxes: Counter = Counter()
    for match in _STATEMENT.finditer(dot):
        if match.group(1) in ("graph", "node", "edge"):
            continue
        attrs, pos = {}, match.end()
        while dot[pos] != "]":  # name=value pairs, a label may span lines
            pair = _ATTR.match(dot, pos)
            attrs[pair.group(1)] = _unquote(pair.group(2))
            pos = pair.end() + (dot[pair.end()] == " ")
        if attrs.get("shape", "box") == "box":
            boxes[PASS_COLOURS.index(attrs["fillcolor"])] += 1
    return boxes


def told(steps: tuple[Step, ...]) -> list[int]:
    """The backward functions each step says its pass added."""
    out = []
    for _, said in steps:
        m = ADDED.search(said) or ZH_ADDED.search(said)
        out.append(int(m.group(1)) if m else 0)
        assert m or NONE_ADDED in said or "没有新增反向函数" in said, said
    return out


def check_against_dot(graph: TensorGraph, steps: tuple[Step, ...], dot: str) -> None:
    """One step per pass the drawing has, each telling as many backward functions as the DOT
    draws for that pass, in the order of the passes."""
    passes = sorted({n.pass_index for n in graph.nodes})
    boxes = dot_boxes(dot)
    assert len(steps) == len(passes)
    assert told(steps) == [boxes.get(k, 0) for k in passes]
    assert sum(boxes.values()) == sum(1 for n in graph.nodes if n.kind == "op")


# ---- the code page -------------------------------------------------------------------------


def _graphs(text: str):
    for record in run_program(text):
        for name, graph in record.graphs:
            if not isinstance(graph, int):
                yield record.line, name, graph


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("preset", ["x3", "x3_no_create_graph", "hvp", "maml", "freed_graph"])
def test_the_code_pages_steps_tell_its_drawings(preset: str, lang: str) -> None:
    """After every line, for every variable with a graph: the steps tell the drawing's
    backward functions pass by pass."""
    seen = 0
    for _, _, graph in _graphs(PRESETS[preset]):
        steps = code_figures.graph_steps(graph, lang)
        check_against_dot(graph, steps, code_figures.graph_dot(graph, lang))
        seen += 1
    assert seen >= 3


def test_the_seed_program_is_told_as_plain_pytorch_walks_it() -> None:
    """The seed x³ program: after g = grad(y, x, create_graph=True), g's graph is told in two
    steps with the backward functions plain PyTorch's walk finds in each pass (forward: from
    y; first backward: from g, not reached from y), and g hangs from its real grad_fn; g2,
    made with create_graph=False, has no graph to draw (no grad_fn, needs no grad)."""
    x = torch.tensor([2.0], requires_grad=True)
    y = x**3
    (g,) = torch.autograd.grad(y, x, create_graph=True)
    forward = list(walk(y.grad_fn))
    first = [fn for fn in walk(g.grad_fn) if fn not in forward]
    (g2,) = torch.autograd.grad(g, x)
    assert g2.grad_fn is None and not g2.requires_grad

    graphs = {(line, name): graph for line, name, graph in _graphs(SEED)}
    graph = graphs[(4, "g")]
    steps = code_figures.graph_steps(graph, "en")
    assert (
        told(steps)
        == [len(forward), len(first)]
        == list(dot_boxes(code_figures.graph_dot(graph, "en")).values())
    )
    assert Counter(type(fn).__name__ for fn in first) == Counter(
        n.label for n in graph.nodes if n.kind == "op" and n.pass_index == 1
    )
    assert steps[0][0] == "Forward pass, step 1 of 2"
    assert steps[1][0] == "1st backward pass, step 2 of 2"
    assert f"g = 12 hangs from {type(g.grad_fn).__name__}, which leads back to x" in steps[1][1]
    assert "y = 8 hangs from PowBackward0" in steps[0][1]
    assert (5, "g2") not in graphs  # no grad_fn, no requires_grad: nothing drawn, nothing told
    assert "x = 2 is drawn on its own" in code_figures.graph_steps(graphs[(2, "x")], "en")[0][1]


def test_without_create_graph_the_code_page_tells_why_the_second_grad_raised() -> None:
    """The preset without create_graph: its grad_y_x has no grad_fn in plain PyTorch and grad
    of it raises; the step of the line that raised says both, and where it raised."""
    x = torch.tensor([2.0], requires_grad=True)
    (g,) = torch.autograd.grad(x**3, x)
    assert g.grad_fn is None
    with pytest.raises(RuntimeError, match="does not require grad"):
        torch.autograd.grad(g, x)
    records = run_program(PRESETS["x3_no_create_graph"])
    last = records[-1]
    assert last.error is not None
    graph = dict(last.graphs)["grad_y_x"]
    ((title, said),) = code_figures.graph_steps(graph, "en")
    assert title == "1st backward pass, step 1 of 1"
    assert "The run raised an error at grad_y_x." in said
    assert "grad_y_x = 12 has no grad_fn" in said and "create_graph=True" in said
    assert "so grad of grad_y_x would raise" in said


def test_a_result_of_several_elements_is_told_by_its_name() -> None:
    """The HVP preset's grad_f has two elements: drawn with its shape, told as a result that
    hangs from its grad_fn (plain PyTorch's), never as "= None"."""
    w = torch.tensor([1.0, torch.pi / 2.0], requires_grad=True)
    (grad_f,) = torch.autograd.grad(w[0] ** 2 * torch.sin(w[1]), w, create_graph=True)
    graphs = {(line, name): graph for line, name, graph in _graphs(PRESETS["hvp"])}
    graph = next(g for (_, name), g in graphs.items() if name == "grad_f")
    said = " ".join(s for _, s in code_figures.graph_steps(graph, "en"))
    assert f"grad_f [2] hangs from {type(grad_f.grad_fn).__name__}" in said
    assert "= None" not in said


# ---- the backward lab and the WGAN tab -------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("variant", ["written", "detached", "once", "second_function"])
def test_the_backward_labs_graph_is_told_as_drawn(variant: str, lang: str) -> None:
    graph = graph_at("tanh(x)", "(1 - y^2)*g", 0.5, variant)
    steps = backward_figures.graph_steps(graph, lang)
    for dot in (
        backward_figures.graph_dot(graph, lang),
        backward_figures.graph_dot(graph, lang, wide=True),  # the projected slide's
    ):
        check_against_dot(graph, steps, dot)
    passes = sorted({n.pass_index for n in graph.nodes})
    assert told(steps) == [graph.per_pass[k] for k in passes]  # the tracer's own count


def test_once_differentiable_is_told_where_plain_pytorch_raises() -> None:
    """A backward under @once_differentiable, with a g that requires grad: the gradient hangs
    from a node that raises when a backward pass runs it, in plain PyTorch and in the words."""

    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * x**2 * g

    x = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
    v = torch.ones_like(x, requires_grad=True)
    (d1,) = torch.autograd.grad(Cube.apply(x), x, v, create_graph=True)
    with pytest.raises(RuntimeError, match="once_differentiable"):
        d1.backward()
    steps = backward_figures.graph_steps(graph_at("x^3", "3*x^2*g", 0.5, "once"), "en")
    said = steps[-1][1]
    fn = type(d1.grad_fn).__name__
    assert f"A backward pass that runs {fn} raises an error" in said
    assert f"dy/dx = 0.75 hangs from {fn}, where PyTorch raises an error" in said


def test_the_decoders_case_is_told_as_drawn() -> None:
    """The gallery's "backward twice" case under the decoder: as drawn, and y told as hanging
    from the node where a second backward raises, as it does in plain PyTorch."""
    from hograd_serving.cached import case_for

    x = torch.tensor(2.0, requires_grad=True)
    y = x**3
    torch.autograd.grad(y, x)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        torch.autograd.grad(y, x)
    graph = case_for("freed_graph", "default").drawing
    steps = backward_figures.case_steps(graph, "en")
    check_against_dot(graph, steps, backward_figures.graph_dot(graph, "en"))
    fn = type(y.grad_fn).__name__
    assert f"The run raised an error at {fn}." in steps[0][1]
    assert f"y = 8 hangs from {fn}, where PyTorch raises an error" in steps[0][1]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("create_graph", [True, False])
def test_the_wgan_penalty_graph_is_told_as_drawn(create_graph: bool, lang: str) -> None:
    """Per pass as the DOT draws it; ‖∇D‖ and GP have a grad_fn exactly when the gradient
    was taken with create_graph=True, as in plain PyTorch."""
    graph = penalty_graph(create_graph)
    steps = wgan_figures.penalty_steps(graph, lang)
    check_against_dot(graph, steps, wgan_figures.penalty_dot(graph, lang))
    x = torch.randn(1, 2, dtype=torch.float64, requires_grad=True)
    w = torch.randn(2, 1, dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(torch.tanh(x @ w).sum(), x, create_graph=create_graph)
    assert (g.norm(dim=1).grad_fn is not None) == create_graph
    if lang == "en":
        last = steps[-1][1]
        assert ("GP = " in last) and (("has no grad_fn" in last) == (not create_graph))
