"""The code lab's presets: the seeds' programs, the gallery's errors written as the code that
raises them, a MAML inner step and a PINN residual. Each is a link (``?code.p=...``)."""

from __future__ import annotations

__all__ = ["PRESETS"]

X3 = """\
import torch
x = torch.tensor([2.0], requires_grad=True)
y = x**3
grad_y_x = torch.autograd.grad(outputs=y, inputs=x, create_graph=True)[0]
print(f"dy/dx at x={x.item()}: {grad_y_x.item()}")
grad2_y_x2 = torch.autograd.grad(outputs=grad_y_x, inputs=x)[0]
print(grad2_y_x2.requires_grad)
"""

HVP = """\
import torch

w = torch.tensor([1.0, torch.pi / 2.0], requires_grad=True)
f = w[0]**2 * torch.sin(w[1])
grad_f = torch.autograd.grad(f, w, create_graph=True)[0]
print("grad f =", grad_f)
v = torch.tensor([0.5, 1.0])
Hv = torch.autograd.grad(torch.dot(grad_f, v), w)[0]
print("Hv =", Hv)
"""

DEBUG = """\
import torch

w = torch.tensor([1.0, -2.0], requires_grad=True)
b = torch.tensor(0.5, requires_grad=True)
loss = (w**2).sum()
loss.backward()
print("w.grad:", w.grad)
print("b.grad is None:", b.grad is None)
print("NaN in w.grad:", torch.any(torch.isnan(w.grad)).item())
z = torch.sqrt(torch.tensor([-1.0, 4.0]))
print("isnan:", torch.isnan(z))
print("all finite:", torch.all(torch.isfinite(z)).item())
"""

FREED = """\
import torch

x = torch.tensor(2.0, requires_grad=True)
y = x**3
y.backward()
print(x.grad)
y.backward()
"""

UNUSED = """\
import torch

x = torch.tensor(1.0, requires_grad=True)
z = torch.tensor(3.0, requires_grad=True)
y = torch.sin(x)
gx, gz = torch.autograd.grad(y, [x, z], allow_unused=True)
print(gx, gz)
gx, gz = torch.autograd.grad(torch.sin(x), [x, z], allow_unused=True, materialize_grads=True)
print(gx, gz)
gx, gz = torch.autograd.grad(torch.sin(x), [x, z])
"""

CONSTANT = """\
import torch

x = torch.tensor(3.0, requires_grad=True)
y = 2 * x
dy = torch.autograd.grad(y, x, create_graph=True)[0]
print(dy, dy.requires_grad, dy.grad_fn)
d2y = torch.autograd.grad(dy, x)[0]
"""

ACCUMULATES = """\
import torch

x = torch.tensor(2.0, requires_grad=True)
for step in range(3):
    y = x**2
    y.backward()
    print(f"step {step}: x.grad = {x.grad.item()}")
x.grad.zero_()
(x**2).backward()
print("after zero_():", x.grad.item())
"""

INPLACE = """\
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = torch.exp(x)
y.mul_(2)
print(y)
z = torch.sigmoid(x)
s = z.sum()
z.add_(1)
s.backward()
"""

NAN = """\
import torch

x = torch.tensor([0.0, 1.0], requires_grad=True)
y = torch.sqrt(x).sum()
y.backward()
print(x.grad)
print("NaN or inf:", torch.any(~torch.isfinite(x.grad)).item())
"""

MAML = """\
import torch

torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
x = torch.linspace(-1.0, 1.0, 5)


def loss(w, x, y):
    pred = w[0] + w[1] * x + w[2] * x**2
    return ((pred - y) ** 2).mean()


inner = loss(w, x, 2.0 * x)
(g,) = torch.autograd.grad(inner, w, create_graph=True)
w_adapted = w - 0.1 * g
outer = loss(w_adapted, x, 3.0 * x)
outer.backward()
print(f"inner loss {inner.item():.4f}, outer loss {outer.item():.4f}")
print("meta-gradient:", w.grad)
"""

PINN = """\
import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(1, 8), nn.Tanh(), nn.Linear(8, 1))
x = torch.linspace(0.0, 1.0, 5).reshape(-1, 1).requires_grad_(True)
u = net(x)
du = torch.autograd.grad(u.sum(), x, create_graph=True)[0]
d2u = torch.autograd.grad(du.sum(), x, create_graph=True)[0]
residual = d2u + torch.sin(torch.pi * x)  # the residual of u'' = -sin(pi x)
loss = (residual**2).mean()
loss.backward()
print(f"PDE residual loss: {loss.item():.6f}")
print("first layer's weight.grad is None:", net[0].weight.grad is None)
"""

FUNC = """\
import torch
from torch.func import grad, hessian


def f(x):
    return torch.sin(x).sum() * x[0]


x = torch.tensor([0.5, 1.0])
print(grad(f)(x))
print(hessian(f)(x))
print(grad(grad(lambda t: t**3))(torch.tensor(2.0)))
"""

#: name -> program, in the order the page lists them.
PRESETS = {
    "x3": X3,
    "x3_no_create_graph": X3.replace("create_graph=True", "create_graph=False"),
    "hvp": HVP,
    "debug": DEBUG,
    "freed_graph": FREED,
    "unused_input": UNUSED,
    "constant_trap": CONSTANT,
    "accumulates": ACCUMULATES,
    "inplace": INPLACE,
    "nan": NAN,
    "maml": MAML,
    "pinn": PINN,
    "func": FUNC,
}
