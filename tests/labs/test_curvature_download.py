"""The curvature lab's download is its compute module with the page's settings: run on its
own (with this project on the path, for hograd_core), it prints the numbers the page's cached
calls return; its notebook is the same file cut at its ``# %%`` lines."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
from pathlib import Path

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

ROOT = Path(__file__).resolve().parents[2]
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


def printed(text: str) -> dict[str, list[str]]:
    return {line.split()[0]: line.split()[1:] for line in text.splitlines() if line.strip()}


def test_the_download_runs_and_prints_the_pages_numbers(tmp_path) -> None:  # noqa: ANN001
    typed, network = curvature_typed(DIAGONAL), curvature_network(DIAGONAL)
    run, sp = curvature_momentum(MOMENTUM), curvature_spectra(NETWORK)
    code = script(DIAGONAL, MOMENTUM, NETWORK)
    own, sent = inspect.getsource(compute).splitlines(), code.source.splitlines()
    changed = [(a, b) for a, b in zip(own, sent, strict=True) if a != b]
    assert changed == [
        ("    diagonal = DiagonalConfig()", f"    diagonal = {DIAGONAL!r}"),
        ("    momentum_config = MomentumConfig()", f"    momentum_config = {MOMENTUM!r}"),
        ("    network_config = NetworkCurvatureConfig()", f"    network_config = {NETWORK!r}"),
    ]
    path = tmp_path / "hograd_why_curvature.py"
    path.write_text(code.source, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, str(path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    got = printed(done.stdout)
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
            np.array(got[f"hf_{hf.curvature}_losses"], float), hf.losses, rtol=1e-9
        )


def test_the_notebook_is_the_download_cut_at_its_cell_lines() -> None:
    code = script(DIAGONAL, MOMENTUM)
    nb = nbformat.reads(figures.notebook(code.source, "# title"), as_version=4)
    cells = [(c.cell_type, c.source) for c in nb.cells]
    assert cells[0] == ("markdown", "# title")
    assert [source for _, source in cells[1:]] == percent_cells(code.source)
