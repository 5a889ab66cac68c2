"""Derivatives of every order of a one-variable function, by nested ``torch.autograd.grad``.

This is the mechanism the lab teaches: each order is one more ``grad`` call on the previous
derivative with ``create_graph=True``, so the derivative is itself part of a graph and can be
differentiated again::

    d0 = f(x)
    d1 = grad(d0, x, grad_outputs=ones, create_graph=True)  # the graph now holds the 1st backward
    d2 = grad(d1, x, grad_outputs=ones, create_graph=True)  # ... and the 2nd, and so on

(Ones as ``grad_outputs`` are exact here: every output depends only on its own input point,
so the vector-Jacobian product with ones is the elementwise derivative.) The loop is
:func:`hograd_core.derivatives_script.nested_derivatives`, the code the page shows.

How fast the graph grows depends on the function. A polynomial's stops growing once its
derivative is constant (x**3: 2, 5, 8, 11, 11 nodes per point for orders 0-4); exp and relu add
one node per order; for most others it multiplies, by a factor that rises with the order (tanh:
x2.3 at order 3, x2.8 at order 10; log and sqrt near x4 by order 8). The numbers are checked in
tests/core/test_derivatives.py. So work is checked against a node and memory budget before it
starts: a one-point probe builds the same graph and counts its nodes.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from .autograd_walk import walk
from .derivative_budget import BUDGET, MAX_FD_ORDER, Budget
from .derivatives_script import nested_derivatives
from .errors import ArgumentError, BudgetError
from .language import Function
from .taylor import polynomial_degree, taylor_derivatives

__all__ = [
    "derivatives",
    "DerivativeResult",
    "Budget",
    "BUDGET",
    "MAX_FD_ORDER",
    "graph_nodes",
    "autograd_rows",
    "autograd_refusal",
]

METHODS = ("autograd", "taylor")


@dataclass(frozen=True)
class DerivativeResult:
    """Derivatives of orders 0..``order`` on a grid.

    Attributes:
        xs: the points, shape (n,).
        values: float64, shape (order + 1, n); row k is the k-th derivative. NaN or inf where
            the function or a derivative is undefined there (e.g. log at x <= 0).
        order: the highest order.
        method: "autograd" (nested ``torch.autograd.grad``) or "taylor".
        variable: the name of the variable.
        constant_from: the first order whose derivative no longer depends on x (the degree of
            a polynomial), or None. Every higher row is exactly 0.
        torch_raises_from: for autograd, the first order at which ``torch.autograd.grad``
            would raise because the previous derivative has no ``grad_fn`` left ("element 0
            of tensors does not require grad"); hograd returns exact zeros there instead.
            It can come later than ``constant_from + 1``: ``pow(x, 0)`` keeps a grad_fn.
        nonfinite: for each order, how many points are NaN or infinite.
        graph_nodes: for autograd, the nodes in the graph per point after each order.
        seconds: wall time of the computation.
    """

    xs: np.ndarray
    values: np.ndarray
    order: int
    method: str
    variable: str
    constant_from: int | None
    torch_raises_from: int | None
    nonfinite: tuple[int, ...]
    graph_nodes: tuple[int, ...]
    seconds: float


class _NodeCounter:
    """Counts the autograd nodes reachable from every tensor added so far: one
    :func:`~hograd_core.autograd_walk.walk` sharing its ``seen`` set over all calls, so
    counting the graph after each order costs one walk of the final graph, not one per order.

    Note:
        The walk is pure Python and holds the interpreter lock for its whole length (the
        backward passes that build the graph release it): about 0.5 us a node; the garbage
        collector, which sees every node's wrapper, adds about as much again.
    """

    def __init__(self) -> None:
        self._seen: set[object] = set()

    def add(self, *tensors: torch.Tensor) -> int:
        walk([t.grad_fn for t in tensors], self._seen)
        return len(self._seen)


def graph_nodes(*tensors: torch.Tensor) -> int:
    """Number of autograd nodes reachable from ``tensors`` (the graph a backward would walk)."""
    return _NodeCounter().add(*tensors)


def autograd_rows(
    fn: Function,
    x: torch.Tensor,
    order: int,
    *,
    node_limit: int | None = None,
    clock: list[float] | None = None,
) -> tuple[list[torch.Tensor], int | None, list[int]]:
    """The nested-autograd derivatives 0..order at the leaf ``x``, kept on the graph.

    Returns the rows (tensors that still carry ``grad_fn``), the first order at which
    ``torch.autograd.grad`` would raise (the previous row no longer requires grad; None if
    none did), and, when ``node_limit`` is given, the graph size after each order. A ``clock``
    list gets ``time.perf_counter()`` appended as each order is done (the cost tab times them).

    Raises:
        BudgetError: the graph exceeds ``node_limit`` nodes.
    """

    def f(x: torch.Tensor) -> torch.Tensor:
        row = fn.torch({fn.variables[0]: x} if fn.variables else {})
        return row if row.shape == x.shape else row.expand_as(x)  # a constant: one per point

    rows: list[torch.Tensor] = []
    raises_from = None
    counter = _NodeCounter()
    sizes: list[int] = []
    # The code the page shows (inspector.pytorch_snippet) is this generator's source.
    for k, row in enumerate(nested_derivatives(f, x, order)):
        if k and raises_from is None and not rows[-1].requires_grad:
            # f^(k-1) does not depend on x: autograd would raise ("element 0 of tensors does
            # not require grad"), but the true answer is exactly zero from here on.
            raises_from = k
        rows.append(row)
        if clock is not None:
            clock.append(time.perf_counter())
        if node_limit is None:
            continue
        sizes.append(counter.add(row))
        if k:
            # Refuse as soon as the growth so far predicts the limit will be passed: a probe
            # that built the whole oversized graph just to say no cost seconds and 350 MB.
            growth = sizes[-1] / sizes[-2] if k >= 2 and sizes[-2] else 1.0
            predicted = sizes[-1] * max(growth, 1.0) ** (order - k)
            # The growth ratio falls slowly with the order (sin*exp: 2.7 -> 2.1), so a prediction
            # may overshoot by up to 1.5x per order still to build: one order before the end,
            # 1.5x the limit refuses (atan(3*x) at order 10: 99k nodes at order 9, predicted
            # 269k, which built for 2 s before being refused); three orders before, 3.4x.
            if sizes[-1] > node_limit or predicted > node_limit * 1.5 ** (order - k):
                raise BudgetError("budget.nodes", order=order, limit=f"{node_limit:,}")
    return rows, raises_from, sizes


def _check(fn: Function, xs: Sequence[float] | np.ndarray, order: int, method: str) -> np.ndarray:
    if method not in METHODS:
        raise ArgumentError("budget.method", known=", ".join(METHODS), got=method)
    if len(fn.variables) > 1:
        raise ArgumentError("budget.one_variable", names=", ".join(fn.variables))
    high = BUDGET.max_order_autograd if method == "autograd" else BUDGET.max_order_taylor
    if not isinstance(order, int | np.integer) or not 0 <= order <= high:
        # above the limit: over budget; negative or not a whole number: not an order at all
        cls = BudgetError if isinstance(order, int | np.integer) and order > high else ArgumentError
        if method == "autograd":
            raise cls(
                "budget.order_autograd",
                low=0,
                high=high,
                got=order,
                taylor=BUDGET.max_order_taylor,
            )
        raise cls("budget.order", low=0, high=high, got=order)
    grid = np.asarray(xs, dtype=np.float64).reshape(-1)
    if not 1 <= grid.size <= BUDGET.max_points:
        cls = BudgetError if grid.size > BUDGET.max_points else ArgumentError
        raise cls("budget.points", limit=BUDGET.max_points, got=grid.size)
    if not np.all(np.isfinite(grid)) or np.max(np.abs(grid)) > BUDGET.max_abs_x:
        raise ArgumentError("budget.not_finite", what="x", got=_show_bad(grid))
    return grid


def _show_bad(grid: np.ndarray) -> str:
    bad = grid[~np.isfinite(grid) | (np.abs(np.nan_to_num(grid, nan=np.inf)) > BUDGET.max_abs_x)]
    return ", ".join(f"{v:g}" for v in bad[:3])


#: A one-point nested-autograd graph above this many nodes counts as heavy work (~15 ms).
HEAVY_NODES = 5_000


#: The point the graph is probed on: the inspector's default x0, so that the inspector there
#: reads its values from the probe instead of building the same graph again.
PROBE_POINT = 0.5


Probed = tuple[tuple[int, ...], tuple[float, ...]] | None

#: Sizes a graph: (nodes per point after each order, values 0..order at PROBE_POINT), or None
#: over the node limit. :func:`probe_graph` by default; a server may pass one that runs it in
#: another process (it returns the same answer).
Prober = Callable[[Function, int], Probed]


@functools.lru_cache(maxsize=256)
def probe_graph(fn: Function, order: int) -> Probed:
    """Graph nodes per point after each order, and the derivatives 0..order at
    ``PROBE_POINT``, from one build on that point; None if over the limit.

    The size is a property of the expression, not of the point or of who asked, so it is
    memoised (a pure function of its arguments). Moving x0 in the inspector then builds the
    graph once, not twice, and skips the node count, which costs as much as the build; a
    refusal is remembered too, so it is not probed again at every x0.
    """
    probe = torch.tensor([PROBE_POINT], dtype=torch.float64, requires_grad=True)
    try:
        rows, _, sizes = autograd_rows(fn, probe, order, node_limit=BUDGET.max_nodes)
    except BudgetError:
        return None
    values = [float(r.detach()[0]) for r in rows]
    if math.isnan(values[0]):  # f undefined there: so is every derivative (see derivatives)
        values = [math.nan] * len(values)
    return tuple(sizes), tuple(values)


def autograd_at_probe_point(
    fn: Function, order: int, probe: Prober = probe_graph
) -> list[float] | None:
    """What ``derivatives(fn, [PROBE_POINT], order).values[:, 0]`` returns, from the memoised
    probe (None if the graph is over the node limit: ``derivatives`` would refuse)."""
    probed = probe(fn, order)
    return None if probed is None else list(probed[1])


def autograd_column(
    fn: Function, x0: float, order: int, probe: Prober = probe_graph
) -> list[float]:
    """Nested autograd's derivatives 0..order at ``x0`` (the point inspector's column; at
    ``PROBE_POINT`` the probe has them already).

    Raises:
        BudgetError: order over the autograd limit, or the graph over the node limit.
    """
    probed = autograd_at_probe_point(fn, order, probe) if x0 == PROBE_POINT else None
    return probed or derivatives(fn, [x0], order).values[:, 0].tolist()


def estimate_autograd(
    fn: Function, order: int, points: int, probe: Prober = probe_graph
) -> tuple[int, list[int], float]:
    """Probe the nested-autograd graph on one point; return (nodes, sizes per order, MB).

    The estimate counts 8 bytes per node on every point (measured peaks here: 6-7 bytes for
    tanh, sin(x)*exp(-x^2) and 1/(1+x^2) at order 10). Raises BudgetError over budget.
    """
    probed = probe(fn, order)
    if probed is None:
        raise BudgetError("budget.nodes", order=order, limit=f"{BUDGET.max_nodes:,}")
    sizes = list(probed[0])
    nodes = sizes[-1]
    megabytes = nodes * points * 8 / 1e6
    if megabytes > BUDGET.max_megabytes:
        raise BudgetError(
            "budget.memory",
            order=order,
            points=f"{points:,}",
            nodes=f"{nodes:,}",
            megabytes=f"{megabytes:,.0f}",
            limit=f"{BUDGET.max_megabytes:,.0f}",
        )
    return nodes, sizes, megabytes


def autograd_refusal(
    fn: Function, order: int, points: int, probe: Prober = probe_graph
) -> BudgetError | None:
    """Why nested autograd would refuse ``order`` on ``points`` points, or None if it would
    not: an order over its limit, or a graph over the node or memory budget (from the probe,
    before any work on a grid). The derivatives page then uses Taylor mode and says why.

    Example:
        >>> from hograd_core import parse
        >>> autograd_refusal(parse("x**3"), 4, 1000) is None
        True
        >>> autograd_refusal(parse("x**3"), 12, 1000).key
        'budget.order_autograd'
    """
    if order > BUDGET.max_order_autograd:
        return BudgetError(
            "budget.order_autograd",
            low=0,
            high=BUDGET.max_order_autograd,
            got=order,
            taylor=BUDGET.max_order_taylor,
        )
    try:
        estimate_autograd(fn, order, points, probe)
    except BudgetError as err:
        return err
    return None


def autograd_is_heavy(
    fn: Function, order: int, points: int = 1, probe: Prober = probe_graph
) -> bool:
    """Whether nested autograd to ``order`` on ``points`` points is heavy work (more than
    ``HEAVY_NODES`` graph nodes in all), and so should pass the heavy-work gate. A request
    the budget refuses is not heavy: it is refused before any work."""
    probed = probe(fn, min(order, BUDGET.max_order_autograd))
    return probed is not None and probed[0][-1] * points > HEAVY_NODES


def derivatives(
    fn: Function,
    xs: Sequence[float] | np.ndarray,
    order: int,
    method: str = "autograd",
    *,
    probe: Prober = probe_graph,
) -> DerivativeResult:
    """All derivatives of orders 0..``order`` of a one-variable function at the points ``xs``.

    Args:
        fn: a function of at most one variable (from :func:`hograd_core.parse`).
        xs: the points, at most 5,000 finite numbers.
        order: highest order, 0..10 for autograd (0..30 for Taylor mode).
        method: "autograd" (nested ``torch.autograd.grad``, create_graph=True) or "taylor"
            (truncated Taylor series propagated through the expression).
        probe: sizes the autograd graph before the grid is built (see :data:`Prober`).

    Returns:
        A :class:`DerivativeResult`; non-finite values are returned and counted, not raised.

    Raises:
        BudgetError: order, points or range out of bounds, or the estimated graph too large.

    Example:
        >>> from hograd_core import derivatives, parse
        >>> derivatives(parse("x**3"), [2.0], 3).values[:, 0].tolist()
        [8.0, 12.0, 12.0, 6.0]
    """
    grid = _check(fn, xs, order, method)
    start = time.perf_counter()
    variable = fn.variables[0] if fn.variables else "x"
    constant_from = polynomial_degree(fn.tree)
    raises_from = None
    if method == "taylor":
        values, _ = taylor_derivatives(fn, grid, order)
        sizes: list[int] = []
    else:
        _, sizes, _ = estimate_autograd(fn, order, grid.size, probe)
        x = torch.tensor(grid, dtype=torch.float64, requires_grad=True)
        rows, raises_from, _ = autograd_rows(fn, x, order)
        values = torch.stack([r.detach() for r in rows]).numpy().copy()
    # Where f itself is undefined (log at x < 0), so is every derivative, even when the
    # backward formula happens to give a number there (1/x for log).
    values[:, np.isnan(values[0])] = np.nan
    nonfinite = tuple(int(n) for n in (~np.isfinite(values)).sum(axis=1))
    return DerivativeResult(
        xs=grid,
        values=values,
        order=order,
        method=method,
        variable=variable,
        constant_from=constant_from,
        torch_raises_from=raises_from,
        nonfinite=nonfinite,
        graph_nodes=tuple(sizes),
        seconds=time.perf_counter() - start,
    )


def _fd_step(x0: float, order: int) -> float:
    # Balances truncation error O(h^2) against rounding error eps / h^order.
    return 2.2e-16 ** (1 / (order + 2)) * max(1.0, abs(x0))


def finite_difference(fn: Function, x0: float, order: int, h: float | None = None) -> float:
    """Central finite-difference estimate of the ``order``-th derivative at ``x0`` (float64).

    Uses the binomial central stencil with step ``h`` (chosen for the order when omitted); an
    independent check that involves no autograd at all. Accuracy falls with the order: about
    1e-6 relative at order 1-2, far worse above 4, which the page says next to the numbers.
    """
    return finite_differences(fn, x0, [order], None if h is None else [h])[0]


def finite_differences(
    fn: Function,
    x0: float,
    orders: Sequence[int],
    steps: Sequence[float] | None = None,
) -> list[float]:
    """:func:`finite_difference` for several orders, with one evaluation of ``fn`` on the
    points of every stencil together (the inspector asks for orders 0-6 at each x0)."""
    hs = [_fd_step(x0, k) for k in orders] if steps is None else list(steps)
    stencils = [x0 + (k / 2 - np.arange(k + 1)) * h for k, h in zip(orders, hs, strict=True)]
    env_x = torch.tensor(np.concatenate(stencils), dtype=torch.float64)
    vals = fn.torch({fn.variables[0]: env_x} if fn.variables else {})
    vals = vals.expand_as(env_x).numpy()
    out, start = [], 0
    for k, h in zip(orders, hs, strict=True):
        part = vals[start : start + k + 1]
        start += k + 1
        weights = np.array([(-1) ** j * math.comb(k, j) for j in range(k + 1)], dtype=np.float64)
        with np.errstate(all="ignore"):  # inf - inf near a pole is NaN, as it should be
            out.append(float(np.dot(weights, part) / h**k) if k else float(part[0]))
    return out
