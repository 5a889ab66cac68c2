"""The memory lab's counts against counts the test makes itself: its own saved-tensor hooks,
PyTorch's own error, the big batch's own gradient."""

from __future__ import annotations

import ast
import gc
import inspect
import subprocess
import sys
import weakref

import pytest
import torch
from torch.utils.checkpoint import checkpoint

from hograd_labs.memory import compute
from hograd_labs.memory.compute import (
    MemoryConfig,
    block,
    dot,
    layer,
    loss_of,
    make_data,
    make_params,
)
from hograd_labs.memory.figures import RETAIN_CODE
from hograd_ui.i18n import catalogue
from tests.english import raises

SMALL = MemoryConfig(width=8, depth=2, batch=12, micro=3, orders=3, seed=1)


def kept_storages(work, exclude) -> int:
    """Bytes of the distinct storages behind every tensor autograd saves while ``work`` runs,
    by the test's own hooks: each saved tensor is kept alive in a list, then the storages are
    told apart by address (``untyped_storage().data_ptr()``) and their sizes summed."""
    kept: list[torch.Tensor] = []

    def pack(t: torch.Tensor) -> torch.Tensor:
        kept.append(t.detach())
        return t.detach()

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        work()
    skip = {t.untyped_storage().data_ptr() for t in exclude}
    storages = {t.untyped_storage().data_ptr(): t.untyped_storage().nbytes() for t in kept}
    return sum(n for ptr, n in storages.items() if ptr not in skip)


def forward_closed_form(config: MemoryConfig, checkpointed: bool) -> int:
    """What the forward keeps, from the layer sizes: the input layer's tanh output; per block
    its inner activation and its output (checkpointed: its output only, which the next
    checkpoint keeps as its input); the residual out - y for the square. float64."""
    b, w, d = config.batch, config.width, config.depth
    per_block = 1 if checkpointed else 2
    return 8 * b * (w * (1 + per_block * d) + 1)


@pytest.fixture(scope="module")
def result() -> compute.MemoryRun:
    return compute.run(SMALL)


class Box:
    """What the test's pack hook hands autograd: a tensor whose release it can watch."""

    def __init__(self, tensor: torch.Tensor) -> None:
        self.tensor = tensor.detach()


def test_bytes_per_order_equal_the_tests_own_count(result) -> None:
    """The test keeps its own record: at each pack the storage's address and size; after each
    pass, the distinct storages of the boxes still alive (a WeakSet, not a running count)."""
    params, (x, y) = make_params(SMALL), make_data(SMALL)
    v = compute.direction(params, SMALL.seed)
    skip = {t.untyped_storage().data_ptr() for t in (*params, x, y, *v)}
    boxes: weakref.WeakSet[Box] = weakref.WeakSet()
    records: list[list[tuple[int, int]]] = [[]]  # per pass: (address, bytes) at each pack

    def pack(t: torch.Tensor) -> Box:
        storage = t.untyped_storage()
        records[-1].append((storage.data_ptr(), storage.nbytes()))
        box = Box(t)
        boxes.add(box)
        return box

    def alive() -> dict[int, int]:
        gc.collect()
        return {
            b.tensor.untyped_storage().data_ptr(): b.tensor.untyped_storage().nbytes()
            for b in boxes
            if b.tensor.untyped_storage().data_ptr() not in skip
        }

    before: list[dict[int, int]] = [{}]
    held: list[int] = []
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda box: box.tensor):
        d = loss_of(params, x, y)
        held.append(sum(alive().values()))
        for _ in range(SMALL.orders):
            before.append(alive())
            records.append([])
            g = torch.autograd.grad(d, params, create_graph=True, materialize_grads=True)
            d = dot(g, v)
            del g
            held.append(sum(alive().values()))
    new = [
        {a: n for a, n in rec if a not in skip and a not in old}
        for rec, old in zip(records, before, strict=True)
    ]
    assert list(result.pass_bytes) == [sum(n.values()) for n in new]
    assert list(result.saved_counts) == [len(n) for n in new]
    assert list(result.live_after) == held
    # the graph of every order is built on the one before: what is held grows with the order
    assert all(b > a for a, b in zip(result.live_after, result.live_after[1:], strict=False))


def test_a_tensor_saved_by_two_nodes_counts_once() -> None:
    """tanh's output is saved by TanhBackward and by the next mm: one storage, one count."""
    w = torch.ones(3, 3, dtype=torch.float64, requires_grad=True)
    h = torch.ones(2, 3, dtype=torch.float64, requires_grad=True)
    seen: list[int] = []

    def pack(t: torch.Tensor) -> torch.Tensor:
        seen.append(t.untyped_storage().data_ptr())
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        a = torch.tanh(h @ w.T)
        a @ w.T
    assert seen.count(a.untyped_storage().data_ptr()) == 2  # two references
    meter = compute.Meter([w, h])
    with meter.hooks():
        a = torch.tanh(h @ w.T)
        out = a @ w.T
    assert meter.saved == meter.live == a.untyped_storage().nbytes() == 48  # once, 6 × 8 B
    del out, a
    assert meter.live == 0


@pytest.mark.parametrize(
    "config",
    [
        MemoryConfig(width=4, depth=1, batch=5, micro=1, orders=1),
        MemoryConfig(width=8, depth=3, batch=16, micro=1, orders=1),
        SMALL,
    ],
    ids=str,
)
def test_the_forward_equals_the_closed_form_and_the_tests_own_count(config) -> None:
    params, (x, y) = make_params(config), make_data(config)
    for checkpointed in (False, True):
        reentrant = False if checkpointed else None
        own = kept_storages(lambda r=reentrant: loss_of(params, x, y, r), [*params, x, y])
        assert own == forward_closed_form(config, checkpointed)
    assert compute.orders(config)[0][0] == forward_closed_form(config, False)
    plain_forward, ckpt_forward = (compute.hessian_vector(config, r)[1] for r in (None, False))
    assert plain_forward == forward_closed_form(config, False)
    assert ckpt_forward == forward_closed_form(config, True)


def test_checkpoint_saves_each_blocks_input_through_the_pack_hook() -> None:
    """torch 2.13's non-reentrant checkpoint packs the block's inputs with the active hook."""
    config = MemoryConfig(width=4, depth=1, batch=3, micro=1, orders=1)
    weights = make_params(config)[2:6]
    h = torch.randn(3, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    h.requires_grad_()
    seen: list[int] = []

    def pack(t: torch.Tensor) -> torch.Tensor:
        seen.append(t.untyped_storage().data_ptr())
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        checkpoint(block, h, *weights, use_reentrant=False)
    assert {t.untyped_storage().data_ptr() for t in (h, *weights)} <= set(seen)
    for lang in ("en", "zh"):
        said = catalogue(lang)["memory.checkpoint.inputs"]
        assert "Not counted" not in said and "没有统计" not in said


@pytest.mark.parametrize(
    "config",
    [SMALL, MemoryConfig(width=16, depth=4, batch=32, micro=1, orders=1)],
    ids=str,
)
def test_checkpointed_hv_equals_the_plain_hv_and_keeps_what_the_closed_form_says(config) -> None:
    plain, plain_forward, plain_held = compute.hessian_vector(config, None)
    ckpt, ckpt_forward, ckpt_held = compute.hessian_vector(config, False)
    for a, b in zip(plain, ckpt, strict=True):
        torch.testing.assert_close(a, b, rtol=0, atol=1e-12)
    # an oracle the lab did not write: torch.autograd.functional.hvp on the same loss
    params, (x, y) = make_params(config), make_data(config)
    v = compute.direction(params, config.seed)
    _, want = torch.autograd.functional.hvp(
        lambda *p: loss_of(list(p), x, y), tuple(params), tuple(v)
    )
    for a, b in zip(ckpt, want, strict=True):
        torch.testing.assert_close(a, b, rtol=0, atol=1e-12)
    # the forward keeps one activation per block less (the inner one of its two layers) ...
    assert plain_forward - ckpt_forward == 8 * config.batch * config.width * config.depth
    # ... and before the second grad one more: each block's recomputed output
    assert ckpt_held - plain_held == 8 * config.batch * config.width * config.depth


def test_the_run_reports_the_hessian_vector_counts(result) -> None:
    plain, plain_forward, plain_held = compute.hessian_vector(SMALL, None)
    _, ckpt_forward, ckpt_held = compute.hessian_vector(SMALL, False)
    assert (result.plain_forward_bytes, result.checkpoint_forward_bytes) == (
        plain_forward,
        ckpt_forward,
    )
    assert (result.plain_hv_bytes, result.checkpoint_hv_bytes) == (plain_held, ckpt_held)
    assert result.hv_difference <= 1e-12


def test_the_reentrant_error_is_pytorchs_own(result) -> None:
    w = torch.ones(3, 3, dtype=torch.float64, requires_grad=True)
    h = torch.ones(2, 3, dtype=torch.float64, requires_grad=True)
    out = checkpoint(layer, h, w, torch.zeros(3, dtype=torch.float64), use_reentrant=True)
    with pytest.raises(RuntimeError) as err:
        torch.autograd.grad(out.sum(), w)
    assert result.reentrant_error == str(err.value)
    assert "use_reentrant=True" in result.reentrant_error


def test_accumulation_gives_the_big_batchs_gradient_with_a_lower_peak(result) -> None:
    params, (x, y) = make_params(SMALL), make_data(SMALL)
    want = torch.autograd.grad(loss_of(params, x, y), params)
    diff, big_peak, micro_peak = compute.accumulation(SMALL)
    assert diff <= 1e-12 and result.grad_difference <= 1e-12
    assert big_peak == result.pass_bytes[0]  # one batch: the whole forward held at once
    assert micro_peak < big_peak
    # and the accumulated .grad is the big batch's gradient, by the test's own loop
    small = make_params(SMALL)
    size = SMALL.batch // SMALL.micro
    for i in range(SMALL.micro):
        part = slice(i * size, (i + 1) * size)
        (loss_of(small, x[part], y[part]) / SMALL.micro).backward()
    for p, g in zip(small, want, strict=True):
        torch.testing.assert_close(p.grad, g, rtol=0, atol=1e-12)


def test_retain_graph_keeps_until_the_next_backward_or_the_last_reference(result) -> None:
    full = result.pass_bytes[0]
    assert result.retain_steps == (
        ("forward", full),
        ("retain", full),
        ("second", 0),
        ("again", full),
        ("deleted", 0),
    )


def test_each_retain_step_is_shown_as_the_code_that_ran_it() -> None:
    """The table's code column is compute.retain's own statements, step by step."""
    assert RETAIN_CODE == {
        "forward": "loss = loss_of(params, x, y)",
        "retain": "loss.backward(retain_graph=True)",
        "second": "loss.backward()",
        "again": "loss = loss_of(params, x, y); loss.backward(retain_graph=True)",
        "deleted": "del loss",
    }


@pytest.mark.parametrize(
    "change",
    [{"width": 65}, {"depth": 5}, {"batch": 257}, {"orders": 5}, {"micro": 5}, {"width": 2.5}],
)
def test_sizes_are_refused_before_anything_runs(change: dict) -> None:
    fields = {**SMALL.__dict__, **change}
    with raises(ValueError, match=next(iter(change))):
        compute.run(MemoryConfig(**fields))


def test_the_download_is_the_module_and_runs_alone(tmp_path) -> None:
    source = inspect.getsource(compute)
    tree = ast.parse(source)
    imported = {
        (n.module if isinstance(n, ast.ImportFrom) else a.name).split(".")[0]
        for n in ast.walk(tree)
        if isinstance(n, ast.Import | ast.ImportFrom)
        for a in n.names
    }
    assert imported <= {"__future__", "math", "dataclasses", "torch"}
    small = source.replace("    config = MemoryConfig()", f"    config = {SMALL!r}")
    assert small != source
    path = tmp_path / "memory.py"
    path.write_text(small)
    out = subprocess.run(
        [sys.executable, str(path)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
        cwd=tmp_path,
    ).stdout
    run = compute.run(SMALL)
    for k, (s, held) in enumerate(zip(run.pass_bytes, run.live_after, strict=True)):
        assert f"order {k}: saved {s} bytes, held {held}" in out
    assert run.reentrant_error in out
