"""The derivatives page, driven by widget keys, its numbers checked against the core."""

from __future__ import annotations

import math
import re
import subprocess
import sys
import threading

import numpy as np
import pytest
import sympy as sp

from hograd_core import derivatives, parse
from hograd_core.exact_view import SympyView
from hograd_labs.derivatives.chart import order_label
from hograd_ui.i18n import tr
from tests.app.charts import chart_elements, figure_of
from tests.app.conftest import open_page
from tests.arrays import plotly_array

X = sp.Symbol("x", real=True)

PAGE = "pages/derivatives.py"


def chart_traces(at, key: str = "deriv.chart", marker: bool = False) -> list[dict]:
    """The curves of the main chart (and, with ``marker``, the legend entry of the x0 line)."""
    charts = [c for c in chart_elements(at) if figure_of(c).get("data")]
    spec = figure_of(charts[0])
    return [d for d in spec["data"] if marker or d.get("legendgroup") != "x0"]


def test_typed_function_and_order_change() -> None:
    at = open_page(PAGE)
    at.text_input(key="deriv.fn").set_value("sin(x)*exp(-x^2)").run()
    assert not at.exception and not at.error
    at.slider(key="deriv.order").set_value(6).run()
    *traces, marker = chart_traces(at, marker=True)  # the last: the entry of the line at x0
    assert [t["name"] for t in traces] == ["f", "f′", "f″", "f‴", "f⁽⁴⁾", "f⁽⁵⁾", "f⁽⁶⁾"]
    assert marker["name"] == tr("deriv.chart.x0", var="x", x0="0.5")
    # the chart's numbers are the core's numbers
    xs = np.linspace(-3, 3, 1000)
    want = derivatives(parse("sin(x)*exp(-x^2)"), xs, 6, method="taylor").values
    for k, trace in enumerate(traces):
        np.testing.assert_allclose(plotly_array(trace["y"]), want[k], rtol=1e-12)
    assert any("\\sin" in latex.value for latex in at.latex)


_CELLS = {"∞": math.inf, "-∞": -math.inf, "NaN": math.nan}


def numeric(frame):
    """The inspector's table as numbers: its cells are text ("∞", "-∞", "NaN", "—" for a
    value not computed), so that no front-end formatting can change a sign."""
    return frame.map(lambda v: math.nan if v in (None, "—") else _CELLS.get(v, v)).apply(
        lambda column: column.astype(float)
    )


def inspected(text: str, order: int, x0: float):
    """The page with ``text`` typed, the order set and the inspector moved to ``x0``."""
    at = open_page(PAGE)
    at.text_input(key="deriv.fn").set_value(text).run()
    at.slider(key="deriv.order").set_value(order).run()
    at.slider(key="deriv.x0").set_value(x0).run()
    return at


def test_inspector_table_agrees_with_sympy_and_autograd() -> None:
    at = inspected("tanh(x)", 5, 0.5)
    frame = numeric(at.table[0].value)
    assert list(frame.iloc[:, 0]) == [0, 1, 2, 3, 4, 5]
    taylor, autograd, exact = frame.iloc[:, 1], frame.iloc[:, 2], frame.iloc[:, 3]
    np.testing.assert_allclose(taylor, exact, rtol=1e-9)
    np.testing.assert_allclose(autograd, exact, rtol=1e-9)
    assert exact[1] == pytest.approx(1 - math.tanh(0.5) ** 2, rel=1e-11)  # 12 digits shown


def test_sympy_and_autograd_work_in_the_background_and_the_page_says_so(monkeypatch) -> None:
    """A run waits for neither sympy nor nested autograd: the table comes at once with
    Taylor mode's and the finite differences' columns, a dash in each cell not yet computed
    and a note for each column still on its way; once both are done, the next run (the one
    the page's poll starts) fills them in."""
    from hograd_labs.derivatives import cached as _cached

    # Until `released`, neither background column answers (as when the work takes longer than
    # the run waits): a small function can be done within the run's own few milliseconds.
    released = threading.Event()
    sympy_ask, autograd_ask = _cached.SYMPY.ask, _cached.AUTOGRAD.ask
    nothing_yet = SympyView(working=True)  # nothing of this function known yet, still working
    monkeypatch.setattr(
        _cached.SYMPY,
        "ask",
        lambda *a, **k: sympy_ask(*a, **k) if released.is_set() else nothing_yet,
    )
    monkeypatch.setattr(
        _cached.AUTOGRAD,
        "ask",
        lambda *a, **k: autograd_ask(*a, **k) if released.is_set() else None,
    )
    monkeypatch.setattr(_cached, "WAIT", 0.0)
    text = "sin(x)*exp(-x^2/3)"  # no other test types it: nothing is known of it yet
    at = inspected("x**2", 4, 0.5)
    at.text_input(key="deriv.fn").set_value(text).run()  # one run of it, at order 4, x0 0.5
    frame = at.table[0].value
    assert (frame.iloc[:, 3] == "—").all() and (frame.iloc[:, 2] == "—").all()  # sympy, autograd
    assert "—" not in set(frame.iloc[:, 1]) | set(frame.iloc[:, 4])
    assert any("still working" in i.value and "of 5 orders" in i.value for i in at.info)
    assert any("Nested autograd is still building" in i.value for i in at.info)
    released.set()
    # what the poll waits for
    assert not _cached.sympy_part(text, 4, 0.5, wait=60).working
    assert not _cached.autograd_part(text, 0.5, 4, wait=60).working
    monkeypatch.setattr(_cached, "WAIT", 1.0)  # the server's 0.025 s, with a margin
    at.run()
    frame = numeric(at.table[0].value)
    exact, autograd = frame.iloc[:, 3], frame.iloc[:, 2]
    assert not exact.isna().any() and not autograd.isna().any()
    assert not any("still" in i.value for i in at.info)
    want = [sp.diff(sp.sin(X) * sp.exp(-(X**2) / 3), X, k).subs(X, 0.5) for k in range(5)]
    np.testing.assert_allclose(exact, [float(w) for w in want], rtol=1e-11)  # 12 digits shown
    np.testing.assert_allclose(autograd, [float(w) for w in want], rtol=1e-10)


def test_code_snippet_runs_and_reproduces_the_inspector() -> None:
    at = inspected("x*sin(1/x) + e**x", 4, 1.25)
    frame = numeric(at.table[0].value)
    at.session_state["deriv.tab"] = "code"  # tabs compute only the open one (lazy_tabs)
    at.run()
    assert not at.table  # the inspector is not built behind the code tab
    snippet = next(c.value for c in at.code if "torch.autograd.grad" in c.value)
    out = subprocess.run(
        [sys.executable, "-c", snippet], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    printed = [float(line.split()[1]) for line in out.stdout.splitlines()]
    np.testing.assert_allclose(printed, frame.iloc[:, 2], rtol=1e-11)  # the table shows 12 digits


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
    assert [c.value for c in at.main.code] == [text]  # (the sidebar's share box has the link)
    assert not chart_elements(at)


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


def test_switching_method_keeps_the_order_and_says_when_taylor_mode_takes_over() -> None:
    """Order 30 stays 30 through a switch of method and back (it used to drop to 10 for good);
    above nested autograd's limit the page says it uses Taylor mode, and why."""
    at = open_page(PAGE)
    at.slider(key="deriv.order").set_value(30).run()
    assert len(chart_traces(at)) == 31
    assert any("stops at order 10" in i.value and "Taylor mode" in i.value for i in at.info)
    at.radio(key="deriv.method.en").set_value("taylor").run()
    assert at.slider(key="deriv.order").value == 30
    assert not any("stops at order 10" in i.value for i in at.info)
    at.radio(key="deriv.method.en").set_value("autograd").run()
    assert at.slider(key="deriv.order").value == 30 and len(chart_traces(at)) == 31
    at.slider(key="deriv.order").set_value(10).run()
    assert not any("stops at order 10" in i.value for i in at.info)
    assert any("Nested autograd (PyTorch)" in c.value for c in at.caption)


def test_cost_panel_measures_on_demand() -> None:
    at = open_page(PAGE)
    at.text_input(key="deriv.fn").set_value("tanh(x)").run()
    at.slider(key="deriv.order").set_value(6).run()
    at.session_state["deriv.tab"] = "cost"
    at.run()
    assert any("graph nodes" in m.value for m in at.markdown)  # the estimate comes first
    at.button(key="deriv.cost.run").click().run()
    assert not at.exception
    assert any(b"time to reach" in c.proto.bytes for c in chart_elements(at))


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
    assert at.table and len(chart_elements(at)) == 1  # inspector open, no Taylor chart
    at.session_state["deriv.tab"] = "taylor"
    at.run()
    charts = [figure_of(c) for c in chart_elements(at)]
    assert len(charts) == 2 and not at.table
    assert charts[1]["data"][1]["name"].startswith("Taylor")
    at.session_state["deriv.tab"] = "symbolic"
    at.run()
    assert sum("f'" in x.value for x in at.latex) >= 1  # sympy's formulas, f' onwards
    at.radio(key="lang").set_value("zh")  # the sidebar's switch, as a reader uses it
    at.run()
    assert not at.exception and at.session_state["deriv.tab"] == "symbolic"
    assert sum("f'" in x.value for x in at.latex) >= 1 and not at.table  # still open


# ---- issue 14: every statement true, every number right ---------------------------------------


def _warnings(at) -> str:
    return " ".join(w.value for w in at.warning)


def test_the_page_opens_on_nested_autograd_and_shows_its_graph() -> None:
    """The chart comes from nested torch.autograd.grad, as the home page says; the caption
    gives the graph's node counts per order (x**3: 2, 5, 8, 11, 11)."""
    at = open_page(PAGE)
    assert at.session_state["deriv.method"] == "autograd"
    captions = " ".join(c.value for c in at.caption)
    assert "by Nested autograd (PyTorch)" in captions
    assert "after each order: 2, 5, 8, 11, 11" in captions
    xs = np.linspace(-3, 3, 1000)
    want = derivatives(parse("x**3"), xs, 4).values  # method="autograd"
    for k, trace in enumerate(chart_traces(at)):
        np.testing.assert_array_equal(plotly_array(trace["y"]), want[k])


def test_over_the_node_budget_the_page_switches_and_says_why_in_both_languages() -> None:
    for lang, words in (
        ("en", ["graph nodes", "Until then", "Taylor mode"]),
        ("zh", ["计算图节点", "在此之前", "Taylor 模式"]),
    ):
        at = open_page(PAGE, lang)
        at.text_input(key="deriv.fn").set_value("log(1+x^2)").run()
        at.slider(key="deriv.order").set_value(10).run()
        info = " ".join(i.value for i in at.info)
        assert all(w in info for w in words), info
        assert len(chart_traces(at)) == 11 and not at.error


def test_a_long_paste_is_refused_with_the_limit_named() -> None:
    """The box takes the text (its max_chars is well above the parser's limit: the browser
    drops a longer paste without a word); the parser refuses it, naming the 200-character
    limit."""
    at = open_page(PAGE)
    box = at.text_input(key="deriv.fn")
    assert box.proto.max_chars >= 300
    box.input("x+" * 150).run()  # as the browser types it; refused there with max_chars=200
    assert at.error and "at most 200 characters, got 300" in at.error[0].value


def test_inspector_shows_the_signs_of_infinities_and_nan_as_nan() -> None:
    """sqrt(x) at 0: the core gives 0, inf, -inf, inf; the table says ∞, -∞, ∞ in both method
    columns, and sympy's NaN is NaN, not a blank or a dash."""
    at = inspected("sqrt(x)", 3, 0.0)
    frame = at.table[0].value
    assert list(frame.iloc[:, 1]) == ["0", "∞", "-∞", "∞"]
    assert list(frame.iloc[:, 2]) == ["0", "∞", "-∞", "∞"]
    assert list(frame.iloc[1:, 3]) == ["NaN", "NaN", "NaN"]
    assert "sqrt(x)" in _warnings(at) and "not derivatives" in _warnings(at)


def test_a_nan_disagreement_is_flagged() -> None:
    """sqrt(x^2) at 0: nested autograd NaN, sympy 0. The old test used '>' and missed it."""
    at = inspected("sqrt(x^2)", 2, 0.0)
    text = _warnings(at)
    assert "order 1, nested autograd NaN but sympy (exact) 0" in text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_zeros_that_are_not_exact_are_named(lang: str) -> None:
    """tanh(20x) at 2.44 is tanh at 48.8: f' = 20 (1 - tanh²) = 3.3e-41. Taylor mode has it;
    nested autograd's 1 - y² and sympy's 30 digits give 0, and the page says so (issue 46)."""
    at = open_page(PAGE, lang)
    at.text_input(key="deriv.fn").set_value("tanh(20*x)").run()
    at.slider(key="deriv.x0").set_value(2.44).run()
    frame = numeric(at.table[0].value)
    assert frame.iloc[1, 1] == pytest.approx(80 * math.exp(-97.6), rel=1e-9)  # Taylor mode
    assert frame.iloc[1, 2] == 0.0  # nested autograd
    methods = ("、" if lang == "zh" else ", ").join(
        tr(f"deriv.col.{m}", lang) for m in ("autograd", "sympy")
    )
    item = tr("deriv.underflow.item", lang, k=1, methods=methods, truth=f"{frame.iloc[1, 1]:.12g}")
    assert any(item in info.value for info in at.info), [i.value for i in at.info]


def test_abs_cubed_has_its_true_second_derivative_in_every_column() -> None:
    at = inspected("abs(x)**3", 3, 0.0)
    frame = at.table[0].value
    assert list(frame.iloc[2, 1:4]) == ["0", "0", "0"]  # 6|x| at 0; sympy's was NaN


@pytest.mark.parametrize(
    ("text", "rule"), [("abs(x)", "abs′(0) = sign(0) = 0"), ("relu(x)", "relu′(0) = 0")]
)
def test_a_kink_is_named_with_its_convention(text: str, rule: str) -> None:
    """At 0, f″ = 0 beside a finite difference in the thousands: the page says these values
    are PyTorch's convention, not derivatives, and that the finite difference sees the kink."""
    at = inspected(text, 2, 0.0)
    frame = at.table[0].value
    assert float(frame.iloc[2, 4]) > 1000  # the finite difference
    warnings = _warnings(at)
    assert rule in warnings and "PyTorch's convention" in warnings and "kink" in warnings
    at.radio(key="lang").set_value("zh")  # the sidebar's switch, as a reader uses it
    at.run()
    assert "约定" in _warnings(at) and "折点" in _warnings(at)


def test_a_pole_keeps_the_chart_readable_and_is_named() -> None:
    at = open_page(PAGE)
    at.text_input(key="deriv.fn").set_value("1/x").run()
    spec = figure_of(next(c for c in chart_elements(at)))
    low, high = spec["layout"]["yaxis"]["range"]
    assert high - low < 1e6  # the uncut axis reached 1e14 at order 4
    note = " ".join(i.value for i in at.info)
    assert "y-axis is cut" in note and "[-0." in note


def test_the_taylor_tab_gives_the_radius_of_convergence() -> None:
    at = inspected("1/(1+x^2)", 8, 0.5)
    at.session_state["deriv.tab"] = "taylor"
    at.run()
    info = " ".join(i.value for i in at.info)
    assert "R ≈ 1.118" in info and "estimate from the first 60" in info  # |0.5 ± i|
    assert "hold on for longer" not in " ".join(c.value for c in at.caption)
    at.text_input(key="deriv.fn").set_value("sin(x)").run()
    assert any("converges for every x" in i.value for i in at.info)


def test_the_cost_tab_measures_on_the_students_range() -> None:
    at = open_page(PAGE)
    at.text_input(key="deriv.fn").set_value("tanh(x)").run()
    at.slider(key="deriv.range").set_value((-1.5, 2.0)).run()
    at.session_state["deriv.tab"] = "cost"
    at.run()
    at.button(key="deriv.cost.run").click().run()
    chart = next(c for c in chart_elements(at) if b"time to reach" in c.proto.bytes)
    spec = figure_of(chart)
    assert "-1.5 to 2" in spec["layout"]["annotations"][0]["text"]
    names = [t["name"] for t in spec["data"]]
    assert any("median of" in n for n in names) and "sympy diff (one run)" in names
    assert any("median of" in c.value and "cache" in c.value for c in at.caption)


# ---- x0 exactly (issue 36, item 15) -----------------------------------------------------
# The oracle is the seed example: f = x³ at x0 = 2 has f′ = 3·2² = 12 and f″ = 6·2 = 12.


def _typed_x0(text: str, lang: str = "en"):
    at = open_page(PAGE, lang)
    at.text_input(key="deriv.fn").set_value("x**3").run()
    at.text_input(key="deriv.x0.exact").input(text).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("text", ["2", "2.0", "２", "2,0", "4/2", "sqrt(4)"])
def test_x0_typed_exactly_gives_the_seeds_12_and_12(text: str, lang: str) -> None:
    at = _typed_x0(text, lang)
    assert at.slider(key="deriv.x0").value == 2.0
    frame = numeric(at.table[0].value)
    for column in (1, 2, 3):  # Taylor, autograd, sympy
        assert frame.iloc[1, column] == pytest.approx(12, abs=1e-12)
        assert frame.iloc[2, column] == pytest.approx(12, abs=1e-12)
    assert at.query_params["deriv.x0"] in ("2", "2.0")  # the link carries it
    # the main chart marks x0: a vertical line at 2 on the chart of f and its derivatives
    spec = figure_of([c for c in chart_elements(at) if figure_of(c).get("data")][0])
    lines = [s for s in spec["layout"]["shapes"] if s["type"] == "line"]
    assert lines and all(s["x0"] == s["x1"] == 2.0 for s in lines)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("text", ["\u22121.5", "-1.5", "－１.５", "-3/2"])
def test_a_negative_x0_keeps_its_sign(text: str, lang: str) -> None:
    at = _typed_x0(text, lang)
    frame = numeric(at.table[0].value)
    assert frame.iloc[1, 3] == pytest.approx(3 * 1.5**2)  # f′ = 3x² = 6.75
    assert frame.iloc[2, 3] == pytest.approx(-9.0)  # f″ = 6x: the sign of x0 kept


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(
    ("text", "key", "params"),
    [
        ("abc", "lesson.read.unreadable", {"box": 1, "index": 1}),
        ("7", "exact.range", {"value": "7", "low": "-3", "high": "3"}),
        ("\u22123.5", "exact.range", {"value": "\u22123.5", "low": "-3", "high": "3"}),
        ("1e999", "lesson.read.too_large", {"box": 1, "index": 1}),
        ("1, 2", "lesson.read.count", {"box": 1, "got": 2, "expected": 1}),
    ],
)
def test_an_x0_that_cannot_be_used_is_refused_and_nothing_moves(
    text: str, key: str, params: dict, lang: str
) -> None:
    at = _typed_x0(text, lang)
    assert at.slider(key="deriv.x0").value == pytest.approx(0.5)
    assert [e.value for e in at.error] == [tr(key, lang, **params)]


def test_the_slider_still_works_and_a_link_opens_at_its_x0() -> None:
    at = inspected("x**3", 3, 1.5)
    frame = numeric(at.table[0].value)
    assert frame.iloc[1, 3] == pytest.approx(6.75)
    spec = figure_of([c for c in chart_elements(at) if figure_of(c).get("data")][0])
    assert {s["x0"] for s in spec["layout"]["shapes"]} == {1.5}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_taylor_tab_states_a_radius_only_with_its_accuracy(lang: str) -> None:
    """sin(x)/x is entire (its singularity at 0 is removable): no radius, and the rounding is
    named; 1/(1+x²) at 0.5 gets R = |0.5 ± i| = 1.118 with a ± that contains it."""
    at = open_page(PAGE, lang)
    at.text_input(key="deriv.fn").set_value("sin(x)/x").run()
    at.text_input(key="deriv.x0.exact").input("1").run()
    at.session_state["deriv.tab"] = "taylor"
    at.run()
    info = [i.value for i in at.info]
    assert tr("deriv.taylor.rounding", lang, x0="1") in info
    assert not any("R ≈" in i for i in info)
    spec = figure_of([c for c in chart_elements(at) if figure_of(c).get("data")][-1])
    assert not spec["layout"].get("shapes")  # no dotted lines at x0 ± R
    at.text_input(key="deriv.fn").set_value("1/(1+x^2)").run()
    at.text_input(key="deriv.x0.exact").input("0.5").run()
    text = " ".join(i.value for i in at.info)
    got = re.search(r"R ≈ ([0-9.]+) ± ([0-9.e-]+)", text)
    assert got, text
    assert abs(float(got[1]) - math.hypot(0.5, 1)) <= float(got[2]) + 5e-4  # 4 digits shown


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(("low", "high", "points"), [(-3.0, 3.0, 1000), (-4.0, 2.0, 200)])
def test_what_the_chart_leaves_out_is_said_once_with_the_points(
    low: float, high: float, points: int, lang: str
) -> None:
    """x**x: f is real at the negative integers ((−3)^(−3) = −1/27) but f′ = x^x (ln x + 1) is
    not, so the derivatives are NaN at exactly the grid's negative integers; one box says it,
    with f's gaps, instead of one box per order."""
    at = open_page(PAGE, lang)
    at.text_input(key="deriv.fn").set_value("x**x").run()
    at.slider(key="deriv.range").set_value((low, high))
    at.select_slider(key="deriv.points").set_value(points).run()
    assert not at.exception
    boxes = [*at.warning, *at.info]
    nan_boxes = [b.value for b in boxes if "NaN" in b.value]
    assert len(nan_boxes) == 1, nan_boxes
    xs = np.linspace(low, high, points)
    with np.errstate(all="ignore"):
        real = np.isfinite(np.power(xs, xs)) & (xs < 0)  # negative integers on the grid
    where = ", ".join(f"x = {x:.3g}" for x in xs[real])
    assert xs[real].size >= 1
    labels = ", ".join(["f′", "f″", "f‴", "f⁽⁴⁾"])
    want = tr("deriv.nonfinite.many", lang, label=labels, count=int(real.sum()), where=where)
    assert want in nan_boxes[0]
    assert tr("deriv.gap", lang, where="@").split("@")[0] in nan_boxes[0]  # f's gaps, same box


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(("text", "x0"), [("tanh(x)", 0.5), ("x**3", 2.0), ("exp(x)*sin(x)", 1.0)])
def test_the_inspector_help_quotes_this_fs_own_digits(text: str, x0: float, lang: str) -> None:
    """The digits the finite differences keep, for the f on screen: against sympy's exact
    derivatives at 40 digits (the oracle), within one digit (float64 rounding at a boundary)."""
    at = open_page(PAGE, lang)
    at.text_input(key="deriv.fn").set_value(text).run()
    at.text_input(key="deriv.x0.exact").input(repr(x0)).run()
    helps = [
        c.value
        for c in at.caption
        if tr("deriv.inspector.help", lang, fd=6, rtol="1e-08") in c.value
    ]
    assert len(helps) == 1
    assert "sin(x)·exp" not in helps[0]
    x = sp.Symbol("x")
    f = sp.sympify(text.replace("**", "^").replace("^", "**"))
    frame = numeric(at.table[0].value)
    want = []
    for k in range(1, 5):  # the page's default order is 4
        exact = float(sp.diff(f, x, k).subs(x, sp.Rational(str(x0))).evalf(40))
        fd = frame.iloc[k, 4]
        if exact == 0:
            want.append(None)  # relative digits mean nothing: "—"
        else:
            want.append(16 if fd == exact else -math.log10(abs(fd - exact) / abs(exact)))
    got = re.search(
        r"((?:\d+|—)(?:, (?:\d+|—))+)",
        helps[0].split(tr("deriv.inspector.help", lang, fd=6, rtol="1e-08"))[1],
    )
    digits = [None if d == "—" else int(d) for d in got[1].split(", ")]
    assert len(digits) == 4
    for d, w in zip(digits, want, strict=True):
        assert (d is None and w is None) or abs(d - w) <= 1, (digits, want)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_order_30_starts_with_a_readable_chart_and_every_order_one_click_away(lang: str) -> None:
    """31 curves at once are unreadable: f, f′, f″, f‴ and the highest order are drawn, the
    orders between wait in the legend (plotly's "legendonly": one click draws one)."""
    at = open_page(PAGE, lang)
    at.slider(key="deriv.order").set_value(30).run()
    traces = chart_traces(at)
    assert len(traces) == 31  # every order is there, with its values
    drawn = [t["name"] for t in traces if t.get("visible", True) is True]
    assert drawn == ["f", "f′", "f″", "f‴", "f⁽³⁰⁾"]
    waiting = [t for t in traces if t.get("visible") == "legendonly"]
    assert [t["name"] for t in waiting] == [order_label(k) for k in range(4, 30)]
    assert any("26" in c.value and "f⁽⁴⁾" in c.value for c in at.caption)
    at.toggle(key="deriv.separate").set_value(True).run()  # one panel per order: all drawn
    assert all(t.get("visible", True) is True for t in chart_traces(at))
    at.toggle(key="deriv.separate").set_value(False).run()
    at.slider(key="deriv.order").set_value(4).run()  # the default view: every order drawn
    assert all(t.get("visible", True) is True for t in chart_traces(at))
    assert not any("f⁽⁴⁾ to" in c.value for c in at.caption)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_value_below_float64s_smallest_number_is_named(lang: str) -> None:
    """softplus(600x)/600 at -2.505 is softplus(3x)/3 at -501: f' = σ(-1503) = 1.8e-653 (mpmath
    on the closed form), which float64 holds as 0 in every column, sympy's float too; the page
    names the order and the exact value's size instead of showing an exact-looking 0."""
    import time

    import mpmath

    at = open_page(PAGE, lang)
    at.text_input(key="deriv.fn").set_value("softplus(600*x)/600").run()
    at.slider(key="deriv.x0").set_value(-2.505).run()
    for _ in range(60):  # the exact column comes from a child process: wait for it
        if at.table and "—" not in list(at.table[0].value.iloc[1, 1:4]):
            break
        time.sleep(1)
        at.run()
    frame = numeric(at.table[0].value)
    assert list(frame.iloc[1, 1:4]) == [0.0, 0.0, 0.0]
    truth = 1 / (1 + mpmath.exp(600 * mpmath.mpf(2.505)))  # σ(600 x0), x0 as float64 holds it
    methods = ("、" if lang == "zh" else ", ").join(
        tr(f"deriv.col.{m}", lang) for m in ("taylor", "autograd", "sympy")
    )
    item = tr("deriv.below_float64.item", lang, k=1, methods=methods, exact=mpmath.nstr(truth, 2))
    shown = " ".join(i.value for i in at.info)
    assert item in shown and "4.9e-324" in shown, shown


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(("name", "order", "first"), [("i0", 6, 4), ("i1", 5, 3)])
def test_where_torchs_own_formula_for_i0_or_i1_is_wrong_the_page_says_so(
    lang: str, name: str, order: int, first: int
) -> None:
    """i0 and i1 at 0: torch differentiates i1 to i0(a) - i1(a)/a, the constant 1/2 there, so
    nested autograd gives 0 from order 4 on for i0 and from order 3 on for i1, where the truth
    is 3/8, 0, 5/16 (issue 46, item 9)."""
    at = open_page(PAGE, lang)
    at.text_input(key="deriv.fn").set_value(f"{name}(x)").run()
    at.slider(key="deriv.order").set_value(order).run()
    at.slider(key="deriv.x0").set_value(0.0).run()
    frame = numeric(at.table[0].value)
    assert list(frame.iloc[first:, 1]) == [0.375, 0.0, 0.3125]  # Taylor mode
    assert list(frame.iloc[first:, 2]) == [0.0, 0.0, 0.0]  # nested autograd
    text = _warnings(at)
    assert tr(f"deriv.note.{name}_near_zero", lang, x0="0", pieces=f"{name}(x)") in text
    assert tr("deriv.disagree.torch_formula", lang) in text
    # those zeros are PyTorch's formula, not underflow: no "not exact zeros" note says so
    lost = tr("deriv.underflow", lang, items="").split(":")[0].split("：")[0]
    assert lost not in " ".join(i.value for i in at.info), lost


@pytest.mark.parametrize("text", ["lgamma(x)", "polygamma(2, x)", "erfinv(x)", "i0(x)", "i1(x)"])
def test_the_special_functions_draw_with_their_poles_and_edges(text: str) -> None:
    """On the default grid lgamma and polygamma pass four poles and erfinv leaves its domain:
    the page draws what is finite and raises nothing."""
    at = open_page(PAGE)
    at.text_input(key="deriv.fn").set_value(text).run()
    assert not at.exception and not at.error
    traces = chart_traces(at)
    xs = np.linspace(-3, 3, 1000)
    want = derivatives(parse(text), xs, len(traces) - 1, method="autograd").values
    for k, trace in enumerate(traces):
        got = plotly_array(trace["y"])
        finite = np.isfinite(want[k]) & np.isfinite(got)
        assert finite.sum() > 100, (text, k)
        np.testing.assert_allclose(got[finite], want[k][finite], rtol=1e-12)
