"""A custom ``torch.autograd.Function`` built from two typed formulas: f, and its backward.

The learner writes f(x) and its backward in the function language, the backward in terms of
the input ``x``, the output ``y`` and the incoming gradient ``g`` (tanh: ``(1 - y^2)*g``; x³:
``3*x^2*g``). Both trees become torch calls through the language's evaluator (no ``eval``), and
the class saves with ``ctx.save_for_backward`` exactly what the backward uses (x, y, both or
neither). Four variants, each a real Function:

* ``written``: the backward as typed. With ``create_graph=True`` autograd records the
  backward's own operations, so the derivative can be differentiated again.
* ``detached``: the same formula on ``x.detach()`` and ``y.detach()``: the first derivative is
  right, the second through x is silently 0 (nothing recorded leads back to x).
* ``once``: the backward under ``@once_differentiable``: a second ``grad`` raises PyTorch's
  own error.
* ``second_function``: the backward calls a second Function (PyTorch's double-backward
  tutorial's ``Cube``/``CubeBackward`` pattern), whose own backward gives the formula's
  partial derivatives in x, y and g (by autograd on detached copies, under
  ``@once_differentiable``: second order only).

The first backward is called as ``gradgradcheck`` calls it: ``v = ones_like(x)`` with
``requires_grad=True`` as the incoming gradient, so ``v·f′(x)`` is a function of x and v; the
second call passes ``allow_unused=True, materialize_grads=True``, as code that takes second
derivatives of a larger model often must, and so a backward that recorded nothing gives 0
without a word.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch.autograd.function import once_differentiable
from torch.autograd.gradcheck import GradcheckError

from .errors import ArgumentError, BudgetError
from .grad_checks import (
    ATOL,
    EPS,
    RTOL,
    Check,
    Skipped,
    _first_backward,
    _mismatches,
    unchecked_points,
)
from .language import Binary, Call, Function, Neg, Node, Var, parse
from .language.to_torch import evaluate
from .nested_autograd import BUDGET

__all__ = [
    "MAX_POINTS",
    "NAMES",
    "VARIANTS",
    "CustomRun",
    "CustomSpec",
    "custom_spec",
    "derivatives_through",
    "make_function",
    "run_custom",
    "used_names",
]

#: The variants, in the order the page offers them.
VARIANTS: tuple[str, ...] = ("written", "detached", "once", "second_function")
#: The names a backward formula may use: the input, the output, the incoming gradient.
NAMES: tuple[str, ...] = ("x", "y", "g")
#: gradcheck and gradgradcheck build n-by-n Jacobians, calling the Python backward once per
#: row: 25 points is 625 entries per check, well under a second here.
MAX_POINTS = 25


@dataclass(frozen=True)
class CustomSpec:
    """The two formulas, validated.

    Attributes:
        f: f(x), a function of x alone.
        backward: the backward formula, of x, y and g.
        saved: what the Function saves for its backward: "x", "y", both or neither, in that
            order (the names the backward formula uses).
        uses_g: whether the formula uses the incoming gradient g.
    """

    f: Function
    backward: Function
    saved: tuple[str, ...]
    uses_g: bool


@dataclass(frozen=True)
class CustomRun:
    """What the custom Function gave on a grid.

    Attributes:
        points: the grid.
        first: ``v·f′`` at each point with v = 1: the first derivative by the custom backward.
        second: the derivative of that in x at each point (NaN where it raised).
        error: PyTorch's message when the second ``grad`` call raised, else None.
        gradcheck, gradgradcheck: PyTorch's verdicts on the points where f has ordinary first
            and second derivatives (see :class:`~hograd_core.grad_checks.Check`).
        skipped: the points not checked, and why.
        saved: what the Function saved.
        variant: one of :data:`VARIANTS`.
    """

    points: tuple[float, ...]
    first: tuple[float, ...]
    second: tuple[float, ...]
    error: str | None
    gradcheck: Check
    gradgradcheck: Check
    skipped: tuple[Skipped, ...]
    saved: tuple[str, ...]
    variant: str


# ---- private helpers --------------------------------------------------------------------------


def used_names(node: Node) -> set[str]:
    """The variable names a tree uses."""
    match node:
        case Node(const=value) if value is not None:
            return set()
        case Var(name=name):
            return {name}
        case Neg(arg=arg) | Call(arg=arg):
            return used_names(arg)
        case Binary(left=left, right=right):
            return used_names(left) | used_names(right)
    return set()


def _like(value: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    """A formula's value with the shape of ``like`` (a constant formula is one number)."""
    return value if value.shape == like.shape else value.expand_as(like)


def _formulas(spec: CustomSpec) -> tuple[Callable, Callable]:
    """f(x) and df(x, y, g) as torch calls, from the validated trees."""
    f_tree, b_tree = spec.f.tree, spec.backward.tree

    def f(x: torch.Tensor) -> torch.Tensor:
        return _like(evaluate(f_tree, {"x": x}), x)

    def df(x: torch.Tensor | None, y: torch.Tensor | None, g: torch.Tensor) -> torch.Tensor:
        env = {name: t for name, t in (("x", x), ("y", y), ("g", g)) if t is not None}
        return _like(evaluate(b_tree, env), g)

    return f, df


def _grid(xs: Sequence[float] | np.ndarray) -> np.ndarray:
    grid = np.asarray(xs, dtype=np.float64).reshape(-1)
    if not 1 <= grid.size <= MAX_POINTS:
        cls = BudgetError if grid.size > MAX_POINTS else ArgumentError
        raise cls("budget.custom_points", limit=MAX_POINTS, got=grid.size)
    if not np.all(np.isfinite(grid)) or np.max(np.abs(grid)) > BUDGET.max_abs_x:
        bad = grid[
            ~np.isfinite(grid) | (np.abs(np.nan_to_num(grid, nan=np.inf)) > BUDGET.max_abs_x)
        ]
        raise ArgumentError("budget.not_finite", what="x", got=", ".join(f"{v:g}" for v in bad[:3]))
    return grid


def _check(
    name: str, func: Callable, inputs: tuple, run: Callable[[], bool], points: tuple
) -> Check:
    """PyTorch's verdict; a check that raised something else (a second ``grad`` through a
    once-differentiable backward) failed with PyTorch's message, no entries compared."""
    try:
        run()
    except GradcheckError as err:
        try:
            found = _mismatches(func, inputs)
        except RuntimeError:
            found = ()
        return Check(name, points, False, str(err), found)
    except RuntimeError as err:
        return Check(name, points, False, str(err), ())
    return Check(name, points, True, "", ())


# ---- public API -------------------------------------------------------------------------------


def custom_spec(f_text: str, backward_text: str) -> CustomSpec:
    """Parse f (of x) and its backward (of x, y and g).

    Raises:
        ExpressionError: either text is not in the language, exceeds a limit or uses another
            name; the message says which.
    """
    f = parse(f_text, ("x",))
    backward = parse(backward_text, NAMES)
    used = used_names(backward.tree)
    return CustomSpec(f, backward, tuple(n for n in ("x", "y") if n in used), "g" in used)


def make_function(spec: CustomSpec, variant: str = "written") -> type[torch.autograd.Function]:
    """A real ``torch.autograd.Function`` class named ``MyFunc`` (its graph node is
    ``MyFuncBackward``) for the formulas and the variant.

    Raises:
        ArgumentError: an unknown variant.
    """
    if variant not in VARIANTS:
        raise ArgumentError(
            "budget.custom_variant", got=str(variant)[:40], allowed=", ".join(VARIANTS)
        )
    f, df = _formulas(spec)
    saved = spec.saved

    def forward(ctx, x):  # autograd's signature
        y = f(x)
        ctx.save_for_backward(*({"x": x, "y": y}[n] for n in saved))
        return y

    def unpack(ctx) -> dict[str, torch.Tensor]:
        return dict(zip(saved, ctx.saved_tensors, strict=True))

    if variant == "second_function":

        class MyFuncGrad(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, y, g):
                ctx.save_for_backward(x, y, g)
                return df(x, y, g)

            @staticmethod
            @once_differentiable
            def backward(ctx, gg):
                x, y, g = ctx.saved_tensors
                with torch.enable_grad():  # the formula's partial derivatives in x, y and g
                    leaves = [t.detach().requires_grad_() for t in (x, y, g)]
                    out = df(*leaves)
                return torch.autograd.grad(
                    out, leaves, gg, allow_unused=True, materialize_grads=True
                )

        def backward(ctx, g):
            t = unpack(ctx)
            x = t.get("x", torch.zeros_like(g))  # an unused name still gets a tensor
            y = t.get("y", torch.zeros_like(g))
            return MyFuncGrad.apply(x, y, g)

    elif variant == "detached":

        def backward(ctx, g):
            t = {name: value.detach() for name, value in unpack(ctx).items()}
            return df(t.get("x"), t.get("y"), g)

    else:

        def backward(ctx, g):
            t = unpack(ctx)
            return df(t.get("x"), t.get("y"), g)

        if variant == "once":
            backward = once_differentiable(backward)

    return type(
        "MyFunc",
        (torch.autograd.Function,),
        {"forward": staticmethod(forward), "backward": staticmethod(backward)},
    )


def derivatives_through(
    fn: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None, str | None]:
    """y, v·f′ and x.grad after a second backward pass, through ``fn``, and PyTorch's message
    if that pass raised.

    ``x`` is a fresh leaf (its ``.grad`` is None). ``v = ones_like(x)`` with
    ``requires_grad=True`` is the first call's incoming gradient, as in gradgradcheck, so
    ``d1 = v·f′(x)`` is a function of x and v; ``d1.backward(ones)`` is the second pass (a
    gradient penalty's ``.backward()``). Where nothing recorded during the first backward leads
    back to x, ``x.grad`` stays None and PyTorch says nothing: 0 is returned for it.
    """
    y = fn(x)
    v = torch.ones_like(x, requires_grad=True)
    (d1,) = torch.autograd.grad(y, x, v, create_graph=True)
    try:
        d1.backward(torch.ones_like(d1))
    except RuntimeError as err:
        return y, d1, None, str(err)
    return y, d1, torch.zeros_like(x) if x.grad is None else x.grad, None


def run_custom(
    spec: CustomSpec, xs: Sequence[float] | np.ndarray, variant: str = "written"
) -> CustomRun:
    """The custom Function's first and second derivatives on ``xs``, and PyTorch's gradcheck
    and gradgradcheck on it (float64, PyTorch's default tolerances) at the points where f
    has ordinary first and second derivatives.

    Args:
        spec: from :func:`custom_spec`.
        xs: 1 to :data:`MAX_POINTS` finite points.
        variant: one of :data:`VARIANTS`.

    Raises:
        ArgumentError: an unknown variant, or a point that is not a finite number.
        BudgetError: more than :data:`MAX_POINTS` points.

    Example:
        >>> run = run_custom(custom_spec("tanh(x)", "(1 - y^2)*g"), [0.0, 1.0])
        >>> run.gradcheck.passed, run.gradgradcheck.passed, run.saved
        (True, True, ('y',))
    """
    grid = _grid(xs)
    func = make_function(spec, variant).apply
    x = torch.tensor(grid, dtype=torch.float64, requires_grad=True)
    _, d1, d2, error = derivatives_through(func, x)
    first = tuple(d1.detach().tolist())
    second = tuple(d2.detach().tolist()) if d2 is not None else (math.nan,) * grid.size
    skipped = unchecked_points(spec.f, grid)
    not_first = {s.x for s in skipped if s.reason != "second"}
    not_second = {s.x for s in skipped}
    checks = []
    for name, where in (
        ("gradcheck", [p for p in grid.tolist() if p not in not_first]),
        ("gradgradcheck", [p for p in grid.tolist() if p not in not_second]),
    ):
        if not where:
            checks.append(Check(name, (), None, "", ()))
            continue
        t = torch.tensor(where, dtype=torch.float64, requires_grad=True)
        if name == "gradcheck":
            run = lambda t=t: torch.autograd.gradcheck(func, (t,), eps=EPS, atol=ATOL, rtol=RTOL)
            checks.append(_check(name, func, (t,), run, tuple(where)))
        else:
            v = torch.ones_like(t, requires_grad=True)
            run = lambda t=t, v=v: torch.autograd.gradgradcheck(
                func, (t,), (v,), eps=EPS, atol=ATOL, rtol=RTOL
            )
            checks.append(_check(name, _first_backward(func), (t, v), run, tuple(where)))
    return CustomRun(
        points=tuple(grid.tolist()),
        first=first,
        second=second,
        error=error,
        gradcheck=checks[0],
        gradgradcheck=checks[1],
        skipped=tuple(skipped),
        saved=spec.saved,
        variant=variant,
    )
