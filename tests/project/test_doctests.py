"""Every ``>>>`` example in the packages' docstrings runs, and shows what it says it shows."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

PACKAGES = ("hograd_core", "hograd_serving", "hograd_ui", "hograd_labs")


def modules() -> list[str]:
    names = []
    for package in PACKAGES:
        names.append(package)
        root = importlib.import_module(package)
        names += [m.name for m in pkgutil.walk_packages(root.__path__, package + ".")]
    return sorted(n for n in names if not n.endswith("__main__"))


@pytest.mark.parametrize("name", modules())
def test_docstring_examples_run(name: str) -> None:
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in finder.find(module, name):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"


def test_the_examples_are_found() -> None:
    """The finder sees the examples at all (the README's first one is in hograd_core)."""
    tests = doctest.DocTestFinder().find(importlib.import_module("hograd_core"), "hograd_core")
    assert sum(len(t.examples) for t in tests) >= 3
