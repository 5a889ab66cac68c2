"""What every lab's download must be: a script that imports only what it may and runs alone
(:func:`imported`, :func:`run_alone`), and, as a notebook, that script cut at the ``# %%``
lines, nothing added or lost, between a title cell and a figure cell (:func:`figure_cell`)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import nbformat

from hograd_ui.notebook import CELL, percent_cells


def figure_cell(notebook: str, source: str) -> str:
    """Check ``notebook`` (built with title "# title" and figure text "figure") against the
    download ``source``; return its last cell, the figure's code, for the lab's own check."""
    nb = nbformat.reads(notebook, as_version=4)
    cells = [(c.cell_type, c.source) for c in nb.cells]
    assert cells[0] == ("markdown", "# title") and cells[-2] == ("markdown", "figure")
    body = [text for _, text in cells[1:-2]]
    assert body == percent_cells(source) and len(body) == source.count(f"\n{CELL}") + 1
    # nothing added or lost: the cells joined are the file without its "# %%" lines
    kept = [line for line in source.splitlines() if not line.startswith(CELL)]
    assert [line for line in "\n".join(body).splitlines() if line] == [x for x in kept if x]
    return cells[-1][1]


def imported(source: str) -> set[str]:
    """The top-level packages ``source`` imports."""
    return {
        (node.module if isinstance(node, ast.ImportFrom) else alias.name).split(".")[0]
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }


def run_alone(source: str, folder: Path, name: str, *flags: str) -> str:
    """Write ``source`` to ``folder``/``name`` and run it with ``python -I`` (no project on the
    path, as a learner runs the download) and any further interpreter ``flags`` (e.g. ``"-W",
    "ignore"``); what it printed. Fails on a non-zero exit."""
    path = folder / name
    path.write_text(source, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-I", *flags, str(path)],
        capture_output=True,
        text=True,
        cwd=folder,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout
