"""The derivatives page's code view is the code that runs: the script it shows is the source
of hograd_core/derivatives_script.py's functions, the page's nested-autograd numbers come from
the same ``nested_derivatives``, and the script runs with torch alone."""

from __future__ import annotations

import ast
import inspect
import subprocess
import sys

import pytest
import torch

from hograd_core import derivatives, nested_autograd, parse
from hograd_core import derivatives_script as script
from hograd_core.autograd_walk import walk
from hograd_core.inspector import pytorch_snippet
from hograd_core.nested_autograd import graph_nodes


def test_the_snippet_is_the_source_of_the_functions_that_run() -> None:
    snippet = pytorch_snippet(parse("sin(x)*exp(-x^2)"), 0.5, 3)
    for fn in (script.nodes, script.nested_derivatives, script.print_derivatives):
        assert inspect.getsource(fn) in snippet
    assert nested_autograd.nested_derivatives is script.nested_derivatives
    # what is not a function's source: the import, f (torch_source) and the one call
    written = snippet
    for fn in (script.nodes, script.nested_derivatives, script.print_derivatives):
        written = written.replace(inspect.getsource(fn), "")
    assert [line for line in written.splitlines() if line] == [
        "import torch",
        "def f(x):",
        "    return torch.sin(x) * torch.exp(-(x ** 2))",
        "print_derivatives(f, 0.5, 3)",
    ]


def test_the_pages_numbers_come_from_the_shown_generator(monkeypatch) -> None:
    calls: list[int] = []

    def spy(f, x, order):
        calls.append(order)
        yield from script.nested_derivatives(f, x, order)

    monkeypatch.setattr(nested_autograd, "nested_derivatives", spy)
    result = derivatives(parse("x**3"), [2.0, -1.0], 5, probe=lambda fn, order: ((11,), ()))
    assert calls == [5]
    assert result.values[:, 0].tolist() == [8.0, 12.0, 12.0, 6.0, 0.0, 0.0]
    assert result.values[:, 1].tolist() == [-1.0, 3.0, -6.0, 6.0, 0.0, 0.0]
    assert result.torch_raises_from == 5  # f'''' = 0 has no grad_fn: grad would raise


@pytest.mark.parametrize("text", ["x**3", "tanh(x)", "sin(x)*exp(-x^2)", "relu(x)", "7"])
def test_the_scripts_node_count_is_the_kernels_walk(text: str) -> None:
    fn = parse(text)
    x = torch.tensor(0.7, dtype=torch.float64, requires_grad=True)
    env = {fn.variables[0]: x} if fn.variables else {}
    for d in script.nested_derivatives(lambda x: fn.torch(env), x, 5):
        assert script.nodes(d) == graph_nodes(d) == len(walk([d.grad_fn]).nodes)


def test_the_script_imports_torch_alone_and_runs_outside_the_project(tmp_path) -> None:
    tree = ast.parse(inspect.getsource(script))
    imports = [n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)]
    assert [alias.name for n in imports for alias in n.names] == ["torch"]
    snippet = pytorch_snippet(parse("x**3"), 2.0, 4)
    out = subprocess.run(
        [sys.executable, "-I", "-c", snippet],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "0 8.0 PowBackward0 2",
        "1 12.0 MulBackward0 4",
        "2 12.0 MulBackward0 4",
        "3 6.0 MulBackward0 4",
        "4 0.0 None 0",
    ]


@pytest.mark.parametrize(
    ("text", "exact"),
    [
        ("x**3", lambda x: [x**3, 3 * x**2, 6 * x, 6 + 0 * x, 0 * x]),
        ("7", lambda x: [7 + 0 * x, 0 * x, 0 * x, 0 * x, 0 * x]),  # a constant, one per point
    ],
)
def test_derivatives_of_stacks_the_rows_on_the_grid(text: str, exact) -> None:
    """The derivatives notebook's function (carried by its source): closed forms, shape
    (order + 1, points), detached."""
    fn = parse(text)
    env = (lambda x: {fn.variables[0]: x}) if fn.variables else (lambda x: {})
    xs = torch.linspace(-1.5, 2.0, 8, dtype=torch.float64, requires_grad=True)
    got = script.derivatives_of(lambda x: fn.torch(env(x)), xs, 4)
    assert got.shape == (5, 8) and not got.requires_grad
    torch.testing.assert_close(got, torch.stack(exact(xs.detach())), rtol=1e-14, atol=1e-14)
