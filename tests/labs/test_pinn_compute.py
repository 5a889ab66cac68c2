"""The PINN lab's compute: its input derivatives against finite differences and Taylor mode,
torch.func's against autograd's, the residual's gradient against finite differences in the
weights, the trained presets against the exact solutions, the silent bug without create_graph,
and the budget's refusals (cached.check_config)."""

from __future__ import annotations

import functools
import math
from dataclasses import fields, replace

import numpy as np
import pytest
import torch

from hograd_core import ArgumentError, BudgetError, parse
from hograd_core.curvature import _load_forward_ad
from hograd_core.taylor import _tan, taylor_derivatives
from hograd_labs.pinn import compute
from hograd_labs.pinn.cached import check_config
from hograd_labs.pinn.compute import (
    PinnConfig,
    _loss_terms,
    _points,
    fit_summary,
    mlp,
    network_parameters,
    preset,
    terms,
    terms_func,
)
from tests.english import raises


@functools.cache
def preset_run(equation: str, create_graph: bool = True) -> compute.PinnRun:
    """compute.run of a preset as the page runs it (500 or 600 steps: the slowest call here),
    with or without create_graph, once per module: five tests read these four runs, none
    changes them."""
    return compute.run(replace(preset(equation), create_graph=create_graph))


def fixed_network(width: int = 8, depth: int = 2, seed: int = 3) -> list[torch.Tensor]:
    return network_parameters((2, *(width,) * depth, 1), torch.Generator().manual_seed(seed))


def points(n: int = 7, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.stack([rng.uniform(0.1, 0.9, n), rng.uniform(0.0, 1.0, n)], axis=1)


def autograd_partials(params: list, xt: np.ndarray) -> dict[str, np.ndarray]:
    """u_x, u_t, u_xx, u_tt by autograd, as :func:`terms` takes them (create_graph=True)."""
    x = torch.tensor(xt, requires_grad=True)
    u = mlp(params, x)
    du = torch.autograd.grad(u.sum(), x, create_graph=True)[0]
    u_xx = torch.autograd.grad(du[:, 0].sum(), x, create_graph=True)[0][:, 0]
    u_tt = torch.autograd.grad(du[:, 1].sum(), x, create_graph=True)[0][:, 1]
    out = {"u_x": du[:, 0], "u_t": du[:, 1], "u_xx": u_xx, "u_tt": u_tt}
    return {k: v.detach().numpy() for k, v in out.items()}


def taylor_along_x(params: list, xt: np.ndarray, order: int = 2) -> np.ndarray:
    """Taylor coefficients of u(x0 + s, t0) in s, pushed through the MLP with hograd's Taylor
    mode recurrence for tanh (taylor._tan); a linear layer maps every order's coefficients
    alike and adds its bias to order 0 only. Returns u's derivatives of orders 0..order."""
    n = xt.shape[0]
    h = np.zeros((order + 1, n, 2))
    h[0] = xt
    h[1, :, 0] = 1.0  # x = x0 + s; t stays t0
    for k in range(0, len(params), 2):
        w, b = params[k].detach().numpy(), params[k + 1].detach().numpy()
        h = h @ w.T
        h[0] += b
        if k < len(params) - 2:
            shape = h.shape
            h = _tan(h.reshape(order + 1, -1), -1.0).reshape(shape)  # tanh on every unit
    return h[:, :, 0] * np.array([math.factorial(j) for j in range(order + 1)])[:, None]


def test_u_xx_equals_finite_differences_and_taylor_mode() -> None:
    params, xt = fixed_network(), points()
    got = autograd_partials(params, xt)
    u = lambda a: mlp(params, torch.tensor(a)).detach().numpy()
    h, ex, et = 1e-4, np.array([1.0, 0.0]), np.array([0.0, 1.0])
    fd_xx = (u(xt + h * ex) - 2 * u(xt) + u(xt - h * ex)) / h**2
    fd_tt = (u(xt + h * et) - 2 * u(xt) + u(xt - h * et)) / h**2
    fd_t = (u(xt + 1e-6 * et) - u(xt - 1e-6 * et)) / 2e-6
    np.testing.assert_allclose(got["u_xx"], fd_xx, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got["u_tt"], fd_tt, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got["u_t"], fd_t, rtol=1e-8, atol=1e-10)
    series = taylor_along_x(params, xt)
    np.testing.assert_allclose(series[0], u(xt), rtol=1e-13)
    np.testing.assert_allclose(series[1], got["u_x"], rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(series[2], got["u_xx"], rtol=1e-11, atol=1e-12)


def test_a_tiny_network_typed_as_a_function_agrees_with_taylor_mode() -> None:
    """The network written out in the function language at a fixed t: hograd's own Taylor
    mode (taylor_derivatives on the parsed text) gives the same u_xx as autograd."""
    params = fixed_network(width=3, depth=1, seed=5)
    with torch.no_grad():  # round the weights so that the typed text is the network exactly
        for p in params:
            p.copy_(torch.round(p * 1000) / 1000)
    t0 = 0.25
    w1, b1, w2, b2 = (p.detach().numpy() for p in params)
    units = [f"{w2[0, j]:g}*tanh({w1[j, 0]:g}*x + {w1[j, 1] * t0 + b1[j]:.6g})" for j in range(3)]
    fn = parse(" + ".join(units) + f" + {b2[0]:g}")
    xs = np.linspace(0.05, 0.95, 9)
    values, _ = taylor_derivatives(fn, xs, 2)
    got = autograd_partials(params, np.stack([xs, np.full_like(xs, t0)], 1))
    np.testing.assert_allclose(values[1], got["u_x"], rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(values[2], got["u_xx"], rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("equation", ["heat", "wave"])
def test_the_residual_term_gradient_equals_finite_differences_in_the_weights(equation) -> None:
    """d(mean r²)/dθ along a random direction, against central differences of the same term:
    the derivative of a derivative that create_graph=True makes available."""
    config = replace(preset(equation), points=16, edge=8)
    gen = torch.Generator().manual_seed(0)
    params = fixed_network(width=6, depth=2)
    inner, initial, boundary = _points(config, gen)
    term = lambda: _loss_terms(params, config, inner, initial, boundary)[0]
    grads = torch.autograd.grad(term(), params, allow_unused=True)  # the output bias: None
    grads = [torch.zeros_like(p) if g is None else g for g, p in zip(grads, params, strict=True)]
    dirs = [torch.randn(p.shape, generator=gen, dtype=torch.float64) for p in params]
    along = sum(float((g * d).sum()) for g, d in zip(grads, dirs, strict=True))
    h, values = 1e-5, []
    for sign in (1, -1):
        with torch.no_grad():
            for p, d in zip(params, dirs, strict=True):
                p.add_(sign * h * d)
        values.append(float(term().detach()))
        with torch.no_grad():
            for p, d in zip(params, dirs, strict=True):
                p.sub_(sign * h * d)
    assert along == pytest.approx((values[0] - values[1]) / (2 * h), rel=1e-6)


@pytest.mark.parametrize("equation", ["heat", "wave"])
def test_without_create_graph_the_gradient_is_that_of_the_terms_still_live(equation) -> None:
    """The gradient the variant's loss.backward() gives the weights, against an oracle built
    from the create_graph=True terms with the constants detached by hand: for the wave, only
    u(x, 0) and the boundaries (u_xx, u_tt and u_t(x, 0) are constants); for the heat, also
    the residual with u_xx a constant, so the gradient flows through u_t alone."""
    bug = replace(preset(equation), points=32, edge=16, create_graph=False, w_initial=2.0)
    keep = replace(bug, create_graph=True)
    gen = torch.Generator().manual_seed(0)
    params = fixed_network()
    pts = _points(bug, gen)
    r, start, edge = _loss_terms(params, bug, *pts)
    assert (r.grad_fn is None) == (equation == "wave")  # the wave's residual: a constant
    total = torch.autograd.grad(
        1.0 * r + 2.0 * start + 1.0 * edge, params, allow_unused=True, retain_graph=True
    )
    r_k, start_k, edge_k = _loss_terms(params, keep, *pts)
    assert float(r_k.detach()) == pytest.approx(float(r.detach()), rel=1e-14)  # same numbers
    x = pts[1]
    u0 = mlp(params, x)
    value_only = (u0 - torch.sin(math.pi * x[:, 0].detach())).pow(2).mean()
    oracle = 2.0 * value_only + 1.0 * edge_k
    if equation == "heat":  # u_t live, u_xx detached by hand
        inner = pts[0]
        du = torch.autograd.grad(mlp(params, inner).sum(), inner, create_graph=True)[0]
        u_xx = torch.autograd.grad(du[:, 0].sum(), inner, retain_graph=True)[0][:, 0]
        oracle = oracle + (du[:, 1] - bug.coefficient * u_xx.detach()).pow(2).mean()
    expected = torch.autograd.grad(oracle, params)
    for g, e in zip(total, expected, strict=True):
        assert g is not None
        torch.testing.assert_close(g, e, rtol=1e-13, atol=1e-15)
    if equation == "heat":  # and it is not the residual's gradient
        right = torch.autograd.grad(r_k, params, allow_unused=True, retain_graph=True)
        wrong = torch.autograd.grad(r, params, allow_unused=True)
        gap = sum(
            float((a - b).norm())
            for a, b in zip(right, wrong, strict=True)
            if a is not None and b is not None
        )
        assert gap > 1e-3


@pytest.mark.parametrize("equation", ["heat", "wave"])
@pytest.mark.parametrize("keep", [True, False])
@pytest.mark.parametrize(("w_res", "w_init"), [(1.0, 1.0), (0.0, 1.0), (1.0, 0.0)])
def test_what_each_term_got_follows_the_flag_and_the_weights(equation, keep, w_res, w_init) -> None:
    """fit_summary's word for each term against the run's own terms: "constant" exactly when
    the term's gradient is 0 (measured), "weight0" when its weight is 0, "partly" for the heat
    residual without create_graph, and the values it quotes are the run's own."""
    config = replace(
        preset(equation),
        steps=20,
        points=32,
        edge=16,
        create_graph=keep,
        w_residual=w_res,
        w_initial=w_init,
    )
    run = compute.run(config)
    rows = {term: (how, a, b) for term, how, a, b in fit_summary(run)}
    assert set(rows) == {"residual", "position", "boundary"} | (
        {"velocity"} if equation == "wave" else set()
    )
    weights = {"residual": w_res, "position": w_init, "velocity": w_init, "boundary": 1.0}
    grads = {"residual": run.residual_grad, "velocity": run.velocity_grad}
    for term, (how, _start, _end) in rows.items():
        if weights[term] == 0:
            assert how == "weight0"
        elif term in grads and grads[term] == 0:
            assert how == "constant" and not keep and equation == "wave"
        elif term == "residual" and not keep:
            assert how == "partly" and equation == "heat" and run.residual_grad > 0
        else:
            assert how == "trained"
            assert term not in grads or grads[term] > 0
    assert rows["residual"][1:] == (run.terms[0, 0], run.terms[-1, 0])
    assert rows["boundary"][1:] == (run.terms[0, 2], run.terms[-1, 2])
    if equation == "wave":
        assert rows["position"][1] + rows["velocity"][1] == pytest.approx(run.terms[0, 1])


def test_the_wave_velocity_term_never_trains_without_create_graph() -> None:
    """u_t(x, 0) is taken with the same flag: without it the term is a constant, and at the
    end of the preset it is still about 1 (against 2.5e-4 with the flag)."""
    bad, good = preset_run("wave", create_graph=False), preset_run("wave")
    assert bad.velocity_grad == 0.0 and good.velocity_grad > 0
    assert bad.velocity[-1] > 0.5 and good.velocity[-1] < 1e-2


def _natural_omission(config: PinnConfig) -> None:
    """One training step written the natural wrong way, by hand: create_graph=True dropped
    from every derivative but the first (u_x, u_t, from which u_xx and u_tt are taken), and no
    retain_graph=True either."""
    gen = torch.Generator().manual_seed(config.seed)
    params = network_parameters((2, *(config.width,) * config.depth, 1), gen)
    inner, initial, boundary = _points(config, gen)
    du = torch.autograd.grad(mlp(params, inner).sum(), inner, create_graph=True)[0]
    u_xx = torch.autograd.grad(du[:, 0].sum(), inner)[0][:, 0]
    if config.equation == "heat":
        r = du[:, 1] - config.coefficient * u_xx
    else:
        r = torch.autograd.grad(du[:, 1].sum(), inner)[0][:, 1] - config.coefficient**2 * u_xx
    u0 = mlp(params, initial)
    start = (u0 - torch.sin(math.pi * initial[:, 0].detach())).pow(2).mean()
    if config.equation == "wave":
        start = start + torch.autograd.grad(u0.sum(), initial)[0][:, 1].pow(2).mean()
    (r.pow(2).mean() + start + mlp(params, boundary).pow(2).mean()).backward()


@pytest.mark.parametrize("equation", ["heat", "wave"])
def test_the_natural_omission_raises_what_the_page_quotes(equation) -> None:
    """The step written without the flags and without retain_graph=True raises PyTorch's
    message, word for word the one the run recorded (and the page quotes)."""
    config = replace(preset(equation), steps=3, create_graph=False)
    run = compute.run(config)
    assert run.omission_error.startswith("Trying to backward through the graph a second time")
    with pytest.raises(RuntimeError) as raised:
        _natural_omission(config)
    assert str(raised.value) == run.omission_error
    assert compute.run(replace(config, create_graph=True)).omission_error == ""


def test_the_heat_preset_is_solved_within_the_stated_bound() -> None:
    run = preset_run("heat")
    assert run.status == "ok" and len(run.losses) == 500
    # measured: max |u − exact| 2.6e-2, relative L2 error 1.4e-2, RMS residual 1.9e-2
    assert run.max_error < 0.04 and run.rel_error < 0.025 and run.residual_rms < 0.04
    np.testing.assert_allclose(run.exact[:, 20], np.exp(-0.2 * math.pi**2 * run.ts), rtol=1e-12)
    assert run.losses[-1] < 0.01 * run.losses[0]
    assert run.residual_grad > 0


def test_the_wave_preset_is_solved_within_the_stated_bound() -> None:
    run = preset_run("wave")
    # measured: max |u − exact| 9.2e-2, relative L2 error 6.2e-2, RMS residual 3.0e-2
    assert run.status == "ok" and run.max_error < 0.15 and run.rel_error < 0.1
    assert run.residual_rms < 0.06


def test_without_create_graph_the_residual_does_not_train() -> None:
    """The wave: every derivative term is a constant, the residual is never pushed down."""
    good, bad = preset_run("wave"), preset_run("wave", create_graph=False)
    assert bad.residual_grad == 0.0 and good.residual_grad > 0
    assert bad.residual_rms > 10 * good.residual_rms
    assert bad.terms[-1, 0] > 10 * good.terms[-1, 0]
    assert bad.max_error > 4 * good.max_error
    assert bad.terms[-1, 2] < 0.05 * bad.terms[0, 2]  # the boundary term (of u) still trains
    assert bad.terms[-1, 0] > bad.terms[0, 0]  # measured: the residual term grows 260x


def test_without_create_graph_the_heat_residual_trains_wrongly() -> None:
    """The heat: the residual gets a gradient through u_t alone, not 0, and the run ends far
    from the solution (measured: RMS residual 0.40 against 0.019, max error 0.63)."""
    good, bad = preset_run("heat"), preset_run("heat", create_graph=False)
    assert bad.residual_grad > 0.1
    assert bad.residual_rms > 10 * good.residual_rms and bad.max_error > 4 * good.max_error


def test_results_hold_plain_numbers() -> None:
    run = compute.run(replace(preset("heat"), steps=5))
    for f in fields(run):
        value = getattr(run, f.name)
        assert not isinstance(value, torch.Tensor), f.name
    assert run.u.shape == run.exact.shape == run.residual.shape == (41, 41)
    assert run.terms.shape == (5, 3) and run.parameters == 2 * 20 + 20 + 20 * 20 + 20 + 21
    assert run.pinn_step_seconds > 0 and run.plain_step_seconds > 0


@pytest.mark.parametrize(
    ("change", "error", "words"),
    [
        ({"steps": 5000}, BudgetError, "steps: expected 1 to 3000, got 5000"),
        ({"width": 100}, BudgetError, "width: expected 2 to 64, got 100"),
        ({"points": 1024, "steps": 2000}, BudgetError, "work units"),
        ({"equation": "burgers"}, ArgumentError, "expected heat or wave, got burgers"),
        ({"coefficient": 5.0}, BudgetError, "coefficient: expected 0.01 to 1.0, got 5.0"),
        ({"lr": float("nan")}, ArgumentError, "lr: expected"),
        ({"w_residual": 0.0, "w_initial": 0.0, "w_boundary": 0.0}, ArgumentError, "all three"),
        ({"t_max": 0.0}, ArgumentError, "t_max: expected 0.1 to 2.0, got 0.0"),
    ],
)
def test_refusals_before_any_work(change: dict, error: type, words: str) -> None:
    with raises(error, match=words.replace("(", r"\(")):
        check_config(replace(PinnConfig(), **change))


def test_what_the_page_says_pytorch_does_without_create_graph() -> None:
    """The explanation's claims: the derivative comes back without grad_fn, and a second
    derivative of it raises rather than returning zeros."""
    params, xt = fixed_network(), torch.tensor(points(), requires_grad=True)
    du = torch.autograd.grad(mlp(params, xt).sum(), xt)[0]
    assert du.grad_fn is None and not du.requires_grad
    with raises(RuntimeError, match="element 0 of tensors does not require grad"):
        torch.autograd.grad(du[:, 0].sum(), xt)


def test_a_loss_that_stops_being_finite_stops_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """With Adam's bounded steps and the budget's ranges no setting was found that overflows,
    so the stop is checked with a loss made NaN from step 3 on."""
    module = compute

    real, calls = module._loss_terms, []

    def failing(*args, **kwargs):
        r, start, edge = real(*args, **kwargs)
        calls.append(1)
        return (r * float("nan") if len(calls) > 4 else r), start, edge  # 1 call before training

    monkeypatch.setattr(module, "_step_costs", lambda *a: {"pinn": 1.0, "plain": 1.0})
    monkeypatch.setattr(module, "_loss_terms", failing)
    run = module.run(replace(preset("heat"), steps=20))
    assert run.status == "diverged" and run.stopped_at == 3
    assert len(run.losses) == 3 and run.terms.shape == (3, 3) and np.isfinite(run.losses).all()


@pytest.mark.parametrize("equation", ["heat", "wave"])
@pytest.mark.parametrize("keep", [True, False])
def test_torch_func_derivatives_equal_autograds(equation: str, keep: bool) -> None:
    """terms_func (vmap of jacrev and hessian at one point) against terms (nested
    torch.autograd.grad): the same residual, the same gradient of its mean square with respect
    to the weights, and with keep=False the same constants (no path to the weights through
    u_xx and u_tt)."""
    _load_forward_ad()  # hessian is forward over reverse: torch's own first-use warning, quiet
    params, coefficient = fixed_network(width=6, depth=2), 0.7
    xt = torch.tensor(points(11), requires_grad=True)
    by_autograd = terms(mlp(params, xt), xt, equation, coefficient, keep)
    by_func = terms_func(params, xt, equation, coefficient, keep)
    torch.testing.assert_close(by_func, by_autograd, rtol=1e-12, atol=1e-13)
    assert (by_func.grad_fn is None) == (by_autograd.grad_fn is None)
    if by_autograd.grad_fn is None:  # the wave without the flag: constants both ways
        return
    a = torch.autograd.grad(by_autograd.pow(2).mean(), params, allow_unused=True)
    b = torch.autograd.grad(by_func.pow(2).mean(), params, allow_unused=True)
    for x, y in zip(a, b, strict=True):
        assert (x is None) == (y is None)
        if x is not None:
            torch.testing.assert_close(y, x, rtol=1e-11, atol=1e-13)


@pytest.mark.parametrize("equation", ["heat", "wave"])
def test_a_run_by_torch_func_trains_like_the_autograd_run(equation: str) -> None:
    _load_forward_ad()
    config = replace(preset(equation), steps=30, points=64, edge=16)
    plain, func = compute.run(config), compute.run(config, func=True)
    np.testing.assert_allclose(func.losses, plain.losses, rtol=1e-12)
    np.testing.assert_allclose(func.u, plain.u, rtol=1e-10, atol=1e-12)
    assert func.fit == plain.fit and func.residual_grad == pytest.approx(plain.residual_grad)


@pytest.mark.parametrize("equation", ["heat", "wave"])
def test_the_residuals_second_derivatives_are_the_hessians_diagonal(equation: str) -> None:
    """u_xx (and the wave's u_tt) as Hessian-diagonal products, one per entry, equal
    torch.func.hessian's diagonal at every point (the gap is computed against it)."""
    params = fixed_network()
    config = replace(preset(equation), points=7)
    xt = torch.tensor(points(7), requires_grad=True)
    costs = compute.second_derivative_costs(params, config, xt, rounds=1)
    assert costs["entries"] == (1 if equation == "heat" else 2) and costs["gap"] < 1e-12
