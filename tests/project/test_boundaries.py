"""Architecture rules that a reader cannot see at a glance: checked, not trusted."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("hograd_core", "hograd_serving", "hograd_ui", "hograd_labs", "pages", "hograd_cli")


def test_the_import_contracts_hold() -> None:
    """pyproject.toml's import-linter contracts: the layers go one way, the core is compute."""
    lint = Path(sys.executable).with_name("lint-imports")
    out = subprocess.run(
        [str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "0 broken" in out.stdout


def test_no_import_cycle_anywhere() -> None:
    """Every import counts, those inside functions too: a cycle is a cycle."""
    graph = grimp.build_graph(*PACKAGES, cache_dir=None)
    seen: dict[str, int] = {}  # 1 on the current path, 2 done

    def visit(module: str, path: list[str]) -> None:
        seen[module] = 1
        for target in sorted(graph.find_modules_directly_imported_by(module)):
            if seen.get(target) == 1:
                pytest.fail("import cycle: " + " -> ".join([*path, module, target]))
            if target not in seen:
                visit(target, [*path, module])
        seen[module] = 2

    for module in sorted(graph.modules):
        if module not in seen:
            visit(module, [])


def test_the_core_loads_without_the_ui_and_serving_stacks() -> None:
    # Every module but the `python -m hograd_core` shim, which runs the command line (hograd_cli).
    code = (
        "import sys, pkgutil, importlib, hograd_core\n"
        "for m in pkgutil.walk_packages(hograd_core.__path__, 'hograd_core.'):\n"
        "    if m.name != 'hograd_core.__main__':\n"
        "        importlib.import_module(m.name)\n"
        "print(sorted(n for n in ('streamlit', 'plotly', 'hograd_serving', 'hograd_ui',"
        " 'hograd_cli', 'hograd_labs', 'nbformat') if n in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


#: The one place that executes code, and why no learner's text reaches it: the flag lab and
#: the gallery run their own calls as the page shows them (the source of the functions in
#: hograd_core/flaglab/calls.py and gallery.py, read with inspect.getsource, the lab's
#: settings filled in as Python literals and the variable's name as the language's parser
#: allows identifiers); the learner's function itself is computed by Function.torch from the
#: validated tree, never executed as text (hograd_core/flaglab/flags.py, run_flags_here).
EXECUTES_ITS_OWN_SOURCE = {("hograd_core/flaglab/source.py", "exec")}


def test_no_code_executing_calls_in_app_code() -> None:
    pattern = re.compile(r"\b(eval|exec|sympify|parse_expr|lambdify|numexpr)\s*\(")
    files = [ROOT / "app.py", *(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))]
    found = set()
    for path in files:
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if pattern.search(line) and not line.lstrip().startswith("#"):
                where = (str(path.relative_to(ROOT)), pattern.search(line).group(1))
                if where not in EXECUTES_ITS_OWN_SOURCE:
                    pytest.fail(f"{path.name}:{number} calls {where[1]}")
                found.add(where)
    assert found == EXECUTES_ITS_OWN_SOURCE  # an exception that no longer applies goes too


def test_no_unsafe_html() -> None:
    files = [ROOT / "app.py", *(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))]
    for path in files:
        assert "unsafe_allow_html=True" not in path.read_text(), path
