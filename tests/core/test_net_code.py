"""The HVP page's network mode as a script and a notebook: the script (run here) and the
notebook (run in a real kernel by tests/programs/test_net_code_kernel.py) print the numbers
of the core's :func:`~hograd_core.network.train` and
:func:`~hograd_core.net_curvature.curvature` for the same settings, and the full Hessian (built by the core, checked against numpy elsewhere) agrees
with what they estimate from Hessian-vector products."""

from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest

from hograd_core import ArgumentError, BudgetError
from hograd_core.net_code import network_code
from hograd_core.net_curvature import curvature
from hograd_core.network import NETWORK_BUDGET, NetConfig, count_parameters, train

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
