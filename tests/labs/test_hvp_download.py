"""The HVP lab's network download is its compute module: the file runs on its own (torch,
numpy, scipy and scikit-learn, no hograd), prints the numbers the page's cached calls return,
and its notebook is the same file cut at its ``# %%`` lines."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from hograd_core.curvature import _load_forward_ad
from hograd_labs.hvp import compute, figures
from hograd_labs.hvp.cached import analysed, script, trained
from tests.labs.notebooks import figure_cell, imported, run_alone

#: (dataset, hidden, steps, seed, top_k, power steps, probes): a small net, its full Hessian built
RUN = ("moons", (6,), 40, 3, 2, 8, 12)
STANDALONE = {"math", "time", "collections", "dataclasses", "numpy", "torch", "scipy", "sklearn"}


def printed(text: str) -> dict[str, list[str]]:
    return {line.split()[0]: line.split()[1:] for line in text.splitlines() if line.strip()}


def test_the_download_runs_and_prints_the_pages_numbers(tmp_path) -> None:
    net = trained(*RUN[:4])  # what the page draws, from its cached calls
    curv = analysed(RUN[:4], *RUN[4:], _net=net)
    code = script(RUN)
    # the file is the module's source, its settings line written with the page's values
    own, sent = inspect.getsource(compute).splitlines(), code.source.splitlines()
    changed = [(a, b) for a, b in zip(own, sent, strict=True) if a != b]
    assert [a for a, _ in changed] == ["    config = HvpConfig()"]
    assert changed[0][1].startswith("    config = HvpConfig(dataset='moons', hidden=(6,), steps=40")
    assert imported(code.source) <= STANDALONE, imported(code.source) - STANDALONE
    got = printed(run_alone(code.source, tmp_path, "hograd_hvp_network.py"))
    assert int(got["parameters"][0]) == curv.parameters == net.parameters.size
    assert float(got["test_accuracy"][0]) == net.test_accuracy
    assert float(got["loss"][0]) == curv.loss
    for name, page in (
        ("losses", net.losses),
        ("lanczos", curv.lanczos),
        ("power", curv.power),
        ("probes", curv.probes),
        ("exact", curv.exact[: curv.lanczos.size]),
    ):
        np.testing.assert_array_equal(np.array(got[name], dtype=float), page)
    assert [float(v) for v in got["trace"]] == [curv.trace, curv.trace_error]
    assert float(got["trace_exact"][0]) == curv.trace_exact
    assert all(float(v) > 0 for v in got["seconds_grad_hvp"])  # timings: never the same twice


def test_the_torch_func_form_is_the_same_file_with_the_same_products() -> None:
    """The second form swaps one line; its H v (jvp of grad) agrees with double backward."""
    own, func = script(RUN).source.splitlines(), script(RUN, func=True).source.splitlines()
    assert [b for a, b in zip(own, func, strict=True) if a != b] == [
        "    hessian = FuncHessian  # torch.func: jvp of grad, no graph kept between products"
    ]
    _load_forward_ad()  # torch.func's first jvp, with its deprecation warning silenced
    config = compute.HvpConfig(*RUN[:2], steps=RUN[2], seed=RUN[3])
    net = compute.train(config)
    loss, _ = compute.analysed_loss(net, config)
    v = np.linspace(-1.0, 1.0, net.parameters.size)
    kept = compute.KeptGraph(loss, net.parameters)(v)
    np.testing.assert_allclose(
        compute.FuncHessian(loss, net.parameters)(v), kept, rtol=1e-10, atol=1e-12
    )


def test_the_notebook_is_the_download_cut_at_its_cell_lines() -> None:
    code = script(RUN)
    figure = figure_cell(figures.notebook(code.source, "# title", "figure"), code.source)
    assert "curv.power" in figure and "net.losses" in figure  # what __main__ left behind


@pytest.mark.parametrize("asked", [(*RUN[:4], 2, 101, 20), ("cubes", *RUN[1:])])
def test_a_refused_setting_has_no_script(asked: tuple) -> None:
    from hograd_core import HogradError

    with pytest.raises(HogradError):
        script(asked)
