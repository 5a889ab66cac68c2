"""The HVP page's network mode as a script and a notebook: the script (run here) and the
notebook (run in a real kernel with nbclient) print the numbers of the core's
:func:`~hograd_core.network.train` and :func:`~hograd_core.net_curvature.curvature` for the
same settings, and the full Hessian (built by the core, checked against numpy elsewhere) agrees
with what they estimate from Hessian-vector products."""

from __future__ import annotations

import contextlib
import io
import json

import numpy as np
import pytest

from hograd_core import ArgumentError, BudgetError
from hograd_core.net_code import network_code
from hograd_core.net_curvature import curvature
from hograd_core.network import NETWORK_BUDGET, NetConfig, count_parameters, train
from hograd_core.notebook_why import WHY_TEXTS, script_cells, why_notebook

SMALL = [NetConfig("moons", (8,), steps=60, seed=3), NetConfig("digits", (16,), steps=80)]


def printed_by(source: str) -> dict[str, np.ndarray]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, "<generated>", "exec"), {})  # noqa: S102 - our generated script
    return {
        line.split()[0]: np.array(line.split()[1:], float) for line in out.getvalue().splitlines()
    }


def check_against_core(rows: dict, config: NetConfig, top_k: int, power: int, probes: int) -> None:
    net = train(config)
    c = curvature(net, top_k=top_k, power_steps=power, probes=probes)
    np.testing.assert_allclose(rows["loss"], net.losses, rtol=1e-12)
    np.testing.assert_allclose(rows["power"], c.power, rtol=1e-12)
    np.testing.assert_allclose(rows["probes"], c.probes, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(rows["trace"], [c.trace, c.trace_error], rtol=1e-12)
    np.testing.assert_allclose(rows["exact"], c.exact[:top_k], rtol=1e-12)
    assert rows["trace_exact"][0] == pytest.approx(c.trace_exact, rel=1e-12)
    # the plain-torch Lanczos reaches the full Hessian's top eigenvalue, as scipy's eigsh does
    assert rows["lanczos"][-1] == pytest.approx(c.exact[0], rel=1e-9)
    assert c.lanczos[0] == pytest.approx(c.exact[0], rel=1e-5)


@pytest.mark.parametrize("config", SMALL, ids=["moons", "digits"])
def test_the_script_prints_the_pages_training_and_curvature(config: NetConfig) -> None:
    code = network_code(config, top_k=3, power_steps=15, probes=20)
    check_against_core(printed_by(code.source), config, 3, 15, 20)
    marked = [code.source.splitlines()[i - 1] for i in code.marked]
    assert "loss.backward()" in marked[0] and "create_graph" not in marked[0]
    assert "create_graph=True" in marked[1] and "retain_graph=True" in marked[2]


def test_above_the_full_hessians_limit_the_script_builds_no_hessian() -> None:
    config = NetConfig("digits", (32,))
    assert count_parameters(config) > NETWORK_BUDGET.full_hessian_max
    source = network_code(config).source
    assert "eigvalsh" not in source and "trace_exact" not in source
    compile(source, "<generated>", "exec")


@pytest.mark.parametrize(
    ("config", "kwargs", "error"),
    [(NetConfig("spiral"), {}, ArgumentError), (NetConfig(steps=5000), {}, BudgetError),
     (NetConfig(), {"top_k": 9}, BudgetError), (NetConfig(), {"probes": 1}, ArgumentError),
     (NetConfig("digits", (512, 128)), {"power_steps": 100, "probes": 200}, BudgetError)],
)  # fmt: skip
def test_settings_the_page_refuses_are_refused(config, kwargs, error) -> None:  # noqa: ANN001
    with pytest.raises(error):
        network_code(config, **kwargs)


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
