"""The torch.func forms of the pages' code: generated, run here, and their numbers compared with
the plain torch scripts they sit next to, with the core's (the page's) numbers, and with sympy.
"""

from __future__ import annotations

import ast
import contextlib
import io
import math

import numpy as np
import pytest
import sympy as sp

from hograd_core import derivatives, hvp, parse
from hograd_core.curvature import _load_forward_ad
from hograd_core.func_code import (
    DERIV_COMMENTS,
    HESSIAN_COMMENTS,
    derivatives_func_code,
    hessian_func_code,
)
from hograd_core.hvp_code import hvp_snippet
from hograd_core.inspector import pytorch_snippet
from tests.english import raises


def run(source: str) -> dict:
    """Run a generated script in its own globals, quietly; return its names and what it printed."""
    _load_forward_ad()  # torch's own first-use DeprecationWarning, silenced as the app does
    names: dict = {}
    with contextlib.redirect_stdout(io.StringIO()) as out:
        exec(compile(source, "<generated>", "exec"), names)  # our generated script
    names["printed"] = out.getvalue()
    return names


def printed_values(printed: str) -> list[float]:
    """The "k value" lines both derivative scripts print."""
    return [float(line.split()[1]) for line in printed.splitlines() if line[:1].isdigit()]


DERIV_CASES = [
    ("x**3", 2.0, 4),  # 8, 12, 12, 6, 0
    ("tanh(x)", 0.3, 6),
    ("sin(x)*exp(-x^2)", -0.7, 5),
    ("1/(1+x^2)", 0.25, 4),
    ("softplus(t) + 2^t", 0.4, 3),  # another name, torch.pow with a constant base
    ("2*x", 1.5, 3),  # f' has no grad_fn: the plain script's shortcut, torch.func's zeros
    ("3", 1.0, 2),  # no variable at all
    ("f^2 + sin(f)", 0.5, 3),  # "f" is the script's own name: the variable becomes x
    ("erfinv(x/3)*i0(x) + polygamma(3, x) + digamma(x + 2)", 1.3, 4),  # issue 46, item 9
]


@pytest.mark.parametrize(("text", "x0", "order"), DERIV_CASES)
def test_grad_of_grad_gives_the_plain_scripts_numbers(text: str, x0: float, order: int) -> None:
    fn = parse(text)
    plain = printed_values(run(pytorch_snippet(fn, x0, order))["printed"])
    func = printed_values(run(derivatives_func_code(fn, x0, order))["printed"])
    assert len(plain) == len(func) == order + 1
    np.testing.assert_allclose(func, plain, rtol=1e-12, atol=1e-12)
    page = derivatives(fn, [x0], order, method="taylor").values[:, 0]
    np.testing.assert_allclose(func, page, rtol=1e-11, atol=1e-11)


def test_x_cubed_by_composition_is_the_closed_form() -> None:
    func = printed_values(run(derivatives_func_code(parse("x**3"), 2.0, 4))["printed"])
    assert func == [8.0, 12.0, 12.0, 6.0, 0.0]


@pytest.mark.parametrize("text", ["tanh(x)", "sin(x)*exp(-x^2)", "log(1+x^2)", "x**3"])
def test_vmap_over_the_grid_gives_the_page_curves_and_sympy(text: str) -> None:
    fn = parse(text)
    low, high, points, order = -2.0, 1.5, 41, 4
    names = run(derivatives_func_code(fn, 0.1, order, grid=(low, high, points)))
    curves = names["curves"].numpy()
    xs = np.linspace(low, high, points)
    assert curves.shape == (order + 1, points)
    np.testing.assert_allclose(names["xs"].numpy(), xs, rtol=0, atol=1e-15)
    page = derivatives(fn, xs, order, method="taylor").values
    np.testing.assert_allclose(curves, page, rtol=1e-10, atol=1e-10)
    x = sp.Symbol("x")
    expr = sp.sympify(text.replace("^", "**"))
    for k in range(order + 1):
        exact = sp.lambdify(x, sp.diff(expr, x, k), "numpy")(xs) * np.ones_like(xs)
        np.testing.assert_allclose(curves[k], exact, rtol=1e-10, atol=1e-10)


def test_comments_are_written_as_comments() -> None:
    notes = {key: f"note {key}\nsecond line" for key in DERIV_COMMENTS}
    source = derivatives_func_code(parse("sin(x)"), 0.0, 2, grid=(-1, 1, 5), comments=notes)
    for key in DERIV_COMMENTS:
        assert f"# note {key}\n" in source
    assert source.count("# second line") == len(DERIV_COMMENTS)
    run(source)  # still runs


HESSIAN_CASES = [
    ("w1**2*sin(w2)", (1.0, math.pi / 2), (0.5, 1.0)),
    ("(1 - x)^2 + 100*(y - x^2)^2", (-0.7, 0.3), (1.0, 0.0)),
    ("x + 2*y", (0.3, 0.4), (1.0, 1.0)),  # ∇f constant: H = 0 and Hv = 0
    ("torch*v + as^2", (1.0, 2.0, 3.0), (0.5, -1.0, 2.0)),  # the script's own names
    ("sqrt(2)*x^3", (1.5,), (2.0,)),
    ("softplus(a - b)*tanh(c) + 2^a", (0.2, -0.4, 1.1), (1.0, -2.0, 0.5)),
]


@pytest.mark.parametrize(("text", "point", "vector"), HESSIAN_CASES)
def test_hessian_jacfwd_jacrev_and_vmap_agree_with_the_page(
    text: str, point: tuple, vector: tuple
) -> None:
    fn = parse(text)
    page = hvp(fn, point, vector)
    names = run(hessian_func_code(fn, point, vector))
    for key in ("H", "H2", "H3"):  # hessian, jacfwd(jacrev), vmap of jvp(grad) over e_i
        np.testing.assert_allclose(names[key].numpy(), page.hessian, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(names["g"].numpy(), page.gradient, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(names["hv"].numpy(), page.hvp, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(
        names["eigenvalues"].numpy(), page.eigenvalues, rtol=1e-12, atol=1e-12
    )
    plain = run(hvp_snippet(fn, point, vector))["printed"].splitlines()  # the script beside it
    hv = ast.literal_eval(plain[1].removeprefix("Hv ").split("] ")[0] + "]")  # double backward
    np.testing.assert_allclose(names["hv"].numpy(), hv, atol=1e-12)
    # each eigenvector: H u = λ u, unit length (its sign is free)
    vectors, lam = names["eigenvectors"].numpy(), names["eigenvalues"].numpy()
    np.testing.assert_allclose(page.hessian @ vectors, vectors * lam, atol=1e-10)


def test_the_hessian_is_sympys() -> None:
    x, y = sp.symbols("x y")
    expr = sp.exp(x * y) + x**3 * sp.sin(y)
    point = (0.3, -1.2)
    exact = np.array(
        sp.hessian(expr, (x, y)).subs({x: point[0], y: point[1]}).evalf(), dtype=np.float64
    )
    names = run(hessian_func_code(parse("exp(x*y) + x^3*sin(y)"), point, (1.0, 0.0)))
    np.testing.assert_allclose(names["H"].numpy(), exact, rtol=1e-13)
    np.testing.assert_allclose(names["hv"].numpy(), exact[:, 0], rtol=1e-13)


def test_hessian_comments_and_bad_input() -> None:
    notes = {key: f"about {key}" for key in HESSIAN_COMMENTS}
    source = hessian_func_code(parse("x*y"), (1, 2), (0, 1), notes)
    assert all(f"# about {key}\n" in source for key in HESSIAN_COMMENTS)
    from hograd_core import BudgetError

    with raises(BudgetError, match="point"):
        hessian_func_code(parse("x*y"), (1,), (0, 1))
