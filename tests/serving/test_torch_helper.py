"""hograd_serving.torch_helper: the flag lab's fresh processes, forked from a warm helper. What makes a
process fresh is checked through what PyTorch does once per process: the reference-cycle
warning of backward(create_graph=True) must appear on every run, and detect_anomaly must
not stay on."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from hograd_core.flaglab.cases import run_case
from hograd_serving import torch_helper
from hograd_ui.i18n import error_text

CYCLE = "Using backward() with create_graph=True will create a reference cycle"


@pytest.fixture()
def helper(monkeypatch: pytest.MonkeyPatch):  # noqa: ANN201
    """A helper of the test's own, and no cold process: a run that reaches the fallback fails."""
    server = torch_helper.TorchHelper()
    monkeypatch.setattr(torch_helper, "TORCH_HELPER", server)
    cold = subprocess.run

    def no_cold_process(args, *rest, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        assert torch_helper._COLD not in " ".join(map(str, args))
        return cold(args, *rest, **kwargs)

    monkeypatch.setattr(subprocess, "run", no_cold_process)
    yield server
    server.stop()


def test_every_run_is_a_fresh_process(helper: torch_helper.TorchHelper) -> None:
    """A warning PyTorch gives once per process appears every time, from one helper."""
    for _ in range(3):
        twice = run_case("backward_accumulates", "twice", isolate=torch_helper.run_isolated)
        assert any(CYCLE in w for w in twice.warnings)
    assert helper._starts == 1 and helper._proc is not None and helper._proc.poll() is None


def test_the_helper_has_one_thread(helper: torch_helper.TorchHelper) -> None:
    """Forking a process with other threads copies only the forking one, and any lock another
    held stays locked in the copy forever: the helper has no other thread to begin with."""
    from pathlib import Path

    run_case(
        "backward_accumulates", "twice", isolate=torch_helper.run_isolated
    )  # started, and everything imported
    tasks = list(Path(f"/proc/{helper._proc.pid}/task").iterdir())
    names = [(t / "comm").read_text().strip() for t in tasks]
    assert len(tasks) == 1, names


def test_anomaly_mode_does_not_leak_into_the_next_run(helper: torch_helper.TorchHelper) -> None:
    sqrt = run_case(
        "nan_anomaly", "sqrt", isolate=torch_helper.run_isolated
    )  # runs under torch.autograd.detect_anomaly()
    assert "Error detected in PowBackward0." in sqrt.warnings
    state = json.loads(
        torch_helper._run_fresh(
            {"kind": "case", "case": "backward_accumulates", "variant": "twice"}, 60
        )
    )
    assert not any("Error detected" in w for w in state["warnings"])  # anomaly mode is off


def test_a_run_out_of_time_is_killed_and_the_helper_goes_on(
    helper: torch_helper.TorchHelper,
) -> None:
    payload = {"kind": "case", "case": "backward_accumulates", "variant": "twice"}
    torch_helper._run_fresh(payload, 60)  # the helper is up
    with pytest.raises(torch_helper.ChildError) as caught:
        torch_helper._run_fresh(payload, 1e-9)
    assert caught.value.timeout
    assert CYCLE in torch_helper._run_fresh(payload, 60)  # the next request is served as usual
    assert helper._starts == 1


def test_a_dead_helper_is_started_again(helper: torch_helper.TorchHelper) -> None:
    payload = {"kind": "case", "case": "backward_accumulates", "variant": "twice"}
    torch_helper._run_fresh(payload, 60)
    helper._proc.kill()
    helper._proc.wait()
    assert CYCLE in torch_helper._run_fresh(payload, 60)
    assert helper._starts == 2


def test_without_a_helper_a_cold_process_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    server = torch_helper.TorchHelper()
    monkeypatch.setattr(torch_helper, "TORCH_HELPER", server)
    real_popen = subprocess.Popen

    def refuse(args, *rest, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        if "hograd_serving.torch_helper import _serve" in " ".join(map(str, args)):
            raise OSError("no helper here")
        return real_popen(args, *rest, **kwargs)

    monkeypatch.setattr(subprocess, "Popen", refuse)
    twice = run_case("backward_accumulates", "twice", isolate=torch_helper.run_isolated)
    assert any(CYCLE in w for w in twice.warnings)
    assert server._proc is None


# ---- the network page's training and analysis ------------------------------------------------


def test_training_in_a_copy_is_the_same_training(
    helper: torch_helper.TorchHelper, monkeypatch
) -> None:  # noqa: ANN001
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

    monkeypatch.setitem(torch_helper.JOBS, "train", not_here)  # the copy has its own, untouched
    there = torch_helper.run_job("train", config, 60, progress)
    np.testing.assert_array_equal(there.parameters, here.parameters)
    np.testing.assert_array_equal(there.losses, here.losses)
    assert there.test_accuracy == here.test_accuracy and there.steps == 60
    assert calls and calls[-1][:2] == (60, 60) and calls[-1][2] == here.losses[-1]


def test_analysis_in_a_copy_is_the_same_analysis(helper: torch_helper.TorchHelper) -> None:
    import numpy as np

    from hograd_core.net_curvature import curvature
    from hograd_core.network import NetConfig, train

    net = train(NetConfig("moons", (8,), steps=60, seed=3))
    kwargs = dict(top_k=2, power_steps=6, probes=4)
    here = curvature(net, **kwargs)
    there = torch_helper.run_job("analyse", (net, kwargs), 60)
    for name in ("lanczos", "power", "probes", "exact"):
        np.testing.assert_array_equal(getattr(there, name), getattr(here, name))
    assert there.trace == here.trace and there.loss == here.loss


def test_a_refusal_in_a_copy_is_the_same_refusal(helper: torch_helper.TorchHelper) -> None:
    from hograd_core.errors import BudgetError
    from hograd_core.network import NetConfig, train

    config = NetConfig("digits", (512, 512, 512), steps=100)  # over the parameter limit
    with pytest.raises(BudgetError) as here:
        train(config)
    with pytest.raises(BudgetError) as there:
        torch_helper.run_job("train", config, 60)
    assert there.value.key == here.value.key and error_text(there.value, "zh") == error_text(
        here.value, "zh"
    )


def test_a_helper_idle_longer_than_a_timeout_still_gives_the_full_time(
    helper: torch_helper.TorchHelper,
) -> None:
    """A request's time counts from when it arrives, not from when the helper last woke."""
    import time

    payload = {"kind": "case", "case": "backward_accumulates", "variant": "twice"}
    torch_helper._run_fresh(payload, 60)
    # Idle for longer than the next request's whole time. Counted from the helper's last
    # wake-up, that request would be killed at once; counted from its arrival, it has its
    # 2.5 s, about 25 times what a forked copy needs for this case.
    time.sleep(3.0)
    assert CYCLE in torch_helper._run_fresh(payload, 2.5)


def test_a_job_that_runs_out_of_time_is_a_clear_refusal(helper: torch_helper.TorchHelper) -> None:
    from hograd_core.network import NetConfig

    with pytest.raises(torch_helper.ChildError) as caught:
        torch_helper.run_job("train", NetConfig("moons", (8,), steps=50), 1e-9)
    assert caught.value.key == "budget.job_timeout"
    assert "was stopped" in error_text(caught.value, "en") and "已被停止" in error_text(
        caught.value, "zh"
    )


# ---- the derivatives page's autograd probe ---------------------------------------------------

PROBED = ["x**3", "tanh(x)", "log(cosh(x))", "sqrt(x-1)", "sin(x)*exp(-x^2)", "x*sin(1/x)", "2*x"]


def test_a_probe_in_a_copy_is_the_same_probe(helper: torch_helper.TorchHelper) -> None:
    """Node counts, values (NaN included, compared as bits) and refusals over the limit."""
    import math

    from hograd_core import parse
    from hograd_core.nested_autograd import probe_graph

    for text in PROBED:
        for order in (0, 3, 9, 10):
            fn = parse(text)
            done, there = helper.run("probe", (fn.text, fn.variables, order), 60)
            assert done, "the helper did not run the probe"
            here = probe_graph(fn, order)
            if here is None:
                assert there is None, (text, order)
                continue
            assert there[0] == here[0], (text, order)
            assert [math.copysign(1, v) if math.isnan(v) else v for v in there[1]] == [
                math.copysign(1, v) if math.isnan(v) else v for v in here[1]
            ], (text, order)
    refused = torch_helper.probe_in_helper(parse("log(cosh(x))"), 9)
    assert refused is None  # 117,559 nodes: over the limit, refused there as here


def test_the_probe_runs_where_it_is_told() -> None:
    from hograd_core import parse
    from hograd_core.nested_autograd import autograd_at_probe_point, estimate_autograd

    asked: list[tuple[str, int]] = []

    def elsewhere(fn, order):  # noqa: ANN001, ANN202
        asked.append((fn.text, order))
        return (1, 2), (0.25, 1.0)

    assert autograd_at_probe_point(parse("x**4 + 1"), 1, elsewhere) == [0.25, 1.0]  # its answer
    assert estimate_autograd(parse("x**4 + 1"), 1, 10, elsewhere)[1] == [1, 2]
    assert asked == [("x**4 + 1", 1)] * 2
    assert autograd_at_probe_point(parse("x**2"), 1) == [0.25, 1.0]  # by default, here


def test_the_derivatives_page_probes_in_the_helper(monkeypatch: pytest.MonkeyPatch) -> None:
    from hograd_serving import cached

    sent: list[str] = []
    real = torch_helper.TORCH_HELPER.run

    def recording(kind, args, *rest, **kw):  # noqa: ANN001, ANN002, ANN003, ANN202
        sent.append(kind)
        return real(kind, args, *rest, **kw)

    monkeypatch.setattr(torch_helper.TORCH_HELPER, "run", recording)
    torch_helper._probe_in_helper.cache_clear()
    result = cached.curves("x**3 + 0.125*x", -1.0, 1.0, 5, 3, "autograd")
    assert sent == ["probe"] and result.values[3].tolist() == [6.0] * 5


# A cold process that says it has started, then waits until the test lets it finish.
_HOLD = (
    "import pathlib, sys, time; d = pathlib.Path(sys.stdin.read()); "
    "(d / 'started').touch(); "
    "[time.sleep(0.02) for _ in iter(lambda: (d / 'go').exists(), True)]; print('done')"
)


def test_lean_mode_runs_one_cold_process_at_a_time(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:  # noqa: ANN001
    """While one cold process (about 220 MB with torch) runs, a second is refused as busy,
    not started: a small host never holds two."""
    import threading

    monkeypatch.setattr(torch_helper, "_COLD_SEMAPHORE", threading.BoundedSemaphore(1))
    out: list[str] = []
    first = threading.Thread(
        target=lambda: out.append(torch_helper.run_cold(_HOLD, str(tmp_path), 60))
    )
    first.start()
    try:
        while not (tmp_path / "started").exists():  # the first holds its slot now
            assert first.is_alive()
            first.join(timeout=0.02)
        with pytest.raises(torch_helper.BusyError) as caught:
            torch_helper.run_cold("print('never')", "", 60, wait=0.05)
        assert error_text(caught.value, "en").startswith("The server is busy")
    finally:
        (tmp_path / "go").touch()
        first.join(timeout=60)
    assert out == ["done\n"]
    assert torch_helper.run_cold("print('next')", "", 60) == "next\n"  # the slot is free again


def test_the_lean_flag_decides_how_many_cold_processes() -> None:
    code = "from hograd_serving import torch_helper as h; print(h.COLD_SLOTS, h.LEAN)"
    for lean, slots in (("1", "1"), ("0", "2")):
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
            env={**os.environ, "HOGRAD_LEAN": lean}, check=True,
        )  # fmt: skip
        assert done.stdout.split() == [slots, str(lean == "1")]
