"""The MAML lab's download is its compute module: the file runs on its own (torch and numpy,
no hograd) and prints the numbers the page's cached call returns; its notebook is the same file
cut at its ``# %%`` lines."""

from __future__ import annotations

import inspect
import json

import nbformat
import numpy as np
import pytest

from hograd_labs.maml import compute, figures
from hograd_labs.maml.cached import script, why_maml, why_maml_adapt
from hograd_labs.maml.compute import METHODS, MamlConfig, NewSine
from tests.labs.notebooks import figure_cell, imported, run_alone
from tests.notebooks import execute

CONFIG = MamlConfig(
    hidden=8,
    activation="tanh",
    meta_steps=20,
    tasks=3,
    k_shot=5,
    inner_steps=2,
    inner_lr=0.05,
    outer_lr=0.003,
    seed=3,
)
STANDALONE = {"math", "time", "collections", "dataclasses", "numpy", "torch", "__future__"}


def printed(text: str) -> dict[str, list[str]]:
    return {line.split()[0]: line.split()[1:] for line in text.splitlines() if line.strip()}


def test_the_download_runs_and_prints_the_pages_numbers(tmp_path) -> None:
    run = why_maml(CONFIG)  # what the page draws, from its cached calls
    adaptation, code = why_maml_adapt(CONFIG, 2.5, 1.2, _run=run)
    # the file is the module's source, its two settings lines written with the page's values
    own, sent = inspect.getsource(compute).splitlines(), code.source.splitlines()
    changed = [(a, b) for a, b in zip(own, sent, strict=True) if a != b]
    assert changed == [
        ("    config = MamlConfig()", f"    config = {CONFIG!r}"),
        ("    sine = NewSine()", f"    sine = {NewSine(2.5, 1.2)!r}"),
    ]
    assert imported(code.source) <= STANDALONE, imported(code.source) - STANDALONE
    got = printed(run_alone(code.source, tmp_path, "hograd_why_maml.py"))
    assert int(got["parameters"][0]) == run.parameters
    for name in ("nodes", "saved_bytes"):
        assert [int(v) for v in got[name]] == [getattr(run, name)[m] for m in ("second", "first")]
    assert all(float(v) > 0 for v in got["seconds"])  # timings: measured, never the same twice
    assert float(got["cosine"][0]) == pytest.approx(run.cosine, rel=1e-12)
    assert float(got["hessian_share"][0]) == pytest.approx(run.hessian_share, rel=1e-12)
    for m in METHODS:
        assert got[f"status_{m}"] == [run.status[m]]
        np.testing.assert_allclose(
            np.array(got[f"eval_{m}"], dtype=float), run.eval_losses[m], rtol=1e-12
        )
        np.testing.assert_allclose(
            np.array(got[f"adapt_{m}"], dtype=float), adaptation.errors[m], rtol=1e-12
        )


def test_the_notebook_is_the_download_cut_at_its_cell_lines() -> None:
    code = script(CONFIG, NewSine(2.5, 1.2))
    figure = figure_cell(figures.notebook(code.source, "# title", "figure"), code.source)
    assert "result.eval_losses" in figure  # the figure draws what __main__ left behind


def test_the_notebook_runs_and_draws_the_runs_numbers() -> None:
    """Executed by a real kernel (nbclient), as a learner would."""
    pytest.importorskip("nbclient", reason="nbclient is a test dependency")
    small = MamlConfig(hidden=4, meta_steps=10, tasks=2, k_shot=3)
    nb = nbformat.reads(figures.notebook(script(small, NewSine()).source, "t", "f"), as_version=4)
    probe = "import json\nprint(json.dumps({m: result.eval_losses[m].tolist() for m in result.eval_losses}))"
    nb.cells.append(nbformat.v4.new_code_cell(probe))
    execute(nb)
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o["output_type"] == "error"]
    assert not errors
    run = compute.run(small)
    got = json.loads(nb.cells[-1].outputs[0]["text"])
    for m in METHODS:
        np.testing.assert_allclose(got[m], run.eval_losses[m], rtol=1e-12)
    mime = "application/vnd.plotly.v1+json"
    assert any(mime in o.get("data", {}) for o in nb.cells[-2].get("outputs", []))
