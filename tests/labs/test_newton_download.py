"""The Newton lab's download is its compute module: the file runs on its own (torch and numpy,
no hograd) and prints the numbers the page's cached call returns; its notebook is the same file
cut at its ``# %%`` lines."""

from __future__ import annotations

import inspect

import nbformat
import numpy as np
import pytest

from hograd_core import parse
from hograd_labs.newton import compute, figures
from hograd_labs.newton.cached import script, torch_function, why_newton
from hograd_labs.newton.compute import RaceConfig
from tests.labs.notebooks import figure_cell, imported, run_alone
from tests.notebooks import execute

TEXT = "x^2 + y^4/4 - y^2/2"  # the saddle preset: each method ends somewhere else
CONFIG = RaceConfig(
    start=(1.0, 0.3),
    steps=100,
    lr=0.1,
    damping=0.5,
    radius=0.25,
    methods=("gd", "newton", "damped", "trust"),
)
STANDALONE = {"math", "time", "warnings", "collections", "dataclasses", "numpy", "torch"}


def test_the_download_runs_and_prints_the_pages_numbers(tmp_path) -> None:
    c = CONFIG  # what the page draws, from its cached call
    race, _, code = why_newton(TEXT, c.start, c.steps, c.lr, c.damping, c.radius, c.methods)
    # the file is the module's source: f's body is the typed function, the config the page's
    own, sent = inspect.getsource(compute).splitlines(), code.source.splitlines()
    changed = [(a, b) for a, b in zip(own, sent, strict=True) if a != b]
    assert changed == [
        (
            "    return ((1 - x) ** 2) + (100 * ((y - (x**2)) ** 2))",
            "    return ((x ** 2) + ((y ** 4) / 4)) - ((y ** 2) / 2)",
        ),
        ("    config = RaceConfig()", f"    config = {CONFIG!r}"),
    ]
    assert imported(code.source) <= STANDALONE, imported(code.source) - STANDALONE
    marked = [code.source.splitlines()[i - 1] for i in code.marked]
    assert "create_graph=second" in marked[0] and "H:" in marked[1]
    stdout = run_alone(code.source, tmp_path, "hograd_why_newton.py")
    rows = {line.split()[0]: line.split()[1:] for line in stdout.splitlines()}
    for p in race.paths:
        status, stopped, x, y, f, g, kind = rows[p.method]
        assert (status, int(stopped), kind) == (p.status, p.stopped_at, p.end_kind)
        np.testing.assert_allclose(
            [float(v) for v in (x, y, f, g)],
            [*p.points[-1], p.values[-1], p.grad_norms[-1]],
            rtol=1e-12,
            atol=1e-14,
            err_msg=p.method,
        )
    assert [int(v) for v in rows["saved_bytes"]] == [race.gd_saved_bytes, race.newton_saved_bytes]
    assert all(float(v) > 0 for v in rows["seconds"])  # timings: measured, never the same twice


def test_the_torch_func_download_differs_by_its_derivatives_line_only() -> None:
    fn = parse(TEXT)
    plain, func = (
        script(fn, CONFIG).source.splitlines(),
        script(fn, CONFIG, func=True).source.splitlines(),
    )
    changed = [(a, b) for a, b in zip(plain, func, strict=True) if a != b]
    assert len(changed) == 1 and changed[0][1].strip().startswith(
        "derivatives_of = derivatives_func"
    )


def test_the_notebook_is_the_download_cut_at_its_cell_lines() -> None:
    code = script(parse(TEXT), CONFIG)
    figure = figure_cell(figures.notebook(code.source, "# title", "figure"), code.source)
    assert "result.paths" in figure  # the figure draws what __main__ left behind


def test_the_notebook_runs_and_draws_the_paths() -> None:
    """Executed by a real kernel (nbclient), as a learner would."""
    pytest.importorskip("nbclient", reason="nbclient is a test dependency")
    small = RaceConfig(start=(1.0, 0.3), steps=5, lr=0.1)
    nb = nbformat.reads(figures.notebook(script(parse(TEXT), small).source, "t", "f"), as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("print(result.paths[1].points[-1].tolist())"))
    execute(nb)
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o["output_type"] == "error"]
    assert not errors
    expected = compute.run(small, f=torch_function(parse(TEXT))).paths[1].points[-1]
    got = nb.cells[-1].outputs[0]["text"].strip("[]\n").split(",")
    np.testing.assert_allclose([float(v) for v in got], expected, rtol=1e-12)
    mime = "application/vnd.plotly.v1+json"
    assert any(mime in o.get("data", {}) for o in nb.cells[-2].get("outputs", []))
