"""The memory lab's counts against counts the test makes itself: its own saved-tensor hooks,
PyTorch's own error, the big batch's own gradient."""

from __future__ import annotations

import ast
import inspect
import subprocess
import sys
import weakref

import pytest
import torch
from torch.utils.checkpoint import checkpoint

from hograd_labs.memory import compute
from hograd_labs.memory.compute import MemoryConfig, block, dot, loss_of, make_data, make_params
from tests.english import raises

SMALL = MemoryConfig(width=8, depth=2, batch=12, micro=3, orders=3, seed=1)


def own_count(work) -> list[int]:  # noqa: ANN001
    """Bytes of each tensor autograd saves while ``work`` runs, by the test's own hooks."""
    seen: list[int] = []

    def pack(t: torch.Tensor) -> torch.Tensor:
        seen.append(t.numel() * t.element_size())
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        work()
    return seen


@pytest.fixture(scope="module")
def result() -> compute.MemoryRun:
    return compute.run(SMALL)


class Box:
    """What the test's pack hook hands autograd: a tensor whose release it can watch."""

    def __init__(self, tensor: torch.Tensor) -> None:
        self.tensor = tensor.detach()


def test_bytes_per_order_equal_the_tests_own_count(result) -> None:  # noqa: ANN001
    params, (x, y) = make_params(SMALL), make_data(SMALL)
    v = compute.direction(params, SMALL.seed)
    seen: list[int] = []
    alive = {"bytes": 0}
    marks: list[tuple[int, int]] = []  # (tensors seen, bytes alive) after each pass

    def pack(t: torch.Tensor) -> Box:
        size = t.numel() * t.element_size()
        seen.append(size)
        alive["bytes"] += size
        box = Box(t)
        weakref.finalize(box, lambda: alive.__setitem__("bytes", alive["bytes"] - size))
        return box

    def forget(box: Box) -> torch.Tensor:
        return box.tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, forget):
        d = loss_of(params, x, y)
        marks.append((len(seen), alive["bytes"]))
        for _ in range(SMALL.orders):
            g = torch.autograd.grad(d, params, create_graph=True, materialize_grads=True)
            d = dot(g, v)
            del g
            marks.append((len(seen), alive["bytes"]))
    bounds = [0] + [m[0] for m in marks]
    want = [sum(seen[a:b]) for a, b in zip(bounds, bounds[1:], strict=False)]
    assert list(result.pass_bytes) == want
    assert list(result.saved_counts) == [b - a for a, b in zip(bounds, bounds[1:], strict=False)]
    assert list(result.live_after) == [m[1] for m in marks]
    # the graph of every order is built on the one before: what is held grows with the order
    assert all(b > a for a, b in zip(result.live_after, result.live_after[1:], strict=False))
    assert all(b > a for a, b in zip(want[1:], want[2:], strict=False))  # each order saves more


def test_the_forward_of_another_size_equals_the_tests_own_count() -> None:
    config = MemoryConfig(width=4, depth=1, batch=5, micro=1, orders=1)
    saved = compute.orders(config)[0][0]
    assert saved == sum(own_count(lambda: loss_of(make_params(config), *make_data(config))))


def test_checkpointed_hv_equals_the_plain_hv_and_saves_less(result) -> None:  # noqa: ANN001
    plain, plain_forward, plain_held = compute.hessian_vector(SMALL, None)
    ckpt, ckpt_forward, ckpt_held = compute.hessian_vector(SMALL, False)
    for a, b in zip(plain, ckpt, strict=True):
        torch.testing.assert_close(a, b, rtol=0, atol=1e-12)
    # an oracle the lab did not write: torch.autograd.functional.hvp on the same loss
    params, (x, y) = make_params(SMALL), make_data(SMALL)
    v = compute.direction(params, SMALL.seed)
    _, want = torch.autograd.functional.hvp(
        lambda *p: loss_of(list(p), x, y), tuple(params), tuple(v)
    )
    for a, b in zip(ckpt, want, strict=True):
        torch.testing.assert_close(a, b, rtol=0, atol=1e-12)
    assert ckpt_forward < plain_forward
    assert (result.plain_forward_bytes, result.checkpoint_forward_bytes) == (
        plain_forward,
        ckpt_forward,
    )
    assert (result.plain_hv_bytes, result.checkpoint_hv_bytes) == (plain_held, ckpt_held)
    assert result.hv_difference <= 1e-12


def test_the_reentrant_error_is_pytorchs_own(result) -> None:  # noqa: ANN001
    w = torch.ones(3, 3, dtype=torch.float64, requires_grad=True)
    h = torch.ones(2, 3, dtype=torch.float64, requires_grad=True)
    out = checkpoint(block, h, w, torch.zeros(3, dtype=torch.float64), use_reentrant=True)
    with pytest.raises(RuntimeError) as err:
        torch.autograd.grad(out.sum(), w)
    assert result.reentrant_error == str(err.value)
    assert "use_reentrant=True" in result.reentrant_error


def test_accumulation_gives_the_big_batchs_gradient_with_a_lower_peak(result) -> None:  # noqa: ANN001
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


def test_retain_graph_keeps_until_the_next_backward_or_the_last_reference(result) -> None:  # noqa: ANN001
    full = result.pass_bytes[0]
    assert result.retain_steps == (
        ("forward", full),
        ("retain", full),
        ("second", 0),
        ("again", full),
        ("deleted", 0),
    )


@pytest.mark.parametrize(
    "change",
    [{"width": 65}, {"depth": 5}, {"batch": 257}, {"orders": 5}, {"micro": 5}, {"width": 2.5}],
)
def test_sizes_are_refused_before_anything_runs(change: dict) -> None:
    fields = {**SMALL.__dict__, **change}
    with raises(ValueError, match=next(iter(change))):
        compute.run(MemoryConfig(**fields))


def test_the_download_is_the_module_and_runs_alone(tmp_path) -> None:  # noqa: ANN001
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
