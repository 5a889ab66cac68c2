"""All derivatives of orders 0..n on a grid: nested autograd vs Taylor mode vs sympy.

For each function, the three methods run interleaved (nested, Taylor, sympy, then again), so
all three see the same machine load, and the medians of the repeated runs are compared:

* nested autograd: ``order`` calls of ``torch.autograd.grad(create_graph=True)`` on a float64
  leaf, through :func:`hograd_core.nested_autograd.autograd_rows` (no budget check);
* Taylor mode: :func:`hograd_core.taylor.taylor_derivatives`, all orders in one pass;
* sympy: ``diff`` order times (the expression is built from our tree, never from text), then
  ``lambdify`` of every derivative and evaluation on the grid. sympy's cache is cleared before
  each run so no run reuses the previous one's derivatives.

Targets (issue 3): nested / Taylor >= 50 and sympy / Taylor >= 30 at order 10 on 2,000 points.

Usage::

    python benchmarks/derivatives.py                # table
    python benchmarks/derivatives.py --json         # one JSON object on stdout
    python benchmarks/derivatives.py --repeats 7 --points 5000 --order 8
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import sympy as sp
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from anywhere

from hograd_core import Function, parse
from hograd_core.nested_autograd import autograd_rows
from hograd_core.symbolic import symbolic_derivatives
from hograd_core.taylor import taylor_derivatives

FUNCTIONS = ("tanh(x)", "sin(x)*exp(-x^2)", "1/(1+x^2)")
TARGETS = {"nested_over_taylor": 50.0, "sympy_over_taylor": 30.0}


def nested(fn: Function, grid: np.ndarray, order: int) -> np.ndarray:
    x = torch.tensor(grid, dtype=torch.float64, requires_grad=True)
    rows, _, _ = autograd_rows(fn, x, order)
    return torch.stack([r.detach() for r in rows]).numpy()


def taylor(fn: Function, grid: np.ndarray, order: int) -> np.ndarray:
    return taylor_derivatives(fn, grid, order)[0]


def symbolic(fn: Function, grid: np.ndarray, order: int) -> np.ndarray:
    sp.core.cache.clear_cache()  # each run differentiates from scratch
    result = symbolic_derivatives(fn, order, max_ops=10**9, max_seconds=float("inf"))
    assert result.stopped is None, result.stopped
    x = sp.Symbol(fn.variables[0], real=True)  # the symbol to_sympy builds for the variable
    rows = []
    with np.errstate(all="ignore"):
        for expr in result.exprs:
            value = sp.lambdify(x, expr, modules="numpy")(grid)
            rows.append(np.broadcast_to(np.asarray(value, dtype=np.float64), grid.shape))
    return np.stack(rows)


METHODS: dict[str, Callable[[Function, np.ndarray, int], np.ndarray]] = {
    "nested": nested,
    "taylor": taylor,
    "sympy": symbolic,
}


def max_rel_diff(got: np.ndarray, want: np.ndarray) -> float | None:
    """Largest |got - want| / max(1, |want|) where both are finite (None if nowhere)."""
    both = np.isfinite(got) & np.isfinite(want)
    if not both.any():
        return None  # JSON has no NaN
    diff = np.abs(got[both] - want[both]) / np.maximum(1.0, np.abs(want[both]))
    return float(diff.max())


def measure(text: str, grid: np.ndarray, order: int, repeats: int) -> dict[str, object]:
    fn = parse(text)
    seconds: dict[str, list[float]] = {name: [] for name in METHODS}
    values: dict[str, np.ndarray] = {}
    for name, method in METHODS.items():  # warm-up: imports, first-call allocations
        values[name] = method(fn, grid, order)
    for _ in range(repeats):
        for name, method in METHODS.items():
            start = time.perf_counter()
            method(fn, grid, order)
            seconds[name].append(time.perf_counter() - start)
    ms = {name: 1e3 * statistics.median(times) for name, times in seconds.items()}
    return {
        "function": text,
        "order": order,
        "points": int(grid.size),
        "nested_over_taylor": ms["nested"] / ms["taylor"],
        "sympy_over_taylor": ms["sympy"] / ms["taylor"],
        "nested_ms": ms["nested"],
        "taylor_ms": ms["taylor"],
        "sympy_ms": ms["sympy"],
        "max_rel_diff_nested_taylor": max_rel_diff(values["taylor"], values["nested"]),
        "max_rel_diff_sympy_taylor": max_rel_diff(values["taylor"], values["sympy"]),
    }


def table(results: list[dict[str, object]]) -> str:
    head = (
        f"{'function':<18} {'nested ms':>10} {'Taylor ms':>10} {'sympy ms':>10} "
        f"{'nested/T':>9} {'sympy/T':>8} {'diff nested':>12} {'diff sympy':>11}"
    )
    lines = [head, "-" * len(head)]
    for r in results:
        lines.append(
            f"{r['function']:<18} {r['nested_ms']:>10.1f} {r['taylor_ms']:>10.2f} "
            f"{r['sympy_ms']:>10.1f} {r['nested_over_taylor']:>8.0f}x {r['sympy_over_taylor']:>7.0f}x "
            f"{r['max_rel_diff_nested_taylor']:>12.1e} {r['max_rel_diff_sympy_taylor']:>11.1e}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per method (median)")
    parser.add_argument("--points", type=int, default=2000, help="grid points on [-2, 2]")
    parser.add_argument("--order", type=int, default=10, help="highest derivative order")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (the app uses 1)")
    parser.add_argument("--json", action="store_true", help="print one JSON object only")
    args = parser.parse_args(argv)
    if args.repeats < 1 or args.points < 1 or args.order < 0:
        parser.error("--repeats and --points must be >= 1, --order >= 0")
    torch.set_num_threads(args.threads)  # a script, not library code: global state is ours
    grid = np.linspace(-2.0, 2.0, args.points)
    results = [measure(text, grid, args.order, args.repeats) for text in FUNCTIONS]
    meets = all(r[key] >= target for r in results for key, target in TARGETS.items())
    if args.json:
        print(
            json.dumps(
                {
                    "benchmark": "derivatives",
                    "repeats": args.repeats,
                    "torch": torch.__version__,
                    "torch_threads": torch.get_num_threads(),
                    "targets": TARGETS,
                    "meets_targets": meets,
                    "results": results,
                }
            )
        )
    else:
        print(
            f"orders 0..{args.order} on {args.points:,} points, median of {args.repeats} "
            f"interleaved runs, torch {torch.__version__} ({torch.get_num_threads()} thread(s))"
        )
        print(table(results))
        targets = ", ".join(f"{key} >= {value:g}" for key, value in TARGETS.items())
        print(f"targets: {targets}: {'met' if meets else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
