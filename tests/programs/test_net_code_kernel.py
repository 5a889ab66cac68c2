"""The HVP page's network mode as a notebook, run in a real kernel (nbclient, python3 through
ipykernel): it prints the numbers of the core's training and curvature for the same settings
(tests/core/test_net_code.py checks the script, run in this process, the same way)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from hograd_core.net_code import network_code
from hograd_core.notebook_why import WHY_TEXTS, script_cells, why_notebook
from tests.core.test_net_code import SMALL, check_against_core


def test_the_notebook_runs_in_a_kernel_and_prints_the_same() -> None:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient", reason="nbclient is a test dependency")
    config = SMALL[0]
    code = network_code(config, top_k=2, power_steps=10, probes=12)
    texts = {key: f"text {key}" for key in WHY_TEXTS}
    nb = nbformat.reads(why_notebook("network", code.source, texts), as_version=4)
    nbformat.validate(nb)
    cells = [c.source for c in nb.cells if c.cell_type == "code"]
    parts = script_cells(code.source)
    assert cells[: len(parts) - 1] == parts[:-1] and cells[len(parts) - 1].endswith(parts[-1])
    nb.cells.append(nbformat.v4.new_code_cell("import json\nprint(json.dumps(printed))"))
    nbclient.NotebookClient(nb, timeout=300, startup_timeout=300, kernel_name="python3").execute()
    for cell in nb.cells:
        assert not [o for o in cell.get("outputs", []) if o["output_type"] == "error"], cell
    rows = {k: np.array(v, float) for k, v in json.loads(nb.cells[-1].outputs[0]["text"]).items()}
    check_against_core(rows, config, 2, 10, 12)
    mime = "application/vnd.plotly.v1+json"
    (fig,) = [o["data"][mime] for o in nb.cells[-2].outputs if mime in o.get("data", {})]
    assert len(fig["data"]) == 3  # loss, power iteration, Hutchinson's running mean
