"""The C++ programs print what their Python scripts print (issue 41).

Every case is generated twice, as the page's PyTorch script and as its LibTorch program; the
Python script runs here, the C++ programs are compiled together into one executable
(tests/cpp_build.py: one compile for the whole module, cached by the source's hash) and run,
and the two outputs must be the same lines: the same numbers to the last printed digit, the
same grad_fn names, the same node counts. The oracle for each C++ line is PyTorch's own Python
run of the same computation, which the project's other tests check against sympy.

The seed examples are also checked against their known numbers (d/dx x³ at 2 = 12,
d²/dx² = 12; ∇f = (2, 0) and Hv = (1, -1) for w1²·sin(w2) at (1, π/2) along (0.5, 1)), and the
tanh graph's node counts against the issue's (3, 6, 14, 34 after orders 1 to 4).
"""

from __future__ import annotations

import ast
import contextlib
import functools
import io
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch.utils.cpp_extension as cpp_extension

from hograd_core import FUNCTIONS, parse
from hograd_core.cpp_code import (
    FIND_TORCH,
    build_command,
    build_lines,
    derivatives_cpp,
    hvp_cpp,
    hvp_graph_cpp,
    torch_paths,
)
from hograd_core.curvature import _load_forward_ad
from hograd_core.hvp_code import hvp_snippet
from hograd_core.hvp_graph import hvp_graph
from hograd_core.inspector import pytorch_snippet
from hograd_core.language.to_cpp import cpp_name
from hograd_labs.hvp.presets import PRESETS as HVP_PRESETS
from tests.calls import call
from tests.cpp_build import require_gpp

ROOT = Path(__file__).resolve().parents[2]


def derivative_presets() -> list[str]:
    """The derivatives page's presets, read from its source (hograd_labs/derivatives/page.py)."""
    tree = ast.parse((ROOT / "hograd_labs" / "derivatives" / "page.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "PRESETS":
            return ast.literal_eval(node.value)
    raise AssertionError("no PRESETS in hograd_labs/derivatives/page.py")


# (function, x0, order): every preset at three points (x*sin(1/x) and 1/x-like pieces at 0
# give nan and inf), every function of the language, numbers printed in Python's exponent
# form, variables that C++ (or Python) cannot use as they are, constants.
DERIVATIVE_CASES = [
    *[(text, x0, 4) for text in derivative_presets() for x0 in (0.5, -1.25, 0.0)],
    ("x**3", 2.0, 4),  # the seed
    *[(f"{call(name, '0.3*x - 0.1')} * x", 0.7, 3) for name in FUNCTIONS if name != "acosh"],
    ("acosh(0.3*x + 1.1) * x", 0.7, 3),  # inside acosh's domain
    ("softplus(3*x)/3 + softplus(-x)", -501.0, 3),  # far on both sides: finite, not NaN
    ("1e-7*x**2", 0.5, 2),
    ("exp(40)*x**2", 0.5, 2),
    ("x**-1.5 + 2/x - 1", 0.25, 3),
    ("2**x * e**-x", -0.5, 3),
    ("(x+1)**(x-1)", 0.5, 3),
    ("-(x-1)/3 + x/-2", 0.5, 2),
    ("softplus(sin(x))*softplus(-x)", 30.0, 3),
    ("x*(0*(-1))", 1.0, 2),
    ("7", 1.0, 2),
    ("(x+1)*(x-1)*(x+2) + sin(x)/cos(x) - exp(x)*log(x+2)", 0.3, 4),
    ("(sin(x) + x**2)**(cos(x) + 2)", 0.8, 3),
    ("int**3 + sin(int)", 0.5, 3),
    ("X**3", 0.5, 2),
    ("a__b**2", 0.5, 2),
    ("torch*2 + sin(torch)", 0.5, 2),
    ("y**2", 0.5, 2),
    ("nodes**2", 0.5, 2),
]
HVP_CASES = [
    *[(text, ex.point, ex.vector) for text, ex in HVP_PRESETS.items()],
    ("x + 2*y", (1.0, 2.0), (1.0, 1.0)),  # ∇f constant: H = 0
    ("x**2*sin(y) + 2/x - 1", (1.0, 1.5), (0.5, 1.0)),
    ("exp(x*y)/(1 + z^2)", (0.5, -1.0, 2.0), (1.0, 0.0, -1.0)),
    ("torch*v + as^2", (1.0, 2.0, 3.0), (0.5, -1.0, 2.0)),  # names the programs use
    ("softplus(a - b)*tanh(c) + 2^a", (0.2, -0.4, 1.1), (1.0, -2.0, 0.5)),
]

#: (function, point, vector, second backward recorded): the graph page's script for several
#: variables (the seed; ∇f constant; a variable the second backward does not reach; names the
#: programs use themselves).
GRAPH_CASES = [
    ("w1**2*sin(w2)", (1.0, math.pi / 2), (0.5, 1.0), False),
    ("w1**2*sin(w2)", (1.0, math.pi / 2), (0.5, 1.0), True),
    ("x + 2*y", (1.0, 2.0), (1.0, 1.0), False),
    ("x**3 + y", (0.5, 2.0), (1.0, -1.0), False),
    ("exp(x*y)/(1 + z^2)", (0.5, -1.0, 2.0), (1.0, 0.0, -1.0), True),
    ("gv*x + f^2 - w*v", (1.5, -0.5, 2.0, 0.25, 3.0), (1.0, 2.0, -1.0, 0.5, 0.0), False),
]


def python_output(script: str) -> list[str]:
    _load_forward_ad()  # torch's own first-use DeprecationWarning, silenced as the app does
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(script, {})  # test code: the page's own generated script
    return out.getvalue().splitlines()


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "hograd_cli", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def cli_program(*args: str) -> str:
    out = cli(*args, "--cpp")
    assert out.returncode == 0, out.stderr
    return out.stdout


def derivatives_name(text: str, x0: float) -> str:
    return f"derivatives {text} at {x0}"


#: Every case's name, known without generating anything (pytest collects these).
NAMES = [
    "cli derivatives",
    "cli hvp",
    *[derivatives_name(t, x0) for t, x0, _ in DERIVATIVE_CASES],
    *[f"hvp {text}" for text, _, _ in HVP_CASES],
    *[f"graph {text} {record}" for text, _, _, record in GRAPH_CASES],
]


@functools.cache
def cases() -> dict[str, tuple[str, str]]:
    """name -> (the Python script, the C++ program)."""
    seed, p, v = parse("x**3"), (1.0, math.pi / 2), (0.5, 1.0)
    out = {
        "cli derivatives": (
            pytorch_snippet(seed, 2.0, 3),
            cli_program("derivatives", "x**3", "--order", "3", "--at", "2"),
        ),
        "cli hvp": (
            hvp_snippet(parse("w1**2*sin(w2)"), p, v),
            cli_program(
                "hvp", "w1**2*sin(w2)", "--at", ",".join(map(repr, p)), "--vector", "0.5,1"
            ),
        ),
    }
    for text, x0, order in DERIVATIVE_CASES:
        fn = parse(text)
        out[derivatives_name(text, x0)] = (
            pytorch_snippet(fn, x0, order),
            derivatives_cpp(fn, x0, order),
        )
    for text, point, vector in HVP_CASES:
        fn = parse(text)
        out[f"hvp {text}"] = (hvp_snippet(fn, point, vector), hvp_cpp(fn, point, vector))
    for text, point, vector, record in GRAPH_CASES:
        fn = parse(text)
        shown = hvp_graph(fn, point, vector, record)  # the script the graph page shows
        program = hvp_graph_cpp(fn, shown.point, shown.vector, record, shown.reaches)
        out[f"graph {text} {record}"] = (shown.code, program)
    return out


def programs() -> dict[str, str]:
    """Every C++ program, by name (built with the other modules' programs:
    tests/cpp/conftest.py)."""
    return {name: program for name, (_, program) in cases().items()}


@pytest.fixture(scope="module")
def runs(cpp_printed: dict) -> dict[str, tuple[list[str], list[str]]]:
    """name -> (what the Python script printed, what the C++ program printed)."""
    made = cases()
    assert list(made) == NAMES
    cpp = cpp_printed["programs"]
    return {name: (python_output(script), cpp[name]) for name, (script, _) in made.items()}


@pytest.mark.parametrize("name", NAMES)
def test_the_cpp_program_prints_what_the_python_script_prints(runs: dict, name: str) -> None:
    python, cpp = runs[name]
    assert python, name
    assert cpp == python


def test_the_seed_examples_in_cpp(runs: dict) -> None:
    _, cpp = runs["derivatives x**3 at 2.0"]
    assert [line.split()[1] for line in cpp[:3]] == ["8.0", "12.0", "12.0"]
    _, tanh = runs["derivatives tanh(x) at 0.5"]
    assert [int(line.split()[3]) for line in tanh[1:]] == [3, 6, 14, 34]
    assert [line.split()[2] for line in tanh[:2]] == ["TanhBackward0", "TanhBackwardBackward0"]
    _, hvp = runs["hvp w1**2*sin(w2)"]
    gradient = [float(x) for x in re.findall(r"[-\d.e+]+", hvp[0].removeprefix("gradient"))]
    assert gradient == pytest.approx([2.0, 0.0], abs=1e-15)
    hv = [float(x) for x in re.findall(r"[-\d.e+]+", hvp[1].removeprefix("Hv"))]
    assert hv == pytest.approx([1.0, -1.0] * 3, abs=1e-15)
    _, graph = runs["graph w1**2*sin(w2) False"]
    assert graph[0] == "f 1.0" and graph[2] == "g·v 1.0"
    hv = [float(x) for x in re.findall(r"[-\d.e+]+", graph[3].removeprefix("Hv"))]
    assert hv == pytest.approx([1.0, -1.0], abs=1e-15)


def test_the_graph_programs_keep_the_python_scripts_names() -> None:
    """A variable keeps one name in both programs (renamed alike where a program needs its
    name): the leaves are declared in the same order under the same names."""
    for text, point, vector, record in GRAPH_CASES:
        fn = parse(text)
        shown = hvp_graph(fn, point, vector, record)
        python = re.findall(r"^(\w+) = torch\.tensor\(", shown.code, re.M)
        cpp = re.findall(
            r"torch::Tensor (\w+) = torch::tensor\(\S+, torch::dtype",
            hvp_graph_cpp(fn, shown.point, shown.vector, record, shown.reaches),
        )
        assert python == cpp and len(python) == len(fn.variables), text


def test_exponent_forms_and_non_numbers_are_printed_as_python_prints_them(runs: dict) -> None:
    printed = {line.split()[1] for name in runs for line in runs[name][1] if "derivatives" in name}
    assert {"nan", "inf"} & printed or "-inf" in printed  # x*sin(1/x) and friends at 0
    assert any("e-" in value for value in printed) and any("e+" in value for value in printed)
    assert "-0.0" in printed  # x*(0*(-1)) keeps the sign of zero


def test_every_program_says_how_to_build_it_as_the_tests_build_it() -> None:
    program = derivatives_cpp(parse("x**3"), 2.0, 2, name="seed")
    assert program.splitlines()[1:4] == [f"//   {line}" for line in build_lines("seed")]
    find, line, run = build_lines("seed")
    assert find == FIND_TORCH and run == "./seed"
    assert line == build_command("seed.cpp", "seed", "$TORCH")


def test_the_build_line_names_what_torch_cpp_extension_names() -> None:
    includes, lib, abi = torch_paths()
    assert list(includes) == cpp_extension.include_paths()
    assert [lib] == cpp_extension.library_paths()
    assert f"-D_GLIBCXX_USE_CXX11_ABI={abi}" in build_command()
    assert all(f"-I{path}" in build_command() for path in includes)


def test_cpp_names_follow_the_python_rule() -> None:
    assert cpp_name("theta", {"y"}) == "theta"
    assert cpp_name("int", set()) == "x"  # a C++ keyword
    assert cpp_name("NULL", set()) == "x"  # could be a macro
    assert cpp_name("a__b", set()) == "x"  # reserved in C++
    assert cpp_name("x", {"x"}) == "x_"
    assert cpp_name("print", set()) == "x"  # refused in Python: one name in both programs


def test_gpp_is_there_or_the_suite_says_so() -> None:
    require_gpp()  # under CI=true a missing g++ fails here instead of skipping
    done = subprocess.run(["g++", "--version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "g++" in done.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("derivatives", "x", "--at", "1,2"), "one point"),
        (("derivatives", "x", "--grid", "0:1:5"), "one point"),
        (("derivatives", "x", "--order", "99", "--at", "1"), "order: expected 0 to 10, got 99"),
        (("derivatives", "2x", "--at", "1"), "write 2*x"),
        (("hvp", "x*y", "--at", "1", "--vector", "1,1"), "point: expected 2 numbers"),
        (("hvp", "3", "--at", "1", "--vector", "1"), "no variables"),
    ],
)
def test_cli_cpp_bad_input_exits_2_with_one_line(args: tuple[str, ...], message: str) -> None:
    out = cli(*args, "--cpp")
    assert out.returncode == 2 and out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0]
