"""``python -m hograd_cli run``: the code page's run, from a terminal.

The calls run in this process (tests/project/cli_inprocess.py); the program itself runs in the
code page's child as it would from a terminal. The one exit of status 1 (the program raised)
runs in a process of its own.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.program_corpus import SEED_X3
from tests.project.cli_inprocess import cli_process, run_cli


def _cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return run_cli("run", *args, stdin=stdin)


def test_json_record_of_every_line(tmp_path: Path) -> None:
    path = tmp_path / "prog.py"
    path.write_text(SEED_X3)
    done = _cli(str(path), "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert [line["line"] for line in out["lines"]] == [1, 2, 3, 4, 5, 6, 7]
    assert out["lines"][4]["output"] == "dy/dx at x=2.0: 12.0\n"
    names = {v["name"]: v for v in out["lines"][-1]["variables"]}
    assert names["grad2_y_x2"]["values"] == [12.0] and not names["grad2_y_x2"]["requires_grad"]


def test_the_error_at_its_line_from_stdin() -> None:
    # a process of its own: the exit status 1 a learner's script sees when the program raised
    done = cli_process("run", "-", stdin=SEED_X3.replace("create_graph=True", "create_graph=False"))
    assert done.returncode == 1
    assert done.stdout == "dy/dx at x=2.0: 12.0\n"
    assert done.stderr.startswith("Line 6: RuntimeError: element 0 of tensors does not require")


def test_a_refusal_is_status_2_in_english() -> None:
    done = _cli("-", "--json", stdin="import os\n")
    assert done.returncode == 2
    error = json.loads(done.stdout)["lines"][0]["error"]
    assert error["key"] == "code.refuse.import"
    assert error["message"].startswith("Line 1: `import os` is not allowed")


def test_a_refusal_names_its_line_once() -> None:
    """A refusal's own message starts with its line ("Line 2: ..."); the text output prints
    it as it is, not under a second "line 2:"."""
    done = _cli("-", stdin="import torch\nimport os\n")
    assert done.returncode == 2
    assert done.stderr.startswith("Line 2: `import os` is not allowed"), done.stderr
    assert done.stderr.lower().count("line 2") == 1
