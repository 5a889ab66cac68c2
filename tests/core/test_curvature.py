"""Hv three ways, the second-derivative test, power iteration, slices and the contour grid,
checked against closed forms and plain numpy on hand-written Hessians."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hograd_core import ArgumentError, BudgetError, HogradError, parse
from hograd_core.curvature import (
    METHODS,
    explore,
    grid,
    hvp_three_ways,
    power_iteration,
    slices,
    verdict,
)
from hograd_core.hessian import hvp
from tests.english import raises


def quadratic(kappa: float) -> str:
    return f"((x+y)^2 + {kappa:g}*(y-x)^2)/4"  # eigenvalues 1 along (1,1), κ along (1,-1)


@pytest.mark.parametrize(
    ("text", "point", "vector", "expected"),
    [
        ("w1**2*sin(w2)", [1.0, math.pi / 2], [0.5, 1.0], [1.0, -1.0]),
        ("x^2*y + y^3", [1.0, 2.0], [1.0, -1.0], [4 - 2, 2 - 12]),  # H = [[2y, 2x], [2x, 6y]]
        ("x + 2*y", [0.3, 0.4], [1.0, 1.0], [0.0, 0.0]),  # linear: H = 0, ∇f has no graph
        ("a*b*c", [1.0, 2.0, 3.0], [1.0, 0.0, 0.0], [0.0, 3.0, 2.0]),
    ],  # H = [[0,c,b],[c,0,a],[b,a,0]]
)
def test_three_ways_agree_with_closed_form(text: str, point, vector, expected) -> None:
    ways = hvp_three_ways(parse(text), point, vector, repeats=3)
    assert ways.values.shape == (len(METHODS), len(point))
    for row in ways.values:
        np.testing.assert_allclose(row, expected, atol=1e-12)
    np.testing.assert_allclose(ways.reference, expected, atol=1e-12)
    assert np.all(ways.max_error <= 1e-12)
    assert np.all(ways.seconds > 0) and ways.repeats == 3


@pytest.mark.parametrize("repeats", [0, 51])
def test_three_ways_repeats_are_bounded(repeats: int) -> None:
    with raises(HogradError, match=rf"timing repeats: expected 1 to 50, got {repeats}"):
        hvp_three_ways(parse("x*y"), [1, 1], [1, 1], repeats=repeats)


@pytest.mark.parametrize(
    ("text", "point", "kind", "reason", "minors"),
    [
        ("x^2 + 3*y^2", [0, 0], "minimum", "positive_definite", (2.0, 12.0)),
        ("-x^2 - y^2 + x*y", [0, 0], "maximum", "negative_definite", (-2.0, 3.0)),
        ("w1**2*sin(w2)", [1, math.pi / 2], "saddle", "indefinite", (2.0, -2.0)),
        ("x^4 + y^2", [0, 0], "degenerate", "zero_eigenvalue", (0.0, 0.0)),
        ("sqrt(x) + y^2", [0, 1], "degenerate", "not_finite", ()),
    ],
)
def test_verdict_names_the_test(text, point, kind, reason, minors) -> None:
    v = verdict(hvp(parse(text), point, [1.0, 1.0]))
    assert (v.kind, v.reason) == (kind, reason)
    np.testing.assert_allclose(v.minors, minors, atol=1e-12)
    if reason != "not_finite":
        assert v.positive + v.negative + v.zero == 2


def test_power_iteration_matches_numpy_on_the_closed_form_hessian() -> None:
    kappa = 10.0
    p = power_iteration(parse(quadratic(kappa)), [0.2, -0.4], [1.0, 0.0], steps=12)
    h = np.array([[(1 + kappa) / 2, (1 - kappa) / 2], [(1 - kappa) / 2, (1 + kappa) / 2]])
    u = np.array([1.0, 0.0])
    for k in range(13):  # the textbook iteration, with numpy and the hand-written H
        np.testing.assert_allclose(p.iterates[k], u, atol=1e-12)
        assert p.rayleigh[k] == pytest.approx(u @ h @ u, abs=1e-12)
        u = h @ u / np.linalg.norm(h @ u)
    assert p.target == pytest.approx(kappa) and p.ratio == pytest.approx(1 / kappa)
    assert p.status == "ok" and p.converged_at is not None and p.converged_at <= 6
    # The Rayleigh quotient's error shrinks by about ratio² per step on a symmetric matrix
    # (once the first step has left the 45° start behind).
    errors = np.abs(p.rayleigh[:5] - kappa)
    np.testing.assert_allclose(errors[2:] / errors[1:-1], (1 / kappa) ** 2, rtol=0.02)
    assert p.alignment[-1] == pytest.approx(1.0, abs=1e-12)


def test_power_iteration_on_the_seed_converges_to_two() -> None:
    p = power_iteration(parse("w1**2*sin(w2)"), [1.0, math.pi / 2], [0.5, 1.0], steps=40)
    assert p.target == pytest.approx(2.0) and p.ratio == pytest.approx(0.5)
    assert p.rayleigh[-1] == pytest.approx(2.0, abs=1e-10)
    assert p.rayleigh[0] == pytest.approx(-0.4, abs=1e-12)


def test_power_iteration_cannot_choose_on_a_symmetric_saddle() -> None:
    p = power_iteration(parse("x^2 - y^2"), [0, 0], [1.0, 0.5], steps=10)
    assert p.ratio == pytest.approx(1.0) and p.converged_at is None
    assert p.tie == "opposite" and p.target == 2.0  # λ₂ = −λ₁; of ±2, the positive is named
    np.testing.assert_allclose(p.rayleigh, 1.2, atol=1e-12)  # (2·1 - 2·0.25) / 1.25, forever
    # u alternates between (1, 0.5) and (1, -0.5), normalised
    np.testing.assert_allclose(p.iterates[::2], np.tile([1, 0.5], (6, 1)) / math.sqrt(1.25))
    np.testing.assert_allclose(p.iterates[1::2], np.tile([1, -0.5], (5, 1)) / math.sqrt(1.25))


def test_power_iteration_rates_on_kappa_two() -> None:
    """On H with eigenvalues 1 and 2, u_k's angle to e₁ shrinks by |λ₂/λ₁| = 0.5 per step and,
    H being symmetric, the Rayleigh quotient's error by its square, 0.25: measured on the
    iterates themselves, against the rates the result reports."""
    p = power_iteration(parse(quadratic(2)), [0.0, 0.0], [1.0, 0.0], steps=30)
    assert p.target == pytest.approx(2.0) and p.tie is None and not p.orthogonal
    assert p.direction_rate == pytest.approx(0.5) and p.value_rate == pytest.approx(0.25)
    e1, e2 = np.array([1.0, -1.0]) / math.sqrt(2), np.array([1.0, 1.0]) / math.sqrt(2)
    tangent = np.abs(p.iterates @ e2) / np.abs(p.iterates @ e1)  # tan of the angle to e₁
    np.testing.assert_allclose(tangent[1:15] / tangent[:14], 0.5, rtol=1e-9)
    error = np.abs(p.rayleigh - 2.0)
    np.testing.assert_allclose(error[6:13] / error[5:12], 0.25, rtol=0.01)
    assert error[12] / error[11] == pytest.approx(0.25, rel=1e-3)  # and tends to it


def test_a_repeated_eigenvalue_converges_at_once() -> None:
    """κ = 1: H = I, every vector is an eigenvector, so the Rayleigh quotient is λ₁ = 1 from
    step 0, whatever v is (|λ₂| = |λ₁| does not stop power iteration when λ₂ = λ₁)."""
    for v in ([1.0, 0.0], [1.0, 1.0], [-0.3, 2.0]):
        p = power_iteration(parse(quadratic(1)), [0.0, 0.0], v, steps=10)
        assert p.tie == "repeated" and p.multiplicity == 2 and p.ratio == 0.0
        assert p.converged_at == 0
        np.testing.assert_allclose(p.rayleigh, 1.0, rtol=1e-12)
        np.testing.assert_allclose(p.alignment, 1.0, rtol=1e-12)  # u is in λ₁'s eigenspace


def test_a_repeated_top_eigenvalue_with_a_smaller_one() -> None:
    """H = diag(2, 2, 0.5): u converges into the plane of λ₁ = 2, to v's part in it, at the
    rate 0.5 / 2 = 0.25."""
    p = power_iteration(parse("x^2 + y^2 + z^2/4"), [0.0, 0.0, 0.0], [1.0, 2.0, 3.0], steps=30)
    assert p.tie == "repeated" and p.multiplicity == 2 and p.ratio == pytest.approx(0.25)
    np.testing.assert_allclose(p.iterates[-1], np.array([1.0, 2.0, 0.0]) / math.sqrt(5), atol=1e-15)
    assert p.alignment[-1] == pytest.approx(1.0) and p.converged_at is not None


def test_a_start_perpendicular_to_the_top_eigenvector_never_finds_it() -> None:
    """κ = 10 from v = (1, 1), the eigenvector of λ = 1: in exact arithmetic Hu stays on it, so
    the Rayleigh quotient stays at 1, not 10. The result says so."""
    p = power_iteration(parse(quadratic(10)), [0.0, 0.0], [1.0, 1.0], steps=30)
    assert p.orthogonal and p.target == pytest.approx(10.0)
    assert p.alignment[0] == pytest.approx(0.0, abs=1e-12)
    np.testing.assert_allclose(p.rayleigh[:5], 1.0, rtol=1e-9)
    assert not power_iteration(parse(quadratic(10)), [0.0, 0.0], [1.0, 0.9]).orthogonal


def test_the_last_finite_rayleigh_quotient() -> None:
    assert power_iteration(parse(quadratic(10)), [0, 0], [1, 0], steps=7).last == 7
    assert power_iteration(parse("x^4 + y^4"), [0, 0], [1, 1], steps=7).last == 0  # Hu = 0
    assert power_iteration(parse("x^2 + y^2"), [0, 0], [0, 0], steps=7).last == 0  # v = 0


@pytest.mark.parametrize(
    ("text", "point", "vector", "status"),
    [
        ("x^4 + y^4", [0, 0], [1, 1], "hv_zero"),
        ("x^2 + y^2", [0, 0], [0, 0], "zero_start"),
        ("sqrt(x) + y", [0, 1], [1, 1], "not_finite"),
    ],
)
def test_power_iteration_breakdowns(text, point, vector, status) -> None:
    p = power_iteration(parse(text), point, vector, steps=5)
    assert p.status == status
    assert p.converged_at is None or status == "hv_zero"


@pytest.mark.parametrize("steps", [0, 101])
def test_power_iteration_steps_are_bounded(steps: int) -> None:
    cls = BudgetError if steps > 100 else ArgumentError  # over the limit, or not a count
    with raises(cls, match=rf"power iteration steps: expected 1 to 100, got {steps}"):
        power_iteration(parse("x*y"), [1, 1], [1, 0], steps=steps)


def test_slices_follow_f_and_the_quadratic_model() -> None:
    fn = parse("exp(x)*sin(y)")
    p = [0.3, 0.8]
    s = slices(fn, p, radius=0.5, samples=21)
    h = np.array(
        [
            [math.exp(0.3) * math.sin(0.8), math.exp(0.3) * math.cos(0.8)],
            [math.exp(0.3) * math.cos(0.8), -math.exp(0.3) * math.sin(0.8)],
        ]
    )
    lam, vecs = np.linalg.eigh(h)
    np.testing.assert_allclose(s.eigenvalues, lam, atol=1e-12)
    for i in range(2):
        e = s.directions[:, i]
        direct = [math.exp(p[0] + t * e[0]) * math.sin(p[1] + t * e[1]) for t in s.t]
        np.testing.assert_allclose(s.values[i], direct, rtol=1e-13)
        mid = s.t.size // 2
        assert s.t[mid] == 0 and s.model[i, mid] == pytest.approx(s.values[i, mid])
        gap = np.abs(s.values[i] - s.model[i])
        assert np.all(gap <= 0.5 * np.abs(s.t) ** 3 + 1e-15)  # third-order agreement


def test_slices_of_a_quadratic_are_exactly_the_model() -> None:
    s = slices(parse(quadratic(100)), [0.5, -0.2], radius=2.0)
    np.testing.assert_allclose(s.values, s.model, rtol=1e-12, atol=1e-10)
    np.testing.assert_allclose(s.eigenvalues, [1.0, 100.0], atol=1e-10)


def test_grid_evaluates_f_on_the_window() -> None:
    g = grid(parse("x^2 - 3*y + log(x)"), [1.0, 2.0], radius=0.5, points=11)
    assert g.z.shape == (11, 11)
    np.testing.assert_allclose(g.x, np.linspace(0.5, 1.5, 11))
    xs, ys = np.meshgrid(g.x, g.y)
    np.testing.assert_allclose(g.z, xs**2 - 3 * ys + np.log(xs), rtol=1e-14)


def test_grid_marks_undefined_values_as_nan() -> None:
    g = grid(parse("log(x) + y"), [0.0, 0.0], radius=1.0, points=5)
    assert np.isnan(g.z[:, :2]).all() and np.isfinite(g.z[:, 3:]).all()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: grid(parse("x*y*z"), [0, 0, 0]), "exactly two variables, got 3"),
        (lambda: grid(parse("x*y"), [0, 0], radius=0), "window half-width r"),
        (lambda: grid(parse("x*y"), [0, 0], radius=1000), "at most 100"),
        (lambda: grid(parse("x*y"), [0, 0], points=500), "grid points per side: expected 5 to 121"),
        (lambda: slices(parse("x*y"), [0, 0], samples=2), "slice samples: expected 3 to 401"),
        (lambda: grid(parse("x*y"), [0], radius=1), "point: expected 2 numbers"),
    ],
)
def test_bounds_are_refused(call, message: str) -> None:
    with raises(HogradError, match=message):
        call()


def test_explore_bundles_everything() -> None:
    ex = explore(parse("w1**2*sin(w2)"), [1.0, math.pi / 2], [0.5, 1.0], radius=1.0)
    np.testing.assert_allclose(ex.result.hvp, [1.0, -1.0], atol=1e-12)
    assert ex.verdict.kind == "saddle" and ex.grid is not None and ex.grid.z.shape == (81, 81)
    assert ex.power.iterates.shape == (31, 2) and ex.slices.values.shape[0] == 2
    three = explore(parse("x*y*z"), [1, 2, 3], [1, 0, 0])
    assert three.grid is None and three.slices.values.shape[0] == 3
