"""The custom-Function lab's computation: the script is the Function that ran, the graph is
the real one, the slips are named against sympy's derivatives."""

from __future__ import annotations

import ast
import contextlib
import io
import math
import runpy
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

from hograd_core.custom_function import VARIANTS
from hograd_core.language import parse
from hograd_core.language.to_sympy import to_latex
from hograd_core.symbolic import symbolic_derivatives, sympy_values
from hograd_labs.backward.compute import (
    IGNORES_G,
    SIGN_OF_Y,
    WRONG,
    ExactPart,
    graph_at,
    lab,
    script,
    with_exact,
)

GRID = [-2.0, -1.0, 0.5, 1.0, 2.0]
X = sp.Symbol("x", real=True)


def sympy_part(f: str, b: str, points: list[float]) -> ExactPart:
    """The lab's sympy part worked out here, in the test's process (the page's comes from the
    exact maths' child: tests/serving/test_exact.py compares the two)."""
    sym = symbolic_derivatives(parse(f, ("x",)), 2, "x", max_seconds=60.0)
    rows = [sympy_values(sym.exprs[1:3], {"x": p}) for p in points]
    tex = (to_latex(parse(f, ("x",)).tree), to_latex(parse(b, ("x", "y", "g")).tree))
    return ExactPart(
        first=tuple(r[0] for r in rows),
        second=tuple(r[1] for r in rows),
        latex=(*tex, sym.latex[1], sym.latex[2]),
        stopped=None,
    )


def _run_script(source: str, tmp_path: Path) -> dict[str, object]:
    path = tmp_path / "my_function.py"
    path.write_text(source, encoding="utf-8")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        runpy.run_path(str(path), run_name="__main__")
    lines = dict(line.split(": ", 1) for line in out.getvalue().splitlines())
    return {k: ast.literal_eval(v) if v[:1] in "[TF" else v for k, v in lines.items()}


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize(("f", "b"), [("tanh(x)", "(1 - y^2)*g"), ("x^3", "3*x^2"), ("2", "0*g")])
def test_the_script_prints_what_the_app_computed(
    f: str, b: str, variant: str, tmp_path: Path
) -> None:
    ran = lab(f, b, GRID, variant).run
    printed = _run_script(script(f, b, ran), tmp_path)
    assert printed["saved"] == list(ran.saved)
    assert printed["first"] == list(ran.first)  # bit for bit: the same torch calls
    if ran.error is None:
        assert printed["second"] == list(ran.second)
    else:
        assert printed["the second backward raised"] == ran.error
    assert printed["gradcheck"] is ran.gradcheck.passed
    assert printed["gradgradcheck"] is ran.gradgradcheck.passed


def test_the_slips_are_named_against_sympy() -> None:
    assert lab("tanh(x)", "(1 - y^2)*g", GRID).slip is None
    ignores = lab("x^3", "3*x^2", GRID)
    assert ignores.slip == IGNORES_G and ignores.wrong_at == ()  # right at g = 1
    wrong = lab("x^3", "2*x*g", GRID)
    assert wrong.slip == WRONG and wrong.wrong_at == tuple(GRID)  # 2x = 3x² nowhere here
    sign = lab("sin(x)", "sqrt(1 - y^2)*g", GRID)
    assert sign.exact_stopped == "missing" and all(math.isnan(v) for v in sign.exact[0])
    sign = with_exact(sign, sympy_part("sin(x)", "sqrt(1 - y^2)*g", GRID))
    assert sign.exact_stopped is None and sign.latex[2] == r"\cos{\left(x \right)}"
    # sympy: sqrt(1 - sin²x) = |cos x|, which is cos x exactly where cos x >= 0
    exact = [float(sp.cos(X).subs(X, v)) for v in GRID]
    assert sign.slip == SIGN_OF_Y
    assert sign.wrong_at == tuple(v for v, c in zip(GRID, exact, strict=True) if c < 0)
    for column, order in ((0, 1), (1, 2)):
        want = [float(sp.diff(sp.sin(X), X, order).subs(X, v)) for v in GRID]
        np.testing.assert_allclose(sign.exact[column], want, rtol=1e-14)
        np.testing.assert_allclose(sign.autograd[column], want, rtol=1e-14)


def test_the_graph_names_the_custom_node_and_what_it_saved() -> None:
    graph = graph_at("tanh(x)", "(1 - y^2)*g", 0.7)
    ops = {n.name: n for n in graph.nodes if n.kind == "op"}
    custom = [n for n in ops.values() if n.label == "MyFuncBackward"]
    assert len(custom) == 1 and custom[0].pass_index == 0
    saved = [n for n in graph.nodes if n.name.startswith(f"{custom[0].name}.")]
    assert [(n.label, n.nbytes) for n in saved] == [("y", 8)]  # one float64
    assert saved[0].value == pytest.approx(math.tanh(0.7), rel=1e-15)
    # the formula's own operations, recorded by the first backward pass (create_graph=True)
    first = sorted(n.label for n in ops.values() if n.pass_index == 1)
    assert first == ["AccumulateGrad", "MulBackward0", "PowBackward0", "RsubBackward1"]
    assert graph.per_pass[2] > 0
    outputs = {n.label: n.value for n in graph.nodes if n.kind == "output"}
    assert outputs["d²y/dx²"] == pytest.approx(-2 * math.tanh(0.7) * (1 - math.tanh(0.7) ** 2))


def test_the_graph_of_the_variants() -> None:
    once = graph_at("x^3", "3*x^2*g", 0.7, "once")
    raised = [n for n in once.nodes if n.name == once.raised_at]
    assert raised and raised[0].label == "Error"  # once_differentiable's node
    assert "d²y/dx²" not in {n.label for n in once.nodes}
    assert [n.label for n in once.nodes if n.kind == "leaf"] == ["x", "dy/dx.detach()", "v"]
    detached = graph_at("x^3", "3*x^2*g", 0.7, "detached")
    second = [n for n in detached.nodes if n.kind == "output" and n.label == "d²y/dx²"]
    assert second and second[0].value is None  # grad(..., allow_unused=True) gave None
    two = graph_at("x^3", "3*x^2*g", 0.7, "second_function")
    assert "MyFuncGradBackward" in {n.label for n in two.nodes}
