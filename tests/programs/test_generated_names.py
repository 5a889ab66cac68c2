"""Every generated script and notebook runs whatever its function's variables are called
(issue 35, finding 7): a variable named ``type``, ``list``, ``len`` or ``display`` broke the
graph page's notebook, one named ``print`` the two-variable graph script.

The corpus: every built-in name of Python the function language takes as a variable, the names
IPython puts in a notebook, and every name each generator's own code uses (read from the code
it generates for a plain variable, with :mod:`tokenize`: the generator is not asked which names
it thinks it uses). Each script runs in a fresh namespace in a separate process of the same
Python (a notebook's code cells one after another, with ``display`` a built-in as IPython makes
it), and must print the same numbers as the script for a plain variable name (to rounding: the
two-variable function is symmetric, but the order of its operations follows the names'): a
variable that the script renames must not change what it computes.
"""

from __future__ import annotations

import builtins
import io
import json
import subprocess
import sys
import tokenize
from collections.abc import Callable

import numpy as np
import pytest

from hograd_core import ExpressionError, parse
from hograd_core.flaglab import FlagSettings
from hograd_core.flaglab.flags import run_flags_here
from hograd_core.func_code import derivatives_func_code, hessian_func_code
from hograd_core.hvp_code import hvp_snippet
from hograd_core.hvp_graph import hvp_code
from hograd_core.inspector import pytorch_snippet
from hograd_core.language import Function
from hograd_labs.newton.cached import script as newton_script
from hograd_labs.newton.compute import RaceConfig
from hograd_ui.notebook import derivatives_notebook, graph_notebook, hvp_notebook

P, V = (0.5, 0.7), (1.0, -1.0)
TIMES = '    print("seconds", race.gd_step_seconds, race.newton_step_seconds)\n'
#: Every generator of code whose source holds the function's variables: (variables, make).
#: One variable: f = N**3 + sin(N). Two: f = N**2*t + N*t**2 + sin(N*t), symmetric in N and t,
#: so its numbers do not depend on which of the two sorts first.
GENERATORS: dict[str, tuple[int, Callable[[Function], str]]] = {
    "derivatives torch.func": (1, lambda fn: derivatives_func_code(fn, 0.5, 3, (-1.0, 1.0, 5))),
    "inspector snippet": (1, lambda fn: pytorch_snippet(fn, 0.5, 3)),
    "flag lab": (1, lambda fn: run_flags_here(fn, 0.5, FlagSettings(True, action="next")).snippet),
    "derivatives notebook": (1, lambda fn: derivatives_notebook(fn, -1.0, 1.0, 5, 3, 0.5)),
    "graph notebook": (1, lambda fn: graph_notebook(fn, 0.5, 2)),
    "hessian torch.func": (2, lambda fn: hessian_func_code(fn, P, V)),
    "hvp snippet": (2, lambda fn: hvp_snippet(fn, P, V)),
    "hvp graph script": (2, lambda fn: hvp_code(fn, np.array(P), np.array(V), False)),
    "hvp notebook": (2, lambda fn: hvp_notebook(fn, P, V, 1.0)),
    # the Newton lab's download, without its line of measured times (never the same twice)
    "newton race": (
        2,
        lambda fn: newton_script(fn, RaceConfig(steps=3)).source.replace(TIMES, "    pass\n"),
    ),
}
IPYTHON = ("display", "get_ipython", "In", "Out", "exit", "quit")
PLAIN = "a"  # the reference name


def function(name: str, count: int) -> Function:
    text = (
        f"{name}**3 + sin({name})" if count == 1 else f"{name}**2*t + {name}*t**2 + sin({name}*t)"
    )
    return parse(text)


def variable(name: str, count: int) -> Function | None:
    """The function on ``name``, or None when the language does not take ``name`` as a
    variable (a function's or constant's name, a keyword, too long): nothing to generate."""
    try:
        fn = function(name, count)
    except ExpressionError:
        return None
    return fn if name in fn.variables and (count == 1 or "t" in fn.variables) else None


def code_of(source: str) -> str:
    """The Python of a script, or of a notebook's code cells."""
    if source.lstrip().startswith("{"):
        cells = json.loads(source)["cells"]
        return "\n".join(
            "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
            for c in cells
            if c["cell_type"] == "code"
        )
    return source


def names_used(source: str) -> set[str]:
    tokens = tokenize.generate_tokens(io.StringIO(code_of(source)).readline)
    return {tok.string for tok in tokens if tok.type == tokenize.NAME}


def corpus(name: str) -> list[str]:
    count, make = GENERATORS[name]
    own = names_used(make(function(PLAIN, count)))
    words = set(dir(builtins)) | set(IPYTHON) | own
    return sorted(w for w in words - {PLAIN, "t"} if variable(w, count) is not None)


# The child process: runs each source in a fresh namespace, the way python or a notebook
# kernel would, and prints one JSON line per source: its numbers, or the error it raised.
DRIVER = r"""
import builtins, contextlib, io, json, re, shutil, sys, traceback
import plotly.basedatatypes
plotly.basedatatypes.BaseFigure.show = lambda self, *a, **k: None  # no browser here
shown = []
builtins.display = shown.append  # IPython makes display a built-in of every notebook
which = shutil.which
shutil.which = lambda cmd, *a, **k: "/usr/bin/dot" if cmd == "dot" else which(cmd, *a, **k)
NUMBER = re.compile(r"-?\d+\.?\d*(?:e[-+]?\d+)?")
for line in sys.stdin:
    case = json.loads(line)
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(case["code"], case["id"], "exec"), {"__name__": "__main__"})
        result = {"numbers": NUMBER.findall(out.getvalue())}
    except BaseException as err:
        result = {"error": "".join(traceback.format_exception_only(err)).strip()}
    print(json.dumps({"id": case["id"], **result}), flush=True)
"""


def run_all(cases: dict[str, str]) -> dict[str, dict]:
    """Run every source of ``cases`` ({id: code}) in one child process of this Python."""
    lines = "".join(json.dumps({"id": k, "code": v}) + "\n" for k, v in cases.items())
    done = subprocess.run(
        [sys.executable, "-c", DRIVER],
        input=lines,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    results = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return {r["id"]: r for r in results}


def test_the_corpus_holds_the_names_of_the_report() -> None:
    everywhere = set.intersection(*(set(corpus(name)) for name in GENERATORS))
    assert {"type", "list", "len", "display", "print", "range", "float"} <= everywhere
    assert "torch" in corpus("hvp graph script") and "derivatives" in corpus("graph notebook")


@pytest.mark.parametrize("generator", list(GENERATORS))
def test_every_generated_code_runs_for_every_variable_name(generator: str) -> None:
    count, make = GENERATORS[generator]
    names = corpus(generator)
    cases = {PLAIN: code_of(make(function(PLAIN, count)))}
    cases |= {name: code_of(make(function(name, count))) for name in names}
    results = run_all(cases)
    reference = results[PLAIN]
    assert "error" not in reference, reference
    assert len(reference["numbers"]) >= 3
    broken = {name: results[name].get("error") for name in names if "error" in results[name]}
    assert broken == {}
    expected = np.array(reference["numbers"], dtype=float)

    def same(got: list[str]) -> bool:  # the order of operations may differ in the last bit
        numbers = np.array(got, dtype=float)
        return numbers.shape == expected.shape and np.allclose(numbers, expected, rtol=1e-9)

    assert [name for name in names if not same(results[name]["numbers"])] == []
