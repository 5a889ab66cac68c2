"""What a program may name: the allow-lists of the program runner (:mod:`.interpret`).

Everything a program reaches goes through one of these tables: a dotted name of torch or math
(:data:`NAMES`), an attribute of a value of an allowed type (:data:`ATTRIBUTES`,
:data:`METHODS`), a builtin (:data:`BUILTINS`), a keyword argument (:data:`KEYWORDS`). A name
in none of them is refused before anything runs when the program spells it out (``torch.load``,
``open``, ``import os``), or when it is reached (an attribute of a value). The tables hold
names, not objects: the objects are looked up in torch when a program first needs them.
"""

from __future__ import annotations

__all__ = [
    "ATTRIBUTES",
    "BUILTINS",
    "CREATORS",
    "DIFFERENTIATORS",
    "KEYWORDS",
    "METHODS",
    "MODULES",
    "NAMES",
    "REFUSED_NAMES",
    "SETTABLE",
]

#: Modules a program may import (``import torch.nn as nn`` binds ``torch.nn``).
MODULES = frozenset(
    {
        "torch",
        "math",
        "torch.nn",
        "torch.nn.functional",
        "torch.autograd",
        "torch.autograd.functional",
        "torch.func",
        "torch.linalg",
        "torch.optim",
    }
)

_TORCH = """
tensor ones zeros ones_like zeros_like full full_like linspace arange eye manual_seed rand randn
rand_like randn_like sin cos tan asin acos atan sinh cosh exp expm1 log log1p log2 log10 tanh
sigmoid relu pow sqrt rsqrt abs sum mean prod dot matmul mm mv outer norm isnan isinf isfinite
any all allclose isclose equal max min maximum minimum clamp where stack cat square sign erf
floor ceil round argmax argmin softmax log_softmax cumsum diag trace neg reciprocal exp2 var
std logsumexp numel is_tensor no_grad enable_grad set_grad_enabled inference_mode atan2 hypot
sinc softplus Size einsum is_grad_enabled
pi e inf nan float16 float32 float64 float double int32 int64 long bool
"""
_AUTOGRAD = "grad backward"
_FUNCTIONAL = "hessian hvp vhp jacobian jvp vjp"
_FUNC = "grad grad_and_value hessian jvp vjp jacrev jacfwd vmap functional_call"
_NN = """
Linear Tanh ReLU Sigmoid Softplus SiLU GELU Sequential MSELoss Parameter Identity LeakyReLU ELU
L1Loss
"""
_F = """
mse_loss l1_loss relu tanh sigmoid softplus silu gelu linear softmax log_softmax
cross_entropy binary_cross_entropy smooth_l1_loss leaky_relu elu logsigmoid huber_loss normalize
cosine_similarity
"""
_LINALG = "norm vector_norm matrix_norm det inv solve eigvalsh eigh"
_OPTIM = "SGD Adam"
_MATH = "pi e inf nan tau sin cos tan exp log log2 log10 sqrt tanh fabs isnan isinf isclose floor ceil atan atan2 hypot"


#: torch's functions above that a tensor also has as a method, with the same meaning
_TENSOR_METHODS = """
    sin cos tan asin acos atan sinh cosh exp expm1 log log1p log2 log10 tanh sigmoid relu pow
    sqrt rsqrt abs sum mean prod dot matmul mm mv outer norm isnan isinf isfinite any all
    allclose isclose equal max min maximum minimum clamp where square sign erf floor ceil round
    argmax argmin softmax log_softmax cumsum diag trace neg reciprocal exp2 var std logsumexp
    numel atan2 hypot sinc float double long bool
"""


def _names(prefix: str, words: str) -> set[str]:
    return {f"{prefix}.{w}" for w in words.split()}


#: Every dotted name a program may use, modules included.
NAMES = frozenset(
    MODULES
    | _names("torch", _TORCH)
    | _names("torch.autograd", _AUTOGRAD)
    | _names("torch.autograd.functional", _FUNCTIONAL)
    | _names("torch.func", _FUNC)
    | _names("torch.nn", _NN)
    | _names("torch.nn.functional", _F)
    | _names("torch.linalg", _LINALG)
    | _names("torch.optim", _OPTIM)
    | _names("math", _MATH)
    | {"torch.__version__"}  # the first line of many notebooks: print(torch.__version__)
)

#: Calls that make a new tensor from sizes: their size is checked before torch is called.
CREATORS = frozenset(
    _names("torch", "ones zeros full linspace arange eye rand randn") | _names("torch.nn", "Linear")
)

#: Calls that differentiate: the graph behind their outputs is measured before they run, and
#: what they return belongs to the next backward pass (its colour in the drawing).
DIFFERENTIATORS = frozenset(
    _names("torch.autograd", _AUTOGRAD)
    | _names("torch.autograd.functional", _FUNCTIONAL)
    | _names("torch.func", "grad grad_and_value hessian jvp vjp jacrev jacfwd")
)

#: Data attributes readable on a value, by the value's kind (see ``interpret._kind``).
ATTRIBUTES = {
    "tensor": frozenset(
        [
            "grad",
            "requires_grad",
            "grad_fn",
            "shape",
            "dtype",
            "is_leaf",
            "ndim",
            "T",
            "data",
            "device",
        ]
    ),
    "node": frozenset({"next_functions", "variable"}),
    "module": frozenset({"weight", "bias", "training"}),
    "minmax": frozenset({"values", "indices"}),
}

#: Methods callable on a value, by the value's kind.
METHODS = {
    "tensor": frozenset(
        [
            "sin",
            "cos",
            "tan",
            "exp",
            "log",
            "log1p",
            "expm1",
            "tanh",
            "sigmoid",
            "relu",
            "pow",
            "sqrt",
            "abs",
            "sum",
            "mean",
            "prod",
            "dot",
            "matmul",
            "mm",
            "mv",
            "norm",
            "isnan",
            "isinf",
            "any",
            "all",
            "item",
            "detach",
            "clone",
            "requires_grad_",
            "zero_",
            "backward",
            "tolist",
            "numel",
            "size",
            "dim",
            "view",
            "reshape",
            "unsqueeze",
            "squeeze",
            "t",
            "flatten",
            "add",
            "sub",
            "mul",
            "div",
            "neg",
            "square",
            "add_",
            "sub_",
            "mul_",
            "div_",
            "copy_",
            "fill_",
            "max",
            "min",
            "argmax",
            "argmin",
            "clamp",
            "exp_",
            "sin_",
            "double",
            "float",
            "retain_grad",
            "softmax",
            "log_softmax",
            "cumsum",
            "sign",
            "floor",
            "ceil",
            "round",
            "reciprocal",
            "var",
            "std",
            "expand",
            "transpose",
            "permute",
            "allclose",
            "equal",
            "isfinite",
            "outer",
            "long",
            "int",
            "bool",
            "flip",
            "type_as",
            "register_hook",
            "to",
            "cpu",
            "contiguous",
        ]
    )
    # a torch function of the list above is also a tensor's method (``x.diag()``)
    | {w for w in _TORCH.split() if w in _TENSOR_METHODS.split()},
    "node": frozenset({"name"}),
    "module": frozenset(
        {
            "parameters",
            "named_parameters",
            "zero_grad",
            "forward",
            "train",
            "eval",
            "requires_grad_",
        }
    ),
    "optimizer": frozenset({"step", "zero_grad"}),
    "handle": frozenset({"remove"}),  # what register_hook returns
    "list": frozenset({"append", "extend", "insert", "pop", "index", "count"}),
    "dict": frozenset({"items", "keys", "values", "get", "update", "pop"}),
    "str": frozenset(
        {"join", "upper", "lower", "strip", "split", "startswith", "endswith", "title", "format"}
    ),
}

#: Tensor attributes a program may assign (``x.grad = None``, ``w.requires_grad = True``).
SETTABLE = frozenset({"grad", "requires_grad", "data"})

#: Python's builtins a program may call.
BUILTINS = frozenset(
    [
        "print",
        "range",
        "len",
        "abs",
        "min",
        "max",
        "sum",
        "float",
        "int",
        "bool",
        "str",
        "round",
        "list",
        "tuple",
        "enumerate",
        "zip",
        "dict",
        "repr",
        "any",
        "all",
        "sorted",
        "reversed",
        "pow",
        "divmod",
        "map",
        "filter",
    ]
)

#: Builtins refused by name wherever they appear (the escapes of a Python sandbox).
REFUSED_NAMES = frozenset(
    [
        "eval",
        "exec",
        "compile",
        "open",
        "getattr",
        "setattr",
        "delattr",
        "hasattr",
        "vars",
        "dir",
        "globals",
        "locals",
        "type",
        "object",
        "input",
        "breakpoint",
        "help",
        "exit",
        "quit",
        "memoryview",
        "bytearray",
        "bytes",
        "super",
        "classmethod",
        "staticmethod",
        "property",
        "id",
        "iter",
        "next",
        "format",
        "frozenset",
        "callable",
        "issubclass",
        "hash",
        "chr",
        "ord",
    ]
)

#: Keyword arguments any allowed call may take.
KEYWORDS = frozenset(
    [
        "lr",
        "momentum",
        "betas",
        "weight_decay",
        "ord",
        "set_to_none",
        "requires_grad",
        "dtype",
        "dim",
        "keepdim",
        "outputs",
        "inputs",
        "grad_outputs",
        "retain_graph",
        "create_graph",
        "allow_unused",
        "materialize_grads",
        "gradient",
        "v",
        "argnums",
        "has_aux",
        "vectorize",
        "strict",
        "in_features",
        "out_features",
        "bias",
        "p",
        "exponent",
        "reduction",
        "beta",
        "threshold",
        "alpha",
        "other",
        "steps",
        "start",
        "end",
        "step",
        "sep",
        "flush",
        "inplace",
        "min",
        "max",
        "input",
        "target",
        "weight",
        "size",
        "fill_value",
        "n",
        "m",
        "mode",
        "dims",
        "diagonal",
        "approximate",
        "keepdims",
        "correction",
        "unbiased",
        "is_grads_batched",
        "only_inputs",
        "retain_variables",
        "in_dims",
        "out_dims",
        "chunk_size",
        "randomness",
        "tangents",
        "primals",
        "func",
        "atol",
        "rtol",
        "equal_nan",
        "rel_tol",
        "abs_tol",
        "key",
        "reverse",
        "ndigits",
        "default",
        "decimals",
        "axis",
        "strategy",
        "outer_jacobian_strategy",
        "seed",
        "negative_slope",
        "delta",
        "eps",
    ]
)
