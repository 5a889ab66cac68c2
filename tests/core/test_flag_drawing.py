"""The flag lab draws the graph of the real objects each run produced (issue 15, a-c).

Oracles: the same calls replayed here with plain torch (not through hograd), their graphs
walked through ``grad_fn.next_functions``; a saved tensor counts as freed exactly when PyTorch
raises on reading it; torchviz's ``make_dot`` on the same objects for node and edge counts.
"""

from __future__ import annotations

import itertools
import json
import re
from collections import Counter
from dataclasses import asdict

import pytest
import torch

from hograd_core import parse
from hograd_core.flaglab.flags import ACTIONS, FlagSettings, run_flags, run_flags_here
from hograd_core.flaglab.isolated import decode, outcome_json
from hograd_ui.tensor_drawing import flag_dot, flag_legend_html
from tests.graph_walk import walk_tensors as walk

FUNCTIONS = ["x**3", "tanh(x)", "2*x", "x + 1", "sin(x)*exp(-x**2)"]
SETTINGS = [
    FlagSettings(cg, rg, au, mg, z, action)
    for cg, rg, au, mg, z, action in itertools.product(
        [False, True], [None, True, False], [False, True], [False, True], [False, True], ACTIONS
    )
    if not (action == "backward" and (au or mg))  # .backward() has neither flag
]
ERRORS = (RuntimeError, TypeError, ValueError)


def leaf(value: float) -> torch.Tensor:
    return torch.tensor(value, dtype=torch.float64, requires_grad=True)


def replay(text: str, s: FlagSettings) -> tuple[list[object], torch.Tensor, torch.Tensor]:
    """The run written out with plain torch: (results in order, x, z); stops at an error."""
    x, z = leaf(0.7), leaf(1.0)
    y = parse(text).torch({"x": x})
    out: list[object] = [y]
    try:
        if s.action == "backward":
            for _ in range(2):
                y.backward(create_graph=s.create_graph, retain_graph=s.retain_graph)
                out += [x.grad, z.grad] if s.unused_input else [x.grad]
        else:
            kwargs = {"create_graph": s.create_graph, "retain_graph": s.retain_graph}
            kwargs |= {"allow_unused": True} if s.allow_unused else {}
            kwargs |= {"materialize_grads": True} if s.materialize_grads else {}
            out += torch.autograd.grad(y, (x, z) if s.unused_input else x, **kwargs)
            again = out[1] if s.action == "next" else y
            out.append(torch.autograd.grad(again, x)[0])
    except ERRORS:
        pass
    return out, x, z


def saved_state(fns: list[object]) -> Counter:
    """(op, saved name, freed) for every tensor a backward function saved, as PyTorch says."""
    state: Counter = Counter()
    for fn in fns:
        for attr in dir(fn):
            if not attr.startswith("_saved_"):
                continue
            try:
                value = getattr(fn, attr)
            except RuntimeError as err:
                assert "freed" in str(err)
                state[(type(fn).__name__, attr[7:], True)] += 1
                continue
            items = value if isinstance(value, tuple) else (value,)
            for i, item in enumerate(items):
                if torch.is_tensor(item):
                    name = f"{attr[7:]}[{i}]" if isinstance(value, tuple) else attr[7:]
                    state[(type(fn).__name__, name, False)] += 1
    return state


def drawn_saved(graph) -> Counter:
    labels = {n.name: n.label for n in graph.nodes}
    owner = {e.src: e.dst for e in graph.edges if e.saved}
    return Counter(
        (labels[owner[n.name]], n.label, n.freed) for n in graph.nodes if n.kind == "saved"
    )


@pytest.mark.parametrize("text", FUNCTIONS)
def test_every_combination_draws_the_real_objects(text: str) -> None:
    for s in SETTINGS:
        outcome = run_flags(parse(text), 0.7, s)
        graph = outcome.drawing
        tensors, _, _ = replay(text, s)
        fns = walk(tensors)
        ops = Counter(n.label for n in graph.nodes if n.kind == "op")
        assert ops == Counter(type(fn).__name__ for fn in fns), s
        assert sum(graph.per_pass) == len(fns)
        assert drawn_saved(graph) == saved_state(fns), s  # freed exactly when PyTorch raises
        outputs = [n for n in graph.nodes if n.kind == "output"]
        assert len(outputs) == len(tensors), s
        for node, tensor in zip(outputs, tensors, strict=True):
            if tensor is None:
                assert node.value is None
            has_graph = any(e.dst == node.name for e in graph.edges)
            assert has_graph == (torch.is_tensor(tensor) and tensor.grad_fn is not None), s
        assert flag_dot(graph)  # within the drawing budget, and drawable


def test_create_graph_decides_whether_dy_hangs_from_the_graph() -> None:
    off = run_flags(parse("x**3"), 2.0, FlagSettings(create_graph=False))
    on = run_flags(parse("x**3"), 2.0, FlagSettings(create_graph=True))
    dy_off = next(n for n in off.drawing.nodes if n.label == "dy")
    assert dy_off.value == 12.0 and not any(e.dst == dy_off.name for e in off.drawing.edges)
    assert '"dy = 12\n(no grad_fn)\nraised here"' in flag_dot(off.drawing)
    assert off.drawing.raised_at == dy_off.name  # the next grad refused dy itself
    dy_on = next(n for n in on.drawing.nodes if n.label == "dy")
    assert any(e.dst == dy_on.name for e in on.drawing.edges)
    # what the first call added, counted here from the real objects right after it
    x = leaf(2.0)
    y = x**3
    (dy,) = torch.autograd.grad(y, x, create_graph=True)
    new = [fn for fn in walk([dy]) if fn not in walk([y])]
    before = {t.untyped_storage().data_ptr() for fn in walk([y]) for t in saved_tensors(fn)}
    added = {
        t.untyped_storage().data_ptr(): t.untyped_storage().nbytes()
        for fn in new
        for t in saved_tensors(fn)
        if t.untyped_storage().data_ptr() not in before
    }
    assert on.first_call == (len(new), sum(added.values())) == (3, 8)
    assert off.first_call == (0, 0)


def saved_tensors(fn: object) -> list[torch.Tensor]:
    out = []
    for attr in dir(fn):
        if attr.startswith("_saved_"):
            value = getattr(fn, attr)
            out += [
                v for v in (value if isinstance(value, tuple) else (value,)) if torch.is_tensor(v)
            ]
    return out


@pytest.mark.parametrize("text", FUNCTIONS)
def test_without_create_graph_the_first_call_adds_nothing(text: str) -> None:
    for s in SETTINGS:
        if not s.create_graph:
            assert run_flags(parse(text), 0.7, s).first_call == (0, 0), s


def test_freed_tensors_and_the_node_that_raised() -> None:
    outcome = run_flags(parse("x**3"), 0.7, FlagSettings(action="again"))
    assert outcome.error.startswith("Trying to backward through the graph a second time")
    graph = outcome.drawing
    freed = [n for n in graph.nodes if n.freed]
    assert [(n.name, n.label) for n in freed] == [("p0_0.self", "self")]
    assert graph.raised_at == "p0_0"  # PowBackward0: the function whose saved x was freed
    source = flag_dot(graph, "en")
    assert "self\nsaved tensor freed" in source and "PowBackward0\nraised here" in source
    assert "保存的张量已释放" in flag_dot(graph, "zh")
    kept = run_flags(parse("x**3"), 0.7, FlagSettings(retain_graph=True, action="again"))
    assert not kept.raised and kept.drawing.raised_at == ""
    # the graph is drawn as it is after the whole run: the second call, made with the default
    # retain_graph (False), freed what the first call had kept
    assert [n.name for n in kept.drawing.nodes if n.freed] == ["p0_0.self"]


def test_the_node_that_raised_for_a_deeper_graph() -> None:
    """tanh: with retain_graph=False the next derivative fails inside the forward graph; the
    node marked is the one PyTorch entered last, whose saved result was freed."""
    outcome = run_flags(parse("tanh(x)"), 0.7, FlagSettings(True, False, action="next"))
    graph = outcome.drawing
    labels = {n.name: n.label for n in graph.nodes}
    assert labels[graph.raised_at] == "TanhBackward0"
    owner = {e.src: e.dst for e in graph.edges if e.saved}
    assert {owner[n.name] for n in graph.nodes if n.freed} >= {graph.raised_at}


@pytest.mark.parametrize(
    ("flags", "shown"), [({"allow_unused": True}, "None"), ({"materialize_grads": True}, "0")]
)
def test_the_unused_input_is_drawn_with_its_result(flags: dict, shown: str) -> None:
    outcome = run_flags(
        parse("x**3"), 2.0, FlagSettings(create_graph=True, unused_input=True, **flags)
    )
    graph = outcome.drawing
    dz = next(n for n in graph.nodes if n.label == "dz")
    z = next(n for n in graph.nodes if n.name == "leaf_z")
    assert dz.pass_index == 1 and z.value == 1.0
    assert not any(dz.name in (e.src, e.dst) or z.name in (e.src, e.dst) for e in graph.edges)
    assert f'"dz = {shown}' in flag_dot(graph)
    refused = run_flags(parse("x**3"), 2.0, FlagSettings(unused_input=True))
    assert refused.drawing.raised_at == "leaf_z"  # "not have been used in the graph"


def test_same_counts_as_torchviz() -> None:
    from torchviz import make_dot

    for text, s in [
        ("x**3", FlagSettings(create_graph=True)),
        ("tanh(x)", FlagSettings(True, True, action="again")),
        ("sin(x)*exp(-x**2)", FlagSettings(create_graph=True)),
    ]:
        tensors, _, _ = replay(text, s)
        source = make_dot(tuple(t for t in tensors if torch.is_tensor(t))).source
        labels = dict(re.findall(r"^\t(\d+) \[label=([^\s\]]+)", source, re.M))
        ops = {n for n, label in labels.items() if not label.startswith('"')}
        edges = [
            (a, b)
            for a, b in re.findall(r"^\t(\d+) -> (\d+)", source, re.M)
            if a in ops and b in ops
        ]
        graph = run_flags(parse(text), 0.7, s).drawing
        kinds = {n.name: n.kind for n in graph.nodes}
        mine = [e for e in graph.edges if kinds[e.src] == kinds[e.dst] == "op"]
        assert len(ops) == sum(1 for n in graph.nodes if n.kind == "op")
        assert len(edges) == len(mine)


def test_the_drawing_survives_the_trip_from_a_fresh_process() -> None:
    fn = parse("x**3")
    s = FlagSettings(True, None, False, False, True, "backward")
    here = run_flags_here(fn, 2.0, s)
    payload = {
        "kind": "flags",
        "text": fn.text,
        "variables": list(fn.variables),
        "x0": 2.0,
        "settings": asdict(s),
    }
    back = decode(outcome_json(payload))
    assert back.drawing == here.drawing and back.first_call == here.first_call
    roots = json.loads(outcome_json(payload))["drawing"]["roots"]
    assert roots == ["y", "x.grad", "z.grad", "x.grad", "z.grad"]


def test_legend_names_the_tensors_of_each_call() -> None:
    graph = run_flags(parse("x**3"), 2.0, FlagSettings(create_graph=True)).drawing
    html = flag_legend_html(graph, "en")
    assert "y: forward pass" in html and "dy: 1st backward pass" in html
    assert "d2y: 2nd backward pass" in html


def torchviz_ops_and_edges(tensors: list[object]) -> tuple[int, int]:
    from torchviz import make_dot

    source = make_dot(tuple(t for t in tensors if torch.is_tensor(t))).source
    labels = dict(re.findall(r"^\t(\d+) \[label=([^\s\]]+)", source, re.M))
    ops = {n for n, label in labels.items() if not label.startswith('"')}
    edges = {
        (a, b) for a, b in re.findall(r"^\t(\d+) -> (\d+)", source, re.M) if a in ops and b in ops
    }
    return len(ops), len(edges)


@pytest.mark.parametrize("text", FUNCTIONS)
def test_every_combination_counts_as_torchviz_does(text: str) -> None:
    """For every setting the flag lab offers, torchviz's make_dot on the replayed objects draws
    as many backward functions, and edges between them, as the flag lab's drawing."""
    for s in SETTINGS:
        graph = run_flags(parse(text), 0.7, s).drawing
        tensors, _, _ = replay(text, s)
        kinds = {n.name: n.kind for n in graph.nodes}
        mine = {(e.src, e.dst) for e in graph.edges if kinds[e.src] == kinds[e.dst] == "op"}
        assert torchviz_ops_and_edges(tensors) == (graph.counts[0], len(mine)), s


def test_the_page_torchviz_view_counts_the_same() -> None:
    """The torchviz view the page shows (make_dot on the run's own tensors, through the
    server's ``view``) has the same backward functions as the pass-coloured drawing."""
    from hograd_labs.graph.cached import torchviz_views

    for s in SETTINGS:
        outcome = run_flags(parse("tanh(x)"), 0.7, s, view=torchviz_views)
        source = dict(outcome.views)["dot:False,False"]
        labels = dict(re.findall(r"^\t(\d+) \[label=([^\s\]]+)", source, re.M))
        ops = sum(1 for label in labels.values() if not label.startswith('"'))
        assert ops == outcome.drawing.counts[0], s
