"""Evaluate a parsed tree with PyTorch (float64), so autograd can differentiate it."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import torch

from .language import Binary, Call, Neg, Node, Var

__all__ = ["evaluate", "TORCH_FUNCS"]


def _softplus(a: torch.Tensor) -> torch.Tensor:
    # log(1 + e^a) without overflow and without torch's linear cut-off at a > 20, so every
    # order of derivative matches the formula (F.softplus switches to a line there).
    return torch.logaddexp(a, torch.zeros_like(a))


TORCH_FUNCS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "sin": torch.sin, "cos": torch.cos, "tan": torch.tan, "asin": torch.asin,
    "acos": torch.acos, "atan": torch.atan, "sinh": torch.sinh, "cosh": torch.cosh,
    "tanh": torch.tanh, "exp": torch.exp, "log": torch.log, "sqrt": torch.sqrt,
    "abs": torch.abs, "sigmoid": torch.sigmoid, "softplus": _softplus, "relu": torch.relu,
    "erf": torch.erf,
}  # fmt: skip


def evaluate(node: Node, env: Mapping[str, torch.Tensor]) -> torch.Tensor:
    """The value of ``node`` with each variable taken from ``env`` (float64 tensors).

    Constant parts were folded to float64 at parse time, so they cost nothing here.
    """
    if node.const is not None:
        return torch.tensor(node.const, dtype=torch.float64)
    if isinstance(node, Var):
        return env[node.name]
    if isinstance(node, Neg):
        return -evaluate(node.arg, env)
    if isinstance(node, Call):
        return TORCH_FUNCS[node.func](evaluate(node.arg, env))
    assert isinstance(node, Binary), node
    if node.op == "**":
        # A constant exponent stays a Python float: torch.pow(x, 3.0) is the op learners
        # see in torchviz graphs (PowBackward0), and it is exact at x = 0.
        if node.right.const is not None:
            return torch.pow(evaluate(node.left, env), node.right.const)
        if node.left.const is not None:
            return torch.pow(node.left.const, evaluate(node.right, env))
        return torch.pow(evaluate(node.left, env), evaluate(node.right, env))
    left = _operand(node.left, env)
    right = _operand(node.right, env)
    if node.op == "+":
        return left + right
    if node.op == "-":
        return left - right
    if node.op == "*":
        return left * right
    return left / right


def _operand(node: Node, env: Mapping[str, torch.Tensor]) -> torch.Tensor | float:
    # Constants enter arithmetic as Python floats: 3*x becomes MulBackward with a scalar, as
    # it would in code a learner writes.
    return node.const if node.const is not None else evaluate(node, env)
