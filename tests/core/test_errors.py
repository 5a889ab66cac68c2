"""The error family: which class means what, messages from the English catalogue, and errors
that survive pickling (st.cache_data and the child processes pickle them)."""

from __future__ import annotations

import pickle
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

from hograd_core import ArgumentError, BudgetError, HogradError, derivatives, hvp, parse
from hograd_core import network as nw
from hograd_ui.i18n import error_text

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("call", "cls"),
    [
        (lambda: derivatives(parse("x"), [0.0], 11), BudgetError),  # over the order limit
        (lambda: derivatives(parse("x"), [0.0], -1), ArgumentError),  # not an order at all
        (lambda: derivatives(parse("x"), np.zeros(5001), 1), BudgetError),
        (lambda: derivatives(parse("x"), [], 1), ArgumentError),
        (lambda: derivatives(parse("x"), [0.0], 1, method="magic"), ArgumentError),
        (lambda: derivatives(parse("x*y"), [0.0], 1), ArgumentError),
        (lambda: derivatives(parse("1/(1+x^2)"), np.linspace(-1, 1, 5000), 10), BudgetError),
        (lambda: hvp(parse("x*y"), [1.0, float("nan")], [1.0, 0.0]), ArgumentError),
        (lambda: nw.train(nw.NetConfig(hidden=(512, 512, 512))), BudgetError),
        (lambda: nw.train(nw.NetConfig(dataset="mnist")), ArgumentError),
    ],
)
def test_over_a_budget_and_a_bad_argument_are_told_apart(call, cls: type) -> None:
    with pytest.raises(HogradError) as caught:
        call()
    assert type(caught.value) is cls


def test_the_message_is_the_catalogue_text_filled_in() -> None:
    """The core's error carries the key and its parameters; the text is the catalogue's, in
    each language, filled in by hograd_ui.i18n (the core reads no language file)."""
    with pytest.raises(BudgetError) as caught:
        derivatives(parse("x"), np.zeros(5001), 1)
    err = caught.value
    assert err.key == "budget.points" and err.params == {"limit": 5000, "got": 5001}
    assert str(err) == "budget.points (limit=5000, got=5001)"
    for lang in ("en", "zh"):
        table = tomllib.loads((ROOT / "locales" / f"{lang}.toml").read_text())
        assert error_text(err, lang) == table["budget.points"].format(limit=5000, got=5001)


def test_the_core_reads_no_language_file() -> None:
    """Raising and printing an error in a process that loads only the core opens no .toml."""
    code = (
        "import builtins, io, sys, hograd_core\n"
        "opened = []\n"
        "real = io.open\n"
        "def spy(file, *a, **k):\n"
        "    opened.append(str(file))\n"
        "    return real(file, *a, **k)\n"
        "builtins.open = io.open = spy\n"
        "from pathlib import Path\n"
        "Path.open = lambda self, *a, **k: spy(self, *a, **k)\n"
        "try:\n"
        "    hograd_core.derivatives(hograd_core.parse('x'), [0.0], 11)\n"
        "except hograd_core.BudgetError as err:\n"
        "    print(str(err))\n"
        "print([f for f in opened if f.endswith('.toml')])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    message, files = out.stdout.splitlines()
    assert message.startswith("budget.order") and files == "[]"


@pytest.mark.parametrize("cls", [HogradError, BudgetError, ArgumentError])
def test_errors_survive_pickling(cls: type[HogradError]) -> None:
    err = cls("budget.points", limit=5000, got=7)
    err.extra = "kept"  # attributes of subclasses (a child's timeout, say) travel too
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is cls and back.key == err.key and back.params == err.params
    assert str(back) == str(err) and back.extra == "kept"
