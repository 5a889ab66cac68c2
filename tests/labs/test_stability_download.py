"""The stability lab's download is its compute module: the file runs on its own (torch, numpy
and scikit-learn's bundled data, no hograd) and prints the numbers the page's cached calls
return; its notebook is the same file cut at its ``# %%`` lines."""

from __future__ import annotations

import inspect
import json

import nbformat
import numpy as np
import pytest

from hograd_labs.stability import compute, figures
from hograd_labs.stability.cached import script, why_quadratic, why_stability
from hograd_labs.stability.compute import StabilityConfig
from tests.labs.notebooks import figure_cell, imported, run_alone
from tests.notebooks import execute

# both experiments unstable in their own way: the quadratic's f falls for now, the network
# trains above 2/λ_max(θ₀) on the digits
CONFIG = StabilityConfig(
    kappa=2.0,
    quadratic_lr=1.002,
    quadratic_steps=150,
    dataset="digits",
    hidden=(8,),
    lr=2.0,
    steps=60,
    every=10,
    lanczos_iters=6,
    seed=3,
)
STANDALONE = {"math", "time", "collections", "dataclasses", "numpy", "torch", "sklearn"}


def printed(text: str) -> dict[str, list[str]]:
    return {line.split()[0]: line.split()[1:] for line in text.splitlines() if line.strip()}


@pytest.mark.parametrize("func", [False, True], ids=["autograd", "torch.func"])
def test_the_download_runs_and_prints_the_pages_numbers(tmp_path, func: bool) -> None:
    quadratic, code = why_quadratic(CONFIG)  # what the page draws, from its cached calls
    network, same = why_stability(CONFIG)
    assert same == code
    # the file is the module's source, its settings line written with the page's values
    sent = script(CONFIG, func=True).source if func else code.source
    own, lines = inspect.getsource(compute).splitlines(), sent.splitlines()
    changed = [(a, b) for a, b in zip(own, lines, strict=True) if a != b]
    assert changed[0] == ("    config = StabilityConfig()", f"    config = {CONFIG!r}")
    assert [b.split("#")[0].strip() for _, b in changed[1:]] == (
        ["derivatives = grad_and_hvp_func"] if func else []
    )
    assert imported(sent) <= STANDALONE, imported(sent) - STANDALONE
    got = printed(run_alone(sent, tmp_path, "hograd_why_stability.py"))
    rtol = 1e-9 if func else 0  # autograd: the very numbers; torch.func: up to rounding
    assert float(got["lambda_max"][0]) == pytest.approx(quadratic.lambda_max, rel=rtol)
    assert got["verdict"] == [quadratic.verdict] == ["fell_for_now"]
    np.testing.assert_allclose(np.array(got["loss"], dtype=float), quadratic.losses, rtol=rtol)
    assert int(got["parameters"][0]) == network.parameters
    assert float(got["lambda0"][0]) == pytest.approx(network.lambda0, rel=rtol)
    assert got["status"] == [network.status] and [int(got["hvps"][0])] == [network.hvps]
    assert all(float(v) > 0 for v in got["seconds"])  # timings: measured, never the same twice
    saved = [network.grad_saved_bytes, network.hvp_saved_bytes]
    assert [int(v) for v in got["saved_bytes"]] == saved
    np.testing.assert_allclose(np.array(got["net_loss"], dtype=float), network.losses, rtol=rtol)
    assert [int(v) for v in got["sharpness_steps"]] == network.sharpness_steps.tolist()
    np.testing.assert_allclose(
        np.array(got["sharpness"], dtype=float), network.sharpness, rtol=rtol
    )


def test_the_notebook_is_the_download_cut_at_its_cell_lines() -> None:
    code = script(CONFIG)
    figure = figure_cell(figures.notebook(code.source, "# title", "figure"), code.source)
    assert "network.sharpness" in figure and "quadratic.losses" in figure


def test_the_notebook_runs_and_draws_the_runs_numbers() -> None:
    """Executed by a real kernel (nbclient), as a learner would."""
    pytest.importorskip("nbclient", reason="nbclient is a test dependency")
    small = StabilityConfig(quadratic_steps=30, hidden=(4,), steps=20, every=10, lanczos_iters=4)
    nb = nbformat.reads(figures.notebook(script(small).source, "t", "f"), as_version=4)
    probe = (
        "import json\nprint(json.dumps([quadratic.losses.tolist(), network.sharpness.tolist()]))"
    )
    nb.cells.append(nbformat.v4.new_code_cell(probe))
    execute(nb)
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o["output_type"] == "error"]
    assert not errors
    losses, sharpness = json.loads(nb.cells[-1].outputs[0]["text"])
    np.testing.assert_array_equal(losses, compute.run_quadratic(small).losses)
    np.testing.assert_array_equal(sharpness, compute.run(small).sharpness)
    mime = "application/vnd.plotly.v1+json"
    assert any(mime in o.get("data", {}) for o in nb.cells[-2].get("outputs", []))
