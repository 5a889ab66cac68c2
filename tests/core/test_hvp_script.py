"""The HVP page's code view is the code that runs: the script it shows is the source of
hograd_core/hvp_script.py's functions, the page's three ways and power iteration call the same
functions, the notebook carries the same source, and the script runs with torch alone.

The oracle for the numbers is the core's Hessian (hograd_core/hessian.py, built from separate
scalar leaves and checked against sympy in test_hvp.py) and the seed's closed form."""

from __future__ import annotations

import ast
import inspect
import json
import math
import re
import subprocess
import sys

import numpy as np
import pytest
import torch

from hograd_core import curvature, hvp, parse
from hograd_core import hvp_script as script
from hograd_core.hvp_code import SHOWN, hvp_snippet
from hograd_ui.notebook import hvp_notebook

SEED = ("w1**2*sin(w2)", (1.0, math.pi / 2), (0.5, 1.0))


def flat(fn):
    """f as a function of one vector w, as the script's f reads it."""
    return lambda w: fn.torch({name: w[i] for i, name in enumerate(fn.variables)})


def printed_lists(stdout: str) -> dict[str, list[list[float]]]:
    """The script's lines "gradient [..]", "Hv [..] [..] [..]", "vH [..]", read back."""
    out = {}
    for line in stdout.splitlines():
        found = re.findall(r"\[[^\]]*\]", line)
        out[line.split()[0]] = [ast.literal_eval(x) for x in found]
    return out


def test_the_snippet_is_the_source_of_the_functions_that_run() -> None:
    snippet = hvp_snippet(parse("x*y^2 + sin(x)"), [1, 2], [1, 0])
    written = snippet
    for fn in SHOWN:
        assert inspect.getsource(fn) in snippet
        written = written.replace(inspect.getsource(fn), "")
    # what is not a function's source: the import, f (torch_source) and the one call
    assert [line for line in written.splitlines() if line] == [
        "import torch",
        "def f(w):  # w = (x, y)",
        "    return (w[0] * (w[1] ** 2)) + torch.sin(w[0])",
        "print_hvp(f, [1.0, 2.0], [1.0, 0.0])",
    ]
    # every function of the module that print_hvp calls is shown
    tree = ast.parse(inspect.getsource(script.print_hvp))
    calls = [n.func for n in ast.walk(tree) if isinstance(n, ast.Call)]
    called = {c.id for c in calls if isinstance(c, ast.Name)} & set(dir(script))
    assert called <= {fn.__name__ for fn in SHOWN}
    assert len(called) == 5


def test_the_three_ways_call_the_shown_functions(monkeypatch) -> None:
    text, point, vector = SEED
    calls = {"gradient": 0, "double": 0, "forward": 0, "functional": 0}

    def counted(key, fn, scale=1.0):
        def spy(*args):
            calls[key] += 1
            return scale * fn(*args)

        return spy

    monkeypatch.setattr(script, "gradient", counted("gradient", script.gradient))
    monkeypatch.setattr(
        script, "hvp_double_backward", counted("double", script.hvp_double_backward, 2.0)
    )
    monkeypatch.setattr(
        script, "hvp_forward_over_reverse", counted("forward", script.hvp_forward_over_reverse, 3.0)
    )
    monkeypatch.setattr(script, "hvp_functional", counted("functional", script.hvp_functional, 5.0))
    ways = curvature.hvp_three_ways(parse(text), point, vector, repeats=3)
    assert calls == {"gradient": 3, "double": 3, "forward": 3, "functional": 3}
    np.testing.assert_allclose(ways.values, [[2, -2], [3, -3], [5, -5]], atol=1e-12)
    assert ways.reference == pytest.approx([1.0, -1.0], abs=1e-12)  # the oracle, untouched


def test_power_iteration_multiplies_by_the_shown_function(monkeypatch) -> None:
    calls = []
    original = script.hvp_double_backward

    def spy(g, w, u):
        calls.append(u.clone())
        return original(g, w, u)

    monkeypatch.setattr(script, "hvp_double_backward", spy)
    run = curvature.power_iteration(parse("3*x^2 + y^2"), [0.5, 0.5], [1.0, 1.0], steps=4)
    assert len(calls) >= 4  # one product H u per step
    assert run.rayleigh[-1] == pytest.approx(6.0, rel=1e-3)  # λ₁ of diag(6, 2)


@pytest.mark.parametrize(
    ("text", "point", "vector"),
    [SEED, ("x + 2*y", (0.3, 0.4), (1.0, 1.0)), ("exp(x*y)/(1 + z^2)", (0.5, -1, 2), (1, 0, -1))],
)
def test_the_script_runs_outside_the_project_and_prints_the_pages_numbers(
    tmp_path,
    text: str,
    point: tuple,
    vector: tuple,
) -> None:
    fn = parse(text)
    source = inspect.getsource(script)
    imports = [n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Import | ast.ImportFrom)]
    assert [alias.name for n in imports for alias in n.names] == ["torch"]
    out = subprocess.run(
        [sys.executable, "-I", "-c", hvp_snippet(fn, point, vector)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    got = printed_lists(out.stdout)
    assert list(got) == ["gradient", "Hv", "vH"]
    ways = curvature.hvp_three_ways(fn, point, vector, repeats=1)  # the page's "three ways"
    assert got["Hv"] == ways.values.tolist()  # the same functions: the same numbers
    oracle = hvp(fn, point, vector)
    np.testing.assert_allclose(got["gradient"][0], oracle.gradient, rtol=1e-12, atol=1e-12)
    for hv in (*got["Hv"], *got["vH"]):
        np.testing.assert_allclose(hv, oracle.hessian @ oracle.vector, rtol=1e-12, atol=1e-12)
    if text == SEED[0]:
        assert got["gradient"][0] == pytest.approx([2.0, 0.0], abs=1e-15)
        assert got["Hv"] == [pytest.approx([1.0, -1.0], abs=1e-15)] * 3


def test_the_notebook_carries_the_scripts_functions() -> None:
    text, point, vector = SEED
    nb = json.loads(hvp_notebook(parse(text), point, vector, 1.0))
    code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    shown = (script.gradient, script.hvp_double_backward, script.hessian)
    for fn in shown:
        assert inspect.getsource(fn) in code
    defined = re.findall(r"^def (\w+)\(", code, re.M)
    assert sorted(defined) == sorted(["f", *(fn.__name__ for fn in shown)])  # no other copy


def test_the_hessian_is_the_cores() -> None:
    for text, point in (("x^2*y + sin(y)*x^3", (0.5, 1.0)), ("x + 2*y - z", (1.0, 2.0, 3.0))):
        fn = parse(text)
        oracle = hvp(fn, point, point)
        w = torch.tensor(point, dtype=torch.float64, requires_grad=True)
        H = script.hessian(script.gradient(flat(fn), w), w)
        np.testing.assert_allclose(H.numpy(), oracle.hessian, rtol=1e-12, atol=1e-12)
