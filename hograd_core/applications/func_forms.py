"""The ``torch.func`` form of each script of "Why gradients of gradients": the same experiment,
the same settings, the same printed lines, with the derivatives taken by function transforms.

Each form is the plain script (``*_code(...).source``) with only its derivative lines swapped:
``torch.autograd.grad(..., create_graph=True)`` becomes ``grad(f)``, a Hessian-vector product
becomes ``jvp(grad(f), (w,), (v,))`` (forward mode over reverse mode), derivatives at many
points become ``vmap`` of one point's derivative. torch.func has no ``create_graph`` flag: a
transform always records what an outer one needs. (The labs in hograd_labs/ keep their
torch.func form in their own compute.py instead.)

A swap whose plain text is missing raises ValueError, so a change to a plain script that these
forms no longer fit fails the tests instead of shipping a form of another experiment.
"""

from __future__ import annotations

__all__ = [
    "FORMS",
]


def _swap(source: str, pairs: list[tuple[str, str]], what: str) -> str:
    for old, new in pairs:
        if old not in source:
            raise ValueError(f"not the {what} script: {old.strip()[:60]!r} is missing")
        source = source.replace(old, new)
    return source


def _span(source: str, start: str, end: str, new: str, what: str) -> str:
    """``source`` with the text from ``start`` up to (not including) ``end`` replaced."""
    i = source.find(start)
    j = source.find(end, i + 1)
    if i < 0 or j < 0:
        raise ValueError(f"not the {what} script: {start.strip()[:60]!r} is missing")
    return source[:i] + new + source[j:]


def _finish(source: str, names: str, note: str) -> str:
    """The import of ``names`` from torch.func after ``import torch``, ``note`` on top."""
    head = "".join(f"# {line}\n" for line in note.splitlines())
    return head + source.replace(
        "import torch\n", f"import torch\nfrom torch.func import {names}\n", 1
    )


#: The source-based forms by tab.
FORMS = {}
