"""A new tab of the why page touches its own folder, its tests and pages/why.py's registry, and
nothing else (issue 47).

In a copy of the tree, a scratch lab is added exactly as docs/architecture.md's "How to add
an experiment" says (its folder with its declaration, compute, cached call, page and strings;
its test; the registry entry in pages/why.py). In the copy: the tab's URL key is one the link
check knows, a link with a good value opens the tab with it and a bad one is noted as not
valid, its strings resolve in English and Chinese, the tab renders in AppTest inside the app,
and lint-imports passes. Each step left out of the how-to breaks one of those, and the test
shows which. The copy runs in its own interpreter (this one has the real tree imported).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
COPIED = ("hograd_core", "hograd_serving", "hograd_ui", "hograd_labs", "pages", "hograd_cli")
COPIED_FILES = ("app.py", "pyproject.toml")

#: The scratch lab, file by file, as the how-to's steps 1-6 say.
LAB = {
    # step 1: the declaration, in the lab's __init__.py
    "hograd_labs/scratch/__init__.py": '''
        """A scratch tab: the n-th derivative of x**n at 1 is n! (a test's lab)."""

        from hograd_ui.lab import Lab

        LAB = Lab(
            __name__,
            title="scratch.tab",
            prefixes=("why.scratch.",),
            url=("why.scratch.n",),
            views={"tab": "page:draw"},
        )
        ''',
    # step 2: the experiment, a script a learner can run
    "hograd_labs/scratch/compute.py": '''
        """The n-th derivative of x**n at 1, by nested autograd."""

        from dataclasses import dataclass

        import torch


        @dataclass(frozen=True)
        class ScratchConfig:
            n: int = 3  # the power, and how many times to differentiate


        def run(config: ScratchConfig, progress=None) -> float:
            x = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
            y = x**config.n
            for k in range(config.n):
                (y,) = torch.autograd.grad(y, x, create_graph=True)  # <-- keeps the graph
                if progress is not None:
                    progress(k + 1, config.n)
            return float(y.detach())


        if __name__ == "__main__":
            config = ScratchConfig()
            print("derivative", run(config))
        ''',
    # step 3: checks and caching
    "hograd_labs/scratch/cached.py": '''
        """The scratch lab's cached call."""

        import streamlit as st

        from hograd_serving.cached import with_bar

        from . import compute


        @st.cache_data(max_entries=8, show_spinner=False)
        def derivative(n: int) -> float:
            return with_bar(lambda done, total: f"{done}/{total}",
                            lambda progress: compute.run(compute.ScratchConfig(n), progress))
        ''',
    # step 4: the page, a bound slider whose key starts with the lab's prefix
    "hograd_labs/scratch/page.py": '''
        """The scratch tab."""

        import streamlit as st

        from hograd_ui.parts.links import BIND
        from hograd_ui.parts.ui import t

        from .cached import derivative


        def draw() -> None:
            n = st.slider(t("scratch.n"), 1, 6, 3, key="why.scratch.n", bind=BIND)
            st.markdown(t("scratch.result", n=n, value=f"{derivative(n):g}"))
        ''',
    # step 5: its strings, in both languages
    "hograd_labs/scratch/en.toml": """
        "scratch.tab" = "Scratch"
        "scratch.n" = "Power n"
        "scratch.result" = "Differentiated {n} times, x^{n} is {value} at 1."
        """,
    "hograd_labs/scratch/zh.toml": """
        "scratch.tab" = "草稿"
        "scratch.n" = "幂次 n"
        "scratch.result" = "x^{n} 求 {n} 次导数后，在 1 处的值是 {value}。"
        """,
    # step 6: its test
    "tests/labs/test_scratch_compute.py": """
        import math

        from hograd_labs.scratch.compute import ScratchConfig, run


        def test_the_nth_derivative_of_x_to_the_n_is_n_factorial() -> None:
            for n in range(1, 7):
                assert run(ScratchConfig(n)) == math.factorial(n)
        """,
}

#: step 7: the registry in pages/why.py, one line in its import and one in TABS (after these).
IMPORT = "    pinn,\n"
TABS = "    wgan.LAB,\n"

#: What the copy checks, cheapest first; it prints the step it reached before failing.
CHECK = """
import sys

print("step: url", flush=True)
from hograd_ui.parts.links import known
from pages import SITE
assert known(SITE, "why", "why.scratch.n"), "the tab's URL key is unknown"
assert "why.scratch.n" not in SITE.url("derivatives")

print("step: strings", flush=True)
from hograd_ui.i18n import tr
en, zh = tr("scratch.result", "en", n=3, value=6), tr("scratch.result", "zh", n=3, value=6)
assert en.startswith("Differentiated 3 times") and "次导数" in zh, (en, zh)

print("step: render", flush=True)
from streamlit.testing.v1 import AppTest

APP_TEST_CEILING = 900.0  # tests/apptest.py's ceiling: the copy holds no tests/


def noted(at):  # the "not used" note's name=value lines (the share box shows whole links)
    return [c.value for c in at.code if "=" in c.value and not c.value.startswith(("/", "http"))]


def opened(lang, value):
    at = AppTest.from_file("app.py", default_timeout=APP_TEST_CEILING)
    at.query_params.update({"lang": lang, "why.tab": "scratch", "why.scratch.n": value})
    at.switch_page("pages/why.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


for lang, title in (("en", "Scratch"), ("zh", "草稿")):
    at = opened(lang, "4")
    assert title in [tab.label for tab in at.tabs], [tab.label for tab in at.tabs]
    assert at.slider(key="why.scratch.n").value == 4
    assert tr("scratch.result", lang, n=4, value="24") in [m.value for m in at.markdown]
    assert noted(at) == [], "a good value was noted"
    bad = opened(lang, "99")  # beyond the slider: the link check says it was not used
    assert bad.slider(key="why.scratch.n").value == 3
    assert noted(bad) == ["why.scratch.n=99"]
print("step: done", flush=True)
"""


def _tree(where: Path, *, skip: tuple[str, ...] = (), registry: bool = True) -> None:
    """The repository's code copied to ``where``, with the scratch lab (less ``skip``)."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for package in COPIED:
        shutil.copytree(ROOT / package, where / package, ignore=ignore)
    for name in COPIED_FILES:
        shutil.copy(ROOT / name, where / name)
    shutil.copytree(ROOT / "locales", where / "locales")
    shutil.copytree(ROOT / "assets", where / "assets")
    for name, text in LAB.items():
        if name not in skip:
            (where / name).parent.mkdir(parents=True, exist_ok=True)
            (where / name).write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    if registry:
        why = where / "pages" / "why.py"
        text = why.read_text(encoding="utf-8")
        assert text.count(IMPORT) == 1 and text.count(TABS) == 1, "pages/why.py's registry moved"
        text = text.replace(IMPORT, IMPORT + "    scratch,\n")
        text = text.replace(TABS, TABS + "    scratch.LAB,\n")
        why.write_text(text, encoding="utf-8")


def _run(where: Path, *command: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(where)}
    return subprocess.run(
        command, cwd=where, env=env, capture_output=True, text=True, timeout=900, check=False
    )


def _check(where: Path) -> subprocess.CompletedProcess:
    return _run(where, sys.executable, "-c", CHECK)


def _lint(where: Path) -> subprocess.CompletedProcess:
    return _run(where, str(Path(sys.executable).with_name("lint-imports")), "--no-cache")


def test_the_registry_lines_are_the_ones_the_test_edits() -> None:
    text = (ROOT / "pages" / "why.py").read_text(encoding="utf-8")
    assert text.count(IMPORT) == 1 and text.count(TABS) == 1


def test_a_scratch_tab_made_by_the_how_to_works(tmp_path: Path) -> None:
    _tree(tmp_path)
    checked = _check(tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "step: done" in checked.stdout
    tested = _run(
        tmp_path, sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
        "--rootdir", str(tmp_path), "-c", os.devnull, "tests/labs/test_scratch_compute.py",
    )  # fmt: skip
    assert tested.returncode == 0, tested.stdout + tested.stderr
    linted = _lint(tmp_path)
    assert linted.returncode == 0, linted.stdout


@pytest.mark.parametrize(
    ("left_out", "fails_at"),
    [
        ("registry", "step: url"),  # not in TABS: the page does not have the tab's keys
        ("hograd_labs/scratch/zh.toml", "step: strings"),  # en.toml alone is refused
    ],
)
def test_the_how_to_left_out_breaks_the_tab(tmp_path: Path, left_out: str, fails_at: str) -> None:
    _tree(tmp_path, skip=(left_out,), registry=left_out != "registry")
    checked = _check(tmp_path)
    assert checked.returncode != 0
    assert checked.stdout.rstrip().splitlines()[-1] == fails_at, checked.stdout + checked.stderr


def test_a_lab_that_imports_another_breaks_lint_imports(tmp_path: Path) -> None:
    """The how-to's "labs never import each other": a scratch page that takes the Newton lab's
    cached call fails lint-imports' independence contract."""
    _tree(tmp_path)
    page = tmp_path / "hograd_labs" / "scratch" / "page.py"
    page.write_text(page.read_text() + "\nfrom hograd_labs.newton import cached as _newton\n")
    linted = _lint(tmp_path)
    assert linted.returncode != 0
    assert "hograd_labs.scratch.page -> hograd_labs.newton.cached" in linted.stdout


def test_a_declaration_that_imports_streamlit_breaks_lint_imports(tmp_path: Path) -> None:
    """Step 1's "``__init__.py`` imports nothing else": the site imports every lab's package,
    so a declaration that pulls in Streamlit (here through the lab's page) fails a contract."""
    _tree(tmp_path)
    init = tmp_path / "hograd_labs" / "scratch" / "__init__.py"
    init.write_text(init.read_text() + "\nfrom . import page as _page\n")
    linted = _lint(tmp_path)
    assert linted.returncode != 0
    broken = linted.stdout[linted.stdout.index("Broken contracts") :]
    assert "A lab's declaration is light" in broken
    assert "hograd_labs.scratch -> hograd_labs.scratch.page" in broken, broken
