"""The flag lab's C++ programs print what its Python snippets print (issue 41, part d).

Every setting the page's flag lab can send (create_graph, retain_graph None/True/False,
allow_unused, materialize_grads, an unused input, the three actions; allow_unused and
materialize_grads only for the grad actions, as the page sends them) on x**3 at 2, a few
settings on each of the page's one-variable presets and on variables C++ must rename, and every
variant of every classic case: each is run by PyTorch in Python (the outcome the page shows),
its C++ twin is compiled with all the others into one executable (tests/cpp_build.py, built
once and cached by the source's hash) and run, and the C++ must print the same lines: what
the snippet's print calls wrote, then, if it raised, ``RuntimeError: <PyTorch's message>``.

The one Python error without a C++ twin (``dz * 2`` on None: Python's own TypeError) is
checked separately: the lines before it must match, and LibTorch must refuse the undefined
tensor.
"""

from __future__ import annotations

import functools
import itertools
import subprocess
import sys
from pathlib import Path

import pytest

from hograd_core import parse
from hograd_core.flaglab.cases import CASES, run_case
from hograd_core.flaglab.cpp import PYTHON_ONLY_ERRORS, flag_cpp, libtorch_message
from hograd_core.flaglab.flags import ACTIONS, FlagOutcome, FlagSettings, run_flags

ROOT = Path(__file__).resolve().parents[2]


def page_settings() -> list[FlagSettings]:
    """Every setting the flag lab's toggles make (the page greys out allow_unused and
    materialize_grads for .backward(), and sends them as False there)."""
    out = []
    for create, retain, unused, action in itertools.product(
        (False, True), (None, True, False), (False, True), ACTIONS
    ):
        pairs = (
            [(False, False)]
            if action == "backward"
            else [(False, False), (True, False), (False, True), (True, True)]
        )
        out += [FlagSettings(create, retain, a, m, unused, action) for a, m in pairs]
    return out


SETTINGS = page_settings()
# The graph page's one-variable presets, functions whose dy has no grad_fn, and variable names
# C++ (or the program) cannot use as they are.
FUNCTIONS = [
    ("sin(x)", 0.5),
    ("tanh(x)", 0.7),
    ("2*x", 1.0),
    ("relu(x)", 1.5),
    ("x**2", -0.5),
    ("exp(x)", 0.3),
    ("sin(x)*exp(-x**2)", 0.4),
    ("7", 1.0),
    ("int**3", 2.0),
    ("main*2 + sin(main)", 0.5),
    ("z**3", 2.0),
    ("x*sin(1/x)", 0.0),
    ("exp(20*x)", 1.0),
    ("1e-6*x**3", 0.5),
    ("x**30", 2.0),
]
FEW = [FlagSettings(create_graph=c, action=a) for c in (False, True) for a in ACTIONS] + [
    FlagSettings(create_graph=True, unused_input=True, materialize_grads=True)
]


def setting_name(s: FlagSettings) -> str:
    return (
        f"cg={s.create_graph} rg={s.retain_graph} au={s.allow_unused} "
        f"mg={s.materialize_grads} unused={s.unused_input} {s.action}"
    )


@functools.cache
def runs_of() -> dict[str, tuple[FlagOutcome, str]]:
    """name -> (the Python run the page shows, its C++ twin)."""
    out = {}
    cube = parse("x**3")
    for s in SETTINGS:
        outcome = run_flags(cube, 2.0, s)
        out[f"x**3 {setting_name(s)}"] = (outcome, flag_cpp(outcome.snippet, cube))
    for text, x0 in FUNCTIONS:
        fn = parse(text)
        for s in FEW:
            outcome = run_flags(fn, x0, s)
            out[f"{text} at {x0} {setting_name(s)}"] = (outcome, flag_cpp(outcome.snippet, fn))
    for case, spec in CASES.items():
        for variant in spec.variants:
            outcome = run_case(case, variant)
            out[f"case {case} {variant}"] = (outcome, flag_cpp(outcome.snippet))
    return out


NAMES = (
    [f"x**3 {setting_name(s)}" for s in SETTINGS]
    + [f"{text} at {x0} {setting_name(s)}" for text, x0 in FUNCTIONS for s in FEW]
    + [f"case {c} {v}" for c, spec in CASES.items() for v in spec.variants]
)


def printed(outcome: FlagOutcome) -> list[str]:
    """What the Python snippet printed (its print calls), then its last traceback line, the
    message as LibTorch words the same check (see libtorch_message, tested below)."""
    lines = [line for step in outcome.steps for line in step.output]
    if outcome.raised:
        lines.append(f"{outcome.steps[-1].error_type}: {libtorch_message(outcome.error)}")
    return lines


def programs() -> dict[str, str]:
    """The C++ twin of every setting, by name (built with the other modules' programs:
    tests/cpp/conftest.py)."""
    return {name: program for name, (_, program) in runs_of().items()}


@pytest.fixture(scope="module")
def runs(cpp_printed: dict) -> dict[str, tuple[list[str], list[str], FlagOutcome]]:
    made = runs_of()
    assert list(made) == NAMES
    cpp = cpp_printed["flaglab"]
    return {name: (printed(outcome), cpp[name], outcome) for name, (outcome, _) in made.items()}


@pytest.mark.parametrize("name", NAMES)
def test_the_cpp_twin_prints_what_the_python_snippet_prints(runs: dict, name: str) -> None:
    python, cpp, outcome = runs[name]
    assert python, name
    if outcome.error in PYTHON_ONLY_ERRORS:  # None * 2: Python's own TypeError
        assert outcome.steps[-1].error_type == "TypeError"
        assert cpp[:-1] == python[:-1]
        assert cpp[-1] == (
            "RuntimeError: Expected a proper Tensor but got None (or an undefined Tensor in C++) "
            "for argument #0 'self'"
        )
    else:
        assert cpp == python


def test_the_runs_cover_every_error_and_form_the_page_shows(runs: dict) -> None:
    """The comparison above met PyTorch's errors, None, requires_grad, grad_fn names and
    number forms, so equality is not won by printing nothing."""
    everything = "\n".join(line for python, _, _ in runs.values() for line in python)
    for text in (
        "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn",
        "RuntimeError: Trying to backward through the graph a second time",
        "RuntimeError: element 1of the differentiated Tensors appears to not have been used",
        "RuntimeError: one of the variables needed for gradient computation has been modified",
        "RuntimeError: Function 'PowBackward0' returned nan values in its 0th output.",
        "tensor(12., dtype=torch.float64, grad_fn=<MulBackward0>)",
        "tensor(0., dtype=torch.float64, requires_grad=True)",
        " None",
        "True",
        "False",
        "tensor(nan, dtype=torch.float64",
        "tensor(0.8776, ",
        "e-07, dtype",
        "9.7033e+09, dtype",
        "1.6106e+10, dtype",
        "tensor(-1., ",
    ):
        assert text in everything, text
    x3 = runs["x**3 cg=True rg=None au=False mg=False unused=False next"][1]
    assert x3 == [
        "tensor(12., dtype=torch.float64, grad_fn=<MulBackward0>)",
        "tensor(12., dtype=torch.float64)",
    ]


def test_only_two_wordings_differ_and_they_say_the_same(runs: dict) -> None:
    """Every other error is compared with Python's own text unchanged; these two C++ forms are
    pinned: the same input, advice, operation and versions in other words."""
    changed = {
        o.error: cpp[-1] for _, cpp, o in runs.values() if libtorch_message(o.error) != o.error
    }
    unused = {p: c for p, c in changed.items() if p.startswith("The differentiated Tensor at ")}
    inplace = {p: c for p, c in changed.items() if p.startswith("one of the variables needed")}
    assert unused and inplace and len(unused) + len(inplace) == len(changed)
    for python, cpp in unused.items():
        assert cpp == (
            "RuntimeError: element 1of the differentiated Tensors appears to not have been used "
            "in the graph. Set allow_unused=True if this is the desired behavior."
        )
        assert python.startswith("The differentiated Tensor at index 1 appears")
        assert python.split("appears", 1)[1] == cpp.split("appears", 1)[1]
    for python, cpp in inplace.items():
        assert "[torch.DoubleTensor []]" in python and "[CPUDoubleType []]" in cpp
        assert python.split("]", 1)[1] == cpp.split("]", 1)[1]  # "which is output 0 of Mul, ..."


def test_renamed_variables_keep_the_function() -> None:
    outcome = run_flags(parse("int**3"), 2.0, FlagSettings())
    program = flag_cpp(outcome.snippet, parse("int**3"))
    assert "torch::Tensor x = torch::tensor(2.0," in program and "int =" not in program


def test_an_untranslated_line_is_refused_not_guessed() -> None:
    with pytest.raises(KeyError):
        flag_cpp(
            "import torch\n\nx = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)"
            "\ny = torch.frobnicate(x)"
        )


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "hograd_cli", "graph", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_cli_graph_cpp_prints_the_flag_labs_program() -> None:
    s = FlagSettings(
        create_graph=True,
        retain_graph=False,
        unused_input=True,
        materialize_grads=True,
        action="again",
    )
    out = cli(
        "x**3",
        "--at",
        "2",
        "--cpp",
        "--create-graph",
        "--retain-graph",
        "False",
        "--unused-input",
        "--materialize-grads",
        "--action",
        "again",
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout == flag_cpp(run_flags(parse("x**3"), 2.0, s).snippet, parse("x**3"))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("x*y", "--at", "1", "--cpp"), "give the point and the direction"),  # H v's twin
        (("x**3", "--at", "2", "--cpp", "--action", "twice"), "action"),
        (("x**3", "--at", "inf", "--cpp"), "finite"),
        (("x**3", "--at", "2e7", "--cpp"), "at most 1e6"),
        (("x**3", "--cpp", "--retain-graph", "maybe"), "--retain-graph: expected none, true"),
    ],
)
def test_cli_graph_cpp_bad_input_exits_2_with_one_line(args: tuple[str, ...], message: str) -> None:
    out = cli(*args)
    assert out.returncode == 2 and out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0].lower()
