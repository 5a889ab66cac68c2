"""The classic traps of the flag lab, one function per variant: what the page shows IS this code.

The page shows a variant's code as the body of its function here (``inspect.getsource``,
the ``def`` line left out), and :func:`hograd_core.flaglab.cases.run_steps` runs that same
text, step by step (the blocks between blank lines; the first, with its imports, sets up),
recording what each ``print`` printed. Calling a function here runs the same script in one go.
Keep each line translatable to C++ (:mod:`hograd_core.flaglab.cpp`): the C++ twin is made from
this text line by line.
"""

# ruff: noqa: SIM108 - an if/else block reads better to a learner than a conditional expression


# ---- second derivative without create_graph: dy is on no graph -------------------------------


def no_create_graph_off():
    import torch

    x = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    y = x**3

    dy = torch.autograd.grad(y, x)[0]
    print(dy)

    d2y = torch.autograd.grad(dy, x)[0]
    print(d2y)


def no_create_graph_on():
    import torch

    x = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    y = x**3

    dy = torch.autograd.grad(y, x, create_graph=True)[0]
    print(dy)

    d2y = torch.autograd.grad(dy, x)[0]
    print(d2y)


# ---- the graph's saved tensors are freed by the first call unless retained -------------------


def freed_graph_default():
    import torch

    x = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    y = x**3

    dy = torch.autograd.grad(y, x)[0]
    print(dy)

    dy_again = torch.autograd.grad(y, x)[0]
    print(dy_again)


def freed_graph_retain():
    import torch

    x = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    y = x**3

    dy = torch.autograd.grad(y, x, retain_graph=True)[0]
    print(dy)

    dy_again = torch.autograd.grad(y, x)[0]
    print(dy_again)


# ---- retain_graph=None means "the same as create_graph" ----------------------------------------


def retain_default_create_graph():
    import torch

    x = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    y = x**3

    dy = torch.autograd.grad(y, x, create_graph=True)[0]
    print(dy)

    dy_again = torch.autograd.grad(y, x)[0]
    print(dy_again)


def retain_default_no_retain():
    import torch

    x = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    y = x**3

    dy = torch.autograd.grad(y, x, create_graph=True, retain_graph=False)[0]
    print(dy)

    dy_again = torch.autograd.grad(y, x)[0]
    print(dy_again)


def retain_default_no_retain_next():
    import torch

    x = torch.tensor(0.7, dtype=torch.float64, requires_grad=True)
    y = torch.tanh(x)

    dy = torch.autograd.grad(y, x, create_graph=True, retain_graph=False)[0]
    print(dy)

    d2y = torch.autograd.grad(dy, x)[0]
    print(d2y)


# ---- an input the output does not use: an error, None, or an exact zero ----------------------


def unused_input_plain():
    import torch

    x = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    z = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
    y = x**3

    dy, dz = torch.autograd.grad(y, (x, z))
    print(dy, dz)


def unused_input_allow_unused():
    import torch

    x = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    z = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
    y = x**3

    dy, dz = torch.autograd.grad(y, (x, z), allow_unused=True)
    print(dy, dz)

    print(dz * 2)


def unused_input_materialize():
    import torch

    x = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    z = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
    y = x**3

    dy, dz = torch.autograd.grad(y, (x, z), materialize_grads=True)
    print(dy, dz)

    print(dz * 2)


# ---- dy has no grad_fn when its backward used no tensor that requires grad (2*x) -------------
# The zero "fix" is right only with create_graph=True ("forgot": 0, not 12).


def constant_trap_linear():
    import torch

    x = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    y = 2 * x

    dy = torch.autograd.grad(y, x, create_graph=True)[0]
    print(dy, dy.requires_grad)

    d2y = torch.autograd.grad(dy, x)[0]
    print(d2y)


def constant_trap_relu():
    import torch

    x = torch.tensor(1.5, dtype=torch.float64, requires_grad=True)
    y = torch.relu(x)

    dy = torch.autograd.grad(y, x, create_graph=True)[0]
    print(dy, dy.requires_grad)

    d2y = torch.autograd.grad(dy, x)[0]
    print(d2y)


def constant_trap_clamp():
    import torch

    x = torch.tensor(1.5, dtype=torch.float64, requires_grad=True)
    y = torch.clamp(x, min=0.0)

    dy = torch.autograd.grad(y, x, create_graph=True)[0]
    print(dy, dy.requires_grad)

    d2y = torch.autograd.grad(dy, x)[0]
    print(d2y)


def constant_trap_fixed():
    import torch

    x = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    y = 2 * x

    dy = torch.autograd.grad(y, x, create_graph=True)[0]
    print(dy, dy.requires_grad)

    if dy.requires_grad:
        d2y = torch.autograd.grad(dy, x)[0]
    else:
        d2y = torch.zeros_like(x)
    print(d2y)


def constant_trap_forgot():
    import torch

    x = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    y = x**3

    dy = torch.autograd.grad(y, x)[0]
    print(dy, dy.requires_grad)

    if dy.requires_grad:
        d2y = torch.autograd.grad(dy, x)[0]
    else:
        d2y = torch.zeros_like(x)
    print(d2y)


# ---- .backward(create_graph=True): results land in x.grad, add up, make a reference cycle ----


def backward_accumulates_twice():
    import torch

    x = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    y = x**3

    y.backward(create_graph=True)
    print(x.grad)

    y.backward(create_graph=True)
    print(x.grad)


def backward_accumulates_reset():
    import torch

    x = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    y = x**3

    y.backward(create_graph=True)
    print(x.grad)

    x.grad = None
    y.backward(create_graph=True)
    print(x.grad)


def backward_accumulates_grad():
    import torch

    x = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    y = x**3

    dy = torch.autograd.grad(y, x, create_graph=True)[0]
    print(dy, x.grad)

    dy = torch.autograd.grad(y, x, create_graph=True)[0]
    print(dy, x.grad)


# ---- changing a tensor in place after a function saved it for backward -----------------------


def inplace_inplace():
    import torch

    x = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
    a = torch.sin(x)
    y = a**2

    dy = torch.autograd.grad(y, x, create_graph=True)[0]
    print(dy)

    a.mul_(2)
    d2y = torch.autograd.grad(dy, x)[0]
    print(d2y)


def inplace_out_of_place():
    import torch

    x = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
    a = torch.sin(x)
    y = a**2

    dy = torch.autograd.grad(y, x, create_graph=True)[0]
    print(dy)

    a = a * 2
    d2y = torch.autograd.grad(dy, x)[0]
    print(d2y)


# ---- NaN gradients: silent without anomaly detection, located with it ------------------------


def nan_anomaly_sqrt():
    import torch

    x = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)

    y = torch.sqrt(x**2)
    dy = torch.autograd.grad(y, x)[0]
    print(y, dy)

    with torch.autograd.detect_anomaly():
        y = torch.sqrt(x**2)
        dy = torch.autograd.grad(y, x)[0]
    print(dy)


def nan_anomaly_log():
    import torch

    x = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)

    y = torch.where(x > 0, torch.log(x), 0.0)
    dy = torch.autograd.grad(y, x)[0]
    print(y, dy)

    with torch.autograd.detect_anomaly():
        y = torch.where(x > 0, torch.log(x), 0.0)
        dy = torch.autograd.grad(y, x)[0]
    print(dy)


def nan_anomaly_log_fixed():
    import torch

    x = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)

    with torch.autograd.detect_anomaly():
        safe = torch.where(x > 0, x, 1.0)
        y = torch.where(x > 0, torch.log(safe), 0.0)
        dy = torch.autograd.grad(y, x)[0]
    print(y, dy)
