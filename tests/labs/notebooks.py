"""What every lab's notebook must be: its download cut at the ``# %%`` lines, nothing added or
lost, between a title cell and a figure cell."""

from __future__ import annotations

import nbformat

from hograd_core.notebook import CELL, percent_cells


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
