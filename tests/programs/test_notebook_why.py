"""The "Why gradients of gradients" tabs as notebooks: built from the tab's own script, valid
nbformat, executed in a real kernel (nbclient, python3 through ipykernel), and their numbers
compared with the core's for the same settings (the numbers the tabs show).

Small budgets keep each notebook to a few seconds of work; test_notebook.TIMEOUT is a generous bound per
cell, never a measured time. The kernel talks to this process over localhost only.
"""

from __future__ import annotations

import ast

import numpy as np
import pytest

from hograd_core import ArgumentError, parse
from hograd_core.applications.hessian_free import HFConfig, hessian_free
from hograd_core.applications.hessian_free_code import hf_code
from hograd_core.applications.newton import RaceConfig, race
from hograd_core.applications.newton_code import race_code
from hograd_core.applications.stability import StabilityConfig, net_stability, quadratic_gd
from hograd_core.applications.stability_code import quadratic_code, stability_code
from hograd_core.notebook_why import FIGURES, WHY_TEXTS, _literal, script_cells, why_notebook

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("nbclient", reason="nbclient is a test dependency")

from tests.programs.test_notebook import execute as run_notebook  # noqa: E402

TEXTS = {key: f"text {key}" for key in WHY_TEXTS}
HOSTILE = [
    "x**2 + y**2",
    "'; import os; os.remove('x') #",
    '"""\nprint("escaped")\n"""',
    "'''\n''' + __import__('os').getcwd() + '''",
    "<script>alert(1)</script> **bold** $x$ <img src=x onerror=alert(1)>",
    "back\\slash \\n \\' \\\" end\\",
    "line one\nline two\r\n\tthree\x00nul",
    "中文 函数 ‖∇f‖ \u202e reversed",
]


def execute(source: str) -> tuple[dict, object]:
    """Run the notebook with one more cell that prints ``printed`` (and ``text`` when there is
    one) as JSON; return that and the executed notebook."""
    return run_notebook(source, "{'printed': printed, 'text': globals().get('text')}")


def figures(nb: object) -> list[dict]:
    mime = "application/vnd.plotly.v1+json"
    return [o["data"][mime] for c in nb.cells for o in c.get("outputs", [])
            if mime in o.get("data", {})]  # fmt: skip


def check_shape(nb: object, source: str, typed: bool = False) -> None:
    """The prose in order, the script's cells verbatim, the main part captured, one figure."""
    prose = [c.source for c in nb.cells if c.cell_type == "markdown"]
    assert prose == [f"text {k}" for k in WHY_TEXTS if typed or k != "text"]
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    parts = script_cells(source)
    start = 1 if typed else 0
    assert code[start : start + len(parts) - 1] == parts[:-1]
    assert code[start + len(parts) - 1] == "%%capture run\n" + parts[-1]
    # the cells are the .py cut at its double blank lines, nothing added or lost
    assert "\n\n\n".join(parts) + "\n" == source
    assert len(figures(nb)) == 1


def test_newton_notebook_prints_the_race_and_keeps_the_typed_text() -> None:
    text = "x**2 + 10*y**2"
    config = RaceConfig(start=(1.5, -1.0), steps=60, lr=0.05, methods=("gd", "newton", "trust"))
    r, code = race(parse(text), config), race_code(parse(text), config)
    source = why_notebook("newton", code.source, TEXTS, text=HOSTILE[3], start=config.start)
    got, nb = execute(source)
    check_shape(nb, code.source, typed=True)
    assert got["text"] == HOSTILE[3]  # the typed text came through as data, not as code
    for path in r.paths:
        steps, *end = got["printed"][path.method]
        assert steps == len(path.points) - 1
        np.testing.assert_allclose(end, [*path.points[-1], path.values[-1]], rtol=1e-12,
                                   atol=1e-14)  # fmt: skip
    (fig,) = figures(nb)
    assert fig["data"][0]["type"] == "table"
    assert fig["data"][0]["cells"]["values"][0] == ["gd", "newton", "trust"]


def test_newton_notebook_draws_a_race_with_a_singular_hessian() -> None:
    """f = x² + y: its Hessian diag(2, 0) is singular, so Newton stops at once ("singular at
    step 0"), and the figure still draws (the table says so; Newton has no end point)."""
    fn = parse("x^2 + y")
    config = RaceConfig(start=(0.5, 0.5), steps=5, methods=("gd", "newton"))
    r, code = race(fn, config), race_code(fn, config)
    assert {p.method: p.status for p in r.paths}["newton"] == "singular"
    got, nb = execute(why_notebook("newton", code.source, TEXTS, text=fn.text, start=(0.5, 0.5)))
    assert got["printed"]["newton"] == ["singular", "at", "step", 0.0]
    (fig,) = figures(nb)
    assert fig["data"][0]["cells"]["values"][1] == [5, "singular (0)"]
    assert [d["name"] for d in fig["data"][2:]] == ["start", "gd"]


def test_hf_notebook_prints_the_pages_losses() -> None:
    config = HFConfig(dataset="moons", steps=4, cg_iters=8, damping=0.5)
    run, code = hessian_free(config), hf_code(config)
    got, nb = execute(why_notebook("hf", code.source, TEXTS))
    check_shape(nb, code.source)
    np.testing.assert_allclose(got["printed"]["hf"], run.hf_losses, rtol=1e-12)


def test_stability_notebooks_print_the_pages_numbers() -> None:
    quad, q_code = quadratic_gd(10.0, 0.21, 80), quadratic_code(10.0, 0.21, 80)
    got, nb = execute(why_notebook("quadratic", q_code.source, TEXTS))
    check_shape(nb, q_code.source)
    assert got["printed"]["lambda_max"][0] == pytest.approx(quad.lambda_max, rel=1e-14)
    np.testing.assert_allclose(got["printed"]["loss"], quad.losses, rtol=1e-14)

    config = StabilityConfig(lr=1.0, steps=60, every=20, lanczos_iters=8)
    run, code = net_stability(config), stability_code(config)
    got, nb = execute(why_notebook("stability", code.source, TEXTS, lr=1.0, every=20))
    check_shape(nb, code.source)
    np.testing.assert_allclose(got["printed"]["loss"], run.losses, rtol=1e-12)
    np.testing.assert_allclose(got["printed"]["sharpness"], run.sharpness, rtol=1e-9)
    (fig,) = figures(nb)
    assert fig["data"][1]["x"] == [0, 20, 40]  # the sharpness drawn at the steps it measured


@pytest.mark.parametrize("hostile", HOSTILE)
def test_typed_text_stays_one_string_literal(hostile: str) -> None:
    code = race_code(parse("x**2 + y**2"), RaceConfig(start=(1.0, 1.0), steps=3))
    nb = nbformat.reads(why_notebook("newton", code.source, {"title": "t", "text": "x"},
                                     text=hostile, start=(1.0, 1.0)), as_version=4)  # fmt: skip
    nbformat.validate(nb)
    assert all(hostile not in c.source for c in nb.cells if c.cell_type == "markdown")
    (cell,) = [c for c in nb.cells if c.cell_type == "code" and c.source.startswith("text =")]
    (statement,) = ast.parse(cell.source).body  # one assignment, nothing else runs
    assert isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Constant)
    assert statement.value.value == hostile


@pytest.mark.parametrize(
    ("kind", "settings", "match"),
    [("adam", {}, "adam"), ("stability", {"lr": 1.0}, "every"),
     ("stability", {"lr": float("nan"), "every": 20}, "lr"),
     ("newton", {"start": (1.0, "x; import os")}, "start"),
     ("stability", {"lr": [1.0], "every": 20}, "lr")],
)  # fmt: skip
def test_bad_settings_are_refused_with_their_name(kind: str, settings: dict, match: str) -> None:
    with pytest.raises(ArgumentError, match=match):
        why_notebook(kind, "import torch\n", **settings)


def test_every_figure_cell_opens_with_its_imports() -> None:
    """why_notebook puts the page's settings right after the figure's first block: that block
    must be the imports, so the settings sit between the imports and the drawing."""
    assert set(FIGURES) == {"newton", "hf", "quadratic", "stability",
                            "network"}  # fmt: skip
    for figure, _ in FIGURES.values():
        imports, drawing = figure.strip().split("\n\n", 1)
        assert all(line.startswith(("import ", "from ")) for line in imports.splitlines())
        assert "import " not in drawing


@pytest.mark.parametrize("hostile", HOSTILE)
def test_a_choice_setting_stays_one_string_literal(hostile: str) -> None:
    """A choice name is written as one Python string literal, whatever it holds. (No tab's
    figure takes one since the WGAN-GP tab became a lab, whose notebook is its own file.)"""
    (assign,) = ast.parse(f"dataset = {_literal('dataset', hostile)}").body
    assert isinstance(assign.value, ast.Constant) and assign.value.value == hostile
