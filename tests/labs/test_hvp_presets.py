"""The HVP page's presets (hograd_labs/hvp/presets.py): every claim about where each is shown
checked against sympy's Hessian and gradient, and the quadratics' eigenvalues against their closed
form."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from hograd_core import hvp, parse
from hograd_core.language.to_sympy import to_sympy
from hograd_labs.hvp.presets import KAPPAS, PRESETS, Example, example, quadratic


def sympy_at(text: str, point: tuple[float, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The gradient and Hessian of ``text`` at ``point`` by sympy (the oracle)."""
    fn = parse(text)
    symbols = [sp.Symbol(name, real=True) for name in fn.variables]
    expr = to_sympy(fn.tree)
    subs = dict(zip(symbols, point, strict=True))
    grad = np.array([float(sp.diff(expr, a).subs(subs)) for a in symbols])
    hess = np.array([[float(sp.diff(expr, a, b).subs(subs)) for b in symbols] for a in symbols])
    return grad, hess


def test_the_presets_are_where_their_claims_say() -> None:
    seed = PRESETS["w1**2*sin(w2)"]
    grad, hess = sympy_at("w1**2*sin(w2)", seed.point)
    np.testing.assert_allclose(grad, [2.0, 0.0], atol=1e-12)  # not a critical point
    np.testing.assert_allclose(hess @ seed.vector, [1.0, -1.0], atol=1e-12)

    rosen = PRESETS["(1 - x)^2 + 100*(y - x^2)^2"]
    grad, hess = sympy_at("(1 - x)^2 + 100*(y - x^2)^2", rosen.point)
    np.testing.assert_allclose(grad, [0.0, 0.0], atol=0)  # the minimum, exactly
    np.testing.assert_allclose(np.linalg.eigvalsh(hess), [0.4, 1002], rtol=0.01)

    grad, hess = sympy_at("x^2 - y^2", PRESETS["x^2 - y^2"].point)
    assert list(grad) == [0, 0] and list(np.linalg.eigvalsh(hess)) == [-2.0, 2.0]

    grad, hess = sympy_at("x^4 + y^4", PRESETS["x^4 + y^4"].point)
    assert not grad.any() and not hess.any()  # H = 0: the test is inconclusive
    xs = np.linspace(-1, 1, 41)  # yet it is a minimum: f > f(0) everywhere else nearby
    assert all(x**4 + y**4 > 0 for x in xs for y in xs if (x, y) != (0, 0))


@pytest.mark.parametrize("kappa", KAPPAS)
def test_quadratics_have_eigenvalues_one_and_kappa(kappa: int) -> None:
    where = example(quadratic(kappa), 2)
    grad, hess = sympy_at(quadratic(kappa), where.point)
    assert not grad.any()
    lam, vecs = np.linalg.eigh(hess)
    np.testing.assert_allclose(sorted([1.0, kappa]), lam, rtol=1e-12)
    r = hvp(parse(quadratic(kappa)), where.point, where.vector)
    np.testing.assert_allclose(r.hessian, hess, rtol=1e-12, atol=1e-12)
    if kappa != 1:  # 1 along (1, 1), κ along (1, -1)
        one, big = (0, 1) if kappa > 1 else (1, 0)
        assert abs(vecs[:, one] @ [1, 1]) == pytest.approx(math.sqrt(2))
        assert abs(vecs[:, big] @ [1, -1]) == pytest.approx(math.sqrt(2))


def test_every_preset_fits_its_function_and_the_sliders() -> None:
    for text, where in PRESETS.items():
        n = len(parse(text).variables)
        assert len(where.point) == len(where.vector) == n
        assert all(abs(x) <= 3 for x in where.point) and all(abs(x) <= 2 for x in where.vector)
        assert 0.25 <= where.radius <= 5
        assert example(text, n) is where
    assert quadratic(10) in PRESETS  # the κ builder's default is one of the presets


def test_other_functions_get_ones() -> None:
    assert example("x*y*z", 3) == Example((1.0, 1.0, 1.0), (1.0, 1.0, 1.0), 1.5)
    assert example(quadratic(1000), 2) == Example((0.0, 0.0), (1.0, 0.0), 2.0)
