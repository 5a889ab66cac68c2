"""What the second-order route of each application on the page "Why gradients of gradients"
costs next to the first-order one, measured side by side in one run.

Timed calls are interleaved (one call of each per round, so all see the same machine load) and
reported as medians; counts (HVPs) are exact. One thread, as the server runs.

* ``newton_step_over_gd_step``: on Rosenbrock at (-1.2, 1), one Newton step (the gradient with
  ``create_graph=True``, one backward pass per row of the 2 x 2 Hessian, a solve) against one
  gradient-descent step (one gradient): :mod:`hograd_labs.newton.compute`.
* ``hf_newton_hvps_per_step``: the mean CG iterations (HVPs) per step of the page's default
  Hessian-free run on the digits (64-16-10, 1,210 parameters, 1,437 examples, 15 steps, at most
  20 HVPs each).
* ``hf_step_over_sgd_step``: one Hessian-free step (gradient with its graph kept, CG with up to
  20 HVPs, one forward pass for ρ) against one full-batch SGD step on the same network, at
  the start; ``hvp_over_grad`` one HVP on the kept graph against one gradient.
* ``lanczos_hvps_for_1pct``: the HVPs Lanczos (:func:`hograd_labs.stability.compute.lanczos`,
  from a random start) needs before its top Ritz value is within 1 % of λ_max, on the network
  page's default trained model (its full Hessian gives the exact λ_max).
* ``pinn_step_over_plain_fit_step``: one training step of the physics-informed network's
  default heat run (2-20-20-1 tanh MLP, 256 interior + 3 x 64 edge points; the residual's
  u_t and u_xx by ``torch.autograd.grad`` with ``create_graph=True``, then backward to the
  weights) against one plain regression step of the same network on the same points.
* curvature (issue 40; :mod:`hograd_labs.curvature.compute` on its default moons network, 82
  parameters): ``slq_density_l1_error`` (SLQ's density, 10 starts x 30 Lanczos steps, against
  the exact eigvalsh density with the same σ), ``ggn_min_eigenvalue`` (0 up to rounding: G is
  positive semi-definite), ``hutchinson_rel_error_at_1000`` (‖estimate − diag H‖ / ‖diag H‖
  after 1,000 probes), and the cost ratios, each pair timed side by side: one G v over one
  H v, the exact diagonal (n products) and Hutchinson's 1,000 probes over torch.func.hessian,
  SLQ over H built whole plus eigvalsh, the PINN residual's u_xx as one diagonal product over
  vmap(hessian), and f⁽⁴⁾ of sin(x)·exp(x) by nested jvp, forward_ad and Taylor mode over
  nested reverse mode.
* ``anomaly_step_over_plain_step``: one training step of the gradient-statistics network inside
  ``torch.autograd.detect_anomaly()`` against the same step without it (this process only: the
  app never switches anomaly mode on in the server).

Usage::

    python benchmarks/applications.py            # table
    python benchmarks/applications.py --json     # one JSON object on stdout
    python benchmarks/applications.py --rounds 30
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hograd_core import parse
from hograd_core.applications.common import interleaved_medians, saved_bytes
from hograd_core.network import load_data, mlp_loss
from hograd_labs.hf import compute as hf
from hograd_labs.hvp import compute as hvp
from hograd_labs.newton import compute as nt
from hograd_labs.pinn import compute as pinn
from hograd_labs.stability.compute import lanczos


def newton_costs(rounds: int) -> dict[str, float]:
    fn = parse("(1 - x)^2 + 100*(y - x^2)^2")
    f = lambda w: fn.torch({"x": w[0], "y": w[1]})
    w = torch.tensor([-1.2, 1.0], dtype=torch.float64)

    def gd() -> None:
        _, g, _ = nt.derivatives(f, w, False)
        w - 0.001 * g

    def newton() -> None:
        _, g, H = nt.derivatives(f, w, True)
        w - torch.linalg.solve(H, g)

    t = interleaved_medians({"gd": gd, "newton": newton}, rounds)
    return {
        "gd_step_ms": t["gd"] * 1e3,
        "newton_step_ms": t["newton"] * 1e3,
        "newton_step_over_gd_step": t["newton"] / t["gd"],
        "newton_step_over_gd_step_memory": saved_bytes(newton) / saved_bytes(gd),
    }


def hf_costs(rounds: int) -> dict[str, float]:
    config = hf.HFConfig(dataset="digits")
    run = hf.run(config)
    x, y, _, _ = load_data("digits")
    sizes = (64, 16, 10)
    loss = mlp_loss(sizes, x, y)
    theta = hf.initial_parameters(sizes, 0)
    used = []

    def hf_step() -> None:
        used.append(hf.hf_step(loss, theta, config.damping, config.cg_iters)[2])

    def sgd_step() -> None:
        t = theta.clone().requires_grad_(True)
        (g,) = torch.autograd.grad(loss(t), t)
        theta - config.sgd_lr * g

    t0 = theta.clone().requires_grad_(True)
    (g_kept,) = torch.autograd.grad(loss(t0), t0, create_graph=True)
    v = torch.randn(theta.numel(), generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    t = interleaved_medians(
        {
            "hf": hf_step,
            "sgd": sgd_step,
            "grad": lambda: torch.autograd.grad(loss(t0), t0),
            "hvp": lambda: torch.autograd.grad(g_kept @ v, t0, retain_graph=True),
        },
        rounds,
    )
    return {
        "hf_newton_hvps_per_step": float(run.hvps.mean()),
        "hf_step_ms": t["hf"] * 1e3,
        "sgd_step_ms": t["sgd"] * 1e3,
        "hf_step_over_sgd_step": t["hf"] / t["sgd"],
        "hf_step_hvps_timed": int(np.median(used)),
        "hvp_over_grad": t["hvp"] / t["grad"],
        "hvp_over_grad_memory": run.hvp_saved_bytes / run.grad_saved_bytes,
        "hf_final_loss": float(run.hf_losses[-1]),
        "sgd_final_loss": float(run.sgd_losses[-1]),
        "adam_final_loss": float(run.adam_losses[-1]),
        "passes": int(run.hf_passes[-1]),
    }


def lanczos_costs() -> dict[str, float]:
    config = hvp.HvpConfig()  # the network page's default model, as the HVP lab runs it
    net = hvp.train(config)
    loss, _ = hvp.analysed_loss(net, config)
    exact = float(np.linalg.eigvalsh(hvp.full_hessian(hvp.KeptGraph(loss, net.parameters)))[-1])
    theta = torch.tensor(net.parameters, requires_grad=True)
    (g,) = torch.autograd.grad(loss(theta), theta, create_graph=True)
    v0 = torch.randn(theta.numel(), generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    tops, _ = lanczos(lambda v: torch.autograd.grad(g @ v, theta, retain_graph=True)[0], v0, 60)
    within = [k + 1 for k, top in enumerate(tops) if abs(top - exact) <= 0.01 * abs(exact)]
    return {
        "lanczos_hvps_for_1pct": within[0] if within else None,
        "exact_lambda_max": exact,
        "lanczos_lambda_max_at_1pct": tops[within[0] - 1] if within else None,
    }


def anomaly_costs(rounds: int) -> dict[str, float]:
    from hograd_labs.stats import compute as gs

    config = gs.StatsConfig()
    params = gs.initial_parameters(config, torch.float64)
    x, y, _, _ = load_data("digits")

    def step() -> None:
        for p in params:
            p.grad = None
        gs.loss_of(config, params, x[:128], y[:128]).backward()

    def anomaly_step() -> None:
        with torch.autograd.detect_anomaly():
            step()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = interleaved_medians({"plain": step, "anomaly": anomaly_step}, rounds)
    return {"anomaly_step_over_plain_step": t["anomaly"] / t["plain"]}


# ---- MAML (issue 17)


def _interleaved_cpu_medians(calls: dict, rounds: int) -> dict[str, float]:
    """As interleaved_medians, in this thread's CPU seconds: a call that the scheduler pauses
    (a busy machine) is not charged for the pause."""
    times: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(rounds):
        for name, call in calls.items():
            start = time.thread_time()
            call()
            times[name].append(time.thread_time() - start)
    return {name: float(np.median(t)) for name, t in times.items()}


def maml_costs(rounds: int) -> dict[str, float]:
    """One meta-gradient of second-order MAML (inner gradient with create_graph=True) against
    first-order MAML (the same code without it), at θ₀ of the page's default settings (1-40-40-1
    ReLU, 1,761 parameters, 8 tasks, K = 10) with 1 and with 3 inner steps. Time: medians of
    interleaved rounds, in wall seconds and in CPU seconds (``..._cpu_time``, not charged for
    the pauses of a busy machine). Memory: bytes of the saved tensors in the graph the outer backward pass
    walks, counted by walking it from the meta-loss (exact, the same on every run)."""
    from hograd_labs.maml import compute as maml

    def one(inner: int, suffix: str) -> dict[str, float]:
        config = maml.MamlConfig(inner_steps=inner)
        theta = maml.initial_theta(config.hidden, config.seed)
        batch = maml.sine_tasks(torch.Generator().manual_seed(0), config.tasks, 2 * config.k_shot)
        nodes, saved, _, _, _ = maml.costs(config, theta, batch)
        calls = {
            "second": lambda: maml.meta_gradient(theta, batch, config, "second"),
            "first": lambda: maml.meta_gradient(theta, batch, config, "first"),
        }
        t = interleaved_medians(calls, rounds)
        cpu = _interleaved_cpu_medians(calls, rounds)
        return {
            f"maml_second_over_first_time{suffix}": t["second"] / t["first"],
            f"maml_second_over_first_cpu_time{suffix}": cpu["second"] / cpu["first"],
            f"maml_second_over_first_memory{suffix}": saved["second"] / saved["first"],
            f"maml_second_ms{suffix}": t["second"] * 1e3,
            f"maml_first_ms{suffix}": t["first"] * 1e3,
            f"maml_second_nodes{suffix}": nodes["second"],
            f"maml_first_nodes{suffix}": nodes["first"],
            f"maml_second_saved_kb{suffix}": saved["second"] / 1e3,
            f"maml_first_saved_kb{suffix}": saved["first"] / 1e3,
        }

    return {**one(1, ""), **one(3, "_3_inner")}


# ---- physics-informed network (issue 17)


def pinn_costs(rounds: int) -> dict[str, float]:
    """One training step of the page's default heat-equation PINN (forward, u_t and u_xx with
    create_graph=True, backward through them to the weights) against one plain regression
    step of the same network onto the exact u at the same points (forward, backward)."""
    config = pinn.preset("heat")
    gen = torch.Generator().manual_seed(config.seed)
    params = pinn.network_parameters(pinn.network_sizes(config), gen)
    inner, initial, boundary = pinn._points(config, gen)
    xt = torch.cat([inner.detach(), initial.detach(), boundary])
    target = torch.tensor(pinn.exact_solution(config, xt[:, 0].numpy(), xt[:, 1].numpy()))

    def pinn_step() -> None:
        sum(pinn._loss_terms(params, config, inner, initial, boundary)).backward()

    def plain_step() -> None:
        (pinn.mlp(params, xt) - target).pow(2).mean().backward()

    pinn_step(), plain_step()
    t = interleaved_medians({"pinn": pinn_step, "plain": plain_step}, rounds)
    return {
        "pinn_step_ms": t["pinn"] * 1e3,
        "plain_fit_step_ms": t["plain"] * 1e3,
        "pinn_step_over_plain_fit_step": t["pinn"] / t["plain"],
    }


# ---- WGAN-GP (issue 17)


def wgan_costs(rounds: int) -> dict[str, float]:
    """``gp_step_over_plain_step``: one critic step of the page's default WGAN-GP run (8
    Gaussians, batch 64, a 2-32-32-1 tanh critic, Adam) with the gradient penalty (its
    ``create_graph=True`` gradient, then backward through it) against the same step without
    the penalty: :func:`hograd_labs.wgan.compute.step_costs`."""
    from hograd_labs.wgan.compute import WganConfig, step_costs

    costs = step_costs(WganConfig(), rounds)
    return {
        "gp_step_over_plain_step": costs.gp_seconds / costs.plain_seconds,
        "gp_critic_step_ms": costs.gp_seconds * 1e3,
        "plain_critic_step_ms": costs.plain_seconds * 1e3,
    }


# ---- curvature beyond one number (issue 40)


def curvature_costs(rounds: int) -> dict[str, float]:
    """The accuracy of each curvature route on the curvature tab's network, and what each
    costs against the route it replaces (interleaved medians)."""
    from hograd_core.diagonal import exact_diagonal, hutchinson_diagonal
    from hograd_core.forward_mode import forward_costs
    from hograd_labs.curvature import compute as cv

    config = cv.NetworkCurvatureConfig()
    sp = cv.spectra(config)
    model, loss, theta = cv.network_model(config.hidden, config.train_steps, config.seed)
    n = theta.numel()

    def f(w: torch.Tensor) -> torch.Tensor:
        return loss(model(w))

    exact = exact_diagonal(f, theta)
    estimate = hutchinson_diagonal(f, theta, 1000, 0).mean(dim=0)
    v = torch.ones(n, dtype=torch.float64) / n**0.5
    g, h = cv.ggn_product(model, loss, theta), cv.hessian_product(f, theta)

    def whole_eigvalsh() -> None:
        np.linalg.eigvalsh(cv.matrix_of(h, n))

    calls = {
        "ggn": lambda: g(v),
        "hvp": lambda: h(v),
        "exact_diagonal": lambda: exact_diagonal(f, theta),
        "hutchinson": lambda: hutchinson_diagonal(f, theta, 1000, 0),
        "hessian": lambda: cv.full_hessian(f, theta),
        "slq": lambda: cv.slq(h, n, config.lanczos_steps, config.starts, 0),
        "eigvalsh": whole_eigvalsh,
    }
    t = interleaved_medians(calls, max(3, rounds // 4))
    heat = pinn.preset("heat")
    gen = torch.Generator().manual_seed(heat.seed)
    params = pinn.network_parameters(pinn.network_sizes(heat), gen)
    inner, _, _ = pinn._points(heat, gen)
    second = pinn.second_derivative_costs(params, heat, inner, rounds)
    fc = forward_costs(parse("sin(x)*exp(x)"), [0.7], 4, rounds=min(rounds, 7))
    rev = fc.seconds["reverse"][4]
    return {
        "slq_density_l1_error": sp.l1_error,
        "ggn_min_eigenvalue": float(sp.ggn[0]),
        "hessian_min_eigenvalue": float(sp.hessian[0]),
        "hutchinson_rel_error_at_1000": float((estimate - exact).norm() / exact.norm()),
        "ggn_product_over_hvp": t["ggn"] / t["hvp"],
        "exact_diagonal_over_hessian": t["exact_diagonal"] / t["hessian"],
        "hutchinson_1000_over_hessian": t["hutchinson"] / t["hessian"],
        "slq_over_eigvalsh": t["slq"] / t["eigvalsh"],
        "pinn_diagonal_over_hessian": second["diagonal"] / second["hessian"],
        "jvp_over_reverse_order4": fc.seconds["jvp"][4] / rev,
        "forward_ad_over_reverse_order4": fc.seconds["forward_ad"][4] / rev,
        "taylor_over_reverse_order4": fc.seconds["taylor"][4] / rev,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--rounds", type=int, default=21)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    out: dict[str, object] = {"rounds": args.rounds, "threads": 1}
    out.update(newton_costs(args.rounds))
    out.update(hf_costs(args.rounds))
    out.update(lanczos_costs())
    out.update(anomaly_costs(args.rounds))
    # maml
    out.update(maml_costs(args.rounds))
    # pinn
    out.update(pinn_costs(args.rounds))
    # wgan
    out.update(wgan_costs(args.rounds))
    # curvature
    out.update(curvature_costs(args.rounds))
    if args.json:
        print(json.dumps(out))
    else:
        for key, value in out.items():
            print(f"{key:32s} {value:.4g}" if isinstance(value, float) else f"{key:32s} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
