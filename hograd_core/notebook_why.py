"""A tab of "Why gradients of gradients" as a Jupyter notebook: its script, cut into cells,
then the tab's figure with plotly.

The code cells are the tab's own generated script (the ``Code.source`` of
``hograd_core.applications.*_code``), cut where the script leaves two blank lines (between its
imports, its functions and its main part), so the notebook runs exactly what the ``.py``
download runs. The main part, last, starts with ``%%capture run``: IPython keeps what it prints
(``name value value ...`` lines) in ``run``, the next cell reads those lines into ``printed``
(one list per name, numbers as floats), and the last cell draws the tab's figure from
``printed`` and the script's variables. Prose comes from the caller in its own language, keyed
by :data:`WHY_TEXTS`; a missing key leaves its cell out. Typed text (the Newton tab's function)
appears only in code, as a Python string literal.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from .errors import ArgumentError
from .notebook import _cells, _notebook

__all__ = ["FIGURES", "WHY_TEXTS", "script_cells", "why_notebook"]

#: Prose cells, in order: "title" and "figure" are the tab's own, the others say how the
#: notebook is built ("text" only where a function was typed).
WHY_TEXTS: tuple[str, ...] = ("title", "text", "script", "run", "results", "figure")

_PRINTED = """
print(run.stdout, end="")  # what the script printed, as it would in a terminal


def number_or_word(word):
    try:
        return float(word)  # "nan" and "inf" too
    except ValueError:
        return word  # "diverged", "singular", "at", "step"


printed = {}
for line in run.stdout.splitlines():  # each line: a name, then its values
    if line.strip():
        head, *words = line.split()
        printed[head] = [number_or_word(word) for word in words]
list(printed)
"""

_NEWTON = """
import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

rows, ends = [], []
for method, words in printed.items():
    if isinstance(words[0], str):  # "diverged at step n" or "singular at step n"
        rows.append([method, f"{words[0]} ({int(words[-1])})", "", "", ""])
    else:
        steps, x_end, y_end, f_end = words
        rows.append([method, int(steps), f"{x_end:.6g}", f"{y_end:.6g}", f"{f_end:.6g}"])
        ends.append((method, x_end, y_end))
corners = np.array([start] + [(x_end, y_end) for _, x_end, y_end in ends])
low, high = corners.min(axis=0), corners.max(axis=0)
pad = np.maximum(0.25 * (high - low), 0.5)
a = torch.linspace(low[0] - pad[0], high[0] + pad[0], 121, dtype=torch.float64)
b = torch.linspace(low[1] - pad[1], high[1] + pad[1], 121, dtype=torch.float64)
X, Y = torch.meshgrid(a, b, indexing="xy")
with torch.no_grad():  # f acts point by point: one call for the whole grid
    Z = torch.broadcast_to(f(torch.stack([X, Y])), X.shape)
fig = make_subplots(rows=1, cols=2, column_widths=[0.45, 0.55],
                    specs=[[{"type": "table"}, {"type": "xy"}]])
fig.add_trace(go.Table(header={"values": ["method", "steps", "x", "y", "f"]},
                       cells={"values": [list(c) for c in zip(*rows)]}), row=1, col=1)
fig.add_trace(go.Contour(x=a.numpy(), y=b.numpy(), z=Z.numpy(), ncontours=30,
                         showscale=False), row=1, col=2)
fig.add_scatter(x=[start[0]], y=[start[1]], mode="markers", name="start",
                marker={"size": 12, "color": "black"}, row=1, col=2)
for method, x_end, y_end in ends:
    fig.add_scatter(x=[x_end], y=[y_end], mode="markers", name=method,
                    marker={"size": 10, "symbol": "x"}, row=1, col=2)
fig.update_layout(template="plotly_white", height=450)
fig.show()
"""

_HF = """
import plotly.graph_objects as go

fig = go.Figure(go.Scatter(y=printed["hf"], mode="lines+markers", name="Hessian-free"))
fig.update_layout(xaxis_title="Hessian-free step", yaxis_title="training loss",
                  yaxis_type="log", template="plotly_white")
fig.show()
"""

_QUADRATIC = """
import plotly.graph_objects as go

lambda_max = printed["lambda_max"][0]
fig = go.Figure(go.Scatter(y=printed["loss"], mode="lines", name="f(w)"))
fig.update_layout(title=f"λ_max = {lambda_max:.6g}, 2 / λ_max = {2 / lambda_max:.6g}",
                  xaxis_title="step", yaxis_title="f", yaxis_type="log",
                  template="plotly_white")
fig.show()
"""

_STABILITY = """
import plotly.graph_objects as go
from plotly.subplots import make_subplots

fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08)
fig.add_scatter(y=printed["loss"], mode="lines", name="loss", row=1, col=1)
measured = [every * i for i in range(len(printed["sharpness"]))]  # the steps that measured
fig.add_scatter(x=measured, y=printed["sharpness"], mode="lines+markers", name="λ_max",
                row=2, col=1)
fig.add_hline(y=2 / lr, line_dash="dash", annotation_text="2 / lr", row=2, col=1)
fig.update_yaxes(type="log", title_text="loss", row=1, col=1)
fig.update_yaxes(title_text="λ_max", row=2, col=1)
fig.update_xaxes(title_text="step", row=2, col=1)
fig.update_layout(template="plotly_white", height=550)
fig.show()
"""

#: Each tab's figure cell, and the settings it needs besides the script (given by the caller).
FIGURES: dict[str, tuple[str, tuple[str, ...]]] = {
    "newton": (_NEWTON, ("start",)),
    "hf": (_HF, ()),
    "quadratic": (_QUADRATIC, ()),
    "stability": (_STABILITY, ("lr", "every")),
}


def script_cells(source: str) -> list[str]:
    """``source`` cut where it leaves two blank lines: imports, each function, the main part."""
    return [part.strip("\n") for part in source.split("\n\n\n") if part.strip()]


def _literal(name: str, value: object, choice: bool = True) -> str:
    """``value`` as Python source: a finite number, a tuple of them, or (a choice name) a
    string literal."""
    if isinstance(value, str) and choice:
        return repr(value)
    if isinstance(value, tuple) and choice:
        items = [_literal(name, v, choice=False) for v in value]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ArgumentError("why.nb.setting", name=name)
    return repr(int(value)) if isinstance(value, int) else repr(float(value))


def why_notebook(
    kind: str,
    source: str,
    texts: Mapping[str, str] | None = None,
    text: str | None = None,
    **settings: object,
) -> str:
    """The tab ``kind`` (a key of :data:`FIGURES`) as notebook JSON: its script ``source`` cut
    by :func:`script_cells`, the printed lines read back, and the tab's figure.

    Args:
        kind: the figure to draw ("newton", "hf", "quadratic", "stability").
        source: the tab's generated script, as the ``.py`` download holds it.
        texts: the prose cells by the keys of :data:`WHY_TEXTS`.
        text: the function as typed (Newton tab); written as a string literal, never prose.
        **settings: what the figure needs besides the script (``FIGURES[kind][1]``):
            numbers, tuples of numbers, or choice names.

    Returns:
        The notebook as nbformat 4 JSON. Run, it leaves ``printed`` (the script's lines by
        name) and ``fig`` (the figure), besides the script's own variables.

    Raises:
        ArgumentError: an unknown kind, a missing or non-finite setting.
    """
    if kind not in FIGURES:
        raise ArgumentError("why.nb.kind", kind=kind)
    figure, needs = FIGURES[kind]
    missing = [name for name in needs if name not in settings]
    if missing:
        raise ArgumentError("why.nb.setting", name=missing[0])
    *head, main = script_cells(source)
    head_cells = [("script" if i == 0 else "", code) for i, code in enumerate(head)]
    lines = [f"{name} = {_literal(name, settings[name])}  # the page's" for name in needs]
    imports, drawing = figure.strip().split("\n\n", 1)
    parts = [
        ("title", None),
        ("text" if text is not None else "", None if text is None else f"text = {text!r}"),
        *head_cells,
        ("run", "%%capture run\n" + main),
        ("results", _PRINTED.strip()),
        ("figure", imports + ("\n\n" + "\n".join(lines) if lines else "") + "\n\n" + drawing),
    ]
    return _notebook(_cells(dict(texts or {}), parts))
