"""The curvature lab's download is its compute module: the file runs on its own (torch, numpy
and scikit-learn, no hograd), with the typed function written in it as ``f`` in PyTorch, and
prints the numbers the page's cached calls return; its notebook is the same file cut at its
``# %%`` lines."""

from __future__ import annotations

import inspect
import json

import nbformat
import numpy as np
import pytest

from hograd_labs.curvature import compute, figures
from hograd_labs.curvature.cached import (
    curvature_momentum,
    curvature_network,
    curvature_spectra,
    curvature_typed,
    script,
)
from hograd_labs.curvature.compute import DiagonalConfig, MomentumConfig, NetworkCurvatureConfig
from hograd_ui.notebook import percent_cells
from tests.labs.notebooks import imported, run_alone
from tests.notebooks import execute

# four variables, one of them called like f's argument w: it gets another name in the file
DIAGONAL = DiagonalConfig(
    "log(1 + x^2 + y^2) + x*y*z*w",
    (0.5, -1.0, 2.0, 1.5),
    probes=30,
    repeats=4,
    seed=7,
    hidden=4,
    train_steps=50,
)
MOMENTUM = MomentumConfig(kappa=100.0, lr=0.02, beta=0.8, steps=60)
NETWORK = NetworkCurvatureConfig(
    hidden=4, train_steps=50, hf_iterations=5, cg_iterations=8, lanczos_steps=12, starts=3
)
STANDALONE = {"math", "time", "warnings", "collections", "dataclasses", "numpy", "torch", "sklearn"}


def printed(text: str) -> dict[str, list[str]]:
    return {line.split()[0]: line.split()[1:] for line in text.splitlines() if line.strip()}


def test_the_download_runs_and_prints_the_pages_numbers(tmp_path) -> None:
    typed, network = curvature_typed(DIAGONAL), curvature_network(DIAGONAL)
    run, sp = curvature_momentum(MOMENTUM), curvature_spectra(NETWORK)
    code = script(DIAGONAL, MOMENTUM, NETWORK)
    # the file is the module's source: f is the typed function, the settings the page's own
    own, sent = inspect.getsource(compute).splitlines(), code.source.splitlines()
    changed = [(a, b) for a, b in zip(own, sent, strict=True) if a != b]
    assert changed == [
        (
            'NAMES = ("x", "y", "z")  # its variables, in the order of w',
            "NAMES = ('w', 'x', 'y', 'z')  # its variables, in the order of w",
        ),
        ("    x, y, z = w[0], w[1], w[2]", "    x_, x, y, z = w[0], w[1], w[2], w[3]"),
        (
            "    return (((x**2) * y) + torch.sin(x * y)) + ((z**3) * x)",
            "    return torch.log((1 + (x ** 2)) + (y ** 2)) + (((x * y) * z) * x_)",
        ),
        ("    diagonal = DiagonalConfig()", f"    diagonal = {DIAGONAL!r}"),
        ("    momentum_config = MomentumConfig()", f"    momentum_config = {MOMENTUM!r}"),
        ("    network_config = NetworkCurvatureConfig()", f"    network_config = {NETWORK!r}"),
    ]
    assert imported(code.source) <= STANDALONE, imported(code.source) - STANDALONE
    marked = [code.source.splitlines()[i - 1] for i in code.marked]
    assert "create_graph=True" in marked[0]  # the torch.autograd form's recorded gradient
    assert any("n products H eᵢ" in line for line in marked)
    assert any("z ⊙ Hz" in line for line in marked)
    _prints_the_pages_numbers(code.source, tmp_path, typed, network, run, sp, hf_rtol=1e-9)


def test_the_torch_autograd_form_prints_the_same_numbers(tmp_path) -> None:
    """The second form is the same file with one line changed (every product by
    torch.autograd.grad on a gradient kept with create_graph=True); run alone, it prints the
    page's numbers (computed by torch.func) up to rounding. Hessian-free's CG magnifies the
    rounding: its losses agree to 2.3e-9 relative here, so they get 1e-7."""
    typed, network = curvature_typed(DIAGONAL), curvature_network(DIAGONAL)
    run, sp = curvature_momentum(MOMENTUM), curvature_spectra(NETWORK)
    first = script(DIAGONAL, MOMENTUM, NETWORK).source.splitlines()
    second = script(DIAGONAL, MOMENTUM, NETWORK, autograd=True).source
    changed = [b for a, b in zip(first, second.splitlines(), strict=True) if a != b]
    assert changed == [
        "    autograd = True  # every product by torch.autograd.grad on a graph kept "
        "(create_graph=True)"
    ]
    _prints_the_pages_numbers(second, tmp_path, typed, network, run, sp, hf_rtol=1e-7)


def _prints_the_pages_numbers(source, tmp_path, typed, network, run, sp, hf_rtol) -> None:
    stdout = run_alone(source, tmp_path, "hograd_why_curvature.py")
    got = printed(stdout)
    for name, s in (("typed", typed), ("network", network)):
        np.testing.assert_allclose(np.array(got[f"{name}_exact"], float), s.exact[:10], rtol=1e-12)
        np.testing.assert_allclose(
            np.array(got[f"{name}_estimate"], float), s.estimate[:10], rtol=1e-12
        )
        assert [int(v) for v in got[f"{name}_products"]] == list(s.products)
        assert all(float(v) > 0 for v in got[f"{name}_seconds"])  # measured, never twice alike
        last = got[f"{name}_rms_error_last"]
        assert float(last[0]) == pytest.approx(s.rms_error[-1], rel=1e-12)
        assert float(last[2]) == pytest.approx(s.predicted[-1], rel=1e-12)
    rates = got["momentum_rates"]
    np.testing.assert_allclose(np.array(rates[:2], float), run.rates["momentum"], rtol=1e-12)
    np.testing.assert_allclose(np.array(rates[3:], float), run.rates["gd"], rtol=1e-12)
    assert float(got["limit"][0]) == pytest.approx(run.limit, rel=1e-12)
    assert float(got["momentum_loss_last"][0]) == pytest.approx(
        run.losses["momentum"][-1], rel=1e-9
    )
    assert float(got["ggn_min_eigenvalue"][0]) == pytest.approx(sp.ggn[0], abs=1e-12)
    assert float(got["slq_density_l1_error"][0]) == pytest.approx(sp.l1_error, rel=1e-9)
    assert float(got["slq_trace"][0]) == pytest.approx(sp.trace, rel=1e-9)
    for hf in sp.hf:
        np.testing.assert_allclose(
            np.array(got[f"hf_{hf.curvature}_losses"], float), hf.losses, rtol=hf_rtol
        )


def test_the_notebook_is_the_download_cut_at_its_cell_lines() -> None:
    code = script(DIAGONAL, MOMENTUM)
    nb = nbformat.reads(figures.notebook(code.source, "# title"), as_version=4)
    cells = [(c.cell_type, c.source) for c in nb.cells]
    assert cells[0] == ("markdown", "# title")
    assert [source for _, source in cells[1:]] == percent_cells(code.source)


def test_the_notebook_runs_and_recomputes_the_pages_numbers(tmp_path) -> None:
    """Executed by a real kernel (nbclient) in an empty folder, as a learner would."""
    pytest.importorskip("nbclient", reason="nbclient is a test dependency")
    small = DiagonalConfig(
        DIAGONAL.function, DIAGONAL.point, probes=5, repeats=1, hidden=4, train_steps=5
    )
    network = NetworkCurvatureConfig(
        hidden=4, train_steps=5, hf_iterations=2, cg_iterations=3, lanczos_steps=5, starts=1
    )
    nb = nbformat.reads(
        figures.notebook(script(small, MOMENTUM, network).source, "t"), as_version=4
    )
    probe = "import json\nprint(json.dumps([typed.exact.tolist(), net_study.exact.tolist()]))"
    nb.cells.append(nbformat.v4.new_code_cell(probe))
    execute(nb, tmp_path)
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o["output_type"] == "error"]
    assert not errors, errors
    typed, net = json.loads(nb.cells[-1].outputs[0]["text"])
    np.testing.assert_allclose(typed, curvature_typed(small).exact, rtol=1e-12)
    np.testing.assert_allclose(net, curvature_network(small).exact, rtol=1e-12)
