"""The HVP benchmark's cost model (benchmarks/hvp.py), checked against an independent count:
torch's FlopCounterMode on the real gradient and double-backward calls of the page's network
(hograd_labs/hvp/compute.py, which the benchmark runs)."""

from __future__ import annotations

import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

from benchmarks.hvp import matmul_cost
from hograd_labs.hvp.compute import HvpConfig, analysed_loss, train


def _macs(counter: FlopCounterMode) -> int:
    """Multiply-adds of the matrix products counted (FlopCounterMode counts 2 flops per MAC)."""
    counts = counter.get_flop_counts()["Global"]
    assert set(map(str, counts)) <= {"aten.mm", "aten.addmm"}, counts  # only products counted
    return counter.get_total_flops() // 2


@pytest.mark.parametrize(
    "config",
    [
        HvpConfig(dataset="moons", hidden=(6,), steps=1),  # 2-6-2, one hidden layer
        HvpConfig(dataset="moons", hidden=(7, 5, 3), steps=1),  # three hidden layers
        HvpConfig(dataset="digits", hidden=(9, 4), steps=1),
    ],  # 64-9-4-10
)
def test_the_cost_model_matches_flop_counter(config: HvpConfig) -> None:
    net = train(config)
    loss, examples = analysed_loss(net, config)
    theta = torch.tensor(net.parameters, requires_grad=True)
    v = torch.randn(theta.numel(), generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    with FlopCounterMode(display=False) as plain:
        torch.autograd.grad(loss(theta), theta)
    with FlopCounterMode(display=False) as first:
        (g,) = torch.autograd.grad(loss(theta), theta, create_graph=True)
    with FlopCounterMode(display=False) as second:
        torch.autograd.grad(g @ v, theta)

    cost = matmul_cost(net.sizes, examples)
    assert _macs(plain) == _macs(first) == cost["grad_macs"]  # keeping the graph costs no MACs
    assert _macs(second) == cost["second_backward_macs"]
    assert cost["theory_hvp_over_grad"] == pytest.approx(_macs(second) / _macs(first))
    assert cost["theory_scratch_over_grad"] == pytest.approx(1 + _macs(second) / _macs(first))


def test_the_cost_model_by_hand() -> None:
    # 3-4-2, batch 5: products of 5·3·4 = 60 and 5·4·2 = 40 multiply-adds. A gradient: forward
    # 60 + 40, backward 2·40 + 60 (no input gradient for the data) = 240. Second backward:
    # 2·60 + 6·40 = 360.
    assert matmul_cost((3, 4, 2), 5) == {
        "grad_macs": 240,
        "second_backward_macs": 360,
        "theory_hvp_over_grad": 1.5,
        "theory_scratch_over_grad": 2.5,
    }
