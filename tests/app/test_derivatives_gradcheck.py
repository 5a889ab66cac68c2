"""The point inspector shows PyTorch's own gradcheck and gradgradcheck verdicts at x0."""

from __future__ import annotations

import sympy as sp
import torch
from torch.autograd.gradcheck import GradcheckError

from hograd_core import parse
from hograd_labs.derivatives import cached as _cached
from tests.app.conftest import open_page

PAGE = "pages/derivatives.py"
X = sp.Symbol("x", real=True)


def at_point(text: str, x0: float, lang: str = "en", span: tuple[float, float] | None = None):
    at = open_page(PAGE, lang)
    at.text_input(key="deriv.fn").set_value(text).run()
    if span is not None:
        at.slider(key="deriv.range").set_value(span).run()
    at.slider(key="deriv.x0").set_value(x0).run()
    assert not at.exception
    return at


def markdown(at) -> str:
    return "\n".join(m.value for m in at.markdown)


def test_the_seed_example_passes_both_checks() -> None:
    text = markdown(at_point("x**3", 2.0))
    assert "PyTorch's own checks at x₀ = 2" in text
    assert "✓ `gradcheck` passed" in text and "✓ `gradgradcheck` passed" in text
    assert "failed" not in text


def test_a_failure_shows_pytorchs_message_as_code_and_the_entry() -> None:
    fn = parse("x*sin(1/x)")
    at = at_point("x*sin(1/x)", 0.0025, span=(-0.25, 0.25))
    x0 = at.slider(key="deriv.x0").value
    x = torch.tensor([x0], dtype=torch.float64, requires_grad=True)
    try:
        torch.autograd.gradcheck(lambda t: fn.torch({"x": t}), (x,))
        raise AssertionError("PyTorch's gradcheck passed here; pick another x0")
    except GradcheckError as err:
        message = str(err)
    assert message.rstrip() in [c.value.rstrip() for c in at.code]  # word for word, as code
    text = markdown(at)
    assert "✗ `gradcheck` failed. PyTorch's message, word for word:" in text
    assert "Entries that differ: ∂f/∂x (that is f′): finite difference" in text
    # once sympy's exact column is in, the page says which side is off: the backward agrees
    assert not _cached.sympy_part("x*sin(1/x)", 4, x0, wait=60).working
    at.run()
    exact = float(sp.diff(X * sp.sin(1 / X), X).subs(X, x0))
    assert f"backward {exact:.10g}" in markdown(at)
    captions = "\n".join(c.value for c in at.caption)
    assert "so it is the finite difference that is off" in captions
    assert "either the backward formula is wrong" not in captions
    # without sympy's f' (order 0: the table has f only) the page cannot say which side
    at.slider(key="deriv.order").set_value(0).run()
    captions = "\n".join(c.value for c in at.caption)
    assert "either the backward formula is wrong" in captions
    assert "so it is the finite difference that is off" not in captions


def test_a_kink_and_a_point_outside_the_domain_are_said_not_failed() -> None:
    text = markdown(at_point("relu(x)", 0.0))
    assert "Not run: the argument of `relu(x)` is 0 within ±1e-06 of x₀ = 0" in text
    assert "passed" not in text and "failed" not in text
    text = markdown(at_point("log(x)", -1.0))
    assert "Not run: f is not a finite number at x₀ = -1" in text
    assert "failed" not in text


def test_in_chinese() -> None:
    text = markdown(at_point("tanh(x)", 0.5, lang="zh"))
    assert "PyTorch 自己在 x₀ = 0.5 处的检查" in text
    assert "✓ `gradcheck` 通过" in text and "✓ `gradgradcheck` 通过" in text
