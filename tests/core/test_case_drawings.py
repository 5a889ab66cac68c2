"""Every classic case of the flag lab leaves a drawing of the real objects it made (issue 15).

Oracle: the case's own snippet, executed as a learner would run it (``exec``, stopped by its
error if it has one), its printed tensors' graphs walked through ``grad_fn.next_functions``,
a saved tensor's state read as PyTorch reports it (a freed or changed-in-place tensor raises
when read), and torchviz's ``make_dot`` on the same objects for the node and edge counts.
"""

from __future__ import annotations

import contextlib
import io
import re
import warnings
from collections import Counter

import pytest
import torch

from hograd_core.flaglab.cases import CASES, run_case
from hograd_ui.tensor_drawing import flag_dot, flag_legend_html
from tests.graph_walk import walk_tensors as walk

ALL = [(case, variant) for case, spec in CASES.items() for variant in spec.variants]


def execute(snippet: str) -> dict:
    """Run the snippet as a script; its namespace when it ends or raises."""
    namespace: dict = {}
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with contextlib.suppress(RuntimeError, TypeError, ValueError):
            exec(snippet, namespace)  # the project's own snippet, the oracle
    return namespace


def lookup(namespace: dict, name: str) -> object:
    base, _, attr = name.partition(".")
    return getattr(namespace[base], attr) if attr else namespace.get(base)


def saved_state(fns: list[object]) -> Counter:
    """(op, saved name, state) of every saved tensor, the state as reading it tells."""
    state: Counter = Counter()
    for fn in fns:
        for attr in (a for a in dir(fn) if a.startswith("_saved_")):
            try:
                value = getattr(fn, attr)
            except RuntimeError as err:
                kind = "freed" if "freed" in str(err) else "modified"
                assert kind == "freed" or "inplace" in str(err), err
                state[(type(fn).__name__, attr[7:], kind)] += 1
                continue
            items = value if isinstance(value, tuple) else (value,)
            for i, item in enumerate(items):
                if torch.is_tensor(item):
                    name = f"{attr[7:]}[{i}]" if isinstance(value, tuple) else attr[7:]
                    state[(type(fn).__name__, name, "kept")] += 1
    return state


def drawn_state(graph) -> Counter:
    labels = {n.name: n.label for n in graph.nodes}
    owner = {e.src: e.dst for e in graph.edges if e.saved}
    return Counter(
        (
            labels[owner[n.name]],
            n.label,
            "freed" if n.freed else "modified" if n.modified else "kept",
        )
        for n in graph.nodes
        if n.kind == "saved"
    )


def torchviz_counts(tensors: list[torch.Tensor]) -> tuple[int, int]:
    """Backward-function nodes and the edges between them in make_dot's drawing."""
    from torchviz import make_dot

    source = make_dot(tuple(tensors)).source
    labels = dict(re.findall(r"^\t(\d+) \[label=([^\s\]]+)", source, re.M))
    ops = {n for n, label in labels.items() if not label.startswith('"')}
    edges = {
        (a, b) for a, b in re.findall(r"^\t(\d+) -> (\d+)", source, re.M) if a in ops and b in ops
    }
    return len(ops), len(edges)


@pytest.mark.parametrize(("case", "variant"), ALL)
def test_every_case_draws_the_objects_its_script_made(case: str, variant: str) -> None:
    outcome = run_case(case, variant)
    graph = outcome.drawing
    assert graph is not None and graph.drawable
    namespace = execute(outcome.snippet)
    names = list(dict.fromkeys(graph.roots))
    tensors = [lookup(namespace, name) for name in names]
    rebound = len(names) < len(graph.roots)  # a name printed twice: the namespace has the last
    fns = walk(tensors)
    ops = Counter(n.label for n in graph.nodes if n.kind == "op")
    if rebound and ops != Counter(type(fn).__name__ for fn in fns):
        # y rebuilt (nan_anomaly), x.grad reset: the drawing holds the earlier objects too
        assert ops > Counter(type(fn).__name__ for fn in fns)
        assert (case, variant) in {
            ("nan_anomaly", "sqrt"),
            ("nan_anomaly", "log"),
            ("backward_accumulates", "reset"),
            ("backward_accumulates", "grad"),
        }
        return
    assert ops == Counter(type(fn).__name__ for fn in fns)
    assert drawn_state(graph) == saved_state(fns)  # freed / modified exactly when PyTorch says
    kinds = {n.name: n.kind for n in graph.nodes}
    mine = {(e.src, e.dst) for e in graph.edges if kinds[e.src] == kinds[e.dst] == "op"}
    assert torchviz_counts([t for t in tensors if torch.is_tensor(t)]) == (
        sum(1 for n in graph.nodes if n.kind == "op"),
        len(mine),
    )
    outputs = {n.label: n for n in graph.nodes if n.kind == "output"}
    for name, tensor in zip(names, tensors, strict=True):
        has_graph = any(e.dst == outputs[name].name for e in graph.edges)
        if tensor is None:
            assert outputs[name].value is None and not has_graph
        else:
            assert has_graph == (tensor.grad_fn is not None), name
    flag_dot(graph), flag_legend_html(graph)  # both draw without error


def marked(case: str, variant: str) -> str:
    graph = run_case(case, variant).drawing
    return {n.name: n.label for n in graph.nodes}.get(graph.raised_at, "")


def test_the_node_that_raised_is_the_one_pytorch_names() -> None:
    # refused before any graph was walked: the tensor handed to grad, or the unused input
    assert marked("no_create_graph", "off") == "dy"
    assert marked("constant_trap", "linear") == "dy"
    assert marked("unused_input", "plain") == "z"
    assert marked("unused_input", "allow_unused") == "dz"  # None * 2: the None is marked
    # a freed graph: the function whose saved tensor was freed
    assert marked("freed_graph", "default") == "PowBackward0"
    assert marked("retain_default", "no_retain_next") == "TanhBackward0"
    # anomaly detection names the function that returned NaN; the drawing marks that one
    for variant in ("sqrt", "log"):
        outcome = run_case("nan_anomaly", variant)
        named = re.match(r"Function '(\w+)'", outcome.error)[1]
        assert marked("nan_anomaly", variant) == named
    # cases that ran mark nothing
    assert marked("freed_graph", "retain") == marked("inplace", "out_of_place") == ""


def test_in_place_change_is_drawn_as_such() -> None:
    graph = run_case("inplace", "inplace").drawing
    modified = [n for n in graph.nodes if n.modified]
    assert modified and not any(n.freed for n in modified)
    assert {n.label for n in modified} == {"self"}
    owner = {e.src: e.dst for e in graph.edges if e.saved}
    assert graph.raised_at in {owner[n.name] for n in modified}
    assert "changed in place after it was saved" in flag_dot(graph, "en")
    assert "保存之后被原地修改过" in flag_dot(graph, "zh")
    clean = run_case("inplace", "out_of_place").drawing
    assert not any(n.modified for n in clean.nodes)


def test_backward_twice_draws_each_accumulated_grad() -> None:
    graph = run_case("backward_accumulates", "twice").drawing
    assert graph.roots == ("y", "x.grad", "x.grad")
    values = [n.value for n in graph.nodes if n.kind == "output"]
    assert values == [8.0, 12.0, 24.0]  # x.grad as printed after each call: 12, then 12 + 12
    html = flag_legend_html(graph, "en")
    assert "x.grad: 1st backward pass" in html and "x.grad: 2nd backward pass" in html


def test_the_drawing_of_an_isolated_case_survives_the_trip() -> None:
    from hograd_core.flaglab.isolated import decode, outcome_json

    for variant in CASES["nan_anomaly"].variants:
        here = run_case("nan_anomaly", variant)
        back = decode(outcome_json({"kind": "case", "case": "nan_anomaly", "variant": variant}))
        assert repr(back.drawing) == repr(here.drawing)  # repr: dy is NaN, and NaN != NaN
