"""hograd_core.fresh: the flag lab's fresh processes, forked from a warm helper. What makes a
process fresh is checked through what PyTorch does once per process: the reference-cycle
warning of backward(create_graph=True) must appear on every run, and detect_anomaly must
not stay on."""

from __future__ import annotations

import json
import subprocess

import pytest

from hograd_core import fresh
from hograd_core.flaglab_cases import run_case

CYCLE = "Using backward() with create_graph=True will create a reference cycle"


@pytest.fixture()
def helper(monkeypatch: pytest.MonkeyPatch):  # noqa: ANN201
    """A helper of the test's own, and no cold process: a run that reaches the fallback fails."""
    server = fresh.ForkServer()
    monkeypatch.setattr(fresh, "FORK_SERVER", server)
    cold = subprocess.run

    def no_cold_process(args, *rest, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        assert "hograd_core.flaglab import _child" not in " ".join(map(str, args))
        return cold(args, *rest, **kwargs)

    monkeypatch.setattr(subprocess, "run", no_cold_process)
    yield server
    server.stop()


def test_every_run_is_a_fresh_process(helper: fresh.ForkServer) -> None:
    """A warning PyTorch gives once per process appears every time, from one helper."""
    for _ in range(3):
        twice = run_case("backward_accumulates", "twice")
        assert any(CYCLE in w for w in twice.warnings)
    assert helper._starts == 1 and helper._proc is not None and helper._proc.poll() is None


def test_the_helper_has_one_thread(helper: fresh.ForkServer) -> None:
    """Forking a process with other threads copies only the forking one, and any lock another
    held stays locked in the copy forever: the helper has no other thread to begin with."""
    from pathlib import Path

    run_case("backward_accumulates", "twice")  # started, and everything imported
    tasks = list(Path(f"/proc/{helper._proc.pid}/task").iterdir())
    names = [(t / "comm").read_text().strip() for t in tasks]
    assert len(tasks) == 1, names


def test_anomaly_mode_does_not_leak_into_the_next_run(helper: fresh.ForkServer) -> None:
    sqrt = run_case("nan_anomaly", "sqrt")  # runs under torch.autograd.detect_anomaly()
    assert "Error detected in PowBackward0." in sqrt.warnings
    state = json.loads(
        fresh.run_fresh({"kind": "case", "case": "backward_accumulates", "variant": "twice"}, 60)
    )
    assert not any("Error detected" in w for w in state["warnings"])  # anomaly mode is off


def test_a_run_out_of_time_is_killed_and_the_helper_goes_on(helper: fresh.ForkServer) -> None:
    payload = {"kind": "case", "case": "backward_accumulates", "variant": "twice"}
    fresh.run_fresh(payload, 60)  # the helper is up
    with pytest.raises(fresh.FreshError) as caught:
        fresh.run_fresh(payload, 1e-9)
    assert caught.value.timeout
    assert CYCLE in fresh.run_fresh(payload, 60)  # the next request is served as usual
    assert helper._starts == 1


def test_a_dead_helper_is_started_again(helper: fresh.ForkServer) -> None:
    payload = {"kind": "case", "case": "backward_accumulates", "variant": "twice"}
    fresh.run_fresh(payload, 60)
    helper._proc.kill()
    helper._proc.wait()
    assert CYCLE in fresh.run_fresh(payload, 60)
    assert helper._starts == 2


def test_without_a_helper_a_cold_process_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    server = fresh.ForkServer()
    monkeypatch.setattr(fresh, "FORK_SERVER", server)
    real_popen = subprocess.Popen

    def refuse(args, *rest, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        if "hograd_core.fresh import _serve" in " ".join(map(str, args)):
            raise OSError("no helper here")
        return real_popen(args, *rest, **kwargs)

    monkeypatch.setattr(subprocess, "Popen", refuse)
    twice = run_case("backward_accumulates", "twice")
    assert any(CYCLE in w for w in twice.warnings)
    assert server._proc is None


# ---- the network page's training and analysis ------------------------------------------------


def test_training_in_a_copy_is_the_same_training(helper: fresh.ForkServer, monkeypatch) -> None:  # noqa: ANN001
    """The fork trains exactly what training here gives (same seed, one thread), reports its
    progress to the caller's thread as it goes, and runs there, not here."""
    import threading

    import numpy as np

    from hograd_core.network import NetConfig, train

    config = NetConfig("moons", (8,), steps=60, seed=3)
    here = train(config)
    calls: list[tuple[int, int, float]] = []
    caller = threading.get_ident()

    def progress(step: int, total: int, loss: float) -> None:
        assert threading.get_ident() == caller
        calls.append((step, total, loss))

    def not_here(*args: object) -> None:
        raise AssertionError("trained in the server process")

    monkeypatch.setitem(fresh.JOBS, "train", not_here)  # the copy has its own, untouched
    there = fresh.run_job("train", config, 60, progress)
    np.testing.assert_array_equal(there.parameters, here.parameters)
    np.testing.assert_array_equal(there.losses, here.losses)
    assert there.test_accuracy == here.test_accuracy and there.steps == 60
    assert calls and calls[-1][:2] == (60, 60) and calls[-1][2] == here.losses[-1]


def test_analysis_in_a_copy_is_the_same_analysis(helper: fresh.ForkServer) -> None:
    import numpy as np

    from hograd_core.net_curvature import curvature
    from hograd_core.network import NetConfig, train

    net = train(NetConfig("moons", (8,), steps=60, seed=3))
    kwargs = dict(top_k=2, power_steps=6, probes=4)
    here = curvature(net, **kwargs)
    there = fresh.run_job("analyse", (net, kwargs), 60)
    for name in ("lanczos", "power", "probes", "exact"):
        np.testing.assert_array_equal(getattr(there, name), getattr(here, name))
    assert there.trace == here.trace and there.loss == here.loss


def test_a_refusal_in_a_copy_is_the_same_refusal(helper: fresh.ForkServer) -> None:
    from hograd_core.errors import BudgetError
    from hograd_core.network import NetConfig, train

    config = NetConfig("digits", (512, 512, 512), steps=100)  # over the parameter limit
    with pytest.raises(BudgetError) as here:
        train(config)
    with pytest.raises(BudgetError) as there:
        fresh.run_job("train", config, 60)
    assert there.value.key == here.value.key and there.value.message("zh") == here.value.message(
        "zh"
    )


def test_a_helper_idle_longer_than_a_timeout_still_gives_the_full_time(
    helper: fresh.ForkServer,
) -> None:
    """A request's time counts from when it arrives, not from when the helper last woke."""
    import time

    payload = {"kind": "case", "case": "backward_accumulates", "variant": "twice"}
    fresh.run_fresh(payload, 60)
    time.sleep(1.5)  # idle, longer than the next request's whole timeout
    assert CYCLE in fresh.run_fresh(payload, 1.0)


def test_a_job_that_runs_out_of_time_is_a_clear_refusal(helper: fresh.ForkServer) -> None:
    from hograd_core.errors import BudgetError
    from hograd_core.network import NetConfig

    with pytest.raises(BudgetError) as caught:
        fresh.run_job("train", NetConfig("moons", (8,), steps=50), 1e-9)
    assert caught.value.key == "budget.job_timeout"
    assert "was stopped" in caught.value.message("en") and "已被停止" in caught.value.message("zh")


# ---- the derivatives page's autograd probe ---------------------------------------------------

PROBED = ["x**3", "tanh(x)", "log(cosh(x))", "sqrt(x-1)", "sin(x)*exp(-x^2)", "x*sin(1/x)", "2*x"]


def test_a_probe_in_a_copy_is_the_same_probe(helper: fresh.ForkServer) -> None:
    """Node counts, values (NaN included, compared as bits) and refusals over the limit."""
    import math

    from hograd_core import parse
    from hograd_core.derivatives import probe_here

    for text in PROBED:
        for order in (0, 3, 9, 10):
            fn = parse(text)
            here, there = probe_here(fn, order), fresh.probe_elsewhere(fn, order)
            if here is None:
                assert there is None, (text, order)
                continue
            assert there[0] == here[0], (text, order)
            assert [math.copysign(1, v) if math.isnan(v) else v for v in there[1]] == [
                math.copysign(1, v) if math.isnan(v) else v for v in here[1]
            ], (text, order)
    refused = fresh.probe_elsewhere(parse("log(cosh(x))"), 9)
    assert refused is None  # 117,559 nodes: over the limit, refused there as here


def test_the_probe_runs_where_it_is_told(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    from hograd_core import parse

    d = importlib.import_module("hograd_core.derivatives")
    asked: list[tuple[str, int]] = []

    def elsewhere(fn, order):  # noqa: ANN001, ANN202
        asked.append((fn.text, order))
        return d.HERE if fn.text == "x**2" else ((1, 2), (0.25, 1.0))

    try:
        d.probe_in(elsewhere)
        assert d.autograd_at_probe_point(parse("x**4 + 1"), 1) == [0.25, 1.0]  # its answer
        assert d.autograd_at_probe_point(parse("x**2"), 1) == [0.25, 1.0]  # HERE: worked out here
        assert asked == [("x**4 + 1", 1), ("x**2", 1)]
    finally:
        d.probe_in(None)
    assert d.PROBE_ELSEWHERE is None
