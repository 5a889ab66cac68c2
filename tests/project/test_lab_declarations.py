"""Every lab declares itself, and nothing below the labs names one (issue 47).

Each ``hograd_labs/<lab>/__init__.py`` exports one ``LAB`` (hograd_ui/lab.py); pages/__init__.py
collects them into the site; the kit (hograd_ui) and serving (hograd_serving) hold no string in
a lab's namespace: what they need of a lab comes from its declaration or its call."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

from hograd_serving.warmup import declared_views
from hograd_ui.lab import Lab
from pages import SITE

ROOT = Path(__file__).resolve().parents[2]
LABS = sorted(p.parent.name for p in (ROOT / "hograd_labs").glob("*/__init__.py"))


def _namespaces() -> tuple[str, ...]:
    """Every lab's name and every prefix a declaration has, each with its dot ("hvp.")."""
    names = {f"{lab}." for lab in LABS}
    return tuple(sorted(names | {p for lab in SITE.labs() for p in lab.prefixes}))


def test_every_lab_exports_one_declaration_and_the_site_has_it() -> None:
    for name in LABS:
        lab = importlib.import_module(f"hograd_labs.{name}").LAB
        assert isinstance(lab, Lab) and lab.name == name
    assert sorted(lab.name for lab in SITE.labs() if lab.package.startswith("hograd_labs.")) == LABS


def test_a_declaration_holds_only_its_own_keys() -> None:
    for lab in SITE.labs():
        own = (f"{lab.name}.", *lab.prefixes)
        for key in (*lab.url, *lab.params, *lab.runtime_keys):
            assert key.startswith(own), (lab.name, key)
        if lab.title:
            assert lab.title.startswith(own)


def test_the_kit_and_serving_name_no_lab() -> None:
    """No string constant in hograd_ui or hograd_serving starts with a lab's namespace. On
    the tree before the labs declared themselves this found 239 (the issue's grep)."""
    namespaces = _namespaces()
    found = []
    for package in ("hograd_ui", "hograd_serving"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                text = node.value if isinstance(node, ast.Constant) else None
                if isinstance(text, str) and text.startswith(namespaces):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {text!r}")
    assert found == []


def test_the_warm_up_visits_the_labs_default_views_in_order() -> None:
    """The same views the warm-up's own list held before the labs declared them."""
    assert declared_views() == (
        "derivatives",
        "graph",
        "hvp",
        "why",
        "lesson",
        "",
        "backward?backward.decode=element+0+of+tensors+does+not+require+grad",
    )
