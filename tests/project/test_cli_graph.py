"""``python -m hograd_core graph``: the pass-coloured DOT for slides, SVG, torchviz's DOT
(issue 15, point 4), run as a teacher's script runs it: ``main(argv)`` with the script's
arguments and environment, in this process (tests/project/cli_inprocess.py; tests/project/
test_cli.py runs the command line as a process of its own).

Oracles: the real graph of the same calls made here with plain torch (nodes new to each pass
counted by walking ``grad_fn.next_functions``), torchviz's make_dot on those objects, and
Graphviz's dot, which must accept the source.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from xml.etree import ElementTree

import grimp
import pytest
import torch

from hograd_core.graph_dot import PASS_COLOURS
from tests.graph_walk import walk
from tests.project.cli_inprocess import run_cli


def cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return run_cli(*args, env=env)


def new_per_pass(roots: list[torch.Tensor]) -> list[Counter]:
    """Backward functions each root reaches that no earlier root reached, by type."""
    seen: set[object] = set()
    out = []
    for root in roots:
        new = [fn for fn in walk(root.grad_fn) if fn not in seen]
        seen.update(new)
        out.append(Counter(type(fn).__name__ for fn in new))
    return out


def drawn_per_colour(dot: str) -> dict[str, Counter]:
    """Box nodes (backward functions) of the DOT by fill colour, by label."""
    out: dict[str, Counter] = {}
    for label, fill in re.findall(r'^\tp\d+_\d+ \[label=(\w+) .*fillcolor="(#\w+)"', dot, re.M):
        out.setdefault(fill, Counter())[label] += 1
    return out


def test_one_variable_prints_the_pass_coloured_dot() -> None:
    out = cli("graph", "x**3", "--order", "2", "--at", "0.7")
    assert out.returncode == 0, out.stderr
    x = torch.tensor(0.7, dtype=torch.float64, requires_grad=True)
    y = x**3
    (dy,) = torch.autograd.grad(y, x, create_graph=True)
    (d2y,) = torch.autograd.grad(dy, x, create_graph=True)
    expected = new_per_pass([y, dy, d2y])
    drawn = drawn_per_colour(out.stdout)
    assert drawn == {PASS_COLOURS[k]: expected[k] for k in range(3)}
    assert out.stdout.startswith("digraph autograd {")
    assert '"d2y/dx2 = 4.2"' in out.stdout  # 6 x at 0.7
    assert "2nd backward pass: 3 nodes (double border)" in out.stdout  # the legend


def test_several_variables_draw_the_hvp_graph() -> None:
    out = cli("graph", "w1**2*sin(w2)", "--at", "1,pi/2", "--v", "0.5,1")
    assert out.returncode == 0, out.stderr
    w1 = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
    w2 = torch.tensor(torch.pi, dtype=torch.float64, requires_grad=True) / 2
    w2 = w2.detach().requires_grad_()
    f = w1**2 * torch.sin(w2)
    g = torch.autograd.grad(f, (w1, w2), create_graph=True)
    gv = torch.dot(torch.stack(g), torch.tensor([0.5, 1.0], dtype=torch.float64))
    stages = new_per_pass([f, g[0], g[1], gv])
    expected = [stages[0], stages[1] + stages[2], stages[3]]  # g1 and g2 are one stage
    drawn = drawn_per_colour(out.stdout)
    assert drawn == {PASS_COLOURS[k]: expected[k] for k in range(3)}
    assert [sum(c.values()) for c in expected] == [5, 7, 2]
    assert '"(Hv)_w1 = 1\n(no grad_fn)"' in out.stdout  # the plain second grad: no history
    assert '"(Hv)_w2 = -1\n(no grad_fn)"' in out.stdout
    assert "saved tensor freed" in out.stdout  # the plain second grad freed what it used


def torchviz_shape(source: str) -> tuple[Counter, int]:
    labels = dict(re.findall(r"^\t(\d+) \[label=([^\s\]]+)", source, re.M))
    ops = Counter(label for label in labels.values() if not label.startswith('"'))
    edges = re.findall(r"^\t(\d+) -> (\d+)", source, re.M)
    return ops, len(edges)


def test_torchviz_gives_make_dot_of_the_same_objects() -> None:
    from torchviz import make_dot

    out = cli("graph", "x**3", "--order", "2", "--at", "0.7", "--torchviz")
    assert out.returncode == 0, out.stderr
    x = torch.tensor(0.7, dtype=torch.float64, requires_grad=True)
    y = x**3
    (dy,) = torch.autograd.grad(y, x, create_graph=True)
    (d2y,) = torch.autograd.grad(dy, x, create_graph=True)
    mine = make_dot((y, dy, d2y), params={"x": x}).source
    assert torchviz_shape(out.stdout) == torchviz_shape(mine)  # ids differ, the shape not
    assert "AccumulateGrad" in out.stdout and '[label="x\n ()"' in out.stdout  # x named


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
@pytest.mark.parametrize("extra", [(), ("--torchviz",)])
def test_svg_is_written_with_dot(tmp_path: Path, extra: tuple[str, ...]) -> None:
    path = tmp_path / "graph.svg"
    out = cli("graph", "tanh(x)", "--order", "3", "--at", "0.5", "--svg", str(path), *extra)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"wrote {path}"
    svg = path.read_text()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    assert svg.count('class="node"') > 20  # the graph of tanh to order 3, laid out


def backward_nodes_by_pass(svg: str) -> Counter:
    """The laid-out drawing's backward-function nodes (titled p<pass>_<i>), counted by pass;
    the file must parse as SVG."""
    root = ElementTree.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    titles = [t.text for t in root.iter("{http://www.w3.org/2000/svg}title")]
    return Counter(int(m[1]) for t in titles if (m := re.fullmatch(r"p(\d+)_\d+", t or "")))


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_steps_writes_each_pass_as_a_numbered_svg(tmp_path: Path) -> None:
    """Issue 38: --steps DIR writes pass_0.svg ... pass_k.svg, slide k holding the graph after
    pass k: its nodes grow pass by pass as the real graph of the same calls does."""
    folder = tmp_path / "slides"
    out = cli("graph", "tanh(x)", "--order", "3", "--at", "0.5", "--steps", str(folder))
    assert out.returncode == 0, out.stderr
    names = [f"pass_{k}.svg" for k in range(4)]
    assert sorted(p.name for p in folder.iterdir()) == names
    assert out.stdout.splitlines() == [f"wrote {folder / name}" for name in names]
    x = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
    rows = [torch.tanh(x)]
    for _ in range(3):
        rows.append(torch.autograd.grad(rows[-1], x, create_graph=True)[0])
    new = [sum(c.values()) for c in new_per_pass(rows)]  # AccumulateGrad included, as drawn
    for k, name in enumerate(names):
        drawn = backward_nodes_by_pass((folder / name).read_text())
        assert drawn == Counter({j: new[j] for j in range(k + 1)}), name


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("w1**2*sin(w2)", "--at", "1,2", "--v", "1,1"), "function of one variable"),
        (("x**3", "--torchviz"), "does not combine with --torchviz"),
    ],
)
def test_steps_refuses_what_it_cannot_draw(tmp_path: Path, args: tuple, message: str) -> None:
    out = cli("graph", *args, "--steps", str(tmp_path / "s"))
    assert out.returncode == 2 and message in out.stderr and out.stderr.count("\n") == 1
    assert not (tmp_path / "s").exists()


def test_svg_without_dot_is_one_error_line(tmp_path: Path) -> None:
    env = {**os.environ, "PATH": str(tmp_path)}  # no dot on this PATH
    out = cli("graph", "x**3", "--svg", str(tmp_path / "g.svg"), env=env)
    assert out.returncode == 2 and out.stderr.count("\n") == 1
    assert out.stderr.startswith("error: --svg: Graphviz's dot program is not installed.")
    assert not (tmp_path / "g.svg").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("graph", "x+"), "function: it ends too early"),
        (("graph", "x**3", "--order", "7"), "order: expected 0 to 6, got 7"),
        (("graph", "x**3", "--at", "abc"), "point: 'abc' is not a number"),
        (("graph", "x**3", "--at", "1e9"), "at most 1e6"),
        (("graph", "x**3", "--direction", "BT"), "direction: expected TB or LR, got BT"),
        (("graph", "x**3", "--v", "1"), "--v is the direction of a Hessian-vector product"),
        (("graph", "w1*w2"), "give the point and the direction"),
        (("graph", "w1*w2", "--cpp"), "give the point and the direction"),
        (("graph", "w1*w2", "--cpp", "--at", "1,2", "--v", "1,x"), "vector: 'x' is not a number"),
        (("graph", "w1*w2", "--at", "1,2,3", "--v", "1,1"), "point: expected 2 numbers"),
        (("graph", "x**3", "--order", "two"), "invalid int value"),
        (
            ("graph", "sin(x)*exp(-x**2)", "--order", "6", "--saved"),
            "2,047 nodes, more than the 400 drawn",
        ),
    ],
)
def test_bad_input_exit_2_one_line(args: tuple[str, ...], message: str) -> None:
    out = cli(*args)
    assert out.returncode == 2, out.stdout[:200]
    assert "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert message in lines[0]


def test_cpp_for_several_variables_is_the_graph_scripts_twin() -> None:
    """--cpp with two or more variables prints the C++ twin of the script the graph page shows
    for that Hessian-vector product (tests/cpp compiles it and compares the output)."""
    from hograd_core import parse
    from hograd_core.cpp_code import hvp_graph_cpp
    from hograd_core.hvp_graph import hvp_graph

    out = cli("graph", "w1**2*sin(w2)", "--at", "1,pi/2", "--v", "0.5,1", "--record", "--cpp")
    assert out.returncode == 0, out.stderr
    fn = parse("w1**2*sin(w2)")
    shown = hvp_graph(fn, "1,pi/2", "0.5,1", True)
    assert out.stdout == hvp_graph_cpp(fn, shown.point, shown.vector, True, shown.reaches)
    assert "/*create_graph=*/true, /*allow_unused=*/true), w);  // H v" in out.stdout


def test_only_the_command_line_imports_the_graph_verb() -> None:
    """The graph verb may start dot: nothing the server loads uses it, and the core reaches the
    command line only through its ``python -m hograd_core`` shim (pyproject's one exception)."""
    graph = grimp.build_graph(
        "hograd_core", "hograd_serving", "hograd_ui", "hograd_labs", "pages", "hograd_cli"
    )
    assert graph.find_modules_that_directly_import("hograd_cli.graph") == {"hograd_cli.__main__"}
    assert graph.find_modules_that_directly_import("hograd_cli.__main__") == {
        "hograd_core.__main__"
    }
    assert not graph.find_modules_that_directly_import("hograd_core.__main__")
