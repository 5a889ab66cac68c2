"""The Hessian-free lab's download is its compute module: the file runs on its own (torch,
numpy and scikit-learn, no hograd) and prints the numbers the page's cached call returns; its
notebook is the same file cut at its ``# %%`` lines."""

from __future__ import annotations

import inspect
import json

import nbformat
import numpy as np
import pytest

from hograd_labs.hf import compute, figures
from hograd_labs.hf.cached import script, why_hessian_free
from hograd_labs.hf.compute import HFConfig
from tests.labs.notebooks import figure_cell, imported, run_alone
from tests.notebooks import execute

CONFIG = HFConfig(
    dataset="digits",
    hidden=(8,),
    steps=3,
    cg_iters=6,
    damping=0.1,
    sgd_lr=0.1,
    adam_lr=0.03,
    seed=2,
)
STANDALONE = {"math", "time", "warnings", "collections", "dataclasses", "numpy", "torch", "sklearn"}


def printed(text: str) -> dict[str, list[str]]:
    return {line.split()[0]: line.split()[1:] for line in text.splitlines() if line.strip()}


def test_the_download_runs_and_prints_the_pages_numbers(tmp_path) -> None:
    run, code = why_hessian_free(CONFIG)  # what the page draws, from its cached call
    # the file is the module's source, its settings line written with the page's values
    own, sent = inspect.getsource(compute).splitlines(), code.source.splitlines()
    changed = [(a, b) for a, b in zip(own, sent, strict=True) if a != b]
    assert changed == [("    config = HFConfig()", f"    config = {CONFIG!r}")]
    assert imported(code.source) <= STANDALONE, imported(code.source) - STANDALONE
    marked = [code.source.splitlines()[i - 1] for i in code.marked]
    assert "create_graph=True" in marked[0] and "backward again" in marked[1]
    stdout = run_alone(code.source, tmp_path, "hograd_why_hf.py")
    got = printed(stdout)
    assert int(got["parameters"][0]) == run.parameters
    for name in ("hf_losses", "rho", "sgd_losses", "adam_losses"):
        np.testing.assert_allclose(
            np.array(got[name], dtype=float), getattr(run, name), rtol=1e-12, err_msg=name
        )
    for name in ("hf_passes", "hvps"):
        assert [int(v) for v in got[name]] == getattr(run, name).tolist()
    # SGD and Adam take Hessian-free's gradients plus 2 per HVP: a count, not a clock
    assert len(got["sgd_losses"]) == len(run.hvps) + 2 * int(run.hvps.sum()) + 1
    assert got["status"] == [run.status[m] for m in ("hf", "sgd", "adam")]
    assert [int(v) for v in got["saved_bytes"]] == [run.grad_saved_bytes, run.hvp_saved_bytes]
    assert all(float(v) > 0 for v in got["seconds"])  # timings: measured, never the same twice
    np.testing.assert_allclose(
        np.array(got["func_gap"], dtype=float), compute.func_form_gaps(run), rtol=1e-9, atol=1e-15
    )


def test_the_torch_func_download_differs_by_its_step_line_only() -> None:
    plain, func = script(CONFIG).source.splitlines(), script(CONFIG, func=True).source.splitlines()
    changed = [(a, b) for a, b in zip(plain, func, strict=True) if a != b]
    assert len(changed) == 1 and changed[0][1].strip().startswith("step = hf_step_func")


def test_the_notebook_is_the_download_cut_at_its_cell_lines() -> None:
    code = script(CONFIG)
    figure = figure_cell(figures.notebook(code.source, "# title", "figure"), code.source)
    assert "result.hf_losses" in figure  # the figure draws what __main__ left behind


def test_the_notebook_runs_and_draws_the_runs_numbers() -> None:
    """Executed by a real kernel (nbclient), as a learner would."""
    pytest.importorskip("nbclient", reason="nbclient is a test dependency")
    small = HFConfig(hidden=(4,), steps=2, cg_iters=3)
    nb = nbformat.reads(figures.notebook(script(small).source, "t", "f"), as_version=4)
    probe = "import json\nprint(json.dumps(result.hf_losses.tolist()))"
    nb.cells.append(nbformat.v4.new_code_cell(probe))
    execute(nb)
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o["output_type"] == "error"]
    assert not errors
    np.testing.assert_allclose(
        json.loads(nb.cells[-1].outputs[0]["text"]), compute.run(small).hf_losses, rtol=1e-12
    )
    mime = "application/vnd.plotly.v1+json"
    assert any(mime in o.get("data", {}) for o in nb.cells[-2].get("outputs", []))
