"""Programs for the program runner's tests: each is run by CPython (the oracle) and by
hograd_core.program, and the two must agree (tests/core/test_program_cpython.py)."""

from __future__ import annotations

from tests.program_corpus_learner import LEARNER

#: The seed's x^3 program, verbatim (as in the documents this project started from).
SEED_X3 = """import torch
x = torch.tensor([2.0], requires_grad=True)
y = x**3
grad_y_x = torch.autograd.grad(outputs=y, inputs=x, create_graph=True)[0]
print(f"dy/dx at x={x.item()}: {grad_y_x.item()}")
grad2_y_x2 = torch.autograd.grad(outputs=grad_y_x, inputs=x)[0]
print(grad2_y_x2.requires_grad)
"""

#: The seed's Hessian-vector product, verbatim.
SEED_HVP = """import torch
w = torch.tensor([1.0, torch.pi / 2.0], requires_grad=True)
f = w[0]**2 * torch.sin(w[1])
grad_f = torch.autograd.grad(f, w, create_graph=True)[0]
v = torch.tensor([0.5, 1.0])
Hv = torch.autograd.grad(torch.dot(grad_f, v), w)[0]
print(grad_f)
print(Hv)
"""

#: The seed's debugging checks.
SEED_DEBUG = """import torch
param = torch.tensor([1.0, 2.0], requires_grad=True)
other = torch.tensor(3.0, requires_grad=True)
loss = (param * 2).sum()
loss.backward()
print(param.grad is None, other.grad is None)
print(torch.isnan(param.grad))
print(torch.any(torch.isnan(param.grad)))
bad = torch.log(torch.tensor([-1.0, 1.0]))
print(torch.any(torch.isnan(bad)), torch.all(torch.isnan(bad)))
"""

_P = {
    "seed_x3": SEED_X3,
    "seed_x3_no_create_graph": SEED_X3.replace("create_graph=True", "create_graph=False"),
    "seed_hvp": SEED_HVP,
    "seed_debug": SEED_DEBUG,
    "positional_grad": """import torch
x = torch.tensor(1.5, requires_grad=True)
y = torch.exp(x) * x
g = torch.autograd.grad(y, x, None, True, True)[0]
print(g)
h = torch.autograd.grad(g, x)[0]
print(h, h.requires_grad)
""",
    "retain_graph": """import torch
x = torch.tensor(0.3, requires_grad=True)
y = torch.tanh(x)
a = torch.autograd.grad(y, x, retain_graph=True)[0]
b = torch.autograd.grad(y, x)[0]
print(a == b, a.item())
""",
    "retain_graph_missing": """import torch
x = torch.tensor(0.3, requires_grad=True)
y = torch.tanh(x)
a = torch.autograd.grad(y, x)[0]
b = torch.autograd.grad(y, x)[0]
""",
    "grad_outputs": """import torch
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x**2
g = torch.autograd.grad(outputs=y, inputs=x, grad_outputs=torch.ones_like(y))[0]
print(g)
""",
    "grad_non_scalar": """import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
g = torch.autograd.grad(y, x)
""",
    "allow_unused": """import torch
a = torch.tensor(1.0, requires_grad=True)
b = torch.tensor(2.0, requires_grad=True)
ga, gb = torch.autograd.grad(a * 4, [a, b], allow_unused=True)
print(ga, gb)
ga, gb = torch.autograd.grad(a * 4, (a, b), allow_unused=True, materialize_grads=True)
print(ga, gb)
""",
    "unused_error": """import torch
a = torch.tensor(1.0, requires_grad=True)
b = torch.tensor(2.0, requires_grad=True)
torch.autograd.grad(a * 4, [a, b])
""",
    "backward_twice": """import torch
x = torch.tensor(2.0, requires_grad=True)
y = x ** 2
y.backward(retain_graph=True)
y.backward()
print(x.grad)
x.grad = None
print(x.grad)
""",
    "backward_create_graph": """import torch
x = torch.tensor(2.0, requires_grad=True)
y = x ** 4
y.backward(create_graph=True)
g = x.grad
print(g, g.requires_grad)
x.grad = None
g.backward()
print(x.grad)
""",
    "third_derivative_loop": """import torch
x = torch.tensor(0.7, requires_grad=True)
y = torch.sin(x) * torch.exp(x)
d = y
for k in range(4):
    d = torch.autograd.grad(d, x, create_graph=True)[0]
    print(k + 1, f"{d.item():.6f}")
""",
    "arith_python": """a = 7
b = 2
print(a + b, a - b, a * b, a / b, a // b, a % b, a ** b, -a, +a)
print(a > b, a == 7, a != b, 1 < a < 10, a is None, not a)
print(2 ** 100, 2.0 ** 0.5, 10 // 3, -7 % 3)
print(a << 3, a >> 1, a & 3, a | 8, a ^ 1, ~a)
""",
    "strings": """name = "x"
s = "d" + name
print(s * 3, len(s), s.upper(), " padded ".strip())
print(f"{3.14159:.2f} {42:>6} {7:04d} {'left':<8}| {1e-5:e} {255:x} {1234567:,}")
print(f"{name!r} {name!s} {3.0!r}")
print("%.3f and %d" % (2.5, 7))
""",
    "lists_tuples": """xs = [1, 2, 3]
xs.append(4)
t = (xs[0], xs[-1], xs[1:3], xs[::-1])
print(t, len(xs), sum(xs), min(xs), max(xs))
a, b = 1, 2
a, b = b, a
print(a, b, list(range(2, 10, 3)), tuple(reversed(xs)), sorted([3, 1, 2]))
print([x * x for x in xs if x % 2 == 0], {k: k + 1 for k in range(3)})
for i, v in enumerate(["p", "q"]):
    print(i, v)
for u, w in zip([1, 2], [3, 4]):
    print(u * w)
""",
    "dicts": """d = {"a": 1, "b": 2}
d["c"] = 3
print(d, d["a"], list(d.keys()), list(d.values()), d.get("z"), d.get("z", 0))
for k, v in d.items():
    print(k, v)
""",
    "if_else": """import torch
x = torch.tensor(-1.5)
if x > 0:
    print("positive")
elif x == 0:
    print("zero")
else:
    print("negative", abs(x.item()))
y = 1 if x < 0 else 2
print(y, x.item() < 0 and "yes" or "no")
""",
    "def_function": """import torch
def f(x, p=2):
    return x ** p + 1
x = torch.tensor(3.0, requires_grad=True)
y = f(x)
z = f(x, p=3)
print(y, z)
g = torch.autograd.grad(y + z, x)[0]
print(g)
""",
    "lambda": """import torch
sq = lambda t: t * t
x = torch.tensor([1.0, -2.0], requires_grad=True)
y = sq(x).sum()
y.backward()
print(y.item(), x.grad)
""",
    "nested_function": """def outer(a):
    def inner(b):
        return a * b
    return inner(10) + 1
print(outer(4))
""",
    "recursion_small": """def fact(n):
    if n <= 1:
        return 1
    return n * fact(n - 1)
print(fact(10))
""",
    "creation": """import torch
print(torch.ones(2, 3))
print(torch.zeros((2,), dtype=torch.float64))
print(torch.linspace(0, 1, 5))
print(torch.arange(5), torch.arange(1.0, 2.0, 0.25))
print(torch.eye(3))
print(torch.full((2, 2), 7.0))
print(torch.tensor([[1, 2], [3, 4]]).dtype, torch.tensor(1.0).shape)
""",
    "random_seeded": """import torch
torch.manual_seed(42)
a = torch.rand(3)
b = torch.randn(2, 2)
print(a)
print(b)
torch.manual_seed(42)
print(torch.equal(a, torch.rand(3)))
""",
    "elementwise": """import torch
x = torch.tensor([0.5, 1.0, 2.0])
print(torch.sin(x), torch.exp(x), torch.log(x))
print(torch.tanh(x), torch.sigmoid(x), torch.relu(x - 1))
print(torch.pow(x, 2), torch.sqrt(x), torch.abs(-x))
print(x.sin(), x.exp().log(), x.pow(3), x.sqrt().abs())
""",
    "reductions": """import torch
x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
print(x.sum(), x.mean(), x.sum(dim=0), x.mean(dim=1, keepdim=True))
print(torch.norm(x), x.norm(), torch.max(x), x.min(), torch.prod(x))
m = torch.max(x, dim=1)
print(m.values, m.indices)
print(torch.dot(x[0], x[1]), torch.matmul(x, x), x @ x, x.t())
""",
    "indexing": """import torch
x = torch.arange(12.0).reshape(3, 4)
print(x[0], x[:, 1], x[1:, ::2], x[-1, -1], x[..., 0])
x[0, 0] = 100.0
print(x[0])
print(x.shape, x.shape[0], x.dim(), x.numel(), x.size(1))
print(x.view(2, 6).shape, x.flatten().shape, x.unsqueeze(0).shape)
""",
    "broadcasting": """import torch
a = torch.tensor([[1.0], [2.0]])
b = torch.tensor([10.0, 20.0, 30.0])
print(a + b)
print((a * b).shape)
""",
    "shape_error": """import torch
a = torch.ones(2, 3)
b = torch.ones(4)
c = a + b
""",
    "matmul_error": """import torch
a = torch.ones(2, 3)
b = torch.ones(2, 3)
c = a @ b
""",
    "no_grad": """import torch
w = torch.tensor([1.0, 2.0], requires_grad=True)
with torch.no_grad():
    y = w * 2
    print(y.requires_grad)
with torch.enable_grad():
    z = w * 2
print(z.requires_grad, y.grad_fn, z.grad_fn.name())
""",
    "sgd_steps": """import torch
w = torch.tensor([3.0, -1.0], requires_grad=True)
for step in range(5):
    loss = (w ** 2).sum()
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
    w.grad.zero_()
    print(step, round(loss.item(), 6))
print(w)
""",
    "leaf_inplace_error": """import torch
w = torch.tensor([3.0, -1.0], requires_grad=True)
w -= 0.1
""",
    "detach_clone": """import torch
x = torch.tensor(2.0, requires_grad=True)
y = x * 3
d = y.detach()
c = y.clone()
print(d.requires_grad, c.requires_grad, c.grad_fn.name(), d.grad_fn)
e = x.detach().requires_grad_()
print(e.is_leaf, e.requires_grad)
""",
    "grad_fn_walk": """import torch
x = torch.tensor(2.0, requires_grad=True)
y = torch.sin(x * x)
fn = y.grad_fn
print(fn.name())
nxt = fn.next_functions[0][0]
print(nxt.name(), len(nxt.next_functions))
print(nxt.next_functions[0][0].name(), nxt.next_functions[0][1])
""",
    "grad_fn_names": """import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
a = x * 2
b = a.sum()
c = torch.exp(b)
d = c / 3
print(a.grad_fn.name(), b.grad_fn.name(), c.grad_fn.name(), d.grad_fn.name())
""",
    "is_leaf": """import torch
x = torch.tensor(1.0, requires_grad=True)
y = x + 1
print(x.is_leaf, y.is_leaf, x.requires_grad, y.requires_grad)
y.retain_grad()
(y * y).backward()
print(y.grad, x.grad)
""",
    "functional_hessian": """import torch
from torch.autograd.functional import hessian, hvp, jacobian
def f(w):
    return w[0] ** 2 * torch.sin(w[1])
w = torch.tensor([1.0, 0.5])
print(hessian(f, w))
out, hv = hvp(f, w, torch.tensor([0.5, 1.0]))
print(out, hv)
print(jacobian(lambda t: t ** 2, torch.tensor([1.0, 3.0])))
""",
    "func_transforms": """import torch
from torch.func import grad, hessian, jacrev, jacfwd, jvp, vjp
def f(x):
    return (x ** 3).sum()
x = torch.tensor([1.0, 2.0])
print(grad(f)(x))
print(hessian(f)(x))
print(jacrev(torch.sin)(x))
print(jacfwd(torch.sin)(x))
out, tangent = jvp(f, (x,), (torch.ones(2),))
print(out, tangent)
out, fn = vjp(torch.sin, x)
print(fn(torch.ones(2)))
""",
    "func_nested": """import torch
import torch.func
f = lambda x: torch.sin(x) * x
d1 = torch.func.grad(f)
d2 = torch.func.grad(d1)
d3 = torch.func.grad(d2)
x = torch.tensor(0.4)
print(d1(x), d2(x), d3(x))
""",
    "nn_linear": """import torch
import torch.nn as nn
torch.manual_seed(0)
layer = nn.Linear(2, 3)
x = torch.tensor([[1.0, -1.0]])
y = layer(x)
print(y.shape, y.grad_fn.name())
print(layer.weight.shape, layer.bias.requires_grad)
loss = y.pow(2).sum()
loss.backward()
print(layer.weight.grad.shape, layer.bias.grad)
""",
    "nn_sequential": """import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(1)
net = nn.Sequential(nn.Linear(1, 4), nn.Tanh(), nn.Linear(4, 1))
x = torch.linspace(-1, 1, 6).reshape(-1, 1)
target = x ** 2
loss = F.mse_loss(net(x), target)
print(f"{loss.item():.6f}")
params = list(net.parameters())
print(len(params), [tuple(p.shape) for p in params])
grads = torch.autograd.grad(loss, params)
print(round(sum(g.abs().sum().item() for g in grads), 4))
""",
    "nn_functional": """import torch
import torch.nn.functional as F
x = torch.tensor([-1.0, 0.0, 2.0])
print(F.relu(x), F.softplus(x), F.tanh(x), F.sigmoid(x))
print(F.mse_loss(x, torch.zeros(3)), F.l1_loss(x, torch.zeros(3), reduction="sum"))
""",
    "maml_style": """import torch
import torch.nn as nn
from torch.func import functional_call
torch.manual_seed(3)
net = nn.Linear(1, 1)
params = dict(net.named_parameters())
x = torch.tensor([[1.0], [2.0]])
y = 3 * x
loss = ((functional_call(net, params, (x,)) - y) ** 2).mean()
grads = torch.autograd.grad(loss, list(params.values()), create_graph=True)
fast = {n: p - 0.1 * g for (n, p), g in zip(params.items(), grads)}
meta = ((functional_call(net, fast, (x,)) - y) ** 2).mean()
meta.backward()
print(f"{loss.item():.5f} {meta.item():.5f}")
print(net.weight.grad, net.bias.grad)
""",
    "pinn_style": """import torch
torch.manual_seed(0)
w = torch.randn(4, requires_grad=True)
x = torch.linspace(0, 1, 4, requires_grad=True)
u = w[0] + w[1] * x + w[2] * x ** 2 + w[3] * torch.sin(x)
du = torch.autograd.grad(u, x, torch.ones_like(u), create_graph=True)[0]
d2u = torch.autograd.grad(du, x, torch.ones_like(du), create_graph=True)[0]
res = (d2u + u).pow(2).mean()
res.backward()
print(res.item(), w.grad)
""",
    "name_error": """x = 1
print(y)
""",
    "zero_division": """a = 1
b = a / 0
""",
    "index_error": """xs = [1, 2]
print(xs[5])
""",
    "key_error": """d = {"a": 1}
print(d["b"])
""",
    "type_error": """a = "s" + 1
""",
    "assert_fails": """import torch
x = torch.tensor([1.0, float("nan")])
print(torch.isnan(x).any().item())
assert not torch.isnan(x).any(), "found a NaN"
""",
    "error_in_function": """import torch
def f(x):
    y = x * 2
    return y.backward()
x = torch.tensor([1.0, 2.0], requires_grad=True)
f(x)
""",
    "item_error": """import torch
x = torch.ones(3)
print(x.item())
""",
    "break_continue": """total = 0
for i in range(10):
    if i == 2:
        continue
    if i == 6:
        break
    total += i
print(total)
""",
    "for_else": """for i in range(3):
    pass
else:
    print("done", i)
""",
    "bool_tensor": """import torch
x = torch.tensor([1.0, 2.0])
if (x > 0).all():
    print("all positive")
print(bool(x.sum() > 2), float(x[0]), int(x[1]))
""",
    "ambiguous_bool": """import torch
x = torch.tensor([1.0, 2.0])
if x > 0:
    print("no")
""",
    "dtype_float64": """import torch
x = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
y = x.exp()
print(y.dtype, y)
print(torch.autograd.grad(y, x)[0].dtype)
z = torch.ones(2).double()
print(z.dtype, z.float().dtype)
""",
    "math_module": """import math
print(math.pi, math.sqrt(2.0), math.exp(1), math.log(10), math.sin(0.5))
print(math.isnan(float("nan")), math.isclose(0.1 + 0.2, 0.3), math.floor(2.7), math.tanh(1))
""",
    "float_special": """import torch
x = torch.tensor([1.0, 0.0, -1.0])
print(x / 0)
print(torch.isinf(x / 0), torch.isfinite(x / 0))
print(float("inf") - float("inf"))
""",
    "clamp_where": """import torch
x = torch.tensor([-2.0, 0.5, 3.0], requires_grad=True)
y = torch.where(x > 0, x ** 2, torch.zeros_like(x))
z = torch.clamp(x, -1, 1)
(y.sum() + z.sum()).backward()
print(y, z, x.grad)
""",
    "stack_cat": """import torch
a = torch.tensor([1.0, 2.0])
b = torch.tensor([3.0, 4.0])
print(torch.stack([a, b]), torch.cat([a, b]), torch.stack((a, b), dim=1).shape)
""",
    "hessian_by_hand": """import torch
w = torch.tensor([0.5, -0.25], requires_grad=True)
f = (w[0] ** 3) * w[1] + torch.exp(w[1])
g = torch.autograd.grad(f, w, create_graph=True)[0]
rows = []
for i in range(2):
    rows.append(torch.autograd.grad(g[i], w, retain_graph=True)[0])
H = torch.stack(rows)
print(H)
print(torch.allclose(H, H.t()))
""",
    "vector_jacobian": """import torch
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = torch.stack([x[0] * x[1], x[1] * x[2]])
v = torch.tensor([1.0, -1.0])
(g,) = torch.autograd.grad(y, x, grad_outputs=v)
print(g)
""",
    "autograd_backward_fn": """import torch
x = torch.tensor(3.0, requires_grad=True)
y = x ** 2
torch.autograd.backward(y, inputs=[x])
print(x.grad)
""",
    "in_not_in": """xs = [1, 2, 3]
print(2 in xs, 5 not in xs, "a" in "cat")
""",
    "tensor_tolist": """import torch
x = torch.tensor([[1.5, 2.5], [3.5, 4.5]])
print(x.tolist(), x[0].tolist(), x.sum().item())
for row in x:
    print(row)
""",
    "del_name": """a = 5
del a
print(a)
""",
    "print_sep_end": """print(1, 2, 3, sep="-", end="!\\n")
print("no newline", end="")
print()
""",
    "grad_accumulate_nonleaf_warning": """import torch
x = torch.tensor(2.0, requires_grad=True)
y = x * 3
z = y * y
z.backward()
print(x.grad, y.grad)
""",
    "int_float_mix": """import torch
x = torch.tensor([1, 2, 3])
print(x.dtype, (x * 1.5).dtype, (x / 2).dtype, x.float().mean())
""",
    "norm_grad": """import torch
v = torch.tensor([3.0, 4.0], requires_grad=True)
n = torch.norm(v)
n.backward()
print(n, v.grad)
""",
    "chain_compare_tensor": """import torch
x = torch.tensor(0.5)
print(0 < x < 1, bool(0 < x.item() < 1))
""",
    "optim_sgd": """import torch
import torch.nn as nn
torch.manual_seed(2)
net = nn.Linear(2, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
x = torch.tensor([[1.0, 2.0], [3.0, -1.0]])
y = torch.tensor([[1.0], [0.0]])
for step in range(3):
    opt.zero_grad()
    loss = ((net(x) - y) ** 2).mean()
    loss.backward()
    opt.step()
    print(step, f"{loss.item():.6f}")
""",
    "linalg": """import torch
A = torch.tensor([[2.0, 1.0], [1.0, 3.0]], requires_grad=True)
print(torch.linalg.det(A), torch.linalg.eigvalsh(A))
d = torch.linalg.det(A)
(g,) = torch.autograd.grad(d, A)
print(g, torch.linalg.norm(torch.tensor([3.0, 4.0])))
""",
    "set_grad_enabled": """import torch
x = torch.tensor(1.0, requires_grad=True)
with torch.set_grad_enabled(False):
    y = x * 2
with torch.inference_mode():
    z = x * 3
print(y.requires_grad, z.requires_grad, torch.is_tensor(z))
""",
}

assert not set(_P) & set(LEARNER)
#: name -> program text (the presets of the page are added by the test).
PROGRAMS = {**_P, **LEARNER}

#: Programs that must be refused before they run or stopped by a budget; each with the
#: key of the refusal (the whole program is refused when the line is 0 in the record).
HOSTILE = {
    "class_attr": ("x = 1\nprint(x.__class__)", "code.refuse.attribute"),
    "subclasses": ("print(().__class__.__bases__[0].__subclasses__())", "code.refuse.attribute"),
    "globals_attr": ("def f():\n    pass\nprint(f.__globals__)", "code.refuse.attribute"),
    "builtins_name": ("print(__builtins__)", "code.refuse.name"),
    "import_dunder": ("__import__('os').system('true')", "code.refuse.name"),
    "import_os": ("import os\nos.system('true')", "code.refuse.import"),
    "from_os": ("from os import system", "code.refuse.import"),
    "import_sys_frame": ("import sys\nsys._getframe()", "code.refuse.import"),
    "gi_frame": ("g = (i for i in [1])\nprint(g.gi_frame)", "code.refuse.attribute"),
    "f_globals": ("import torch\nx = torch.ones(1)\nx.grad_fn.f_globals", "code.refuse.attribute"),
    "format_class": ('x = 1\nprint("{0.__class__}".format(x))', "code.refuse.field"),
    "format_method": ('x = 1\ns = "{0.__class__}"\nprint(s.format(x))', "code.refuse.field"),
    "format_item": ('d = {"k": 1}\nprint("{0[k]}".format(d))', "code.refuse.field"),
    "str_format_width": ('print("{:{}}".format(1, 10**9))', "code.budget.width"),
    "fstring_class": ('x = 1\nprint(f"{x.__class__}")', "code.refuse.attribute"),
    # torch.__version__ is the one dunder a program may read
    "nn_version": ("import torch\nprint(torch.nn.__version__)", "code.refuse.attribute"),
    "tensor_version": ("import torch\nx = torch.ones(1)\nx.__version__", "code.refuse.attribute"),
    "torch_dict": ("import torch\nprint(torch.__dict__)", "code.refuse.attribute"),
    "getattr_load": ("import torch\ngetattr(torch, 'lo' + 'ad')('x.pt')", "code.refuse.name"),
    "torch_load": ("import torch\ntorch.load('x.pt')", "code.refuse.attribute"),
    "torch_save": ("import torch\ntorch.save(torch.ones(1), 'x.pt')", "code.refuse.attribute"),
    "torch_hub": ("import torch\ntorch.hub.load('a', 'b')", "code.refuse.attribute"),
    "torch_ops": ("import torch\ntorch.ops.aten.add", "code.refuse.attribute"),
    "torch_jit": ("import torch\ntorch.jit.script", "code.refuse.attribute"),
    "cpp_extension": ("import torch.utils.cpp_extension", "code.refuse.import"),
    "torch_classes": ("import torch\ntorch.classes", "code.refuse.attribute"),
    "pickle": ("import pickle\npickle.loads(b'')", "code.refuse.import"),
    "open_file": ("open('/etc/passwd').read()", "code.refuse.name"),
    "eval_call": ("eval('1+1')", "code.refuse.name"),
    "exec_call": ("exec('x=1')", "code.refuse.name"),
    "compile_call": ("compile('1', 'f', 'eval')", "code.refuse.name"),
    "type_escape": ("type(1)", "code.refuse.name"),
    "vars_call": ("import torch\nvars(torch)", "code.refuse.name"),
    "lambda_globals": ("f = lambda: 1\nf.__globals__", "code.refuse.attribute"),
    "class_def": ("class A:\n    pass", "code.refuse.syntax"),
    "while_loop": ("while True:\n    pass", "code.refuse.while"),
    "try_except": ("try:\n    pass\nexcept Exception:\n    pass", "code.refuse.try"),
    "walrus": ("print((y := 3))", "code.refuse.syntax"),
    "kwargs_splat": ("import torch\nkw = {}\ntorch.ones(1, **kw)", "code.refuse.syntax"),
    "device_kw": ("import torch\ntorch.ones(1, device='cuda')", "code.refuse.keyword"),
    # a keyword refused when the call is made: its callee is torch's, not the program's
    "imported_device_kw": (
        "from torch import ones\ndef f(device=0):\n    return device\nones(1, device='cpu')",
        "code.refuse.keyword",
    ),
    "method_out_kw": ("import torch\nx = torch.ones(2)\nx.sum(out=x)", "code.refuse.keyword"),
    "func_returned_kw": (
        "import torch\ng = torch.func.grad(torch.sum)\ng(torch.ones(2), out=1)",
        "code.refuse.keyword",
    ),
    "from_star": ("from torch import *\nprint(sin)", "code.refuse.syntax"),
    "decorator": ("import torch\n@torch.no_grad()\ndef f(x):\n    return x", "code.refuse.syntax"),
    "del_item": ("xs = [1, 2]\ndel xs[0]", "code.refuse.syntax"),
    "hint_on_attribute": ("import torch\nx = torch.ones(1)\nx.grad: int = 1", "code.refuse.syntax"),
    "star_args": ("def f(*args):\n    return args", "code.refuse.syntax"),
    "star_kwargs": ("def f(x, **options):\n    return x", "code.refuse.syntax"),
    "builtin_isinstance": ("x = 1\nprint(isinstance(x, int))", "code.refuse.name"),
    "builtin_setattr_like": ("x = 1\nprint(id(x))", "code.refuse.name"),
    "pow_bomb": ("y = pow(3, 10**10)", "code.budget.int"),
    "str_replace": ("s = 'ab'\nprint(s.replace('a', 'b'))", "code.refuse.attribute"),
    "set_layer_attr": (
        "import torch\nl = torch.nn.Linear(1, 1)\nl.training = False",
        "code.refuse.set",
    ),
    "print_file": ("print('x', file=None)", "code.refuse.keyword"),
    "private_attr": ("import torch\nx = torch.ones(1)\nx._version", "code.refuse.attribute"),
    "storage": ("import torch\nx = torch.ones(1)\nx.untyped_storage()", "code.refuse.attribute"),
    "numpy_escape": ("import torch\nx = torch.ones(1)\nx.numpy()", "code.refuse.attribute"),
    "set_default_dtype": (
        "import torch\ntorch.set_default_dtype(torch.float64)",
        "code.refuse.attribute",
    ),
    "anomaly_global": (
        "import torch\ntorch.autograd.set_detect_anomaly(True)",
        "code.refuse.attribute",
    ),
    "huge_ones": ("import torch\nx = torch.ones(10**10)", "code.budget.elements"),
    "huge_square": ("import torch\nx = torch.ones(10**5, 10**5)", "code.budget.elements"),
    "huge_zeros_tuple": ("import torch\nx = torch.zeros((100000, 100000))", "code.budget.elements"),
    "huge_arange": ("import torch\nx = torch.arange(0, 1e12)", "code.budget.elements"),
    "huge_linspace": ("import torch\nx = torch.linspace(0, 1, 10**9)", "code.budget.elements"),
    "huge_eye": ("import torch\nx = torch.eye(10**6)", "code.budget.elements"),
    "huge_broadcast": (
        "import torch\na = torch.ones(100000, 1)\nb = torch.ones(1, 100000)\nc = a + b",
        "code.budget.elements",
    ),
    "huge_outer": (
        "import torch\na = torch.ones(100000)\nc = torch.outer(a, a)",
        "code.budget.elements",
    ),
    "hook_loop": (
        "import torch\nx = torch.ones(2, requires_grad=True)\n"
        "x.register_hook(lambda g: [0 for i in range(10**8)])\nx.sum().backward()",
        "code.budget.loop",
    ),
    "huge_einsum": (
        "import torch\na = torch.ones(100000)\nc = torch.einsum('i,j->ij', a, a)",
        "code.budget.elements",
    ),
    "huge_einsum_spaced": (
        "import torch\na = torch.ones(100000)\nc = torch.einsum('i,j->ij' + ' ' * 300, a, a)",
        "code.budget.elements",
    ),
    "huge_matmul": (
        "import torch\na = torch.ones(100000, 1)\nb = torch.ones(1, 100000)\nc = a @ b",
        "code.budget.elements",
    ),
    "huge_expand": (
        "import torch\na = torch.ones(1)\nb = a.expand(10**6, 10**6)",
        "code.budget.elements",
    ),
    "huge_linear": (
        "import torch\nimport torch.nn as nn\nl = nn.Linear(10**5, 10**5)",
        "code.budget.elements",
    ),
    "long_loop": ("for i in range(10**9):\n    pass", "code.budget.loop"),
    "nested_loops": (
        "t = 0\nfor i in range(10000):\n    for j in range(10000):\n        t += 1",
        "code.budget.steps",
    ),
    "deep_recursion": ("def f(n):\n    return f(n + 1)\nf(0)", "code.budget.depth"),
    "int_power": ("x = 3\ny = x**(10**10)", "code.budget.int"),
    "tower": ("y = 2**10**10", "code.budget.int"),
    "int_mult": ("a = 2**60000\nb = a * a", "code.budget.int"),
    "shift": ("a = 1 << 10**9", "code.budget.int"),
    "string_bomb": ("s = 'a' * 10**10", "code.budget.sequence"),
    "list_bomb": ("s = [0] * 10**9", "code.budget.sequence"),
    "comprehension_bomb": ("s = [i for i in range(10**8)]", "code.budget.loop"),
    "nested_comprehension": (
        "s = [[0] * 10000 for i in range(10000)]",
        "code.budget.items",
    ),
    "string_doubling": ("s = 'ab'\nfor i in range(60):\n    s = s + s", "code.budget.sequence"),
    "format_width": ("x = 1\nprint(f'{x:>1000000000}')", "code.budget.width"),
    "percent_width": ("print('%1000000000d' % 1)", "code.budget.width"),
    "print_flood": ("for i in range(10000):\n    print('x' * 1000)", "code.budget.output"),
    "long_program": ("x = 1\n" * 5000, "code.budget.chars"),
    "deep_nesting": ("x = " + "[" * 90 + "]" * 90, "code.budget.nesting"),
    "grad_tower": (
        "import torch\nx = torch.tensor(0.5, requires_grad=True)\ny = torch.tanh(x)\n"
        "for i in range(40):\n    y = torch.autograd.grad(y, x, create_graph=True)[0]",
        "code.budget.graph",
    ),
}

HOSTILE["func_hessian_size"] = (
    "import torch\nh = torch.func.hessian(lambda t: t.sum())(torch.ones(2000))",
    "code.budget.elements",
)
HOSTILE["functorch_inner_budget"] = (
    "import torch\ng = torch.func.grad(lambda x: torch.ones(10**10).sum() * x)\ng(torch.tensor(1.0))",
    "code.budget.elements",
)
HOSTILE["lambda_recursion"] = ("f = lambda n: f(n + 1)\nf(0)", "code.budget.depth")
HOSTILE["graph_memory"] = (
    "import torch\nx = torch.ones(10**6, requires_grad=True)\nfor i in range(10000):\n    x = x * 1.0001",
    "code.budget.made",
)
HOSTILE["nested_spec"] = ("x = 1\nprint(f\"{x:{'>'}{'9' * 7}}\")", "code.budget.width")
