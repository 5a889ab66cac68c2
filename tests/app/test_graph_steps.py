"""The graph page offers the graph after each pass as a zip of numbered SVG files, the files
``python -m hograd_core graph ... --steps DIR`` writes (issue 38: slides).

Oracle: the real graph of the same calls made here with plain torch, its backward functions
new to each pass counted by an independent walk (``tests/project/test_cli_graph.py``)."""

from __future__ import annotations

import io
import shutil
import zipfile
from collections import Counter

import pytest
import torch

from hograd_core import parse
from hograd_core.graphs import graph_lab
from hograd_labs.graph.cached import steps_zip
from hograd_labs.graph.figures import pass_dots
from tests.app.test_graph_page import open_graph
from tests.project.test_cli_graph import backward_nodes_by_pass, new_per_pass

pytestmark = pytest.mark.skipif(shutil.which("dot") is None, reason="no Graphviz dot")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_page_offers_each_pass_as_svg_in_a_zip(lang: str) -> None:
    at = open_graph(lang, unfold=False)
    buttons = [b for b in at.get("download_button") if "graph.steps" in b.proto.id]
    assert len(buttons) == 1
    assert "pass_0.svg" in buttons[0].proto.help and "--steps DIR" in buttons[0].proto.help


def test_the_zip_holds_the_graph_after_each_pass() -> None:
    order = 3
    archive = zipfile.ZipFile(
        io.BytesIO(steps_zip(pass_dots(graph_lab(parse("x**3"), 0.7), order)))
    )
    names = [f"pass_{k}.svg" for k in range(order + 1)]
    assert archive.namelist() == names
    x = torch.tensor(0.7, dtype=torch.float64, requires_grad=True)
    rows = [x**3]
    for _ in range(order):
        rows.append(torch.autograd.grad(rows[-1], x, create_graph=True)[0])
    new = [sum(c.values()) for c in new_per_pass(rows)]
    for k, name in enumerate(names):
        drawn = backward_nodes_by_pass(archive.read(name).decode())
        assert drawn == Counter({j: new[j] for j in range(k + 1)}), name
