"""What ``@once_differentiable`` and a detached backward really do, checked against plain
PyTorch (issue 46 items 1 and 2): the raising node exists only when the incoming gradient
requires grad, ``torch.autograd.grad`` never runs it, and with the gradient most code passes a
gradient penalty loses its second-order term without a word."""

from __future__ import annotations

import pytest
import torch
from torch.autograd.function import once_differentiable

from hograd_labs.backward.compute import lab, penalty
from hograd_ui.i18n import catalogue

CUBE_AT = [-1.0, 0.5, 2.0]


def _cube(kind: str) -> type[torch.autograd.Function]:
    """x³ with backward 3x²g, written by hand: as typed, on detached x, or once-only."""

    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 3 * (x.detach() if kind == "detached" else x) ** 2 * g

    back = once_differentiable(backward) if kind == "once" else backward
    return type(
        "Cube",
        (torch.autograd.Function,),
        {"forward": staticmethod(forward), "backward": staticmethod(back)},
    )


def _plain_penalty(fn, xs):
    x = torch.tensor(xs, dtype=torch.float64, requires_grad=True)
    y = fn(x)
    (dy,) = torch.autograd.grad(y.sum(), x, create_graph=True)
    (y.sum() + (dy**2).sum()).backward()
    return x.grad.tolist(), dy.requires_grad


def test_plain_pytorch_loses_the_penalty_term_silently() -> None:
    """The issue's numbers: x.grad = [3, 0.75, 12] instead of [−33, 5.25, 300]."""
    truth, _ = _plain_penalty(lambda x: x**3, CUBE_AT)
    assert truth == pytest.approx([-33.0, 5.25, 300.0])
    for kind in ("once", "detached"):
        got, requires = _plain_penalty(_cube(kind).apply, CUBE_AT)
        assert got == pytest.approx([3.0, 0.75, 12.0]) and not requires


@pytest.mark.parametrize("variant", ["written", "detached", "once", "second_function"])
@pytest.mark.parametrize(
    ("f", "b", "plain"),
    [
        ("x^3", "3*x^2*g", lambda x: x**3),
        ("tanh(x)", "(1 - y^2)*g", torch.tanh),
        ("sin(x)", "cos(x)*g", torch.sin),
    ],
)
def test_the_labs_penalty_is_plain_pytorchs(f: str, b: str, plain, variant: str) -> None:
    xs = [-1.3, -0.4, 0.7, 1.9]
    got = penalty(f, b, xs, variant)
    truth, _ = _plain_penalty(plain, xs)
    assert got.truth == pytest.approx(truth, rel=1e-12)
    if variant in ("written", "second_function"):
        assert got.through == pytest.approx(truth, rel=1e-12) and got.verdict == "kept"
    else:  # the second-order term is gone: only f′ is left, and nothing was raised
        x = torch.tensor(xs, dtype=torch.float64, requires_grad=True)
        (first,) = torch.autograd.grad(plain(x).sum(), x)
        assert got.through == pytest.approx(first.tolist(), rel=1e-12) and got.verdict == "lost"
        assert not got.requires_grad


def test_the_messages_are_plain_pytorchs_and_the_labs() -> None:
    """With the usual g, .backward() on dy says "does not require grad"; with a v that
    requires grad, grad() never runs once_differentiable's node and .backward() does."""
    x = torch.tensor(CUBE_AT, dtype=torch.float64, requires_grad=True)
    for kind in ("once", "detached"):
        (dy,) = torch.autograd.grad(_cube(kind).apply(x).sum(), x, create_graph=True)
        with pytest.raises(RuntimeError, match="does not require grad") as usual:
            dy.sum().backward()
        assert penalty("x^3", "3*x^2*g", CUBE_AT, kind).backward_error == str(usual.value)
    v = torch.ones_like(x, requires_grad=True)
    (dv,) = torch.autograd.grad(_cube("once").apply(x), x, v, create_graph=True)
    with pytest.raises(RuntimeError, match="appears to not have been used") as unused:
        torch.autograd.grad(dv.sum(), x, retain_graph=True)
    with pytest.raises(RuntimeError, match="differentiate twice") as twice:
        dv.sum().backward()
    assert penalty("x^3", "3*x^2*g", CUBE_AT, "once").grad_error == str(unused.value)
    assert lab("x^3", "3*x^2*g", CUBE_AT, "once").run.error == str(twice.value)
    # gradgradcheck's analytical side is grad(..., allow_unused=True): zeros, not the raise
    (zero,) = torch.autograd.grad(dv.sum(), x, allow_unused=True, materialize_grads=True)
    assert zero.tolist() == [0.0, 0.0, 0.0]
    mismatches = lab("x^3", "3*x^2*g", CUBE_AT, "once").run.gradgradcheck.mismatches
    assert mismatches and all(m.analytical == 0 for m in mismatches)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_page_names_both_conditions(lang: str) -> None:
    strings = catalogue(lang)
    once = strings["backward.variant.about.once"] + strings["backward.graph.once"]
    for needed in ("requires_grad", "autograd.grad", ".backward()"):
        assert needed in once, needed
    detached = strings["backward.variant.about.detached"]
    assert "element 0 of tensors does not require grad" in detached
    assert "requires_grad" in detached


def test_a_wrong_backward_gives_a_different_penalty_gradient() -> None:
    got = penalty("x^3", "2*x*g", CUBE_AT, "written")  # d/dx of x², not of x³
    x = torch.tensor(CUBE_AT, dtype=torch.float64, requires_grad=True)
    # the Function's y.sum() has gradient 2x through that backward; (2x)² adds 8x
    assert got.through == pytest.approx((2 * x + 8 * x).tolist()) and got.verdict == "differs"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_page_says_what_allow_unused_returns(lang: str) -> None:
    """With v requiring grad, grad(dy/dx, x) never reaches the Error node; allow_unused=True
    then returns None (not zeros: zeros take materialize_grads=True), and gradgradcheck writes
    0 into the Jacobian column of a None. The text said "it gives zeros"."""
    x = torch.tensor(CUBE_AT, dtype=torch.float64, requires_grad=True)
    v = torch.ones(3, dtype=torch.float64, requires_grad=True)
    (dy,) = torch.autograd.grad(_cube("once").apply(x), x, v, create_graph=True)
    assert torch.autograd.grad(dy.sum(), x, allow_unused=True) == (None,)
    text = catalogue(lang)["backward.variant.about.once"]
    assert "allow_unused=True" in text and "None" in text
    assert "it gives zeros" not in text and "则给出零" not in text
