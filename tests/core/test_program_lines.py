"""What the program runner records after each line: outputs, variables, graphs by pass."""

from __future__ import annotations

from hograd_core.program import run_program
from tests.program_corpus import SEED_X3


def _graph(record, name):
    return dict(record.graphs)[name]


def test_each_line_of_the_seed() -> None:
    lines = run_program(SEED_X3)
    assert [r.line for r in lines] == [1, 2, 3, 4, 5, 6, 7]
    assert lines[4].output == "dy/dx at x=2.0: 12.0\n" and lines[6].output == "False\n"
    after = {v.name: v for v in lines[3].variables}
    assert after["y"].grad_fn == "PowBackward0" and after["y"].values == (8.0,)
    assert after["grad_y_x"].requires_grad and after["grad_y_x"].values == (12.0,)
    assert after["x"].is_leaf and after["x"].grad is None


def test_the_graph_is_coloured_by_the_pass_that_made_it() -> None:
    lines = run_program(SEED_X3)
    graph = _graph(lines[3], "grad_y_x")  # after create_graph=True
    ops = {n.pass_index for n in graph.nodes if n.kind == "op"}
    assert ops == {0, 1}  # x**3's forward nodes, and the first backward's
    assert {n.label for n in graph.nodes if n.kind == "output"} == {"y", "grad_y_x"}


def test_the_error_at_line_6_and_the_graph_that_caused_it() -> None:
    lines = run_program(SEED_X3.replace("create_graph=True", "create_graph=False"))
    last = lines[-1]
    assert last.line == 6 and last.error.line == 6
    assert last.error.text.startswith("RuntimeError: element 0 of tensors does not require grad")
    assert last.error.variable == "grad_y_x"
    graph = _graph(last, "grad_y_x")
    raised = [n for n in graph.nodes if n.name == graph.raised_at]
    assert raised and raised[0].label == "grad_y_x"
    # y's graph was freed by the backward pass of line 4 (retain_graph defaults to False)
    assert any(n.freed for n in _graph(last, "y").nodes)


def test_warnings_are_recorded_at_their_line() -> None:
    text = "import torch\nx = torch.tensor(1.0, requires_grad=True)\ny = x * 2\nprint(y.grad)\n"
    lines = run_program(text)
    assert lines[-1].output == "None\n"
    assert lines[-1].warnings and lines[-1].warnings[0].startswith("UserWarning: The .grad")
