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
    "quadratic_func_code",
    "stability_func_code",
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


# ---- the stability limit: Hessian-vector products --------------------------------------------


def quadratic_func_code(source: str, note: str = "") -> str:
    """The quadratic's stability script (``quadratic_code``): λ_max from ``jvp(grad(f))``
    products, gradient descent with ``grad(f)``."""
    pairs = [
        (", requires_grad=True)\ng0 = torch.autograd.grad(f(w0), w0, create_graph=True)[0]"
         "  # <-- kept: H v = grad(g0 . v)\n", ")\n"),
        ("lambda v: torch.autograd.grad(g0 @ v, w0, retain_graph=True)[0]",
         "lambda v: jvp(grad(f), (w0,), (v,))[1]"),
        ("    t = w.clone().requires_grad_(True)\n    g = torch.autograd.grad(f(t), t)[0]"
         "  # <-- gradient descent needs no create_graph\n", "    g = grad(f)(w)\n"),
    ]  # fmt: skip
    return _finish(_swap(source, pairs, "quadratic stability"), "grad, jvp", note)


def stability_func_code(source: str, note: str = "") -> str:
    """The network's stability script (``stability_code``): Lanczos on ``jvp(grad(loss_of))``
    products, gradient descent with ``grad(loss_of)``."""
    hvp = "lambda u: jvp(grad(loss_of), (theta,), (u,))[1]"
    pairs = [
        ("t = theta.clone().requires_grad_(True)\n"
         "g = torch.autograd.grad(loss_of(t), t, create_graph=True)[0]\n", ""),
        ("lambda u: torch.autograd.grad(g @ u, t, retain_graph=True)[0]", hvp),
        ("    t = theta.clone().requires_grad_(True)\n    loss = loss_of(t)\n",
         "    loss = loss_of(theta)\n"),
        ("    g = torch.autograd.grad(loss, t, create_graph=measure)[0]"
         "  # <-- create_graph only to measure\n",
         "    g = grad(loss_of)(theta)  # no flag: the H v below transform loss_of afresh\n"),
        ("g.detach()  # <-- gradient descent itself is first order", "g"),
    ]  # fmt: skip
    return _finish(_swap(source, pairs, "network stability"), "grad, jvp", note)


#: The source-based forms by tab.
FORMS = {
    "quadratic": quadratic_func_code,
    "stability": stability_func_code,
}
