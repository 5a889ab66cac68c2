"""hograd_serving.jobs: the flag lab's fresh processes, heavy network jobs through the gate, the
shared autograd probe; and a server that starts no resident child process at all.

What makes a process fresh is checked through what PyTorch does once per process: the
reference-cycle warning of backward(create_graph=True) must appear on every run, and
detect_anomaly must not stay on."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

from hograd_core import parse
from hograd_core.errors import BudgetError
from hograd_core.flaglab.cases import run_case
from hograd_core.network import NetConfig, train
from hograd_serving import gate, jobs
from hograd_ui.i18n import LANGUAGES, catalogue, error_text

ROOT = Path(__file__).resolve().parents[2]
CYCLE = "Using backward() with create_graph=True will create a reference cycle"
TWICE = {"kind": "case", "case": "backward_accumulates", "variant": "twice"}
#: Words for the machinery: processes, forks, helpers, copies, queues, threads, interpreters.
INTERNALS = re.compile(
    r"process|fork|helper|\bcop(y|ies)\b|queue|thread|interpreter|pipe|"
    r"进程|线程|队列|副本|分叉|管道|解释器",
    re.IGNORECASE,
)


# ---- the flag lab's fresh processes ---------------------------------------------------------


def test_every_isolated_run_is_a_fresh_process() -> None:
    """A warning PyTorch gives once per process appears every time."""
    for _ in range(2):
        twice = run_case("backward_accumulates", "twice", isolate=jobs.run_isolated)
        assert any(CYCLE in w for w in twice.warnings)


def test_anomaly_mode_does_not_leak_into_the_next_run() -> None:
    sqrt = run_case("nan_anomaly", "sqrt", isolate=jobs.run_isolated)  # under detect_anomaly()
    assert "Error detected in PowBackward0." in sqrt.warnings
    state = json.loads(jobs.run_cold(jobs._COLD_FLAG, json.dumps(TWICE), 60))
    assert not any("Error detected" in w for w in state["warnings"])  # anomaly mode is off


def test_a_run_out_of_time_is_killed_and_said_plainly() -> None:
    with pytest.raises(jobs.ChildError) as caught:
        jobs.run_cold("import time; time.sleep(60)", "", 0.2)
    assert caught.value.timeout and caught.value.key == "budget.job_timeout"
    assert "was stopped" in error_text(caught.value, "en")
    assert "已被停止" in error_text(caught.value, "zh")


def test_a_failed_run_is_said_in_the_flag_labs_words(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jobs, "_COLD_FLAG", "raise SystemExit('broken')")
    with pytest.raises(jobs.ChildError) as caught:
        jobs.run_isolated(TWICE)
    assert caught.value.key == "budget.isolated_failed" and "broken" in caught.value.detail


# A cold process that says it has started, then waits until the test lets it finish.
_HOLD = (
    "import pathlib, sys, time; d = pathlib.Path(sys.stdin.read()); "
    "(d / 'started').touch(); "
    "[time.sleep(0.02) for _ in iter(lambda: (d / 'go').exists(), True)]; print('done')"
)


def test_one_cold_process_at_a_time(tmp_path: Path) -> None:
    """While one cold process (about 220 MB with torch) runs, a second is refused as busy,
    not started: a replica never holds two."""
    assert jobs.COLD_SLOTS == 1
    out: list[str] = []
    first = threading.Thread(target=lambda: out.append(jobs.run_cold(_HOLD, str(tmp_path), 60)))
    first.start()
    try:
        while not (tmp_path / "started").exists():  # the first holds its slot now
            assert first.is_alive()
            first.join(timeout=0.02)
        with pytest.raises(gate.BusyError) as caught:
            jobs.run_cold("print('never')", "", 60, wait=0.05)
        assert error_text(caught.value, "en").startswith("The server is busy")
    finally:
        (tmp_path / "go").touch()
        first.join(timeout=60)
    assert out == ["done\n"]
    assert jobs.run_cold("print('next')", "", 60) == "next\n"  # the slot is free again


# ---- the network page's training and analysis ------------------------------------------------


def test_training_through_the_gate_is_the_same_training_with_its_progress() -> None:
    config = NetConfig("moons", (8,), steps=60, seed=3)
    here = train(config)
    calls: list[tuple[int, int, float]] = []
    there = jobs.network_job(lambda: train(config, lambda *c: calls.append(c)))
    np.testing.assert_array_equal(there.parameters, here.parameters)
    np.testing.assert_array_equal(there.losses, here.losses)
    assert calls and calls[-1][:2] == (60, 60) and calls[-1][2] == here.losses[-1]


def test_a_refusal_passes_unchanged() -> None:
    config = NetConfig("digits", (512, 512, 512), steps=100)  # over the parameter limit
    with pytest.raises(BudgetError) as here:
        train(config)
    with pytest.raises(BudgetError) as there:
        jobs.network_job(lambda: train(config))
    assert there.value.key == here.value.key
    assert error_text(there.value, "zh") == error_text(here.value, "zh")


def test_a_full_gate_is_said_in_the_network_pages_words(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every slot taken: the job is refused, not started, in plain words that name none of
    the machinery."""

    @contextmanager
    def full(*, seconds: float, wait: float = 1.5) -> Iterator[None]:
        raise gate.BusyError("budget.busy", slots=2)
        yield  # pragma: no cover

    ran: list[int] = []
    monkeypatch.setattr(jobs, "heavy_work", full)
    with pytest.raises(gate.BusyError) as caught:
        jobs.network_job(lambda: ran.append(1))
    assert caught.value.key == "budget.network_busy" and not ran
    for lang in LANGUAGES:
        assert not INTERNALS.search(error_text(caught.value, lang))


def test_no_text_of_the_hvp_page_names_the_machinery() -> None:
    for lang in LANGUAGES:
        table = catalogue(lang)
        named = {k: v for k, v in table.items() if k.startswith("hvp.") and INTERNALS.search(v)}
        assert not named


# ---- the derivatives page's autograd probe ---------------------------------------------------


def test_the_probe_runs_where_it_is_told() -> None:
    from hograd_core.nested_autograd import autograd_at_probe_point, estimate_autograd

    asked: list[tuple[str, int]] = []

    def elsewhere(fn, order):
        asked.append((fn.text, order))
        return (1, 2), (0.25, 1.0)

    assert autograd_at_probe_point(parse("x**4 + 1"), 1, elsewhere) == [0.25, 1.0]  # its answer
    assert estimate_autograd(parse("x**4 + 1"), 1, 10, elsewhere)[1] == [1, 2]
    assert asked == [("x**4 + 1", 1)] * 2
    assert autograd_at_probe_point(parse("x**2"), 1) == [0.25, 1.0]  # by default, here


def test_the_derivatives_page_probes_once_for_every_session(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from hograd_labs.derivatives import cached  # the derivatives lab: its curves pass the probe

    probed: list[tuple[str, int]] = []
    real = jobs.probe_graph

    def counting(fn, order):
        probed.append((fn.text, order))
        return real(fn, order)

    monkeypatch.setattr(jobs, "probe_graph", counting)
    jobs.shared_probe.cache_clear()
    result = cached.curves("x**3 + 0.125*x", -1.0, 1.0, 5, 3, "autograd")
    assert result.values[3].tolist() == [6.0] * 5  # d³/dx³ (x³ + x/8) = 6
    assert jobs.shared_probe(parse("x**3 + 0.125*x"), 3) == real(parse("x**3 + 0.125*x"), 3)
    assert probed == [("x**3 + 0.125*x", 3)]  # the second ask was the memo's
    assert jobs.shared_probe(parse("log(cosh(x))"), 9) is None  # 117,559 nodes: refused


# ---- one process, and one resident child: the exact maths' zygote --------------------------

SERVE = """
import json, psutil
from hograd_labs.derivatives import cached
from hograd_serving import jobs, start
from hograd_core.network import NetConfig, train

start()  # what app.py does on a server's first run
me = psutil.Process()
out = {"children_after_start": len(me.children(recursive=True))}
out["sympy"] = list(cached.sympy_part("sin(x)*exp(-x^2)", 3, 0.5, wait=120).values)
out["autograd"] = list(cached.autograd_part("sin(x)*exp(-x^2)", 0.5, 3, wait=120).values)
out["probe"] = cached.estimate("tanh(x)", 4, 100)[1]
net = jobs.network_job(lambda: train(NetConfig(dataset="moons", hidden=(6,), steps=50)))
out["trained_steps"] = net.steps
left = me.children(recursive=True)
out["children_after_work"] = len(left)
out["left"] = [" ".join(c.cmdline()[1:4]) for c in left]
print(json.dumps(out))
"""


def test_the_server_starts_no_child_but_the_zygote_and_answers_everything() -> None:
    """Start-up starts no process; after every kind of work the one process left is the exact
    maths' zygote (hograd_serving/zygote.py), whose forked children have all ended."""
    import sympy as sp

    env = {"PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, "-c", SERVE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["children_after_start"] == 0
    assert out["left"] == ["-m hograd_serving.exact_child --zygote"], out["left"]
    x = sp.Symbol("x")
    f = sp.sin(x) * sp.exp(-(x**2))
    exact = [float(sp.diff(f, x, k).subs(x, 0.5)) for k in range(4)]
    assert out["sympy"] == pytest.approx(exact, rel=1e-12)
    assert out["autograd"] == pytest.approx(exact, rel=1e-12)
    assert out["probe"] == [2, 3, 7, 16, 37]  # tanh's graph, counted in this process
    assert out["trained_steps"] == 50
