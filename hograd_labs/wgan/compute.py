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

This file is the experiment of hograd's WGAN-GP tab, whole: the page runs it, and its download
is this file with the page's settings on the lines under ``if __name__ == "__main__":``. Run it
(``python wgan.py``) and it prints what the page shows, one ``name value ...`` line each. It
needs only torch and numpy. The ``# %%`` lines cut it into a notebook's cells.
"""

# %% Settings
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from torch.func import grad, vmap

__all__ = [
    "DATASETS",
    "MODES",
    "NAMES",
    "PenaltyCheck",
    "StepCosts",
    "WganConfig",
    "WganRun",
    "gradient_penalty",
    "gradient_penalty_func",
    "init_mlp",
    "mlp",
    "penalty_check",
    "penalty_gradient",
    "report",
    "run",
    "sample_data",
    "smoothed_gap",
    "step_costs",
]

DATASETS = ("8gaussians", "moons", "ring")
#: "gp": the penalty with create_graph=True; "gp_no_graph": the same line without it (the
#: silent bug); "none": no constraint at all; "clip": weight clipping (Arjovsky et al., 2017).
MODES = ("gp", "gp_no_graph", "none", "clip")
LIMIT = 3.0  # the plots and the critic's contour cover [-LIMIT, LIMIT]²
GRID = 41  # critic values on a GRID x GRID lattice
SHOWN = 400  # generated and real points drawn, and interpolates in the histogram
NAMES = ("W1", "b1", "W2", "b2", "W3", "b3")  # the critic's parameter tensors, from the input


@dataclass(frozen=True)
class WganConfig:
    dataset: str = "8gaussians"  # "8gaussians", "moons" or "ring"
    mode: str = "gp"  # one of MODES
    lam: float = 10.0  # penalty weight λ (Gulrajani et al.: 10)
    n_critic: int = 5  # critic steps per generator step (Gulrajani et al.: 5)
    clip: float = 0.01  # weight-clipping bound c, mode "clip" only (Arjovsky et al.: 0.01)
    steps: int = 200  # generator steps
    batch: int = 64
    hidden: int = 32  # width of both hidden layers, in both networks
    lr: float = 3e-3  # Adam, both networks (the paper: 1e-4, for far longer runs)
    snapshots: int = 11  # states kept for the step slider, evenly spaced, first and last
    seed: int = 0  # the weights and every batch (torch.Generator)


# %% The data and the two networks
def sample_data(name, n, gen, dtype=torch.float64):
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


def init_mlp(sizes, gen, dtype=torch.float64):
    """Weights uniform in ±1/√fan_in (PyTorch's nn.Linear default), biases 0, as one list."""
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:], strict=True):
        w = (torch.rand(fan_out, fan_in, generator=gen, dtype=dtype) * 2 - 1) / math.sqrt(fan_in)
        params += [w.requires_grad_(), torch.zeros(fan_out, dtype=dtype, requires_grad=True)]
    return params


def mlp(params, x):
    """x through the layers (weight, bias) of ``params``, tanh between them."""
    for i in range(0, len(params), 2):
        x = x @ params[i].T + params[i + 1]
        if i + 2 < len(params):
            x = torch.tanh(x)
    return x


# %% The gradient penalty: a loss on a gradient, so the gradient keeps its graph
def gradient_penalty(critic, real, fake, eps, lam, create_graph=True):
    """λ·mean (‖∇_x̂ D(x̂)‖ − 1)² on x̂ = εx + (1−ε)x̃, and the norms ‖∇_x̂ D(x̂)‖."""
    x_hat = (eps * real + (1 - eps) * fake).requires_grad_(True)  # interpolates (batch, 2)
    d = critic(x_hat).sum()  # the sum's gradient w.r.t. each row is that point's own ∇D
    (g,) = torch.autograd.grad(d, x_hat, create_graph=create_graph)  # <-- GP trains D only so
    norms = g.norm(dim=1)  # (batch,) one gradient norm per interpolate
    return lam * ((norms - 1) ** 2).mean(), norms


# %% The same penalty with torch.func: vmap of grad(D) over the interpolates
def gradient_penalty_func(critic, real, fake, eps, lam, create_graph=True):
    """:func:`gradient_penalty` by function transforms: ``grad`` of D at one point,
    ``vmap`` over the interpolates. The critic's weights stay ordinary tensors, so
    ``loss.backward()`` reaches them through the penalty. torch.func has no create_graph flag
    (a transform records what an outer derivative needs): the silent bug is ``.detach()``."""
    x_hat = eps * real + (1 - eps) * fake  # interpolates (batch, 2)
    g = vmap(grad(lambda p: critic(p[None])[0, 0]))(x_hat)  # (batch, 2): ∇D at each point
    if not create_graph:
        g = g.detach()  # the silent bug, written out: torch.func has no flag to forget
    norms = g.norm(dim=1)  # (batch,) one gradient norm per interpolate
    return lam * ((norms - 1) ** 2).mean(), norms


# %% Training: the critic n_critic steps per generator step, snapshots for the step slider
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


def run(
    config: WganConfig,
    progress: Callable[[int, int], None] | None = None,
    penalty: Callable[..., tuple] = gradient_penalty,
) -> WganRun:
    """Train the generator and critic of ``config`` and keep snapshots for the step slider.

    Args:
        config: the data, the mode, the networks and the optimiser.
        progress: called as ``progress(done, total)`` in generator steps, about 50 times.
        penalty: :func:`gradient_penalty`, or :func:`gradient_penalty_func` (torch.func).
    """
    dtype, h = torch.float64, config.hidden
    gen = torch.Generator().manual_seed(int(config.seed))
    D = init_mlp([2, h, h, 1], gen)
    G = init_mlp([2, h, h, 2], gen)
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
        _, norms = penalty(lambda x: mlp(D, x), real_shown, fake, eps_shown, 1.0, False)
        snaps["steps"].append(step)
        snaps["fake"].append(fake.numpy())
        snaps["critic"].append(mlp(D, lattice).detach().reshape(GRID, GRID).numpy())
        snaps["norms"].append(norms.detach().numpy())

    wasserstein, penalties, status = [], [], "ok"
    for step in range(config.steps):
        if step in at:
            snapshot(step)
        for _ in range(config.n_critic):  # critic steps per generator step
            real = sample_data(config.dataset, config.batch, gen)
            fake = mlp(G, torch.randn(config.batch, 2, generator=gen, dtype=dtype)).detach()
            eps = torch.rand(config.batch, 1, generator=gen, dtype=dtype)
            w = mlp(D, real).mean() - mlp(D, fake).mean()  # the critic's distance estimate
            gp = torch.zeros((), dtype=dtype)
            if config.mode.startswith("gp"):
                graph = config.mode == "gp"  # <-- "gp_no_graph": the same line without the flag
                gp, _ = penalty(lambda x: mlp(D, x), real, fake, eps, config.lam, graph)
            opt_d.zero_grad()
            (gp - w).backward()  # the critic maximises w, softly 1-Lipschitz
            opt_d.step()
            if config.mode == "clip":
                with torch.no_grad():  # weight clipping keeps every weight in [-c, c]
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
        config,
        np.array(snaps["steps"]),
        np.array(snaps["fake"]),
        real_shown.numpy(),
        axis.numpy(),
        np.array(snaps["critic"]),
        np.array(snaps["norms"]),
        np.array(wasserstein),
        np.array(penalties),
        status,
        sum(p.numel() for p in D),
    )


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


# %% The penalty up close: what it adds to the critic's gradient, with and without the flag
@dataclass(frozen=True)
class PenaltyCheck:
    """∂GP/∂θ for each of the critic's parameter tensors, taken both ways at its first weights.

    Attributes:
        names: W1, b1, ... (weights and biases, from the input).
        with_graph: ‖∂GP/∂θ_k‖ when ∇_x̂ D was taken with create_graph=True.
        without_graph: ‖∂(GP − w)/∂θ_k − ∂(−w)/∂θ_k‖ with create_graph=False: what adding the
            penalty to the loss changed in each gradient (exactly 0.0).
        penalty: the penalty's value (the same number both ways); penalty_requires_grad:
            whether it carried a path to θ, with and without create_graph.
    """

    names: tuple[str, ...]
    with_graph: tuple[float, ...]
    without_graph: tuple[float, ...]
    penalty: float
    penalty_requires_grad: tuple[bool, bool]


def _batch(config: WganConfig, gen: torch.Generator) -> tuple[torch.Tensor, ...]:
    """The first weights of both networks and one critic batch, drawn as training draws them."""
    h = config.hidden
    critic, generator = init_mlp([2, h, h, 1], gen), init_mlp([2, h, h, 2], gen)
    real = sample_data(config.dataset, config.batch, gen)
    z = torch.randn(config.batch, 2, generator=gen, dtype=torch.float64)
    fake = mlp(generator, z).detach()
    eps = torch.rand(config.batch, 1, generator=gen, dtype=torch.float64)
    return critic, real, fake, eps


def penalty_gradient(critic, real, fake, eps, lam, create_graph, penalty=gradient_penalty):
    """What the penalty adds to the gradient of the critic's loss, per parameter tensor:
    ∂(GP − w)/∂θ − ∂(−w)/∂θ, where w = mean D(real) − mean D(fake)."""
    w = mlp(critic, real).mean() - mlp(critic, fake).mean()
    gp, _ = penalty(lambda x: mlp(critic, x), real, fake, eps, lam, create_graph)
    with_gp = torch.autograd.grad(gp - w, critic, retain_graph=True)
    plain = torch.autograd.grad(-w, critic)
    return [a - b for a, b in zip(with_gp, plain, strict=True)], gp


def penalty_check(
    config: WganConfig, penalty: Callable[..., tuple] = gradient_penalty
) -> PenaltyCheck:
    """:func:`penalty_gradient` with and without create_graph on the run's first batch."""
    norms, values, needs = {}, {}, {}
    for graph in (True, False):
        critic, real, fake, eps = _batch(config, torch.Generator().manual_seed(config.seed))
        grads, gp = penalty_gradient(critic, real, fake, eps, config.lam, graph, penalty)
        norms[graph] = tuple(float(g.norm()) for g in grads)
        values[graph], needs[graph] = float(gp.detach()), gp.requires_grad
    return PenaltyCheck(NAMES, norms[True], norms[False], values[True], (needs[True], needs[False]))


# %% What a critic step costs with the penalty and without
@dataclass(frozen=True)
class StepCosts:
    """Median seconds of one critic step (forward, backward, Adam) with the penalty and
    without it, measured in interleaved rounds on the run's settings."""

    gp_seconds: float
    plain_seconds: float
    rounds: int


def _medians(calls: dict[str, Callable[[], object]], rounds: int) -> dict[str, float]:
    """Median seconds of each call over ``rounds`` interleaved rounds (one call of each per
    round), so that a busy moment of the machine hits every call alike."""
    times: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(rounds):
        for name, call in calls.items():
            start = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - start)
    return {name: float(np.median(t)) for name, t in times.items()}


def step_costs(config: WganConfig, rounds: int = 15) -> StepCosts:
    """One critic step with the penalty (create_graph=True) and one without, timed side by
    side: medians of ``rounds`` interleaved rounds."""
    critic, real, fake, eps = _batch(config, torch.Generator().manual_seed(config.seed))
    opt = torch.optim.Adam(critic, lr=config.lr, betas=(0.5, 0.9))

    def step(penalty: bool) -> None:
        w = mlp(critic, real).mean() - mlp(critic, fake).mean()
        loss = -w
        if penalty:
            gp, _ = gradient_penalty(lambda x: mlp(critic, x), real, fake, eps, config.lam)
            loss = loss + gp
        opt.zero_grad()
        loss.backward()
        opt.step()

    times = _medians({"gp": lambda: step(True), "plain": lambda: step(False)}, rounds)
    return StepCosts(times["gp"], times["plain"], rounds)


# %% What the page shows, one "name value ..." line each
def report(result: WganRun, check: PenaltyCheck, costs: StepCosts) -> None:
    """Print the run's numbers: the critic's gap and the penalty per generator step, the
    gradient norms at the last snapshot, what the penalty adds to each gradient of the critic's
    loss with and without create_graph, and a critic step's cost (seconds vary from run to run,
    the rest does not)."""
    print("critic_parameters", result.critic_parameters)
    print("status", result.status)
    print("wasserstein", *result.wasserstein.tolist())  # mean D(real) - mean D(fake)
    print("penalty", *result.penalty.tolist())
    print("smoothed_gap", *smoothed_gap(result))  # mean of the last 50, steps, share below 0
    print("norm_distance", float(abs(result.norms[-1] - 1).mean()))  # mean |‖∇D‖ - 1|
    print("with_graph", *check.with_graph)  # per W1, b1, W2, b2, W3, b3
    print("without_graph", *check.without_graph)  # exactly 0: the penalty is a constant
    print("penalty_at_start", check.penalty)  # the same value both ways
    print("seconds", costs.gp_seconds, costs.plain_seconds)  # a critic step with GP, without


# %% Run it
if __name__ == "__main__":
    # the settings: the page's download writes its own on the next two lines
    config = WganConfig()
    penalty = gradient_penalty  # or gradient_penalty_func: the same penalty by torch.func
    torch.set_num_threads(1)  # tensors this small: a second thread only adds waiting
    result = run(config, penalty=penalty)
    report(result, penalty_check(config, penalty), step_costs(config))
