"""Architecture rules that a reader cannot see at a glance: checked, not trusted."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from hograd_core import i18n
from hograd_core.i18n import TABLE, placeholders

ROOT = Path(__file__).resolve().parents[2]


def test_core_does_not_import_streamlit() -> None:
    code = (
        "import sys, hograd_core, hograd_core.__main__\n"
        "import pkgutil, importlib\n"
        "for m in pkgutil.iter_modules(hograd_core.__path__):\n"
        "    importlib.import_module('hograd_core.' + m.name)\n"
        "print('streamlit' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_no_code_executing_calls_in_app_code() -> None:
    pattern = re.compile(r"\b(eval|exec|sympify|parse_expr|lambdify|numexpr)\s*\(")
    for path in [ROOT / "app.py", *ROOT.glob("pages/*.py"), *ROOT.glob("hograd_core/*.py")]:
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if pattern.search(line) and not line.lstrip().startswith("#"):
                pytest.fail(f"{path.name}:{number} calls {pattern.search(line).group(1)}")


def test_no_unsafe_html() -> None:
    for path in [ROOT / "app.py", *ROOT.glob("pages/*.py")]:
        assert "unsafe_allow_html=True" not in path.read_text(), path


@pytest.mark.parametrize("key", sorted(TABLE))
def test_every_string_in_both_languages(key: str) -> None:
    english, chinese = TABLE[key]
    assert english.strip() and chinese.strip()
    assert placeholders(english) == placeholders(chinese), key
    # Chinese text must be Chinese: at least one CJK character (code and names aside).
    assert re.search(r"[\u4e00-\u9fff]", chinese), key
    assert english != chinese


def test_every_key_used_in_the_code_exists() -> None:
    used: set[str] = set()
    for path in [ROOT / "app.py", *ROOT.glob("pages/*.py"), *ROOT.glob("hograd_core/*.py")]:
        text = path.read_text()
        used |= set(
            re.findall(
                r"""\b(?:t|tr|HogradError|ExpressionError|BudgetError|BusyError)\(\s*["']([a-z_]+\.[a-z_.0-9]+)["']""",
                text,
            )
        )
    missing = sorted(key for key in used if key not in TABLE)
    assert not missing, missing
    assert i18n.LANGUAGES == {"en": "English", "zh": "简体中文"}
