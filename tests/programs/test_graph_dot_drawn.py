"""Graphviz's own drawing as the oracle of the DOT the graph page shows: dot draws the same
text lines from torchviz's source and from the source with its newlines escaped (issue 36,
finding 4; tests/core/test_graph_dot.py checks the escaped source itself, without dot)."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from tests.core.test_graph_dot import torchviz_sources


def drawn_lines(source: str) -> list[str]:
    """The text Graphviz draws, in order (its SVG's <text> elements, blank ones left out)."""
    svg = subprocess.run(
        ["dot", "-Tsvg"], input=source, capture_output=True, text=True, check=True
    ).stdout
    return [t for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg) if t.strip()]


def test_dot_draws_the_same_lines_from_the_escaped_source() -> None:
    if shutil.which("dot") is None:
        pytest.skip("the graphviz dot binary is not installed")
    raw, fixed = torchviz_sources()
    assert fixed != raw
    assert drawn_lines(fixed) == drawn_lines(raw) and " ()" in drawn_lines(raw)
