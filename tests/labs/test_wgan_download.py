"""The WGAN-GP lab's download is its compute module: the file runs on its own (torch and numpy,
no hograd) and prints the numbers the page's cached call returns, and so does its torch.func
form; its notebook is the same file cut at its ``# %%`` lines."""

from __future__ import annotations

import inspect
import json

import nbformat
import numpy as np
import pytest

from hograd_labs.wgan import compute, figures
from hograd_labs.wgan.cached import script, why_wgan_run
from hograd_labs.wgan.compute import WganConfig, smoothed_gap
from tests.labs.notebooks import figure_cell, imported, run_alone
from tests.notebooks import execute

STANDALONE = {"math", "time", "collections", "dataclasses", "numpy", "torch", "__future__"}
FUNC_LINE = "    penalty = gradient_penalty_func  # torch.func's grad and vmap"


def printed(text: str) -> dict[str, list[str]]:
    return {line.split()[0]: line.split()[1:] for line in text.splitlines() if line.strip()}


def numbers(words: list[str]) -> np.ndarray:
    return np.array(words, dtype=float)


@pytest.mark.parametrize(
    "config",
    [
        WganConfig(mode="gp", steps=15, batch=32, hidden=16, dataset="ring", snapshots=3),
        WganConfig(mode="gp_no_graph", steps=12, batch=16, hidden=8, dataset="moons", seed=4),
        WganConfig(mode="clip", steps=10, n_critic=2, clip=0.1, hidden=8, snapshots=2),
    ],
    ids=["gp", "gp_no_graph", "clip"],
)
def test_the_download_runs_and_prints_the_pages_numbers(config: WganConfig, tmp_path) -> None:
    run, check, _costs, code = why_wgan_run(config)  # what the page draws, and the file
    own, sent = inspect.getsource(compute).splitlines(), code.source.splitlines()
    changed = [(a, b) for a, b in zip(own, sent, strict=True) if a != b]
    assert changed == [("    config = WganConfig()", f"    config = {config!r}")]
    assert imported(code.source) <= STANDALONE, imported(code.source) - STANDALONE
    marked = [code.source.splitlines()[i - 1] for i in code.marked]
    assert any("create_graph=create_graph" in line for line in marked)
    func = script(config, func=True).source
    assert [b for a, b in zip(sent, func.splitlines(), strict=True) if a != b] == [FUNC_LINE]
    for source, rtol in ((code.source, 0.0), (func, 1e-12)):  # torch.func: equal to rounding
        got = printed(run_alone(source, tmp_path, "hograd_why_wgan.py"))
        assert int(got["critic_parameters"][0]) == run.critic_parameters
        assert got["status"] == [run.status]
        np.testing.assert_allclose(numbers(got["wasserstein"]), run.wasserstein, rtol=rtol)
        np.testing.assert_allclose(numbers(got["penalty"]), run.penalty, rtol=rtol)
        np.testing.assert_allclose(numbers(got["smoothed_gap"]), smoothed_gap(run), rtol=rtol)
        distance = float(abs(run.norms[-1] - 1).mean())
        assert float(got["norm_distance"][0]) == pytest.approx(distance, rel=rtol, abs=0)
        np.testing.assert_allclose(
            numbers(got["with_graph"]), check.with_graph, rtol=rtol, atol=1e-300
        )
        assert list(numbers(got["without_graph"])) == [0.0] * 6
        assert float(got["penalty_at_start"][0]) == pytest.approx(check.penalty, rel=rtol, abs=0)
        assert all(float(v) > 0 for v in got["seconds"])  # measured, never the same twice


def test_the_notebook_is_the_download_cut_at_its_cell_lines() -> None:
    code = script(WganConfig(dataset="moons"))
    figure = figure_cell(figures.notebook(code.source, "# title", "figure"), code.source)
    assert "result.fake[-1]" in figure  # the figure draws what __main__ left behind


def test_the_notebook_runs_and_draws_the_runs_numbers() -> None:
    """Executed by a real kernel (nbclient), as a learner would."""
    pytest.importorskip("nbclient", reason="nbclient is a test dependency")
    small = WganConfig(steps=6, batch=16, hidden=8, n_critic=2, snapshots=2)
    nb = nbformat.reads(figures.notebook(script(small).source, "t", "f"), as_version=4)
    nb.cells.append(
        nbformat.v4.new_code_cell("import json\nprint(json.dumps(result.wasserstein.tolist()))")
    )
    execute(nb)
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o["output_type"] == "error"]
    assert not errors
    np.testing.assert_allclose(
        json.loads(nb.cells[-1].outputs[0]["text"]), compute.run(small).wasserstein, rtol=1e-12
    )
    mime = "application/vnd.plotly.v1+json"
    assert any(mime in o.get("data", {}) for o in nb.cells[-2].get("outputs", []))
