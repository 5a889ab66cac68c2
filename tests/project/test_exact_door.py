"""Exact maths has one door (issue 45): pyproject.toml's contract "Exact maths has one door"
lets only hograd_serving.exact reach sympy, mpmath and the kernel's modules that run them.

The contract is proved to bite: in a copy of the tree, a scratch lab that imports sympy, a
scratch lab that reaches it through a kernel module inside a function, and a scratch serving
module that imports the in-process inspector each break it, and lint-imports fails naming
them. app.py, which import-linter cannot take as a root, is checked here over grimp's graph."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("hograd_core", "hograd_serving", "hograd_ui", "hograd_labs", "pages", "hograd_cli")
CONTRACT = "Exact maths has one door"
#: What only the door reaches.
EXACT = (
    "sympy",
    "mpmath",
    "hograd_core.symbolic",
    "hograd_core.sympy_program",
    "hograd_core.language.to_sympy",
    "hograd_core.inspector_exact",
)
DOOR = ("hograd_serving.exact", "hograd_core.sympy_program")

SCRATCH = {
    "hograd_labs/scratch/__init__.py": "",
    "hograd_labs/scratch/compute.py": "import sympy\n\nX = sympy.Symbol('x')\n",
    "hograd_labs/scratch2/__init__.py": "",
    "hograd_labs/scratch2/cached.py": (
        "def formula(text):\n"
        "    from hograd_core.symbolic import symbolic_derivatives  # inside a function\n"
        "\n"
        "    return symbolic_derivatives\n"
    ),
    "hograd_serving/scratch_inspector.py": "from hograd_core.inspector_exact import inspect_point\n",
}


def _lint(where: Path) -> subprocess.CompletedProcess:
    lint = Path(sys.executable).with_name("lint-imports")
    env = {**os.environ, "PYTHONPATH": str(where)}
    return subprocess.run(
        [str(lint), "--no-cache"], cwd=where, env=env, capture_output=True, text=True, timeout=600
    )


def test_the_contract_fails_on_scratch_modules_that_reach_sympy(tmp_path: Path) -> None:
    copy = tmp_path / "tree"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for package in PACKAGES:
        shutil.copytree(ROOT / package, copy / package, ignore=ignore)
    shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
    for name, text in SCRATCH.items():
        (copy / name).parent.mkdir(exist_ok=True)
        (copy / name).write_text(text)
    out = _lint(copy)
    assert out.returncode != 0, out.stdout
    broken = out.stdout[out.stdout.index("Broken contracts") :]
    assert f"{CONTRACT}: sympy and mpmath run only in exact's child" in broken
    for module in ("hograd_labs.scratch.compute", "hograd_labs.scratch2.cached"):
        assert f"{module} -> " in broken, broken
    assert "hograd_serving.scratch_inspector -> hograd_core.inspector_exact" in broken
    # and nothing else broke: the copy is the tree plus the scratch modules
    assert out.stdout.count(" BROKEN") == 1, out.stdout


def test_app_py_reaches_exact_maths_only_through_the_door() -> None:
    graph = grimp.build_graph(*PACKAGES, include_external_packages=True, cache_dir=None)
    graph.remove_import(importer=DOOR[0], imported=DOOR[1])  # the door itself
    for imported in list(graph.find_modules_directly_imported_by("hograd_serving.exact_child")):
        graph.remove_import(importer="hograd_serving.exact_child", imported=imported)
    imports = set()
    for node in ast.walk(ast.parse((ROOT / "app.py").read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            imports.add(node.module)
        elif isinstance(node, ast.Import):
            imports.update(a.name for a in node.names)
    ours = sorted(m for m in imports if m.split(".")[0] in PACKAGES)
    assert ours, "app.py imports nothing of ours?"
    for module in ours:
        assert module.split(".")[0] not in ("sympy", "mpmath")
        for target in EXACT:
            if target in graph.modules:
                chain = graph.find_shortest_chain(importer=module, imported=target)
                assert chain is None, f"app.py -> {' -> '.join(chain)}"
