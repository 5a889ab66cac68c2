"""The derivatives page, driven by widget keys, its numbers checked against the core."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest
import sympy as sp

from hograd_core import derivatives, parse
from tests.app.conftest import open_page
from tests.arrays import plotly_array

X = sp.Symbol("x", real=True)

PAGE = "pages/derivatives.py"


def chart_traces(at, key: str = "deriv.chart") -> list[dict]:  # noqa: ANN001
    import json

    charts = [c for c in at.get("plotly_chart") if json.loads(c.proto.spec).get("data")]
    spec = json.loads(charts[0].proto.spec)
    return spec["data"]


def test_typed_function_and_order_change() -> None:
    at = open_page(PAGE)
    at.text_input(key="deriv.fn").set_value("sin(x)*exp(-x^2)").run()
    assert not at.exception and not at.error
    at.slider(key="deriv.order").set_value(6).run()
    traces = chart_traces(at)
    assert [t["name"] for t in traces] == ["f", "f′", "f″", "f‴", "f⁽⁴⁾", "f⁽⁵⁾", "f⁽⁶⁾"]
    # the chart's numbers are the core's numbers
    xs = np.linspace(-3, 3, 1000)
    want = derivatives(parse("sin(x)*exp(-x^2)"), xs, 6, method="taylor").values
    for k, trace in enumerate(traces):
        np.testing.assert_allclose(plotly_array(trace["y"]), want[k], rtol=1e-12)
    assert any("\\sin" in latex.value for latex in at.latex)


def inspected(text: str, order: int, x0: float):  # noqa: ANN201
    """The page with ``text`` typed, the order set and the inspector moved to ``x0``."""
    at = open_page(PAGE)
    at.text_input(key="deriv.fn").set_value(text).run()
    at.slider(key="deriv.order").set_value(order).run()
    at.slider(key="deriv.x0").set_value(x0).run()
    return at


def test_inspector_table_agrees_with_sympy_and_autograd() -> None:
    at = inspected("tanh(x)", 5, 0.5)
    frame = at.dataframe[0].value
    assert list(frame.iloc[:, 0]) == [0, 1, 2, 3, 4, 5]
    taylor, autograd, exact = frame.iloc[:, 1], frame.iloc[:, 2], frame.iloc[:, 3]
    np.testing.assert_allclose(taylor, exact, rtol=1e-9)
    np.testing.assert_allclose(autograd, exact, rtol=1e-9)
    assert exact[1] == pytest.approx(1 - math.tanh(0.5) ** 2, rel=1e-12)


def test_sympy_and_autograd_work_in_the_background_and_the_page_says_so(monkeypatch) -> None:  # noqa: ANN001
    """A run waits for neither sympy nor nested autograd: the table comes at once with
    Taylor mode's and the finite differences' columns, a dash in each cell not yet computed
    and a note for each column still on its way; once both are done, the next run (the one
    the page's poll starts) fills them in."""
    from hograd_serving import cached as _cached

    monkeypatch.setattr(_cached, "WAIT", 0.0)
    text = "sin(x)*exp(-x^2/3)"  # no other test types it: nothing is known of it yet
    at = inspected("x**2", 4, 0.5)
    at.text_input(key="deriv.fn").set_value(text).run()  # one run of it, at order 4, x0 0.5
    frame = at.dataframe[0].value
    assert frame.iloc[:, 3].isna().all() and frame.iloc[:, 2].isna().all()  # sympy, autograd
    assert not frame.iloc[:, 1].isna().any() and not frame.iloc[:, 4].isna().any()
    assert any("still working" in i.value and "of 5 orders" in i.value for i in at.info)
    assert any("Nested autograd is still building" in i.value for i in at.info)
    assert at.dataframe[0].proto.placeholder == "—"  # not computed yet: a dash, not "None"
    # what the poll waits for
    assert not _cached.sympy_part(text, 4, 0.5, wait=60).working
    assert not _cached.autograd_part(text, 0.5, 4, wait=60).working
    monkeypatch.setattr(_cached, "WAIT", 1.0)  # the server's 0.025 s, with a margin
    at.run()
    frame = at.dataframe[0].value
    exact, autograd = frame.iloc[:, 3], frame.iloc[:, 2]
    assert not exact.isna().any() and not autograd.isna().any()
    assert not any("still" in i.value for i in at.info)
    want = [sp.diff(sp.sin(X) * sp.exp(-(X**2) / 3), X, k).subs(X, 0.5) for k in range(5)]
    np.testing.assert_allclose(exact, [float(w) for w in want], rtol=1e-12)
    np.testing.assert_allclose(autograd, [float(w) for w in want], rtol=1e-10)


def test_code_snippet_runs_and_reproduces_the_inspector() -> None:
    at = inspected("x*sin(1/x) + e**x", 4, 1.25)
    frame = at.dataframe[0].value
    at.session_state["deriv.tab"] = "code"  # tabs compute only the open one (lazy_tabs)
    at.run()
    assert not at.dataframe  # the inspector is not built behind the code tab
    snippet = next(c.value for c in at.code if "torch.autograd.grad" in c.value)
    out = subprocess.run(
        [sys.executable, "-c", snippet], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    printed = [float(line.split()[1]) for line in out.stdout.splitlines()]
    np.testing.assert_allclose(printed, frame.iloc[:, 2], rtol=1e-12)


def test_constant_derivative_is_explained_in_both_languages() -> None:
    for lang, phrase in (("en", "exactly 0"), ("zh", "恰好是 0")):
        at = open_page(PAGE, lang)
        at.text_input(key="deriv.fn").set_value("2*x").run()
        at.radio(key=f"deriv.method.{lang}").set_value("autograd").run()
        assert any(phrase in info.value and "grad_fn" in info.value for info in at.info)


def test_bad_function_shows_error_and_echoes_as_code() -> None:
    at = open_page(PAGE)
    text = "![x](http://evil.example/a.png) <script>"
    at.text_input(key="deriv.fn").set_value(text).run()
    assert not at.exception
    assert at.error and "column" in at.error[0].value
    assert [c.value for c in at.code] == [text]
    assert not at.get("plotly_chart")


def test_function_undefined_on_the_whole_range() -> None:
    at = open_page(PAGE)
    at.text_input(key="deriv.fn").set_value("log(x)").run()
    at.slider(key="deriv.range").set_value((-5.0, -1.0)).run()
    assert at.error and "undefined" in at.error[0].value
    at.slider(key="deriv.range").set_value((-1.0, 3.0)).run()
    assert not at.error
    assert any("undefined" in w.value for w in at.warning)  # the gap is explained


def test_two_variables_are_refused_with_a_message() -> None:
    at = open_page(PAGE, "zh")
    at.text_input(key="deriv.fn").set_value("x*y").run()
    assert at.error and "单变量" in at.error[0].value


def test_autograd_order_is_capped_and_taylor_allows_30() -> None:
    at = open_page(PAGE)
    at.slider(key="deriv.order").set_value(30).run()
    assert len(chart_traces(at)) == 31
    at.radio(key="deriv.method.en").set_value("autograd").run()
    assert at.slider(key="deriv.order").value == 10
    assert at.slider(key="deriv.order").max == 10


def test_cost_panel_measures_on_demand() -> None:
    at = open_page(PAGE)
    at.text_input(key="deriv.fn").set_value("tanh(x)").run()
    at.slider(key="deriv.order").set_value(6).run()
    at.session_state["deriv.tab"] = "cost"
    at.run()
    assert any("graph nodes" in m.value for m in at.markdown)  # the estimate comes first
    at.button(key="deriv.cost.run").click().run()
    assert not at.exception
    assert any(
        c.key == "deriv.cost.chart" or "time to reach" in c.proto.spec
        for c in at.get("plotly_chart")
    )


def test_a_typo_keeps_the_other_settings() -> None:
    """Streamlit forgets widgets a run does not draw; the controls are drawn before stopping."""
    at = open_page(PAGE)
    at.select_slider(key="deriv.points").set_value(5000).run()
    at.slider(key="deriv.order").set_value(7).run()
    at.text_input(key="deriv.fn").set_value("sin(").run()
    assert at.error
    at.text_input(key="deriv.fn").set_value("sin(x)").run()
    assert not at.error
    assert at.select_slider(key="deriv.points").value == 5000
    assert at.slider(key="deriv.order").value == 7


def test_tabs_compute_only_the_open_one_and_keep_it_across_a_language_switch() -> None:
    at = open_page(PAGE)
    at.text_input(key="deriv.fn").set_value("sin(x)*exp(-x^2)").run()
    assert at.dataframe and len(at.get("plotly_chart")) == 1  # inspector open, no Taylor chart
    at.session_state["deriv.tab"] = "taylor"
    at.run()
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert len(charts) == 2 and not at.dataframe
    assert charts[1]["data"][1]["name"].startswith("Taylor")
    at.session_state["deriv.tab"] = "symbolic"
    at.run()
    assert sum("f'" in x.value for x in at.latex) >= 1  # sympy's formulas, f' onwards
    at.session_state["lang"] = "zh"
    at.run()
    assert not at.exception and at.session_state["deriv.tab"] == "symbolic"
    assert sum("f'" in x.value for x in at.latex) >= 1 and not at.dataframe  # still open
