"""Gradient statistics (hograd_labs/stats/compute.py): norms against finite differences and an
nn.Sequential replay, torch.func against autograd, the scenarios' lessons, clipping, the NaN
locator against torch.autograd.detect_anomaly itself, float32 against float64, the exports and
the budget (hograd_labs/stats/cached.py). The download is tested in test_stats_download.py."""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import replace

import numpy as np
import pytest
import torch

from hograd_core import ArgumentError, BudgetError
from hograd_core.network import load_data
from hograd_labs.stats.cached import check_config
from hograd_labs.stats.compute import (
    SCENARIOS,
    StatsConfig,
    anomaly_message,
    digits,
    gradients_func,
    initial_parameters,
    loss_of,
    stats_csv,
    stats_json,
)
from hograd_labs.stats.compute import run as gradient_stats
from tests.english import raises

SMALL = StatsConfig(depth=4, width=16, steps=30)


def replay(config: StatsConfig) -> tuple[list[float], list[list[float]]]:
    """The same training written with torch.nn: Linear layers holding the same numbers."""
    dtype = getattr(torch, config.dtype)
    x, y, _, _ = load_data("digits")
    x = x.to(dtype)
    start = initial_parameters(config, dtype)
    layers = []
    for k in range(0, len(start), 2):
        lin = torch.nn.Linear(start[k].shape[1], start[k].shape[0], dtype=dtype)
        with torch.no_grad():
            lin.weight.copy_(start[k])
            lin.bias.copy_(start[k + 1])
        layers += [lin, torch.nn.Tanh() if config.activation == "tanh" else torch.nn.ReLU()]
    model = torch.nn.Sequential(*layers[:-1])
    gen = torch.Generator().manual_seed(config.seed + 1)
    losses, norms = [], []
    for _ in range(config.steps):
        idx = torch.randint(0, len(y), (config.batch,), generator=gen)
        model.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(x[idx]), y[idx])
        loss.backward()
        losses.append(loss.item())
        norms.append([m.weight.grad.norm().item() for m in model if isinstance(m, torch.nn.Linear)])
        if config.clip:
            torch.nn.utils.clip_grad_norm_(model.parameters(), config.clip)
        with torch.no_grad():
            for p in model.parameters():
                p -= config.lr * p.grad
    return losses, norms


@pytest.mark.parametrize("config", [SMALL, replace(SMALL, activation="relu", gain=1.5, clip=0.5)])
def test_losses_and_norms_match_an_nn_sequential_replay(config: StatsConfig) -> None:
    stats = gradient_stats(config)
    losses, norms = replay(config)
    np.testing.assert_allclose(stats.losses, losses, rtol=1e-10)
    np.testing.assert_allclose(stats.layer_norms, norms, rtol=1e-9)
    if config.clip:
        assert stats.clipped.any()
        np.testing.assert_array_equal(stats.clipped, stats.total_norms > config.clip)


def test_the_gradients_behind_the_norms_match_finite_differences() -> None:
    x, y, _, _ = load_data("digits")
    params = initial_parameters(SMALL, torch.float64)
    loss = loss_of(SMALL, params, x[:64], y[:64])
    grads = torch.autograd.grad(loss, params)
    gen = torch.Generator().manual_seed(5)
    for k in range(0, len(params), 2):
        d = torch.randn(params[k].shape, generator=gen, dtype=torch.float64)
        with torch.no_grad():
            shifted = [p.clone() for p in params]
            shifted[k] += 1e-6 * d
            up = loss_of(SMALL, shifted, x[:64], y[:64])
            shifted[k] -= 2e-6 * d
            down = loss_of(SMALL, shifted, x[:64], y[:64])
        assert float((up - down) / 2e-6) == pytest.approx(float((grads[k] * d).sum()), rel=1e-6)


def test_vanishing_shows_as_a_quiet_first_layer() -> None:
    healthy, vanish = gradient_stats(SCENARIOS["healthy"]), gradient_stats(SCENARIOS["vanish"])
    first_over_last = lambda s: s.layer_norms[-1, 0] / s.layer_norms[-1, -1]
    assert first_over_last(healthy) > 1e-1 and first_over_last(vanish) < 1e-4
    assert healthy.nan_step is None and vanish.nan_step is None


def test_the_vanish_preset_shows_saturation_after_a_large_step_not_a_bad_start() -> None:
    """Its label says what it shows: the same start as "healthy" (the same first gradient
    norms per layer), then lr 2 drives the tanh units into saturation, counted here again
    from a forward pass at the run's own weights, while the first layer's gradient vanishes
    against the last's and the loss rises."""
    healthy, vanish = gradient_stats(SCENARIOS["healthy"]), gradient_stats(SCENARIOS["vanish"])
    np.testing.assert_allclose(vanish.layer_norms[0], healthy.layer_norms[0], rtol=1e-12)
    ratio = vanish.layer_norms[:, 0] / vanish.layer_norms[:, -1]
    assert ratio[0] > 0.5 and ratio[-1] < 1e-4  # vanishing appears during training
    assert vanish.losses[-1] > 3 * vanish.losses[0]  # the loss rose: the step is too large
    assert vanish.saturated[0] == 0 and vanish.saturated[-1] > 0.2
    assert healthy.saturated.max() < 0.01
    # the count, by hand: |tanh| > 0.99 over the hidden layers at the start's first batch
    config = SCENARIOS["vanish"]
    x, y, _, _ = load_data("digits")
    idx = torch.randint(0, len(y), (config.batch,), generator=torch.Generator().manual_seed(1))
    h, saturated, total = x[idx], 0, 0
    params = initial_parameters(config, torch.float64)
    for k in range(0, len(params) - 2, 2):
        h = torch.tanh(h @ params[k].T.detach() + params[k + 1].detach())
        saturated, total = saturated + int((h.abs() > 0.99).sum()), total + h.numel()
    assert vanish.saturated[0] == saturated / total
    assert gradient_stats(SCENARIOS["explode"]).saturated.size == 0  # ReLU: not counted


def test_exploding_ends_in_a_nan_that_clipping_prevents() -> None:
    explode = gradient_stats(SCENARIOS["explode"])
    assert explode.nan_step is not None and explode.nan_step < 20
    finite = explode.total_norms[np.isfinite(explode.total_norms)]
    assert finite[-1] > 1e6 * finite[0]  # the norm grew by orders of magnitude first
    assert explode.nan_layers[0] == "W1" and explode.nan_in_loss
    clipped = gradient_stats(replace(SCENARIOS["explode"], clip=1.0))
    assert clipped.nan_step is None and clipped.clipped.all()
    assert clipped.losses[-1] < 0.1 * clipped.losses[0]


@pytest.mark.parametrize("name", ["explode", "nan32"])
def test_the_nan_locator_names_what_detect_anomaly_names(name: str) -> None:
    stats = gradient_stats(SCENARIOS[name])
    node, output = stats.nan_source
    message = anomaly_message(SCENARIOS[name])  # the real anomaly mode, in this test process
    assert message == f"Function '{node}' returned nan values in its {output}th output."
    assert not torch.is_anomaly_enabled()


def test_float32_overflows_where_float64_does_not() -> None:
    stats = gradient_stats(SCENARIOS["nan32"])
    assert stats.config.dtype == "float32" and stats.nan_step == 0
    assert stats.nan_source == ("LogBackward0", 0)  # log(0) from an underflowed softmax
    assert stats.other_dtype == "float64" and stats.other_nan_step is None
    assert math.isfinite(stats.other_losses[-1])
    stable = gradient_stats(replace(SCENARIOS["nan32"], naive_loss=False))
    assert stable.nan_step is None  # F.cross_entropy never takes log(0)


def test_the_two_precisions_drift_apart_slowly_on_a_healthy_run() -> None:
    stats = gradient_stats(SMALL)
    gap = np.abs(stats.losses - stats.other_losses)
    assert 0 < gap.max() < 1e-4


def test_histograms_count_every_entry() -> None:
    stats = gradient_stats(SMALL)
    entries = [64 * 16] + [16 * 16] * 3 + [16 * 10]
    totals = stats.hist_counts.sum(axis=2) + stats.hist_zeros
    assert (totals == np.array(entries)[None, :]).all()
    assert stats.hist_steps[0] == 0 and stats.hist_steps[-1] == SMALL.steps - 1
    np.testing.assert_array_equal(stats.abs_stats[..., 2], totals)


def test_the_exports_hold_the_same_numbers() -> None:
    stats = gradient_stats(replace(SCENARIOS["explode"], steps=10))
    rows = list(csv.DictReader(io.StringIO(stats_csv(stats))))
    assert len(rows) == len(stats.losses)
    np.testing.assert_allclose([float(r["loss"]) for r in rows], stats.losses)
    np.testing.assert_allclose([float(r["norm_W3"]) for r in rows[:-1]], stats.layer_norms[:-1, 2])
    data = json.loads(stats_json(stats))
    assert data["nan_step"] == stats.nan_step and data["config"]["activation"] == "relu"
    assert len(data["hist_counts"]) == len(stats.hist_steps)


@pytest.mark.parametrize(
    ("config", "error", "match"),
    [
        (replace(SMALL, activation="gelu"), ArgumentError, "gelu"),
        (replace(SMALL, dtype="float16"), ArgumentError, "float16"),
        (replace(SMALL, depth=13), BudgetError, "depth"),
        (replace(SMALL, depth=12, width=128, steps=300, batch=256), BudgetError, "work"),
        (replace(SMALL, lr=-1.0), ArgumentError, "lr"),
    ],
)
def test_refusals_come_before_any_work(config, error, match) -> None:
    with raises(error, match=match):
        check_config(config)


def test_the_scripts_digits_are_the_kernels_training_split() -> None:
    """compute.py loads the digits itself (the download may not import hograd): the same
    examples in the same order as hograd_core.network.load_data, the other pages' loader."""
    x, y = digits()
    want_x, want_y, _, _ = load_data("digits")
    assert x.dtype == want_x.dtype == torch.float64
    assert torch.equal(x, want_x) and torch.equal(y, want_y)


@pytest.mark.parametrize(
    "config",
    [
        SMALL,
        SCENARIOS["explode"],
        SCENARIOS["nan32"],
        replace(SCENARIOS["explode"], clip=1.0, steps=40),
        replace(SCENARIOS["vanish"], steps=20),
    ],
)
def test_torch_func_gives_the_same_run_to_the_last_bit(config: StatsConfig) -> None:
    """grad_and_value runs autograd's backward formulas in the same order: every recorded
    number equal, NaN where autograd has NaN, float32 included; the NaN located alike."""
    plain, func = gradient_stats(config), gradient_stats(config, gradient=gradients_func)
    for name in (
        "losses",
        "layer_norms",
        "total_norms",
        "clipped",
        "hist_counts",
        "abs_stats",
        "other_losses",
        "saturated",
    ):
        np.testing.assert_array_equal(getattr(func, name), getattr(plain, name), err_msg=name)
    assert (func.nan_step, func.nan_layers, func.nan_source, func.other_nan_step) == (
        plain.nan_step,
        plain.nan_layers,
        plain.nan_source,
        plain.other_nan_step,
    )
