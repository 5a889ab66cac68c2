"""The HVP lab's network analysis (hograd_labs/hvp/compute.py, the file the page runs and offers
as its download), checked against independent oracles on tiny models: the full Hessian against
torch.func.hessian of a loss written with torch.nn, H v against that Hessian times v, Lanczos,
power iteration and Hutchinson against its exact spectrum and trace. The page's refusals
(hograd_labs/hvp/cached.check_analysis) are counts, decided before any work and never by a
clock; the analysis itself never reads the clock to decide anything."""

from __future__ import annotations

import dataclasses
import itertools
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from hograd_core import BudgetError, HogradError
from hograd_labs.hvp import compute
from hograd_labs.hvp.cached import check_analysis
from hograd_labs.hvp.compute import HvpConfig, KeptGraph, TrainedNet
from tests.english import raises

TINY = HvpConfig(dataset="moons", hidden=(6,), steps=150)  # 2-6-2: 32 parameters
SMALL = HvpConfig(dataset="digits", hidden=(3,), steps=100)  # 64-3-10: 235 parameters


@pytest.fixture(scope="module")
def tiny() -> TrainedNet:
    return compute.train(TINY)


@pytest.fixture(scope="module")
def small() -> TrainedNet:
    return compute.train(SMALL)


def reference_loss(net: TrainedNet, examples: int) -> object:
    """The analysed loss written again with torch.nn's layers (not compute.forward): the mean
    cross-entropy of the tanh MLP on the first ``examples`` training examples."""
    x, y, _, _ = compute.load_data(net.config.dataset)
    x, y = x[:examples], y[:examples]

    def loss(theta: torch.Tensor) -> torch.Tensor:
        h, start = x, 0
        pairs = list(zip(net.sizes[:-1], net.sizes[1:], strict=False))
        for i, (fan_in, fan_out) in enumerate(pairs):
            w = theta[start : start + fan_in * fan_out].reshape(fan_out, fan_in)
            start += fan_in * fan_out
            h = F.linear(h, w, theta[start : start + fan_out])
            start += fan_out
            h = torch.tanh(h) if i < len(pairs) - 1 else h
        return F.cross_entropy(h, y)

    return loss


@pytest.fixture(scope="module")
def oracle(small: TrainedNet) -> np.ndarray:
    """The Hessian by torch.func.hessian (forward-over-reverse, vmapped) of the torch.nn loss:
    another route to it and another writing of the loss."""
    with warnings.catch_warnings():  # torch's forward-AD import warns about torch.jit.script
        warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated", DeprecationWarning)
        theta = torch.tensor(small.parameters)
        return torch.func.hessian(reference_loss(small, SMALL.examples))(theta).numpy()


def kept_graph(net: TrainedNet, config: HvpConfig) -> KeptGraph:
    loss, _ = compute.analysed_loss(net, config)
    return KeptGraph(loss, net.parameters)


def test_the_analysed_loss_is_the_torch_nn_loss(small: TrainedNet) -> None:
    for examples in (512, 37):
        config = dataclasses.replace(SMALL, examples=examples)
        loss, m = compute.analysed_loss(small, config)
        theta = torch.tensor(small.parameters)
        assert m == examples
        assert float(loss(theta)) == pytest.approx(
            float(reference_loss(small, examples)(theta)), rel=1e-12
        )


def test_full_hessian_matches_torch_func_hessian(small: TrainedNet, oracle: np.ndarray) -> None:
    h = compute.full_hessian(kept_graph(small, SMALL))
    assert h.shape == (235, 235)
    np.testing.assert_array_equal(h, h.T)  # made exactly symmetric
    np.testing.assert_allclose(h, oracle, rtol=1e-9, atol=1e-12)


@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")
@pytest.mark.parametrize("route", [compute.KeptGraph, compute.FuncHessian])
def test_hvp_matches_the_full_hessian_times_v(
    small: TrainedNet, oracle: np.ndarray, route: type
) -> None:
    loss, _ = compute.analysed_loss(small, SMALL)
    h = route(loss, small.parameters)
    for seed in (0, 1):
        v = np.random.default_rng(seed).standard_normal(235)
        np.testing.assert_allclose(h(v), oracle @ v, rtol=1e-9, atol=1e-12)
    assert h.calls == 2


def test_lanczos_power_and_hutchinson_against_the_full_hessian(
    small: TrainedNet, oracle: np.ndarray
) -> None:
    config = dataclasses.replace(SMALL, top_k=3, power_steps=50, probes=60, analysis_seed=3)
    curv = compute.analyse(config, small)
    exact = np.linalg.eigvalsh(oracle)[::-1]
    rel = np.abs(curv.lanczos - exact[:3]) / np.abs(exact[:3])
    assert np.all(rel < 0.01), rel  # Lanczos: the bar is 1%
    np.testing.assert_allclose(curv.exact, exact, rtol=1e-8, atol=1e-12)
    assert curv.reference == pytest.approx(exact[0])
    # Power iteration never overshoots the top eigenvalue (a Rayleigh quotient of a matrix whose
    # largest |λ| is λ₁ > 0) and gets within a few percent in 50 steps.
    assert curv.power[-1] <= exact[0] * (1 + 1e-9) and curv.power[-1] > 0.95 * exact[0]
    assert curv.lanczos_residual < 1e-6
    # Hutchinson: an unbiased estimate; the exact trace lies within 3 standard errors.
    assert curv.trace_exact == pytest.approx(np.trace(oracle))
    assert curv.trace_error > 0
    assert abs(curv.trace - np.trace(oracle)) <= 3 * curv.trace_error
    # The loss along the top eigenvector curves up like ½ λ α² near 0; a random direction is
    # far flatter.
    mid = curv.alphas.size // 2
    assert curv.alphas[mid] == 0 and curv.loss_top[mid] == pytest.approx(curv.loss)
    assert curv.loss_top[mid + 1] - curv.loss > curv.loss_random[mid + 1] - curv.loss
    assert curv.heatmap is not None and curv.heatmap.shape == (118, 118) and curv.heatmap_block == 2
    assert curv.full_bytes == 235 * 235 * 8 and curv.hvp_bytes == 4 * 235 * 8


def test_heatmap_keeps_the_largest_entry_of_each_block(
    small: TrainedNet, oracle: np.ndarray
) -> None:
    curv = compute.analyse(dataclasses.replace(SMALL, top_k=1, power_steps=1, probes=2), small)
    h = np.zeros((236, 236))
    h[:235, :235] = oracle
    blocks = h.reshape(118, 2, 118, 2).transpose(0, 2, 1, 3).reshape(118, 118, 4)
    expected = np.take_along_axis(blocks, np.abs(blocks).argmax(axis=2)[..., None], 2)[..., 0]
    np.testing.assert_allclose(curv.heatmap, expected, rtol=1e-9, atol=1e-12)


def test_results_hold_no_tensors(tiny: TrainedNet) -> None:
    curv = compute.analyse(dataclasses.replace(TINY, top_k=2, power_steps=5, probes=4), tiny)
    for obj in (tiny, curv):
        for field in dataclasses.fields(obj):
            assert not isinstance(getattr(obj, field.name), torch.Tensor), field.name


def test_big_models_skip_the_full_hessian() -> None:
    config = HvpConfig(hidden=(32,), steps=1, top_k=1, power_steps=3, probes=2)
    net = compute.train(config)
    assert net.parameters.size == 2_410 > config.full_hessian_max
    curv = compute.analyse(config, net)
    assert curv.exact is None and curv.heatmap is None and curv.trace_exact is None
    assert curv.reference == pytest.approx(curv.lanczos[0])
    assert curv.full_bytes == 2410**2 * 8


def test_power_iteration_falls_short_when_the_top_eigenvalues_are_close() -> None:
    # The point of the comparison: few power steps underestimate, Lanczos does not.
    config = HvpConfig(hidden=(8,), steps=5, learning_rate=1e-3, top_k=2, power_steps=3, probes=2)
    curv = compute.analyse(config, compute.train(config))
    exact = curv.exact[0]
    assert abs(curv.lanczos[0] - exact) / exact < 1e-6
    assert abs(curv.power[-1] - exact) / exact > abs(curv.lanczos[0] - exact) / exact


# ---- the page's refusals: counts, before any work ----


class NoClock:
    """A clock that must not be read."""

    def perf_counter(self) -> float:
        raise AssertionError("a refusal read the clock")


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"top_k": 0}, "Lanczos eigenvalues: expected 1 to 6, got 0"),
        ({"top_k": 7}, "Lanczos eigenvalues: expected 1 to 6"),
        ({"power_steps": 500}, "power-iteration steps: expected 1 to 100, got 500"),
        ({"probes": 1}, "Hutchinson probes: expected 2 to 200, got 1"),
        (
            {"dataset": "digits", "hidden": (512, 512, 512)},
            r"network: 563,722 parameters, over the limit of 120,000",
        ),
        ({"steps": 5000}, r"training steps: expected 1 to 2000, got 5000"),
    ],
)
def test_analysis_bounds_are_refused(
    changes: dict, message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(compute, "time", NoClock())
    with raises(HogradError, match=message):
        check_analysis(dataclasses.replace(TINY, **changes))


def test_hvp_work_is_bounded_by_the_model_size(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compute, "time", NoClock())
    big = HvpConfig(hidden=(512, 128))
    # 1.3e9 // (100,234 parameters x 128 examples) = 101 HVPs, 40 of them set aside for Lanczos
    message = (
        r"with 100,234 parameters, power-iteration steps and Hutchinson probes may add up to 61, "
        r"got 300"
    )
    with raises(BudgetError, match=message):
        check_analysis(dataclasses.replace(big, power_steps=100, probes=200))
    with raises(BudgetError, match="may add up to 61, got 62"):
        check_analysis(dataclasses.replace(big, power_steps=31, probes=31))
    check_analysis(dataclasses.replace(big, power_steps=31, probes=30))
    # 64-256-10, 19,210 parameters x 512 examples: 132 HVPs, 92 for power steps and probes
    wide = HvpConfig(hidden=(256,))
    with raises(BudgetError, match="19,210 parameters, .* may add up to 92, got 93"):
        check_analysis(dataclasses.replace(wide, power_steps=63, probes=30))
    check_analysis(dataclasses.replace(wide, power_steps=62, probes=30))


# ---- the clock: read for the timings shown, never to decide ----


class JumpyClock:
    """A clock that jumps ``gap`` seconds at every reading: a server under heavy load. Counts
    its readings, so a test knows the code it patched is the code that ran."""

    def __init__(self, gap: float) -> None:
        self.readings = itertools.count(0.0, gap)
        self.read = 0

    def perf_counter(self) -> float:
        self.read += 1
        return next(self.readings)


def test_the_analysis_does_not_depend_on_the_clock(
    small: TrainedNet, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the analysis computes depends on the model and the settings only: under a clock
    that jumps 100 s per reading it still builds the full Hessian and gives the same numbers
    (only the timings it reports differ)."""
    config = dataclasses.replace(SMALL, top_k=2, power_steps=20, probes=30)
    reference = compute.analyse(config, small)
    clock = JumpyClock(100.0)
    monkeypatch.setattr(compute, "time", clock)
    slow = compute.analyse(config, small)
    assert clock.read > 0  # the analysis reads this clock: the patch is not a no-op
    assert slow.exact is not None and slow.heatmap is not None
    assert slow.lanczos_seconds >= 100  # the jumps show in the timings reported, and only there
    for name in ("lanczos", "power", "probes", "exact", "loss_top", "loss_random", "heatmap"):
        np.testing.assert_array_equal(getattr(slow, name), getattr(reference, name))


def test_training_does_not_depend_on_the_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    config = dataclasses.replace(TINY, steps=400)
    reference = compute.train(config)
    clock = JumpyClock(10.0)
    monkeypatch.setattr(compute, "time", clock)
    slow = compute.train(config)
    assert clock.read > 0 and slow.seconds >= 10
    assert slow.steps == 400 and slow.losses.size == 400
    np.testing.assert_array_equal(slow.parameters, reference.parameters)
    np.testing.assert_array_equal(slow.losses, reference.losses)


def test_resolved_ratio_on_injected_timings() -> None:
    grad = [1.0, 1.1, 0.9, 1.0, 1.05, 0.95, 1.0]
    assert compute.resolved_ratio([2 * g for g in grad], grad) == pytest.approx(2.0)
    assert compute.resolved_ratio([g / 2 for g in grad], grad) == pytest.approx(0.5)
    assert compute.resolved_ratio([1.2, 0.8, 1.0], [1.0, 1.1, 0.9]) is None  # they overlap


def test_the_network_reports_the_hvp_over_gradient_ratio_only_when_resolved(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The clock is the test's: one reading per start and one per stop of each timed call. A
    steady clock gives a ratio; a jumpy one gives None (the page then says it is too small to
    time). Nothing else in the analysis depends on it."""
    config = HvpConfig(dataset="moons", hidden=(4,), steps=5, top_k=1, power_steps=2, probes=2)
    net = compute.train(config)

    class Clock:
        def __init__(self, gaps: list[float]) -> None:
            self.now, self.gaps = 0.0, itertools.cycle(gaps)

        def perf_counter(self) -> float:
            self.now += next(self.gaps)
            return self.now

    # start, stop of a gradient (1 ms), start, stop of an HVP (1.5 ms), then the next round
    monkeypatch.setattr(compute, "time", Clock([1.0, 1e-3, 1.0, 1.5e-3]))
    steady = compute.analyse(config, net)
    assert steady.hvp_over_grad == pytest.approx(1.5)
    grads, hvps = [1, 3, 1, 1, 2, 1, 1], [2, 0.5, 4, 9, 1, 1.5, 3]  # ms, per round
    jumpy = [
        gap for g, h in zip(grads, hvps, strict=True) for gap in (1.0, g * 1e-3, 1.0, h * 1e-3)
    ]
    monkeypatch.setattr(compute, "time", Clock(jumpy))
    noisy = compute.analyse(config, net)
    assert noisy.hvp_over_grad is None
    np.testing.assert_array_equal(noisy.lanczos, steady.lanczos)
    np.testing.assert_array_equal(noisy.exact, steady.exact)
