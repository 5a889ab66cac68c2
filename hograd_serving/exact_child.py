"""The child process where all of the app's exact maths runs (sympy, mpmath):
``python -m hograd_serving.exact_child SECONDS BYTES`` (its CPU time, and the memory it may use
beyond its imports and its request). :mod:`.exact` starts it, and kills it at its deadline;
nothing the server loads imports this module (an import-linter contract in pyproject.toml).

It limits its own CPU time, reads one JSON request on its standard input, limits its memory,
then writes JSON lines, and a line ``{"stopped": why}`` if it stopped early ("size", "memory",
"error"):

- ``{"text": ..., "order": ...}`` (the derivatives page's column, :mod:`.sympy_column`): one
  line per derivative as soon as sympy has it (the instructions of
  :mod:`hograd_core.sympy_program` it adds, the LaTeX, the size, the time of the ``diff``
  call).
- ``{"kind": "latex", "text": ..., "variables": [...] or null}``: the typed function's LaTeX
  and each variable's name in LaTeX, then ``{"done": true}``.
- ``{"kind": "backward", "f": ..., "b": ..., "points": [...]}`` (the backward lab): the LaTeX
  of f, of the backward formula (of x, y and g) and of sympy's f′ and f″; then f′ and f″ at the
  points (NaN where sympy has no value or stopped before that order); then ``{"done": true}``.
- ``{"kind": "values", "text": ..., "order": ..., "points": [...]}`` (the CLI's derivatives):
  f and its derivatives to ``order`` at the points (30 + 2⌈|x|⌉ digits, at most 2,030: far
  out a derivative is often a difference of terms near 1, 1 - tanh(x)², whose digits 30 would
  lose), per order and point: the float (null where sympy has none) and, where float64 holds a
  value that is not 0 as 0, its digits as text; then ``{"done": true}``.
- ``{"kind": "evaluate", "code": [...], "outputs": [...], "variable": ..., "x0": ...}`` (the
  derivatives page's column at a point, :mod:`.sympy_column`): a program an earlier child
  compiled, evaluated at ``x0`` (30 digits): per output the float (null where there is none)
  and the digits of a value float64 holds as 0 though it is not 0; then ``{"done": true}``.

It imports sympy, mpmath and the function language only (and :mod:`.zygote`'s loop): no
torch, no Streamlit.
"""

from __future__ import annotations

import json
import math
import resource
import sys
from typing import TextIO

from hograd_core.language import parse
from hograd_core.language.to_sympy import name_latex, symbol, to_latex
from hograd_core.symbolic import symbolic_derivatives, sympy_values
from hograd_core.sympy_program import Program, ProgramTooLarge, evaluate_with_underflow
from hograd_serving.zygote import serve

__all__ = ["backward", "evaluate", "main", "typed_latex", "values", "work"]

#: The backward formula's variables (hograd_core.custom_function.NAMES, which imports torch).
BACKWARD_NAMES = ("x", "y", "g")

#: The largest request read from standard input: a program to evaluate, of at most
#: ``MAX_PROGRAM`` instructions, sent back as the children wrote it (each line at most
#: :data:`.sympy_column.MAX_LINE`); the other requests are two functions and 25 points.
MAX_REQUEST = 64 * 2**20


def work(text: str, order: int, out: TextIO) -> None:
    """Differentiate ``text`` up to ``order`` times, writing each derivative to ``out``."""
    fn = parse(text)  # the function language's own parser: never eval, never sympify
    variable = fn.variables[0] if fn.variables else "x"
    program, sym = Program(), None
    try:
        for k in range(order + 1):
            sym = symbolic_derivatives(fn, k, variable, max_seconds=math.inf, start_from=sym)
            if len(sym.exprs) <= k:  # the expression before it swelled past MAX_OPS
                _write(out, {"stopped": "size"})
                return
            code = program.add(sym.exprs[k])
            _write(
                out,
                {
                    "k": k,
                    "code": code,
                    "out": program.outputs[-1],
                    "ops": sym.ops[k],
                    "latex": sym.latex[k],
                    "ms": 1000.0 * sym.diff_seconds[k],
                },
            )
    except (ProgramTooLarge, RecursionError):
        _write(out, {"stopped": "size"})
    except MemoryError:
        _write(out, {"stopped": "memory"})
    except Exception as err:  # any failure of sympy's is reported, not raised
        _write(out, {"stopped": "error", "detail": f"{type(err).__name__}: {err}"[:300]})


def _tex(text: str, variables: list[str] | tuple[str, ...] | None) -> str | None:
    """sympy's LaTeX of a typed function, None if the printer refuses it (an integer of more
    than 4,300 digits, a tree too deep for it)."""
    try:
        return to_latex(parse(text, variables).tree)
    except (ValueError, RecursionError):
        return None


def typed_latex(text: str, variables: list[str] | None, out: TextIO) -> None:
    """The LaTeX of ``text`` as typed, and of each of its variables' names."""
    fn = parse(text, variables)
    names = [name_latex(symbol(name)) for name in fn.variables]
    _write(out, {"latex": _tex(text, variables), "names": names})
    _write(out, {"done": True})


def backward(f: str, b: str, points: list[float], out: TextIO) -> None:
    """The backward lab's exact part: formulas first (the page shows them even if the values
    do not come), then sympy's f′ and f″ at ``points``."""
    fn = parse(f, ("x",))
    sym = symbolic_derivatives(fn, 2, "x", max_seconds=math.inf)
    latex = [*sym.latex, None, None][:3]
    _write(out, {"latex": [_tex(f, ["x"]), _tex(b, list(BACKWARD_NAMES)), *latex[1:]]})
    exact = [(sympy_values(sym.exprs[1:3], {"x": p}) + [math.nan] * 2)[:2] for p in points]
    columns = [[row[k] for row in exact] for k in (0, 1)]
    _write(out, {"exact": [[None if math.isnan(v) else v for v in c] for c in columns]})
    if len(sym.exprs) < 3:  # the expression swelled past MAX_OPS before f″
        _write(out, {"stopped": "size"})
    _write(out, {"done": True})


def values(text: str, order: int, points: list[float], out: TextIO) -> None:
    """f and its derivatives to ``order`` at ``points``: per order, per point, the float and
    the text of a value float64 holds as 0 though it is not 0. Each point gets 30 + 2⌈|x|⌉
    digits (at most 2,030): tanh′(48.8) = 1 - tanh² = 1.6e-42 needs 43 of them,
    log(1 + e^(3x)) at x = -501 needs 654."""
    fn = parse(text)
    variable = fn.variables[0] if fn.variables else "x"
    sym = symbolic_derivatives(fn, order, variable, max_seconds=math.inf)
    program = Program()
    for expr in sym.exprs:
        program.add(expr)
    got = [
        evaluate_with_underflow(
            program.code,
            program.outputs,
            {variable: p},
            digits=30 + 2 * min(math.ceil(abs(p)), 1000),
        )
        for p in points
    ]
    floats = [[None if math.isnan(f[k]) else f[k] for f, _ in got] for k in range(len(sym.exprs))]
    below = [[b[k] for _, b in got] for k in range(len(sym.exprs))]
    _write(out, {"values": floats, "below_float64": below})
    if len(sym.exprs) <= order:  # the expression swelled past MAX_OPS
        _write(out, {"stopped": "size"})
    _write(out, {"done": True})


def evaluate(code: list, outputs: list[int], variable: str, x0: float, out: TextIO) -> None:
    """A compiled program's outputs at ``x0``: the floats (null for NaN) and, where float64
    holds a value that is not 0 as 0, its digits."""
    floats, below = evaluate_with_underflow(code, outputs, {variable: x0})
    _write(out, {"values": [None if math.isnan(v) else v for v in floats], "below": below})
    _write(out, {"done": True})


def _one(request: dict, out: TextIO) -> None:
    """Answer one request, reporting a failure of sympy's as a line, never raising."""
    kind = request.get("kind", "chain")
    try:
        if kind == "latex":
            typed_latex(str(request["text"]), request.get("variables"), out)
        elif kind == "values":
            points = [float(p) for p in request["points"]]
            values(str(request["text"]), int(request["order"]), points, out)
        elif kind == "evaluate":
            outputs = [int(i) for i in request["outputs"]]
            x0 = float(request["x0"])
            evaluate(list(request["code"]), outputs, str(request["variable"]), x0, out)
        elif kind == "backward":
            points = [float(p) for p in request["points"]]
            backward(str(request["f"]), str(request["b"]), points, out)
        else:
            work(str(request["text"]), int(request["order"]), out)
    except (ProgramTooLarge, RecursionError):
        _write(out, {"stopped": "size"})
    except MemoryError:
        _write(out, {"stopped": "memory"})
    except Exception as err:  # any failure of sympy's is reported, not raised
        _write(out, {"stopped": "error", "detail": f"{type(err).__name__}: {err}"[:300]})


def _write(out: TextIO, record: dict) -> None:
    out.write(json.dumps(record, separators=(",", ":")) + "\n")
    out.flush()


def main(argv: list[str]) -> None:
    """``argv``: the CPU seconds and the bytes of memory this process may use beyond what its
    imports took; or ``--zygote FD``: fork a child per request that comes on the socket FD
    (:func:`.zygote.serve`)."""
    if argv[:1] == ["--zygote"]:  # sympy is imported: fork a child per request
        serve(int(argv[1]), main)
        return
    seconds, extra = float(argv[0]), int(argv[1])
    cpu = math.ceil(seconds)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))  # SIGXCPU, then SIGKILL
    # the server's request (a program to evaluate can be megabytes) is read before the memory
    # limit is measured: the limit is what the work may take beyond its imports and its request
    request = json.loads(sys.stdin.read(MAX_REQUEST))
    with open("/proc/self/statm") as statm:  # virtual size, in pages
        size = int(statm.read().split()[0]) * resource.getpagesize()
    resource.setrlimit(resource.RLIMIT_AS, (size + extra, size + extra))  # then MemoryError
    try:
        _one(request, sys.stdout)
    except MemoryError:  # struck outside sympy (writing a line, say)
        _write(sys.stdout, {"stopped": "memory"})


if __name__ == "__main__":
    main(sys.argv[1:])
