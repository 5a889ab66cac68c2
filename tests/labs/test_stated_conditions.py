"""Statements of the curvature and backward pages whose condition is checked against plain
PyTorch here (issue 46 item 6): each test computes the fact, then reads the sentence."""

from __future__ import annotations

import re

import pytest
import torch

from hograd_ui.i18n import catalogue

# torch.func's first use loads a module that scripts with torch.jit
pytestmark = pytest.mark.filterwarnings(
    "ignore:`torch.jit.script` is deprecated:DeprecationWarning"
)


def _sentence_with(text: str, needle: str) -> str:
    """The sentence of ``text`` holding ``needle``."""
    return next(s for s in re.split(r"(?<=[.。])\s*", text) if needle in s)


def test_a_linear_model_has_g_equal_to_h_with_cross_entropy_too() -> None:
    """G = H needs linearity in θ only: ∇²outₖ = 0 kills the second term for any loss."""
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(20, 3, dtype=torch.float64, generator=gen)
    labels = torch.randint(0, 4, (20,), generator=gen)
    theta = torch.randn(12, dtype=torch.float64, generator=gen)

    def model(t: torch.Tensor) -> torch.Tensor:
        return x @ t.reshape(3, 4)  # linear in θ

    def loss_of_logits(z: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.cross_entropy(z, labels)

    h = torch.func.hessian(lambda t: loss_of_logits(model(t)))(theta)
    j = torch.func.jacrev(model)(theta).reshape(80, 12)
    h_loss = torch.func.hessian(loss_of_logits)(model(theta)).reshape(80, 80)
    g = j.T @ h_loss @ j
    assert torch.allclose(g, h, atol=1e-12)
    for lang in ("en", "zh"):
        text = catalogue(lang)["curvature.gn.intro"]
        said = _sentence_with(text, "G = H")
        assert "squared loss" not in said and "平方损失时" not in said, said


def test_the_hessian_of_a_point_has_d_squared_minus_d_off_diagonal_entries() -> None:
    d = 3
    w = torch.randn(d, d, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    h = torch.func.hessian(lambda p: torch.tanh(p @ w @ p))(torch.ones(d, dtype=torch.float64))
    off = h.numel() - torch.diagonal(h).numel()
    assert h.shape == (d, d) and off == d * d - d
    for lang in ("en", "zh"):
        assert "d² − d" in catalogue(lang)["curvature.pinn"]


def test_abs_x_times_x_has_a_first_derivative_at_0() -> None:
    x = torch.tensor([0.0], dtype=torch.float64, requires_grad=True)
    (d1,) = torch.autograd.grad(torch.abs(x) * x, x, create_graph=True)
    assert d1.item() == 0.0  # f′(0) = 0 exists
    assert torch.autograd.gradcheck(lambda t: torch.abs(t) * t, (x,))
    en = catalogue("en")
    said = en["backward.skipped.kink"]
    assert "f′(0) = 0" in said  # f itself may have a first derivative at the kink
    assert "no ordinary first" not in " ".join(v for k, v in en.items() if k.startswith("backward"))
