"""The helper that runs the command line in the test's process (tests/project/cli_inprocess.py)
answers as a process of its own does, and leaves the test's process as it found it."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import torch

from tests.project import cli_inprocess
from tests.project.cli_inprocess import cli_process, run_cli


def _state() -> dict:
    """What the command line could change of its process and must not."""
    return {
        "environ": dict(os.environ),
        "cwd": os.getcwd(),
        "streams": (sys.stdin, sys.stdout, sys.stderr),
        "torch": (
            torch.get_num_threads(),
            torch.get_default_dtype(),
            torch.is_grad_enabled(),
            torch.is_anomaly_enabled(),
        ),
    }


@pytest.mark.parametrize(
    "args",
    [
        ("--lang", "zh", "hvp", "--help"),  # exit 0 from argparse; wrapped to the fallback width
        ("custom", "x^3", "--at", "0:1:3"),  # a usage error: exit 2, one line
    ],
    ids=["help", "usage-error"],
)
def test_in_process_answers_as_a_process_of_its_own(args: tuple[str, ...]) -> None:
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}  # as a pipe sees it
    inside, outside = run_cli(*args, env=env), cli_process(*args, env=env)
    assert (inside.returncode, inside.stdout, inside.stderr) == (
        outside.returncode,
        outside.stdout,
        outside.stderr,
    )


def test_a_call_leaves_the_process_as_it_found_it(tmp_path: Path) -> None:
    before = _state()
    env = {"LANG": "zh_CN.UTF-8", "PATH": str(tmp_path)}  # no dot on this PATH
    out = run_cli("graph", "x**3", "--svg", str(tmp_path / "g.svg"), env=env)
    assert out.returncode == 2 and out.stderr.startswith("错误：")  # the language from env
    text = "RuntimeError: Function 'DivBackward0' returned nan values in its 1th output."
    out = run_cli("decode", "-", stdin=text)
    assert out.returncode == 0 and out.stdout.startswith("nan_div")  # the text from stdin
    assert _state() == before


def test_an_exit_and_an_escaped_exception_are_the_interpreters(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def exits(argv: list[str]) -> int:
        sys.exit("stopped")

    def raises(argv: list[str]) -> int:
        raise RuntimeError("a bug")

    monkeypatch.setattr(cli_inprocess, "main", exits)
    out = run_cli("derivatives")
    assert (out.returncode, out.stdout, out.stderr) == (1, "", "stopped\n")
    monkeypatch.setattr(cli_inprocess, "main", raises)
    out = run_cli("derivatives")
    assert out.returncode == 1 and out.stderr.startswith("Traceback (most recent call last):")
    assert out.stderr.endswith("RuntimeError: a bug\n")
