"""The flag lab's calls, as the page shows them: each function's body, with the page's settings
filled in (:func:`hograd_core.flaglab.source.filled`), is the code that runs.

A run is ``y = f(x)`` (written from the typed function by
:func:`hograd_core.language.to_source.torch_source`), then a first call (one of the first four
functions) and a second (the same ``backward`` again, :func:`next_derivative` or
:func:`grad_again`). A keyword argument at its default (PyTorch's own default, the same in every
signature here) is left out of the code shown. Keep each line translatable to C++
(:mod:`hograd_core.flaglab.cpp`).
"""

from __future__ import annotations

import torch

__all__ = [
    "backward_of_y",
    "backward_of_y_with_z",
    "grad_again",
    "grad_of_y",
    "grad_of_y_and_z",
    "next_derivative",
]


def grad_of_y(
    y, x, create_graph=False, retain_graph=None, allow_unused=None, materialize_grads=False
):
    dy = torch.autograd.grad(
        y,
        x,
        create_graph=create_graph,
        retain_graph=retain_graph,
        allow_unused=allow_unused,
        materialize_grads=materialize_grads,
    )[0]
    print(dy)


def grad_of_y_and_z(
    y, x, z, create_graph=False, retain_graph=None, allow_unused=None, materialize_grads=False
):
    dy, dz = torch.autograd.grad(
        y,
        (x, z),
        create_graph=create_graph,
        retain_graph=retain_graph,
        allow_unused=allow_unused,
        materialize_grads=materialize_grads,
    )
    print(dy, dz)


def backward_of_y(y, x, create_graph=False, retain_graph=None):
    y.backward(create_graph=create_graph, retain_graph=retain_graph)
    print(x.grad)


def backward_of_y_with_z(y, x, z, create_graph=False, retain_graph=None):
    y.backward(create_graph=create_graph, retain_graph=retain_graph)
    print(x.grad, z.grad)


def next_derivative(dy, x):
    d2y = torch.autograd.grad(dy, x)[0]
    print(d2y)


def grad_again(y, x):
    dy_again = torch.autograd.grad(y, x)[0]
    print(dy_again)
