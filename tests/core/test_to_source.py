"""The one PyTorch source generator, checked against the evaluator it writes out: the source,
run with torch, must give the same float64 numbers and the same graph as ``Function.torch``."""

from __future__ import annotations

import contextlib
import doctest
import io

import numpy as np
import pytest
import torch

import hograd_core.language.function
import hograd_core.language.to_source
import hograd_core.taylor
from hograd_core import FUNCTIONS, parse
from hograd_core.inspector import pytorch_snippet
from hograd_core.language import Function
from hograd_core.language.to_source import SOFTPLUS, python_name, torch_source
from hograd_core.nested_autograd import derivatives
from tests.calls import call

# Inside and outside every function's domain, the kinks, and where exp and cosh overflow.
POINTS = [-800.0, -30.0, -3.0, -1.0, -0.5, 0.0, 0.25, 0.5, 1.0, 3.0, 30.0, 800.0]


def run_source(fn: Function, x: torch.Tensor) -> torch.Tensor:
    """Evaluate the generated source of ``fn`` with ``x`` as its variable."""
    source = torch_source(fn, {fn.variables[0]: "x"} if fn.variables else None)
    return eval(source, {"torch": torch, "x": x})  # test code: our own generated source


def same(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Equal bit for bit as numbers, NaN where NaN."""
    a, b = torch.broadcast_tensors(a.detach(), b.detach())
    nan = a.isnan()
    return (
        a.dtype == b.dtype == torch.float64
        and torch.equal(nan, b.isnan())
        and torch.equal(a[~nan], b[~nan])
    )


def check_same_computation(fn: Function, points: list[float], orders: int = 2) -> None:
    """Values, grad_fn types and derivatives up to ``orders`` are those of ``Function.torch``."""
    x = torch.tensor(points, dtype=torch.float64, requires_grad=True)
    mine = fn.torch({fn.variables[0]: x} if fn.variables else {})
    theirs = run_source(fn, x)
    for order in range(orders + 1):
        assert same(mine, theirs), f"{fn.text}: order {order}"
        assert type(mine.grad_fn) is type(theirs.grad_fn), f"{fn.text}: order {order}"
        if not mine.requires_grad or order == orders:
            break
        (mine,) = torch.autograd.grad(mine.sum(), x, create_graph=True)
        (theirs,) = torch.autograd.grad(theirs.sum(), x, create_graph=True)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_every_function_computes_what_the_evaluator_computes(name: str) -> None:
    with np.errstate(all="ignore"):
        check_same_computation(parse(call(name)), POINTS)
        check_same_computation(parse(f"{call(name, '0.3*x - 0.1')} * x"), POINTS)


@pytest.mark.parametrize(
    "text",
    [
        "x**3",
        "-x**2",
        "2**x",
        "x**x",
        "e**-x",
        "pi*x",
        "2*pi*x",
        "x/-2",
        "-(x-1)/3",
        "x**-1.5",
        "(x+1)**(x-1)",
        "x**(9**9)",
        "sin(1)*x",
        "x*(1/exp(1000))",
        "log(2)**x",
        "-0*x",
        "3",
        "-3 + x",
        "softplus(sin(x))*softplus(-x)",
        "relu(x - 1) * sigmoid(x)",
        "sqrt(abs(x))",
        "x - (x - (x - 1))",
        "x/(x/(x/2))",
        "2**2**x",
        "(2**2)**x",
        "-(-x)",
        "1e-3*x + 1e6",
    ],
)
def test_every_kind_of_node_computes_what_the_evaluator_computes(text: str) -> None:
    check_same_computation(parse(text), POINTS, orders=3)


def test_constant_parts_are_float64_literals() -> None:
    assert torch_source(parse("x**3")) == "x ** 3"  # a whole number reads as an integer
    assert torch_source(parse("x**1.5")) == "x ** 1.5"
    assert torch_source(parse("2*pi*x")) == "6.283185307179586 * x"
    assert torch_source(parse("x/-2")) == "x / (-2)"
    assert torch_source(parse("x*(0*(-1))")) == "x * (-0.0)"  # the sign of zero is kept
    # Python would raise here (math.exp(1000) overflows, sin needs a float): the folded value
    # is what the evaluator uses.
    assert torch_source(parse("x*(1/exp(1000))")) == "x * 0"
    assert torch_source(parse("sin(1)*x")) == "0.8414709848078965 * x"
    assert torch_source(parse("2^3")) == "torch.tensor(8.0, dtype=torch.float64)"


def test_softplus_is_written_as_the_evaluator_computes_it() -> None:
    source = torch_source(parse("softplus(sin(x))"))
    assert source == f"{SOFTPLUS}(torch.sin(x))"  # the argument written, and computed, once
    # Beyond a = 20 F.softplus is a straight line, and torch.logaddexp(a, 0) has NaN second
    # derivatives far on its flat side; this form, like the evaluator, has neither.
    x = torch.tensor([-501.0, 30.0, 800.0], dtype=torch.float64, requires_grad=True)
    d = eval(torch_source(parse("softplus(x)")), {"torch": torch, "x": x})  # test code
    for _ in range(3):
        (d,) = torch.autograd.grad(d.sum(), x, create_graph=True)
        # every order from the second on is ±sigmoid(x)*sigmoid(-x): e^-501, e^-30, 0 (e^-800
        # is below float64's range)
    assert d.tolist() == pytest.approx([np.exp(-501.0), -np.exp(-30.0), 0.0], rel=1e-12)


def test_variables_are_renamed_where_asked() -> None:
    fn = parse("w1**2*sin(w2)")
    assert torch_source(fn, {"w1": "a"}) == "(a ** 2) * torch.sin(w2)"
    assert python_name("torch", {"torch"}) == "x"
    assert python_name("as", set()) == "x"  # a Python keyword, but a name in the language
    assert python_name("theta", {"y"}) == "theta"


def snippet_values(fn: Function, x0: float, order: int) -> list[float]:
    """Run the inspector's snippet and read what it prints."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(pytorch_snippet(fn, x0, order), {})  # test code: the inspector's own snippet
    return [float(line.split()[1]) for line in out.getvalue().splitlines()]


@pytest.mark.parametrize(
    "text",
    [
        "sin(x)*exp(-x^2)",
        "x*sin(1/x) + e**x",
        "softplus(x)**2",
        "sin(1)*x**2",
        "7",
        "y**3 + y",
        "torch*2",
        "as**3",
        "log(float)",
    ],
)
def test_the_inspector_snippet_reproduces_the_autograd_column(text: str) -> None:
    fn = parse(text)
    want = derivatives(fn, [1.25], 4).values[:, 0].tolist()
    assert snippet_values(fn, 1.25, 4) == want


@pytest.mark.parametrize(
    "module", [hograd_core.language.to_source, hograd_core.language.function, hograd_core.taylor]
)
def test_the_examples_in_the_docstrings_run(module: object) -> None:
    result = doctest.testmod(module, extraglobs={"parse": parse, "np": np})
    assert result.attempted > 0 and result.failed == 0
