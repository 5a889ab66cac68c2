"""hograd_ui/parts/ui.py static_table: Streamlit's table renders each cell as markdown, so every cell is
escaped to show as written. Oracle: a real CommonMark renderer with GitHub's tables
(markdown-it-py), whose cells must hold the original text and no markup of their own."""

from __future__ import annotations

import html
import re

import pytest
from markdown_it import MarkdownIt

from hograd_ui.parts.ui import _literal

HOSTILE = [
    "<script>alert(1)</script>",
    "**bold** _it_ `code`",
    "a | b",
    "x\\|y",
    "[link](http://x)",
    "# heading",
    "~~gone~~",
    "$x^2$",
    "&amp; &lt;",
    "w1**2*sin(w2)",
    "-",
    "1e-07",
    "—",
    "∇f(p)",
    "<b>",
    "![img](x.png)",
    "\\*",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_a_cell_shows_as_written(text: str) -> None:
    cell = _literal(text)
    out = (
        MarkdownIt("commonmark")
        .enable("table")
        .render(f"| {cell} | n |\n| --- | --- |\n| {cell} | 1 |\n")
    )
    shown = [html.unescape(c) for c in re.findall(r"<t[hd]>(.*?)</t[hd]>", out, flags=re.S)]
    assert shown == [text, "n", text, "1"]
    assert set(re.findall(r"</?([a-z0-9]+)", out)) <= {"table", "thead", "tbody", "tr", "th", "td"}


def test_numbers_pass_through() -> None:
    assert _literal(1.5) == 1.5 and _literal(3) == 3  # only text is escaped
