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

``--lang zh`` (or HOGRAD_LANG, or a Chinese locale: :mod:`.lang`) gives the help, the tables and
the messages in Chinese; JSON keys and machine values stay the same in every language.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Callable, Sequence

import numpy as np

from hograd_core.errors import ArgumentError, BudgetError, HogradError
from hograd_ui.i18n import error_text, tr

from . import decode, graph_args
from . import run as run_verb
from .argparse_words import phrase
from .lang import Parser, UsageError, choose

_STARTED = time.perf_counter()  # the command line's start, as near as this module can see
_VALUE_OPTIONS = ("--at", "--grid", "--vector", "--v")


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
        raise UsageError("cli.error.grid", option=option, got=repr(text))
    low, high = _numbers(parts[0], option)[0], _numbers(parts[1], option)[0]
    try:
        count = int(parts[2])
    except ValueError:
        raise UsageError("cli.error.grid_count", option=option, got=repr(parts[2])) from None
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


def _function_help(lang: str, example: str = "x**3") -> str:
    return tr("cli.help.function", lang, example=example)


def _add_derivatives(sub: argparse._SubParsersAction, lang: str) -> None:
    f = HELP_FIGURES
    d = sub.add_parser(
        "derivatives",
        lang=lang,
        help=tr("cli.help.derivatives", lang),
        description=tr("cli.help.derivatives.description", lang),
        epilog=tr("cli.help.derivatives.epilog", lang),
    )
    d.add_argument("function", help=_function_help(lang))
    d.add_argument(
        "--order",
        type=int,
        default=2,
        metavar="N",
        help=tr(
            "cli.help.derivatives.order",
            lang,
            autograd=f["max_order_autograd"],
            taylor=f["max_order_taylor"],
        ),
    )
    where = d.add_mutually_exclusive_group()
    where.add_argument("--at", default=None, help=tr("cli.help.derivatives.at", lang))
    where.add_argument(
        "--grid",
        default=None,
        help=tr("cli.help.derivatives.grid", lang, points=f"{f['max_points']:,}"),
    )
    d.add_argument(
        "--method",
        default="autograd",
        choices=(*f["methods"], "jvp", "forward_ad"),
        metavar="METHOD",  # its help lists them: the usage line stays within 80 columns
        help=tr("cli.help.derivatives.method", lang),
    )
    d.add_argument(
        "--costs",
        action="store_true",
        help=tr("cli.help.derivatives.costs", lang, routes=", ".join(f["routes"])),
    )
    d.add_argument("--json", action="store_true", help=tr("cli.help.json", lang))
    d.add_argument("--cpp", action="store_true", help=tr("cli.help.derivatives.cpp", lang))


def _add_hvp(sub: argparse._SubParsersAction, lang: str) -> None:
    h = sub.add_parser(
        "hvp", lang=lang, help=tr("cli.help.hvp", lang), epilog=tr("cli.help.hvp.epilog", lang)
    )
    h.add_argument("function", help=_function_help(lang, "w1**2*sin(w2)"))
    h.add_argument("--at", required=True, help=tr("cli.help.hvp.at", lang))
    h.add_argument("--vector", default=None, help=tr("cli.help.hvp.vector", lang))
    h.add_argument("--diagonal", action="store_true", help=tr("cli.help.hvp.diagonal", lang))
    h.add_argument(
        "--hutchinson",
        type=int,
        default=0,
        metavar="N",
        help=tr("cli.help.hvp.hutchinson", lang, probes=f"{HELP_FIGURES['max_probes']:,}"),
    )
    h.add_argument("--seed", type=int, default=0, help=tr("cli.help.hvp.seed", lang))
    h.add_argument("--json", action="store_true", help=tr("cli.help.json", lang))
    h.add_argument("--cpp", action="store_true", help=tr("cli.help.hvp.cpp", lang))


def _add_gradcheck(sub: argparse._SubParsersAction, lang: str) -> None:
    g = sub.add_parser(
        "gradcheck",
        lang=lang,
        help=tr("cli.help.gradcheck", lang),
        epilog=tr("cli.help.gradcheck.epilog", lang),
    )
    g.add_argument("function", help=_function_help(lang))
    g.add_argument("--at", required=True, help=tr("cli.help.gradcheck.at", lang))
    g.add_argument("--json", action="store_true", help=tr("cli.help.json", lang))


def _add_custom(sub: argparse._SubParsersAction, lang: str) -> None:
    c = sub.add_parser(
        "custom",
        lang=lang,
        help=tr("cli.help.custom", lang),
        description=tr("cli.help.custom.description", lang),
        epilog=tr("cli.help.custom.epilog", lang),
    )
    c.add_argument("function", help=tr("cli.help.custom.function", lang))
    c.add_argument("--backward", required=True, help=tr("cli.help.custom.backward", lang))
    c.add_argument(
        "--at",
        required=True,
        help=tr("cli.help.custom.at", lang, points=HELP_FIGURES["custom_points"]),
    )
    variant = c.add_mutually_exclusive_group()
    variant.add_argument("--detach", action="store_true", help=tr("cli.help.custom.detach", lang))
    variant.add_argument(
        "--once-differentiable", action="store_true", help=tr("cli.help.custom.once", lang)
    )
    variant.add_argument(
        "--second-function", action="store_true", help=tr("cli.help.custom.second", lang)
    )
    c.add_argument("--json", action="store_true", help=tr("cli.help.json", lang))


#: The verbs: name -> (adds its parser in a language, without loading torch; runs it and
#: returns the exit status, loading what it needs). A new verb is one line here and a module
#: of its own with these two functions (hograd_cli/decode.py is one).
VERBS: dict[str, tuple[Callable[[argparse._SubParsersAction, str], None], Callable[..., int]]] = {}


def _build_parser(lang: str = "en") -> argparse.ArgumentParser:
    parser = Parser(
        prog="python -m hograd_cli",
        lang=lang,
        verbs=True,
        description=tr("cli.help.description", lang),
        epilog=tr("cli.help.examples", lang),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(
        title=phrase("positional arguments", lang), dest="command", required=True, metavar="VERB"
    )
    parser.open_groups()
    for add, _ in VERBS.values():
        add(sub, lang)
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
    there (hograd_core.point_notes.TORCH_FORMULAS: an i0 or i1 whose argument is within 1 of 0,
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


def _print_costs(costs: dict, lang: str) -> None:
    heads = "  ".join(
        f"{tr('cli.out.costs_ms', lang, route=r):>14}{tr('cli.out.costs_bytes', lang, route=r):>18}"
        for r in costs
    )
    print(f"  {tr('cli.out.costs_order', lang):<5}  " + heads)
    for k in range(len(next(iter(costs.values()))["seconds"])):
        cells = []
        for c in costs.values():
            ms, saved = c["seconds"][k], c["saved_bytes"][k]
            cells.append(
                f"{ms * 1e3:14.3f}{saved:18,.0f}" if math.isfinite(ms) else f"{'-':>14}{'-':>18}"
            )
        print(f"  {k:5d}  " + "  ".join(cells))
    gaps = ", ".join(f"{r} {_fmt(c['largest_gap'])}" for r, c in costs.items())
    print("  " + tr("cli.out.costs_gap", lang, gaps=gaps))


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


#: The words for a check's outcome (True, False; None: no point left to check).
_VERDICTS = {True: "cli.verdict.passed", False: "cli.verdict.failed", None: "cli.verdict.not_run"}
#: Why a point was not checked (hograd_core.grad_checks.Skipped.reason).
_SKIPPED = {
    "undefined": "cli.skip.undefined",
    "edge": "cli.skip.edge",
    "kink": "cli.skip.kink",
    "derivative": "cli.skip.derivative",
    "second": "cli.skip.second",
}


def _function_line(out: dict, lang: str) -> str:
    names = ", ".join(out["variables"]) or tr("cli.out.none", lang)
    return tr("cli.out.function", lang, function=out["function"], variables=names)


def _print_gradcheck(out: dict, lang: str) -> None:
    print(_function_line(out, lang))
    setup = {k: f"{out[k]:g}" for k in ("eps", "atol", "rtol")}
    print("  " + tr("cli.out.check_setup", lang, points=out["points"], **setup))
    for name in ("gradcheck", "gradgradcheck"):
        checked = len(out[f"{name}_points"])
        verdict = tr(_VERDICTS[out[name]], lang)
        print("  " + tr("cli.out.check", lang, name=name, verdict=verdict, points=checked))
        if out[f"{name}_message"]:
            for line in out[f"{name}_message"].rstrip().splitlines():
                print(f"    | {line}")
        for m in out[f"{name}_mismatches"]:
            numbers = {k: _fmt(m[k]) for k in ("x", "numerical", "analytical")}
            print("    " + tr("cli.out.mismatch", lang, input=m["input"], row=m["row"], **numbers))
    for s in out["skipped"]:
        piece = f": {s['piece']}" if s["piece"] else ""
        reason = tr(_SKIPPED[s["reason"]], lang) if s["reason"] in _SKIPPED else s["reason"]
        print("  " + tr("cli.out.not_checked", lang, x=_fmt(s["x"]), reason=reason, piece=piece))


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


def _print_custom(out: dict, lang: str) -> None:
    print(
        tr(
            "cli.out.custom",
            lang,
            function=out["function"],
            backward=out["backward"],
            variant=out["variant"],
        )
    )
    saved = ", ".join(out["saved"]) or tr("cli.out.nothing", lang)
    print("  " + tr("cli.out.saved", lang, saved=saved))
    for name in ("gradcheck", "gradgradcheck"):
        verdict = tr(_VERDICTS[out[name]], lang)
        print("  " + tr("cli.out.check_short", lang, name=name, verdict=verdict))
        for line in (out[f"{name}_message"] or "").rstrip().splitlines():
            print(f"    | {line}")
    print("  " + tr("cli.out.custom_columns", lang))
    for x, d1, d2 in zip(out["x"], out["first"], out["second"], strict=True):
        print(f"    {_fmt(x)}  {_fmt(d1)}  {_fmt(d2)}")
    if out["error"]:
        print("  " + tr("cli.out.custom_raised", lang, error=out["error"]))


#: What the Hessian is, for each reason the test gives (Verdict.reason). In English, the JSON's
#: "definiteness" too (a value of five, the same in every language).
_DEFINITENESS = {
    "positive_definite": "cli.definite.positive_definite",
    "negative_definite": "cli.definite.negative_definite",
    "indefinite": "cli.definite.indefinite",
    "zero_eigenvalue": "cli.definite.zero_eigenvalue",
    "not_finite": "cli.definite.not_finite",
}
#: What the test says about a critical point, for each reason.
_AT_CRITICAL = {
    "positive_definite": "cli.critical.positive_definite",
    "negative_definite": "cli.critical.negative_definite",
    "indefinite": "cli.critical.indefinite",
    "zero_eigenvalue": "cli.critical.zero_eigenvalue",
    "not_finite": "cli.critical.not_finite",
}


def _verdict_line(out: dict, lang: str) -> str:
    """The test's verdict in words. A point is a minimum, maximum or saddle only where the
    gradient vanishes; elsewhere only the shape of H is reported."""
    from hograd_core.hessian import CRITICAL_TOLERANCE

    shape = tr("cli.out.shape", lang, definiteness=tr(_DEFINITENESS[out["reason"]], lang))
    tol = f"{CRITICAL_TOLERANCE:g}"
    if out["critical"]:
        verdict = tr(_AT_CRITICAL[out["reason"]], lang)
        return tr("cli.out.critical", lang, tol=tol, verdict=verdict, shape=shape)
    return tr("cli.out.not_critical", lang, tol=tol, shape=shape)


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
        raise UsageError("cli.error.hutchinson")
    if args.vector is None and not args.diagonal:
        raise UsageError("cli.error.vector")
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
        "definiteness": tr(_DEFINITENESS[test.reason], "en"),
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
            raise UsageError("cli.error.cpp_hvp")
        return hvp_cpp(fn, numbers(args.at, "point", fn), numbers(args.vector, "vector", fn))
    if args.method in ("jvp", "forward_ad") or args.costs:
        raise UsageError("cli.error.cpp_method")
    if args.grid or args.json:
        raise UsageError("cli.error.cpp_grid")
    points = _numbers(args.at or "0", "--at", BUDGET.max_points)
    if len(points) != 1:
        raise UsageError("cli.error.cpp_points", got=repr(args.at))
    x0 = points[0]
    derivatives(fn, np.array([x0]), args.order)  # the budget and the point, checked as without
    return derivatives_cpp(fn, x0, args.order)


def _fmt(v: float) -> str:
    return f"{v + 0.0:.12g}"  # + 0.0 turns -0.0 into 0.0


def _numbers_text(values) -> str:
    return ", ".join(map(_fmt, values))


def _print_diagonal(out: dict, lang: str) -> None:
    if "diagonal" in out:
        print("  " + tr("cli.out.diagonal", lang, values=_numbers_text(out["diagonal"])))
    if "hutchinson" in out:
        estimate = _numbers_text(out["hutchinson"])
        hutchinson = tr(
            "cli.out.hutchinson", lang, probes=out["probes"], seed=out["seed"], values=estimate
        )
        print("  " + hutchinson)
        error = _numbers_text(out["hutchinson_standard_error"])
        print("  " + tr("cli.out.standard_error", lang, values=error))


#: What each kind of caveat says, after "note: at x = X, PIECE".
CAVEATS = {
    "i0_near_zero": "cli.caveat.i0_near_zero",
    "i1_near_zero": "cli.caveat.i1_near_zero",
    "trigamma": "cli.caveat.trigamma",
    "polygamma_left": "cli.caveat.polygamma_left",
}


def _print_caveats(caveats: list, lang: str) -> None:
    for c in caveats:
        where = (
            tr("cli.out.note_at", lang, x=_fmt(c["x"]))
            if "x" in c
            else tr(
                "cli.out.note_grid",
                lang,
                points=c["points"],
                low=_fmt(c["from"]),
                high=_fmt(c["to"]),
            )
        )
        caveat = tr(CAVEATS[c["kind"]], lang)
        print("  " + tr("cli.out.note", lang, where=where, piece=c["piece"], caveat=caveat))


def _print_not_exact_zeros(
    found: list, lang: str, caveat_xs: set | frozenset = frozenset()
) -> None:
    """The zeros (and subnormal numbers) above whose exact value is not 0, and why
    (``caveat_xs``: the points where the note on PyTorch's formula for i0 is the reason)."""
    smallest = f"{math.ulp(0.0):.2g}"
    for z in found:
        where = {"k": z["order"], "x": _fmt(z["x"])}
        if z["below_float64"]:
            line = tr("cli.out.zero_below", lang, exact=z["exact"], smallest=smallest, **where)
        elif z["x"] in caveat_xs:
            line = tr("cli.out.zero_noted", lang, exact=_fmt(z["exact"]), **where)
        else:
            line = tr("cli.out.zero_lost", lang, exact=_fmt(z["exact"]), **where)
        print("  " + line)


def _print_human(command: str, out: dict, lang: str) -> None:
    print(_function_line(out, lang))
    if command == "derivatives":
        xs, values = out["x"], out["values"]
        if len(xs) == 1:
            for k, row in enumerate(values):
                print("  " + tr("cli.out.order", lang, k=k, value=_fmt(row[0])))
        else:
            low, high = _fmt(xs[0]), _fmt(xs[-1])
            print("  " + tr("cli.out.points", lang, count=len(xs), low=low, high=high))
            for k, row in enumerate(values):
                finite = row[np.isfinite(row)]
                span = (
                    f"{_fmt(finite.min())} .. {_fmt(finite.max())}"
                    if finite.size
                    else tr("cli.out.no_finite", lang)
                )
                print("  " + tr("cli.out.order", lang, k=k, value=span))
        if out["constant_from"] is not None:
            print("  " + tr("cli.out.constant", lang, k=out["constant_from"]))
        if any(out["nonfinite"]):
            print("  " + tr("cli.out.nonfinite", lang, counts=out["nonfinite"]))
        caveats = out.get("torch_caveats", [])
        _print_caveats(caveats, lang)
        _print_not_exact_zeros(
            out.get("not_exact_zeros", []), lang, {c["x"] for c in caveats if "x" in c}
        )
        if "costs" in out:
            _print_costs(out["costs"], lang)
    elif "vector" not in out:  # hvp --diagonal without --vector
        print("  " + tr("cli.out.at", lang, point=_numbers_text(out["point"])))
        _print_diagonal(out, lang)
    else:
        point, vector = _numbers_text(out["point"]), _numbers_text(out["vector"])
        rows = "; ".join(_numbers_text(row) for row in out["hessian"])
        lines = [
            tr("cli.out.at_v", lang, point=point, vector=vector),
            tr("cli.out.value", lang, value=_fmt(out["value"])),
            tr("cli.out.gradient", lang, values=_numbers_text(out["gradient"])),
            tr("cli.out.hessian", lang, rows=rows),
            tr("cli.out.hv", lang, values=_numbers_text(out["hvp"])),
            tr("cli.out.eigenvalues", lang, values=_numbers_text(out["eigenvalues"])),
            tr("cli.out.minors", lang, values=_numbers_text(out["minors"])),
            _verdict_line(out, lang),
        ]
        for line in lines:
            print("  " + line)
        _print_diagonal(out, lang)
    timing = tr(
        "cli.out.timing",
        lang,
        command=command,
        ms=f"{out['seconds'] * 1000:.1f}",
        startup=f"{out['startup_seconds'] * 1000:,.0f}",
    )
    print("  " + timing)


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
        _print_gradcheck(out, args.lang)
    elif args.command == "custom":
        _print_custom(out, args.lang)
    else:
        _print_human(args.command, out, args.lang)
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
        "run": (run_verb.add_parser, run_verb.run),
    }
)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    lang, argv, bad_lang = choose(argv, os.environ, _VALUE_OPTIONS)
    want_json = "--json" in argv
    try:
        if bad_lang is not None:
            raise UsageError("cli.error.lang", got=repr(bad_lang))
        parser = _build_parser(lang)
        args = _strip_guard(parser.parse_args(_fix_negative_values(argv)))
        args.lang = lang
        return VERBS[args.command][1](args)
    except (HogradError, UsageError) as err:
        message = error_text(err, lang)
        if want_json:
            print(json.dumps({"error": message}))
        print(tr("cli.error.line", lang, message=message), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
