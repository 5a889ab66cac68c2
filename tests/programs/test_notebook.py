"""The pages' notebooks: built, validated, executed in a real kernel (nbclient, python3 through
ipykernel) and their numbers compared with the core's, the numbers the pages show, which are
themselves checked against sympy and finite differences elsewhere.

Bounded and offline: each cell has a generous limit (tests/notebooks.py's ``TIMEOUT``, never a
measured time: a busy machine only makes the test slower), and the kernel talks to this
process over Unix sockets only; the notebooks need torch, numpy and plotly, nothing to
download.
"""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest

from hograd_core import BUDGET, derivatives, graph_lab, hvp, parse
from hograd_ui.notebook import (
    DERIV_TEXTS,
    GRAPH_TEXTS,
    HVP_TEXTS,
    derivatives_notebook,
    graph_notebook,
    hvp_notebook,
)
from tests.notebooks import execute as run_cells

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("nbclient", reason="nbclient is a test dependency")


def execute(source: str, probe: str) -> tuple[dict, object]:
    """Run the notebook with one more cell that prints ``probe`` as JSON; return that and the
    executed notebook."""
    nb = nbformat.reads(source, as_version=4)
    nbformat.validate(nb)
    nb.cells.append(nbformat.v4.new_code_cell(f"import json\nprint(json.dumps({probe}))"))
    run_cells(nb)
    for cell in nb.cells:
        assert not [o for o in cell.get("outputs", []) if o["output_type"] == "error"], cell
    return json.loads(nb.cells[-1].outputs[0]["text"]), nb


def markdown(nb: object) -> str:
    return "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


def test_the_derivatives_notebook_recomputes_the_page() -> None:
    fn = parse("sin(t)*exp(-t^2)")
    texts = {key: f"text {key}" for key in DERIV_TEXTS}
    source = derivatives_notebook(fn, -2.0, 2.0, 101, 5, 0.3, texts)
    got, nb = execute(source, "{'values': values.tolist(), 'at_x0': at_x0}")
    # the derivatives are computed by the page's own function, its source as it is
    import inspect

    from hograd_core.derivatives_script import nested_derivatives

    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert inspect.getsource(nested_derivatives).strip() in code
    page = derivatives(fn, np.linspace(-2.0, 2.0, 101), 5, method="taylor").values
    np.testing.assert_allclose(np.array(got["values"]), page, rtol=1e-10, atol=1e-10)
    at_x0 = derivatives(fn, [0.3], 5, method="taylor").values[:, 0]
    np.testing.assert_allclose(got["at_x0"], at_x0, rtol=1e-10, atol=1e-10)
    # the prose in order, "limit" left out (order 5 is within nested autograd's limit)
    assert [c.source for c in nb.cells if c.cell_type == "markdown"] == [
        f"text {k}" for k in DERIV_TEXTS if k != "limit"
    ]
    # the chart is drawn: plotly's figure is in the outputs, one trace per order
    mime = "application/vnd.plotly.v1+json"
    figures = [
        o["data"][mime] for c in nb.cells for o in c.get("outputs", []) if mime in o.get("data", {})
    ]
    assert len(figures) == 1 and len(figures[0]["data"]) == 6
    y = figures[0]["data"][2]["y"]  # plotly sends arrays as base64 bytes and a dtype
    y = np.frombuffer(base64.b64decode(y["bdata"]), y["dtype"]) if "bdata" in y else np.array(y)
    np.testing.assert_allclose(y, page[2], rtol=1e-10, atol=1e-10)


def test_above_autograds_limit_the_notebook_stops_at_it_and_says_so() -> None:
    order = BUDGET.max_order_autograd + 2
    texts = {"limit": "limit text", "title": "a title"}
    got, nb = execute(
        derivatives_notebook(parse("x**3"), -1.0, 1.0, 5, order, 0.5, texts),
        "{'values': values.tolist()}",
    )
    values = np.array(got["values"])
    assert values.shape == (BUDGET.max_order_autograd + 1, 5)
    xs = np.linspace(-1.0, 1.0, 5)
    np.testing.assert_array_equal(values[:4], [xs**3, 3 * xs**2, 6 * xs, 6 + 0 * xs])
    assert not values[4:].any()  # x³ has no fourth derivative: exact zeros
    assert "limit text" in markdown(nb)


def test_the_hvp_notebook_recomputes_the_page_and_draws_the_contour() -> None:
    fn = parse("x^2*y + sin(y)")
    point, vector = (0.5, 1.0), (1.0, -0.5)
    texts = {key: f"text {key}" for key in HVP_TEXTS}
    probe = (
        "{'g': g.tolist(), 'H': H.tolist(), 'hv': hv.tolist(), 'Hv': (H @ v).tolist(),"
        " 'eig': eigenvalues.tolist(), 'Z': Z.tolist(),"
        " 'a': a.tolist(), 'b': b.tolist()}"
    )
    got, nb = execute(hvp_notebook(fn, point, vector, 1.5, texts), probe)
    page = hvp(fn, point, vector)
    for key, want in (
        ("g", page.gradient),
        ("H", page.hessian),
        ("hv", page.hvp),
        ("Hv", page.hvp),
        ("eig", page.eigenvalues),
    ):
        np.testing.assert_allclose(got[key], want, rtol=1e-12, atol=1e-12, err_msg=key)
    a, b, z = np.array(got["a"]), np.array(got["b"]), np.array(got["Z"])
    assert a[0] == pytest.approx(-1.0) and b[-1] == pytest.approx(2.5)
    np.testing.assert_allclose(z, np.outer(np.ones_like(b), a**2) * b[:, None] + np.sin(b)[:, None])
    assert "text contour" in markdown(nb)


def test_the_hvp_notebook_of_three_variables_and_of_a_linear_function() -> None:
    fn = parse("x + 2*y - z")  # ∇f constant: H = 0, Hv = 0, no contour for three variables
    texts = {key: f"text {key}" for key in HVP_TEXTS}
    got, nb = execute(
        hvp_notebook(fn, (1, 2, 3), (1, 0, 0), 1.0, texts),
        "{'g': g.tolist(), 'H': H.tolist(), 'hv': hv.tolist()}",
    )
    assert got == {"g": [1.0, 2.0, -1.0], "H": [[0.0] * 3] * 3, "hv": [0.0] * 3}
    assert "text contour" not in markdown(nb)


def test_typed_text_stays_out_of_markdown() -> None:
    fn = parse("x*y")  # the typed text is a string literal in code, never prose Jupyter renders
    source = hvp_notebook(fn, (1, 2), (0, 1), 1.0, {"title": "# title"})
    nb = nbformat.reads(source, as_version=4)
    assert "x*y" not in markdown(nb)
    assert any("text = 'x*y'" in c.source for c in nb.cells if c.cell_type == "code")
    assert nb.metadata["kernelspec"]["name"] == "python3"


@pytest.mark.parametrize(("text", "x0", "order"), [("tanh(x)", 0.7, 4), ("x**3", 2.0, 5)])
def test_the_graph_notebook_counts_the_nodes_the_page_counts(
    text: str, x0: float, order: int
) -> None:
    fn = parse(text)
    texts = {key: f"text {key}" for key in GRAPH_TEXTS}
    got, nb = execute(
        graph_notebook(fn, x0, order, texts),
        "{'values': values, 'nodes': nodes, 'grad_fns': grad_fns}",
    )
    lab = graph_lab(fn, x0, order)  # the page's lab, whose counts test_graphs.py checks
    assert got["nodes"] == [s.nodes for s in lab.stats]  # x**3: 2, 5, 8, 11, 11, 11
    assert got["grad_fns"] == [s.grad_fn for s in lab.stats]
    np.testing.assert_allclose(got["values"], [s.value for s in lab.stats], rtol=1e-14)
    if text == "x**3":
        assert got["values"] == [8.0, 12.0, 12.0, 6.0, 0.0, 0.0]
    assert [c.source for c in nb.cells if c.cell_type == "markdown"] == [
        f"text {k}" for k in GRAPH_TEXTS
    ]


def test_a_variable_named_like_the_notebooks_own_names_is_renamed() -> None:
    fn = parse("values^2 + sin(values)")  # "values" is the notebook's own result
    source = derivatives_notebook(fn, -1.0, 1.0, 11, 3, 0.2)
    assert "def f(x):" in source
    got, _ = execute(source, "{'values': values.tolist(), 'at_x0': at_x0}")
    xs = np.linspace(-1.0, 1.0, 11)
    exact = [xs**2 + np.sin(xs), 2 * xs + np.cos(xs), 2 - np.sin(xs), -np.cos(xs)]
    np.testing.assert_allclose(got["values"], exact, rtol=1e-13, atol=1e-13)
    x0 = 0.2
    at_x0 = [x0**2 + np.sin(x0), 2 * x0 + np.cos(x0), 2 - np.sin(x0), -np.cos(x0)]
    np.testing.assert_allclose(got["at_x0"], at_x0, rtol=1e-14)


def test_a_percent_script_is_cut_at_its_cell_lines() -> None:
    """The jupytext percent format: a "# %%" line (with or without a title) starts a cell and
    is not part of it; text before the first one is a cell; empty cells are dropped."""
    from hograd_ui.notebook import percent_cells, percent_notebook

    source = '"""doc"""\n# %% Settings\nimport math\n\n\n# %%\n\n# %% Run it\nif True:\n    x = 1\n'
    assert percent_cells(source) == ['"""doc"""', "import math", "if True:\n    x = 1"]
    assert percent_cells("# %%\na = 1") == ["a = 1"]
    nb = nbformat.reads(percent_notebook(source, [("markdown", "# t")], [("code", "x")]), 4)
    assert [(c.cell_type, c.source) for c in nb.cells] == [
        ("markdown", "# t"),
        ("code", '"""doc"""'),
        ("code", "import math"),
        ("code", "if True:\n    x = 1"),
        ("code", "x"),
    ]
