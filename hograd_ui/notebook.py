"""A page's current view as a Jupyter notebook that recomputes it with plain torch and plotly.

The notebooks need ``torch``, ``numpy`` and ``plotly`` only (not hograd): the typed function is
written out by the one generator, :func:`.language.to_source.torch_source`, and the numbers
come from ``torch.autograd.grad`` as the pages teach it. The prose is passed in by the caller
(in its own language), keyed by :data:`DERIV_TEXTS` and :data:`HVP_TEXTS`; a missing key leaves
its cell out. The typed text appears only inside code, as a Python string literal, never in a
markdown cell (Jupyter would render it).
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence

import nbformat
import numpy as np
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from hograd_core import derivatives_script, hvp_script
from hograd_core.graphs import GRAPH_BUDGET
from hograd_core.hessian import point_vector
from hograd_core.hvp_code import flat_source, shown_source
from hograd_core.language import Function
from hograd_core.language.to_source import python_name, torch_source
from hograd_core.nested_autograd import BUDGET

from .csv_tables import order_header

__all__ = [
    "DERIV_TEXTS",
    "GRAPH_TEXTS",
    "HVP_TEXTS",
    "derivatives_notebook",
    "graph_notebook",
    "hvp_notebook",
    "percent_cells",
    "percent_notebook",
]

#: Prose cells of :func:`derivatives_notebook`, in order ("limit" only above autograd's limit).
DERIV_TEXTS: tuple[str, ...] = ("title", "function", "grid", "limit", "plot", "x0")
#: Prose cells of :func:`hvp_notebook` ("contour" only for two variables).
HVP_TEXTS: tuple[str, ...] = ("title", "function", "hessian", "hvp", "heatmap", "contour")
#: Prose cells of :func:`graph_notebook`.
GRAPH_TEXTS: tuple[str, ...] = ("title", "function", "passes", "growth", "drawing")

_NAMES = {
    "torch",
    "np",
    "go",
    "f",
    "text",
    "xs",
    "x0",
    "k",
    "d",
    "rows",
    "order",
    "values",
    "derivatives",
    "fig",
    "labels",
    "derivatives_of",
    "range",
    "print",
}


def _notebook(cells: list) -> str:
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nb.metadata["language_info"] = {"name": "python"}
    nbformat.validate(nb)
    return nbformat.writes(nb)


def _cells(texts: Mapping[str, str], parts: Sequence[tuple[str, str | None]]) -> list:
    """A markdown cell for each part's text (if given), then its code (if any)."""
    cells = []
    for key, code in parts:
        if texts.get(key):
            cells.append(new_markdown_cell(texts[key]))
        if code:
            cells.append(new_code_cell(code.strip("\n")))
    return cells


def _derivatives_of() -> str:
    """The notebook's derivatives: the page's own function (the source of
    :func:`hograd_core.derivatives_script.nested_derivatives`, what the page runs and shows),
    and :func:`~hograd_core.derivatives_script.derivatives_of`, which stacks its rows on a
    grid."""
    return "\n\n".join(
        inspect.getsource(shown)
        for shown in (derivatives_script.nested_derivatives, derivatives_script.derivatives_of)
    )


def derivatives_notebook(
    fn: Function,
    low: float,
    high: float,
    points: int,
    order: int,
    x0: float,
    texts: Mapping[str, str] | None = None,
) -> str:
    """The derivatives page's view as notebook JSON: f and its derivatives on the page's grid
    (``np.linspace(low, high, points)``), one plotly chart, and the values at ``x0``.

    Nested autograd computes orders up to its limit (``BUDGET.max_order_autograd``); the page
    goes further with Taylor mode, and the notebook then stops at the limit (text "limit").

    Returns:
        The notebook as nbformat 4 JSON. Run, it leaves ``values`` (shape (orders, points))
        and ``at_x0`` (one value per order).
    """
    note = dict(texts or {})
    own = fn.variables[0] if fn.variables else "x"
    var = python_name(own, _NAMES)
    shown = min(order, BUDGET.max_order_autograd)
    labels = [order_header(k) for k in range(shown + 1)]
    parts = [
        ("title", "import numpy as np\nimport plotly.graph_objects as go\nimport torch"),
        (
            "function",
            f"text = {fn.text!r}\n\n\ndef f({var}):\n    return {torch_source(fn, {own: var})}",
        ),
        (
            "grid",
            f"{_derivatives_of().strip()}\n\n\norder = {shown}\n"
            f"xs = torch.tensor(np.linspace({float(low)!r}, {float(high)!r}, {int(points)}), "
            "dtype=torch.float64, requires_grad=True)\n"
            "values = derivatives_of(f, xs, order).numpy()  # (order + 1, points)\n"
            "values.shape",
        ),
        ("limit" if shown < order else "", None),
        (
            "plot",
            f"labels = {labels!r}\nfig = go.Figure()\nfor k in range(order + 1):\n"
            "    fig.add_scatter(x=xs.detach().numpy(), y=values[k], name=labels[k], "
            "mode='lines')\n"
            f"fig.update_layout(xaxis_title={own!r}, template='plotly_white')\nfig.show()",
        ),
        (
            "x0",
            f"x0 = torch.tensor([{float(x0)!r}], dtype=torch.float64, requires_grad=True)\n"
            "at_x0 = derivatives_of(f, x0, order)[:, 0].tolist()\n"
            "for k, d in enumerate(at_x0):\n    print(labels[k], d)",
        ),
    ]
    return _notebook(_cells(note, parts))


#: The HVP page's own functions (hograd_core/hvp_script.py, what its script shows and its
#: power iteration runs), as the notebook's hessian cell carries them.
_HVP_FUNCTIONS = (hvp_script.gradient, hvp_script.hvp_double_backward, hvp_script.hessian)


def hvp_notebook(
    fn: Function,
    point: Sequence[float] | np.ndarray,
    vector: Sequence[float] | np.ndarray,
    radius: float,
    texts: Mapping[str, str] | None = None,
) -> str:
    """The HVP page's view as notebook JSON: ∇f and the Hessian at ``point``, Hv along
    ``vector`` by double backward (without H) checked against H @ v, the eigenvalues and
    eigenvectors, a heatmap of H and, for two variables, the contour of f around the point.

    Returns:
        The notebook as nbformat 4 JSON. Run, it leaves ``g``, ``H``, ``hv``, ``eigenvalues``
        and ``eigenvectors`` (torch tensors).

    Raises:
        BudgetError, ArgumentError: as :func:`hograd_core.hessian.hvp` for the point and vector.
    """
    p = point_vector(point, fn, "point")
    v = point_vector(vector, fn, "vector")
    note = dict(texts or {})
    names = list(fn.variables)
    parts = [
        ("title", "import plotly.graph_objects as go\nimport torch"),
        ("function", f"text = {fn.text!r}\nnames = {names!r}\n\n\n{flat_source(fn)}"),
        (
            "hessian",
            f"{shown_source(_HVP_FUNCTIONS)}\n\n\n"
            f"w = torch.tensor({[float(x) for x in p]!r}, dtype=torch.float64, "
            "requires_grad=True)\n"
            f"v = torch.tensor({[float(x) for x in v]!r}, dtype=torch.float64)\n"
            "value = f(w)\n"
            "g = gradient(f, w)  # recorded: H comes from its graph\n"
            "H = hessian(g, w)\n"
            "eigenvalues, eigenvectors = torch.linalg.eigh(H)\n"
            "print('f =', value.item())\nprint('gradient', g.tolist())\n"
            "print('eigenvalues', eigenvalues.tolist())\nH",
        ),
        (
            "hvp",
            "hv = hvp_double_backward(g, w, v)  # without H\n"
            "print('Hv', hv.tolist())\nprint('H @ v', (H @ v).tolist())",
        ),
        (
            "heatmap",
            "fig = go.Figure(go.Heatmap(z=H.detach().numpy(), x=names, y=names, "
            "colorscale='RdBu', zmid=0))\n"
            "fig.update_yaxes(autorange='reversed')\nfig.show()",
        ),
    ]
    if len(names) == 2:
        parts.append(
            (
                "contour",
                (
                    f"radius = {float(radius)!r}\n"
                    "a = torch.linspace(w[0].item() - radius, w[0].item() + radius, 81, "
                    "dtype=torch.float64)\n"
                    "b = torch.linspace(w[1].item() - radius, w[1].item() + radius, 81, "
                    "dtype=torch.float64)\n"
                    "X, Y = torch.meshgrid(a, b, indexing='xy')\n"
                    "with torch.no_grad():  # f acts point by point: one call for the whole grid\n"
                    "    Z = torch.broadcast_to(f(torch.stack([X, Y])), X.shape)\n"
                    "fig = go.Figure(go.Contour(x=a.numpy(), y=b.numpy(), z=Z.numpy(), ncontours=30))\n"
                    "p, q = w.detach().numpy(), (w.detach() + v).numpy()\n"
                    "fig.add_scatter(x=[p[0], q[0]], y=[p[1], q[1]], mode='lines+markers',\n"
                    "                name='p, p + v')\n"
                    "fig.update_layout(xaxis_title=names[0], yaxis_title=names[1])\nfig.show()"
                ),
            )
        )
    return _notebook(_cells(note, parts))


_REACHABLE = '''
def reachable(*tensors):
    """The autograd nodes a backward from these tensors would visit (AccumulateGrad included)."""
    seen = {t.grad_fn for t in tensors if t.grad_fn is not None}
    stack = list(seen)
    while stack:
        for node, _ in stack.pop().next_functions:
            if node is not None and node not in seen:
                seen.add(node)
                stack.append(node)
    return len(seen)
'''


def graph_notebook(
    fn: Function, x0: float, order: int, texts: Mapping[str, str] | None = None
) -> str:
    """The graph page's view as notebook JSON: f, f', ..., f^(order) at ``x0`` by nested
    autograd with ``create_graph=True`` (the source of
    :func:`hograd_core.derivatives_script.nested_derivatives`), the nodes of the graph after each pass (as the page
    counts them: every node reachable from f, ..., f^(k)), a chart of that growth, and
    torchviz's drawing of the last derivative when torchviz and Graphviz's ``dot`` are there.

    Returns:
        The notebook as nbformat 4 JSON. Run, it leaves ``values`` and ``nodes`` (one per
        order) and ``grad_fns`` (each derivative's grad_fn type, "" for none).
    """
    note = dict(texts or {})
    own = fn.variables[0] if fn.variables else "x"
    own_names = {"reachable", "nodes", "grad_fns", "make_dot", "shutil", "nested_derivatives"}
    var = python_name(own, _NAMES | own_names)
    parts = [
        ("title", "import shutil\n\nimport plotly.graph_objects as go\nimport torch"),
        (
            "function",
            f"text = {fn.text!r}\n\n\ndef f({var}):\n    return {torch_source(fn, {own: var})}",
        ),
        (
            "passes",
            f"{inspect.getsource(derivatives_script.nested_derivatives)}\n\n"
            f"{_REACHABLE.strip()}\n\n\norder = {int(order)}\n"
            f"{var} = torch.tensor({float(x0)!r}, dtype=torch.float64, requires_grad=True)\n"
            f"derivatives = list(nested_derivatives(f, {var}, order))\n"
            "values = [d.item() for d in derivatives]\n"
            "nodes = [reachable(*derivatives[: k + 1]) for k in range(order + 1)]\n"
            "grad_fns = [type(d.grad_fn).__name__ if d.grad_fn else ''\n"
            "            for d in derivatives]\n"
            "for k in range(order + 1):\n"
            "    print(k, values[k], nodes[k], grad_fns[k])",
        ),
        (
            "growth",
            "fig = go.Figure(go.Scatter(x=list(range(order + 1)), y=nodes, "
            "mode='lines+markers'))\n"
            "fig.update_layout(xaxis_title='order', yaxis_title='nodes', "
            "template='plotly_white')\nfig.show()",
        ),
        (
            "drawing",
            "try:\n    from torchviz import make_dot\nexcept ImportError:\n"
            "    make_dot = None\n"
            "if make_dot is None or shutil.which('dot') is None"
            f" or nodes[-1] > {GRAPH_BUDGET.max_draw}:\n"
            "    print('no drawing: torchviz, Graphviz or a small graph is missing')\n"
            "else:\n"
            f"    display(make_dot(derivatives[-1], params={{{own!r}: {var}}}))",
        ),
    ]
    return _notebook(_cells(note, parts))


# ---- a script in the percent format, cut into cells --------------------------------------------
# A "# %%" line starts a cell (Spyder, VS Code and jupytext read the same format). Twenty lines
# here instead of jupytext: a lab's script has code cells only, and the notebooks' prose comes
# translated from the caller, so jupytext's markdown cells, metadata and round trip go unused.

#: The line that starts a cell; what follows it on the line is the cell's title.
CELL = "# %%"


def percent_cells(source: str) -> list[str]:
    """The code cells of ``source``: the text between its ``# %%`` lines (the marker lines left
    out, as jupytext keeps their titles as metadata), blank cells dropped."""
    cells: list[list[str]] = [[]]
    for line in source.splitlines():
        if line.startswith(CELL):
            cells.append([])
        else:
            cells[-1].append(line)
    return [text for text in ("\n".join(lines).strip("\n") for lines in cells) if text.strip()]


def percent_notebook(
    source: str,
    before: Sequence[tuple[str, str]] = (),
    after: Sequence[tuple[str, str]] = (),
) -> str:
    """``source`` cut by :func:`percent_cells` into code cells, between the ``before`` and
    ``after`` cells: ``("markdown", text)`` or ``("code", text)`` pairs. Returns nbformat 4
    JSON, validated."""
    make = {"markdown": new_markdown_cell, "code": new_code_cell}
    cells = [make[kind](text.strip("\n")) for kind, text in before]
    cells += [new_code_cell(code) for code in percent_cells(source)]
    cells += [make[kind](text.strip("\n")) for kind, text in after]
    return _notebook(cells)
