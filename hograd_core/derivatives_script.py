"""Nested ``torch.autograd.grad``, the script the derivatives page runs and shows.

The page's nested-autograd numbers (:func:`hograd_core.nested_autograd.autograd_rows`) come
from :func:`nested_derivatives`; the page's code view (:func:`hograd_core.inspector.
pytorch_snippet`) is the source of this module's functions (``inspect.getsource``), the
learner's ``f`` written by :func:`hograd_core.language.to_source.torch_source`, and one call of
:func:`print_derivatives`; the page's notebook (:func:`hograd_ui.notebook.derivatives_notebook`)
carries :func:`nested_derivatives` and :func:`derivatives_of`. So this file needs torch alone,
and every line of it is shown.
"""

import torch


def nodes(t):
    """Autograd nodes reachable from t: the graph a backward through t walks."""
    # A short walk of its own (the app's is hograd_core/autograd_walk.py): this script runs
    # with torch alone.
    seen, stack = set(), [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is not None and node not in seen:
            seen.add(node)
            stack.extend(n for n, _ in node.next_functions)
    return len(seen)


def nested_derivatives(f, x, order):
    """f(x), then each derivative up to order: the gradient of the one before, recorded
    (create_graph=True) so that it can be differentiated again. f acts point by point, so
    the gradient with ones as grad_outputs is every point's own derivative."""
    d = f(x)
    yield d
    for _ in range(order):
        if not d.requires_grad:
            # No grad_fn: the backward that made this derivative used no tensor that
            # requires grad. With create_graph=True (below) and built-in torch functions,
            # that means it no longer depends on x, so the next one is exactly 0 (grad()
            # would raise 'element 0 of tensors does not require grad'). Without
            # create_graph=True, or through a custom function whose backward is not itself
            # differentiable (once_differentiable, .detach()), a derivative that depends on
            # x has no grad_fn either, and this shortcut would give a wrong 0.
            d = torch.zeros_like(x)
        else:
            (d,) = torch.autograd.grad(d, x, grad_outputs=torch.ones_like(d), create_graph=True)
        yield d


def derivatives_of(f, x, order):
    """f and its derivatives up to order at every point of x: (order + 1, len(x))."""
    rows = nested_derivatives(f, x, order)
    return torch.stack([torch.broadcast_to(d, x.shape).detach() for d in rows])


def print_derivatives(f, x0, order):
    """Print k, the k-th derivative at x0, its grad_fn and the nodes behind it, k = 0..order."""
    x = torch.tensor(x0, dtype=torch.float64, requires_grad=True)
    for k, d in enumerate(nested_derivatives(f, x, order)):
        op = d.grad_fn.name() if d.grad_fn is not None else None
        print(k, d.item(), op, nodes(d))
