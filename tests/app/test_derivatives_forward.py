"""The cost tab's forward-mode comparison (issue 40, point 5): on a click, the four routes to
f⁽ⁿ⁾ for the typed function, their agreement with nested reverse mode, time and saved bytes
per order, in English and Chinese. The oracle for the numbers is sympy's derivative at the
same points (hograd_core.forward_mode computes them; tests/core/test_forward_mode.py checks
each route against sympy too)."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from hograd_core.forward_mode import FORWARD_BUDGET
from hograd_labs.derivatives.cached import FORWARD_POINTS, forward_routes
from hograd_ui.i18n import tr
from tests.app.charts import chart_elements
from tests.app.conftest import open_page

PAGE = "pages/derivatives.py"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_four_routes_agree_and_are_drawn(lang: str) -> None:
    at = open_page(PAGE, lang)
    at.text_input(key="deriv.fn").set_value("sin(x)*exp(x/3)").run()
    at.slider(key="deriv.order").set_value(5).run()
    at.session_state["deriv.tab"] = "cost"
    at.run()
    assert tr("deriv.forward.title", lang) in [h.value for h in at.subheader]
    assert not any(b"Seconds per order" in c.proto.bytes for c in chart_elements(at))  # a click
    at.button(key="deriv.forward.run").click().run()
    assert not at.exception, [e.value for e in at.exception]
    table = at.table[-1].value if at.table else at.dataframe[-1].value
    assert list(table.iloc[:, 0]) == list(range(6))
    for column in table.columns[1:]:  # jvp, dual numbers, Taylor against nested reverse
        assert all(float(v) < 1e-9 for v in table[column])
    assert tr("deriv.forward.how", lang, jvp=FORWARD_BUDGET.max_order_jvp) in [
        c.value for c in at.caption
    ]
    title = tr("deriv.forward.time_title", lang, points=f"{FORWARD_POINTS:,}")
    assert any(title.encode() in c.proto.bytes for c in chart_elements(at))


def test_the_routes_values_are_sympys() -> None:
    """What the tab compares: every route's f⁽ᵏ⁾ equals sympy's at the same points."""
    costs = forward_routes("sin(x)*exp(x/3)", 5, -2.0, 2.0)
    x = sp.Symbol("x")
    f = sp.sin(x) * sp.exp(x / 3)
    xs = np.linspace(-2.0, 2.0, FORWARD_POINTS)
    for k in range(6):
        exact = sp.lambdify(x, sp.diff(f, x, k), "numpy")(xs)
        for route in costs.routes:
            np.testing.assert_allclose(costs.values[route][k], exact, rtol=1e-10, atol=1e-12)
    assert costs.saved_bytes["jvp"][3] == 0 < costs.saved_bytes["reverse"][3]
