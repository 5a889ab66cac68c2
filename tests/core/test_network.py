"""The small network of hograd_core.network (used by the Hessian-free, stability and curvature
labs): its shape, training and analysed loss; budgets counted before any work (never a clock),
and the no-global-state rule. The HVP lab's analysis of it is tested in
tests/labs/test_hvp_compute.py."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest
import torch

from hograd_core import BudgetError, HogradError
from hograd_core import network as nw
from tests.english import raises

TINY = nw.NetConfig(dataset="moons", hidden=(6,), steps=150)  # 2-6-2: 32 parameters


@pytest.fixture(scope="module")
def tiny() -> nw.TrainedNet:
    return nw.train(TINY)


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


def test_results_hold_no_tensors(tiny: nw.TrainedNet) -> None:
    for field in dataclasses.fields(tiny):
        assert not isinstance(getattr(tiny, field.name), torch.Tensor), field.name


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (
            nw.NetConfig(hidden=(512, 512, 512)),
            r"network: 563,722 parameters, over the limit of 120,000",
        ),
        (nw.NetConfig(hidden=(16, 16, 16, 16)), r"hidden layers: expected 1 to 3, got 4"),
        (nw.NetConfig(hidden=()), r"hidden layers: expected 1 to 3, got 0"),
        (nw.NetConfig(hidden=(1000,)), r"hidden width: expected 1 to 512, got 1000"),
        (nw.NetConfig(steps=5000), r"training steps: expected 1 to 2000, got 5000"),
        (nw.NetConfig(batch=0), r"batch size: expected 1 to 512, got 0"),
        (nw.NetConfig(learning_rate=5.0), r"learning rate: expected 1e-05 to 1.0, got 5.0"),
        (nw.NetConfig(dataset="mnist"), r"data set: expected one of digits, moons, got 'mnist'"),
    ],
)
def test_configurations_over_budget_are_refused(config: nw.NetConfig, message: str) -> None:
    with raises(HogradError, match=message):
        nw.train(config)


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
