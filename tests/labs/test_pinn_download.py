"""The PINN lab's download is its compute module: the file runs on its own (torch and numpy,
no hograd) and prints the numbers the page's cached call returns, and so does its torch.func
form; its notebook is the same file cut at its ``# %%`` lines."""

from __future__ import annotations

import inspect
import json
from dataclasses import replace

import nbformat
import numpy as np
import pytest

from hograd_labs.pinn import compute, figures
from hograd_labs.pinn.cached import script, why_pinn_run
from hograd_labs.pinn.compute import PinnConfig, fit_summary, preset
from tests.labs.notebooks import figure_cell, imported, run_alone
from tests.notebooks import execute

STANDALONE = {
    "math",
    "time",
    "warnings",
    "collections",
    "dataclasses",
    "numpy",
    "torch",
    "__future__",
}
FUNC_LINE = "    func = True  # torch.func's vmap, jacrev and hessian (terms_func, velocity_func)"


def printed(text: str) -> dict[str, list[str]]:
    return {line.split()[0]: line.split()[1:] for line in text.splitlines() if line.strip()}


@pytest.mark.parametrize(
    "config",
    [
        replace(preset("heat"), steps=30, create_graph=False, coefficient=0.3, t_max=0.5),
        replace(preset("wave"), steps=30, width=8, depth=3, lr=0.005, points=64),
    ],
    ids=["heat-no-graph", "wave"],
)
def test_the_download_runs_and_prints_the_pages_numbers(config: PinnConfig, tmp_path) -> None:
    run, code = why_pinn_run(config)  # what the page draws, and the file it offers
    # the file is the module's source, its settings line written with the page's values
    own, sent = inspect.getsource(compute).splitlines(), code.source.splitlines()
    changed = [(a, b) for a, b in zip(own, sent, strict=True) if a != b]
    assert changed == [("    config = PinnConfig()", f"    config = {config!r}")]
    assert imported(code.source) <= STANDALONE, imported(code.source) - STANDALONE
    marked = [code.source.splitlines()[i - 1] for i in code.marked]
    assert marked and all("create_graph=keep" in line or ".backward()" in line for line in marked)
    func = script(config, func=True).source
    assert [b for a, b in zip(sent, func.splitlines(), strict=True) if a != b] == [FUNC_LINE]
    for source, rtol in ((code.source, 0.0), (func, 1e-12)):  # torch.func: equal to rounding
        got = printed(run_alone(source, tmp_path, "hograd_why_pinn.py"))
        assert int(got["parameters"][0]) == run.parameters and got["status"] == [run.status]
        for name in ("max_error", "rel_error", "residual_rms", "residual_grad"):
            assert float(got[name][0]) == pytest.approx(getattr(run, name), rel=rtol, abs=0)
        np.testing.assert_allclose(np.array(got["loss"], float), run.losses, rtol=rtol)
        for term, how, before, after in fit_summary(run):
            assert got["fit_" + term][0] == how
            np.testing.assert_allclose(
                [float(v) for v in got["fit_" + term][1:]], [before, after], rtol=rtol
            )
        assert all(float(v) > 0 for v in got["seconds"])  # measured, never the same twice
        second = got["second_derivatives"]  # whole Hessian s, diagonal s, entries, their gap
        assert int(second[2]) == run.diagonal_entries == (1 if config.equation == "heat" else 2)
        assert float(second[3]) < 1e-12 and all(float(v) > 0 for v in second[:2])
        said = run.omission_error.splitlines()[:1]
        assert got.get("omission_error", []) == (said[0].split() if said else [])


def test_the_notebook_is_the_download_cut_at_its_cell_lines() -> None:
    code = script(preset("wave"))
    figure = figure_cell(figures.notebook(code.source, "# title", "figure"), code.source)
    assert "result.u" in figure  # the figure draws what __main__ left behind


def test_the_notebook_runs_and_draws_the_runs_numbers() -> None:
    """Executed by a real kernel (nbclient), as a learner would."""
    pytest.importorskip("nbclient", reason="nbclient is a test dependency")
    small = replace(preset("heat"), steps=10, points=32, edge=8, width=8)
    nb = nbformat.reads(figures.notebook(script(small).source, "t", "f"), as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("import json\nprint(json.dumps(result.u.tolist()))"))
    execute(nb)
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o["output_type"] == "error"]
    assert not errors
    np.testing.assert_allclose(
        json.loads(nb.cells[-1].outputs[0]["text"]), compute.run(small).u, rtol=1e-12
    )
    mime = "application/vnd.plotly.v1+json"
    assert any(mime in o.get("data", {}) for o in nb.cells[-2].get("outputs", []))
