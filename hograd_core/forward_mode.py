"""f⁽ⁿ⁾ of a one-variable function four ways: nested forward mode, dual numbers, nested reverse
mode and Taylor mode, each with what it costs per order.

* **jvp** (``torch.func.jvp`` nested n times): forward mode only. One jvp carries a value and
  one tangent; the jvp of that pair carries two of each, and so on: order n evaluates 2ⁿ
  value/tangent combinations of f, nothing is kept for a backward pass, and the time doubles
  with each order::

      d = f
      for _ in range(n):
          d = lambda x, d=d: jvp(d, (x,), (ones,))[1]      # d/dx of the previous

* **forward_ad** (``torch.autograd.forward_ad``, dual numbers x + ε with ε² = 0): PyTorch keeps
  one dual level ("Nested forward mode AD is not supported at the moment"), so a dual number
  gives one order; orders beyond it come from n − 1 nested reverse steps under that one dual
  level: forward over reverse, f⁽ⁿ⁾ = the tangent of the (n − 1)-th gradient.
* **reverse** (``torch.autograd.grad``, ``create_graph=True``, n times): each order
  differentiates the whole graph of the one before, which autograd keeps for its backward.
* **taylor**: the truncated Taylor series pushed through the expression
  (:mod:`hograd_core.taylor`), O(n²) per node, no graph.

Memory is measured as what autograd saves for a backward pass (every tensor handed to
``torch.autograd.graph.saved_tensors_hooks``'s pack hook, in bytes): the graph that reverse mode
keeps and forward mode does not. Taylor mode runs in numpy, outside autograd: its row is the
series it holds, (n + 1) float64 numbers per node of the expression per point.
Every limit is checked before any work.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
import torch.autograd.forward_ad as fwad

from .errors import ArgumentError, BudgetError
from .language import Function
from .nested_autograd import autograd_rows
from .taylor import taylor_derivatives

__all__ = [
    "FORWARD_BUDGET",
    "FORWARD_ROUTES",
    "ForwardBudget",
    "ForwardCosts",
    "forward_costs",
    "forward_derivative",
]

#: The four routes, in the order they are shown.
FORWARD_ROUTES: tuple[str, ...] = ("jvp", "forward_ad", "reverse", "taylor")


@dataclass(frozen=True)
class ForwardBudget:
    # nested jvp does 2ⁿ evaluations of f: sin(x)*exp(x) at order 6 took 0.29 s here, 8: 2.9 s
    max_order_jvp: int = 6
    max_order: int = 8  # forward_ad over reverse: its graph multiplies per order (8: 0.29 s)
    max_points: int = 1_000
    max_rounds: int = 7  # timing rounds (the median is reported)
    max_nodes: int = 200  # nodes of the typed expression (each order copies them)


FORWARD_BUDGET = ForwardBudget()


def _check(fn: Function, x: np.ndarray, order: int, route: str, rounds: int = 1) -> None:
    """Refuse a route, order, point count or rounds outside the budget, before any work."""
    b = FORWARD_BUDGET
    if route not in FORWARD_ROUTES:
        raise ArgumentError(
            "forward.route_unknown", got=str(route)[:20], known=", ".join(FORWARD_ROUTES)
        )
    if len(fn.variables) > 1:
        raise ArgumentError("forward.one_variable", got=", ".join(fn.variables))
    limit = b.max_order_jvp if route == "jvp" else b.max_order
    if not 0 <= order <= limit:
        cls = BudgetError if order > limit else ArgumentError
        raise cls("forward.order", route=route, limit=limit, got=order)
    if not 1 <= x.size <= b.max_points or not np.isfinite(x).all():
        raise ArgumentError("forward.points", limit=b.max_points, got=x.size)
    if not 1 <= rounds <= b.max_rounds:
        raise ArgumentError("forward.rounds", limit=b.max_rounds, got=rounds)
    if fn.size > b.max_nodes:
        raise BudgetError("forward.nodes", limit=b.max_nodes, got=fn.size)


def _as_torch(fn: Function) -> Callable[[torch.Tensor], torch.Tensor]:
    name = fn.variables[0] if fn.variables else "x"

    def f(x: torch.Tensor) -> torch.Tensor:
        return fn.torch({name: x}).expand_as(x)  # a constant still has one value per point

    return f


def _jvp(f: Callable, x: torch.Tensor, order: int) -> torch.Tensor:
    d = f
    for _ in range(order):  # <-- one more forward pass around everything before
        d = lambda x, d=d: torch.func.jvp(d, (x,), (torch.ones_like(x),))[1]
    return d(x)


def _forward_ad(f: Callable, x: torch.Tensor, order: int) -> torch.Tensor:
    if order == 0:
        return f(x)
    leaf = x.detach().requires_grad_(True)
    with fwad.dual_level():
        d = f(fwad.make_dual(leaf, torch.ones_like(leaf)))  # x + ε: the tangent is f'
        for _ in range(order - 1):  # <-- reverse steps under the one dual level
            if not d.requires_grad:
                return torch.zeros_like(x)
            d = torch.autograd.grad(d.sum(), leaf, create_graph=True, materialize_grads=True)[0]
        tangent = fwad.unpack_dual(d).tangent
    return torch.zeros_like(x) if tangent is None else tangent


def _reverse(fn: Function, x: torch.Tensor, order: int) -> torch.Tensor:
    rows, _, _ = autograd_rows(fn, x.detach().requires_grad_(True), order)
    return rows[order]


def _run(fn: Function, x: np.ndarray, order: int, route: str) -> np.ndarray:
    if route == "taylor":
        return taylor_derivatives(fn, x, order)[0][order]
    t = torch.tensor(x, dtype=torch.float64)
    with warnings.catch_warnings():  # torch's first jvp loads decompositions via torch.jit.script
        warnings.filterwarnings("ignore", "`torch.jit.script` is deprecated", DeprecationWarning)
        if route == "jvp":
            out = _jvp(_as_torch(fn), t, order)
        elif route == "forward_ad":
            out = _forward_ad(_as_torch(fn), t, order)
        else:
            out = _reverse(fn, t, order)
    return out.detach().numpy(force=True).copy()  # force: a jvp of a constant is a ZeroTensor


def forward_derivative(fn: Function, x: np.ndarray | list[float], order: int, route: str):
    """f⁽ᵒʳᵈᵉʳ⁾ at the points ``x`` by one route ("jvp", "forward_ad", "reverse", "taylor").

    Raises:
        ArgumentError, BudgetError: an unknown route, more than one variable, an order over the
            route's limit (8 for jvp, 10 otherwise), more than 1,000 points or a non-finite one.
    """
    xs = np.atleast_1d(np.asarray(x, dtype=np.float64))
    _check(fn, xs, order, route)
    return _run(fn, xs, order, route)


@dataclass(frozen=True)
class ForwardCosts:
    """f⁽ᵏ⁾ for k = 0..order by each route, with time and memory.

    Attributes:
        values: per route, shape (order + 1, points); routes over their order limit hold NaN
            beyond it.
        seconds: per route, the median over ``rounds`` interleaved rounds of each order alone.
        saved_bytes: per route, bytes autograd saved for backward while computing each order
            (Taylor: the series held, (k + 1) x 8 bytes x nodes x points).
    """

    routes: tuple[str, ...]
    order: int
    points: np.ndarray
    values: dict[str, np.ndarray]
    seconds: dict[str, np.ndarray]
    saved_bytes: dict[str, np.ndarray]


def _saved(call: Callable[[], object]) -> int:
    """Bytes of the tensors autograd saves for backward during ``call()``."""
    total = [0]

    def pack(t: torch.Tensor) -> torch.Tensor:
        total[0] += t.numel() * t.element_size()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        call()
    return total[0]


def forward_costs(fn: Function, x: np.ndarray | list[float], order: int, rounds: int = 3):
    """Every route at every order 0..``order``: values, median seconds and saved bytes.

    Raises:
        ArgumentError, BudgetError: as :func:`forward_derivative` (the order checked against
            forward_ad's and reverse's limit; jvp stops at its own), rounds outside 1..7.
    """
    xs = np.atleast_1d(np.asarray(x, dtype=np.float64))
    for route in FORWARD_ROUTES:
        _check(
            fn,
            xs,
            min(order, FORWARD_BUDGET.max_order_jvp) if route == "jvp" else order,
            route,
            rounds,
        )
    shape = (order + 1, xs.size)
    values = {r: np.full(shape, np.nan) for r in FORWARD_ROUTES}
    seconds = {r: np.full(order + 1, np.nan) for r in FORWARD_ROUTES}
    saved = {r: np.full(order + 1, np.nan) for r in FORWARD_ROUTES}
    for k in range(order + 1):
        routes = [r for r in FORWARD_ROUTES if r != "jvp" or k <= FORWARD_BUDGET.max_order_jvp]
        spent: dict[str, list[float]] = {r: [] for r in routes}
        for _ in range(rounds):  # interleaved: a busy moment slows every route alike
            for r in routes:
                start = time.perf_counter()
                values[r][k] = _run(fn, xs, k, r)
                spent[r].append(time.perf_counter() - start)
        for r in routes:
            seconds[r][k] = float(np.median(spent[r]))
            saved[r][k] = (
                (k + 1) * 8 * fn.size * xs.size
                if r == "taylor"
                else _saved(lambda r=r, k=k: _run(fn, xs, k, r))
            )
    return ForwardCosts(FORWARD_ROUTES, order, xs, values, seconds, saved)
