"""The network's curvature from HVPs only, checked against torch.func.hessian on tiny models;
budgets counted before any work (never a clock), and the no-global-state rule."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest
import torch

from hograd_core import BudgetError, HogradError
from hograd_core import net_curvature as nc
from hograd_core import network as nw
from tests.english import raises

# torch.func.hessian imports torch's forward-AD decompositions, which warn about torch.jit.script
# (a deprecation inside torch 2.13, not ours).
quiet_forward_ad = pytest.mark.filterwarnings(
    "ignore:`torch.jit.script` is deprecated:DeprecationWarning"
)
TINY = nw.NetConfig(dataset="moons", hidden=(6,), steps=150)  # 2-6-2: 32 parameters
SMALL = nw.NetConfig(dataset="digits", hidden=(3,), steps=100)  # 64-3-10: 235 parameters


@pytest.fixture(scope="module")
def tiny() -> nw.TrainedNet:
    return nw.train(TINY)


@pytest.fixture(scope="module")
def small() -> nw.TrainedNet:
    return nw.train(SMALL)


@pytest.fixture(scope="module")
def oracle(small: nw.TrainedNet) -> np.ndarray:
    """The Hessian by torch.func.hessian (forward-over-reverse, vmapped): another route."""
    import warnings

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated", DeprecationWarning)
        theta = torch.tensor(small.parameters)
        return torch.func.hessian(nw.loss_function(small))(theta).numpy()


def test_parameter_counts_and_layers() -> None:
    assert nw.count_parameters(nw.NetConfig()) == 64 * 16 + 16 + 16 * 10 + 10 == 1210
    assert nw.count_parameters(TINY) == 2 * 6 + 6 + 6 * 2 + 2 == 32
    assert nw.layer_sizes(nw.NetConfig(hidden=(512, 128))) == (64, 512, 128, 10)
    assert nw.count_parameters(nw.NetConfig(hidden=(512, 128))) == 100_234
    assert nw.layer_blocks((2, 6, 2)) == (
        ("W1", 0, 12),
        ("b1", 12, 18),
        ("W2", 18, 30),
        ("b2", 30, 32),
    )


def test_training_learns_and_reports(tiny: nw.TrainedNet) -> None:
    assert tiny.parameters.shape == (32,) and tiny.parameters.dtype == np.float64
    assert tiny.steps == 150 and tiny.losses.size == 150
    assert tiny.losses[-20:].mean() < tiny.losses[:5].mean()
    assert tiny.train_accuracy > 0.8 and tiny.test_accuracy > 0.75


def test_training_is_reproducible_without_global_seeds() -> None:
    before = torch.random.get_rng_state()
    a = nw.train(dataclasses.replace(TINY, steps=20))
    b = nw.train(dataclasses.replace(TINY, steps=20))
    c = nw.train(dataclasses.replace(TINY, steps=20, seed=1))
    assert torch.equal(before, torch.random.get_rng_state())  # the global generator untouched
    np.testing.assert_array_equal(a.parameters, b.parameters)
    assert not np.array_equal(a.parameters, c.parameters)


def test_progress_is_reported_up_to_the_last_step() -> None:
    seen: list[tuple[int, int]] = []
    nw.train(dataclasses.replace(TINY, steps=120), lambda s, total, loss: seen.append((s, total)))
    assert 2 <= len(seen) <= 60 and seen[-1] == (120, 120)
    assert [s for s, _ in seen] == sorted(s for s, _ in seen)


class JumpyClock:
    """A clock that jumps ``gap`` seconds at every reading: a server under heavy load."""

    def __init__(self, gap: float) -> None:
        self.readings = itertools.count(0.0, gap)

    def perf_counter(self) -> float:
        return next(self.readings)


class NoClock:
    """A clock that must not be read."""

    def perf_counter(self) -> float:
        raise AssertionError("a budget read the clock")


def test_training_does_not_depend_on_the_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same configuration trains the same steps to the same weights, however slow the
    machine is: a clock that jumps 10 s per reading stops nothing."""
    config = dataclasses.replace(TINY, steps=400)
    reference = nw.train(config)
    monkeypatch.setattr(nw, "time", JumpyClock(10.0))
    slow = [nw.train(config) for _ in range(2)]
    for net in slow:
        assert net.steps == 400 and net.losses.size == 400
        np.testing.assert_array_equal(net.parameters, reference.parameters)
        np.testing.assert_array_equal(net.losses, reference.losses)


def test_the_refusal_depends_only_on_the_config(monkeypatch: pytest.MonkeyPatch) -> None:
    """Limits are counts: parameters, and parameters x steps x batch within max_train_work
    (4e9), so the 100,234-parameter model may take 4e9 // (100,234 x 128) = 311 steps of 128
    examples. Checked without a clock."""
    monkeypatch.setattr(nw, "time", NoClock())
    big = nw.NetConfig(hidden=(512, 128), steps=311)
    assert nw.most_steps(big) == 311 == int(4e9 // (100_234 * 128))
    nw.check_config(big)
    with raises(BudgetError, match=r"at most 311 training steps.*got 312"):
        nw.check_config(dataclasses.replace(big, steps=312))
    assert nw.most_steps(dataclasses.replace(big, batch=256)) == 155
    assert nw.most_steps(nw.NetConfig()) == 2_000  # the step limit binds small models
    assert nw.analysis_limit(100_234) == 61 and nw.analysis_limit(1_210) > 300


def test_full_hessian_matches_torch_func_hessian(small: nw.TrainedNet, oracle: np.ndarray) -> None:
    h = nc.full_hessian(small)
    assert h.shape == (235, 235)
    np.testing.assert_allclose(h, oracle, rtol=1e-9, atol=1e-12)


def test_hvp_matches_the_full_hessian_times_v(small: nw.TrainedNet, oracle: np.ndarray) -> None:
    v = np.random.default_rng(0).standard_normal(235)
    np.testing.assert_allclose(
        nc.hessian_vector_product(small, v), oracle @ v, rtol=1e-9, atol=1e-12
    )


def test_lanczos_power_and_hutchinson_against_the_full_hessian(
    small: nw.TrainedNet, oracle: np.ndarray
) -> None:
    curv = nc.curvature(small, top_k=3, power_steps=50, probes=60, seed=3)
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
    small: nw.TrainedNet, oracle: np.ndarray
) -> None:
    curv = nc.curvature(small, top_k=1, power_steps=1, probes=2)
    h = np.zeros((236, 236))
    h[:235, :235] = oracle
    blocks = h.reshape(118, 2, 118, 2).transpose(0, 2, 1, 3).reshape(118, 118, 4)
    expected = np.take_along_axis(blocks, np.abs(blocks).argmax(axis=2)[..., None], 2)[..., 0]
    np.testing.assert_allclose(curv.heatmap, expected, rtol=1e-9, atol=1e-12)


def test_results_hold_no_tensors(tiny: nw.TrainedNet) -> None:
    curv = nc.curvature(tiny, top_k=2, power_steps=5, probes=4)
    for obj in (tiny, curv):
        for field in dataclasses.fields(obj):
            assert not isinstance(getattr(obj, field.name), torch.Tensor), field.name


def test_big_models_skip_the_full_hessian_and_say_why() -> None:
    net = nw.train(nw.NetConfig(hidden=(32,), steps=1))  # 2,410 parameters
    with raises(
        BudgetError,
        match=r"full Hessian: 2,410 parameters, over the limit of 2,000; it would need 0.046 GB",
    ):
        nc.full_hessian(net)
    curv = nc.curvature(net, top_k=1, power_steps=3, probes=2)
    assert curv.exact is None and curv.heatmap is None and curv.trace_exact is None
    assert curv.reference == pytest.approx(curv.lanczos[0])
    assert curv.full_bytes == 2410**2 * 8


@pytest.mark.parametrize(
    ("config", "message"),
    [(nw.NetConfig(hidden=(512, 512, 512)),
      r"network: 563,722 parameters, over the limit of 120,000"),
     (nw.NetConfig(hidden=(16, 16, 16, 16)), r"hidden layers: expected 1 to 3, got 4"),
     (nw.NetConfig(hidden=()), r"hidden layers: expected 1 to 3, got 0"),
     (nw.NetConfig(hidden=(1000,)), r"hidden width: expected 1 to 512, got 1000"),
     (nw.NetConfig(steps=5000), r"training steps: expected 1 to 2000, got 5000"),
     (nw.NetConfig(batch=0), r"batch size: expected 1 to 512, got 0"),
     (nw.NetConfig(learning_rate=5.0), r"learning rate: expected 1e-05 to 1.0, got 5.0"),
     (nw.NetConfig(dataset="mnist"), r"data set: expected one of digits, moons, got 'mnist'")],
)  # fmt: skip
def test_configurations_over_budget_are_refused(config: nw.NetConfig, message: str) -> None:
    with raises(HogradError, match=message):
        nw.train(config)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"top_k": 0}, "Lanczos eigenvalues: expected 1 to 6, got 0"),
     ({"top_k": 7}, "Lanczos eigenvalues: expected 1 to 6"),
     ({"power_steps": 500}, "power-iteration steps: expected 1 to 100, got 500"),
     ({"probes": 1}, "Hutchinson probes: expected 2 to 200, got 1")],
)  # fmt: skip
def test_analysis_bounds_are_refused(tiny: nw.TrainedNet, kwargs: dict, message: str) -> None:
    with raises(HogradError, match=message):
        nc.curvature(tiny, **kwargs)


def test_a_wrong_vector_size_is_refused(tiny: nw.TrainedNet) -> None:
    with raises(BudgetError, match=r"vector: expected 32 numbers \(one per parameter\), got 3"):
        nc.hessian_vector_product(tiny, [1.0, 2.0, 3.0])


def test_power_iteration_falls_short_when_the_top_eigenvalues_are_close() -> None:
    # The point of the comparison: few power steps underestimate, Lanczos does not.
    net = nw.train(nw.NetConfig(hidden=(8,), steps=5, learning_rate=1e-3))
    curv = nc.curvature(net, top_k=2, power_steps=3, probes=2)
    exact = curv.exact[0]
    assert abs(curv.lanczos[0] - exact) / exact < 1e-6
    assert abs(curv.power[-1] - exact) / exact > abs(curv.lanczos[0] - exact) / exact


def test_hvp_work_is_bounded_by_the_model_size() -> None:
    config = nw.NetConfig(hidden=(512, 128))
    fake = nw.TrainedNet(
        config, nw.layer_sizes(config), np.zeros(100_234), np.zeros(1), 0.0, 0.0, 1, 0.0
    )  # refused before any HVP, so the weights never matter
    # 1.3e9 // (100,234 parameters x 128 examples) = 101 HVPs, 40 of them set aside for Lanczos
    message = (
        r"with 100,234 parameters, power-iteration steps and Hutchinson probes may add up to 61, "
        r"got 300"
    )
    with raises(HogradError, match=message):
        nc.curvature(fake, power_steps=100, probes=200)
    with raises(HogradError, match="may add up to 61, got 62"):
        nc.curvature(fake, power_steps=31, probes=31)
    # 64-256-10, 19,210 parameters x 512 examples: 132 HVPs, 92 for power steps and probes
    config = nw.NetConfig(hidden=(256,))
    fake = dataclasses.replace(
        fake, config=config, sizes=nw.layer_sizes(config), parameters=np.zeros(19_210)
    )
    with raises(HogradError, match="19,210 parameters, .* may add up to 92, got 93"):
        nc.curvature(fake, power_steps=63, probes=30)


def test_big_models_analyse_a_smaller_batch_of_the_same_loss() -> None:
    """Up to 25k parameters the analysed loss averages 512 examples; bigger models half as many
    each time the size doubles, so one HVP costs about the same on all of them. The loss is the
    mean cross-entropy of the network on the first m training examples, whatever m is (checked
    against torch.nn)."""
    assert nw.analysis_examples(nw.count_parameters(nw.NetConfig())) == 512
    assert nw.analysis_examples(25_000) == 512
    assert nw.analysis_examples(50_000) == 256
    assert nw.analysis_examples(100_234) == 128
    assert nw.analysis_examples(10**9) == 1  # never zero
    net = nw.train(nw.NetConfig(hidden=(512, 128), steps=1))
    loss, m = nw.analysis_loss(net)
    assert m == 128
    x, y, _, _ = nw.load_data("digits")
    theta = torch.tensor(net.parameters)
    layers, start = [], 0
    for fan_in, fan_out in zip(net.sizes, net.sizes[1:], strict=False):
        w = theta[start : start + fan_in * fan_out].reshape(fan_out, fan_in)
        start += fan_in * fan_out
        layers.append((w, theta[start : start + fan_out]))
        start += fan_out
    h = torch.as_tensor(x[:m], dtype=torch.float64)
    for i, (w, b) in enumerate(layers):
        h = torch.nn.functional.linear(h, w, b)
        h = torch.tanh(h) if i < len(layers) - 1 else h
    expected = torch.nn.functional.cross_entropy(h, torch.as_tensor(y[:m]))
    assert float(loss(theta)) == pytest.approx(float(expected), rel=1e-12)
    assert nw.analysis_loss(net, examples=512)[1] == 512  # the benchmark's full batch


def test_adam_takes_the_same_steps_as_torch_optim_adam() -> None:
    """Training uses its own Adam (torch.optim's first use imports torch._dynamo); the oracle is
    torch.optim.Adam itself, fed the same gradients, on its own copy of the parameters."""
    gen = torch.Generator().manual_seed(3)
    ours = torch.randn(50, generator=gen, dtype=torch.float64).requires_grad_(True)
    theirs = torch.nn.Parameter(ours.detach().clone())
    adam, reference = nw.FlatAdam(ours, lr=0.05), torch.optim.Adam([theirs], lr=0.05)
    for _ in range(40):
        grad = torch.randn(50, generator=gen, dtype=torch.float64) * 10 ** torch.randint(
            -4, 3, (50,), generator=gen
        )  # entries from 1e-4 to 1e2: the bias corrections and eps all matter
        adam.step(grad)
        theirs.grad = grad.clone()
        reference.step()
    assert torch.equal(ours.detach(), theirs.detach())  # the same arithmetic, bit for bit
    assert not torch.equal(ours.detach(), torch.zeros(50))


def test_the_analysis_does_not_depend_on_the_clock(
    small: nw.TrainedNet, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the analysis computes depends on the model and the settings only: under a clock
    that jumps 100 s per reading it still builds the full Hessian and gives the same numbers
    (only the timings it reports differ). Its refusals are counts (test_hvp_work_is_bounded_by
    the_model_size)."""
    reference = nc.curvature(small, top_k=2, power_steps=20, probes=30)
    monkeypatch.setattr(nc, "time", JumpyClock(100.0))
    slow = nc.curvature(small, top_k=2, power_steps=20, probes=30)
    assert slow.exact is not None and slow.heatmap is not None
    for name in ("lanczos", "power", "probes", "exact", "loss_top", "loss_random"):
        np.testing.assert_array_equal(getattr(slow, name), getattr(reference, name))
