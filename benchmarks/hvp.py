"""Hessian-vector products on a ~100k-parameter MLP: what an HVP costs against one gradient, by
three routes, and how well Lanczos finds the top eigenvalue.

The network is the page's own (``hograd_core.network``): a tanh MLP 64-512-128-10 on the digits
data (100,234 parameters, float64), trained briefly so the curvature is a trained network's.
The loss is the page's analysed loss: mean cross-entropy on a fixed batch of 512 examples.

Timed, interleaved (one call of each per round, so all see the same machine load), medians:

* ``grad``: one gradient, ``torch.autograd.grad(loss(θ), θ)``;
* double backward: forward, gradient with ``create_graph=True``, second backward
  (``hvp_over_grad``, target <= 2.5, theory about 2); like the other two routes, one whole HVP
  from θ and v, so the three ratios compare like with like;
* double backward reusing the gradient graph: only ``grad(g @ v, θ, retain_graph=True)`` with
  ``g`` built once, which is what each further HVP costs inside Lanczos and power iteration
  (``hvp_reuse_over_grad``);
* forward-over-reverse: ``torch.func.jvp(torch.func.grad(loss), (θ,), (v,))``;
* ``torch.autograd.functional.hvp(loss, θ, v)``.

Accuracy: on the page's default 1,210-parameter model, where the full Hessian is built, the
relative error of the top eigenvalue by Lanczos (scipy ``eigsh``) and by 20 power iterations
(``lanczos_rel_error``, target < 1%).

Usage::

    python benchmarks/hvp.py            # table
    python benchmarks/hvp.py --json     # one JSON object on stdout
    python benchmarks/hvp.py --rounds 30
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from anywhere

from hograd_core import network as nw  # noqa: E402
from hograd_core.curvature import _load_forward_ad  # noqa: E402

BIG = nw.NetConfig(hidden=(512, 128), steps=150, batch=128)
SMALL = nw.NetConfig()  # the page's default: 64-16-10, 1,210 parameters
TARGETS = {"hvp_over_grad": 2.5, "lanczos_rel_error": 0.01}


def routes(loss: Callable, theta0: torch.Tensor, v: torch.Tensor) -> dict[str, Callable]:
    """Zero-argument callables, each returning a gradient or an HVP as a tensor."""
    theta = theta0.clone().requires_grad_(True)
    (g,) = torch.autograd.grad(loss(theta), theta, create_graph=True)  # kept for "reuse"

    def grad() -> torch.Tensor:
        t = theta0.clone().requires_grad_(True)
        return torch.autograd.grad(loss(t), t)[0]

    def reuse() -> torch.Tensor:
        return torch.autograd.grad(g @ v, theta, retain_graph=True)[0]

    def scratch() -> torch.Tensor:
        t = theta0.clone().requires_grad_(True)
        (gt,) = torch.autograd.grad(loss(t), t, create_graph=True)
        return torch.autograd.grad(gt @ v, t)[0]

    def fwd_over_rev() -> torch.Tensor:
        return torch.func.jvp(torch.func.grad(loss), (theta0,), (v,))[1]

    def functional() -> torch.Tensor:
        return torch.autograd.functional.hvp(loss, theta0, v)[1]

    return {"grad": grad, "hvp_reuse": reuse, "hvp_scratch": scratch,
            "fwd_over_rev": fwd_over_rev, "functional_hvp": functional}  # fmt: skip


def timed(calls: dict[str, Callable], rounds: int, warmup: int = 2) -> dict[str, float]:
    """Median seconds per call, measured interleaved: each round calls every route once."""
    times: dict[str, list[float]] = {name: [] for name in calls}
    for r in range(rounds + warmup):
        for name, call in calls.items():
            start = time.perf_counter()
            call()
            if r >= warmup:
                times[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in times.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=25)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)  # as the app runs (app.py); a script may set global state
    _load_forward_ad()  # torch's forward-AD import, without its DeprecationWarning

    started = time.perf_counter()
    big = nw.train(BIG)
    loss = nw.loss_function(big)
    theta0 = torch.tensor(big.parameters)
    v = torch.randn(theta0.numel(), generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    calls = routes(loss, theta0, v)
    values = {name: call() for name, call in calls.items() if name != "grad"}
    ref = values["hvp_scratch"]
    agreement = max(float((x - ref).norm() / ref.norm()) for x in values.values())
    med = timed(calls, args.rounds)

    small = nw.train(SMALL)
    curv = nw.curvature(small, top_k=1, power_steps=20, probes=2)
    exact = float(curv.exact[0])
    out = {
        "parameters": int(theta0.numel()),
        "trained_steps": big.steps,  # fewer than 150 if the 2 s training cap hit
        "examples": curv.examples,
        "rounds": args.rounds,
        "grad_ms": med["grad"] * 1e3,
        "hvp_over_grad": med["hvp_scratch"] / med["grad"],
        "hvp_reuse_over_grad": med["hvp_reuse"] / med["grad"],
        "fwd_over_rev_over_grad": med["fwd_over_rev"] / med["grad"],
        "functional_hvp_over_grad": med["functional_hvp"] / med["grad"],
        "hvp_agreement": agreement,
        "small_parameters": curv.parameters,
        "lanczos_rel_error": abs(float(curv.lanczos[0]) - exact) / abs(exact),
        "lanczos_hvps": curv.lanczos_hvps,
        "power_rel_error": abs(float(curv.power[-1]) - exact) / abs(exact),
        "power_steps": int(curv.power.size),
        "full_hessian_gb_float64": theta0.numel() ** 2 * 8 / 1e9,
        "full_hessian_gb_float32": theta0.numel() ** 2 * 4 / 1e9,
        "targets": TARGETS,
        "seconds": time.perf_counter() - started,
    }
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"MLP 64-512-128-10 on digits, {out['parameters']:,} parameters, float64, "
          f"{out['examples']} examples, median of {args.rounds} interleaved rounds")  # fmt: skip
    print(f"  one gradient                       {out['grad_ms']:8.2f} ms   1.00x")
    for key, label in (("hvp_over_grad", "HVP, double backward"),
                       ("hvp_reuse_over_grad", "  same, gradient graph reused"),
                       ("fwd_over_rev_over_grad", "HVP, forward-over-reverse"),
                       ("functional_hvp_over_grad", "HVP, autograd.functional.hvp")):  # fmt: skip
        print(f"  {label:<35}{out[key] * out['grad_ms']:8.2f} ms  {out[key]:5.2f}x")
    print(f"  the HVPs agree to {agreement:.1e} (relative)")
    print(f"Top eigenvalue of the {out['small_parameters']:,}-parameter model vs its full Hessian:")
    lanczos = f"Lanczos ({out['lanczos_hvps']} HVPs)"
    power = f"power iteration ({out['power_steps']} HVPs)"
    print(f"  {lanczos:<28} relative error {out['lanczos_rel_error']:.1e}")
    print(f"  {power:<28} relative error {out['power_rel_error']:.1e}")
    print(f"A full Hessian of {out['parameters']:,} parameters: "
          f"{out['full_hessian_gb_float64']:.0f} GB in float64, "
          f"{out['full_hessian_gb_float32']:.0f} GB in float32")  # fmt: skip
    print(f"({out['seconds']:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
