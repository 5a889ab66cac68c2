"""The "Hv three ways" script: generated from the typed function, point and direction, run
here, and its numbers compared with the core's (the page's) gradient and Hv, which are
themselves checked against closed forms and sympy in test_hvp.py."""

from __future__ import annotations

import ast
import contextlib
import io
import math
import re

import numpy as np
import pytest

from hograd_core import HogradError, hvp, parse
from hograd_core.curvature import _load_forward_ad
from hograd_core.hvp_code import hvp_snippet
from tests.english import raises


def run(source: str) -> dict:
    """Run the script as a learner would (its own globals), quietly; return what it printed:
    "gradient" g, "Hv" hv hv2 hv3 and "vH" vh, each a list of numbers, and the text."""
    _load_forward_ad()  # torch's own first-use DeprecationWarning, silenced as the app does
    with contextlib.redirect_stdout(io.StringIO()) as out:
        exec(compile(source, "<hvp snippet>", "exec"), {})  # test code, our script
    lines = out.getvalue().splitlines()
    assert [line.split()[0] for line in lines] == ["gradient", "Hv", "vH"]
    lists = [[ast.literal_eval(x) for x in re.findall(r"\[[^\]]*\]", line)] for line in lines]
    (g,), (hv, hv2, hv3), (vh,) = lists
    return {"g": g, "hv": hv, "hv2": hv2, "hv3": hv3, "vh": vh, "printed": out.getvalue()}


@pytest.mark.parametrize(
    ("text", "point", "vector"),
    [
        ("w1**2*sin(w2)", (1.0, math.pi / 2), (0.5, 1.0)),
        ("(1 - x)^2 + 100*(y - x^2)^2", (-0.7, 0.3), (1.0, 0.0)),
        ("x + 2*y", (0.3, 0.4), (1.0, 1.0)),  # ∇f is constant: the script says Hv = 0
        ("torch*v + as^2", (1.0, 2.0, 3.0), (0.5, -1.0, 2.0)),  # names the script itself uses
        ("w*g + f^2 + exp(-w)", (0.5, -1.0, 2.0), (1.0, 1.0, 1.0)),
        ("sqrt(2)*x^3", (1.5,), (2.0,)),
        ("softplus(a - b)*tanh(c) + 2^a", (0.2, -0.4, 1.1), (1.0, -2.0, 0.5)),
    ],
)
def test_the_script_computes_the_pages_numbers(text: str, point: tuple, vector: tuple) -> None:
    fn = parse(text)
    page = hvp(fn, point, vector)
    names = run(hvp_snippet(fn, point, vector))
    np.testing.assert_allclose(names["g"], page.gradient, rtol=1e-12, atol=1e-12)
    for hv in ("hv", "hv2", "hv3", "vh"):  # vᵀH = (Hv)ᵀ: H is symmetric here
        np.testing.assert_allclose(names[hv], page.hvp, rtol=1e-12, atol=1e-12)
    assert names["printed"].startswith("gradient [")


def test_the_point_and_vector_are_checked_as_everywhere() -> None:
    with raises(HogradError, match="point: expected 2 numbers"):
        hvp_snippet(parse("x*y"), [1.0], [1.0, 1.0])
    with raises(HogradError, match="vector: expected finite numbers"):
        hvp_snippet(parse("x*y"), [1.0, 1.0], [1.0, float("nan")])
