"""The program runner refuses what is outside its subset before anything runs, and stops a
program at its budget before the work that would pass it (the classic sandbox escapes, huge
tensors, long loops, deep recursion, integer and string bombs)."""

from __future__ import annotations

import pytest

from hograd_core.program import BUDGET, run_program
from hograd_ui.i18n import error_text, tr
from tests.program_corpus import HOSTILE


class _Err:
    def __init__(self, key: str, params: dict) -> None:
        self.key, self.params = key, params


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_refused_or_stopped(name: str) -> None:
    text, key = HOSTILE[name]
    lines = run_program(text)
    error = lines[-1].error
    assert error is not None and error.key == key, error
    assert not error.text  # a refusal, never Python's own error
    for lang in ("en", "zh"):  # a message in both languages, naming what it refused
        message = error_text(_Err(error.key, error.params), lang)
        assert "{" not in message
    if key.startswith("code.refuse"):
        named = error.params.get("name") or error.params.get("construct")
        assert named and str(named).strip(".") in text.replace("**", "**")


def test_a_refused_program_runs_no_line() -> None:
    """The whole text is checked first: the print before the refused import never runs."""
    lines = run_program('print("ran")\nimport os\n')
    assert len(lines) == 1 and lines[0].output == "" and lines[0].error.key == "code.refuse.import"
    assert lines[0].error.line == 2


def test_budgets_are_checked_before_the_work() -> None:
    """A tensor one past the limit is refused, one at the limit is made."""
    n = BUDGET.max_elements
    ok = run_program(f"import torch\nx = torch.zeros({n})\nprint(x.numel())")
    assert ok[-1].output == f"{n}\n" and ok[-1].error is None
    over = run_program(f"import torch\nx = torch.zeros({n + 1})")
    assert over[-1].error.key == "code.budget.elements"
    assert over[-1].error.params["got"] == f"{n + 1:,}"


def test_a_stopped_run_keeps_the_lines_before_it() -> None:
    lines = run_program("print(1)\nfor i in range(10**6):\n    pass\n")
    assert [r.output for r in lines] == ["1\n", ""]
    assert lines[-1].error.key == "code.budget.loop" and lines[-1].error.line == 2


def test_the_run_leaves_no_global_state() -> None:
    import torch

    before = torch.random.get_rng_state()
    run_program("import torch\ntorch.manual_seed(123)\nx = torch.rand(3)\n")
    assert torch.equal(before, torch.random.get_rng_state())
    run_program("import torch\nwith torch.no_grad():\n    y = 1 / 0\n")
    assert torch.is_grad_enabled()


def test_every_message_key_has_both_languages() -> None:
    keys = {key for _, key in HOSTILE.values()} | {"code.budget.memory", "code.refuse.set"}
    for key in keys:
        assert tr(key, "en") and tr(key, "zh")


def test_a_type_hint_is_never_evaluated() -> None:
    """Hints are skipped by the check and by the run alike (Python would evaluate these at the
    def and print twice): a hint cannot reach what it names, and the function still runs."""
    text = 'def f(x: print("hint") or open) -> __import__("os"):\n    return x * 2\nprint(f(3))\n'
    lines = run_program(text)
    assert lines[-1].error is None
    assert "".join(r.output for r in lines) == "6\n"
