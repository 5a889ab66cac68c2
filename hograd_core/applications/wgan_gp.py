"""WGAN-GP on 2-D toy data: a gradient penalty is a loss on a gradient.

A Wasserstein GAN's critic D should be 1-Lipschitz. Gulrajani et al. (2017) ask for it softly:
on interpolates x̂ = εx + (1−ε)x̃ between real points x and generated points x̃ (ε uniform in
[0, 1]) they add λ·(‖∇_x̂ D(x̂)‖ − 1)² to the critic's loss. That term is a function of a
gradient, so the critic's update needs the gradient of a gradient: ``∇_x̂ D`` must be taken
with ``create_graph=True``. Without it the gradient comes back as a constant, the penalty is a
number with no path to the critic's weights, and training runs on exactly as if it were off.

Both networks are small tanh MLPs kept as lists of tensors (``mlp``), trained with Adam
(β = (0.5, 0.9); the paper's Algorithm 1 uses β₁ = 0 and a learning rate of 1e-4, for far
longer runs than one click allows) in float64; every random number comes from one
``torch.Generator``, drawn in the same order in every mode, so "penalty without create_graph"
and "no penalty" draw the same batches.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from ..errors import ArgumentError
from .common import check, check_work

__all__ = [
    "DATASETS", "MODES", "WGAN_BUDGET", "WganConfig", "WganRun", "check_config", "gradient_penalty",
    "init_mlp",
    "mlp", "sample_data", "smoothed_gap", "train_wgan",
]  # fmt: skip

DATASETS = ("8gaussians", "moons", "ring")
#: "gp": the penalty with create_graph=True; "gp_no_graph": the same line without it (the
#: silent bug); "none": no constraint at all; "clip": weight clipping (Arjovsky et al., 2017).
MODES = ("gp", "gp_no_graph", "none", "clip")
LIMIT = 3.0  # the plots and the critic's contour cover [-LIMIT, LIMIT]²
GRID = 41  # critic values on a GRID x GRID lattice
SHOWN = 400  # generated and real points drawn, and interpolates in the histogram


@dataclass(frozen=True)
class WganBudget:
    max_steps: int = 1_000
    max_n_critic: int = 10
    max_batch: int = 512
    max_hidden: int = 128
    max_snapshots: int = 21
    max_work: float = 6e8  # steps x batch x parameters x passes: ~1.3 s on an idle 2-core host


WGAN_BUDGET = WganBudget()


@dataclass(frozen=True)
class WganConfig:
    dataset: str = "8gaussians"
    mode: str = "gp"
    lam: float = 10.0  # penalty weight λ (Gulrajani et al.: 10)
    n_critic: int = 5  # critic steps per generator step (Gulrajani et al.: 5)
    clip: float = 0.01  # weight-clipping bound c, mode "clip" only (Arjovsky et al.: 0.01)
    steps: int = 200  # generator steps
    batch: int = 64
    hidden: int = 32  # width of both hidden layers, in both networks
    lr: float = 3e-3  # Adam, both networks (the paper: 1e-4, for far longer runs)
    snapshots: int = 11  # states kept for the step slider, evenly spaced, first and last
    seed: int = 0


@dataclass(frozen=True)
class WganRun:
    """One training run with snapshots for the step slider.

    Attributes:
        snap_steps: the generator steps of the snapshots (0 = before training).
        fake: (snapshots, SHOWN, 2) generated points from one fixed noise batch.
        real: (SHOWN, 2) data points, drawn once.
        grid: (GRID,) coordinates of the lattice on both axes; critic: (snapshots, GRID, GRID)
            D on it (rows y, columns x).
        norms: (snapshots, SHOWN) ‖∇_x̂ D(x̂)‖ on fixed-ε interpolates of ``real`` and ``fake``.
        wasserstein: per generator step, mean D(real) − mean D(fake) at its last critic step
            (the critic's estimate of the distance, up to its Lipschitz constant).
        penalty: per generator step, λ·mean (‖∇D‖ − 1)² at its last critic step (0 unless "gp").
        status: "ok" or "diverged" (a loss stopped being finite after ``len(wasserstein)``
            steps; the snapshots stop before it).
    """

    config: WganConfig
    snap_steps: np.ndarray
    fake: np.ndarray
    real: np.ndarray
    grid: np.ndarray
    critic: np.ndarray
    norms: np.ndarray
    wasserstein: np.ndarray
    penalty: np.ndarray
    status: str
    critic_parameters: int


# ----------------------------------------------------------------------------------------------
# The pieces (their source is pasted into the generated script)


def sample_data(name, n, gen, dtype=torch.float64):  # noqa: ANN001, ANN201
    """n points of the toy distribution ``name`` ("8gaussians", "moons" or "ring")."""
    noise = torch.randn(n, 2, generator=gen, dtype=dtype)
    u = torch.rand(n, generator=gen, dtype=dtype)
    if name == "8gaussians":  # 8 tight blobs on the circle of radius 2
        angle = torch.floor(u * 8) * (math.pi / 4)
        return 2 * torch.stack([torch.cos(angle), torch.sin(angle)], 1) + 0.1 * noise
    if name == "ring":  # a thin ring of radius 2
        angle = u * 2 * math.pi
        return 2 * torch.stack([torch.cos(angle), torch.sin(angle)], 1) + 0.05 * noise
    t = (u * 2 % 1) * math.pi  # two moons: half the points on each, centred at 0
    upper = torch.stack([torch.cos(t) - 0.5, torch.sin(t) - 0.25], 1)
    lower = torch.stack([0.5 - torch.cos(t), 0.25 - torch.sin(t)], 1)
    return 1.5 * torch.where((u < 0.5)[:, None], upper, lower) + 0.1 * noise


def init_mlp(sizes, gen, dtype=torch.float64):  # noqa: ANN001, ANN201
    """Weights uniform in ±1/√fan_in (PyTorch's nn.Linear default), biases 0, as one list."""
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:], strict=True):
        w = (torch.rand(fan_out, fan_in, generator=gen, dtype=dtype) * 2 - 1) / math.sqrt(fan_in)
        params += [w.requires_grad_(), torch.zeros(fan_out, dtype=dtype, requires_grad=True)]
    return params


def mlp(params, x):  # noqa: ANN001, ANN201
    """x through the layers (weight, bias) of ``params``, tanh between them."""
    for i in range(0, len(params), 2):
        x = x @ params[i].T + params[i + 1]
        if i + 2 < len(params):
            x = torch.tanh(x)
    return x


def gradient_penalty(critic, real, fake, eps, lam, create_graph=True):  # noqa: ANN001, ANN201
    """λ·mean (‖∇_x̂ D(x̂)‖ − 1)² on x̂ = εx + (1−ε)x̃, and the norms ‖∇_x̂ D(x̂)‖."""
    x_hat = (eps * real + (1 - eps) * fake).requires_grad_(True)  # interpolates (batch, 2)
    (g,) = torch.autograd.grad(critic(x_hat).sum(), x_hat, create_graph=create_graph)
    norms = g.norm(dim=1)  # (batch,) one gradient norm per interpolate
    return lam * ((norms - 1) ** 2).mean(), norms


# ----------------------------------------------------------------------------------------------
# Public API


def check_config(config: WganConfig) -> int:
    """Refuse a setting out of range or over the budget, before any work; return the number
    of the critic's parameters.

    Raises:
        ArgumentError, BudgetError: with the setting, its range and the value received.
    """
    b = WGAN_BUDGET
    if config.dataset not in DATASETS:
        raise ArgumentError("wgan.dataset", got=str(config.dataset)[:40], known=", ".join(DATASETS))
    if config.mode not in MODES:
        raise ArgumentError("wgan.mode", got=str(config.mode)[:40], known=", ".join(MODES))
    check("lambda", config.lam, 0.0, 1000.0)
    check("n_critic", config.n_critic, 1, b.max_n_critic)
    check("clip", config.clip, 1e-4, 10.0)
    check("steps", config.steps, 1, b.max_steps)
    check("batch", config.batch, 8, b.max_batch)
    check("hidden", config.hidden, 2, b.max_hidden)
    check("lr", config.lr, 1e-6, 1.0)
    check("snapshots", config.snapshots, 2, b.max_snapshots)
    check("seed", config.seed, 0, 10_000)
    h = config.hidden
    n = 2 * h + h + h * h + h + h + 1  # (2, h, h, 1)
    passes = 3 if config.mode.startswith("gp") else 1  # the penalty's double backward
    work = config.steps * config.batch * n * (config.n_critic * (2 + passes) + 2)
    check_work("wgan.budget.work", work, b.max_work)
    return n


def train_wgan(config: WganConfig, progress: Callable[[int, int], None] | None = None) -> WganRun:
    """Train the generator and critic of ``config`` and keep snapshots for the step slider.

    Raises:
        ArgumentError, BudgetError: see :func:`check_config` (checked before any work).
    """
    n_params = check_config(config)
    dtype, h = torch.float64, config.hidden
    gen = torch.Generator().manual_seed(int(config.seed))
    D = init_mlp([2, h, h, 1], gen)  # noqa: N806 (the critic)
    G = init_mlp([2, h, h, 2], gen)  # noqa: N806 (the generator: 2-D noise to 2-D points)
    opt_d = torch.optim.Adam(D, lr=config.lr, betas=(0.5, 0.9))
    opt_g = torch.optim.Adam(G, lr=config.lr, betas=(0.5, 0.9))
    show = torch.Generator().manual_seed(int(config.seed) + 1)  # the drawn points: fixed
    real_shown = sample_data(config.dataset, SHOWN, show)
    z_shown = torch.randn(SHOWN, 2, generator=show, dtype=dtype)
    eps_shown = torch.rand(SHOWN, 1, generator=show, dtype=dtype)
    axis = torch.linspace(-LIMIT, LIMIT, GRID, dtype=dtype)
    lattice = torch.stack(torch.meshgrid(axis, axis, indexing="xy"), -1).reshape(-1, 2)
    at = set(np.linspace(0, config.steps, config.snapshots).round().astype(int).tolist())
    snaps: dict[str, list] = {"steps": [], "fake": [], "critic": [], "norms": []}

    def snapshot(step: int) -> None:
        fake = mlp(G, z_shown).detach()
        _, norms = gradient_penalty(lambda x: mlp(D, x), real_shown, fake, eps_shown, 1.0, False)
        snaps["steps"].append(step)
        snaps["fake"].append(fake.numpy())
        snaps["critic"].append(mlp(D, lattice).detach().reshape(GRID, GRID).numpy())
        snaps["norms"].append(norms.detach().numpy())

    wasserstein, penalties, status = [], [], "ok"
    for step in range(config.steps):
        if step in at:
            snapshot(step)
        for _ in range(config.n_critic):
            real = sample_data(config.dataset, config.batch, gen)
            fake = mlp(G, torch.randn(config.batch, 2, generator=gen, dtype=dtype)).detach()
            eps = torch.rand(config.batch, 1, generator=gen, dtype=dtype)
            w = mlp(D, real).mean() - mlp(D, fake).mean()
            gp = torch.zeros((), dtype=dtype)
            if config.mode.startswith("gp"):
                graph = config.mode == "gp"
                gp, _ = gradient_penalty(lambda x: mlp(D, x), real, fake, eps, config.lam, graph)
            opt_d.zero_grad()
            (gp - w).backward()  # the critic maximises w, softly 1-Lipschitz
            opt_d.step()
            if config.mode == "clip":
                with torch.no_grad():
                    for p in D:
                        p.clamp_(-config.clip, config.clip)
        z = torch.randn(config.batch, 2, generator=gen, dtype=dtype)
        g_loss = -mlp(D, mlp(G, z)).mean()
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()
        wasserstein.append(float(w.detach()))
        penalties.append(float(gp.detach()))
        if not all(
            math.isfinite(v) for v in (wasserstein[-1], penalties[-1], float(g_loss.detach()))
        ):
            status = "diverged"
            break
        if progress is not None and (step + 1) % max(1, config.steps // 50) == 0:
            progress(step + 1, config.steps)
    if status == "ok":
        snapshot(config.steps)
    return WganRun(
        config, np.array(snaps["steps"]), np.array(snaps["fake"]), real_shown.numpy(),
        axis.numpy(), np.array(snaps["critic"]), np.array(snaps["norms"]),
        np.array(wasserstein), np.array(penalties), status, n_params,
    )  # fmt: skip


def smoothed_gap(run: WganRun, window: int = 50) -> tuple[float, int, float]:
    """(mean of the critic's gap over the last ``window`` generator steps (fewer if the run is
    shorter), the steps averaged, the share of all steps whose gap was negative).

    One step's gap is mean D(real) − mean D(fake) on one mini-batch: noisy, and negative on
    many steps of a run that works. For a 1-Lipschitz critic its expectation is at most the
    Wasserstein-1 distance (Kantorovich–Rubinstein), so the average estimates a lower bound.
    """
    gaps = run.wasserstein
    if not gaps.size:
        return math.nan, 0, math.nan
    last = gaps[-window:]
    return float(last.mean()), int(last.size), float((gaps < 0).mean())
