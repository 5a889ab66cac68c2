"""The pages' numbers as CSV text: the derivative curves, a Hessian, its eigen table, f on a
grid (the HVP page's contour and surface).

Every number is written with ``repr`` (the shortest text that reads back as the same float64),
so a spreadsheet or ``pandas.read_csv`` gets the page's values exactly; an undefined value is
``nan`` and an infinite one ``inf`` or ``-inf``, which pandas and NumPy read back as such.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

import numpy as np

from hograd_core.nested_autograd import DerivativeResult

__all__ = ["curves_csv", "eigen_csv", "grid_csv", "hessian_csv", "order_header"]


def order_header(k: int) -> str:
    """The column name of the k-th derivative: f, f', f'', f''', then f^(4), f^(5), ..."""
    return "f" + "'" * k if k <= 3 else f"f^({k})"


def _text(rows: Sequence[Sequence[object]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for row in rows:
        writer.writerow([repr(float(x)) if isinstance(x, float | np.floating) else x for x in row])
    return out.getvalue()


def curves_csv(result: DerivativeResult) -> str:
    """One row per point: the variable, then f and every derivative up to ``result.order``.

    Example:
        >>> import numpy as np
        >>> from hograd_core import derivatives, parse
        >>> print(curves_csv(derivatives(parse("x**2"), np.array([1.0]), 2)), end="")
        x,f,f',f''
        1.0,1.0,2.0,2.0
    """
    header = [result.variable, *(order_header(k) for k in range(result.order + 1))]
    rows = [
        [float(x), *(float(v) for v in column)]
        for x, column in zip(result.xs, result.values.T, strict=True)
    ]
    return _text([header, *rows])


def hessian_csv(hessian: np.ndarray, names: Sequence[str]) -> str:
    """The Hessian with the variable names along the top and down the first column."""
    matrix = np.asarray(hessian, dtype=np.float64)
    rows = [[name, *(float(x) for x in matrix[i])] for i, name in enumerate(names)]
    return _text([["", *names], *rows])


def eigen_csv(
    eigenvalues: np.ndarray, eigenvectors: np.ndarray, names: Sequence[str], value_label: str
) -> str:
    """One row per eigenvalue (ascending, named e1, e2, ...): the value, then its unit
    eigenvector's components, one column per variable, as the page's table."""
    vectors = np.asarray(eigenvectors, dtype=np.float64)
    rows = [
        [f"e{i + 1}", float(lam), *(float(x) for x in vectors[:, i])]
        for i, lam in enumerate(np.asarray(eigenvalues, dtype=np.float64))
    ]
    return _text([["", value_label, *names], *rows])


def grid_csv(x: np.ndarray, y: np.ndarray, z: np.ndarray, names: Sequence[str]) -> str:
    """One row per grid point, x varying fastest: the two variables, then f (``z[j, i]`` is f
    at ``x[i], y[j]``, as the contour and the surface draw it; nan where f is undefined)."""
    z = np.asarray(z, dtype=np.float64)
    rows = [
        [float(x[i]), float(y[j]), float(z[j, i])] for j in range(len(y)) for i in range(len(x))
    ]
    return _text([[names[0], names[1], "f"], *rows])
