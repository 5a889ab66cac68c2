"""The runnable script of the physics-informed network, for the student's settings."""

from __future__ import annotations

from .common import Code, marked_code
from .pinn import GRID, PinnConfig, network_sizes

__all__ = ["pinn_code"]


def _residual_source(config: PinnConfig) -> str:
    """The lines that compute the residual ``r`` at the interior points ``xt``."""
    k = repr(config.coefficient)
    if config.equation == "heat" and config.create_graph:
        return f"""    du = torch.autograd.grad(u.sum(), xt, create_graph=True)[0]  # <-- (N, 2): u_x, u_t
    u_t = du[:, 1]
    u_xx = torch.autograd.grad(du[:, 0].sum(), xt, create_graph=True)[0][:, 0]  # <-- u_xx
    return u_t - {k} * u_xx  # the heat equation: u_t = alpha u_xx"""
    if config.equation == "heat":
        return f"""    # BUG on purpose: create_graph=True dropped from the u_xx call. Without
    # retain_graph=True as well, loss.backward() raises "Trying to backward through the
    # graph a second time": this call freed the graph that u_t still needs.
    du = torch.autograd.grad(u.sum(), xt, create_graph=True)[0]  # u_x, u_t (kept for u_xx)
    u_t = du[:, 1]  # still has a graph: the gradient flows through u_t alone
    u_xx = torch.autograd.grad(du[:, 0].sum(), xt, retain_graph=True)[0][:, 0]  # <-- a constant
    return u_t - {k} * u_xx  # the heat equation: u_t = alpha u_xx"""
    flag = "create_graph=True" if config.create_graph else "retain_graph=True"
    note = "u_xx" if config.create_graph else "a constant (no create_graph)"
    last = ", create_graph=True" if config.create_graph else ""
    return f"""    du = torch.autograd.grad(u.sum(), xt, create_graph=True)[0]  # u_x, u_t (kept for u_tt)
    u_xx = torch.autograd.grad(du[:, 0].sum(), xt, {flag}{", retain_graph=True" if config.create_graph else ""})[0][:, 0]  # <-- {note}
    u_tt = torch.autograd.grad(du[:, 1].sum(), xt{last})[0][:, 1]  # <-- {note.replace("u_xx", "u_tt")}
    return u_tt - {k}**2 * u_xx  # the wave equation: u_tt = c^2 u_xx"""


def pinn_code(config: PinnConfig) -> Code:
    """A script that trains the same network on the same points and prints ``loss ...`` (the
    weighted loss before each step), ``max_error`` and ``rel_error`` (against the exact
    solution on a GRID x GRID grid)."""
    c, k = config, repr(config.coefficient)
    if c.equation == "heat":
        exact = f"np.exp(-{k} * math.pi**2 * t) * np.sin(math.pi * x)"
        velocity = ""
    else:
        exact = f"np.sin(math.pi * x) * np.cos({k} * math.pi * t)"
        keep = "create_graph=True" if c.create_graph else "retain_graph=True"
        velocity = f"""
    v0 = torch.autograd.grad(u0.sum(), initial, {keep}{", retain_graph=True" if c.create_graph else ""})[0]  # <-- u_t(x, 0)
    start = start + v0[:, 1].pow(2).mean()  # starts at rest"""
    source = f"""import math

import numpy as np
import torch

sizes = {network_sizes(c)!r}  # (x, t) in, u out
gen = torch.Generator().manual_seed({c.seed})
params = []
for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
    w = torch.randn(fan_out, fan_in, generator=gen, dtype=torch.float64) / math.sqrt(fan_in)
    params += [w.requires_grad_(), torch.zeros(fan_out, dtype=torch.float64).requires_grad_()]


def net(xt):  # u at each row (x, t) of xt
    h = xt
    for k in range(0, len(params), 2):
        h = torch.addmm(params[k + 1], h, params[k].T)
        if k < len(params) - 2:
            h = torch.tanh(h)
    return h[:, 0]


def residual(u, xt):  # derivatives of u with respect to the INPUTS, inside the loss
{_residual_source(c)}


# interior points, the initial line (x, 0), the boundaries (0, t) and (1, t)
xt = torch.rand({c.points}, 2, generator=gen, dtype=torch.float64)
xt = (xt * torch.tensor([1.0, {c.t_max!r}], dtype=torch.float64)).requires_grad_()
x0 = torch.rand({c.edge}, generator=gen, dtype=torch.float64)
initial = torch.stack([x0, torch.zeros_like(x0)], dim=1).requires_grad_()
tb = torch.rand({c.edge}, generator=gen, dtype=torch.float64) * {c.t_max!r}
side = torch.stack([torch.zeros_like(tb), tb], dim=1)
boundary = torch.cat([side, side + torch.tensor([1.0, 0.0], dtype=torch.float64)])

opt = torch.optim.Adam(params, lr={c.lr!r})
losses = []
for step in range({c.steps}):
    r = residual(net(xt), xt)
    u0 = net(initial)
    start = (u0 - torch.sin(math.pi * initial[:, 0].detach())).pow(2).mean()  # u(x, 0) = sin(pi x){velocity}
    edge = net(boundary).pow(2).mean()  # u(0, t) = u(1, t) = 0
    loss = {c.w_residual!r} * r.pow(2).mean() + {c.w_initial!r} * start + {c.w_boundary!r} * edge
    if not math.isfinite(loss.item()):
        break  # diverged
    losses.append(loss.item())
    opt.zero_grad()
    loss.backward()  # differentiates the derivatives again, with respect to the weights
    opt.step()
print("loss", *losses)

x, t = np.meshgrid(np.linspace(0.0, 1.0, {GRID}), np.linspace(0.0, {c.t_max!r}, {GRID}))
with torch.no_grad():
    u = net(torch.tensor(np.stack([x.ravel(), t.ravel()], 1))).numpy().reshape(x.shape)
exact = {exact}
print("max_error", np.abs(u - exact).max())
print("rel_error", np.linalg.norm(u - exact) / np.linalg.norm(exact))
"""
    return marked_code(source)
