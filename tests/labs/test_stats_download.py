"""The gradient-statistics lab's download is its compute module: the file runs on its own
(torch, numpy and scikit-learn's digits, no hograd) and prints the numbers the page's cached
call returns; its notebook is the same file cut at its ``# %%`` lines."""

from __future__ import annotations

import inspect
import json
from dataclasses import replace

import nbformat
import numpy as np
import pytest

from hograd_labs.stats import compute, figures
from hograd_labs.stats.cached import script, why_gradient_stats
from hograd_labs.stats.compute import SCENARIOS, StatsConfig
from tests.labs.notebooks import figure_cell, imported, run_alone
from tests.notebooks import execute

STANDALONE = {"json", "math", "warnings", "collections", "dataclasses", "numpy", "torch", "sklearn"}


def printed(text: str) -> dict[str, list[str]]:
    return {line.split()[0]: line.split()[1:] for line in text.splitlines() if line.strip()}


def floats(words: list[str]) -> np.ndarray:
    return np.array([float(w) for w in words])


@pytest.mark.parametrize(
    "config",
    [
        StatsConfig(depth=3, width=8, steps=20, batch=32, clip=0.5, seed=4),
        replace(SCENARIOS["nan32"], steps=10),
    ],
    ids=["tanh-clipped", "nan32"],
)
def test_the_download_runs_and_prints_the_pages_numbers(tmp_path, config) -> None:
    stats, code, _, _ = why_gradient_stats(config)  # what the page draws, from its cached call
    # the file is the module's source, its settings line written with the page's values
    own, sent = inspect.getsource(compute).splitlines(), code.source.splitlines()
    changed = [(a, b) for a, b in zip(own, sent, strict=True) if a != b]
    assert changed == [("    config = StatsConfig()", f"    config = {config!r}")]
    assert imported(code.source) <= STANDALONE, imported(code.source) - STANDALONE
    # as a learner would: anomaly mode switched on in the file's own settings
    anomaly = code.source.replace("    anomaly = False", "    anomaly = True")
    got = printed(run_alone(anomaly, tmp_path, "hograd_why_stats.py", "-W", "ignore"))
    np.testing.assert_array_equal(floats(got["loss"]), stats.losses)  # the same float64 repr
    np.testing.assert_array_equal(floats(got["loss_" + stats.other_dtype]), stats.other_losses)
    np.testing.assert_array_equal(floats(got["norms"]), stats.layer_norms[-1])
    assert int(got["clipped"][0]) == int(stats.clipped.sum())
    nan_step = None if got["nan_step"] == ["none"] else int(got["nan_step"][0])
    assert nan_step == stats.nan_step
    if stats.nan_step is None:
        assert got["nan_source"] == ["none"] and got["anomaly"] == ["None"]
    else:  # the locator and the real anomaly mode name the same operation
        node, output = stats.nan_source
        assert got["nan_source"] == [node, str(output)]
        assert got["nan_layers"] == list(stats.nan_layers)
        said = " ".join(got["anomaly"])
        assert said == f"Function '{node}' returned nan values in its {output}th output."
    if stats.saturated.size:
        np.testing.assert_array_equal(floats(got["saturated"]), stats.saturated)


def test_the_notebook_is_the_download_cut_at_its_cell_lines() -> None:
    code = script(StatsConfig(depth=3, width=8, steps=20))
    figure = figure_cell(figures.notebook(code.source, "# title", "figure"), code.source)
    assert "stats.layer_norms" in figure  # the figure draws what __main__ left behind


def test_the_notebook_runs_and_draws_the_runs_numbers() -> None:
    """Executed by a real kernel (nbclient), as a learner would."""
    pytest.importorskip("nbclient", reason="nbclient is a test dependency")
    small = StatsConfig(depth=3, width=8, steps=10)
    nb = nbformat.reads(figures.notebook(script(small).source, "t", "f"), as_version=4)
    nb.cells.append(
        nbformat.v4.new_code_cell("import json\nprint(json.dumps(stats.losses.tolist()))")
    )
    execute(nb)
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o["output_type"] == "error"]
    assert not errors
    np.testing.assert_array_equal(
        json.loads(nb.cells[-1].outputs[0]["text"]), compute.run(small).losses
    )
    mime = "application/vnd.plotly.v1+json"
    assert any(mime in o.get("data", {}) for o in nb.cells[-2].get("outputs", []))
