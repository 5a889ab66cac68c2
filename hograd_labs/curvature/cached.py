"""The curvature lab's cached calls: the settings checked before any work, the studies run once
per setting, and the download, which is :mod:`.compute`'s own source with the typed function
written as ``f`` in PyTorch and the page's settings on the lines its ``__main__`` reads them
from."""

from __future__ import annotations

import inspect
from dataclasses import dataclass

import streamlit as st
import torch

from hograd_core.applications.common import Code, check, check_work, marked_code
from hograd_core.diagonal import DIAGONAL_BUDGET
from hograd_core.errors import ArgumentError
from hograd_core.hvp_graph import numbers
from hograd_core.language import Function, parse
from hograd_core.language.to_source import python_name, torch_source
from hograd_serving.cached import Caption, with_bar

from . import compute
from .compute import (
    DiagonalConfig,
    DiagonalStudy,
    MomentumConfig,
    MomentumRun,
    NetworkCurvatureConfig,
    Spectra,
)

__all__ = [
    "CURVATURE_BUDGET",
    "check_diagonal",
    "check_momentum",
    "check_spectra",
    "curvature_momentum",
    "curvature_network",
    "curvature_spectra",
    "curvature_typed",
    "products",
    "read_point",
    "script",
    "torch_function",
]


@dataclass(frozen=True)
class CurvatureBudget:
    max_probes: int = DIAGONAL_BUDGET.max_probes  # one Hessian-vector product each
    max_repeats: int = 50
    max_samples: int = 20_000  # probes x repeats of the typed function (n <= 10: microseconds)
    # probes x repeats x parameters of the network, whose product averages over 400 points:
    # 200 x 20 x 82 (the default, 16 hidden) took 0.3 s here; the limit about 2 s
    max_network_work: float = 2e6
    hidden: tuple[int, ...] = (4, 8, 16, 32)
    max_train_steps: int = 500
    max_kappa: float = 1000.0
    max_lr: float = 3.0
    max_beta: float = 0.99
    max_steps: int = 1_000
    # Gauss-Newton, Hessian-free and SLQ on the network: products (G v or H v, each averaging
    # over 400 points) counted before the work: 2n for G and H whole, starts x steps for SLQ,
    # hf_iterations x (cg_iterations + 2) per Hessian-free run. The defaults take 1,124 (on
    # 82 parameters: about 4 s on this busy 2-core host); the limit is 2,500 products of the
    # widest network (162 parameters), counted as products x parameters / 162.
    max_spectra_work: float = 2_500 * 162
    max_hf_iterations: int = 30
    max_cg_iterations: int = 50
    max_lanczos_steps: int = 80
    max_starts: int = 30


CURVATURE_BUDGET = CurvatureBudget()

# The lines of compute.py that the download fills in (each must occur once): the typed
# function's variables and body, and the three settings of its ``__main__``.
_NAMES = 'NAMES = ("x", "y", "z")  # its variables, in the order of w\n'
_F_BODY = inspect.getsource(compute.f).split("\n", 1)[1]  # f's body, below its def line
# The line of ``__main__`` that the second form (every product by torch.autograd) changes.
_FORM = "    autograd = False  # or True: the same products by torch.autograd.grad (create_graph=True)\n"
_AUTOGRAD = "    autograd = True  # every product by torch.autograd.grad on a graph kept (create_graph=True)\n"
_DIAGONAL, _MOMENTUM, _NETWORK = (
    "    diagonal = DiagonalConfig()\n",
    "    momentum_config = MomentumConfig()\n",
    "    network_config = NetworkCurvatureConfig()\n",
)


def network_parameters(hidden: int) -> int:
    """Weights and biases of the 2-hidden-2 network."""
    return 2 * hidden + hidden + 2 * hidden + 2


def check_diagonal(config: DiagonalConfig) -> None:
    """Refuse probes, repeats, width or training outside their ranges, before any work.

    Raises:
        ArgumentError, BudgetError: the setting, its range and the value received.
    """
    b = CURVATURE_BUDGET
    check("probes", config.probes, 2, b.max_probes)
    check("repeats", config.repeats, 1, b.max_repeats)
    check("seed", config.seed, 0, 10**6)
    check("train_steps", config.train_steps, 1, b.max_train_steps)
    if config.hidden not in b.hidden:
        raise ArgumentError(
            "curvature.hidden_refused",
            options=", ".join(map(str, b.hidden)),
            got=str(config.hidden)[:20],
        )
    check_work("curvature.budget.samples", config.probes * config.repeats, b.max_samples)
    work = config.probes * config.repeats * network_parameters(config.hidden)
    check_work("curvature.budget.network", work, b.max_network_work)


def check_momentum(config: MomentumConfig) -> None:
    """Refuse κ, lr, β or steps outside their ranges.

    Raises:
        ArgumentError, BudgetError: the setting, its range and the value received.
    """
    b = CURVATURE_BUDGET
    check("kappa", config.kappa, 1.0, b.max_kappa)
    check("lr", config.lr, 1e-4, b.max_lr)
    check("beta", config.beta, 0.0, b.max_beta)
    check("steps", config.steps, 1, b.max_steps)


def products(config: NetworkCurvatureConfig) -> int:
    """The G v and H v products :func:`compute.spectra` makes for ``config``."""
    n = network_parameters(config.hidden)
    return (
        2 * n
        + config.starts * min(config.lanczos_steps, n)
        + 2 * config.hf_iterations * (config.cg_iterations + 2)
    )


def check_spectra(config: NetworkCurvatureConfig) -> None:
    """Refuse a width, step count, damping or product count outside its range, before work.

    Raises:
        ArgumentError, BudgetError: the setting, its range and the value received.
    """
    b = CURVATURE_BUDGET
    if config.hidden not in b.hidden:
        raise ArgumentError(
            "curvature.hidden_refused",
            options=", ".join(map(str, b.hidden)),
            got=str(config.hidden)[:20],
        )
    check("train_steps", config.train_steps, 1, b.max_train_steps)
    check("seed", config.seed, 0, 10**6)
    check("hf_iterations", config.hf_iterations, 1, b.max_hf_iterations)
    check("cg_iterations", config.cg_iterations, 1, b.max_cg_iterations)
    check("damping", config.damping, 1e-4, 10.0)
    check("lanczos_steps", config.lanczos_steps, 2, b.max_lanczos_steps)
    check("starts", config.starts, 1, b.max_starts)
    check("width", config.width, 1e-3, 0.1)
    work = products(config) * network_parameters(config.hidden)
    check_work("curvature.budget.spectra", work, b.max_spectra_work)


def read_point(text: str, point: str) -> tuple[float, ...]:
    """The typed point of ``text``'s function, one number per variable (``"1, pi/2"``).

    Raises:
        ExpressionError, ArgumentError, BudgetError: the function or the point refused.
    """
    fn = parse(text)
    if not fn.variables:
        raise ArgumentError("budget.no_variables")
    return tuple(float(x) for x in numbers(point, "point", fn))


def torch_function(fn: Function):
    """``fn`` as the page runs it: f(w) of a float64 tensor w, one entry per variable in the
    order of ``fn.variables``."""
    names = fn.variables

    def f(w: torch.Tensor) -> torch.Tensor:
        return fn.torch(dict(zip(names, w.unbind(), strict=True)))

    return f


def _python_names(fn: Function) -> dict[str, str]:
    """Each variable's name in the download's ``f``: its own, unless that would hide ``torch``
    or ``w``, or is not Python (then the first free of "x", "x_", "x1_", ...)."""
    own = {"torch", "w", "f"}
    kept = [v for v in fn.variables if python_name(v, own) == v]
    taken = own.union(kept)
    names = {}
    for v in fn.variables:
        names[v] = v if v in kept else python_name(v, taken)
        taken.add(names[v])
    return names


def _function_lines(fn: Function) -> tuple[str, str]:
    """The download's ``NAMES`` line and ``f``'s body: the variables unpacked from w, then
    ``fn`` as one PyTorch expression."""
    names = _python_names(fn)
    unpack = ", ".join(names.values())
    entries = ", ".join(f"w[{i}]" for i in range(len(names)))
    return (
        f"NAMES = {fn.variables!r}  # its variables, in the order of w\n",
        f"    {unpack} = {entries}\n    return {torch_source(fn, names)}\n",
    )


def script(
    diagonal: DiagonalConfig,
    momentum: MomentumConfig,
    network: NetworkCurvatureConfig = NetworkCurvatureConfig(),  # noqa: B008 - frozen
    autograd: bool = False,
) -> Code:
    """The download: compute.py as it is, with ``diagonal``'s function written as ``f`` and
    the three settings where ``__main__`` sets them; with ``autograd``, its second form: the
    same file, its products taken by torch.autograd.grad instead of torch.func."""
    source = inspect.getsource(compute)
    names, body = _function_lines(parse(diagonal.function))
    for old, new in (
        (_NAMES, names),
        (_F_BODY, body),
        (_DIAGONAL, f"    diagonal = {diagonal!r}\n"),
        (_MOMENTUM, f"    momentum_config = {momentum!r}\n"),
        (_NETWORK, f"    network_config = {network!r}\n"),
        *([(_FORM, _AUTOGRAD)] if autograd else []),
    ):
        assert source.count(old) == 1, f"compute.py no longer has {old.strip()!r}"
        source = source.replace(old, new)
    return marked_code(source)


@st.cache_data(max_entries=32, show_spinner=False)
def curvature_typed(config: DiagonalConfig) -> DiagonalStudy:
    """The typed function's study (n <= 10: milliseconds, no gate)."""
    check_diagonal(config)
    fn = parse(config.function)
    point = read_point(config.function, ",".join(map(repr, config.point)))
    return compute.study(
        torch_function(fn), torch.tensor(point, dtype=torch.float64), fn.variables, config
    )


@st.cache_data(max_entries=16, show_spinner=False)
def curvature_network(
    config: DiagonalConfig, _caption: Caption = lambda done, total: f"{done}/{total}"
) -> DiagonalStudy:
    """The network's study: training, then its diagonal three ways, in the heavy-work gate."""
    check_diagonal(config)

    def work(progress) -> DiagonalStudy:
        loss, theta = compute.network_function(config.hidden, config.train_steps, config.seed)
        progress(1, 2)
        names = tuple(f"θ{i}" for i in range(theta.numel()))
        return compute.study(loss, theta, names, config)

    return with_bar(_caption, work)


@st.cache_data(max_entries=64, show_spinner=False)
def curvature_momentum(config: MomentumConfig) -> MomentumRun:
    """Heavy ball and plain descent on the κ quadratic (at most 2 x 1000 steps of 2 numbers)."""
    check_momentum(config)
    return compute.momentum(config)


@st.cache_data(max_entries=8, show_spinner=False)
def curvature_spectra(
    config: NetworkCurvatureConfig, _caption: Caption = lambda done, total: f"{done}/{total}"
) -> Spectra:
    """G and H whole, SLQ's density and the two Hessian-free runs, in the heavy-work gate."""
    check_spectra(config)

    def work(progress) -> Spectra:
        progress(0, 1)
        return compute.spectra(config)

    return with_bar(_caption, work)
