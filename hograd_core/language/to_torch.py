"""Evaluate a parsed tree with PyTorch (float64), so autograd can differentiate it."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import torch
import torch.nn.functional as F

from .nodes import Binary, Call, Neg, Node, Var

__all__ = ["evaluate", "TORCH_FUNCS"]


def _softplus(a: torch.Tensor) -> torch.Tensor:
    # log(1 + e^a), each side by the op whose derivative formulas keep their digits there:
    # -logsigmoid(-a) for a > 0, F.softplus(a) for a <= 0 (its straight line starts at a > 20,
    # so here it is the formula). Both sides are finite everywhere (where() takes the gradient
    # of each side, multiplied by 0 where it is not used), and every order of derivative, by
    # autograd, jvp or forward AD, is a sum of finite terms. torch.logaddexp(a, 0) has NaN
    # second derivatives far on the flat side (a = -501), F.softplus alone has f'' = 0 past
    # 20, and -logsigmoid(-a) alone has f'' = 0 far on the flat side; the graph stays small
    # (8,270 nodes at order 10, where logaddexp's has 331,137).
    return torch.where(a > 0, -F.logsigmoid(-a), F.softplus(a))


TORCH_FUNCS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "sin": torch.sin,
    "cos": torch.cos,
    "tan": torch.tan,
    "asin": torch.asin,
    "acos": torch.acos,
    "atan": torch.atan,
    "sinh": torch.sinh,
    "cosh": torch.cosh,
    "tanh": torch.tanh,
    "exp": torch.exp,
    "log": torch.log,
    "sqrt": torch.sqrt,
    "abs": torch.abs,
    "sigmoid": torch.sigmoid,
    "softplus": _softplus,
    "relu": torch.relu,
    "erf": torch.erf,
    "erfc": torch.erfc,
    "expm1": torch.expm1,
    "log1p": torch.log1p,
    "asinh": torch.asinh,
    "acosh": torch.acosh,
    "atanh": torch.atanh,
    "erfinv": torch.erfinv,
    "lgamma": torch.lgamma,
    "digamma": torch.digamma,
    "i0": torch.i0,
    "i1": torch.special.i1,
}


def evaluate(node: Node, env: Mapping[str, torch.Tensor]) -> torch.Tensor:
    """The value of ``node`` with each variable taken from ``env`` (float64 tensors).

    Constant parts were folded to float64 at parse time, so they cost nothing here: numbers
    and constants always take the first case.
    """
    match node:
        case Node(const=value) if value is not None:
            return torch.tensor(value, dtype=torch.float64)
        case Var(name=name):
            return env[name]
        case Neg(arg=arg):
            return -evaluate(arg, env)
        case Call(func="polygamma", arg=arg, index=n):
            return torch.polygamma(n, evaluate(arg, env))
        case Call(func=func, arg=arg):
            return TORCH_FUNCS[func](evaluate(arg, env))
        case Binary(op="**", left=base, right=exponent):
            # A constant exponent stays a Python float: torch.pow(x, 3.0) is the op learners
            # see in torchviz graphs (PowBackward0), and it is exact at x = 0.
            if exponent.const is not None:
                return torch.pow(evaluate(base, env), exponent.const)
            if base.const is not None:
                return torch.pow(base.const, evaluate(exponent, env))
            return torch.pow(evaluate(base, env), evaluate(exponent, env))
        case Binary(op="+", left=left, right=right):
            return _operand(left, env) + _operand(right, env)
        case Binary(op="-", left=left, right=right):
            return _operand(left, env) - _operand(right, env)
        case Binary(op="*", left=left, right=right):
            return _operand(left, env) * _operand(right, env)
        case Binary(op="/", left=left, right=right):
            return _operand(left, env) / _operand(right, env)
        case _:
            raise AssertionError(f"not a node of the language: {node!r}")


def _operand(node: Node, env: Mapping[str, torch.Tensor]) -> torch.Tensor | float:
    # Constants enter arithmetic as Python floats: 3*x becomes MulBackward with a scalar, as
    # it would in code a learner writes.
    return node.const if node.const is not None else evaluate(node, env)
