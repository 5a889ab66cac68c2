"""Command line: a thin face over the same API, for teachers' scripts.

    python -m hograd_cli derivatives "x**3" --order 3 --at 2
    python -m hograd_cli derivatives "tanh(x)" --order 8 --grid -3:3:2000 --json
    python -m hograd_cli hvp "w1**2*sin(w2)" --at 1,1.5707963267948966 --vector 0.5,1 --json
    python -m hograd_cli graph "x**3" --order 2 --at 0.7 > graph.dot
    python -m hograd_cli gradcheck "sin(x)*exp(-x^2)" --at -2:2:9 --json
    python -m hograd_cli custom "tanh(x)" --backward "(1 - y^2)*g" --at -2:2:5 --json
    python -m hograd_cli derivatives "x**3" --order 2 --at 2 --cpp > derivatives.cpp
    python -m hograd_cli hvp "w1**2*sin(w2)" --at 1,1.5707963267948966 --vector 0.5,1 --cpp
    python -m hograd_cli hvp "x^2*y + z^3" --at 1,2,0.5 --diagonal --hutchinson 100 --seed 0
    python -m hograd_cli derivatives "sin(x)*exp(x)" --order 5 --at 0.7 --method jvp --costs
    python -m hograd_cli derivatives "-x^2" --at 1
    python -m hograd_cli decode error.txt --json
    python -m hograd_cli run prog.py --json

``--cpp`` prints the C++ (LibTorch) program that computes and prints what the page's PyTorch
script does, with the g++ line that builds it against this Python's torch wheel on top.

Bad input exits with status 2 and one line ``error: ...`` on stderr (and ``{"error": ...}`` on
stdout with --json); never a traceback. A check that fails is an answer, not bad input: gradcheck
exits with 0 and says so.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable, Sequence

import numpy as np

from hograd_core.errors import ArgumentError, BudgetError, HogradError
from hograd_ui.i18n import error_text

from . import decode, graph_args

_STARTED = time.perf_counter()  # the command line's start, as near as this module can see
_VALUE_OPTIONS = ("--at", "--grid", "--vector", "--v")


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, no usage dump
        raise _UsageError(message)


def _latex(fn: object) -> str | None:
    """sympy's LaTeX of ``fn``, worked out in the exact maths' child process (killed at its
    deadline: hograd_serving/exact.py); None if it stopped."""
    from hograd_serving.exact import typed_latex

    return typed_latex(fn.text, fn.variables)[1]


def _numbers(text: str, what: str, count: int = 1) -> list[float]:
    """At most ``count`` plain numbers, commas between (the length is checked first)."""
    from hograd_core.hessian import number_entries

    out = []
    for part in number_entries(text, what, count):
        try:
            value = float(part)
        except ValueError:
            raise ArgumentError("budget.number", what=what, got=part.strip()[:40]) from None
        out.append(value)
    return out


def _grid(text: str, option: str = "--grid") -> np.ndarray:
    from hograd_core.nested_autograd import BUDGET

    parts = text.split(":")
    if len(parts) != 3:
        raise _UsageError(f"{option}: expected START:STOP:POINTS such as -3:3:2000, got {text!r}")
    low, high = _numbers(parts[0], option)[0], _numbers(parts[1], option)[0]
    try:
        count = int(parts[2])
    except ValueError:
        raise _UsageError(f"{option}: POINTS must be a whole number, got {parts[2]!r}") from None
    if not 1 <= count <= BUDGET.max_points:
        raise BudgetError("budget.points", limit=BUDGET.max_points, got=count)
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise ArgumentError("budget.range", low=low, high=high, limit=f"{BUDGET.max_abs_x:g}")
    return np.linspace(low, high, count)


def _fix_negative_values(argv: Sequence[str]) -> list[str]:
    """Let values that start with a minus sign through, which argparse would take for options:
    ``--grid -3:3:10`` and ``--at -1,2`` (joined to their option), and a function such as
    ``-x^2``, with or without ``--`` before it. Every option has two dashes but ``-h``, so an
    argument that starts with one ``-`` is a value: it is passed on behind a space, which
    argparse does not read as an option, and :func:`_strip_guard` takes the space off."""
    out: list[str] = []
    it = iter(argv)
    for arg in it:
        if arg in _VALUE_OPTIONS:
            nxt = next(it, None)
            out.append(arg if nxt is None else f"{arg}={nxt}")
        elif arg == "--":  # the next argument is a value, whatever it looks like
            nxt = next(it, None)
            if nxt is not None:
                out.append(_GUARD + nxt)
        elif arg.startswith("-") and not arg.startswith("--") and arg != "-h":
            out.append(_GUARD + arg)
        else:
            out.append(arg)
    return out


_GUARD = " "  # put before a value that starts with "-": argparse then reads it as a value


def _strip_guard(args: argparse.Namespace) -> argparse.Namespace:
    for name, value in vars(args).items():
        if isinstance(value, str) and value.startswith(_GUARD + "-"):
            setattr(args, name, value[len(_GUARD) :])
    return args


#: Figures the help quotes, written here so that ``--help`` loads no torch; each equals the
#: core's constant named beside it (tests/project/test_cli_help.py checks).
HELP_FIGURES = {
    "methods": ("autograd", "taylor"),  # hograd_core.nested_autograd.METHODS
    "max_order_autograd": 10,  # hograd_core.nested_autograd.BUDGET.max_order_autograd
    "max_order_taylor": 30,  # hograd_core.nested_autograd.BUDGET.max_order_taylor
    "max_points": 5_000,  # hograd_core.nested_autograd.BUDGET.max_points
    "routes": ("jvp", "forward_ad", "reverse", "taylor"),  # hograd_core.forward_mode.FORWARD_ROUTES
    "max_probes": 1_000,  # hograd_core.diagonal.DIAGONAL_BUDGET.max_probes
    "custom_points": 25,  # hograd_core.custom_function.MAX_POINTS
    "variants": ("written", "detached", "once", "second_function"),  # custom_function.VARIANTS
}

EXAMPLES = """\
examples:
  python -m hograd_cli derivatives "x**3" --order 3 --at 2
  python -m hograd_cli derivatives "-x^2" --at 1            (a leading minus is fine)
  python -m hograd_cli derivatives "tanh(x)" --order 8 --grid -3:3:2000 --json
  python -m hograd_cli derivatives "sin(x)" --order 20 --at 0.5 --method taylor
  python -m hograd_cli hvp "w1**2*sin(w2)" --at 1,1.5707963267948966 --vector 0.5,1
  python -m hograd_cli graph "x**3" --order 2 --at 0.7 > graph.dot
  python -m hograd_cli gradcheck "sin(x)*exp(-x^2)" --at -2:2:9
  python -m hograd_cli custom "tanh(x)" --backward "(1 - y^2)*g" --at -2:2:5 --second-function
  python -m hograd_cli decode error.txt --json               (or - to read standard input)
  python -m hograd_cli run prog.py --json                    (an autograd program, line by line)

Each verb has its own --help. Bad input exits with status 2 and one line "error: ..."."""

FUNCTION_HELP = (
    "the function, in the app's language: x**3, x^3, sin(x)*exp(-x^2), -x^2 (quote it in the "
    "shell; a leading minus is read as part of it)"
)


def _add_derivatives(sub: argparse._SubParsersAction) -> None:
    f = HELP_FIGURES
    d = sub.add_parser(
        "derivatives",
        help="derivatives of orders 0..N of f(x)",
        description="f(x) and its derivatives of orders 1..N at points.",
        epilog='example: python -m hograd_cli derivatives "x**3" --order 3 --at 2',
    )
    d.add_argument("function", help=FUNCTION_HELP)
    d.add_argument(
        "--order",
        type=int,
        default=2,
        metavar="N",
        help=f"the highest order (default 2): 0 to {f['max_order_autograd']} with autograd "
        f"(fewer with jvp and forward_ad), 0 to {f['max_order_taylor']} with taylor",
    )
    where = d.add_mutually_exclusive_group()
    where.add_argument("--at", default=None, help="points, e.g. 2 or -1,0.5,2 (default 0)")
    where.add_argument(
        "--grid",
        default=None,
        help=f"START:STOP:POINTS, e.g. -3:3:2000 (at most {f['max_points']:,} points)",
    )
    d.add_argument(
        "--method",
        default="autograd",
        choices=(*f["methods"], "jvp", "forward_ad"),
        help="autograd (nested reverse), taylor, jvp (nested torch.func.jvp), "
        "forward_ad (dual numbers over nested reverse)",
    )
    d.add_argument(
        "--costs",
        action="store_true",
        help="add seconds and bytes saved for backward per order, four routes: "
        + ", ".join(f["routes"]),
    )
    d.add_argument("--json", action="store_true", help="print one JSON object")
    d.add_argument("--cpp", action="store_true", help="print the C++ (LibTorch) program at --at")


def _add_hvp(sub: argparse._SubParsersAction) -> None:
    h = sub.add_parser(
        "hvp",
        help="gradient, Hessian and Hessian-vector product",
        epilog='example: python -m hograd_cli hvp "w1**2*sin(w2)" --at 1,1.5707963267948966 '
        "--vector 0.5,1",
    )
    h.add_argument("function", help=FUNCTION_HELP.replace("x**3", "w1**2*sin(w2)"))
    h.add_argument("--at", required=True, help="the point, e.g. 1,1.5707963267948966")
    h.add_argument("--vector", default=None, help="v, e.g. 0.5,1 (optional with --diagonal)")
    h.add_argument(
        "--diagonal",
        action="store_true",
        help="add the Hessian's diagonal, exact (n products H e_i)",
    )
    h.add_argument(
        "--hutchinson",
        type=int,
        default=0,
        metavar="N",
        help=f"with --diagonal: Hutchinson's estimate from N probes "
        f"(at most {HELP_FIGURES['max_probes']:,})",
    )
    h.add_argument("--seed", type=int, default=0, help="the probes' seed (torch.Generator)")
    h.add_argument("--json", action="store_true", help="print one JSON object")
    h.add_argument("--cpp", action="store_true", help="print the C++ (LibTorch) program")


def _add_gradcheck(sub: argparse._SubParsersAction) -> None:
    g = sub.add_parser(
        "gradcheck",
        help="PyTorch's gradcheck and gradgradcheck of f(x)",
        epilog='example: python -m hograd_cli gradcheck "sin(x)*exp(-x^2)" --at -2:2:9',
    )
    g.add_argument("function", help=FUNCTION_HELP)
    g.add_argument("--at", required=True, help="START:STOP:POINTS (e.g. -2:2:9) or points 0.5,1")
    g.add_argument("--json", action="store_true", help="print one JSON object")


def _add_custom(sub: argparse._SubParsersAction) -> None:
    c = sub.add_parser(
        "custom",
        help="a custom autograd.Function from f and its backward",
        description="f and its backward become a torch.autograd.Function; its first and second "
        "derivatives, gradcheck and gradgradcheck. One variant of four: as written (default), "
        "--detach, --once-differentiable, --second-function.",
        epilog='example: python -m hograd_cli custom "tanh(x)" --backward "(1 - y^2)*g" '
        "--at -2:2:5 --second-function",
    )
    c.add_argument("function", help="f(x), e.g. tanh(x)")
    c.add_argument("--backward", required=True, help="of x, y and g, e.g. (1 - y^2)*g")
    c.add_argument(
        "--at",
        required=True,
        help=f"START:STOP:POINTS, at most {HELP_FIGURES['custom_points']} points",
    )
    variant = c.add_mutually_exclusive_group()
    variant.add_argument("--detach", action="store_true", help="the backward on detached tensors")
    variant.add_argument(
        "--once-differentiable", action="store_true", help="the backward under @once_differentiable"
    )
    variant.add_argument(
        "--second-function",
        action="store_true",
        help="the backward's own backward as a second Function (differentiable twice)",
    )
    c.add_argument("--json", action="store_true", help="print one JSON object")


#: The verbs: name -> (adds its parser, without loading torch; runs it and returns the exit
#: status, loading what it needs). A new verb is one line here and a module of its own with
#: these two functions (hograd_cli/decode.py is one).
VERBS: dict[str, tuple[Callable[[argparse._SubParsersAction], None], Callable[..., int]]] = {}


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python -m hograd_cli",
        description="Higher-order gradients of a typed function.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="VERB")
    for add, _ in VERBS.values():
        add(sub)
    return parser


def _jsonable(value: object) -> object:
    """Arrays to lists; NaN and inf to null (JSON has neither)."""
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        return _jsonable(value.tolist())
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


#: The most points whose zeros the CLI asks exact maths about (one child, 30 digits each).
EXACT_POINTS = 25


def _not_exact_zeros(args: argparse.Namespace, fn, xs: np.ndarray, values: np.ndarray) -> list:
    """Each value at --at that float64 holds as 0 or subnormal (below 2.2e-308) while sympy's
    exact value is not 0: ``{"order", "x", "exact", "below_float64"}``, ``exact`` the float or,
    where float64 holds it as 0 too, its 30 digits as text. Asked of the exact maths' child
    only when there is such a value, at most EXACT_POINTS points, for f of one variable."""
    tiny = np.isfinite(values) & (np.abs(values) < np.finfo(np.float64).tiny)
    if args.grid or not tiny.any() or len(xs) > EXACT_POINTS or len(fn.variables) > 1:
        return []
    from hograd_serving.exact import exact_values

    answer = exact_values(fn.text, values.shape[0] - 1, xs.tolist()).fields
    found = []
    for k, i in zip(*np.nonzero(tiny), strict=True):
        rows, below = answer.get("values", []), answer.get("below_float64", [])
        exact = rows[k][i] if k < len(rows) else None
        text = below[k][i] if k < len(below) else None
        if text is not None or (exact is not None and exact != 0):
            item = {"order": int(k), "x": float(xs[i]), "exact": text if text else exact}
            found.append({**item, "below_float64": text is not None})
    return found


def _torch_caveats(args: argparse.Namespace, fn, xs: np.ndarray) -> list:
    """Where PyTorch's own derivative formulas lose digits although f has every derivative
    there (hograd_core.point_notes.TORCH_FORMULAS: an i0 whose argument is within 1 of 0,
    lgamma, digamma or polygamma of a negative argument, trigamma's 9 or 10 digits). At --at
    points, one ``{"x", "piece", "kind"}`` per point; on a --grid, one ``{"piece", "kind",
    "points", "from", "to"}`` per piece and kind: how many of the grid's points, and the
    first and the last of them. Taylor mode does not use those formulas."""
    from hograd_core.point_notes import TORCH_FORMULAS, point_notes

    if args.method == "taylor" or len(fn.variables) > 1:
        return []
    found = []
    for x0 in xs.tolist():
        for note in point_notes(fn, x0):
            if note.kind in TORCH_FORMULAS:
                found.append({"x": x0, "piece": note.piece, "kind": note.kind})
    if not args.grid:
        return found
    spans: dict[tuple[str, str], dict] = {}
    for c in found:  # in the grid's order: the first point seen is the lowest
        span = spans.setdefault(
            (c["piece"], c["kind"]),
            {"piece": c["piece"], "kind": c["kind"], "points": 0, "from": c["x"]},
        )
        span["points"] += 1
        span["to"] = c["x"]
    return list(spans.values())


def _run_derivatives(args: argparse.Namespace) -> dict:
    from hograd_core.language import parse
    from hograd_core.nested_autograd import BUDGET, derivatives

    fn = parse(args.function)
    xs = (
        _grid(args.grid)
        if args.grid
        else np.array(_numbers(args.at or "0", "--at", BUDGET.max_points))
    )
    if args.method in ("jvp", "forward_ad") or args.costs:
        return _run_forward(args, fn, xs)
    result = derivatives(fn, xs, args.order, method=args.method)
    return {
        "function": args.function,
        "variables": list(fn.variables),
        "latex": _latex(fn),
        "order": result.order,
        "method": result.method,
        "x": result.xs,
        "values": result.values,
        "constant_from": result.constant_from,
        "nonfinite": list(result.nonfinite),
        "not_exact_zeros": _not_exact_zeros(args, fn, xs, result.values),
        "torch_caveats": _torch_caveats(args, fn, xs),
        "seconds": result.seconds,
    }


def _run_forward(args: argparse.Namespace, fn, xs: np.ndarray) -> dict:
    """Derivatives by a forward route (jvp, forward_ad), and with --costs every route's
    seconds and saved bytes per order."""
    from hograd_core.forward_mode import forward_costs, forward_derivative

    start = time.perf_counter()
    method = {"autograd": "reverse"}.get(args.method, args.method)
    values = np.array([forward_derivative(fn, xs, k, method) for k in range(args.order + 1)])
    out = {
        "function": args.function,
        "variables": list(fn.variables),
        "latex": _latex(fn),
        "order": args.order,
        "method": args.method,
        "x": xs,
        "values": values,
        "constant_from": None,
        "nonfinite": [int(n) for n in (~np.isfinite(values)).sum(axis=1)],
        "seconds": time.perf_counter() - start,
    }
    out["not_exact_zeros"] = _not_exact_zeros(args, fn, xs, values)
    if args.costs:
        c = forward_costs(fn, xs, args.order)
        out["costs"] = {
            r: {
                "seconds": c.seconds[r],
                "saved_bytes": c.saved_bytes[r],
                "largest_gap": float(np.nanmax(np.abs(c.values[r] - values))),
            }
            for r in c.routes
        }
    return out


def _print_costs(costs: dict) -> None:
    print("  order  " + "  ".join(f"{r + ' ms':>14}{r + ' bytes':>18}" for r in costs))
    for k in range(len(next(iter(costs.values()))["seconds"])):
        cells = []
        for c in costs.values():
            ms, saved = c["seconds"][k], c["saved_bytes"][k]
            cells.append(
                f"{ms * 1e3:14.3f}{saved:18,.0f}" if math.isfinite(ms) else f"{'-':>14}{'-':>18}"
            )
        print(f"  {k:5d}  " + "  ".join(cells))
    gaps = ", ".join(f"{r} {_fmt(c['largest_gap'])}" for r, c in costs.items())
    print(f"  largest difference from --method: {gaps}")


def _run_gradcheck(args: argparse.Namespace) -> dict:
    from hograd_core.grad_checks import GradChecks, run_gradchecks
    from hograd_core.language import parse

    fn = parse(args.function)
    xs = _grid(args.at, "--at") if ":" in args.at else np.array(_numbers(args.at, "--at"))
    r: GradChecks = run_gradchecks(fn, xs)
    out = {
        "function": args.function,
        "variables": list(fn.variables),
        "latex": _latex(fn),
        "points": len(r.points),
        "eps": r.eps,
        "atol": r.atol,
        "rtol": r.rtol,
        "skipped": [{"x": s.x, "reason": s.reason, "piece": s.piece} for s in r.skipped],
    }
    for check in (r.gradcheck, r.gradgradcheck):
        out[check.name] = check.passed  # None (null): no point left to check
        out[f"{check.name}_points"] = list(check.points)
        out[f"{check.name}_message"] = check.message or None  # PyTorch's own words
        out[f"{check.name}_mismatches"] = [
            {
                "input": m.input,
                "row": m.row,
                "column": m.column,
                "x": check.points[m.column],
                "numerical": m.numerical,
                "analytical": m.analytical,
            }
            for m in check.mismatches
        ]
    return out


def _print_gradcheck(out: dict) -> None:
    print(f"f = {out['function']}    variables: {', '.join(out['variables']) or '(none)'}")
    print(
        f"  {out['points']} points; eps {out['eps']:g}, atol {out['atol']:g}, rtol {out['rtol']:g}"
    )
    for name in ("gradcheck", "gradgradcheck"):
        checked = len(out[f"{name}_points"])
        verdict = {True: "passed", False: "failed", None: "not run"}[out[name]]
        print(f"  {name}: {verdict} on {checked} points")
        if out[f"{name}_message"]:
            for line in out[f"{name}_message"].rstrip().splitlines():
                print(f"    | {line}")
        for m in out[f"{name}_mismatches"]:
            print(
                f"    differs at x = {_fmt(m['x'])} (input {m['input']}, row {m['row']}): "
                f"numerical {_fmt(m['numerical'])}, analytical {_fmt(m['analytical'])}"
            )
    for s in out["skipped"]:
        piece = f": {s['piece']}" if s["piece"] else ""
        print(f"  not checked at x = {_fmt(s['x'])} ({s['reason']}{piece})")


def _run_custom(args: argparse.Namespace) -> dict:
    from hograd_core.custom_function import MAX_POINTS as CUSTOM_POINTS
    from hograd_core.custom_function import custom_spec, run_custom

    spec = custom_spec(args.function, args.backward)
    variant = (
        "detached"
        if args.detach
        else "once"
        if args.once_differentiable
        else "second_function"
        if args.second_function
        else "written"
    )
    if len(args.at.split(":")) == 3:  # the grid's size is checked before linspace allocates it
        count = args.at.split(":")[2].strip()
        if count.isdigit() and int(count) > CUSTOM_POINTS:
            raise BudgetError("budget.custom_points", limit=CUSTOM_POINTS, got=int(count))
    r = run_custom(spec, _grid(args.at, "--at"), variant)
    return {
        "function": args.function,
        "backward": args.backward,
        "variant": variant,
        "x": list(r.points),
        "gradcheck": r.gradcheck.passed,
        "gradgradcheck": r.gradgradcheck.passed,
        "first": list(r.first),
        "second": list(r.second),
        "saved": list(r.saved),
        "error": r.error,
        "gradcheck_message": r.gradcheck.message or None,
        "gradgradcheck_message": r.gradgradcheck.message or None,
        "skipped": [{"x": s.x, "reason": s.reason, "piece": s.piece} for s in r.skipped],
    }


def _print_custom(out: dict) -> None:
    print(f"f = {out['function']}    backward = {out['backward']}    ({out['variant']})")
    print(f"  saved for backward: {', '.join(out['saved']) or '(nothing)'}")
    for name in ("gradcheck", "gradgradcheck"):
        verdict = {True: "passed", False: "failed", None: "not run"}[out[name]]
        print(f"  {name}: {verdict}")
        for line in (out[f"{name}_message"] or "").rstrip().splitlines():
            print(f"    | {line}")
    print("  x, first, second:")
    for x, d1, d2 in zip(out["x"], out["first"], out["second"], strict=True):
        print(f"    {_fmt(x)}  {_fmt(d1)}  {_fmt(d2)}")
    if out["error"]:
        print(f"  the second backward raised: {out['error']}")


#: What the Hessian is, for each reason the test gives (Verdict.reason).
_DEFINITENESS = {
    "positive_definite": "positive definite",
    "negative_definite": "negative definite",
    "indefinite": "indefinite",
    "zero_eigenvalue": "singular and semidefinite",
    "not_finite": "not finite",
}
#: What the test says about a critical point, for each reason.
_AT_CRITICAL = {
    "positive_definite": "a strict local minimum",
    "negative_definite": "a strict local maximum",
    "indefinite": "a saddle point",
    "zero_eigenvalue": "the second-derivative test is inconclusive; higher-order terms decide",
    "not_finite": "the second-derivative test cannot be applied",
}


def _verdict_line(out: dict) -> str:
    """The test's verdict in words. A point is a minimum, maximum or saddle only where the
    gradient vanishes; elsewhere only the shape of H is reported."""
    from hograd_core.hessian import CRITICAL_TOLERANCE

    shape = f"H is {_DEFINITENESS[out['reason']]}"
    tol = f"{CRITICAL_TOLERANCE:g}"
    if out["critical"]:
        return f"critical point (every |df/dx_i| <= {tol}): {_AT_CRITICAL[out['reason']]} ({shape})"
    return (
        f"not a critical point (some |df/dx_i| > {tol}), so the second-derivative test does not "
        f"apply; {shape}"
    )


def _diagonal(args: argparse.Namespace, fn) -> dict:  # a parsed Function
    """The "diagonal" fields: exact, and with --hutchinson N its estimate and standard error."""
    from hograd_core.diagonal import typed_diagonal
    from hograd_core.hvp_graph import numbers

    d = typed_diagonal(fn, numbers(args.at, "point", fn), args.hutchinson, args.seed)
    out: dict = {"diagonal": d.diagonal}
    if d.estimate is not None:
        out |= {
            "hutchinson": d.estimate,
            "hutchinson_standard_error": d.standard_error,
            "probes": d.probes,
            "seed": d.seed,
        }
    return out


def _run_hvp(args: argparse.Namespace) -> dict:
    from hograd_core.curvature import verdict
    from hograd_core.hessian import hvp
    from hograd_core.hvp_graph import numbers
    from hograd_core.language import parse

    fn = parse(args.function)
    if not fn.variables:  # said before the point is read: a point of nothing is no point
        raise ArgumentError("budget.no_variables")
    if args.hutchinson and not args.diagonal:
        raise _UsageError("--hutchinson: estimates the diagonal; add --diagonal")
    if args.vector is None and not args.diagonal:
        raise _UsageError("hvp: --vector is required (it may be left out with --diagonal)")
    if args.vector is None:  # the diagonal alone
        started = time.perf_counter()
        extra = _diagonal(args, fn)
        return {
            "function": args.function,
            "variables": list(fn.variables),
            "latex": _latex(fn),
            "point": np.array(numbers(args.at, "point", fn), dtype=np.float64),
            **extra,
            "seconds": time.perf_counter() - started,
        }
    r = hvp(fn, numbers(args.at, "point", fn), numbers(args.vector, "vector", fn))
    test = verdict(r)
    return {
        "function": args.function,
        "variables": list(r.variables),
        "latex": _latex(fn),
        "point": r.point,
        "vector": r.vector,
        "value": r.value,
        "gradient": r.gradient,
        "hessian": r.hessian,
        "hvp": r.hvp,
        "eigenvalues": r.eigenvalues,
        "eigenvectors": r.eigenvectors,
        "curvature": r.curvature,
        "classification": r.classification,
        "critical": r.critical,
        "reason": test.reason,
        "definiteness": _DEFINITENESS[test.reason],
        "minors": list(test.minors),
        "seconds": r.seconds,
        **(_diagonal(args, fn) if args.diagonal else {}),
    }


def _cpp(args: argparse.Namespace) -> str:
    """The C++ program of ``derivatives`` (one point) or ``hvp``, checked as the numbers are."""
    from hograd_core.cpp_code import derivatives_cpp, hvp_cpp
    from hograd_core.hvp_graph import numbers
    from hograd_core.language import parse
    from hograd_core.nested_autograd import BUDGET, derivatives

    fn = parse(args.function)
    if args.command == "hvp":
        if not fn.variables:
            raise ArgumentError("budget.no_variables")
        if args.vector is None or args.diagonal:
            raise _UsageError("--cpp: the program is for one Hv: give --vector, not --diagonal")
        return hvp_cpp(fn, numbers(args.at, "point", fn), numbers(args.vector, "vector", fn))
    if args.method in ("jvp", "forward_ad") or args.costs:
        raise _UsageError("--cpp: the program is nested autograd: leave out --method and --costs")
    if args.grid or args.json:
        raise _UsageError("--cpp: the program is for one point: give --at X, not --grid or --json")
    points = _numbers(args.at or "0", "--at", BUDGET.max_points)
    if len(points) != 1:
        raise _UsageError(f"--cpp: the program is for one point: give --at X, got {args.at!r}")
    x0 = points[0]
    derivatives(fn, np.array([x0]), args.order)  # the budget and the point, checked as without
    return derivatives_cpp(fn, x0, args.order)


def _fmt(v: float) -> str:
    return f"{v + 0.0:.12g}"  # + 0.0 turns -0.0 into 0.0


def _print_diagonal(out: dict) -> None:
    if "diagonal" in out:
        print(f"  diagonal = [{', '.join(map(_fmt, out['diagonal']))}]  (exact: n products H e_i)")
    if "hutchinson" in out:
        print(
            f"  Hutchinson, {out['probes']} probes, seed {out['seed']} = "
            f"[{', '.join(map(_fmt, out['hutchinson']))}]"
        )
        print(f"  standard error = [{', '.join(map(_fmt, out['hutchinson_standard_error']))}]")


#: What each kind of caveat says, after "note: at x = X, PIECE".
CAVEATS = {
    "i0_near_zero": (
        "has its argument within 1 of 0. PyTorch differentiates i0 to i1 and i1 to "
        "i0(a) - i1(a)/a (the constant 1/2 where |a| <= 2.2e-16), which loses digits near "
        "a = 0: from order 3 on, these values may be wrong (at a = 0, 0 from order 4 on)."
    ),
    "trigamma": (
        "uses trigamma, polygamma(1, a), in one of its derivatives: PyTorch computes it to 9 "
        "or 10 significant digits only (2.8e-10 relative at a = 2.5), so the last digits of "
        "the orders that use it can differ from the truth."
    ),
    "polygamma_left": (
        "has a negative argument. Its derivatives are polygamma(m, a), which PyTorch computes "
        "for m >= 2 by adding the terms (a + k)^-(m+1) one by one; near a = -k - 1/2 the terms "
        "of two poles cancel, so the higher orders may be wrong (torch.polygamma(10, -20.5) is "
        "6 times the truth)."
    ),
}


def _print_caveats(caveats: list) -> None:
    for c in caveats:
        where = (
            f"at x = {_fmt(c['x'])}"
            if "x" in c
            else f"at {c['points']} of the grid's points, from x = {_fmt(c['from'])} "
            f"to x = {_fmt(c['to'])}"
        )
        print(
            f"  note: {where}, {c['piece']} {CAVEATS[c['kind']]} "
            "--method taylor does not use that formula."
        )


def _print_not_exact_zeros(found: list, caveat_xs: set | frozenset = frozenset()) -> None:
    """The zeros (and subnormal numbers) above whose exact value is not 0, and why
    (``caveat_xs``: the points where the note on PyTorch's formula for i0 is the reason)."""
    smallest = f"{math.ulp(0.0):.2g}"
    for z in found:
        where = f"  order {z['order']} at x = {_fmt(z['x'])}: not exact;"
        if z["below_float64"]:
            print(
                f"{where} the exact value is {z['exact']}, at most half of float64's smallest "
                f"positive number ({smallest}), so float64 holds it as 0"
            )
        elif z["x"] in caveat_xs:
            print(f"{where} the exact value is {_fmt(z['exact'])} (see the note above)")
        else:
            print(
                f"{where} the exact value is {_fmt(z['exact'])}; float64 lost its digits (underflow or rounding)"
            )


def _print_human(command: str, out: dict) -> None:
    print(f"f = {out['function']}    variables: {', '.join(out['variables']) or '(none)'}")
    if command == "derivatives":
        xs, values = out["x"], out["values"]
        if len(xs) == 1:
            for k, row in enumerate(values):
                print(f"  order {k}: {_fmt(row[0])}")
        else:
            print(f"  {len(xs)} points from {_fmt(xs[0])} to {_fmt(xs[-1])}")
            for k, row in enumerate(values):
                finite = row[np.isfinite(row)]
                span = (
                    f"{_fmt(finite.min())} .. {_fmt(finite.max())}"
                    if finite.size
                    else "no finite value"
                )
                print(f"  order {k}: {span}")
        if out["constant_from"] is not None:
            print(f"  order {out['constant_from']} is constant in x; higher orders are exactly 0")
        if any(out["nonfinite"]):
            print(f"  NaN or inf values per order: {out['nonfinite']}")
        caveats = out.get("torch_caveats", [])
        _print_caveats(caveats)
        _print_not_exact_zeros(
            out.get("not_exact_zeros", []), {c["x"] for c in caveats if "x" in c}
        )
        if "costs" in out:
            _print_costs(out["costs"])
    elif "vector" not in out:  # hvp --diagonal without --vector
        print(f"  at {', '.join(map(_fmt, out['point']))}")
        _print_diagonal(out)
    else:
        print(
            f"  at {', '.join(map(_fmt, out['point']))}    v = {', '.join(map(_fmt, out['vector']))}"
        )
        print(f"  f        = {_fmt(out['value'])}")
        print(f"  gradient = [{', '.join(map(_fmt, out['gradient']))}]")
        print(
            "  Hessian  = [" + "; ".join(", ".join(map(_fmt, row)) for row in out["hessian"]) + "]"
        )
        print(f"  Hv       = [{', '.join(map(_fmt, out['hvp']))}]")
        print(f"  eigenvalues = [{', '.join(map(_fmt, out['eigenvalues']))}]")
        print(f"  leading minors = [{', '.join(map(_fmt, out['minors']))}]")
        print(f"  {_verdict_line(out)}")
        _print_diagonal(out)
    print(
        f"  ({command}: {out['seconds'] * 1000:.1f} ms of computing; before it, "
        f"{out['startup_seconds'] * 1000:,.0f} ms of start-up: Python, loading PyTorch, its first "
        "autograd call)"
    )


def _startup() -> float:
    """Load PyTorch and take one gradient, so that the seconds a verb reports are its own work.
    Returns the seconds since the command line started (``time.perf_counter()`` at import):
    Python, PyTorch's import, and PyTorch's first autograd call (which imports more of PyTorch:
    about 0.3 s of a first ``derivatives`` call went there)."""
    import torch

    x = torch.ones(1, dtype=torch.float64, requires_grad=True)
    torch.autograd.grad(x * x, x, torch.ones_like(x))
    return time.perf_counter() - _STARTED


def _compute(args: argparse.Namespace) -> int:
    """derivatives, hvp, gradcheck and custom: the numbers, printed or as JSON."""
    startup = _startup()
    if getattr(args, "cpp", False):
        print(_cpp(args), end="")
        return 0
    run = {
        "derivatives": _run_derivatives,
        "hvp": _run_hvp,
        "gradcheck": _run_gradcheck,
        "custom": _run_custom,
    }
    started = time.perf_counter()
    out = run[args.command](args)
    out["seconds"] = out.get("seconds", time.perf_counter() - started)
    out["startup_seconds"] = startup
    if args.json:
        print(json.dumps(_jsonable(out)))
    elif args.command == "gradcheck":
        _print_gradcheck(out)
    elif args.command == "custom":
        _print_custom(out)
    else:
        _print_human(args.command, out)
    return 0


def _graph(args: argparse.Namespace) -> int:
    from .graph import run_graph  # loads torch, and graphviz for --torchviz

    print(run_graph(args))
    return 0


VERBS.update(
    {
        "derivatives": (_add_derivatives, _compute),
        "hvp": (_add_hvp, _compute),
        "graph": (graph_args.add_parser, _graph),
        "gradcheck": (_add_gradcheck, _compute),
        "custom": (_add_custom, _compute),
        "decode": (decode.add_parser, decode.run),
    }
)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["run"]:  # the program runner has its own parser (hograd_cli/run.py)
        from .run import main as run_main  # loads torch

        return run_main(argv[1:])
    want_json = "--json" in argv
    try:
        parser = _build_parser()
        args = _strip_guard(parser.parse_args(_fix_negative_values(argv)))
        return VERBS[args.command][1](args)
    except (HogradError, _UsageError) as err:
        message = error_text(err, "en") if isinstance(err, HogradError) else str(err)
        if want_json:
            print(json.dumps({"error": message}))
        print(f"error: {message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
