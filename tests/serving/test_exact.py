"""The one door to exact maths (hograd_serving/exact.py): a child process per new request,
killed at its deadline, its slot freed; answers equal to sympy's here and now (the oracle:
the kernel's symbolic module run in the test's own process); the hostile corpus of issue 45
answered without holding the server."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
import sympy as sp

from hograd_core.language import parse
from hograd_core.language.to_sympy import name_latex, symbol, to_latex
from hograd_core.symbolic import symbolic_derivatives, sympy_values
from hograd_serving import exact
from hograd_serving.exact import ExactRuns
from tests.apptest import APP_TEST_CEILING

ROOT = Path(__file__).resolve().parents[2]

#: Issue 45's links and variants: towers of powers whose value at the grid's points is
#: 3^(2^16777216) and worse (mpmath's integer power held the server for minutes).
HOSTILE = [
    "(x+1)^(x^(x^24))",
    "(x+1)^(x+2)^(x+3)^(x+4)^(x+5)^(x+6)",
    "(x+2)^(x+3)^(x+4)^(x+5)^(x+6)^(x+7)",
    "x^x^x^x^x^x^x^x^x^x",
    "(x+2)^(x^30)",
    "exp(exp(exp(exp(x+3))))",
    "(x+1)^(999999^x)",
]
GRID = [-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0]


@pytest.fixture(scope="module")
def runs() -> ExactRuns:
    return ExactRuns()


def _sleeper(seconds: float, memory: int) -> subprocess.Popen:
    """A child that reads nothing and never answers."""
    return subprocess.Popen(
        [sys.executable, "-c", "import time\nwhile True: time.sleep(1)"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )


@pytest.mark.parametrize("text", ["sin(x)*exp(-x^2)", "a__b**2 + w1", "tanh(x)", "relu(x)^3"])
def test_the_typed_latex_is_sympys(runs: ExactRuns, text: str) -> None:
    fn = parse(text)
    answer = runs.ask({"kind": "latex", "text": text, "variables": list(fn.variables)})
    assert answer.stopped is None
    assert answer.fields["latex"] == to_latex(fn.tree)
    assert answer.fields["names"] == [name_latex(symbol(n)) for n in fn.variables]


@pytest.mark.parametrize(
    ("f", "b"), [("tanh(x)", "(1 - y^2)*g"), ("sin(x)*exp(-x^2)", "g*cos(x)"), ("x^x", "g")]
)
def test_the_backward_part_equals_sympy_here(runs: ExactRuns, f: str, b: str) -> None:
    answer = runs.ask({"kind": "backward", "f": f, "b": b, "points": GRID})
    assert answer.stopped is None
    sym = symbolic_derivatives(parse(f, ("x",)), 2, "x", max_seconds=60.0)
    want = [sympy_values(sym.exprs[1:3], {"x": p}) for p in GRID]
    got = answer.fields["exact"]
    for k in (0, 1):
        expected = [None if math.isnan(w[k]) else w[k] for w in want]
        assert got[k] == expected  # the same 30-digit evaluation, bit for bit
    tex = [to_latex(parse(f, ("x",)).tree), to_latex(parse(b, ("x", "y", "g")).tree)]
    assert answer.fields["latex"] == [*tex, sym.latex[1], sym.latex[2]]


def test_a_request_is_worked_out_once_per_server() -> None:
    runs = ExactRuns()
    first = runs.ask({"kind": "latex", "text": "x^3", "variables": ["x"]})
    again = runs.ask({"kind": "latex", "text": "x^3", "variables": ["x"]})
    assert again is first and runs.started == 1


def test_two_runs_asking_the_same_share_one_child() -> None:
    runs, answers = ExactRuns(), []
    request = {"kind": "latex", "text": "cos(x)^2", "variables": ["x"]}
    threads = [threading.Thread(target=lambda: answers.append(runs.ask(request))) for _ in "ab"]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert len(answers) == 2 and answers[0] == answers[1] and runs.started == 1


def test_a_child_past_its_deadline_is_killed_and_its_slot_freed() -> None:
    started: list[subprocess.Popen] = []

    def launch(seconds: float, memory: int) -> subprocess.Popen:
        started.append(_sleeper(seconds, memory) if not started else exact.launch(10.0, memory))
        return started[-1]

    runs = ExactRuns(slots=1, seconds=1.0, launch=launch)
    answer = runs.ask({"kind": "latex", "text": "x", "variables": ["x"]})
    assert answer.stopped == "time" and answer.fields == {}
    assert started[0].poll() is not None  # killed, and reaped
    runs.seconds = 60.0  # the next child gets time enough, and the one slot
    after = runs.ask({"kind": "latex", "text": "x^2", "variables": ["x"]})
    assert after.stopped is None and after.fields["latex"] == "x^{2}"


def test_an_answer_stopped_by_time_is_worked_out_again_while_a_slot_is_free() -> None:
    """A busy host can starve a child that would finish: its request is worked out again when
    asked while a slot is free (not while every slot is held), then kept."""
    started: list[subprocess.Popen] = []

    def launch(seconds: float, memory: int) -> subprocess.Popen:
        started.append(_sleeper(seconds, memory) if not started else exact.launch(60.0, memory))
        return started[-1]

    pool = exact.Children(1)
    runs = ExactRuns(pool=pool, seconds=1.0, launch=launch)
    request = {"kind": "latex", "text": "x^5", "variables": ["x"]}
    assert runs.ask(request).stopped == "time"
    assert pool.acquire(0)  # every slot held by someone else: the kept stop stands
    assert runs.ask(request).stopped == "time" and len(started) == 1
    pool.release()
    runs.seconds = 60.0
    again = runs.ask(request)
    assert again.stopped is None and again.fields["latex"] == "x^{5}" and len(started) == 2
    assert runs.ask(request) is again and len(started) == 2  # kept from now on


def test_a_request_stopped_by_time_is_tried_at_most_retries_more_times() -> None:
    started: list[subprocess.Popen] = []

    def launch(seconds: float, memory: int) -> subprocess.Popen:
        started.append(_sleeper(seconds, memory))
        return started[-1]

    runs = ExactRuns(slots=1, seconds=0.5, launch=launch)
    request = {"kind": "latex", "text": "x^6", "variables": ["x"]}
    for _ in range(exact.RETRIES + 3):
        assert runs.ask(request).stopped == "time"
    assert len(started) == 1 + exact.RETRIES


def test_the_door_and_the_column_hold_at_most_two_children_together() -> None:
    """Four one-off requests and four functions of the derivatives column asked at once, each
    child one that never answers (killed at its deadline): at each start, the children alive
    (not yet reaped) number at most two, the server's one pool."""
    from hograd_serving.sympy_column import SympyColumn

    started: list[tuple[str, subprocess.Popen]] = []
    alive: list[int] = []
    lock = threading.Lock()

    def launcher(kind: str):
        def launch(seconds: float, memory: int) -> subprocess.Popen:
            child = _sleeper(seconds, memory)
            with lock:
                started.append((kind, child))
                alive.append(sum(c.poll() is None for _, c in started))
            return child

        return launch

    runs = ExactRuns(seconds=2.0, launch=launcher("door"))  # the server's pool
    column = SympyColumn(chain_seconds=2.0, launch=launcher("column"))  # the same pool
    threads = [
        threading.Thread(target=runs.ask, args=({"kind": "latex", "text": f"x+{i}"},))
        for i in range(4)
    ] + [
        threading.Thread(target=column.ask, args=(f"x*{i + 2}", 1, 0.0, 120.0, f"s{i}"))
        for i in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(300)
    kinds = {kind for kind, _ in started}
    assert kinds == {"door", "column"} and len(started) >= 4, started
    assert max(alive) <= 2, alive
    assert exact.CHILDREN.most <= exact.SLOTS and exact.CHILDREN.running == 0


def test_a_child_past_its_memory_is_stopped_with_memory() -> None:
    """RLIMIT_AS: a few kB beyond the child's imports are not enough for sympy's work."""
    runs = ExactRuns(memory=4096)
    answer = runs.ask({"kind": "backward", "f": "sin(x)^9*exp(x)^7", "b": "g", "points": GRID})
    assert answer.stopped == "memory", answer


@pytest.mark.parametrize("text", HOSTILE)
def test_the_hostile_corpus_is_answered_by_the_child(runs: ExactRuns, text: str) -> None:
    """Each finishes (or is stopped) in the child, and every value is a number or None."""
    answer = runs.ask({"kind": "backward", "f": text, "b": "g", "points": GRID * 3})
    assert answer.stopped in (None, "time", "memory", "size"), answer
    for column in answer.fields.get("exact", []):
        assert all(v is None or math.isfinite(v) for v in column)


def test_the_programs_the_children_evaluate_are_bounded() -> None:
    """The derivatives column's programs, evaluated at x0 (in a child: see the next test):
    every value keeps its exponent within MAX_EXPONENT bits, so 3^(2^16777216) is an overflow
    (NaN), decided before mpmath computes it."""
    from hograd_core.sympy_program import Program, evaluate

    for text in HOSTILE:
        sym = symbolic_derivatives(parse(text), 2, "x", max_seconds=60.0)
        program = Program()
        for expr in sym.exprs:
            program.add(expr)
        for x0 in GRID:
            values = evaluate(program.code, program.outputs, {"x": x0})
            assert len(values) == 3 and all(math.isnan(v) or math.isfinite(v) for v in values)
    assert evaluate([["var", "x"], ["num", 2, 1], ["pow", 0, 1]], [2], {"x": 3.0}) == [9.0]


_NO_EXACT_HERE = textwrap.dedent(
    """
    import json, math, sys
    from hograd_serving.sympy_column import SympyColumn
    column = SympyColumn()
    views = [column.ask(text, 3, x0, wait=120.0) for text, x0 in
             (("tanh(x)", 0.5), ("tanh(x)", -1.25), ("x^3", 2.0), ("softplus(600*x)/600", -2.505))]
    loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("sympy", "mpmath"))
    print(json.dumps({"values": [list(v.values) for v in views], "working": [v.working for v in views],
                      "below": [list(v.below_float64) for v in views], "loaded": loaded,
                      "children": column.started + column.evaluations.started}))
    """
)


def test_the_server_evaluates_the_column_without_sympy_or_mpmath() -> None:
    """By construction, not by care: a server process asks the derivatives column for
    values at four points, and gets them (against sympy here, the oracle) without sympy or
    mpmath ever being imported in it: the programs are evaluated in children too."""
    done = subprocess.run(
        [sys.executable, "-c", _NO_EXACT_HERE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=APP_TEST_CEILING,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["loaded"] == []  # neither was imported in this process
    assert out["working"] == [False] * 4
    x = sp.Symbol("x")
    for got, (expr, x0) in zip(
        out["values"][:3],
        ((sp.tanh(x), 0.5), (sp.tanh(x), -1.25), (x**3, 2.0)),
        strict=True,
    ):
        want = [float(sp.diff(expr, x, k).subs(x, x0).evalf(30)) for k in range(4)]
        assert got == pytest.approx(want, rel=1e-13)
    assert out["values"][2] == [8.0, 12.0, 12.0, 6.0]  # the seed: 12 and 12 at x = 2
    assert out["values"][3][1] == 0.0 and out["below"][3][1].startswith("1.8e-653")  # f′
    assert out["children"] >= 7  # three chains, four evaluations (one chain serves two)


# ---- children forked by the zygote, which imported sympy once (hograd_serving/zygote.py) ----


def _talk(child, request: dict) -> str:
    child.stdin.write(json.dumps(request))
    child.stdin.close()
    out = child.stdout.read()
    child.stdout.close()
    return out


def test_a_forked_child_answers_as_a_fresh_interpreter_does() -> None:
    """The door's children are forked by the zygote, and say what ``python -m
    hograd_serving.exact_child`` says, with the same exit status."""
    from hograd_serving import zygote

    env = {**os.environ, "PYTHONPATH": exact.ROOT}
    argv = ["10", str(exact.MEMORY_BYTES)]
    for request in (
        {"kind": "latex", "text": "sin(x)*exp(-x^2)", "variables": None},
        {"kind": "backward", "f": "x**3", "b": "3*x**2*g", "points": [-1.0, 0.5, 2.0]},
    ):
        forked = exact.launch(10.0, exact.MEMORY_BYTES)
        assert isinstance(forked, zygote.Forked)
        fresh = zygote._spawned(argv, env, exact.ROOT)
        assert _talk(forked, request) == _talk(fresh, request) != ""
        assert forked.wait() == fresh.wait() == 0


def test_a_forked_child_that_waits_for_ever_is_killed_and_says_so() -> None:
    """A child blocked reading its request ends when killed, as the deadline's timer kills
    it, and its exit status (from the zygote) says it was killed."""
    forked = exact.launch(10.0, exact.MEMORY_BYTES)
    forked.stdin.write('{"kind": "latex", ')  # and no end: the child waits for the rest
    forked.stdin.flush()
    assert forked.returncode is None
    forked.kill()
    assert forked.wait() == -signal.SIGKILL
    forked.stdin.close()
    forked.stdout.close()


def test_the_zygote_goes_on_forking_after_a_child_ran_out_of_memory() -> None:
    """A child stopped by its own memory limit (set after the fork) leaves the zygote well:
    the next request is answered."""
    runs = ExactRuns(memory=4096)
    answer = runs.ask({"kind": "backward", "f": "sin(x)^9*exp(x)^7", "b": "g", "points": GRID})
    assert answer.stopped == "memory", answer
    answer = ExactRuns().ask({"kind": "latex", "text": "x**4", "variables": None})
    assert answer.stopped is None and answer.fields["latex"] == "x^{4}"


def test_when_the_zygote_cannot_fork_a_fresh_interpreter_is_started() -> None:
    from hograd_serving import zygote

    started = []
    child = zygote.launch(
        ["10", "1000"],
        env={"PATH": "/nonexistent"},
        cwd="/nonexistent-folder",  # the zygote itself cannot start here
        spawn=lambda *a: started.append(a) or "fresh",
    )
    assert child == "fresh" and started[0][0] == ["10", "1000"]
