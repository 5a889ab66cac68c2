"""Write your own backward: the lab's computation, on the kernel's custom Function.

The Function itself (built from the two typed trees, no ``eval``) and PyTorch's checks on it
are :mod:`hograd_core.custom_function`, which the command line's ``custom`` verb calls too.
This module adds what the page shows beside them: f's own derivatives by nested autograd (the
oracle the slips are judged by), which common slip the learner's backward makes, the real graph
of the first and the second backward pass at one point, and the script, generated with the
language's own source generator (:func:`~hograd_core.language.to_source.torch_source`), that
builds and runs the same Function.

sympy's part (f′ and f″ exactly, and the four formulas in LaTeX) is not computed here: sympy
and mpmath can hold the interpreter for minutes on a function such as ``(x+1)^(x^(x^24))``, so
the page gets them from the exact maths' child process (hograd_serving/exact.py, killed at its
deadline) and adds them with :func:`with_exact`; a :class:`Lab` without them has NaN values,
no formulas, and says why in ``exact_stopped``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import torch

from hograd_core.custom_function import (
    MAX_POINTS,
    CustomRun,
    CustomSpec,
    custom_spec,
    make_function,
    run_custom,
    used_names,
)
from hograd_core.errors import ArgumentError, BudgetError
from hograd_core.graph_trace import TensorGraph, trace_tensors
from hograd_core.language.to_source import torch_source
from hograd_core.nested_autograd import BUDGET, derivatives

__all__ = [
    "AGREE",
    "ExactPart",
    "Lab",
    "Penalty",
    "graph_at",
    "lab",
    "penalty",
    "script",
    "with_exact",
]

#: Relative agreement of the custom backward's first derivative with f's own (float64; the
#: two compute the same formula in a different order of operations).
AGREE = 1e-7

#: The slips the page names (None: the backward is right on the grid).
IGNORES_G = "ignores_g"  # no g in the formula: right for g = 1 only
SIGN_OF_Y = "y_sign"  # a formula of y alone, right up to sign: f′ is not a function of y
WRONG = "wrong"  # not f′ at some points


@dataclass(frozen=True)
class Lab:
    """Everything the page shows for one f, backward, grid and variant.

    Attributes:
        run: the custom Function's derivatives and PyTorch's verdicts.
        autograd: f's own first and second derivatives by nested autograd, at the points.
        exact: sympy's f′ and f″ at the points (NaN where sympy could not evaluate them, or
            had not been asked: see ``exact_stopped``).
        latex: LaTeX of f, of the backward, and of sympy's f′ and f″ (None if too long, or
            where sympy stopped first).
        slip: one of IGNORES_G, SIGN_OF_Y, WRONG, or None.
        wrong_at: the points where the first derivative is not f′.
        uses: the names the backward formula uses, in the order x, y, g.
    """

    run: CustomRun
    autograd: tuple[tuple[float, ...], tuple[float, ...]]
    exact: tuple[tuple[float, ...], tuple[float, ...]]
    latex: tuple[str | None, str | None, str | None, str | None]
    slip: str | None
    wrong_at: tuple[float, ...]
    uses: tuple[str, ...]
    exact_stopped: str | None = "missing"  # why sympy's part is incomplete; None: complete


@dataclass(frozen=True)
class ExactPart:
    """sympy's part of a :class:`Lab`, worked out where it can be stopped.

    Attributes:
        first, second: f′ and f″ at the lab's points (NaN where sympy has no value).
        latex: LaTeX of f, of the backward, of f′ and of f″ (None where not printed).
        stopped: None if complete, else why not: "time", "memory", "size", "error", "busy".
    """

    first: tuple[float, ...]
    second: tuple[float, ...]
    latex: tuple[str | None, str | None, str | None, str | None]
    stopped: str | None


def with_exact(result: Lab, part: ExactPart) -> Lab:
    """``result`` with sympy's part filled in."""
    return replace(
        result,
        exact=(part.first, part.second),
        latex=part.latex,
        exact_stopped=part.stopped,
    )


def _close(a: float, b: float) -> bool:
    return math.isfinite(a) and math.isfinite(b) and abs(a - b) <= AGREE * (1 + abs(b))


def _slip(spec: CustomSpec, first: Sequence[float], truth: Sequence[float]) -> tuple:
    """Which slip, and where the first derivative is wrong (points where f′ is finite)."""
    pairs = [(a, b) for a, b in zip(first, truth, strict=True) if math.isfinite(b)]
    wrong = [
        i
        for i, (a, b) in enumerate(zip(first, truth, strict=True))
        if math.isfinite(b) and not _close(a, b)
    ]
    if not spec.uses_g and any(b != 0 for _, b in pairs):
        return IGNORES_G, wrong
    if not wrong:
        return None, wrong
    y_only = used_names(spec.backward.tree) & {"x", "y"} == {"y"}
    if y_only and all(_close(abs(a), abs(b)) for a, b in pairs):
        return SIGN_OF_Y, wrong
    return WRONG, wrong


def lab(f_text: str, backward_text: str, xs: Sequence[float], variant: str = "written") -> Lab:
    """Run the custom Function and nested autograd's oracle on ``xs`` (sympy's part is added
    by :func:`with_exact`).

    Raises:
        ExpressionError, ArgumentError, BudgetError: as
            :func:`~hograd_core.custom_function.run_custom`.
    """
    spec = custom_spec(f_text, backward_text)
    run = run_custom(spec, xs, variant)
    own = derivatives(spec.f, run.points, 2).values
    slip, wrong = _slip(spec, run.first, own[1].tolist())
    nan = (math.nan,) * len(run.points)
    return Lab(
        run=run,
        autograd=(tuple(own[1].tolist()), tuple(own[2].tolist())),
        exact=(nan, nan),
        latex=(None, None, None, None),
        slip=slip,
        wrong_at=tuple(run.points[i] for i in wrong),
        uses=tuple(n for n in ("x", "y", "g") if n in used_names(spec.backward.tree)),
    )


def graph_at(f_text: str, backward_text: str, x0: float, variant: str = "written") -> TensorGraph:
    """The real graph at ``x0``: the forward (y = MyFunc.apply(x)), the first backward pass
    (``grad(y, x, v, create_graph=True)``) and the second (``grad(dy/dx, x, create_graph=True)``),
    each node coloured by the pass that recorded it; where the second pass cannot be taken
    (``@once_differentiable``), its node is marked as where PyTorch raises.

    Raises:
        ArgumentError: ``x0`` not a finite number within the budget.
    """
    if not (math.isfinite(x0) and abs(x0) <= BUDGET.max_abs_x):
        raise ArgumentError("budget.not_finite", what="x₀", got=f"{x0:g}")
    spec = custom_spec(f_text, backward_text)
    func = make_function(spec, variant)
    x = torch.tensor(x0, dtype=torch.float64, requires_grad=True)
    y = func.apply(x)
    v = torch.ones_like(x, requires_grad=True)
    (d1,) = torch.autograd.grad(y, x, v, create_graph=True)
    roots = [(0, "y", y, float(y.detach())), (1, "dy/dx", d1, float(d1.detach()))]
    raised = None
    if type(d1.grad_fn).__name__ == "Error":  # once_differentiable's node: it raises when run
        raised = d1.grad_fn
    elif d1.requires_grad:
        (d2,) = torch.autograd.grad(d1, x, torch.ones_like(x), create_graph=True, allow_unused=True)
        roots.append((2, "d²y/dx²", d2, None if d2 is None else float(d2.detach())))
    graph = trace_tensors(roots, [("x", x), ("v", v)], raised)
    # MyFuncBackward's saved_tensors[i] is the i-th name the forward saved: shown by its name
    owners = {n.name for n in graph.nodes if n.kind == "op" and n.label == "MyFuncBackward"}
    label = {f"{o}.saved_tensors[{i}]": name for o in owners for i, name in enumerate(spec.saved)}
    # once_differentiable hangs its Error node on a detached copy of the backward's result
    # that requires grad: a leaf with no name, drawn as that copy (not as x)
    label["leaf"] = "dy/dx.detach()"
    nodes = tuple(replace(n, label=label[n.name]) if n.name in label else n for n in graph.nodes)
    return replace(graph, nodes=nodes)


# ---- the script: the same Function, written out -----------------------------------------------

_HEAD = '''"""A custom torch.autograd.Function from hograd: f(x) = {f_text}, backward {b_text}.

Variant: {variant}. Run it: python {file}
"""

import torch
{once_import}

def f(x):
    return {f_source}


def df(x, y, g):  # the backward formula, of the input x, the output y and the gradient g
    return {b_source}
'''

_FORWARD = """    @staticmethod
    def forward(ctx, x):
        y = f(x)
        ctx.save_for_backward({saved})  # what df uses
        return y
"""

_CLASSES = {
    "written": """

class MyFunc(torch.autograd.Function):
{forward}
    @staticmethod
    def backward(ctx, g):
        {unpack}
        return df({args}, g)
""",
    "detached": """

class MyFunc(torch.autograd.Function):
{forward}
    @staticmethod
    def backward(ctx, g):
        {unpack}
        {detach}
        return df({args}, g)  # nothing here leads back to x: the 2nd derivative is lost
""",
    "once": """

class MyFunc(torch.autograd.Function):
{forward}
    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        {unpack}
        return df({args}, g)
""",
    "second_function": '''

class MyFuncGrad(torch.autograd.Function):
    """The backward as a Function of its own: its backward is f's double backward."""

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
        return torch.autograd.grad(out, leaves, gg, allow_unused=True, materialize_grads=True)


class MyFunc(torch.autograd.Function):
{forward}
    @staticmethod
    def backward(ctx, g):
        {unpack}
        return MyFuncGrad.apply({grad_args}, g)
''',
}

_RUN = """

xs = {xs}
x = torch.tensor(xs, dtype=torch.float64, requires_grad=True)
y = MyFunc.apply(x)
v = torch.ones_like(x, requires_grad=True)  # the incoming gradient, as gradgradcheck passes it
(d1,) = torch.autograd.grad(y, x, v, create_graph=True)  # v·f′(x), with the backward recorded
print("saved:", {saved_names})
print("first:", d1.tolist())
try:
    d1.backward(torch.ones_like(d1))  # the second backward pass
    print("second:", [0.0] * len(xs) if x.grad is None else x.grad.tolist())
except RuntimeError as err:
    print("the second backward raised:", err)

checked = torch.tensor({first_points}, dtype=torch.float64, requires_grad=True)
if checked.numel():
    print("gradcheck:", torch.autograd.gradcheck(MyFunc.apply, (checked,), raise_exception=False))
checked = torch.tensor({second_points}, dtype=torch.float64, requires_grad=True)
if checked.numel():
    v = torch.ones_like(checked, requires_grad=True)
    print("gradgradcheck:", torch.autograd.gradgradcheck(
        MyFunc.apply, (checked,), (v,), raise_exception=False))
"""


def _source(tree_fn: object, shaped: str) -> str:
    """The formula as PyTorch source; a formula of no variable is broadcast to the input's
    shape, as the kernel does."""
    text = torch_source(tree_fn)
    return text if used_names(tree_fn.tree) else f"{text}.expand_as({shaped})"


def script(f_text: str, backward_text: str, run: CustomRun, file: str = "my_function.py") -> str:
    """The runnable script of the Function ``run`` came from: f and df written by the language's
    source generator, the class for the variant, the same derivatives and checks.

    Raises:
        ExpressionError: as :func:`~hograd_core.custom_function.custom_spec`.
    """
    spec = custom_spec(f_text, backward_text)
    saved = spec.saved
    args = ", ".join(n if n in saved else "None" for n in ("x", "y"))
    grad_args = ", ".join(n if n in saved else "torch.zeros_like(g)" for n in ("x", "y"))
    unpack = f"{', '.join(saved)}, = ctx.saved_tensors" if saved else "# nothing was saved"
    detach = (
        f"{', '.join(saved)}, = {', '.join(f'{n}.detach()' for n in saved)},"
        if saved
        else "# nothing to detach"
    )
    forward = _FORWARD.format(saved=", ".join(saved))
    head = _HEAD.format(
        f_text=f_text,
        b_text=backward_text,
        variant=run.variant,
        file=file,
        f_source=_source(spec.f, "x"),
        b_source=_source(spec.backward, "g"),
        once_import=""
        if run.variant in ("written", "detached")
        else "from torch.autograd.function import once_differentiable\n",
    )
    body = _CLASSES[run.variant].format(
        forward=forward, unpack=unpack, args=args, detach=detach, grad_args=grad_args
    )
    tail = _RUN.format(
        xs=list(run.points),
        saved_names=list(saved),
        first_points=list(run.gradcheck.points),
        second_points=list(run.gradgradcheck.points),
    )
    return head + body + tail


# ---- a gradient penalty, with the gradient most code passes ------------------------------------


@dataclass(frozen=True)
class Penalty:
    """A gradient penalty through the Function, with the incoming gradient most code passes.

    ``dy = grad(y.sum(), x, create_graph=True)`` calls the backward with g = ones, a tensor
    that does not require grad (the page's run passes a ``v`` that does, as gradgradcheck
    does). Then ``loss = y.sum() + (dy**2).sum()`` and ``loss.backward()``.

    Attributes:
        points: the grid.
        through: ``x.grad`` after ``loss.backward()``, through the Function.
        truth: the same gradient from f's own derivatives by nested autograd, f′ + 2 f′ f″.
        first_only: f′, what is left of the gradient when the penalty's term is lost.
        requires_grad: whether ``dy`` requires grad with this g.
        backward_error: PyTorch's message when ``dy.sum().backward()`` raised, else None.
        grad_error: with the page's ``v`` (requires grad), PyTorch's message when
            ``torch.autograd.grad(dy.sum(), x)`` raised, else None.
    """

    points: tuple[float, ...]
    through: tuple[float, ...]
    truth: tuple[float, ...]
    first_only: tuple[float, ...]
    requires_grad: bool
    backward_error: str | None
    grad_error: str | None

    @property
    def verdict(self) -> str:
        """ "kept" (the true gradient wherever it is finite), "lost" (f′ alone where the
        penalty's term 2 f′ f″ is not 0, the true gradient elsewhere) or "differs"."""
        rows = [
            (a, b, c)
            for a, b, c in zip(self.through, self.truth, self.first_only, strict=True)
            if math.isfinite(b)
        ]
        if all(_close(a, b) for a, b, _ in rows):
            return "kept"
        if all(_close(a, c) for a, _, c in rows):
            return "lost"
        return "differs"


def _message(run: object) -> str | None:
    try:
        run()
    except RuntimeError as err:
        return str(err)
    return None


def penalty(
    f_text: str, backward_text: str, xs: Sequence[float], variant: str = "written"
) -> Penalty:
    """The gradient penalty ``y.sum() + (dy**2).sum()`` through the Function on ``xs``, with
    ``dy = grad(y.sum(), x, create_graph=True)``, beside its true gradient.

    Raises:
        ExpressionError: as :func:`~hograd_core.custom_function.custom_spec`.
        ArgumentError, BudgetError: no point, more than ``MAX_POINTS`` points, or a point
            that is not a finite number within the budget.
    """
    grid = [float(p) for p in xs]
    if not 1 <= len(grid) <= MAX_POINTS:
        cls = BudgetError if len(grid) > MAX_POINTS else ArgumentError
        raise cls("budget.custom_points", limit=MAX_POINTS, got=len(grid))
    bad = [p for p in grid if not (math.isfinite(p) and abs(p) <= BUDGET.max_abs_x)]
    if bad:
        raise ArgumentError("budget.not_finite", what="x", got=", ".join(f"{p:g}" for p in bad))
    spec = custom_spec(f_text, backward_text)
    func = make_function(spec, variant)

    def leaf() -> torch.Tensor:
        return torch.tensor(grid, dtype=torch.float64, requires_grad=True)

    x = leaf()
    y = func.apply(x)
    (dy,) = torch.autograd.grad(y.sum(), x, create_graph=True)  # g = ones: no grad required
    requires_grad = dy.requires_grad
    (y.sum() + (dy**2).sum()).backward()
    through = x.grad.tolist()

    x = leaf()
    y = func.apply(x)
    (dy,) = torch.autograd.grad(y.sum(), x, create_graph=True)
    backward_error = _message(lambda: dy.sum().backward())

    x = leaf()
    y = func.apply(x)
    v = torch.ones_like(x, requires_grad=True)  # the page's incoming gradient
    (dv,) = torch.autograd.grad(y, x, v, create_graph=True)
    grad_error = _message(lambda: torch.autograd.grad(dv.sum(), x))

    own = derivatives(spec.f, grid, 2).values  # f, f′, f″ by nested autograd on f itself
    first, second = own[1], own[2]
    return Penalty(
        points=tuple(grid),
        through=tuple(through),
        truth=tuple((first + 2 * first * second).tolist()),
        first_only=tuple(first.tolist()),
        requires_grad=requires_grad,
        backward_error=backward_error,
        grad_error=grad_error,
    )
