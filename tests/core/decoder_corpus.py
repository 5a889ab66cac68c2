"""Real PyTorch mistakes, each a small function that raises or warns when run, and the decoder
entry its message should find (None: a message the decoder must say it cannot place).

The messages are made at test time by the installed torch (:func:`message`), never pasted: a
future PyTorch that rewords one shows up as a changed count, not as a stale copy. Several
mistakes of one kind differ in the function name, shape or index on purpose, so the decoder is
measured on structure, not on one literal text.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import torch
from torch.utils.checkpoint import checkpoint

D = torch.float64


def _x(value: object = 2.0) -> torch.Tensor:
    return torch.tensor(value, dtype=D, requires_grad=True)


# ---- a graph that is gone or never was --------------------------------------------------------


def second_grad_without_create_graph() -> None:
    x = _x()
    dy = torch.autograd.grad(x**3, x)[0]
    torch.autograd.grad(dy, x)


def second_grad_of_a_linear_function() -> None:
    x = _x([1.0, 2.0])
    dy = torch.autograd.grad((3 * x).sum(), x, create_graph=True)[0]
    torch.autograd.grad(dy.sum(), x)


def backward_under_no_grad() -> None:
    x = _x()
    with torch.no_grad():
        y = torch.sin(x)
    y.backward()


def backward_twice() -> None:
    x = _x([0.5, 1.5])
    y = (torch.exp(x) * x).sum()
    y.backward()
    y.backward()


def grad_twice_of_tanh() -> None:
    x = _x()
    y = torch.tanh(x)
    torch.autograd.grad(y, x)
    torch.autograd.grad(y, x)


def create_graph_without_retain() -> None:
    x = _x()
    y = x**3
    torch.autograd.grad(y, x, create_graph=True, retain_graph=False)
    torch.autograd.grad(y, x)


# ---- inputs: unused, not requiring grad, None -------------------------------------------------


def unused_input() -> None:
    x, z = _x(), _x(1.0)
    torch.autograd.grad(x**2, (x, z))


def once_differentiable_by_grad() -> None:
    """torch.autograd.grad never runs the once_differentiable node: the input looks unused."""

    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        @torch.autograd.function.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * x**2 * g

    x = _x([1.0, 2.0])
    v = torch.ones(2, dtype=D, requires_grad=True)
    dy = torch.autograd.grad(Cube.apply(x), x, v, create_graph=True)[0]
    torch.autograd.grad(dy.sum(), x)


def input_does_not_require_grad() -> None:
    x = _x()
    w = torch.tensor(3.0, dtype=D)
    torch.autograd.grad(x * w, (x, w))


def none_times_int_after_allow_unused() -> None:
    x, z = _x(), _x(1.0)
    _, dz = torch.autograd.grad(x**2, (x, z), allow_unused=True)
    dz * 2


def nonleaf_grad_times_two() -> None:
    x = _x()
    y = x * 3
    z = y**2
    z.backward()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the non-leaf warning: a mistake of its own below
        y.grad * 2


def grad_before_backward_plus_tensor() -> None:
    x = _x([1.0, 2.0])
    x.grad + torch.ones(2)


def nonleaf_grad_warning() -> None:
    x = _x()
    y = torch.sin(x)
    y.backward()
    _ = y.grad


def grad_of_none_zero() -> None:
    x = _x()
    x.grad.zero_()


# ---- create_graph with .backward() ----------------------------------------------------------


def backward_create_graph_once() -> None:
    x = _x()
    (x**3).backward(create_graph=True)


# ---- in place -------------------------------------------------------------------------------


def inplace_after_sin() -> None:
    x = _x(0.5)
    a = torch.sin(x)
    y = a**2
    a.mul_(2)
    y.backward()


def inplace_after_exp_matrix() -> None:
    x = _x([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]])
    y = torch.exp(x)
    z = y.sum()
    y.add_(1)
    z.backward()


def inplace_on_a_leaf() -> None:
    x = _x([1.0, 2.0])
    x.add_(1)


def inplace_on_a_leaf_by_index() -> None:
    x = _x([1.0, 2.0, 3.0])
    x[0] = 5.0


# ---- NaN under anomaly detection ------------------------------------------------------------


def _anomaly(f: Callable[[torch.Tensor], torch.Tensor], at: object) -> None:
    x = _x(at)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Anomaly Detection has been enabled", "Error detected"
        with torch.autograd.detect_anomaly():
            torch.autograd.grad(f(x).sum(), x)


def nan_sqrt_of_square_at_zero() -> None:
    _anomaly(lambda x: torch.sqrt(x**2), 0.0)


def nan_x_over_x_at_zero() -> None:
    _anomaly(lambda x: x / x, 0.0)


def nan_sqrt_where_at_zero() -> None:
    _anomaly(lambda x: torch.where(x > 0, torch.sqrt(x), 0.0), [0.0, 1.0])


def nan_log_where_at_zero() -> None:
    _anomaly(lambda x: torch.where(x > 0, torch.log(x), 0.0), 0.0)


def nan_zero_over_zero_numerator() -> None:
    _anomaly(lambda x: torch.where(x > 0, 1 / x, 0.0), [0.0, 2.0])


def nan_sinc_where_at_zero() -> None:
    _anomaly(lambda x: torch.where(x != 0, torch.sin(x) / x, 1.0), [0.0, 1.0])


def nan_sqrt_of_a_negative() -> None:
    _anomaly(torch.sqrt, [-1.0, 4.0])


def nan_acos_at_one() -> None:
    _anomaly(lambda x: torch.where(x < 1, torch.acos(x), 0.0), 1.0)


# ---- custom Functions ------------------------------------------------------------------------


def _function(backward: Callable) -> type[torch.autograd.Function]:
    class MyFunc(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, w):
            ctx.save_for_backward(x, w)
            return x * w

        @staticmethod
        def backward(ctx, g):
            return backward(ctx, g)

    return MyFunc


def custom_too_few_gradients() -> None:
    f = _function(lambda ctx, g: (g * ctx.saved_tensors[1],))
    f.apply(_x([1.0, 2.0]), _x([3.0, 4.0])).sum().backward()


def custom_too_many_gradients() -> None:
    f = _function(lambda ctx, g: (g, g, g))
    f.apply(_x([1.0, 2.0]), _x([3.0, 4.0])).sum().backward()


def custom_gradient_of_a_wrong_shape() -> None:
    f = _function(lambda ctx, g: (torch.ones(5, dtype=D), g))
    f.apply(_x([1.0, 2.0]), _x([3.0, 4.0])).sum().backward()


def custom_gradient_of_a_wrong_shape_second_input() -> None:
    f = _function(lambda ctx, g: (g, torch.ones(3, 2, dtype=D)))
    f.apply(_x([[1.0], [2.0]]), _x([[3.0], [4.0]])).sum().backward()


def once_differentiable_backward_twice() -> None:
    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**2

        @staticmethod
        @torch.autograd.function.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = _x([1.0, 2.0])
    v = torch.ones(2, dtype=D, requires_grad=True)
    dy = torch.autograd.grad(Square.apply(x), x, v, create_graph=True)[0]
    dy.sum().backward()


def once_differentiable_usual_g() -> None:
    """With the usual incoming gradient the first derivative has no graph at all."""
    x = _x([1.0, 2.0])
    dy = torch.autograd.grad(_cube_once().apply(x).sum(), x, create_graph=True)[0]
    torch.autograd.grad(dy.sum(), x)


def _cube_once() -> type[torch.autograd.Function]:
    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        @torch.autograd.function.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * x**2 * g

    return Cube


def gradcheck_of_a_wrong_backward() -> None:
    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g  # the derivative of x**2, not of x**3

    torch.autograd.gradcheck(Cube.apply, (_x([0.5, 1.5]),))


def gradgradcheck_of_once_differentiable() -> None:
    torch.autograd.gradgradcheck(_cube_once().apply, (_x([0.5, 1.5]),))


# ---- shapes, dtypes, checkpoint, torch.func, numpy -----------------------------------------


def nonscalar_backward() -> None:
    x = _x([1.0, 2.0, 3.0])
    (x**2).backward()


def nonscalar_grad() -> None:
    x = _x([[1.0, 2.0], [3.0, 4.0]])
    torch.autograd.grad(torch.tanh(x), x)


def grad_outputs_of_a_wrong_shape() -> None:
    x = _x([1.0, 2.0])
    torch.autograd.grad(x**2, x, torch.ones(3, dtype=D))


def integer_requires_grad() -> None:
    torch.tensor([1, 2], requires_grad=True)


def reentrant_checkpoint_with_grad() -> None:
    x = _x([1.0, 2.0])
    y = checkpoint(torch.sin, x, use_reentrant=True)
    torch.autograd.grad(y.sum(), x)


def func_grad_of_a_vector() -> None:
    torch.func.grad(torch.sin)(torch.tensor([1.0, 2.0], dtype=D))


def func_grad_of_a_matrix() -> None:
    torch.func.grad(lambda x: x**2)(torch.ones(2, 3, dtype=D))


def numpy_of_a_tensor_that_requires_grad() -> None:
    x = _x([1.0, 2.0])
    (x * 2).numpy()


def vmap_item() -> None:
    torch.func.vmap(lambda x: x * x.item())(torch.ones(3, dtype=D))


def vmap_grad_item() -> None:
    f = torch.func.grad(lambda x: (x**2).sum() * x.sum().item())
    torch.func.vmap(f)(torch.ones(4, 2, dtype=D))


# ---- not about autograd: the decoder must say it cannot place them --------------------------


def matmul_shapes() -> None:
    torch.ones(2, 3) @ torch.ones(2, 3)


def index_out_of_range() -> None:
    torch.ones(3)[5]


def dtype_mismatch_in_matmul() -> None:
    torch.ones(2, 2, dtype=torch.float64) @ torch.ones(2, 2, dtype=torch.float32)


def anomaly_note_alone() -> str:
    """The warning detect_anomaly gives with any error: alone it names no cause."""
    return "UserWarning: Error detected in AddmmBackward0."


#: Each mistake and the decoder entry its message must find (None: it must say "unknown").
CORPUS: dict[Callable[[], object], str | None] = {
    second_grad_without_create_graph: "no_grad_fn",
    second_grad_of_a_linear_function: "no_grad_fn",
    backward_under_no_grad: "no_grad_fn",
    backward_twice: "freed_graph",
    grad_twice_of_tanh: "freed_graph",
    create_graph_without_retain: "freed_graph",
    unused_input: "unused_input",
    once_differentiable_by_grad: "unused_input",
    input_does_not_require_grad: "input_no_grad",
    none_times_int_after_allow_unused: "none_gradient",
    nonleaf_grad_times_two: "none_gradient",
    grad_before_backward_plus_tensor: "none_gradient",
    grad_of_none_zero: "none_gradient",
    nonleaf_grad_warning: "nonleaf_grad",
    backward_create_graph_once: "reference_cycle",
    inplace_after_sin: "inplace",
    inplace_after_exp_matrix: "inplace",
    inplace_on_a_leaf: "leaf_inplace",
    inplace_on_a_leaf_by_index: "leaf_inplace",
    nan_sqrt_of_square_at_zero: "nan_pow",
    nan_x_over_x_at_zero: "nan_div",
    nan_sqrt_where_at_zero: "nan_sqrt",
    nan_log_where_at_zero: "nan_log",
    nan_zero_over_zero_numerator: "nan_div",
    nan_sinc_where_at_zero: "nan_div",
    nan_sqrt_of_a_negative: "nan_sqrt",
    nan_acos_at_one: "nan_other",
    custom_too_few_gradients: "custom_count",
    custom_too_many_gradients: "custom_count",
    custom_gradient_of_a_wrong_shape: "custom_shape",
    custom_gradient_of_a_wrong_shape_second_input: "custom_shape",
    once_differentiable_backward_twice: "once_differentiable",
    once_differentiable_usual_g: "no_grad_fn",
    gradcheck_of_a_wrong_backward: "jacobian_mismatch",
    gradgradcheck_of_once_differentiable: "jacobian_mismatch",
    nonscalar_backward: "nonscalar_output",
    nonscalar_grad: "nonscalar_output",
    grad_outputs_of_a_wrong_shape: "grad_outputs_shape",
    integer_requires_grad: "integer_requires_grad",
    reentrant_checkpoint_with_grad: "checkpoint_reentrant",
    func_grad_of_a_vector: "func_grad_nonscalar",
    func_grad_of_a_matrix: "func_grad_nonscalar",
    numpy_of_a_tensor_that_requires_grad: "numpy_requires_grad",
    vmap_item: "vmap_item",
    vmap_grad_item: "vmap_item",
    matmul_shapes: None,
    index_out_of_range: None,
    dtype_mismatch_in_matmul: None,
    anomaly_note_alone: None,
}


def message(mistake: Callable[[], object]) -> str:
    """What running ``mistake`` prints as its error, "Type: message" (the last raised), or its
    first warning when it raises nothing; a mistake that returns text gives that text."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = mistake()
        except Exception as err:  # any error is the message under test
            return f"{type(err).__name__}: {err}"
    if isinstance(out, str):
        return out
    if caught:
        return f"{caught[0].category.__name__}: {caught[0].message}"
    raise AssertionError(f"{mistake.__name__} neither raised nor warned")
