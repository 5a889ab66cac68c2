"""The functions added for peers' suites (issue 46, item 9): expm1, log1p, erfc, asinh, acosh,
atanh. Each is checked against sympy's exact derivatives to order 6 at several points by every
method, against PyTorch's gradcheck and gradgradcheck, Taylor mode against nested autograd, and
each backend's form of it; the names left out get a message that says why and what to write."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sympy as sp
import torch

from hograd_core import FUNCTIONS, ExpressionError, parse
from hograd_core.forward_mode import forward_derivative
from hograd_core.language.parser import EXCLUDED
from hograd_core.language.to_cpp import cpp_source
from hograd_core.language.to_source import torch_source
from hograd_core.language.to_sympy import to_latex, to_sympy
from hograd_core.nested_autograd import derivatives
from tests.english import raises

#: Each new function, with points inside its domain (both signs where it has them).
NEW = {
    "expm1": (-2.5, -0.3, 1e-4, 0.7, 3.0),
    "log1p": (-0.9, -0.2, 1e-4, 0.6, 5.0),
    "erfc": (-2.0, -0.4, 0.3, 1.1, 3.5),
    "asinh": (-4.0, -0.5, 0.2, 1.3, 7.0),
    "acosh": (1.05, 1.5, 2.0, 4.0, 9.0),
    "atanh": (-0.95, -0.4, 0.1, 0.5, 0.9),
}


def exact(name: str, x0: float, order: int = 6) -> list[float]:
    """sympy's derivatives 0..order at x0, evaluated to 40 digits."""
    x = sp.Symbol("x", real=True)
    expr = to_sympy(parse(f"{name}(x)").tree)
    return [
        float(sp.diff(expr, x, k).evalf(40, subs={x: sp.Float(x0, 40)})) for k in range(order + 1)
    ]


def test_every_new_name_is_in_the_language() -> None:
    assert set(NEW) <= set(FUNCTIONS)


@pytest.mark.parametrize("name", sorted(NEW))
def test_every_method_gives_sympys_derivatives_to_order_6(name: str) -> None:
    fn, xs = parse(f"{name}(x)"), np.array(NEW[name])
    want = np.array([exact(name, x0) for x0 in xs]).T  # (7, points)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        for route in ("taylor", "reverse", "jvp", "forward_ad"):
            got = np.array([forward_derivative(fn, xs, k, route) for k in range(7)])
            np.testing.assert_allclose(got, want, rtol=1e-10, atol=0, err_msg=f"{name} {route}")


@pytest.mark.parametrize("name", sorted(NEW))
def test_taylor_mode_matches_nested_autograd_to_1e_12(name: str) -> None:
    fn, xs = parse(f"{name}(x)"), np.array(NEW[name])
    taylor = derivatives(fn, xs, 8, method="taylor").values
    autograd = derivatives(fn, xs, 8, method="autograd").values
    np.testing.assert_allclose(taylor, autograd, rtol=1e-12, atol=0)


@pytest.mark.parametrize("name", sorted(NEW))
def test_gradcheck_and_gradgradcheck(name: str) -> None:
    fn = parse(f"{name}(x)")
    x = torch.tensor(NEW[name], dtype=torch.float64, requires_grad=True)

    def f(x: torch.Tensor) -> torch.Tensor:
        return fn.torch({"x": x})

    assert torch.autograd.gradcheck(f, (x,))
    assert torch.autograd.gradgradcheck(f, (x,))


@pytest.mark.parametrize("name", sorted(NEW))
def test_each_backend_writes_it(name: str) -> None:
    fn = parse(f"{name}(x)")
    assert torch_source(fn) == f"torch.{name}(x)"
    assert cpp_source(fn) == f"torch::{name}(x)"  # LibTorch has every one under its name
    assert rf"\operatorname{{{name}}}" in to_latex(fn.tree)
    x0 = NEW[name][2]
    assert parse(f"{name}({x0!r})").tree.const == pytest.approx(exact(name, x0, 0)[0], rel=1e-15)


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("log1p(-2)", "log1p needs an argument greater than -1, got -2"),
        ("acosh(0.5)", "acosh needs an argument of at least 1, got 0.5"),
        ("atanh(1)", "atanh needs an argument strictly between -1 and 1, got 1"),
    ],
)
def test_constants_outside_the_domain_are_refused(text: str, pattern: str) -> None:
    with raises(ExpressionError, match=pattern):
        parse(text)


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("sign(x)", r"sign\(\) at column 1 is not in the language: it is a step"),
        ("2*floor(x)", r"floor\(\) at column 3 is not in the language: it is a step"),
        # torch.clamp(x, a, b) takes three: the message must not say two
        ("clamp(x)", r"more than one argument.*a \+ relu\(x - a\) - relu\(x - b\) where a <= b"),
        ("max(x)", r"more than one argument.*max\(x, y\) = y \+ relu\(x - y\)"),
        ("atan2(y)", r"atan2\(y, x\) = atan\(y/x\) where x > 0"),
        ("logsigmoid(x)", r"write logsigmoid\(x\) = -softplus\(-x\)"),
        ("bessel_j0(x)", r"PyTorch computes its values but has no derivative"),
        ("mvlgamma(x)", r"more than one argument.*mvlgamma\(x, p\) = p\*\(p - 1\)/4\*log\(pi\)"),
    ],
)
def test_names_left_out_say_why_and_what_to_write(text: str, pattern: str) -> None:
    with raises(ExpressionError, match=pattern + ".*Known functions: sin, cos"):
        parse(text)


def test_every_rewrite_suggested_is_in_the_language_and_right() -> None:
    # each fix names only functions of the language, and equals what it replaces
    x = torch.linspace(0.2, 0.9, 8, dtype=torch.float64)
    checks = {
        "log2": ("log(x)/log(2)", torch.log2),
        "log10": ("log(x)/log(10)", torch.log10),
        "exp2": ("2**x", torch.exp2),
        "rsqrt": ("1/sqrt(x)", torch.rsqrt),
        "logsigmoid": ("-softplus(-x)", torch.nn.functional.logsigmoid),
        "silu": ("x*sigmoid(x)", torch.nn.functional.silu),
        "gelu": ("x*(1 + erf(x/sqrt(2)))/2", torch.nn.functional.gelu),
        "sinc": ("sin(pi*x)/(pi*x)", torch.sinc),
        "logit": ("log(x/(1 - x))", torch.logit),
    }
    for name, (text, torch_fn) in checks.items():
        assert text in EXCLUDED[name][1], name
        got = parse(text).torch({"x": x})
        torch.testing.assert_close(got, torch_fn(x), rtol=1e-14, atol=1e-15, msg=name)


def test_every_rewrite_of_a_several_argument_function_equals_torchs() -> None:
    """The fixes suggested for clamp, max, min, atan2 and hypot, under their stated
    conditions, against torch's own functions."""
    x = torch.linspace(-2, 2, 41, dtype=torch.float64)
    y = torch.linspace(1.5, -1.3, 41, dtype=torch.float64)
    at = {"x": x, "y": y}
    checks = {
        "clamp": ("-0.5 + relu(x + 0.5) - relu(x - 0.7)", torch.clamp(x, -0.5, 0.7)),
        "max": ("y + relu(x - y)", torch.maximum(x, y)),
        "min": ("x - relu(x - y)", torch.minimum(x, y)),
        "hypot": ("sqrt(x^2 + y^2)", torch.hypot(x, y)),
    }
    for name, (text, want) in checks.items():
        got = parse(text, ("x", "y")).torch(at)
        torch.testing.assert_close(got, want, rtol=1e-14, atol=1e-15, msg=name)
    right = x > 0  # atan2(y, x) = atan(y/x) where x > 0
    got = parse("atan(y/x)", ("x", "y")).torch(at)[right]
    torch.testing.assert_close(got, torch.atan2(y, x)[right], rtol=1e-14, atol=1e-15)
    assert EXCLUDED["clamp"][1].endswith("where a <= b")


#: Smooth unary functions torch has (PyTorch's OpInfo unary ops with second-derivative tests)
#: that the language leaves out: each gets its own message, and the rewrite it suggests, if any,
#: equals torch's function on a grid inside its stated domain.
OPINFO_REWRITES = {
    "expit": ("sigmoid(x)", torch.special.expit),
    "ndtr": ("erfc(-x/sqrt(2))/2", torch.special.ndtr),
    "log_ndtr": ("log(erfc(-x/sqrt(2))/2)", torch.special.log_ndtr),
    "erfcx": ("exp(x^2)*erfc(x)", torch.special.erfcx),
    "deg2rad": ("x*pi/180", torch.deg2rad),
    "rad2deg": ("x*180/pi", torch.rad2deg),
    "entr": ("-x*log(x)", torch.special.entr),  # where x > 0
    "ndtri": ("sqrt(2)*erfinv(2*x - 1)", torch.special.ndtri),  # where 0 < x < 1
    "i0e": ("exp(-abs(x))*i0(x)", torch.special.i0e),
    "i1e": ("exp(-abs(x))*i1(x)", torch.special.i1e),
    "gamma": ("exp(lgamma(x))", lambda x: torch.exp(torch.lgamma(x))),  # where x > 0
}
#: OpInfo names PyTorch has no derivative for: the message says so, and torch agrees.
OPINFO_NO_GRAD = ("bessel_j0", "bessel_j1")
#: OpInfo names now in the language (issue 46, item 9), each as torch calls it.
OPINFO_AGREE = {
    "lgamma(x)": torch.lgamma,
    "digamma(x)": torch.digamma,
    "polygamma(2, x)": lambda x: torch.polygamma(2, x),
    "erfinv(x/3)": lambda x: torch.erfinv(x / 3),
    "i0(x)": torch.i0,
    "i1(x)": torch.special.i1,
}


def test_opinfo_functions_left_out_say_why_and_their_rewrites_equal_torchs() -> None:
    x = torch.linspace(0.1, 2.5, 25, dtype=torch.float64)
    unit = torch.linspace(0.05, 0.95, 19, dtype=torch.float64)  # ndtri's domain is (0, 1)
    for name, (text, torch_fn) in OPINFO_REWRITES.items():
        at = unit if name == "ndtri" else x
        with raises(ExpressionError, match=rf"{name}\(\) at column 1 is not in the language"):
            parse(f"{name}(x)")
        assert text in EXCLUDED[name][1], name
        got = parse(text).torch({"x": at})
        torch.testing.assert_close(got, torch_fn(at), rtol=1e-13, atol=1e-15, msg=name)
    for name in OPINFO_NO_GRAD:
        with raises(ExpressionError, match=rf"{name}\(\) .*has no derivative for it"):
            parse(f"{name}(x)")
        leaf = x.clone().requires_grad_()
        assert not getattr(torch.special, name)(leaf).requires_grad  # PyTorch's own verdict
    # mvlgamma(x, p): the sum of lgammas the message writes out, for p = 1..4
    for p in range(1, 5):
        terms = " + ".join(f"lgamma(x - {j}/2)" for j in range(p))
        text = f"{p}*{p - 1}/4*log(pi) + {terms}"
        got = parse(text).torch({"x": x + 2})
        torch.testing.assert_close(got, torch.mvlgamma(x + 2, p=p), rtol=1e-13, atol=1e-13)
    for text, torch_fn in OPINFO_AGREE.items():
        got = parse(text).torch({"x": x})
        torch.testing.assert_close(got, torch_fn(x), rtol=0, atol=0, msg=text)


@pytest.mark.parametrize("name", ["frac", "fmod", "remainder"])
def test_a_sawtooth_is_refused_with_its_line_checked_against_torch(name: str) -> None:
    """frac, fmod and remainder are x minus a step: the message says slope 1 between jumps and
    names the line to type there, under its condition; torch's values on both sides of the
    jumps equal that line, its autograd slope is 1 and its second derivative 0."""
    with raises(ExpressionError, match=rf"{name}\(\) at column 1 .*x minus a step.*slope 1"):
        parse(f"{name}(x)")
    x = torch.linspace(0.05, 6.95, 70, dtype=torch.float64, requires_grad=True)
    m = 1.0 if name == "frac" else 0.75  # the divisor, m > 0
    call = {
        "frac": torch.frac,
        "fmod": lambda v: torch.fmod(v, m),
        "remainder": lambda v: torch.remainder(v, m),
    }[name]
    n = torch.floor(x.detach() / m)  # n*m <= x < (n + 1)*m, x >= 0: the fix's condition
    torch.testing.assert_close(call(x).detach(), x.detach() - n * m, rtol=0, atol=1e-12)
    (slope,) = torch.autograd.grad(call(x).sum(), x, create_graph=True)
    assert torch.equal(slope, torch.ones_like(x))
    assert (
        not slope.requires_grad
        or not torch.autograd.grad(slope.sum(), x, allow_unused=True, materialize_grads=True)[
            0
        ].any()
    )
    assert ("n*m" if name != "frac" else "x - n") in EXCLUDED[name][1]
