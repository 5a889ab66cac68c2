"""The "Why gradients of gradients" tabs as notebooks: built from the tab's own script, valid
nbformat, executed in a real kernel (nbclient, python3 through ipykernel), and their numbers
compared with the core's for the same settings (the numbers the tabs show).

Small budgets keep each notebook to a few seconds of work; test_notebook.TIMEOUT is a generous bound per
cell, never a measured time. The kernel talks to this process over localhost only.
"""

from __future__ import annotations

import ast

import pytest

from hograd_core import ArgumentError
from hograd_core.notebook_why import FIGURES, WHY_TEXTS, _literal, script_cells, why_notebook

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("nbclient", reason="nbclient is a test dependency")

from tests.core.test_notebook import execute as run_notebook  # noqa: E402

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


@pytest.mark.parametrize("hostile", HOSTILE)
def test_typed_text_stays_one_string_literal(hostile: str) -> None:
    source = "import torch\n\n\nprint(torch.ones(1))\n"
    nb = nbformat.reads(why_notebook("network", source, {"title": "t", "text": "x"},
                                     text=hostile), as_version=4)  # fmt: skip
    nbformat.validate(nb)
    assert all(hostile not in c.source for c in nb.cells if c.cell_type == "markdown")
    (cell,) = [c for c in nb.cells if c.cell_type == "code" and c.source.startswith("text =")]
    (statement,) = ast.parse(cell.source).body  # one assignment, nothing else runs
    assert isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Constant)
    assert statement.value.value == hostile


@pytest.mark.parametrize(
    ("kind", "settings", "match"),
    [("adam", {}, "adam")],
)  # fmt: skip
def test_bad_settings_are_refused_with_their_name(kind: str, settings: dict, match: str) -> None:
    with pytest.raises(ArgumentError, match=match):
        why_notebook(kind, "import torch\n", **settings)


def test_every_figure_cell_opens_with_its_imports() -> None:
    """why_notebook puts the page's settings right after the figure's first block: that block
    must be the imports, so the settings sit between the imports and the drawing."""
    assert set(FIGURES) == {"network"}
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
