"""The child process that works out sympy's exact derivatives of one function
(:mod:`.sympy_column` starts it): ``python -m hograd_serving.exact_child SECONDS BYTES``
(its CPU time, and the memory it may use beyond its imports).

It reads ``{"text": ..., "order": ...}`` on its standard input, limits its own CPU time and
memory first, then writes one JSON line per derivative as soon as sympy has it (the
instructions of :mod:`hograd_core.sympy_program` it adds, the LaTeX, the size, the time of the
``diff`` call) and a last line saying why it stopped, if it stopped early. It imports sympy and
the function language only: no torch, no Streamlit.
"""

from __future__ import annotations

import json
import math
import resource
import sys
from typing import TextIO

from hograd_core.language import parse
from hograd_core.symbolic import symbolic_derivatives
from hograd_core.sympy_program import Program, ProgramTooLarge

__all__ = ["main", "work"]

#: The largest request read from standard input (a function is at most 200 characters).
MAX_REQUEST = 4096


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
    except Exception as err:  # noqa: BLE001 - any failure of sympy's is reported, not raised
        _write(out, {"stopped": "error", "detail": f"{type(err).__name__}: {err}"[:300]})


def _write(out: TextIO, record: dict) -> None:
    out.write(json.dumps(record, separators=(",", ":")) + "\n")
    out.flush()


def main(argv: list[str]) -> None:
    """``argv``: the CPU seconds and the bytes of memory this process may use beyond what its
    imports took."""
    seconds, extra = float(argv[0]), int(argv[1])
    cpu = math.ceil(seconds)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))  # SIGXCPU, then SIGKILL
    with open("/proc/self/statm") as statm:  # virtual size, in pages
        size = int(statm.read().split()[0]) * resource.getpagesize()
    resource.setrlimit(resource.RLIMIT_AS, (size + extra, size + extra))  # then MemoryError
    request = json.loads(sys.stdin.read(MAX_REQUEST))
    try:
        work(str(request["text"]), int(request["order"]), sys.stdout)
    except MemoryError:  # struck outside sympy (writing a line, say)
        _write(sys.stdout, {"stopped": "memory"})


if __name__ == "__main__":
    main(sys.argv[1:])
