"""The command line's help answers without loading torch, has examples and help for every
argument; a function may start with a minus sign; the decode verb; the custom verb's fourth
variant; the timing line says what it counts."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.project.test_cli import ROOT, cli, cli_process

VERBS = ("derivatives", "hvp", "graph", "gradcheck", "custom", "decode")


def _imports_torch(*args: str) -> tuple[int, bool, str]:
    """Run the command line with ``args`` in a fresh process; whether torch was imported."""
    probe = (
        "import sys, runpy; sys.argv = ['hograd_cli', *sys.argv[1:]]\n"
        "try:\n    runpy.run_module('hograd_cli', run_name='__main__')\n"
        "except SystemExit as e:\n    code = e.code\n"
        "print('TORCH' if 'torch' in sys.modules else 'NO-TORCH', file=sys.stderr)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe, *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    return (
        out.returncode,
        out.stderr.strip().endswith("\nTORCH") or out.stderr == "TORCH\n",
        out.stdout,
    )


@pytest.mark.parametrize("verb", [None, *VERBS])
def test_help_answers_without_loading_torch(verb: str | None) -> None:
    args = ("--help",) if verb is None else (verb, "--help")
    code, torch_loaded, text = _imports_torch(*args)
    assert code == 0 and "usage:" in text
    assert not torch_loaded


def test_the_probe_sees_torch_when_a_verb_computes() -> None:  # the check can fail
    code, torch_loaded, _ = _imports_torch("derivatives", "x", "--at", "1")
    assert code == 0 and torch_loaded


def test_help_has_examples_and_every_argument_has_help() -> None:
    top = cli("--help").stdout
    assert "examples:" in top and all(verb in top for verb in VERBS)
    for verb in VERBS:
        text = cli(verb, "--help").stdout
        assert "example" in text, verb
        positional = text.split("positional arguments:")[1].split("options:")[0]
        assert len(positional.split()) > 1, (verb, positional)  # a name and its help
    derivatives = cli("derivatives", "--help").stdout
    assert "the highest order" in derivatives and "0 to 10" in derivatives


def test_the_help_figures_are_the_cores() -> None:
    from hograd_cli.__main__ import HELP_FIGURES
    from hograd_core.custom_function import MAX_POINTS, VARIANTS
    from hograd_core.diagonal import DIAGONAL_BUDGET
    from hograd_core.forward_mode import FORWARD_ROUTES
    from hograd_core.nested_autograd import BUDGET, METHODS

    assert {
        "methods": METHODS,
        "max_order_autograd": BUDGET.max_order_autograd,
        "max_order_taylor": BUDGET.max_order_taylor,
        "max_points": BUDGET.max_points,
        "routes": FORWARD_ROUTES,
        "max_probes": DIAGONAL_BUDGET.max_probes,
        "custom_points": MAX_POINTS,
        "variants": VARIANTS,
    } == HELP_FIGURES


@pytest.mark.parametrize(
    "args",
    [
        ("derivatives", "-x^2", "--at", "1", "--json"),
        ("derivatives", "--", "-x^2", "--at", "1", "--json"),
        ("derivatives", "--at", "1", "-x^2", "--json"),
    ],
)
def test_a_function_may_start_with_a_minus_sign(args: tuple[str, ...]) -> None:
    out = cli(*args)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["function"] == "-x^2"
    assert [row[0] for row in data["values"]] == [-1.0, -2.0, -2.0]  # -x², -2x, -2 at x = 1


def test_the_timing_line_names_what_it_counts() -> None:
    # in a process of its own: the start-up counted is a process's (in the test's process the
    # command line's module was imported long before)
    out = cli_process("derivatives", "x**3", "--order", "3", "--at", "2")
    last = out.stdout.splitlines()[-1]
    assert "derivatives:" in last and "ms of computing" in last and "start-up" in last
    data = json.loads(cli("derivatives", "x**3", "--at", "2", "--json").stdout)
    assert data["startup_seconds"] >= 0 and data["seconds"] >= 0


def test_custom_runs_the_second_function_variant() -> None:
    out = cli(
        "custom", "x^3", "--backward", "3*x^2*g", "--at", "-1:2:4", "--second-function", "--json"
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["variant"] == "second_function"
    assert data["gradgradcheck"] is True
    assert data["second"] == pytest.approx([6 * x for x in data["x"]])  # (x³)'' = 6x


def test_decode_reads_a_file_or_stdin_and_says_how_sure(tmp_path) -> None:
    text = "RuntimeError: Function 'DivBackward0' returned nan values in its 1th output."
    path = tmp_path / "error.txt"
    path.write_text(f"Traceback (most recent call last):\n  ...\n{text}\n")
    data = json.loads(cli("decode", str(path), "--json").stdout)
    assert (data["case"], data["sure"]) == ("nan_div", "exact")
    assert "DivBackward0" in data["why"] and data["fix"]
    piped = cli("decode", "-", "--json", stdin="my model does not learn")
    assert piped.returncode == 0 and json.loads(piped.stdout)["case"] is None
    human = cli("decode", str(path)).stdout
    assert human.startswith("nan_div:") and "(exact)" in human


def test_decode_of_a_missing_file_is_one_line_of_error() -> None:
    out = cli("decode", "/nonexistent/error.txt")
    assert out.returncode == 2 and out.stderr.startswith("error: decode: expected a readable")
    assert "Traceback" not in out.stderr
