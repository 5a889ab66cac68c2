"""The Newton lab's compute: every path checked against an independent NumPy implementation of
the same update, with the gradient and Hessian from sympy (not autograd), the trust-region
subproblem against a brute-force search over the region's boundary, and torch.func's
derivatives against nested autograd's."""

from __future__ import annotations

import contextlib
import io
import math

import numpy as np
import pytest
import sympy as sp
import torch
from scipy.optimize import brentq, minimize_scalar

from hograd_core import ArgumentError, BudgetError, parse
from hograd_core.language.to_sympy import to_sympy
from hograd_labs.lesson import compute as lesson
from hograd_labs.newton import compute
from hograd_labs.newton.cached import check_config, script, torch_function
from hograd_labs.newton.compute import MAX_RADIUS, NewtonRace, RaceConfig, trust_region_step
from hograd_labs.newton.presets import PRESETS, preset_for, quadratic
from tests.english import raises

SADDLE = "x^2 + y^4/4 - y^2/2"


def race(fn, config: RaceConfig, derivatives_of=compute.derivatives) -> NewtonRace:
    """What the page runs: the checks, then compute.run on the typed function."""
    check_config(fn, config)
    return compute.run(config, f=torch_function(fn), derivatives_of=derivatives_of)


def oracle(text: str):
    """f, ∇f and H as NumPy functions, from sympy's symbolic derivatives."""
    expr = to_sympy(parse(text).tree)
    syms = sorted(expr.free_symbols, key=lambda s: parse(text).variables.index(s.name))
    f = sp.lambdify(syms, expr, "numpy")
    g = sp.lambdify(syms, [sp.diff(expr, s) for s in syms], "numpy")
    h = sp.lambdify(syms, sp.hessian(expr, syms), "numpy")
    return (
        lambda w: float(f(*w)),
        lambda w: np.array(g(*w), dtype=float),
        lambda w: np.array(h(*w), dtype=float),
    )


def circle_search(g: np.ndarray, H: np.ndarray, radius: float) -> np.ndarray:
    """The best point of the circle |p| = radius by brute force (3,600 angles, then refined)."""
    on = lambda t: g @ (q := radius * np.array([math.cos(t), math.sin(t)])) + 0.5 * q @ H @ q
    angles = np.linspace(0, 2 * math.pi, 3600, endpoint=False)
    best = angles[np.argmin([on(t) for t in angles])]
    t = minimize_scalar(
        on, bounds=(best - 0.01, best + 0.01), method="bounded", options={"xatol": 1e-13}
    ).x
    return radius * np.array([math.cos(t), math.sin(t)])


def boundary_step(g: np.ndarray, H: np.ndarray, radius: float) -> np.ndarray:
    """The model's minimiser over |p| ≤ radius from its optimality conditions (More and
    Sorensen): (H + sI) p = −g with s ≥ 0, H + sI positive semi-definite, s (|p| − radius) = 0.
    s is found by Brent's method on |p(s)| = radius, with np.linalg.solve (no eigenbasis)."""
    if np.all(np.linalg.eigvalsh(H) > 0):
        p = -np.linalg.solve(H, g)
        if np.linalg.norm(p) <= radius:
            return p
    low = max(0.0, -np.linalg.eigvalsh(H)[0])
    size = lambda s: np.linalg.norm(np.linalg.solve(H + s * np.eye(2), -g)) - radius
    left, right = low + 1e-9 * (1 + low), low + np.abs(H).sum() + np.linalg.norm(g) / radius
    if size(left) < 0:  # the hard case: not this test's business
        return circle_search(g, H, radius)
    s = brentq(size, left, right, xtol=1e-15, rtol=1e-15)
    return np.linalg.solve(H + s * np.eye(2), -g)


def numpy_path(text: str, config: RaceConfig, method: str) -> np.ndarray:
    """The same update, written again with NumPy and sympy's derivatives."""
    f, grad, hess = oracle(text)
    w = np.array(config.start, dtype=float)
    points, radius = [w], config.radius
    for _ in range(config.steps):
        g, H = grad(w), hess(w)
        if np.linalg.norm(g) <= config.tol:
            break
        if method == "gd":
            w = w - config.lr * g
        elif method == "newton":
            w = w - np.linalg.solve(H, g)
        elif method == "damped":
            w = w - np.linalg.solve(H + config.damping * np.eye(2), g)
        else:
            p = boundary_step(g, H, radius)
            rho = (f(w) - f(w + p)) / -(g @ p + 0.5 * p @ H @ p)
            if rho < 0.25:
                radius *= 0.25
            elif rho > 0.75 and np.linalg.norm(p) >= 0.99 * radius:
                radius = min(2 * radius, MAX_RADIUS)
            w = w + p if rho > 0.1 else w
        points.append(w)
    return np.array(points)


@pytest.mark.parametrize("kappa", [1, 10, 1000])
@pytest.mark.parametrize("start", [(2.0, 1.0), (-3.0, 0.5), (0.1, -7.0)])
def test_newton_reaches_a_quadratics_minimum_in_one_step(kappa: float, start: tuple) -> None:
    r = race(parse(quadratic(kappa)), RaceConfig(start=start, methods=("newton",), steps=5))
    path = r.paths[0]
    np.testing.assert_allclose(path.points[1], [0.0, 0.0], atol=1e-12)
    assert path.converged_at == 1 and path.end_kind == "minimum"


def test_one_step_also_on_a_quadratic_with_a_linear_part() -> None:
    # f = 3x² + 2xy + y² − x + 4y: H = [[6, 2], [2, 2]], minimum where H w = (1, −4)
    text = "3*x^2 + 2*x*y + y^2 - x + 4*y"
    r = race(parse(text), RaceConfig(start=(5.0, -2.0), methods=("newton",), steps=3))
    np.testing.assert_allclose(
        r.paths[0].points[1], np.linalg.solve([[6, 2], [2, 2]], [1, -4]), atol=1e-12
    )


CASES = [(text, p, m) for text, p in PRESETS.items() for m in ("gd", "newton", "damped", "trust")]


@pytest.mark.parametrize(("text", "preset", "method"), CASES)
def test_every_path_equals_a_numpy_implementation(text: str, preset, method: str) -> None:
    config = RaceConfig(
        start=preset.start,
        steps=min(preset.steps, 60),
        lr=preset.lr,
        damping=0.5,
        radius=0.5,
        methods=(method,),
    )
    path = race(parse(text), config).paths[0]
    assert path.status in ("converged", "steps")
    expected = numpy_path(text, config, method)
    if (text, method) == ("w1**2*sin(w2)", "trust"):
        # From step 8 on, ∇f is nearly orthogonal to H's lowest eigenvector on the flat valley
        # w1 = 0 (the "hard case"): the step on the boundary then changes by far more than the
        # rounding of either side, and the two paths part. Compare the well-posed part.
        path_points, expected = path.points[:8], expected[:8]
    else:
        path_points = path.points
    assert path_points.shape == expected.shape
    np.testing.assert_allclose(path_points, expected, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("seed", range(6))
def test_trust_region_step_is_the_models_minimiser(seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(2, 2))
    H = (a + a.T) / 2 * 3  # indefinite for some seeds, definite for others
    g = rng.normal(size=2)
    for radius in (0.1, 1.0, 5.0):
        p = trust_region_step(torch.tensor(g), torch.tensor(H), radius).numpy()
        expected = circle_search(g, H, radius)
        np.testing.assert_allclose(p, boundary_step(g, H, radius), atol=1e-9)
        assert np.linalg.norm(p) <= radius * (1 + 1e-12)
        model = lambda q: g @ q + 0.5 * q @ H @ q
        assert model(p) <= model(expected) + 1e-10


def test_the_hard_case_leaves_a_saddle_along_negative_curvature() -> None:
    H = torch.tensor([[2.0, 0.0], [0.0, -1.0]], dtype=torch.float64)
    p = trust_region_step(torch.zeros(2, dtype=torch.float64), H, 0.5)  # at the saddle: g = 0
    assert abs(float(p[0])) < 1e-15 and abs(float(p[1])) == pytest.approx(0.5, abs=1e-15)


def test_pure_newton_goes_to_the_saddle_and_the_repairs_do_not() -> None:
    p = PRESETS[SADDLE]
    config = RaceConfig(
        start=p.start,
        steps=100,
        lr=p.lr,
        damping=1.0,
        radius=0.5,
        methods=("gd", "newton", "damped", "trust"),
    )
    ends = {q.method: q for q in race(parse(SADDLE), config).paths}
    # the stationary points of x² + y⁴/4 − y²/2: a saddle at (0, 0), minima at (0, ±1)
    np.testing.assert_allclose(ends["newton"].points[-1], [0.0, 0.0], atol=1e-8)
    assert ends["newton"].end_kind == "saddle" and ends["newton"].status == "converged"
    np.testing.assert_allclose(ends["newton"].end_eigenvalues, [-1.0, 2.0], atol=1e-6)
    for method in ("gd", "damped", "trust"):
        np.testing.assert_allclose(ends[method].points[-1], [0.0, 1.0], atol=1e-6)
        assert ends[method].end_kind == "minimum"
        assert ends[method].values[-1] == pytest.approx(p.minimum, abs=1e-12)


@pytest.mark.parametrize("kappa", [10, 100])
def test_gradient_descent_over_two_over_lambda_diverges_and_stops_cleanly(kappa: float) -> None:
    lr = 2 / kappa * 1.05  # λ_max = κ
    r = race(
        parse(quadratic(kappa)), RaceConfig(start=(2.0, 1.0), lr=lr, steps=500, methods=("gd",))
    )
    path = r.paths[0]
    assert path.status == "diverged"
    assert np.all(np.isfinite(path.points)) and np.all(np.abs(path.points) <= 1e6)
    assert len(path.points) < 501 and path.stopped_at == len(path.points)


def test_a_start_where_f_is_undefined_stops_at_step_0() -> None:
    path = race(parse("log(x) + y^2"), RaceConfig(start=(-1.0, 1.0), methods=("gd",))).paths[0]
    assert path.status == "diverged" and path.stopped_at == 0 and len(path.points) == 1


def test_a_path_that_runs_out_of_steps_is_not_classified() -> None:
    p = PRESETS["(1 - x)^2 + 100*(y - x^2)^2"]
    r = race(
        parse("(1 - x)^2 + 100*(y - x^2)^2"),
        RaceConfig(start=p.start, lr=p.lr, steps=50, methods=("gd",)),
    )
    assert r.paths[0].status == "steps" and r.paths[0].end_kind == "not_critical"
    assert r.paths[0].stopped_at == 50


def test_a_singular_hessian_stops_pure_newton() -> None:
    r = race(parse("x^2 + y"), RaceConfig(start=(1.0, 1.0), methods=("newton", "damped")))
    ends = {q.method: q for q in r.paths}
    assert ends["newton"].status == "singular" and len(ends["newton"].points) == 1
    assert ends["damped"].status != "singular"  # H + λI is invertible


def test_costs_are_measured_side_by_side() -> None:
    r = race(parse(quadratic(10)), RaceConfig(start=(2.0, 1.0)))
    assert r.gd_step_seconds > 0 and r.newton_step_seconds > 0
    assert 0 < r.gd_saved_bytes < r.newton_saved_bytes  # H needs the gradient's graph kept
    assert preset_for(quadratic(10)).minimum == 0.0 and preset_for("x*y") is None


@pytest.mark.parametrize("text", [*PRESETS, "x + y", "x^2 + y"])
def test_torch_func_derivatives_take_the_same_paths(text: str) -> None:
    """grad(f) and hessian(f) against nested torch.autograd.grad: the same paths to rounding."""
    config = RaceConfig(
        start=(0.5, 0.7), steps=30, lr=0.01, methods=("gd", "newton", "damped", "trust")
    )
    plain = race(parse(text), config)
    func = race(parse(text), config, derivatives_of=compute.derivatives_func)
    for a, b in zip(plain.paths, func.paths, strict=True):
        assert (a.method, a.status, a.converged_at) == (b.method, b.status, b.converged_at)
        np.testing.assert_allclose(b.points, a.points, rtol=1e-9, atol=1e-12)


def test_the_lessons_newton_answer_is_this_race() -> None:
    """The lesson (a lab, which may not import another) counts Newton's steps on the κ = 10
    quadratic itself: the same count as this lab's race from the preset the lesson names."""
    preset = preset_for(lesson.NEWTON)
    assert (preset.start, preset.steps) == (lesson.NEWTON_START, lesson.NEWTON_STEPS)
    config = RaceConfig(preset.start, preset.steps, preset.lr, methods=("newton",))
    assert race(parse(lesson.NEWTON), config).paths[0].converged_at == lesson._newton_steps()


@pytest.mark.parametrize(
    ("text", "config", "error", "match"),
    [
        ("x^2", RaceConfig(), ArgumentError, "two variables"),
        ("x^2+y^2", RaceConfig(steps=501), BudgetError, "steps: expected 1 to 500"),
        ("x^2+y^2", RaceConfig(lr=0.0), ArgumentError, "lr: expected"),
        ("x^2+y^2", RaceConfig(lr=math.nan), ArgumentError, "lr: expected"),
        ("x^2+y^2", RaceConfig(start=(1e3, 0.0)), BudgetError, "start: expected"),
        ("x^2+y^2", RaceConfig(methods=("bfgs",)), ArgumentError, "bfgs"),
    ],
)
def test_refusals_come_before_any_work(text, config, error, match) -> None:
    with raises(error, match=match):
        check_config(parse(text), config)


def test_the_download_uses_safe_names_for_any_variables() -> None:
    """Variables called ``torch`` and ``w`` would hide the module and the point in ``f``."""
    code = script(parse("torch^2 + w^2"), RaceConfig(start=(1.0, 1.0), methods=("newton",)))
    assert "    x, y = w[0], w[1]\n    return (x ** 2) + (y ** 2)\n" in code.source
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code.source, "<download>", "exec"), {"__name__": "__main__"})
    row = out.getvalue().split()
    assert row[:3] == ["newton", "converged", "1"] and float(row[5]) == pytest.approx(0, abs=1e-20)


def test_a_linear_function_makes_newton_singular_not_a_crash() -> None:
    """f = x + y: H is the zero matrix, whose condition number torch gives as NaN; Newton must
    report "singular" at step 0 (torch.linalg.solve would raise on it)."""
    r = race(parse("x + y"), RaceConfig(start=(0.5, 0.5), steps=5, methods=("gd", "newton")))
    paths = {p.method: p for p in r.paths}
    assert paths["newton"].status == "singular" and len(paths["newton"].points) == 1
    step = 5 * r.config.lr  # gradient (1, 1) each step
    assert paths["gd"].points[-1] == pytest.approx((0.5 - step, 0.5 - step), rel=1e-12)
