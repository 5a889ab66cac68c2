"""The flag lab: every case and every toggle combination, checked against its own snippet.

Each outcome is checked twice: against what the maths says (closed-form values) and
PyTorch's real error texts, and against the snippet it shows, run again here from scratch (in
a fresh namespace, or a fresh Python process where process-wide state matters).
"""

from __future__ import annotations

import contextlib
import io
import itertools
import math
import warnings
from pathlib import Path

import pytest
import torch

from hograd_core import HogradError, parse
from hograd_core.flaglab.cases import CASES, run_case
from hograd_core.flaglab.flags import ACTIONS, FlagSettings, run_flags, torch_source
from hograd_ui.i18n import catalogue
from tests.english import raises

ROOT = Path(__file__).resolve().parents[2]
NO_GRAD = "element 0 of tensors does not require grad and does not have a grad_fn"
FREED = "Trying to backward through the graph a second time"
UNUSED = "appears to not have been used in the graph. Set allow_unused=True"
CYCLE = "Using backward() with create_graph=True will create a reference cycle"


def run_here(snippet: str) -> tuple[list[str], str, list[str]]:
    """Run a snippet in a fresh namespace: (printed lines, "Type: message" or "", warnings)."""
    out = io.StringIO()
    error = ""
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(out):
        warnings.simplefilter("always")
        try:
            exec(compile(snippet, "snippet.py", "exec"), {})  # test code: the lab's own snippet
        except (RuntimeError, ValueError, TypeError) as err:
            error = f"{type(err).__name__}: {err}"
    return out.getvalue().splitlines(), error, [str(w.message) for w in caught]


def check_against_snippet(outcome) -> None:
    """The snippet, run here, prints what the outcome says and raises its error (the fresh
    process's warnings are checked in tests/serving/test_flaglab_isolated.py)."""
    printed = [line for step in outcome.steps for line in step.output]
    error = f"{outcome.steps[-1].error_type}: {outcome.error}" if outcome.raised else ""
    stdout, got, _ = run_here(outcome.snippet)
    assert stdout == printed
    assert got == error


# ---- the classic cases ----------------------------------------------------------------------

# (case, variant): (error PyTorch must raise or None, a result's name, its last printed value)
EXPECT = {
    ("no_create_graph", "off"): (NO_GRAD, "dy", 12.0),  # dy = 3x^2 at 2
    ("no_create_graph", "on"): (None, "d2y", 12.0),  # d2y = 6x at 2
    ("freed_graph", "default"): (FREED, "dy", 12.0),
    ("freed_graph", "retain"): (None, "dy_again", 12.0),
    ("retain_default", "create_graph"): (None, "dy_again", 12.0),
    ("retain_default", "no_retain"): (FREED, "dy", 12.0),
    ("retain_default", "no_retain_next"): (FREED, "dy", 1 - math.tanh(0.7) ** 2),
    ("unused_input", "plain"): (UNUSED, None, None),
    ("unused_input", "allow_unused"): (
        "unsupported operand type(s) for *: 'NoneType' and 'int'",
        "dz",
        None,
    ),
    ("unused_input", "materialize"): (None, "dz * 2", 0.0),
    ("constant_trap", "linear"): (NO_GRAD, "dy", 2.0),
    ("constant_trap", "relu"): (None, "d2y", 0.0),
    ("constant_trap", "clamp"): (NO_GRAD, "dy", 1.0),
    ("constant_trap", "fixed"): (None, "d2y", 0.0),
    ("constant_trap", "forgot"): (None, "d2y", 0.0),  # silently wrong: x**3'' at 2 is 12
    ("backward_accumulates", "twice"): (None, "x.grad", 24.0),  # 2 * f'(2), accumulated
    ("backward_accumulates", "reset"): (None, "x.grad", 12.0),
    ("backward_accumulates", "grad"): (None, "x.grad", None),  # grad() leaves .grad alone
    ("inplace", "inplace"): (
        "modified by an inplace operation",
        "dy",
        2 * math.sin(0.5) * math.cos(0.5),
    ),
    ("inplace", "out_of_place"): (None, "d2y", 2 * math.cos(1.0)),  # (sin^2)'' = 2 cos 2x
    ("nan_anomaly", "sqrt"): (
        "Function 'PowBackward0' returned nan values in its 0th output.",
        "dy",
        math.nan,
    ),
    ("nan_anomaly", "log"): (
        "Function 'LogBackward0' returned nan values in its 0th output.",
        "dy",
        math.nan,
    ),
    ("nan_anomaly", "log_fixed"): (None, "dy", 0.0),
}


def test_every_case_is_listed() -> None:
    assert set(EXPECT) == {(c, v) for c in CASES for v in CASES[c].variants}


@pytest.mark.parametrize(("case", "variant"), sorted(EXPECT))
def test_case_does_what_pytorch_does(case: str, variant: str) -> None:
    outcome = run_case(case, variant)
    error, name, last = EXPECT[(case, variant)]
    if error is None:
        assert not outcome.raised, outcome.error
    else:
        assert outcome.raised and error in outcome.error
    values = [r.value for step in outcome.steps for r in step.results if r.name == name]
    if name is None:
        assert not any(step.results for step in outcome.steps)
    elif last is None:
        assert values and values[-1] is None
    elif math.isnan(last):
        assert values and math.isnan(values[-1])
    else:
        assert values and values[-1] == pytest.approx(last, rel=1e-12)
    for key in outcome.explain + outcome.fixes:
        assert key in catalogue("en"), key
    assert outcome.explain, "every outcome is explained"
    silent = case == "backward_accumulates" or variant == "forgot"  # wrong without an error
    assert (len(outcome.fixes) > 0) == outcome.raised or silent
    check_against_snippet(outcome)


def test_transcript_reads_like_a_session() -> None:
    text = run_case("no_create_graph", "off").transcript()
    assert text.splitlines() == [
        ">>> x = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)",
        ">>> y = x**3",
        ">>> dy = torch.autograd.grad(y, x)[0]",
        ">>> print(dy)",
        "tensor(12., dtype=torch.float64)",
        ">>> d2y = torch.autograd.grad(dy, x)[0]",
        f"RuntimeError: {NO_GRAD}",
    ]
    fixed = run_case("constant_trap", "fixed").transcript()
    assert "... else:" in fixed and "...     d2y = torch.zeros_like(x)" in fixed


def test_unknown_case_or_variant() -> None:
    with raises(HogradError, match="case: expected one of"):
        run_case("nope")
    with raises(HogradError, match="variant: expected one of off, on, got x"):
        run_case("no_create_graph", "x")
    assert run_case("no_create_graph").variant == "off"


# ---- the toggles ----------------------------------------------------------------------------

FUNCTIONS = ["x**3", "tanh(x)", "2*x", "relu(x)", "3", "t**2 + sin(t)", "z*exp(-z)"]
IN_PROCESS = [
    FlagSettings(cg, rg, au, mg, z, action)
    for cg, rg, au, mg, z, action in itertools.product(
        [False, True], [None, True, False], [False, True], [False, True], [False, True], ACTIONS
    )
    if not (action == "backward" and (cg or au or mg))  # backward + create_graph: fresh process
]


@pytest.mark.parametrize("text", FUNCTIONS)
def test_every_combination_matches_its_snippet(text: str) -> None:
    fn = parse(text)
    for settings in IN_PROCESS:
        outcome = run_flags(fn, 0.7, settings)
        check_against_snippet(outcome)
        for key in outcome.explain + outcome.fixes:
            assert key in catalogue("en"), (settings, key)


def explain(text: str, **flags: object) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    outcome = run_flags(parse(text), 0.7, FlagSettings(**flags))
    return outcome.error, outcome.explain, outcome.fixes


def test_the_issue_scenarios() -> None:
    error, why, fix = explain("x**3", create_graph=False, action="next")
    assert (
        error == NO_GRAD and why[0].endswith("no_create_graph") and fix[0].endswith("create_graph")
    )
    error, why, _ = explain("x**3", create_graph=False, action="again")
    assert FREED in error and why[0].endswith("freed_default")
    error, why, _ = explain("x**3", create_graph=True, action="again")
    assert error == "" and why[0].endswith("retain_default")
    error, why, _ = explain("x**3", create_graph=True, retain_graph=False, action="again")
    assert FREED in error and why[0].endswith("freed_explicit")
    error, why, _ = explain("tanh(x)", create_graph=True, retain_graph=False, action="next")
    assert FREED in error and why[0].endswith("freed_forward")
    error, why, _ = explain("x**3", create_graph=True, retain_graph=False, action="next")
    assert error == "" and why[0].endswith("next_ok")  # x**3's backward only needs x itself
    error, why, fix = explain("2*x", create_graph=True, action="next")
    assert error == NO_GRAD and why[0].endswith("constant_trap") and fix[0].endswith("constant")
    error, why, _ = explain("x**3", unused_input=True)
    assert UNUSED in error and why[0].endswith("unused_error")
    error, why, _ = explain("x**3", create_graph=True, unused_input=True, allow_unused=True)
    assert error == "" and why == ("graph.flag.explain.next_ok", "graph.flag.explain.unused_none")
    error, why, _ = explain("x**3", create_graph=True, unused_input=True, materialize_grads=True)
    assert error == "" and why[1].endswith("unused_zero")
    error, why, _ = explain("3", create_graph=True)
    assert error == NO_GRAD and why[0].endswith("const_output")


def test_values_and_flags_of_the_results() -> None:
    outcome = run_flags(
        parse("x**3"),
        2.0,
        FlagSettings(create_graph=True, unused_input=True, materialize_grads=True),
    )
    first, second = outcome.steps[1].results, outcome.steps[2].results
    assert [(r.name, r.value, r.requires_grad, r.grad_fn) for r in first] == [
        ("dy", 12.0, True, "MulBackward0"),
        ("dz", 0.0, True, ""),
    ]
    assert [(r.name, r.value, r.requires_grad, r.grad_fn) for r in second] == [
        ("d2y", 12.0, False, "")
    ]
    none = run_flags(parse("x**3"), 2.0, FlagSettings(unused_input=True, allow_unused=True))
    assert none.steps[1].results[1] == type(none.steps[1].results[1])("dz", None, False, "")


def test_refusals() -> None:
    with raises(HogradError, match="action: expected one of next, again, backward"):
        run_flags(parse("x"), 1.0, FlagSettings(action="twice"))
    with raises(HogradError, match="one variable"):
        run_flags(parse("x*y"), 1.0, FlagSettings())
    with raises(HogradError, match="x0"):
        run_flags(parse("x"), math.inf, FlagSettings())


# ---- the generated code ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "x**3",
        "-x**2",
        "2**x",
        "x**x",
        "softplus(x)",
        "-(x-1)/3",
        "e**-x",
        "pi*x",
        "x/-2",
        "sqrt(abs(x))",
        "sin(x)*exp(-x^2)",
        "1/(1+x**2)",
        "3",
        "-3 + x",
        "relu(x - 1) * sigmoid(x)",
        "x**-1.5",
        "(x+1)**(x-1)",
    ],
)
def test_torch_source_builds_the_same_graph(text: str) -> None:
    fn = parse(text)
    x = torch.tensor(1.3, dtype=torch.float64, requires_grad=True)
    mine = fn.torch({"x": x}) if fn.variables else fn.torch({})
    theirs = eval(torch_source(fn), {"torch": torch, "x": x})  # test code, our generated source
    assert torch.equal(mine.detach(), theirs.detach())
    assert type(mine.grad_fn) is type(theirs.grad_fn)
    if mine.requires_grad:
        (g1,) = torch.autograd.grad(mine, x, create_graph=True)
        (g2,) = torch.autograd.grad(theirs, x, create_graph=True)
        assert torch.equal(g1.detach(), g2.detach())
        assert type(g1.grad_fn) is type(g2.grad_fn)


def test_snippet_names() -> None:
    assert "t = torch.tensor(0.7" in run_flags(parse("t**2"), 0.7, FlagSettings()).snippet
    clash = run_flags(parse("y**2"), 0.7, FlagSettings()).snippet  # y is the output's name
    assert "x = torch.tensor(0.7" in clash and "y = x ** 2" in clash
