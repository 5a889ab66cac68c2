"""A tab of "Why gradients of gradients" as a Jupyter notebook: its script, cut into cells,
then the tab's figure with plotly.

The code cells are the tab's own generated script (the ``Code.source`` of
``hograd_core.applications.*_code``), cut where the script leaves two blank lines (between its
imports, its functions and its main part), so the notebook runs exactly what the ``.py``
download runs. The main part, last, starts with ``%%capture run``: IPython keeps what it prints
(``name value value ...`` lines) in ``run``, the next cell reads those lines into ``printed``
(one list per name, numbers as floats), and the last cell draws the tab's figure from
``printed`` and the script's variables. Prose comes from the caller in its own language, keyed
by :data:`WHY_TEXTS`; a missing key leaves its cell out. Typed text (a function a tab was given)
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

#: Each tab's figure cell, and the settings it needs besides the script (given by the caller).
FIGURES: dict[str, tuple[str, tuple[str, ...]]] = {}


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
        source: the tab's generated script, as the ``.py`` download holds it.
        texts: the prose cells by the keys of :data:`WHY_TEXTS`.
        text: a function as typed; written as a string literal, never prose.
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
