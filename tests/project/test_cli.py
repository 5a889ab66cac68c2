"""The command line, run as a learner's script would run it.

Most calls run ``main(argv)`` in this process (tests/project/cli_inprocess.py: the same entry,
input, environment and outputs, without 2.5 s of importing torch each). A real subprocess
(``cli_process``) stays where the process is what is tested: one success and one bad input with
its exit status and messages on each stream (below), and ``python -m hograd_core``, the shim,
run in one process for every verb against the in-process answers.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import mpmath
import numpy as np
import pytest

from tests.project import cli_inprocess
from tests.project.cli_inprocess import ROOT

#: The environment without a language setting, so the command line speaks English whatever
#: the machine's locale (tests/project/test_cli_lang.py tests the other languages).
ENGLISH_ENV = {
    **{k: v for k, v in os.environ.items() if k not in ("HOGRAD_LANG", "LC_ALL", "LC_MESSAGES")},
    "LANG": "C.UTF-8",
}


def cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    """The command line in this process, in English."""
    return cli_inprocess.run_cli(*args, stdin=stdin, env=ENGLISH_ENV)


def cli_process(*args: str) -> subprocess.CompletedProcess:
    """The command line in a process of its own, in English."""
    return cli_inprocess.cli_process(*args, env=ENGLISH_ENV)


def test_seed_derivatives_human_readable() -> None:
    # a subprocess: the one success a learner's script sees, exit status 0 and its table
    out = cli_process("derivatives", "x**3", "--order", "3", "--at", "2")
    assert out.returncode == 0 and out.stderr == "", out.stderr
    lines = out.stdout.splitlines()
    assert [line.strip() for line in lines[1:5]] == [
        "order 0: 8",
        "order 1: 12",
        "order 2: 12",
        "order 3: 6",
    ]
    out = cli("derivatives", "2*x", "--order", "3", "--at", "2")
    assert "order 1 is constant in x; higher orders are exactly 0" in out.stdout


def test_seed_hvp_json() -> None:
    out = cli("hvp", "w1**2*sin(w2)", "--at", "1,1.5707963267948966", "--vector", "0.5,1", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["variables"] == ["w1", "w2"]
    np.testing.assert_allclose(data["gradient"], [2.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(data["hvp"], [1.0, -1.0], atol=1e-12)
    np.testing.assert_allclose(data["hessian"], [[2.0, 0.0], [0.0, -1.0]], atol=1e-12)
    assert data["latex"] == "w_{1}^{2} \\sin{\\left(w_{2} \\right)}"
    assert data["seconds"] >= 0


@pytest.mark.parametrize(
    ("function", "at", "says", "never"),
    [
        (
            "w1**2*sin(w2)",
            "1,1.5707963267948966",
            "not a critical point (some |df/dx_i| > 1e-08), so the second-derivative test does not "
            "apply; H is indefinite",
            "saddle",
        ),
        (
            "x^2 - y^2",
            "0,0",
            "critical point (every |df/dx_i| <= 1e-08): a saddle point",
            "minimum",
        ),
        ("x^2 + y^2", "0,0", "a strict local minimum (H is positive definite)", "saddle"),
        ("-x^2 - y^2", "0,0", "a strict local maximum (H is negative definite)", "saddle"),
        ("x^3 + y^2", "0,0", "the second-derivative test is inconclusive", "neither"),
        ("1e6 + x^2 + y^2", "0.004,0", "not a critical point", "minimum"),
    ],
)
def test_hvp_verdict_words_follow_the_definitions(
    function: str, at: str, says: str, never: str
) -> None:
    """A point is a minimum, maximum or saddle only where the gradient vanishes: the seed
    example's point (∇f = (2, 0)) is not called a saddle, only its H indefinite."""
    out = cli("hvp", function, "--at", at, "--vector", "1,1")
    assert out.returncode == 0, out.stderr
    assert says in out.stdout
    assert never not in out.stdout.lower()


def test_grid_json_with_negative_start() -> None:
    out = cli("derivatives", "tanh(x)", "--order", "8", "--grid", "-3:3:2000", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert len(data["values"]) == 9 and len(data["values"][0]) == 2000
    assert data["x"][0] == -3.0 and data["x"][-1] == 3.0
    assert {"variables", "latex", "seconds"} <= data.keys()


def test_nan_becomes_null_in_json() -> None:
    out = cli("derivatives", "log(x)", "--order", "1", "--at", "-1", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["values"] == [[None], [None]] and data["nonfinite"] == [1, 1]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("derivatives", "2x", "--at", "1"), "write 2*x"),
        (("derivatives", "__import__('os')", "--at", "1"), "starts with an underscore"),
        (("derivatives", "x", "--order", "99", "--at", "1"), "order: expected 0 to 10, got 99"),
        (("derivatives", "x", "--at", "abc"), "'abc' is not a number"),
        (("derivatives", "x", "--grid", "1:0:10"), "x range"),
        (("derivatives", "x", "--grid", "0:1:999999"), "points: expected 1 to 5000"),
        (("derivatives", "x", "--grid", "0:1"), "START:STOP:POINTS"),
        (("hvp", "x*y", "--at", "1", "--vector", "1,1"), "point: expected 2 numbers"),
        (("hvp", "x*y", "--at", "1,2", "--vector", "1,nan"), "vector: expected finite numbers"),
        (("hvp", "3", "--at", "1", "--vector", "1"), "no variables"),
        (("frobnicate",), "invalid choice"),
        (("derivatives", "x", "--order", "two"), "invalid int value"),
        (
            ("derivatives", "polygamma(2.5, x)", "--at", "1"),
            "polygamma's order n at column 11: expected a whole number from 0 to 10",
        ),
        (("derivatives", "erfinv(x) + erfinv(1)", "--at", "0"), "strictly between -1 and 1"),
    ],
)
def test_bad_input_exit_2_one_line(args: tuple[str, ...], message: str) -> None:
    out = cli(*args)
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert message in lines[0]


def test_bad_input_json_error_object() -> None:
    # a subprocess: the bad input a learner's script sees, exit status 2, JSON on standard
    # output and one line, no traceback, on standard error
    out = cli_process("derivatives", "sin(x", "--at", "1", "--json")
    assert out.returncode == 2
    assert json.loads(out.stdout) == {
        "error": "function: the '(' at column 4 is never closed; add a ')'."
    }
    message = "error: function: the '(' at column 4 is never closed; add a ')'.\n"
    assert out.stderr == message


#: One call of every verb, and one bad input.
EVERY_VERB = [
    ("derivatives", "x^3", "--at", "2", "--order", "2", "--json"),
    ("hvp", "w1**2*sin(w2)", "--at", "1,1.5707963267948966", "--vector", "0.5,1", "--json"),
    ("graph", "x**3", "--order", "2", "--at", "0.7"),
    ("gradcheck", "sin(x)", "--at", "-1:1:3", "--json"),
    ("custom", "tanh(x)", "--backward", "(1 - y^2)*g", "--at", "-2:2:5", "--json"),
    ("derivatives", "x^3", "--order", "99", "--at", "2"),
]


def _without_time(stdout: str) -> object:
    try:
        data = json.loads(stdout)
    except json.JSONDecodeError:
        return stdout
    return {k: v for k, v in data.items() if k not in ("seconds", "startup_seconds")}


#: Runs ``python -m hograd_core ARGS`` for each ARGS of its argument (JSON) in turn, as ``-m``
#: runs a package (runpy, run_name "__main__"), each with its own standard output and error;
#: prints [[status, stdout, stderr], ...].
SHIM_DRIVER = """
import contextlib, io, json, runpy, sys
answers = []
for args in json.loads(sys.argv[1]):
    sys.argv = ["-m", *args]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            runpy.run_module("hograd_core", run_name="__main__", alter_sys=True)
            code = 0
        except SystemExit as exit_:
            code = exit_.code
    answers.append([code, out.getvalue(), err.getvalue()])
print(json.dumps(answers))
"""


@pytest.fixture(scope="module")
def shim_answers() -> dict[tuple[str, ...], subprocess.CompletedProcess]:
    """``python -m hograd_core`` of every call in EVERY_VERB, in one process of its own (one
    import of torch for the six)."""
    done = subprocess.run(
        [sys.executable, "-c", SHIM_DRIVER, json.dumps(EVERY_VERB)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env=ENGLISH_ENV,
    )
    assert done.returncode == 0, done.stderr
    return {
        args: subprocess.CompletedProcess(args, code, out, err)
        for args, (code, out, err) in zip(EVERY_VERB, json.loads(done.stdout), strict=True)
    }


@pytest.mark.parametrize("args", EVERY_VERB, ids=lambda a: a[0])
def test_python_m_hograd_core_still_runs_every_verb(
    args: tuple[str, ...], shim_answers: dict[tuple[str, ...], subprocess.CompletedProcess]
) -> None:
    """The command line lives in hograd_cli; ``python -m hograd_core`` (a shim, run in a
    process of its own) answers alike."""
    new, old = cli(*args), shim_answers[args]
    assert (old.returncode, old.stderr) == (new.returncode, new.stderr)
    assert _without_time(old.stdout) == _without_time(new.stdout)
    assert new.returncode == (2 if "99" in args else 0), new.stderr
    if args[0] == "derivatives" and new.returncode == 0:
        assert json.loads(new.stdout)["values"] == [[8.0], [12.0], [12.0]]


def test_zeros_that_are_not_exact_are_said_with_the_exact_value() -> None:
    """softplus(3x)/3 at -501: every order is below float64's smallest positive number (mpmath
    on the closed forms f = log1p(e^(3x))/3, f' = s, f'' = 3 s(1 - s), s = σ(3x)); tanh′ at
    48.8 is 1.6e-42, which autograd's 1 - tanh² loses. The CLI says so for each (issue 46)."""
    import mpmath

    out = cli("derivatives", "softplus(3*x)/3", "--order", "2", "--at", "-501", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["values"] == [[0.0], [0.0], [0.0]]
    s = 1 / (1 + mpmath.exp(1503))
    truths = [mpmath.log1p(mpmath.exp(-1503)) / 3, s, 3 * s * (1 - s)]
    found = data["not_exact_zeros"]
    assert [(z["order"], z["x"], z["below_float64"]) for z in found] == [
        (k, -501.0, True) for k in range(3)
    ]
    for z, truth in zip(found, truths, strict=True):
        assert mpmath.mpf(z["exact"]) == pytest.approx(truth, rel=0.05)
    human = cli("derivatives", "softplus(3*x)/3", "--order", "1", "--at", "-501").stdout
    assert f"the exact value is {mpmath.nstr(truths[1], 2)}, at most half of float64's" in human
    assert "smallest positive number (4.9e-324)" in human
    tanh = cli("derivatives", "tanh(x)", "--order", "1", "--at", "48.8,1", "--json")
    (lost,) = json.loads(tanh.stdout)["not_exact_zeros"]
    with mpmath.workdps(60):
        truth = 1 - mpmath.tanh(mpmath.mpf(48.8)) ** 2
    assert lost["order"] == 1 and lost["exact"] == pytest.approx(float(truth), rel=1e-12)
    assert not lost["below_float64"]
    exact_zero = cli("derivatives", "x^3", "--order", "4", "--at", "0", "--json")
    assert json.loads(exact_zero.stdout)["not_exact_zeros"] == []  # 0, 0, 0 and f'''' = 0


def test_lgamma_derivatives_are_polygamma_values() -> None:
    # the issue's command; lgamma' = digamma, lgamma^(k) = polygamma(k - 1)
    out = cli("derivatives", "lgamma(x)", "--order", "4", "--at", "2.5", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    want = [math.lgamma(2.5)] + [float(mpmath.polygamma(k, 2.5)) for k in range(4)]
    np.testing.assert_allclose(np.array(data["values"])[:, 0], want, rtol=1e-9)
    assert data["torch_caveats"] == [{"x": 2.5, "piece": "lgamma(x)", "kind": "trigamma"}]


def test_where_torchs_own_formulas_lose_digits_the_cli_says_so() -> None:
    out = cli("derivatives", "i0(x)", "--order", "6", "--at", "0")
    assert out.returncode == 0, out.stderr
    assert "note: at x = 0, i0(x) has its argument within 1 of 0" in out.stdout
    assert (
        "order 4 at x = 0: not exact; the exact value is 0.375 (see the note above)" in out.stdout
    )
    out = cli("derivatives", "digamma(x)", "--order", "3", "--at", "-20.5,2", "--json")
    assert json.loads(out.stdout)["torch_caveats"] == [
        {"x": -20.5, "piece": "digamma(x)", "kind": "polygamma_left"},
        {"x": 2.0, "piece": "digamma(x)", "kind": "trigamma"},
    ]


def test_on_a_grid_the_cli_names_where_torchs_formulas_lose_digits() -> None:
    """Issue 46: the note on PyTorch's polygamma left of 0 was given at --at points only.
    On a grid it names how many of the grid's points, from the first to the last; which
    points those are is counted here from the grid itself (the negative ones, no pole)."""
    grid = np.linspace(-3.2, 3, 7)
    out = cli("derivatives", "polygamma(2, x)", "--order", "3", "--grid=-3.2:3:7", "--json")
    assert out.returncode == 0, out.stderr
    (span,) = json.loads(out.stdout)["torch_caveats"]
    left = grid[grid < 0]
    assert span == {
        "piece": "polygamma(2, x)",
        "kind": "polygamma_left",
        "points": len(left),
        "from": pytest.approx(left[0]),
        "to": pytest.approx(left[-1]),
    }
    text = cli("derivatives", "polygamma(2, x)", "--order", "3", "--grid=-3.2:3:7").stdout
    assert f"note: at {len(left)} of the grid's points, from x = -3.2 to x = -0.1" in text
    right = cli("derivatives", "polygamma(2, x)", "--order", "3", "--grid=0.5:3:7", "--json")
    assert json.loads(right.stdout)["torch_caveats"] == []  # right of 0: no note
    taylor = cli(
        "derivatives", "polygamma(2, x)", "--order", "3", "--grid=-3.2:3:7", "--method", "taylor"
    )
    assert "note:" not in taylor.stdout  # Taylor mode does not use those formulas
