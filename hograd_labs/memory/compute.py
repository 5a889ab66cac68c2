"""What a double-backward graph keeps in memory, counted on a small network.

Every tensor autograd saves for a backward pass goes through the pack hook of
``torch.autograd.graph.saved_tensors_hooks``. The hook here wraps each saved tensor in a
``Kept`` box and counts the memory behind it: its storage (``untyped_storage()``), once,
however many nodes save it or views of it (a tanh output is saved by TanhBackward and by the
next MmBackward: one storage). The storage leaves the count when autograd drops the last box
that holds it, so ``meter.live`` is what the graph keeps alive right now and ``meter.peak`` the
most it kept. Not counted: the parameters, the data and the direction v, which the script
holds anyway. Four measurements:

1. orders: the forward, then d^k L along v for k = 1..orders, each grad taken with
   create_graph=True; the bytes each pass saved, and what stays alive while only the last
   result is kept (its graph is built on the earlier passes' graphs, so most of them stay).
2. checkpoint: a Hessian-vector product H v = grad(grad(L)·v) with the hidden blocks run
   through torch.utils.checkpoint(use_reentrant=False): the same H v. A block is two layers,
   so its inner activation is what checkpointing does not keep; the block's input it does keep
   (saved through the same pack hook, so counted). With use_reentrant=True,
   torch.autograd.grad raises; its message is kept word for word.
3. accumulation: the gradient of the mean loss over one batch, against micro-batches whose
   .backward() calls add up in .grad; the same gradient, a smaller peak.
4. retain: loss.backward(retain_graph=True) keeps the saved tensors; the next backward without
   it frees them.

Run it: python memory.py (torch only). Everything is float64 and sized by ``MemoryConfig``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch.utils.checkpoint import checkpoint

#: Each order's graph is built on the one before: the bytes grow about 2-4x per order. At the
#: largest sizes (width 64, depth 4, batch 256, order 4) the graph keeps about 68 MB and the
#: four measurements take about 0.5 s of one core (measured on the 2-core test machine).
LIMITS = {"width": (2, 64), "depth": (1, 4), "batch": (1, 256), "micro": (1, 16), "orders": (1, 4)}


@dataclass(frozen=True)
class MemoryConfig:
    width: int = 32  # hidden units per layer
    depth: int = 3  # hidden blocks of two layers tanh(W₂ tanh(W₁ h + b₁) + b₂)
    batch: int = 64  # samples in the one large batch
    micro: int = 4  # micro-batches for accumulation (must divide batch)
    orders: int = 3  # derivative orders measured: d^k L along v, k = 1..orders
    seed: int = 0


@dataclass(frozen=True)
class MemoryRun:
    """Bytes are exact sizes of the storages autograd's saved tensors keep alive, each
    storage once, parameters, data and v left out (float64: 8 bytes per number).

    Attributes:
        pass_bytes: bytes of the storages the forward (index 0) and the k-th grad pass
            (index k) newly kept.
        live_after: bytes kept by the graph after each pass (while its result lives).
        saved_counts: how many storages each pass newly kept.
        plain_forward_bytes, checkpoint_forward_bytes: bytes the forward of H v kept.
        plain_hv_bytes, checkpoint_hv_bytes: bytes kept right before the second grad of H v.
        hv_difference: max |H v (plain) - H v (checkpoint)|.
        reentrant_error: PyTorch's message for torch.autograd.grad with use_reentrant=True.
        big_peak, micro_peak: most bytes held at once, one batch against micro-batches.
        grad_difference: max |gradient (one batch) - gradient (accumulated)|.
        retain_steps: (step, bytes held after it) for the retain_graph story.
    """

    config: MemoryConfig
    parameters: int
    pass_bytes: tuple[int, ...]
    live_after: tuple[int, ...]
    saved_counts: tuple[int, ...]
    plain_forward_bytes: int
    checkpoint_forward_bytes: int
    plain_hv_bytes: int
    checkpoint_hv_bytes: int
    hv_difference: float
    reentrant_error: str
    big_peak: int
    micro_peak: int
    grad_difference: float
    retain_steps: tuple[tuple[str, int], ...]


def check(config: MemoryConfig) -> None:
    """Refuse a config outside the limits before anything runs."""
    for name, (low, high) in LIMITS.items():
        value = getattr(config, name)
        if not (isinstance(value, int) and low <= value <= high):
            raise ValueError(f"{name}: expected an integer {low} to {high}, got {value!r}")
    if config.batch % config.micro:
        raise ValueError(f"micro: expected a divisor of batch {config.batch}, got {config.micro}")


# ---- the meter ----------------------------------------------------------------------------------


class Meter:
    """Counts the storages behind the tensors autograd saves, each once, while it keeps them.

    Args:
        exclude: tensors whose storages are not counted (the script holds them anyway).
    """

    def __init__(self, exclude: list[torch.Tensor] = ()) -> None:
        self.live = self.peak = self.saved = self.count = 0
        self.held: dict[int, list[int]] = {}  # storage address -> [boxes holding it, bytes]
        self.exclude = {t.untyped_storage().data_ptr() for t in exclude}

    def hooks(self) -> torch.autograd.graph.saved_tensors_hooks:
        return torch.autograd.graph.saved_tensors_hooks(self.pack, Kept.unpack)

    def pack(self, tensor: torch.Tensor) -> Kept:
        storage = tensor.untyped_storage()
        key = storage.data_ptr()  # one address per live storage: views and re-saves share it
        if key not in self.exclude:
            entry = self.held.setdefault(key, [0, storage.nbytes()])
            if entry[0] == 0:  # a storage not kept until now
                self.live += entry[1]
                self.saved += entry[1]
                self.count += 1
                self.peak = max(self.peak, self.live)
            entry[0] += 1
        # detached: a saved output holding its own grad_fn would make a reference cycle;
        # autograd gives the unpacked tensor its grad_fn back. The box keeps the storage alive,
        # so its address is not reused while it is counted.
        return Kept(tensor.detach(), key, self)

    def drop(self, key: int) -> None:
        entry = self.held.get(key)
        if entry is None:  # an excluded storage
            return
        entry[0] -= 1
        if entry[0] == 0:  # the last box holding it: the storage is no longer kept
            self.live -= entry[1]
            del self.held[key]


class Kept:
    """One saved tensor; its storage leaves the meter when autograd drops the last box."""

    def __init__(self, tensor: torch.Tensor, key: int, meter: Meter) -> None:
        self.tensor, self.key, self.meter = tensor, key, meter

    def unpack(self) -> torch.Tensor:
        return self.tensor

    def __del__(self) -> None:
        self.meter.drop(self.key)


# ---- the network --------------------------------------------------------------------------------


def make_params(config: MemoryConfig) -> list[torch.Tensor]:
    """Input layer 1 -> width, ``depth`` hidden blocks of two layers width -> width, output
    width -> 1: [W, b] of each layer in order."""
    gen = torch.Generator().manual_seed(config.seed)
    sizes = [1] + [config.width] * (2 * config.depth + 1) + [1]
    params = []
    for n_in, n_out in zip(sizes, sizes[1:], strict=False):
        w = torch.randn(n_out, n_in, generator=gen, dtype=torch.float64) / math.sqrt(n_in)
        params += [w.requires_grad_(), torch.zeros(n_out, dtype=torch.float64, requires_grad=True)]
    return params


def make_data(config: MemoryConfig) -> tuple[torch.Tensor, torch.Tensor]:
    gen = torch.Generator().manual_seed(config.seed + 1)
    x = torch.linspace(-2, 2, config.batch, dtype=torch.float64).unsqueeze(1)  # (batch, 1)
    return x, torch.sin(3 * x) + 0.1 * torch.randn(x.shape, generator=gen, dtype=torch.float64)


def layer(h: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.tanh(h @ w.T + b)  # (batch, width)


def block(h: torch.Tensor, w1, b1, w2, b2) -> torch.Tensor:
    """Two layers: the inner activation is what a checkpointed block does not keep."""
    return layer(layer(h, w1, b1), w2, b2)  # (batch, width)


def loss_of(params: list, x: torch.Tensor, y: torch.Tensor, reentrant: bool | None = None):
    """Mean squared error; reentrant None: plain, else the hidden blocks checkpointed."""
    h = layer(x, params[0], params[1])
    for i in range(2, len(params) - 2, 4):
        weights = params[i : i + 4]
        if reentrant is None:
            h = block(h, *weights)
        else:
            h = checkpoint(block, h, *weights, use_reentrant=reentrant)
    out = h @ params[-2].T + params[-1]  # (batch, 1)
    return ((out - y) ** 2).mean()


def direction(params: list, seed: int) -> list[torch.Tensor]:
    gen = torch.Generator().manual_seed(seed + 2)
    return [torch.randn(p.shape, generator=gen, dtype=torch.float64) for p in params]


def dot(a: list, b: list) -> torch.Tensor:
    return sum((u * w).sum() for u, w in zip(a, b, strict=True))


# ---- the four measurements ----------------------------------------------------------------------


def orders(config: MemoryConfig) -> tuple[list[int], list[int], list[int]]:
    """Bytes saved by the forward and each create_graph=True pass; bytes held after each."""
    params, (x, y) = make_params(config), make_data(config)
    v = direction(params, config.seed)
    meter = Meter([*params, x, y, *v])
    saved, live, counts = [], [], []
    with meter.hooks():
        d = loss_of(params, x, y)  # order 0
        saved.append(meter.saved), live.append(meter.live), counts.append(meter.count)
        for _ in range(config.orders):  # d^k L along v: grad of (d^(k-1) L along v)
            before, n = meter.saved, meter.count
            grads = torch.autograd.grad(
                d, params, create_graph=True, allow_unused=True, materialize_grads=True
            )
            d = dot(grads, v)
            del grads  # only d^k L is kept: what it needs of the graph stays alive
            saved.append(meter.saved - before), live.append(meter.live)
            counts.append(meter.count - n)
    return saved, live, counts


def hessian_vector(config: MemoryConfig, reentrant: bool | None) -> tuple[list, int, int]:
    """H v = grad(grad(L)·v); the bytes the forward saved and those held before the second
    grad (the first grad's create_graph=True graph saves the activations it needs again)."""
    params, (x, y) = make_params(config), make_data(config)
    v = direction(params, config.seed)
    meter = Meter([*params, x, y, *v])
    with meter.hooks():
        loss = loss_of(params, x, y, reentrant)
        forward = meter.live
        grads = torch.autograd.grad(loss, params, create_graph=True)
        held = meter.live
        hv = torch.autograd.grad(dot(grads, v), params)  # ∇(∇L·v) = H v
    return [t.detach() for t in hv], forward, held


def reentrant_error(config: MemoryConfig) -> str:
    """PyTorch's own message for torch.autograd.grad through use_reentrant=True."""
    params, (x, y) = make_params(config), make_data(config)
    try:
        torch.autograd.grad(loss_of(params, x, y, reentrant=True), params)
    except RuntimeError as err:
        return str(err)
    return ""


def accumulation(config: MemoryConfig) -> tuple[float, int, int]:
    """One batch against ``micro`` micro-batches adding up in .grad: max difference, peaks."""
    x, y = make_data(config)
    big = make_params(config)
    meter = Meter([*big, x, y])
    with meter.hooks():
        loss_of(big, x, y).backward()
    small = make_params(config)
    micro_meter = Meter([*small, x, y])
    size = config.batch // config.micro
    with micro_meter.hooks():
        for i in range(config.micro):  # mean over the batch = sum of micro means / micro
            part = slice(i * size, (i + 1) * size)
            (loss_of(small, x[part], y[part]) / config.micro).backward()
    diff = max(float((a.grad - b.grad).abs().max()) for a, b in zip(big, small, strict=True))
    return diff, meter.peak, micro_meter.peak


def retain(config: MemoryConfig) -> list[tuple[str, int]]:
    """What backward(retain_graph=True) keeps, and when it is freed."""
    params, (x, y) = make_params(config), make_data(config)
    meter = Meter([*params, x, y])
    steps = []
    with meter.hooks():
        loss = loss_of(params, x, y)
        steps.append(("forward", meter.live))
        loss.backward(retain_graph=True)
        steps.append(("retain", meter.live))
        loss.backward()
        steps.append(("second", meter.live))
        loss = loss_of(params, x, y)
        loss.backward(retain_graph=True)
        steps.append(("again", meter.live))
        del loss
        steps.append(("deleted", meter.live))
    return steps


def run(config: MemoryConfig, progress: object = None) -> MemoryRun:
    """All four measurements for one config."""
    check(config)
    saved, live, counts = orders(config)
    plain, plain_forward, plain_bytes = hessian_vector(config, None)
    ckpt, ckpt_forward, ckpt_bytes = hessian_vector(config, False)
    diff, big_peak, micro_peak = accumulation(config)
    return MemoryRun(
        config=config,
        parameters=sum(p.numel() for p in make_params(config)),
        pass_bytes=tuple(saved),
        live_after=tuple(live),
        saved_counts=tuple(counts),
        plain_forward_bytes=plain_forward,
        checkpoint_forward_bytes=ckpt_forward,
        plain_hv_bytes=plain_bytes,
        checkpoint_hv_bytes=ckpt_bytes,
        hv_difference=max(float((a - b).abs().max()) for a, b in zip(plain, ckpt, strict=True)),
        reentrant_error=reentrant_error(config),
        big_peak=big_peak,
        micro_peak=micro_peak,
        grad_difference=diff,
        retain_steps=tuple(retain(config)),
    )


if __name__ == "__main__":
    config = MemoryConfig()
    result = run(config)
    for k, (s, held) in enumerate(zip(result.pass_bytes, result.live_after, strict=True)):
        print(f"order {k}: saved {s} bytes, held {held}")
    print(
        "H v forward saved, plain:",
        result.plain_forward_bytes,
        "checkpoint:",
        result.checkpoint_forward_bytes,
    )
    print(
        "H v held, plain:",
        result.plain_hv_bytes,
        "checkpoint:",
        result.checkpoint_hv_bytes,
        "difference",
        result.hv_difference,
    )
    print("use_reentrant=True:", result.reentrant_error)
    print(
        "peak, one batch:",
        result.big_peak,
        "micro-batches:",
        result.micro_peak,
        "gradient difference",
        result.grad_difference,
    )
    for step, held in result.retain_steps:
        print(f"retain: {step}: {held} bytes held")
