"""The seeds' first example as the home page shows it and runs it: y = x³ at x = 2, its first
derivative by a backward pass that keeps its own graph, its second by a backward pass through
that one. :func:`x_cubed_at_2` is what runs; :func:`shown` gives its lines as the page prints
them (read from this file), so the code a learner reads is the code that ran. Plain PyTorch:
no part of hograd is involved."""

from __future__ import annotations

import ast
import functools
import inspect
import textwrap

import torch

__all__ = ["shown", "x_cubed_at_2"]


def x_cubed_at_2() -> tuple[float, float]:
    """dy/dx and d²y/dx² of y = x³ at x = 2, by two calls of torch.autograd.grad."""
    x = torch.tensor(2.0, requires_grad=True)
    y = x**3
    dy = torch.autograd.grad(y, x, create_graph=True)[0]  # 3x² = 12, and dy has a graph
    d2y = torch.autograd.grad(dy, x)[0]  # 6x = 12
    return dy.item(), d2y.item()


@functools.cache  # the file does not change while the server runs
def shown() -> str:
    """The lines of :func:`x_cubed_at_2` that compute: its body without the docstring and the
    return, read from the parsed source (not by counting lines)."""
    source = textwrap.dedent(inspect.getsource(x_cubed_at_2))
    body = ast.parse(source).body[0].body[1:-1]  # after the docstring, before the return
    lines = source.splitlines()
    return textwrap.dedent("\n".join(lines[body[0].lineno - 1 : body[-1].end_lineno]))
