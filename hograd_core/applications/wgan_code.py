"""The runnable script of a WGAN-GP run, for the student's settings."""

from __future__ import annotations

import inspect

from .common import Code, marked_code
from .wgan_gp import WganConfig, check_config, gradient_penalty, init_mlp, mlp, sample_data
from .wgan_penalty import penalty_gradient

__all__ = ["wgan_code"]

_GRAD_LINE = "create_graph=create_graph)"


def _source(fn) -> str:  # noqa: ANN001
    text = inspect.getsource(fn).replace("  # noqa: ANN001, ANN201", "")
    return text.replace(_GRAD_LINE, _GRAD_LINE + "  # <-- the penalty's gradient needs this graph")


def _critic_step(config: WganConfig) -> str:
    """The lines of one critic step that depend on the mode, indented for the loop."""
    if config.mode in ("gp", "gp_no_graph"):
        flag = config.mode == "gp"
        note = "kept: GP trains the critic" if flag else "the silent bug: GP is a constant"
        return (
            f"        gp, _ = gradient_penalty(critic, real, fake, eps, {config.lam!r},\n"
            f"                                 create_graph={flag})  # <-- {note}\n"
            "        loss = gp - w"
        )
    return "        gp = torch.zeros((), dtype=torch.float64)  # no penalty\n        loss = gp - w"


def wgan_code(config: WganConfig) -> Code:
    """A script that trains as :func:`.wgan_gp.train_wgan` does and prints ``wasserstein ...``
    and ``penalty ...`` (per generator step), then ``with_graph ...`` and ``without_graph ...``:
    what the penalty adds to the norm of each gradient of the critic's loss, both ways.

    Raises:
        ArgumentError, BudgetError: see :func:`.wgan_gp.check_config`.
    """
    check_config(config)
    h = config.hidden
    clip = ""
    if config.mode == "clip":
        clip = (
            "        with torch.no_grad():  # weight clipping keeps every weight in [-c, c]\n"
            "            for p in D:\n"
            f"                p.clamp_({-config.clip!r}, {config.clip!r})\n"
        )
    source = f"""import math

import torch


{_source(sample_data)}

{_source(init_mlp)}

{_source(mlp)}

{_source(gradient_penalty)}

{_source(penalty_gradient)}

gen = torch.Generator().manual_seed({config.seed})
D = init_mlp([2, {h}, {h}, 1], gen)  # the critic
G = init_mlp([2, {h}, {h}, 2], gen)  # the generator: 2-D noise to 2-D points
opt_d = torch.optim.Adam(D, lr={config.lr!r}, betas=(0.5, 0.9))
opt_g = torch.optim.Adam(G, lr={config.lr!r}, betas=(0.5, 0.9))


def critic(x):
    return mlp(D, x)


wasserstein, penalties = [], []
for step in range({config.steps}):
    for _ in range({config.n_critic}):  # critic steps per generator step
        real = sample_data({config.dataset!r}, {config.batch}, gen)
        fake = mlp(G, torch.randn({config.batch}, 2, generator=gen, dtype=torch.float64)).detach()
        eps = torch.rand({config.batch}, 1, generator=gen, dtype=torch.float64)
        w = critic(real).mean() - critic(fake).mean()  # the critic's distance estimate
{_critic_step(config)}
        opt_d.zero_grad()
        loss.backward()
        opt_d.step()
{clip}    z = torch.randn({config.batch}, 2, generator=gen, dtype=torch.float64)
    g_loss = -critic(mlp(G, z)).mean()
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
    wasserstein.append(w.item())
    penalties.append(gp.item())
    if not all(math.isfinite(v) for v in (w.item(), gp.item(), g_loss.item())):
        break  # diverged: stop at the first inf or NaN
print("wasserstein", *wasserstein)
print("penalty", *penalties)

# What the penalty adds to the critic's gradient at its first weights, on its first batch
for create_graph in (True, False):
    gen = torch.Generator().manual_seed({config.seed})
    first, maker = init_mlp([2, {h}, {h}, 1], gen), init_mlp([2, {h}, {h}, 2], gen)
    real = sample_data({config.dataset!r}, {config.batch}, gen)
    fake = mlp(maker, torch.randn({config.batch}, 2, generator=gen, dtype=torch.float64)).detach()
    eps = torch.rand({config.batch}, 1, generator=gen, dtype=torch.float64)
    added, _ = penalty_gradient(first, real, fake, eps, {config.lam!r}, create_graph)
    print("with_graph" if create_graph else "without_graph", *(g.norm().item() for g in added))
"""
    return marked_code(source)
