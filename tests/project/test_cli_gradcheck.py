"""``python -m hograd_cli gradcheck``, run as a teacher's script would run it (in this process:
tests/project/test_cli.py's ``cli``)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from hograd_core import parse
from tests.project.test_cli import cli


def test_gradcheck_json_on_a_grid_matches_pytorch() -> None:
    out = cli("gradcheck", "sin(x)*exp(-x^2)", "--at", "-2:2:9", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert (data["gradcheck"], data["gradgradcheck"], data["points"]) == (True, True, 9)
    xs = np.linspace(-2, 2, 9)
    np.testing.assert_array_equal(data["gradcheck_points"], xs)
    assert data["skipped"] == [] and data["gradcheck_message"] is None
    # the oracle: PyTorch's own verdict on the same grid
    fn = parse("sin(x)*exp(-x^2)")
    x = torch.tensor(xs, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: fn.torch({"x": t}), (x,))


def test_gradcheck_reports_a_failure_and_the_points_it_skipped() -> None:
    out = cli("gradcheck", "x*sin(1/x)", "--at", "0,0.0025,1", "--json")
    assert out.returncode == 0, out.stderr  # a failed check is an answer, not bad input
    data = json.loads(out.stdout)
    assert data["gradcheck"] is False and data["points"] == 3
    assert data["skipped"] == [{"x": 0.0, "reason": "undefined", "piece": ""}]
    assert data["gradcheck_points"] == [0.0025, 1.0]
    assert data["gradcheck_message"].startswith("Jacobian mismatch for output 0")
    assert [m["x"] for m in data["gradcheck_mismatches"]] == [0.0025]
    human = cli("gradcheck", "relu(x)", "--at", "-1:1:3")
    assert human.returncode == 0, human.stderr
    assert "gradcheck: passed on 2 points" in human.stdout
    assert "not checked at x = 0 (kink: relu(x))" in human.stdout


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["x", "--at", "0:1:101"], "gradcheck points: expected 1 to 100, got 101"),
        (["x", "--at", "1:0:3"], "x range: expected two finite numbers"),
        (["x", "--at", "1:2"], "--at: expected START:STOP:POINTS"),
        (["x", "--at", "a"], "--at: 'a' is not a number"),
        (["x", "--at", "nan"], "x: expected finite numbers, got nan"),
        (["x*y", "--at", "0"], "this needs a function of one variable"),
        (["x+", "--at", "0"], "function: it ends too early"),
        (["x"], "the following arguments are required: --at"),
    ],
)
def test_gradcheck_bad_input_exits_2_with_one_line(args: list[str], says: str) -> None:
    out = cli("gradcheck", *args, "--json")
    assert out.returncode == 2
    assert says in json.loads(out.stdout)["error"]
    assert out.stderr.startswith("error: ") and says in out.stderr
    assert "Traceback" not in out.stderr
