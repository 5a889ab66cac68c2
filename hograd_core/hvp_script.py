"""∇f and H v by PyTorch, the script the HVP page runs and shows (typed-function mode).

The page's "H v three ways" numbers (:func:`hograd_core.curvature.hvp_three_ways`, whose timing
loop calls these functions) and its power iteration's products H u come from here; the page's
code view and .py (:func:`hograd_core.hvp_code.hvp_snippet`) are the source of these functions
(``inspect.getsource``), the learner's ``f`` written by
:func:`hograd_core.language.to_source.torch_source`, and one call of :func:`print_hvp`; the
page's notebook (:func:`hograd_ui.notebook.hvp_notebook`) carries the same source. So this
file needs torch alone, and every line of it is shown.

H v is the gradient of the scalar ∇f·v (v constant): it costs about two gradients and never
needs the n x n matrix H.
"""

import torch


def gradient(f, w):
    """∇f at w (a vector that requires grad), recorded (create_graph=True): the gradient has
    a graph of its own, so that it can be differentiated again."""
    out = f(w)
    if not out.requires_grad:  # f does not depend on w: ∇f = 0
        return torch.zeros_like(w)
    (g,) = torch.autograd.grad(out, w, create_graph=True)
    return g


def hvp_double_backward(g, w, v):
    """H v = ∇(∇f·v): one more backward, through the graph of g = gradient(f, w). The graph
    is kept (retain_graph=True), so the same g serves for more products (H e_i, or power
    iteration's H u)."""
    if not g.requires_grad:
        # g has no graph: the backward that made it used no tensor that requires grad, so
        # (built-in torch functions, create_graph=True) ∇f does not depend on w: H = 0, and
        # grad() would raise 'element 0 of tensors does not require grad'
        return torch.zeros_like(w)
    (hv,) = torch.autograd.grad(g @ v, w, retain_graph=True)
    return hv


def hvp_forward_over_reverse(f, w, v):
    """H v as the derivative of ∇f along v: a jvp (forward mode) of grad(f) (reverse mode),
    d/dε ∇f(w + εv) at ε = 0."""
    return torch.func.jvp(torch.func.grad(f), (w,), (v,))[1]


def hvp_functional(f, w, v):
    """H v by torch.autograd.functional.hvp (PyTorch's docs: slower than vhp)."""
    return torch.autograd.functional.hvp(f, w, v)[1]


def vhp_functional(f, w, v):
    """vᵀH by torch.autograd.functional.vhp: the same numbers as H v when H is symmetric
    (f twice continuously differentiable)."""
    return torch.autograd.functional.vhp(f, w, v)[1]


def hessian(g, w):
    """H, row by row: row i is the gradient of ∂f/∂wᵢ = g·eᵢ, one double backward each
    through the one graph of g."""
    eye = torch.eye(w.numel(), dtype=w.dtype)
    return torch.stack([hvp_double_backward(g, w, e) for e in eye])


def print_hvp(f, point, vector):
    """Print ∇f at point, H v along vector three ways, and vᵀH."""
    w = torch.tensor(point, dtype=torch.float64, requires_grad=True)
    v = torch.tensor(vector, dtype=torch.float64)
    g = gradient(f, w)
    hv = hvp_double_backward(g, w, v)
    hv2 = hvp_forward_over_reverse(f, w.detach(), v)
    hv3 = hvp_functional(f, w.detach(), v)
    vh = vhp_functional(f, w.detach(), v)
    print("gradient", g.tolist())
    print("Hv", hv.tolist(), hv2.tolist(), hv3.tolist())
    print("vH", vh.tolist())
