"""The pages' CSV files read back (pandas) to exactly the core's float64 numbers."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd

from hograd_core import derivatives, hvp, parse
from hograd_ui.csv_tables import curves_csv, eigen_csv, hessian_csv, order_header


def test_curves_read_back_exactly_with_nan_and_inf() -> None:
    xs = np.array([-1.0, 0.0, 1e-7, 0.1, 2.0 / 3.0])
    result = derivatives(parse("log(t)"), xs, 4, method="taylor")  # undefined for t <= 0
    table = pd.read_csv(io.StringIO(curves_csv(result)))
    assert list(table.columns) == ["t", "f", "f'", "f''", "f'''", "f^(4)"]
    np.testing.assert_array_equal(table["t"].to_numpy(), xs)
    np.testing.assert_array_equal(table.iloc[:, 1:].to_numpy().T, result.values)  # NaN == NaN
    assert np.isnan(table["f"][0])
    infinite = curves_csv(derivatives(parse("1/x"), [0.0, 1.0], 1, method="taylor"))
    assert not np.isfinite(pd.read_csv(io.StringIO(infinite))["f"][0])


def test_order_headers() -> None:
    assert [order_header(k) for k in (0, 1, 3, 4, 12)] == ["f", "f'", "f'''", "f^(4)", "f^(12)"]


def test_hessian_and_eigen_tables_read_back() -> None:
    r = hvp(parse("x^2*y + exp(y)"), (0.3, -0.2), (1.0, 0.0))
    h = pd.read_csv(io.StringIO(hessian_csv(r.hessian, r.variables)), index_col=0)
    assert list(h.columns) == list(h.index) == ["x", "y"]
    np.testing.assert_array_equal(h.to_numpy(), r.hessian)
    e = pd.read_csv(
        io.StringIO(eigen_csv(r.eigenvalues, r.eigenvectors, r.variables, "λ")), index_col=0
    )
    assert list(e.index) == ["e1", "e2"] and list(e.columns) == ["λ", "x", "y"]
    np.testing.assert_array_equal(e["λ"].to_numpy(), r.eigenvalues)
    vectors = e[["x", "y"]].to_numpy().T  # columns are eigenvectors, as eigh returns them
    np.testing.assert_allclose(r.hessian @ vectors, vectors * e["λ"].to_numpy(), atol=1e-12)
