"""Programs as learners write them in autograd lessons, each run by CPython and by
hograd_core.program and compared (tests/core/test_program_cpython.py, through
tests/program_corpus.PROGRAMS).

Written for the lab rather than taken from it: comments, blank lines, docstrings, multi-line
calls with trailing commas, chained methods, keyword-only parameters, str.format, errors raised
inside functions, loops and multi-line expressions (the line must be Python's), and PyTorch's
own errors (backward twice, a non-scalar output, an unused input, a leaf changed in place).
"""

from __future__ import annotations

LEARNER = {
    "docstring_kwonly": '''import torch

def loss_fn(w, x, *, target=1.0, scale=2.0):
    """Squared error of a tiny model."""
    pred = torch.tanh(w * x)  # the model
    return scale * (pred - target) ** 2

w = torch.tensor(0.5, requires_grad=True)
L = loss_fn(w, torch.tensor(2.0), target=0.0)
L.backward()
print(f"L = {L.item():.4f}, dL/dw = {w.grad.item():.4f}")
''',
    "fstring_eq": """import torch
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (x ** 2).sum()
print(f"{y=}")
print(f"{y.item()=:.3f}")
print(f"{x.shape=}, {x.dtype!r}, {x.requires_grad!s}")
g, = torch.autograd.grad(y, x)
print(f"{g=}")
""",
    "str_format": """import torch
x = torch.tensor(0.25, requires_grad=True)
y = torch.sigmoid(x)
y.backward()
print("y = {:.4f}".format(y.item()))
print("grad = {:.6f}, expected {:.6f}".format(x.grad.item(), (y * (1 - y)).item()))
print("{0} and {1}, {name}".format(1, 2, name="x"))
""",
    "grad_zero_before_backward": """import torch
w = torch.tensor([1.0, 2.0], requires_grad=True)
print(w.grad)
w.grad.zero_()
""",
    "multiline_error_line": """import torch
x = torch.tensor(1.0, requires_grad=True)
y = x * 2
first = torch.autograd.grad(y, x)[0]
second = (
    first
    + torch.autograd.grad(y, x)[0]
)
""",
    "multiline_call_ok": """import torch

x = torch.linspace(
    -1.0,
    1.0,
    steps=5,
    requires_grad=True,
)
y = torch.sin(
    x,
).sum()
(dx,) = torch.autograd.grad(
    outputs=y,
    inputs=x,
    create_graph=True,
)
print(dx)
print(
    dx.requires_grad,
    dx.grad_fn is not None,
    sep=" | ",
)
""",
    "backward_gradient_kw": """import torch
x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
y = x * x * 0.5
y.backward(gradient=torch.tensor([1.0, 0.1, 0.01]))
print(x.grad)
x.grad = None
y2 = torch.exp(x)
y2.backward(torch.ones_like(y2))
print(x.grad)
""",
    "backward_non_scalar_error": """import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x ** 3
# forgot gradient=
y.backward()
""",
    "accumulate_two_passes": """import torch
a = torch.tensor(3.0, requires_grad=True)
for k in range(3):
    out = a ** 2
    out.backward()
    print(k, a.grad)
a.grad.zero_()
print("after zero_:", a.grad)
(a * 10).backward()
print(a.grad.item())
""",
    "int_requires_grad_error": """import torch
ok = torch.tensor([1.0, 2.0], requires_grad=True)
print(ok.dtype)
bad = torch.tensor([1, 2, 3], requires_grad=True)
""",
    "does_not_require_grad_error": """import torch
x = torch.tensor(2.0)
y = x ** 2
print(y.requires_grad, y.grad_fn)
dy = torch.autograd.grad(y, x)
""",
    "mask_indexing": """import torch
x = torch.tensor([-2.0, -0.5, 0.0, 1.5, 3.0], requires_grad=True)
mask = x > 0
print(mask, mask.dtype)
pos = x[mask]
print(pos, pos.grad_fn.name())
pos.sum().backward()
print(x.grad)
print(x[[0, 2, 4]], x[-2:], x[::2], x.flip(0), x[1:-1])
""",
    "index_2d": """import torch
A = torch.arange(1.0, 13.0).reshape(3, 4)
print(A[0, 1], A[1][2], A[:, 0], A[-1], A[1:, -2:])
print(A[:, ::2].shape, A[0].shape, A[0, :].tolist())
row, col = A.shape
print(row * col == A.numel(), A.size(), A.size(0), A.size()[1])
""",
    "unpack_tensor": """import torch
p = torch.tensor([0.5, -1.5], requires_grad=True)
a, b = p
f = a ** 2 + 3 * a * b
(ga, gb), = [torch.autograd.grad(f, [a, b])]
print(ga, gb)
gp, = torch.autograd.grad(a ** 2 + 3 * a * b, p)
print(gp)
""",
    "chained_assign_swap": """import torch
x = y = torch.zeros(2)
print(x is y)
lr, steps = 0.1, 3
(a, b), c = (1, 2), 3
a, b = b, a
print(lr, steps, a, b, c)
nums = [1.0, 2.0, 3.0]
first, second, third = nums
print(first + second + third)
""",
    "augassign_variants": """import torch
s = 0
for i in range(1, 5):
    s += i
    s *= 2
    s -= 1
print(s)
t = torch.ones(3)
t += 1
t *= torch.tensor([1.0, 2.0, 3.0])
t /= 2
t **= 2
print(t)
xs = [1, 2]
xs += [3]
print(xs)
""",
    "enumerate_zip": """import torch
ws = [torch.tensor(1.0, requires_grad=True), torch.tensor(-2.0, requires_grad=True)]
xs = [0.5, 1.5]
total = sum(w * x for w, x in zip(ws, xs))
grads = torch.autograd.grad(total, ws)
for i, (w, g) in enumerate(zip(ws, grads), start=1):
    print(f"w{i} = {w.item():+.2f}  dL/dw{i} = {g.item():.2f}")
""",
    "grad_positional_all": """import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x.pow(3)
# outputs, inputs, grad_outputs, retain_graph, create_graph
g, = torch.autograd.grad(y, x, torch.ones(2), True, True)
h, = torch.autograd.grad(g, x, torch.ones(2))
print(g, h)
z = torch.autograd.grad(y.sum(), [x], None, None, False, False, True)
print(z)
""",
    "allow_unused_materialize": """import torch
x = torch.tensor(1.0, requires_grad=True)
y = torch.tensor(2.0, requires_grad=True)
f = x * 3
gx, gy = torch.autograd.grad(f, (x, y), allow_unused=True)
print(gx, gy, gy is None)
gx, gy = torch.autograd.grad(x * 3, (x, y), materialize_grads=True)
print(gx, gy)
""",
    "materialize_grads_only_error": """import torch
x = torch.tensor(1.0, requires_grad=True)
y = torch.tensor(2.0, requires_grad=True)
g = torch.autograd.grad(x * 3, [x, y], allow_unused=False, materialize_grads=True)
""",
    "grad_outputs_list": """import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y1 = x.sum()
y2 = (x ** 2).sum()
g = torch.autograd.grad([y1, y2], [x], grad_outputs=[torch.tensor(1.0), torch.tensor(0.5)])
print(g)
print(len(g), g[0].shape)
""",
    "hessian_functional": """import torch
from torch.autograd.functional import hessian, jacobian, hvp, vhp

def f(x):
    return (x[0] ** 2) * x[1] + torch.sin(x[1])

x0 = torch.tensor([1.0, 2.0])
H = hessian(f, x0)
print(H)
J = jacobian(f, x0)
print(J, J.shape)
v = torch.tensor([1.0, 0.0])
val, Hv = hvp(f, x0, v)
val2, vH = vhp(f, x0, v)
print(val, Hv, torch.allclose(Hv, vH))
H2 = torch.autograd.functional.hessian(f, x0, create_graph=True)
print(H2.requires_grad)
""",
    "jacobian_tuple_inputs": """import torch
def g(a, b):
    return a * b + a ** 2

a = torch.tensor([1.0, 2.0])
b = torch.tensor([3.0, 4.0])
Ja, Jb = torch.autograd.functional.jacobian(g, (a, b))
print(Ja)
print(Jb)
""",
    "func_argnums_aux": """import torch
from torch.func import grad, grad_and_value

def loss(w, b, x):
    pred = w * x + b
    return ((pred - 1.0) ** 2).mean(), pred

x = torch.tensor([1.0, 2.0, 3.0])
w, b = torch.tensor(0.5), torch.tensor(0.1)
(gw, gb), pred = grad(loss, argnums=(0, 1), has_aux=True)(w, b, x)
print(gw, gb)
print(pred)
g, (val, aux) = grad_and_value(loss, has_aux=True)(w, b, x)
print(g, val)
""",
    "func_jvp_vjp_lambda": """import torch
import torch.func as tf
f = lambda x: torch.stack([x[0] * x[1], torch.exp(x[0])])
x = torch.tensor([0.5, 2.0])
out, tangent = tf.jvp(f, (x,), (torch.tensor([1.0, 0.0]),))
print(out, tangent)
out, pullback = tf.vjp(f, x)
(ct,) = pullback(torch.tensor([1.0, 1.0]))
print(ct)
print(tf.jacrev(f)(x))
print(tf.jacfwd(f)(x))
print(tf.hessian(lambda t: (t ** 3).sum())(x))
""",
    "vmap_grad": """import torch
from torch.func import grad, vmap
f = lambda x: torch.sin(x) * x ** 2
xs = torch.linspace(0.0, 1.0, 4)
print(vmap(grad(f))(xs))
print(vmap(grad(grad(f)))(xs))
""",
    "no_grad_update": """import torch
w = torch.tensor([1.0, -1.0], requires_grad=True)
x = torch.tensor([2.0, 3.0])
for step in range(3):
    loss = (w @ x - 1.0) ** 2
    loss.backward()
    with torch.no_grad():
        w.sub_(0.05 * w.grad)
        w.grad.zero_()
    print(f"step {step}: loss={loss.item():.5f} w={w.tolist()}")
with torch.no_grad():
    with torch.enable_grad():
        z = w * 2
    q = w * 2
print(z.requires_grad, q.requires_grad)
""",
    "inplace_leaf_add": """import torch
w = torch.ones(3, requires_grad=True)
w.add_(1.0)
""",
    "inplace_leaf_index": """import torch
w = torch.zeros(3, requires_grad=True)
print(w)
w[0] = 1.0
""",
    "inplace_saved_error": """import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x.exp()
z = y * 2
y.add_(1)
print(y)
z = y.sum()
x2 = torch.tensor([1.0, 2.0], requires_grad=True)
e = torch.exp(x2)
e.mul_(2)
e.sum().backward()
""",
    "detach_requires_grad_": """import torch
x = torch.tensor([0.1, 0.2, 0.3], requires_grad=True)
y = (x * 10).detach()
print(y.requires_grad, y.is_leaf, y.grad_fn)
y.requires_grad_(True)
print(y.requires_grad, y.is_leaf)
c = x.clone()
print(c.is_leaf, c.grad_fn.name())
z = torch.zeros(2).requires_grad_()
print(z)
""",
    "next_functions_walk": """import torch
a = torch.tensor(1.0, requires_grad=True)
b = torch.tensor(2.0, requires_grad=True)
c = a * b + torch.sin(a)
node = c.grad_fn
print(node.name(), len(node.next_functions))
for fn, idx in node.next_functions:
    print("  ->", fn.name(), idx, [n[0].name() if n[0] is not None else None for n in fn.next_functions])
leaf_fn = node.next_functions[0][0].next_functions[0][0]
print(leaf_fn.name(), a.is_leaf, c.is_leaf)
""",
    "print_various": """import torch
t = torch.tensor([1.5, -0.25])
print(None, True, False, 3, 2.5, "s")
print((1, 2), [3, 4], (t, 1), [t])
print((5,), [], (), {"a": t.sum()})
print()
print("a", "b", sep="")
print("x", end=" ")
print("y", end="\\n\\n")
print(torch.tensor(1.0), torch.tensor([True, False]), torch.tensor(7))
print(repr(t), str(t.sum()))
""",
    "format_specs": """import math
import torch
v = torch.tensor(math.pi)
print(f"{v.item():.4f} {v.item():10.3e} {v.item():<8.2f}| {v.item():+.1f}")
print(f"{7:03d} {12345.678:,.2f} {0.125:.1%} {'txt':^9}|")
print("%5.2f %s %r" % (1.0, "a", "b"))
print(f"{v:.3f}")
print(f"{[1, 2]!r:>10}")
""",
    "if_elif_tensor": """import torch
x = torch.tensor([0.2, -0.3], requires_grad=True)
y = torch.relu(x).sum()
if y.item() > 0.5:
    print("big")
elif y > 0.1:
    print("small but positive", round(y.item(), 3))
else:
    print("zero")
if x.grad is None:
    print("no grad yet")
y.backward()
if x.grad is not None and x.grad[0] == 1:
    print("relu passes", x.grad)
""",
    "def_returns_tuple": '''import torch

def value_and_grads(f, x):
    """Return f(x) and its first two derivatives."""
    y = f(x)
    d1, = torch.autograd.grad(y, x, create_graph=True)
    d2, = torch.autograd.grad(d1, x)
    return y.detach(), d1.detach(), d2

def cubic(t, a=1.0, b=0.0):
    return a * t ** 3 + b * t

x = torch.tensor(2.0, requires_grad=True)
y, d1, d2 = value_and_grads(cubic, x)
print(y, d1, d2)
print(value_and_grads(lambda t: cubic(t, a=2.0, b=1.0), x))
''',
    "closure_counter": """def make_scaler(k):
    def scale(v):
        return k * v
    return scale

double = make_scaler(2)
triple = make_scaler(3)
print(double(4), triple(4), [make_scaler(i)(1) for i in range(4)])
""",
    "nn_linear_manual": """import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
model = nn.Sequential(
    nn.Linear(2, 3),
    nn.Tanh(),
    nn.Linear(3, 1),
)
print(model)
x = torch.randn(4, 2)
y = torch.randn(4, 1)
loss = F.mse_loss(model(x), y)
loss.backward()
first = model[0]
print(first.weight.grad.shape, first.bias.grad.shape)
for name, p in model.named_parameters():
    print(name, tuple(p.shape), p.grad.abs().sum().item() > 0)
model.zero_grad()
print([p.grad for p in model.parameters()][:1])
""",
    "nn_mseloss_module": """import torch
import torch.nn as nn
torch.manual_seed(5)
layer = nn.Linear(3, 1, bias=False)
criterion = nn.MSELoss()
x = torch.rand(5, 3)
target = torch.zeros(5, 1)
loss = criterion(layer(x), target)
print(round(loss.item(), 6))
(g,) = torch.autograd.grad(loss, layer.weight)
print(g.shape, layer.bias)
with torch.no_grad():
    layer.weight -= 0.5 * g
print(round(criterion(layer(x), target).item(), 6))
""",
    "maml_functional": """import torch
import torch.nn.functional as F

torch.manual_seed(1)
w = torch.randn(1, 1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
x_s, y_s = torch.randn(5, 1), torch.randn(5, 1)
x_q, y_q = torch.randn(5, 1), torch.randn(5, 1)
inner_lr = 0.1

support_loss = F.mse_loss(F.linear(x_s, w, b), y_s)
gw, gb = torch.autograd.grad(support_loss, (w, b), create_graph=True)
w_fast, b_fast = w - inner_lr * gw, b - inner_lr * gb
query_loss = F.mse_loss(F.linear(x_q, w_fast, b_fast), y_q)
query_loss.backward()
print(f"support {support_loss.item():.4f} query {query_loss.item():.4f}")
print(w.grad, b.grad)
print(gw.requires_grad, w_fast.is_leaf)
""",
    "pinn_oscillator": """import torch
import torch.nn as nn
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(1, 8), nn.Tanh(), nn.Linear(8, 1))
t = torch.linspace(0, 1, 10).view(-1, 1).requires_grad_(True)
u = net(t)
du = torch.autograd.grad(u, t, grad_outputs=torch.ones_like(u), create_graph=True)[0]
d2u = torch.autograd.grad(du, t, grad_outputs=torch.ones_like(du), create_graph=True)[0]
residual = d2u + 4.0 * u
loss = residual.pow(2).mean() + (u[0] - 1.0).pow(2).sum() + du[0].pow(2).sum()
loss.backward()
print(f"{loss.item():.6f}")
print(du.shape, d2u.requires_grad, net[0].weight.grad.shape)
""",
    "softplus_functional": """import torch
import torch.nn.functional as F
x = torch.linspace(-2, 2, 5, requires_grad=True)
y = F.softplus(x, beta=2.0)
s = y.sum()
g, = torch.autograd.grad(s, x)
print(y)
print(g)
print(torch.allclose(g, torch.sigmoid(2.0 * x)))
print(F.relu(x), F.gelu(x).detach())
""",
    "random_dtype": """import torch
torch.manual_seed(123)
a = torch.rand(2, 3, dtype=torch.float64)
b = torch.randn(3, requires_grad=True)
print(a)
print(b)
print(a.dtype, b.dtype, b.requires_grad)
torch.manual_seed(123)
print(torch.equal(a, torch.rand(2, 3, dtype=torch.float64)))
c = torch.randn(2, 2, dtype=torch.float64, requires_grad=True)
print(c.is_leaf, (c @ c).grad_fn.name())
""",
    "creation_kw": """import torch
print(torch.zeros(2, 2, dtype=torch.float64, requires_grad=True))
print(torch.ones(3, requires_grad=True).sum())
print(torch.arange(0, 10, 3), torch.arange(5, dtype=torch.float32))
print(torch.linspace(0, 1, steps=3, dtype=torch.float64))
print(torch.eye(2, 3), torch.eye(2, dtype=torch.float64))
print(torch.tensor([[1, 2]], dtype=torch.float32).shape)
print(torch.full((2,), 0.5, requires_grad=True))
print(torch.zeros_like(torch.ones(2)), torch.ones_like(torch.eye(2), dtype=torch.int64))
""",
    "reductions_keepdim": """import torch
X = torch.tensor([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]], requires_grad=True)
print(X.sum(dim=1), X.sum(dim=0, keepdim=True), X.sum(1, True).shape)
print(X.mean(dim=-1), torch.mean(X, 0))
print(X.abs().max(), X.norm(), torch.norm(X, dim=1))
print(X.max(dim=1), X.argmax())
total = torch.sum(X ** 2, dim=(0, 1))
total.backward()
print(X.grad)
""",
    "dot_matmul": """import torch
u = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
v = torch.tensor([0.5, -1.0, 2.0])
M = torch.eye(3) * 2
print(torch.dot(u, v), u.dot(v), u @ v)
print(M @ u, torch.matmul(M, u), M.matmul(u))
q = u @ M @ u
q.backward()
print(q, u.grad)
print(torch.outer(u, v).shape, (u.unsqueeze(0) @ M).shape)
""",
    "isnan_any_all": """import torch
x = torch.tensor([0.0, 1.0, 4.0], requires_grad=True)
y = torch.sqrt(x)
y.sum().backward()
print(x.grad)
print(torch.isinf(x.grad).any(), torch.isnan(x.grad).any(), x.grad.isfinite().all())
z = torch.log(torch.tensor([-1.0, 0.0, 1.0]))
print(z, z.isnan(), torch.any(z.isnan()).item(), torch.all(z < 1))
""",
    "item_tolist_numel": """import torch
x = torch.tensor([[1.25, 2.5], [3.75, 5.0]])
print(x.numel(), x.dim(), len(x), x.ndim)
print(x.tolist(), x[1, 1].item(), x.sum().item() / x.numel())
print(x.dtype == torch.float32, x.shape == (2, 2), list(x.shape), tuple(x.size()))
print(float(x[0, 0]) + int(x[1, 1]), bool(x.all()))
""",
    "pow_sqrt_abs_chain": """import torch
x = torch.tensor([-3.0, 4.0], requires_grad=True)
r = x.pow(2).sum().sqrt()
print(r)
r.backward()
print(x.grad, x / r)
y = torch.abs(x).pow(0.5).exp().log()
print(y)
print(torch.pow(2.0, x), 2 ** x, x ** -1)
""",
    "hvp_by_hand": """import torch

def f(w):
    return (w[0] * w[1]) ** 2 + torch.exp(w[0])

w = torch.tensor([0.5, 1.5], requires_grad=True)
v = torch.tensor([1.0, -1.0])
grad_w, = torch.autograd.grad(f(w), w, create_graph=True)
hv, = torch.autograd.grad(grad_w, w, grad_outputs=v)
hv2, = torch.autograd.grad((grad_w * v).sum(), w, retain_graph=True)
print(grad_w)
print(hv, torch.allclose(hv, hv2))
""",
    "tanh_derivatives_loop": """import torch
import math
x = torch.tensor(0.5, requires_grad=True, dtype=torch.float64)
derivs = []
y = torch.tanh(x)
for order in range(1, 5):
    (y,) = torch.autograd.grad(y, x, create_graph=True)
    derivs.append(y.item())
print([round(d, 6) for d in derivs])
t = math.tanh(0.5)
print(abs(derivs[0] - (1 - t ** 2)) < 1e-12)
""",
    "retain_graph_two_backward": """import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x * x).sum()
y.backward(retain_graph=True)
print(x.grad)
y.backward()
print(x.grad)
y.backward()
""",
    "grad_none_reset": """import torch
p = torch.tensor(2.0, requires_grad=True)
for i in range(2):
    loss = (p - 5) ** 2
    loss.backward()
    print(i, p.grad)
    p.grad = None
print(p.grad is None, p.requires_grad, p.is_leaf)
""",
    "list_tensors_stack": """import torch
xs = []
for i in range(4):
    xs.append(torch.tensor(float(i)) ** 2)
T = torch.stack(xs)
print(T, T[-1], T[1:3], len(xs))
print(torch.cat([T, T])[::3])
print(sorted([3, 1, 2], reverse=True), max(xs), min([4, 2, 9]))
""",
    "comparison_ops": """import torch
a = torch.tensor([1.0, 2.0, 3.0])
b = torch.tensor([3.0, 2.0, 1.0])
print(a < b, a <= b, a == b, a != b, a >= 2)
print((a > 1) & (b > 1), (a > 2) | (b > 2), ~(a > 1))
print(torch.where(a > b, a, b), torch.maximum(a, b))
print(1 < 2 < 3, 3 > 2 >= 2, "x" != "y")
""",
    "math_and_torch": """import math
import torch
angle = math.pi / 6
print(round(math.sin(angle), 6), math.cos(0.0), math.sqrt(16), math.exp(0))
t = torch.tensor(angle, requires_grad=True)
s = torch.sin(t)
s.backward()
print(abs(t.grad.item() - math.cos(angle)) < 1e-6, math.floor(-0.5), math.ceil(0.5))
print(math.log(math.e), math.isclose(t.grad.item(), math.cos(angle), rel_tol=1e-6))
""",
    "unused_input_error_kw": """import torch
x = torch.tensor(1.0, requires_grad=True)
z = torch.tensor(5.0, requires_grad=True)
out = x.exp()
gx, gz = torch.autograd.grad(outputs=out, inputs=[x, z])
""",
    "sgd_optimizer_loop": """import torch
torch.manual_seed(4)
w = torch.randn(2, requires_grad=True)
opt = torch.optim.SGD([w], lr=0.2)
target = torch.tensor([1.0, -1.0])
for epoch in range(4):
    opt.zero_grad()
    loss = ((w - target) ** 2).sum()
    loss.backward()
    opt.step()
    if epoch % 2 == 0:
        print(f"epoch {epoch}: {loss.item():.5f}")
print(w)
""",
    "nested_loops_lists": """import torch
grid = []
for i in range(3):
    row = []
    for j in range(3):
        row.append(i * 3 + j)
    grid.append(row)
print(grid, grid[1][-1], grid[-1][::-1])
T = torch.tensor(grid, dtype=torch.float32)
print(T.t(), T.diag(), torch.trace(T))
for r in T[:2]:
    print(r.sum().item(), end=", ")
print()
""",
    "float64_precision": """import torch
x = torch.tensor([1e-8, 1.0], dtype=torch.float64, requires_grad=True)
y = torch.log1p(x).sum()
g, = torch.autograd.grad(y, x)
print(g)
print(g.dtype, y.dtype)
print(torch.tensor(1/3, dtype=torch.float64), torch.tensor(1/3))
""",
    "sigmoid_manual_vs_builtin": """import torch
z = torch.tensor([-1.0, 0.0, 2.0], requires_grad=True)
s1 = 1 / (1 + torch.exp(-z))
s2 = torch.sigmoid(z)
print(torch.allclose(s1, s2))
g1, = torch.autograd.grad(s1.sum(), z)
g2, = torch.autograd.grad(s2.sum(), z)
print(g1, g2, (g1 - g2).abs().max() < 1e-6)
print(s1.grad_fn.name(), s2.grad_fn.name())
""",
    "error_in_loop_body": """import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
for i in range(3):
    y = (x * i).sum()
    if i == 2:
        y.backward()
        y.backward()
    print(i)
""",
    "error_in_lambda_func": """import torch
from torch.func import grad
f = lambda x: x.sum() if x.dim() else x @ x
print(grad(f)(torch.tensor([1.0, 2.0])))
h = grad(lambda x: x ** 2)
print(h(torch.tensor([1.0, 2.0])))
""",
    "method_chain_multiline": """import torch
x = torch.tensor([0.5, 1.5], requires_grad=True)
loss = (
    x.pow(2)
    .mul(3.0)
    .sum()
)
loss.backward()
print(loss, x.grad)
y = x * 2
y.sum().backward()
(
    y
    .sum()
    .backward()
)
""",
    "binop_multiline_error": """import torch
a = torch.ones(2, 3)
b = torch.ones(3, 2)
c = (a.sum()
     + a
     * b)
""",
    "list_methods": """losses = []
for step in range(4):
    losses.append(1.0 / (step + 1))
print(losses[-1], len(losses), losses.index(0.5), losses.count(1.0))
losses.extend([0.1, 0.05])
last = losses.pop()
print(last, losses, round(sum(losses) / len(losses), 4))
""",
    "str_methods": """names = ["w", "b"]
print(", ".join(names), "loss".upper(), "Loss".lower(), "  pad  ".strip())
line = "step=3"
print(line.split("="), line.startswith("step"), "ab".title())
print("-" * 10, str(3.5) + "!", f"{'x':*^7}")
""",
    "dict_update": """import torch
params = {"w": torch.tensor(1.0, requires_grad=True), "b": torch.tensor(0.0, requires_grad=True)}
x = 2.0
y = params["w"] * x + params["b"]
grads = torch.autograd.grad(y, list(params.values()))
named = dict(zip(params.keys(), grads))
for k in sorted(named):
    print(k, named[k].item())
params.update({"c": 3})
print(len(params), "c" in params)
""",
    "allclose_atol": """import torch
a = torch.tensor([1.0, 2.0])
b = a + 1e-5
print(torch.allclose(a, b), torch.allclose(a, b, atol=1e-4), torch.isclose(a, b, rtol=0.0, atol=1e-6))
print(a.allclose(b, rtol=1e-3))
""",
    "bool_long_methods": """import torch
x = torch.tensor([0.2, 1.7, -0.4])
print(x.long(), x.bool(), x.int(), x.floor(), x.cos(), x.diag().shape)
print(x.sigmoid().log(), x.maximum(torch.zeros(3)), x.exp().log2(), x.sum())
print(x.round(decimals=1), x.clamp(min=0.0), x.square().sqrt().neg())
""",
    "hessian_vector_func": """import torch
from torch.func import jvp, grad
def f(x):
    return torch.sum(torch.sin(x) * x ** 2)
x = torch.tensor([0.1, 0.2, 0.3])
v = torch.tensor([1.0, 0.0, 0.0])
_, hvp = jvp(grad(f), (x,), (v,))
print(hvp)
H = torch.func.hessian(f)(x)
print(torch.allclose(H @ v, hvp), H.shape)
""",
    "backward_inputs": """import torch
a = torch.tensor(1.0, requires_grad=True)
b = torch.tensor(2.0, requires_grad=True)
c = a * b
c.backward(inputs=[a])
print(a.grad, b.grad)
""",
    "torch_sum_builtin_sum": """import torch
vals = [torch.tensor(1.0), torch.tensor(2.5)]
print(sum(vals), torch.sum(torch.stack(vals)), sum(v.item() for v in vals))
print(max(3, 7), min(0.5, -1), abs(-2), round(2.675, 2), round(3.7))
""",
    "nested_function_grad": """import torch
def outer(x):
    def inner(y):
        return torch.exp(y) * 2
    return inner(x) + x
x = torch.tensor(0.0, requires_grad=True)
out = outer(x)
out.backward()
print(out.item(), x.grad.item())
""",
    "getitem_out_of_range": """import torch
x = torch.tensor([1.0, 2.0, 3.0])
print(x[-1], x[2])
print(x[3])
""",
    "call_wrong_args": """def f(a, b=2):
    return a + b
print(f(1))
print(f(1, 2, 3))
""",
    "item_on_grad_none": """import torch
x = torch.tensor(1.0, requires_grad=True)
y = torch.tensor(2.0, requires_grad=True)
(x * 2).backward()
print(x.grad.item())
print(y.grad.item())
""",
    "float_method_attr": """import torch
x = torch.tensor(1.5)
v = x.item()
print(v.item())
""",
    "kwonly_missing": """def f(x, *, k):
    return x * k
print(f(2, k=3))
print(f(2, 3))
""",
    "set_weight_parameter": """import torch
import torch.nn as nn
layer = nn.Linear(2, 1)
with torch.no_grad():
    layer.weight.copy_(torch.tensor([[1.0, -1.0]]))
    layer.bias.fill_(0.5)
print(layer(torch.tensor([[2.0, 3.0]])))
layer.weight = nn.Parameter(torch.ones(1, 2))
print(layer.weight)
layer.bias = torch.zeros(1)
""",
    "qualname_error": """def make():
    def inner(a, b):
        return a + b
    return inner
f = make()
print(f(1, 2))
print(f(1))
""",
    "lambda_kwargs_error": """sq = lambda x, p=2: x ** p
print(sq(3), sq(3, p=3), sq(x=2))
print(sq(3, q=1))
""",
    "format_errors": """print("{} {}".format(1, 2), "{0}{0}".format("ab"), "{x:>4}|".format(x=7))
print("{:{}}|".format(3, 5))
print("{} {}".format(1))
""",
    "func_grad_kw_user": """import torch
from torch.func import grad
def f(x, scale=1.0):
    return (scale * x ** 2).sum()
x = torch.tensor([1.0, 2.0])
print(grad(f)(x, scale=3.0))
print(torch.autograd.functional.jacobian(lambda t: f(t, scale=0.5), x))
""",
    "module_weight_sgd": """import torch
import torch.nn as nn
torch.manual_seed(7)
lin = nn.Linear(2, 1)
x = torch.tensor([[1.0, 2.0]])
for _ in range(2):
    loss = (lin(x) ** 2).sum()
    lin.zero_grad()
    loss.backward()
    with torch.no_grad():
        lin.weight -= 0.1 * lin.weight.grad
        lin.bias -= 0.1 * lin.bias.grad
    print(round(loss.item(), 5))
print(lin.weight.requires_grad, lin.weight.is_leaf)
""",
    "posonly_kwonly_def": """def affine(x, /, w=2.0, *, b=0.5):
    return w * x + b
print(affine(1.0), affine(1.0, 3.0), affine(1.0, b=1.0), affine(2.0, w=1.0, b=0.0))
print(affine(x=1.0))
""",
    "attr_on_tuple": """import torch
x = torch.tensor(1.0, requires_grad=True)
g = torch.autograd.grad(x * 2, x)
print(g)
print(g.item())
""",
    "data_update": """import torch
w = torch.tensor([2.0, -3.0], requires_grad=True)
lr = 0.25
for it in range(3):
    loss = (w ** 2).sum()
    loss.backward()
    w.data -= lr * w.grad
    w.grad.data.zero_()
    print(it, loss.item(), w.data)
""",
    "fstring_misc": """import torch
x = torch.tensor([1.0, -2.0])
ok = bool((x > 0).any())
print(f"{'yes' if ok else 'no'} {{literal}} {x.numel():5d} {x.sum().item():.2e} {x}")
print(f"{x.tolist()} {x.shape[0]} {str(x.dtype)} {x.dtype}")
print(f"{len([1, 2, 3])!r:>4}")
print(f"{x:.3f}")
""",
    "comprehensions_misc": """import torch
table = [[i * j for j in range(3)] for i in range(3)]
print(table)
evens = [v if v % 2 == 0 else -v for v in range(6) if v > 0]
print(evens, {name: len(name) for name in ["w", "bias"]})
grads = [torch.tensor(float(i)) for i in range(3)]
print(*grads, sep="\\n")
print(*[g.item() for g in grads])
for idx in range(len(grads)):
    print(idx, grads[idx])
""",
    "assert_allclose": """import torch
x = torch.tensor([0.3, 0.7], requires_grad=True)
y = torch.tanh(x).sum()
g, = torch.autograd.grad(y, x)
assert torch.allclose(g, 1 - torch.tanh(x) ** 2), "tanh derivative"
print("checked", g)
assert g.sum() > 5, f"sum was {g.sum().item():.3f}"
""",
    "requires_grad_nonleaf_error": """import torch
x = torch.tensor(1.0, requires_grad=True)
y = x * 2
print(y.requires_grad)
y.requires_grad = False
""",
    "grad_assign_shape_error": """import torch
x = torch.ones(3, requires_grad=True)
x.grad = torch.zeros(3)
print(x.grad)
x.grad = torch.zeros(2)
""",
    "backward_under_no_grad": """import torch
x = torch.tensor(1.0, requires_grad=True)
with torch.no_grad():
    y = x ** 2
print(y.requires_grad, y.grad_fn)
y.backward()
""",
    "func_grad_non_scalar": """import torch
from torch.func import grad
f = lambda x: x ** 2
g = grad(f)
print(g(torch.tensor(3.0)))
print(g(torch.tensor([1.0, 2.0])))
""",
    "func_item_inside": """import torch
import torch.func

def f(x):
    s = x.sum()
    if s.item() > 0:
        return s ** 2
    return s

print(torch.func.grad(f)(torch.tensor([1.0, 2.0])))
""",
    "jacrev_argnums": """import torch
from torch.func import jacrev, jacfwd
def f(a, b):
    return a * torch.sin(b)
a = torch.tensor([1.0, 2.0])
b = torch.tensor([0.5, 1.0])
ja, jb = jacrev(f, argnums=(0, 1))(a, b)
print(ja, jb, sep="\\n")
print(jacfwd(f, argnums=1)(a, b))
""",
    "vjp_tuple": """import torch
from torch.func import vjp
def f(x, y):
    return x * y, x + y
x, y = torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])
(p, s), pull = vjp(f, x, y)
gx, gy = pull((torch.ones(2), torch.zeros(2)))
print(p, s, gx, gy)
""",
    "hessian_vectorize": """import torch
from torch.autograd.functional import hessian, jacobian
f = lambda v: (v ** 4).sum() + v[0] * v[1]
v = torch.tensor([1.0, 2.0])
print(hessian(f, v, vectorize=True))
print(jacobian(torch.exp, v, create_graph=False, strict=False))
out = jacobian(lambda v: v.sum(), v)
print(out)
""",
    "node_variable": """import torch
x = torch.tensor(2.0, requires_grad=True)
y = x * 3
acc = y.grad_fn.next_functions[0][0]
print(acc.name())
print(acc.variable is x, acc.variable)
""",
    "retain_grad_nonleaf": """import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
h = x * x
h.retain_grad()
out = h.sum() * 2
out.backward()
print(h.grad, x.grad, h.is_leaf, h.requires_grad)
""",
    "grad_all_flags_kw": """import torch
x = torch.tensor(1.0, requires_grad=True)
z = torch.tensor(1.0, requires_grad=True)
y = x ** 3
(gx, gz) = torch.autograd.grad(
    outputs=(y,),
    inputs=(x, z),
    grad_outputs=(torch.tensor(2.0),),
    retain_graph=True,
    create_graph=True,
    allow_unused=True,
    materialize_grads=True,
)
print(gx, gz)
print(torch.autograd.grad(gx, x, only_inputs=True))
""",
    "tensor_from_list_of_floats": """import torch
vals = [0.1 * i for i in range(5)]
t = torch.tensor(vals, dtype=torch.float64)
print(t)
print(t.mean().item(), t.std(), t.var(unbiased=False))
print(torch.tensor([[1, 2], [3, 4]]) * 1.0, torch.tensor(3) / 2, torch.tensor(7) // 2)
""",
    "nested_if_in_def": """import torch

def piecewise(x):
    # a smooth-ish function with a branch
    if x.item() < 0:
        return x ** 2
    elif x.item() < 1:
        return x
    else:
        return torch.log(x) + 1

for v in [-1.0, 0.5, 2.0]:
    x = torch.tensor(v, requires_grad=True)
    y = piecewise(x)
    y.backward()
    print(f"x={v:+.1f} y={y.item():.4f} dy={x.grad.item():.4f}")
""",
    "softmax_ce": """import torch
import torch.nn.functional as F
logits = torch.tensor([[2.0, 0.5, -1.0]], requires_grad=True)
target = torch.tensor([0])
loss = F.cross_entropy(logits, target)
loss.backward()
print(round(loss.item(), 6))
print(logits.grad)
print(torch.softmax(logits, dim=1) - logits.grad)
""",
    "sequential_relu_params": """import torch
from torch import nn
torch.manual_seed(11)
net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
n_params = sum(p.numel() for p in net.parameters())
print("params:", n_params)
x = torch.randn(2, 3)
out = net(x)
print(out.shape, out.requires_grad)
g = torch.autograd.grad(out.sum(), net[2].bias)[0]
print(g)
""",
    "adam_quadratic": """import torch
torch.manual_seed(0)
x = torch.randn(3, requires_grad=True)
opt = torch.optim.Adam([x], lr=0.1, betas=(0.9, 0.99))
for i in range(5):
    opt.zero_grad(set_to_none=True)
    f = ((x - 1.0) ** 2).sum()
    f.backward()
    opt.step()
print(f"{f.item():.6f}", x.grad is not None)
""",
    "functional_call_maml": """import torch
import torch.nn as nn
from torch.func import functional_call, grad

torch.manual_seed(2)
model = nn.Linear(2, 1)
params = {k: v.detach() for k, v in model.named_parameters()}
x = torch.randn(4, 2)
y = torch.randn(4, 1)

def loss_fn(p, x, y):
    return ((functional_call(model, p, (x,)) - y) ** 2).mean()

g = grad(loss_fn)(params, x, y)
print(sorted(g.keys()), g["weight"].shape)
fast = {k: params[k] - 0.5 * g[k] for k in params}
print(loss_fn(fast, x, y) < loss_fn(params, x, y))
""",
    "second_order_maml_loop": """import torch

torch.manual_seed(0)
theta = torch.tensor([0.5], requires_grad=True)
tasks = [(torch.tensor([1.0]), torch.tensor([2.0])), (torch.tensor([2.0]), torch.tensor([3.0]))]
meta_loss = 0.0
for x, y in tasks:
    inner = ((theta * x - y) ** 2).sum()
    (g,) = torch.autograd.grad(inner, theta, create_graph=True)
    adapted = theta - 0.1 * g
    meta_loss = meta_loss + ((adapted * x - y) ** 2).sum()
meta_loss.backward()
print(f"meta loss {meta_loss.item():.4f}", theta.grad)
""",
    "pinn_heat_1d": """import torch
torch.manual_seed(1)
a = torch.randn(3, requires_grad=True)
x = torch.linspace(0.0, 1.0, 5).requires_grad_()
t = torch.full((5,), 0.5, requires_grad=True)
u = a[0] * torch.sin(torch.pi * x) * torch.exp(-a[1] * t) + a[2] * x * t
u_t = torch.autograd.grad(u.sum(), t, create_graph=True)[0]
u_x = torch.autograd.grad(u.sum(), x, create_graph=True)[0]
u_xx = torch.autograd.grad(u_x.sum(), x, create_graph=True)[0]
residual = u_t - 0.1 * u_xx
loss = torch.mean(residual ** 2)
loss.backward()
print(loss.item() > 0, a.grad.shape, u_xx.shape)
print([round(v, 4) for v in a.grad.tolist()])
""",
    "jacobian_of_net": """import torch
import torch.nn as nn
torch.manual_seed(3)
net = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 2))
x = torch.tensor([0.5, -0.5])
J = torch.autograd.functional.jacobian(net, x)
print(J.shape)
J2 = torch.func.jacrev(net)(x)
print(torch.allclose(J, J2))
""",
    "hessian_loop_rows": """import torch
def rosen(p):
    x, y = p[0], p[1]
    return (1 - x) ** 2 + 100 * (y - x ** 2) ** 2
p = torch.tensor([1.0, 1.0], requires_grad=True)
g = torch.autograd.grad(rosen(p), p, create_graph=True)[0]
H = torch.zeros(2, 2)
for i in range(2):
    H[i] = torch.autograd.grad(g[i], p, retain_graph=True)[0]
print(g.detach(), H, sep="\\n")
print(torch.allclose(H, torch.autograd.functional.hessian(rosen, p)))
""",
    "grad_of_grad_norm": """import torch
w = torch.tensor([1.0, 2.0], requires_grad=True)
loss = (w ** 3).sum()
(g,) = torch.autograd.grad(loss, w, create_graph=True)
penalty = g.norm() ** 2
penalty.backward()
print(g, penalty, w.grad)
""",
    "nan_debug": """import torch
x = torch.tensor([0.0, 1.0], requires_grad=True)
y = torch.sqrt(x) * 0
y.sum().backward()
print(x.grad)
bad = torch.isnan(x.grad)
if bad.any():
    print("nan at", [i for i, b in enumerate(bad.tolist()) if b])
print(torch.where(torch.isnan(x.grad), torch.zeros_like(x.grad), x.grad))
""",
    "constant_derivative_trap": """import torch
x = torch.tensor(3.0, requires_grad=True)
y = 2 * x
dy = torch.autograd.grad(y, x, create_graph=True)[0]
print(dy, dy.requires_grad, dy.grad_fn)
d2y = torch.autograd.grad(dy, x)
""",
    "grad_fn_loop_names": """import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x.exp() * 2).mean()
fn = y.grad_fn
names = []
for depth in range(4):
    if fn is None:
        break
    names.append(fn.name())
    fn = fn.next_functions[0][0] if fn.next_functions else None
print(" <- ".join(names))
""",
    "zero_grad_manual_list": """import torch
params = [torch.ones(2, requires_grad=True), torch.zeros(1, requires_grad=True)]
for epoch in range(2):
    out = (params[0] * 3).sum() + params[1].sum() * 2
    out.backward()
    print(epoch, [p.grad.tolist() for p in params])
    for p in params:
        p.grad.zero_()
print([p.grad for p in params])
""",
    "keyword_only_multiline_def": '''import torch

def train_step(
    w,
    x,
    y,
    *,
    lr=0.1,
    verbose=False,
):
    """One step of gradient descent on a squared error."""
    loss = ((w * x - y) ** 2).mean()
    (g,) = torch.autograd.grad(loss, w)
    if verbose:
        print(f"  loss={loss.item():.4f}")
    return (w - lr * g).detach().requires_grad_(), loss.item()

w = torch.tensor(0.0, requires_grad=True)
x = torch.tensor([1.0, 2.0])
y = torch.tensor([2.0, 4.0])
for i in range(3):
    w, l = train_step(w, x, y, lr=0.2, verbose=(i == 0))
print(round(w.item(), 5), round(l, 5))
''',
    "imports_from": """from math import pi, sqrt
from torch import nn, autograd
from torch.autograd import grad
import torch.autograd as ag
import torch
x = torch.tensor(pi / 4, requires_grad=True)
y = torch.sin(x) ** 2
g1, = grad(y, x, create_graph=True)
g2, = autograd.grad(g1, x, retain_graph=True)
g3 = ag.grad(y, [x])[0]
print(round(g1.item(), 6), round(g2.item(), 6), g3, sqrt(4.0))
print(nn.Tanh()(torch.tensor([0.0])))
""",
    "unicode_names": """import torch
α = 0.1  # learning rate
θ = torch.tensor([1.0, -1.0], requires_grad=True)
L = (θ ** 2).sum()
(dL_dθ,) = torch.autograd.grad(L, θ)
θ_new = θ - α * dL_dθ
print("∂L/∂θ =", dL_dθ, "θ′ =", θ_new.detach())
""",
    "semicolons_one_line_if": """import torch
a = torch.tensor(1.0, requires_grad=True); b = a * 2; b.backward()
if a.grad is not None: print("grad", a.grad)
for i in range(2): print(i, end=" ")
print()
x = torch.ones(2)
x.shape
x.sum()
""",
    "axis_keyword": """import torch
m = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
print(m.sum(axis=0), m.mean(axis=1), torch.sum(m, axis=1, keepdim=True))
values, idx = m.max(dim=0)
print(values, idx)
n, k = m.shape
print(n, k, m.shape == (2, 2), m.size() == torch.Size([2, 2]) if False else m.size(-1))
""",
    "backward_all_kw": """import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor(3.0, requires_grad=True)
y = w * x ** 2
y.backward(gradient=torch.ones_like(y), retain_graph=True, create_graph=True, inputs=[x])
print(x.grad, w.grad)
gx = x.grad
x.grad = None
gx.sum().backward(inputs=(x, w))
print(x.grad, w.grad)
""",
    "functional_vjp_jvp": """import torch
from torch.autograd.functional import vjp, jvp
f = lambda t: torch.stack([t[0] * t[1], t[1] ** 2])
x = torch.tensor([2.0, 3.0])
out, v = vjp(f, x, torch.tensor([1.0, 0.0]))
print(out, v)
out, u = jvp(f, x, torch.tensor([0.0, 1.0]))
print(out, u)
""",
    "tensor_format_in_fstring": """import torch
loss = torch.tensor(0.123456, requires_grad=True)
for i in range(2):
    print(f"{i:2d}: {loss:.4f} | {loss.item():8.3f} | {str(loss.item())[:5]}")
print("=" * 12)
print("loss", round(loss.item(), 3), "grad", loss.grad)
""",
    "requires_grad_print_return": """import torch
x = torch.arange(4).float().requires_grad_()
print(x)
print(x.requires_grad_(False), x.requires_grad)
y = torch.zeros(2, 2)
print(y.zero_(), y.fill_(1.5).sum())
""",
    "error_in_lambda_line": """import torch
from torch.func import grad
f = lambda x: (x ** 2).sum() + torch.ones(3) @ torch.ones(2)
g = grad(f)
print("made")
print(g(torch.tensor([1.0, 2.0])))
""",
    "error_in_no_grad_body": """import torch
w = torch.tensor([1.0], requires_grad=True)
with torch.no_grad():
    w.mul_(2)
    print(w)
    w.grad.zero_()
""",
    "error_multiline_if_test": """import torch
x = torch.tensor([1.0, 2.0])
if (x.sum() > 0 and
        x.mean()
        .item() > 10):
    print("big")
elif (x > 0
      ):
    print("no")
""",
    "error_in_comprehension_call": """import torch
def sq(t):
    return t.pow(2).sum()
xs = [torch.ones(2), torch.ones(3)]
print([sq(x).item() for x in xs])
out = [
    torch.dot(x, torch.ones(2))
    for x in xs
]
""",
    "error_default_arg": """import torch
def f(x, scale=torch.tensor([1.0, 2.0])):
    return x * scale
print(f(torch.ones(2)))
print(f(torch.ones(3)))
""",
    "error_recursion_depth_ok": """def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
print([fib(i) for i in range(10)])
""",
    "bool_multiline_name": """import torch
v = torch.ones(2)
ok = (v.sum() > 0 and
      v)
""",
    "if_name_tensor": """import torch
v = torch.ones(2)
w = v * 2
if w.sum() > 1:
    pass
if (w.sum() > 1 and
    w):
    pass
""",
    "ifexp_multiline": """import torch
v = torch.ones(2)
r = (1 if
     v
     else 2)
""",
    "not_tensor": """import torch
v = torch.ones(2)
print(not v.sum())
print(not
      v)
""",
    "assert_tensor_multi": """import torch
v = torch.ones(2)
assert (v.sum() > 0).item()
assert (
    v > 0
)
""",
    "unbound_local_augassign": """total = 0
def add(v):
    total += v
    return total
print("before")
add(1)
""",
    "unbound_local_read_then_assign": """import torch
lr = 0.1
def step(w, g):
    w = w - lr * g
    print("lr was", lr)
    if g.item() > 100:
        lr = lr / 2
    return w
print(step(torch.tensor(1.0), torch.tensor(2.0)))
""",
    "free_variable_error": """def outer():
    def inner():
        return k
    r = inner()
    k = 1
    return r
outer()
""",
    "del_unbound_local": """def f():
    del q
f()
""",
    "globals_read_ok": """import torch
scale = 3.0
def model(x):
    h = torch.tanh(x) * scale
    return h.sum()
def fit(x):
    for i in range(2):
        loss = model(x)
        print(i, round(loss.item(), 4))
    return loss
x = torch.tensor([0.1, 0.2], requires_grad=True)
fit(x).backward()
print(x.grad)
""",
    "type_hints": '''import torch

def mse(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Mean squared error."""
    return ((pred - target) ** 2).mean()

lr: float = 0.1
steps: int = 3
w: torch.Tensor = torch.tensor(0.0, requires_grad=True)
x = torch.tensor([1.0, 2.0])
for _ in range(steps):
    loss = mse(w * x, 2 * x)
    (g,) = torch.autograd.grad(loss, w)
    w = (w - lr * g).detach().requires_grad_()
print(f"w={w.item():.4f} loss={loss.item():.4f}")
''',
    "hint_tuple_return": """import torch
def value_and_slope(f, x: float) -> tuple[float, float]:
    t = torch.tensor(x, requires_grad=True)
    y = f(t)
    (d,) = torch.autograd.grad(y, t)
    return y.item(), d.item()
print(value_and_slope(torch.sin, 0.0))
print(value_and_slope(lambda t: t ** 2, 3.0))
""",
    "config_dict": """import torch
config = dict(lr=0.05, steps=4, momentum=0.0, name="toy")
w = torch.tensor([1.0, -2.0], requires_grad=True)
opt = torch.optim.SGD([w], lr=config["lr"], momentum=config["momentum"])
for step in range(config["steps"]):
    opt.zero_grad()
    loss = (w ** 2).sum()
    loss.backward()
    opt.step()
print(config["name"], [round(v, 4) for v in w.tolist()])
""",
    "module_docstring_top": '''"""A first look at autograd.

We differentiate y = x ** 2 at x = 3.
"""
# ---- setup ----
import torch

x = torch.tensor(3.0, requires_grad=True)  # a leaf


y = x ** 2
y.backward()
print("dy/dx =", x.grad)  # 2 * 3
''',
    "func_multi_arg_transforms": """import torch
from torch.func import hessian, jacrev, jvp, vmap
def f(a, b):
    return (a ** 2 * b).sum()
a = torch.tensor([1.0, 2.0])
b = torch.tensor([3.0, 4.0])
print(hessian(f, argnums=1)(a, b))
print(jacrev(f, argnums=(0, 1))(a, b))
print(jvp(f, (a, b), (torch.ones(2), torch.zeros(2))))
print(vmap(lambda r: r.sum(), in_dims=0)(torch.eye(3)))
aux = jacrev(lambda t: (t.sin(), t.cos()), has_aux=True)(a)
print(aux[0].shape, aux[1])
""",
    "functional_hessian_two_inputs": """import torch
from torch.autograd.functional import hessian
def f(x, y):
    return (x * y).sum() + (x ** 3).sum()
H = hessian(f, (torch.tensor([1.0]), torch.tensor([2.0])))
print(len(H), len(H[0]))
print(H[0][0], H[0][1], H[1][1])
""",
    "any_all_generators": """import torch
params = [torch.ones(2, requires_grad=True), torch.zeros(2, requires_grad=True)]
(params[0] * 2).sum().backward()
print(any(p.grad is None for p in params), all(p.requires_grad for p in params))
print(sum(p.numel() for p in params), max(p.sum().item() for p in params))
print(any(p.grad.abs().sum() > 0 for p in params))
""",
    "generator_consumed_once": """import torch
xs = [torch.tensor(1.0), torch.tensor(2.0)]
squares = (x ** 2 for x in xs)
print(sum(squares))
print(sum(squares))
pairs = ((i, j) for i in range(2) for j in range(2) if i != j)
print(list(pairs), list(pairs))
print(str(squares)[:22])
del squares, pairs
""",
    "nn_train_eval_loop": """import torch as th
import torch.nn as nn
th.manual_seed(0)
model = nn.Sequential(nn.Linear(1, 4), nn.Tanh(), nn.Linear(4, 1))
opt = th.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
loss_fn = nn.MSELoss(reduction="mean")
x = th.linspace(-1, 1, 8).unsqueeze(1)
y = 2 * x + 1
model.train()
for epoch in range(3):
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
    print(f"epoch {epoch}: {loss.item():.5f}")
model.eval()
with th.no_grad():
    for p in model.parameters():
        p -= 0.0 * p
    print(model(th.tensor([[0.5]])).shape)
print(model.training, model[0].weight.requires_grad)
""",
    "parameter_direct": """import torch
from torch import nn
w = nn.Parameter(torch.tensor([0.5, -0.5]))
print(w)
print(w.requires_grad, w.is_leaf)
loss = (w ** 2).sum()
loss.backward()
print(w.grad)
""",
    "creation_from_shapes": """import torch
torch.manual_seed(9)
x = torch.randn(2, 3)
print(torch.zeros(x.shape), torch.ones(x.size()).sum(), torch.ones([2, 2]).shape)
print(torch.ones(size=(1, 2)), torch.randn(x.shape).shape)
y = torch.ones_like(x, requires_grad=True)
print(y.requires_grad, torch.zeros_like(x, dtype=torch.float64).dtype)
print(x.view(-1).shape, x.reshape(3, -1).shape, x.flatten().tolist() == x.view(-1).tolist())
""",
    "tensor_index_assign": """import torch
x = torch.tensor([1.0, -2.0, 3.0, -4.0], requires_grad=True)
idx = torch.tensor([0, 2])
print(x[idx], x[torch.tensor([True, False, True, False])])
h = x * 1.0
h[h < 0] = 0.0
print(h)
h.sum().backward()
print(x.grad)
y = x.detach().clone()
y[1:3] = torch.tensor([10.0, 20.0])
y[-1] += 1
print(y, x)
""",
    "matrix_grad": """import torch
torch.manual_seed(0)
A = torch.randn(3, 3, requires_grad=True)
b = torch.randn(3)
x = A @ b
loss = x.pow(2).sum()
loss.backward()
expected = 2 * torch.outer(A.detach() @ b, b)
print(torch.allclose(A.grad, expected), A.grad.shape)
print(A.grad.T.shape, A.T.requires_grad)
""",
    "syntax_unclosed_paren": """import torch
x = torch.ones(2
print(x)
""",
    "syntax_missing_colon": """import torch
def f(x)
    return x * 2
""",
    "syntax_indentation": """import torch
x = torch.tensor(1.0, requires_grad=True)
for i in range(3):
print(i)
""",
    "syntax_unexpected_indent": """import torch
x = torch.tensor(1.0)
  y = x * 2
""",
    "builtins_pow_map": """import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = pow(x, 3).sum()
y.backward()
print(y, x.grad, pow(2, 10), pow(2.0, -1), pow(3, 4, 5), divmod(17, 5))
losses = [0.5, 0.25, 0.125]
print(list(map(lambda v: round(v * 100), losses)), list(filter(lambda v: v < 0.3, losses)))
print(sum(map(float, ["1.5", "2"])), [t.item() for t in map(torch.tensor, [1.0, 2.0])])
""",
    "builtin_key_functions": """import torch
xs = [-3.0, 1.0, -0.5]
print(sorted(xs, key=abs), max(xs, key=abs), min(xs, key=lambda v: -v))
print(abs, len)
grads = {"w": torch.tensor(0.3), "b": torch.tensor(-1.2)}
print(max(grads, key=grads.get), sorted(grads, key=lambda k: grads[k].item()))
""",
    "einsum_hvp": """import torch
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
A = torch.tensor([[2.0, 0.0, 1.0], [0.0, 3.0, 0.0], [1.0, 0.0, 4.0]])
f = 0.5 * torch.einsum("i,ij,j->", w, A, w)
(g,) = torch.autograd.grad(f, w, create_graph=True)
v = torch.tensor([1.0, 0.0, -1.0])
(hv,) = torch.autograd.grad(torch.einsum("i,i->", g, v), w)
print(f, g, hv, sep="\\n")
print(torch.allclose(hv, A @ v), torch.einsum("ij->ji", A).shape)
""",
    "activations_more": """import torch
import torch.nn as nn
import torch.nn.functional as F
x = torch.linspace(-2, 2, 5, requires_grad=True)
y = F.leaky_relu(x, negative_slope=0.1) + F.elu(x) + F.logsigmoid(x)
y.sum().backward()
print(y)
print(x.grad)
print(nn.LeakyReLU(0.2)(x).detach(), F.huber_loss(x, torch.zeros(5), delta=1.0))
print(F.normalize(torch.tensor([3.0, 4.0]), dim=0), nn.L1Loss()(x, torch.zeros(5)))
""",
    "jacobian_strategy": """import torch
from torch.autograd.functional import jacobian, hessian
f = lambda x: torch.sin(x) * x
x = torch.tensor([0.5, 1.0])
print(jacobian(f, x, vectorize=True, strategy="forward-mode"))
print(hessian(lambda t: f(t).sum(), x, vectorize=True, outer_jacobian_strategy="forward-mode"))
torch.manual_seed(seed=1)
print(torch.rand(2))
""",
    "hooks_inspect": """import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
h = x * 3
seen = []
handle = h.register_hook(lambda g: seen.append(g.clone()))
double = x.register_hook(lambda g: g * 2)
out = (h ** 2).sum()
out.backward()
print(seen, x.grad)
handle.remove()
double.remove()
x.grad = None
(x * 3).pow(2).sum().backward()
print(x.grad, len(seen))
y = x * 1
y.register_hook(print)
y.sum().backward()
del handle, double
""",
    "grad_mode_queries": """import torch
print(torch.is_grad_enabled())
with torch.no_grad():
    print("inside no_grad:", torch.is_grad_enabled())
    with torch.enable_grad():
        print("inside enable_grad:", torch.is_grad_enabled())
with torch.set_grad_enabled(False):
    print(torch.is_grad_enabled())
print(torch.is_grad_enabled())
""",
    "newton_method": """import torch

def f(x):
    return x ** 3 - 2 * x - 5

x = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
for it in range(5):
    y = f(x)
    (dy,) = torch.autograd.grad(y, x)
    with torch.no_grad():
        x -= y / dy
    print(f"iter {it}: x = {x.item():.10f}, f(x) = {f(x).item():+.2e}")
""",
    "finite_difference_check": """import torch
import math

def g(t):
    return torch.sin(t) * torch.exp(-t ** 2)

x0 = 0.3
x = torch.tensor(x0, dtype=torch.float64, requires_grad=True)
auto = torch.autograd.grad(g(x), x)[0].item()
h = 1e-6
fd = (g(torch.tensor(x0 + h, dtype=torch.float64)) - g(torch.tensor(x0 - h, dtype=torch.float64))) / (2 * h)
exact = math.cos(x0) * math.exp(-x0 ** 2) - 2 * x0 * math.sin(x0) * math.exp(-x0 ** 2)
print(f"autograd {auto:.10f}")
print(f"finite   {fd.item():.10f}")
print(abs(auto - exact) < 1e-12, abs(fd.item() - exact) < 1e-8)
""",
    "double_vjp_jvp_trick": """import torch
x = torch.tensor([0.5, 1.0, 1.5], requires_grad=True)
y = torch.stack([x[0] * x[1], x[1] * x[2], torch.sin(x[0])])
u = torch.ones(3, requires_grad=True)   # dummy cotangent
(vjp,) = torch.autograd.grad(y, x, grad_outputs=u, create_graph=True)
v = torch.tensor([1.0, 0.0, 0.0])
(jvp,) = torch.autograd.grad(vjp, u, grad_outputs=v)
print(jvp)
J = torch.autograd.functional.jacobian(
    lambda t: torch.stack([t[0] * t[1], t[1] * t[2], torch.sin(t[0])]),
    x.detach(),
)
print(torch.allclose(jvp, J @ v))
""",
    "gradient_descent_table": """import torch
torch.manual_seed(42)
X = torch.randn(20, 2)
true_w = torch.tensor([2.0, -3.0])
y = X @ true_w + 0.1 * torch.randn(20)
w = torch.zeros(2, requires_grad=True)
print(f"{'step':>4} | {'loss':>10} | w")
print("-" * 30)
for step in range(0, 50):
    loss = ((X @ w - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
    w.grad.zero_()
    if step % 10 == 0 or step == 49:
        print(f"{step:>4} | {loss.item():>10.6f} | {[round(v, 3) for v in w.tolist()]}")
""",
    "formatting_mix": """import torch
loss = torch.tensor(0.0123456)
w, p = 12, 3
print(f"[{loss.item():>{w}.{p}f}]")
print("%.4f | %s | %5.1f%%" % (loss, "ok", 12.345))
print("%(name)s=%(val).2f" % {"name": "lr", "val": 0.05})
print("{!r} {:>8.3f} {:e}".format("x", loss.item(), 12345.678))
print("{:.2f}".format(loss))
print("{0:.1f} {0:.3f}".format(2.0 / 3))
""",
    "import_inside_def": """def circle_area(r):
    import math
    return math.pi * r ** 2

def grad_area(r0):
    import torch
    r = torch.tensor(r0, requires_grad=True)
    a = torch.pi * r ** 2
    (g,) = torch.autograd.grad(a, r)
    return g.item()

print(round(circle_area(2.0), 6), round(grad_area(2.0), 4))
""",
    "nested_returns_multi_target": """import torch
def stats(t):
    return (t.mean(), t.std()), t.numel()
(mu, sd), n = stats(torch.tensor([1.0, 2.0, 3.0, 4.0]))
print(mu, sd, n)
a = [0.0, 0.0, 0.0]
b = [1.0, 2.0]
a[0] = b[1] = 9.0
print(a, b)
MAX_STEPS = 3
LEARNING_RATE = 1e-2
print(MAX_STEPS * LEARNING_RATE)
""",
    "print_functions": """import torch
def f(x):
    def inner(t):
        return t
    return inner
sq = lambda t: t * t
g = torch.func.grad(sq)
x = torch.ones(2)
for thing in (f, f(1), sq, g, x.sum, print, len):
    text = str(thing)
    print(text.split(" at 0x")[0])
""",
    "to_cpu_chains": """import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x ** 2).sum()
y.backward()
print(y.detach().cpu().item(), x.grad.cpu().tolist())
z = x.to(torch.float64)
print(z.dtype, z.requires_grad, z.grad_fn.name(), x.to(dtype=torch.float16).dtype)
print(x[None].shape, x[:, None].shape, x.unsqueeze(dim=0).contiguous().shape)
print(*x.detach())
""",
    "recursive_nth_derivative": '''import torch

def nth_derivative(f, x, n):
    """d^n f / dx^n at x, by nested autograd.grad."""
    if n == 0:
        return f(x)
    (d,) = torch.autograd.grad(nth_derivative(f, x, n - 1), x, create_graph=True)
    return d

x = torch.tensor(0.5, requires_grad=True)
for n in range(5):
    print(n, f"{nth_derivative(torch.sin, x, n).item():+.6f}")
''',
    "torch_version": """import torch
import torch as th
print(torch.__version__)
print(torch.__version__ == th.__version__, torch.__version__ >= "2.0", th.__version__.startswith("2"))
""",
    "lambda_default_capture": """import torch
scales = [lambda t, k=k: t * k for k in range(1, 4)]
late = [lambda t: t * k for k in range(1, 4)]
x = torch.tensor(2.0, requires_grad=True)
print([f(x).item() for f in scales], [f(x).item() for f in late])
grads = [torch.autograd.grad(f(x), x)[0].item() for f in scales]
print(grads, "abc".upper(), [1, 2, 3][::-1])
for a, b in zip(torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])):
    print(a * b, end="; ")
print()
del scales, late
""",
    "negative_step_tensor_error": """import torch
x = torch.arange(5.0)
print(x[::2], x.flip(0))
y = x[::-1]
""",
    "named_params_norms": """import torch
import torch.nn as nn
torch.manual_seed(8)
net = nn.Sequential(nn.Linear(2, 2), nn.Tanh(), nn.Linear(2, 1))
out = net(torch.ones(3, 2)).pow(2).mean()
out.backward()
for name, param in net.named_parameters():
    print(f"{name:>10}: grad norm {param.grad.norm():.4f}  shape {tuple(param.shape)}")
total = torch.sqrt(sum((p.grad ** 2).sum() for p in net.parameters()))
print(f"total {total:.4f}")
""",
    "multiline_unpack": """a, b = (1,
        2,
        3)
""",
    "multiline_unpack_target": """(a,
 b) = (1, 2, 3)
""",
    "multiline_setitem": """import torch
w = torch.zeros(2, requires_grad=True)
w[
  0] = (
  1.0)
""",
    "multiline_augassign": """import torch
w = torch.zeros(2, requires_grad=True)
w -= (
  1.0)
""",
    "multiline_augassign_sub": """import torch
w = torch.zeros(2, requires_grad=True)
w[0] += (
  1.0)
""",
    "multiline_setattr": """import torch
x = torch.ones(2, requires_grad=True)
y = x * 2
y.requires_grad = (
   False)
""",
    "multiline_for_unpack": """for a, b in [(1, 2),
   (1, 2, 3)]:
    pass
""",
    "multiline_return_tuple": """def f():
    return (1,
            2, 3)
a, b = f()
""",
}
