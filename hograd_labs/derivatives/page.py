"""The derivatives lab's page: f and every derivative in one chart, a point inspector checked
four ways, the Taylor polynomial, sympy's formulas, the PyTorch code and what each method
costs. ``draw()`` is called by pages/derivatives.py."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from hograd_core import BUDGET, HogradError
from hograd_core.exact_view import MAX_OPS
from hograd_core.forward_mode import FORWARD_BUDGET
from hograd_core.grad_checks import DERIVATIVE, EDGE, KINK, SECOND, UNDEFINED, GradChecks
from hograd_core.inspector import (
    AGREE_RTOL,
    MAX_FD_ORDER,
    Inspection,
    disagreement_cause,
    disagreements,
    pytorch_snippet,
    taylor_view,
)
from hograd_core.language import Function
from hograd_core.nested_autograd import DerivativeResult
from hograd_core.point_notes import (
    I0_NEAR_ZERO,
    I1_NEAR_ZERO,
    POLYGAMMA_LEFT,
    SINGULAR,
    TORCH_FORMULAS,
    TRIGAMMA,
    ZERO_POWER,
)
from hograd_serving.sympy_column import CHAIN_SECONDS, MEMORY_BYTES
from hograd_ui.chart_range import ChartRange, chart_range
from hograd_ui.i18n import error_text
from hograd_ui.parts.chart import chart
from hograd_ui.parts.downloads import derivatives_code, derivatives_row, note_x0
from hograd_ui.parts.exact import exact_entry
from hograd_ui.parts.formula import draw_formula, start_tex, typed_tex
from hograd_ui.parts.frame import Frame, aside
from hograd_ui.parts.link_form import REFUSED, Field
from hograd_ui.parts.links import BIND
from hograd_ui.parts.present import refresh_share
from hograd_ui.parts.ui import (
    folded,
    function_box,
    lang,
    lazy_tabs,
    localized_radio,
    present_row,
    session_id,
    show_error,
    static_table,
    t,
)

from .cached import (
    FORWARD_POINTS,
    POLL,
    autograd_refused,
    curves,
    estimate,
    forward_routes,
    gradchecks_at,
    inspect,
    measure,
    still_working,
    sympy_detail,
)
from .chart import (
    derivatives_figure,
    hidden_orders,
    latex_label,
    order_label,
)
from .compute import X0, agreeing_digits, beyond_f, delta, undefined_intervals
from .figures import ROUTE_KEYS, cell, cost_figure, forward_figure, taylor_figure

__all__ = ["draw"]

PRESETS = ["x**3", "sin(x)*exp(-x^2)", "tanh(x)", "1/(1+x^2)", "log(1+x^2)", "x*sin(1/x)"]
POINTS = [100, 200, 500, 1000, 2000, 5000]
#: float64's smallest positive number (a subnormal, 4.9e-324): a value nearer 0 is held as 0
SMALLEST = math.ulp(0.0)
#: How far each method goes, from the constants that stop it (README.md says the same; a test
#: reads both).
ORDERS = {
    "taylor": BUDGET.max_order_taylor,
    "autograd": BUDGET.max_order_autograd,
    "fd": MAX_FD_ORDER,
    "jvp": FORWARD_BUDGET.max_order_jvp,
    "forward_ad": FORWARD_BUDGET.max_order,
}
METHOD_COLUMN = {
    "taylor": "deriv.col.taylor",
    "autograd": "deriv.col.autograd",
    "sympy": "deriv.col.sympy",
}


def _tex(fn: Function) -> str:
    """The variable's name in LaTeX, as sympy prints it in the formulas (never the raw name:
    ``a__b`` is a double subscript)."""
    names = typed_tex(fn).names
    return names[0] if names else "x"


X0_KEY = "deriv.x0"


def _x0_field(low: float, high: float) -> Field:
    """What a link may set x0 to: a number inside the range (the rules Streamlit applies to a
    bound slider, :meth:`Field.read`)."""
    return Field("slider", X0, low, high)


def _x0_state(low: float, high: float) -> float:
    """x0, put into the session state before its slider is drawn, the way Streamlit asks of a
    value that code sets (the exact entry writes it, and a narrower range moves it inside; the
    slider then gets no ``value=``, so Streamlit has no default of its own to warn about).

    The first time in a session it comes from the link (``?deriv.x0=``) when the link's value
    is one the slider takes, else it is ``X0``; a value outside ``[low, high]`` moves to the
    nearest end. Returns it (the chart marks it).
    """
    seeded = f"{X0_KEY}.from_link"  # one seeding per session, as url_choice does
    if seeded not in st.session_state:
        st.session_state[seeded] = True
        linked = _x0_field(low, high).read(st.query_params.get_all(X0_KEY))
        if linked is not REFUSED and X0_KEY not in st.session_state:
            st.session_state[X0_KEY] = linked
    # written on every run: when the range changes, the slider is a new widget to Streamlit
    # (its limits are part of its identity) and would start from its own default
    value = st.session_state[X0_KEY] = float(min(max(st.session_state.get(X0_KEY, X0), low), high))
    return value


def _write_x0(x0: float, low: float, high: float) -> None:
    """x0 into the URL, left out while it is ``X0`` (so a link names it only when moved)."""
    text = None if x0 == X0 else _x0_field(low, high).text(x0)
    if text is None:
        if X0_KEY in st.query_params:
            del st.query_params[X0_KEY]
            refresh_share()
    elif st.query_params.get(X0_KEY) != text:
        st.query_params[X0_KEY] = text
        refresh_share()


def _points(spans: tuple[tuple[float, float], ...]) -> str:
    """Grid intervals as "x = a" (a single point) or "x ∈ [a, b]", the first three."""
    shown = [f"x = {a:.3g}" if a == b else f"x ∈ [{a:.3g}, {b:.3g}]" for a, b in spans[:3]]
    more = " " + t("deriv.gap.more", count=len(spans) - 3) if len(spans) > 3 else ""
    return ", ".join(shown) + more


def _where(spans: tuple[tuple[float, float], ...]) -> str:
    where = ", ".join(f"[{a:.3g}, {b:.3g}]" for a, b in spans[:3])
    return where + (" " + t("deriv.gap.more", count=len(spans) - 3) if len(spans) > 3 else "")


def draw() -> None:
    """The page: the function and its settings, the chart, then the views at x0, drawn by the
    frame (hograd_ui/parts/frame.py): stacked on a laptop; projected, the lead and the
    settings folded into the row and the chart and the views at x0 a screen each; on a phone
    the result first."""
    st.title(t("deriv.title"))
    view = Frame("deriv")
    with view.lead():
        st.caption(t("deriv.lead"))
    with view.controls(fold=False):  # the box a lecturer types into stays in place projected
        fn = function_box("deriv", t("deriv.function"), PRESETS, stop=False)
        formula = st.empty()  # the LaTeX of f, under the box, once the controls are drawn
    with view.controls():
        method, separate, order, low, high, points = _settings()
    with view.results:  # what stops the view is said where its result would be
        result = _result(fn, formula, method, order, low, high, points)
    marked = st.session_state["deriv.chart.x0"] = _x0_state(low, high)
    view.screens(
        {
            "chart": (
                t("deriv.screen.chart"),
                lambda: _chart(fn, result.curves, separate, marked, order, points, result.used),
            ),
            "point": (
                t("deriv.screen.point"),
                lambda: point_views(fn, result.curves, order, points, low, high),
            ),
        },
        "deriv.screen",
        headers=False,
    )


@dataclass(frozen=True)
class _Drawn:
    """The curves the chart draws, and the method that made them."""

    curves: DerivativeResult
    used: str


def _result(
    fn: Function | None,
    formula: object,
    method: str,
    order: int,
    low: float,
    high: float,
    points: int,
) -> _Drawn:
    """f's curves on the range by ``method`` (Taylor mode where nested autograd is refused,
    said so), with f's LaTeX in ``formula``; stops the page, saying why, where there is
    nothing to draw."""
    if fn is None:  # refused: the error is shown, and the controls above keep their values
        st.stop()
    if len(fn.variables) > 1:
        show_error(HogradError("budget.one_variable", names=", ".join(fn.variables)), fn.text)
        st.stop()
    start_tex(fn)  # sympy prints f in its child while the curves are computed here

    def show_formula() -> None:
        draw_formula(formula, f"f({_tex(fn)})", typed_tex(fn), fn.text)

    if low >= high:
        show_formula()
        show_error(HogradError("budget.range", low=low, high=high, limit="10"))
        st.stop()

    try:
        refused = autograd_refused(fn.text, order, points) if method == "autograd" else None
        used = "taylor" if refused is not None else method
        result = curves(fn.text, low, high, points, order, used)
    except HogradError as err:
        show_formula()
        show_error(err)
        st.stop()
    show_formula()

    if refused is not None and refused.key == "budget.order_autograd":
        st.info(t("deriv.switched.order", limit=BUDGET.max_order_autograd, order=order))
    elif refused is not None:
        st.info(t("deriv.switched.budget", reason=error_text(refused, lang())))
    if not np.isfinite(result.values[0]).any():
        st.error(t("deriv.undefined_everywhere", low=f"{low:g}", high=f"{high:g}"))
        st.stop()
    return _Drawn(result, used)


def _settings() -> tuple[str, bool, int, float, float, int]:
    """The method, separate axes, the order, the range and the number of points."""
    top_left, top_right = st.columns([3, 2], gap="medium", vertical_alignment="bottom")
    method_labels = {m: t(f"deriv.method.{m}") for m in ("autograd", "taylor")}
    method = localized_radio(
        t("deriv.method"),
        method_labels,
        "deriv.method",
        container=top_left,
        horizontal=True,
        help=t("deriv.method.help", limit=BUDGET.max_order_autograd),
    )
    separate = top_right.toggle(
        t("deriv.separate"), key="deriv.separate", help=t("deriv.separate.help"), bind=BIND
    )
    c2, c3, c4 = st.columns([3, 3, 2], gap="large")
    # One slider for both methods, so switching method never changes the order the student chose:
    # above nested autograd's limit the page says so and uses Taylor mode.
    order = c2.slider(
        t("deriv.order"),
        0,
        BUDGET.max_order_taylor,
        4,
        key="deriv.order",
        bind=BIND,
        help=t("deriv.order.help", **ORDERS),
    )
    low, high = c3.slider(
        t("deriv.range"), -10.0, 10.0, (-3.0, 3.0), step=0.25, key="deriv.range", bind=BIND
    )
    points = c4.select_slider(t("deriv.points"), POINTS, 1000, key="deriv.points", bind=BIND)
    return method, separate, order, low, high, points


def _chart(
    fn: Function,
    result: DerivativeResult,
    separate: bool,
    marked: float,
    order: int,
    points: int,
    used: str,
) -> None:
    """The chart of f and its derivatives with x0 marked, how it was made and what it cuts."""
    ranges = chart_range(result.xs, result.values, separate=separate)
    figure = derivatives_figure(result, lang(), separate=separate, ranges=ranges, x0=marked)
    chart(figure, key="deriv.chart")
    st.caption(
        t(
            "deriv.computed",
            order=order,
            points=f"{points:,}",
            method=t(f"deriv.method.{used}"),
            ms=f"{result.seconds * 1000:.1f}",
        )
    )
    if used == "autograd":
        st.caption(t("deriv.graph_growth", sizes=", ".join(f"{n:,}" for n in result.graph_nodes)))
    derivatives_row(fn, result, "deriv")  # downloads: the curves (CSV), the view (notebook)
    hidden = hidden_orders(result.order, separate)
    if hidden:
        first, last = order_label(hidden[0]), order_label(hidden[-1])
        st.caption(t("deriv.chart.hidden", count=len(hidden), first=first, last=last))
    _chart_notes(result, ranges, order)


def _chart_notes(result: DerivativeResult, ranges: ChartRange, order: int) -> None:
    """What the chart leaves out or cuts, in one box: f's gaps, the points where derivatives
    are not finite although f is, and the cut y-axis; and from which order they are constant."""
    var = result.variable
    facts = []
    gaps = undefined_intervals(result.xs, result.values[0])
    if gaps:
        facts.append(t("deriv.gap", where=_where(tuple(gaps))))
    for orders, count, spans in beyond_f(result.xs, result.values):
        labels = ", ".join(order_label(k) for k in orders)
        key = "deriv.nonfinite" if len(orders) == 1 else "deriv.nonfinite.many"
        facts.append(t(key, label=labels, count=count, where=_points(tuple(spans))))
    cut = []
    if ranges.cut:
        cut.append(t("deriv.cut", where=_where(ranges.beyond), peak=f"{ranges.peak:.3g}"))
        if ranges.f_beyond:
            cut.append(t("deriv.cut.f", where=_where(ranges.f_beyond)))
    space = " " if lang() == "en" else ""  # Chinese sentences follow each other without one
    if facts:
        st.warning(space.join(facts + cut), icon=":material/warning:")
    elif cut:
        st.info(space.join(cut), icon=":material/height:")
    if result.constant_from is not None and result.constant_from < order:
        k = result.constant_from
        note = t("deriv.constant", k=k, label=order_label(k), var=var, next=k + 1)
        if result.torch_raises_from is not None:
            note += " " + t("deriv.constant.torch", r=result.torch_raises_from)
        st.info(note, icon=":material/info:")


def _inspector_table(inspection: Inspection) -> None:
    rows = []
    for r in inspection.rows:
        rows.append(
            {
                t("deriv.col.order"): r.order,
                t("deriv.col.taylor"): cell(r.taylor),
                t("deriv.col.autograd"): cell(r.autograd),
                t("deriv.col.sympy"): cell(r.sympy),
                t("deriv.col.fd"): cell(r.finite_difference),
                t("deriv.col.diff_taylor"): cell(delta(r.taylor, r.sympy), ".1e"),
                t("deriv.col.diff_autograd"): cell(delta(r.autograd, r.sympy), ".1e"),
                t("deriv.col.diff_fd"): cell(delta(r.finite_difference, r.sympy), ".1e"),
            }
        )
    # A static table, not the data grid: nine rows need no scrolling or sorting, and a deep link
    # to the page then loads no grid bundle before it is ready (docs/performance.md).
    static_table(pd.DataFrame(rows).fillna("—"))  # —: not computed (over a limit, or still going)


def _notes_and_disagreements(fn: Function, inspection: Inspection, x0: float) -> None:
    """What the numbers at x0 are where f has no ordinary derivative, and every order at which
    the methods differ (NaN included)."""
    kinds = {note.kind for note in inspection.notes}
    for kind in ("abs", "relu"):
        if kind in kinds:
            st.warning(t(f"deriv.note.{kind}", x0=f"{x0:.6g}"), icon=":material/show_chart:")
    for kind in (SINGULAR, ZERO_POWER, I0_NEAR_ZERO, I1_NEAR_ZERO, POLYGAMMA_LEFT, TRIGAMMA):
        pieces = ", ".join(n.piece for n in inspection.notes if n.kind == kind)
        if pieces:
            st.warning(t(f"deriv.note.{kind}", x0=f"{x0:.6g}", pieces=pieces))
    _underflow(inspection)
    found = disagreements(inspection)
    if not found:
        return
    items = "; ".join(
        t(
            "deriv.disagree.item",
            k=d.order,
            method=t(METHOD_COLUMN[d.method]),
            value=cell(d.value),
            reference=t(METHOD_COLUMN[d.reference]),
            expected=cell(d.expected),
        )
        for d in found
    )
    why = t(f"deriv.disagree.{disagreement_cause(fn, inspection)}")
    st.warning(
        t("deriv.disagree", rtol=f"{AGREE_RTOL:g}", items=items) + " " + why,
        icon=":material/error:",
    )


def _underflow(inspection: Inspection) -> None:
    """Every 0 (or subnormal number) in the table whose exact value is not 0; apart, the
    orders whose exact value is below float64's smallest positive number. Nested autograd's
    zeros where a note says PyTorch's own formula is wrong at x0 (i0 or i1 near 0: the
    constant 1/2 gives 0) are that note's, not underflow's or rounding's."""
    comma = "、" if lang() == "zh" else ", "
    formula = any(note.kind in TORCH_FORMULAS for note in inspection.notes)
    items, below = [], []
    for r in inspection.rows:
        lost = [m for m in r.underflow if not (formula and m == "autograd")]
        if not lost:
            continue
        methods = comma.join(t(METHOD_COLUMN[m]) for m in lost)
        if r.below_float64 is not None:
            below.append(
                t("deriv.below_float64.item", k=r.order, methods=methods, exact=r.below_float64)
            )
        else:
            items.append(
                t("deriv.underflow.item", k=r.order, methods=methods, truth=cell(r.reference))
            )
    if items:
        st.info(t("deriv.underflow", items="; ".join(items)), icon=":material/exposure_zero:")
    if below:
        st.info(
            t("deriv.below_float64", items="; ".join(below), smallest=f"{SMALLEST:.2g}"),
            icon=":material/exposure_zero:",
        )


def _gradchecks(text: str, x0: float, exact: tuple[float | None, ...]) -> None:
    """PyTorch's own gradcheck and gradgradcheck at x0: each verdict, and on a failure
    PyTorch's message (as code: its words, never markdown), the entries that differ and, where
    sympy's exact derivatives (``exact``, by order) agree with the backward, that it is the
    finite difference that is off."""
    try:
        checks: GradChecks = gradchecks_at(text, x0)
    except HogradError as err:
        show_error(err)
        return
    passed = {
        "gradcheck": "deriv.gradcheck.passed.gradcheck",
        "gradgradcheck": "deriv.gradcheck.passed.gradgradcheck",
    }
    # the entry's meaning, by (check, input): gradgradcheck's inputs are x and v
    what = {
        ("gradcheck", 0): "deriv.gradcheck.what.gradcheck",
        ("gradgradcheck", 0): "deriv.gradcheck.what.x",
        ("gradgradcheck", 1): "deriv.gradcheck.what.v",
    }
    order = {("gradcheck", 0): 1, ("gradgradcheck", 0): 2, ("gradgradcheck", 1): 1}  # v = 1
    why_not = {
        UNDEFINED: "deriv.gradcheck.skip.undefined",
        EDGE: "deriv.gradcheck.skip.edge",
        KINK: "deriv.gradcheck.skip.kink",
        DERIVATIVE: "deriv.gradcheck.skip.derivative",
        SECOND: "deriv.gradcheck.skip.second",
    }
    eps, where = f"{checks.eps:g}", f"{x0:.6g}"
    st.markdown(
        f"**{t('deriv.gradcheck.title', x0=where)}**",
        help=t("deriv.gradcheck.help", eps=eps, atol=f"{checks.atol:g}", rtol=f"{checks.rtol:g}"),
    )
    skipped = {s.reason: s for s in checks.skipped}
    for check in (checks.gradcheck, checks.gradgradcheck):
        if check.passed:
            st.markdown(t(passed[check.name]))
        elif check.passed is False:
            st.markdown(t("deriv.gradcheck.failed", name=check.name))
            st.code(check.message, language=None)
            items = "; ".join(
                t(
                    "deriv.gradcheck.entry",
                    what=t(what[check.name, m.input]),
                    numerical=f"{m.numerical:.10g}",
                    analytical=f"{m.analytical:.10g}",
                )
                for m in check.mismatches
            )
            if items:
                st.markdown(t("deriv.gradcheck.entries", items=items))
            sympy = [
                exact[k] if k < len(exact) else None
                for k in (order[check.name, m.input] for m in check.mismatches)
            ]
            if items and all(
                e is not None and math.isclose(m.analytical, e, rel_tol=AGREE_RTOL)
                for m, e in zip(check.mismatches, sympy, strict=True)
            ):
                st.caption(t("deriv.gradcheck.exact_agrees", eps=eps, rtol=f"{AGREE_RTOL:g}"))
            else:
                st.caption(t("deriv.gradcheck.why_failed", eps=eps))
        elif check.name == "gradcheck" or SECOND in skipped:  # one reason, said once
            reason = next(iter(skipped.values()))
            st.markdown(t(why_not[reason.reason], x0=where, eps=eps, piece=f"`{reason.piece}`"))


@st.fragment
def point_views(
    fn: Function, result: DerivativeResult, order: int, points: int, low: float, high: float
) -> None:
    """x0 and the tabs under it. A fragment: dragging x0 or switching tabs reruns only this
    part in the browser (not the controls and the main chart above)."""
    var = result.variable
    shown_x0 = _x0_state(low, high)
    # projected: x0 folds into one button, named with its value, above the tabs
    with folded(
        t("deriv.screen.x0", x0=f"{shown_x0:.4g}"), ":material/my_location:", present_row("point")
    ):
        x0 = _x0_widgets(low, high, var)
    if st.session_state.get("deriv.chart.x0") != x0:  # the chart above marks another x0
        st.rerun(scope="app")
    note_x0(x0, "deriv")  # the x0 of the notebook download under the chart
    _views(fn, result, order, points, low, high, float(x0))


def _x0_widgets(low: float, high: float, var: str) -> float:
    """The x0 slider and, beside it, the box for an exact x0; returns x0."""
    slide, exact = st.columns([4, 1], vertical_alignment="bottom")
    # not bound to the URL: a bound slider's default is its own (low, without value=), so
    # x0 = low would leave a link and x0 = X0 enter it; _write_x0 keeps X0 out instead
    x0 = slide.slider(t("deriv.x0"), low, high, step=(high - low) / 200, key=X0_KEY)
    _write_x0(x0, low, high)
    # the slider's grid misses most round numbers (from -3 in steps of 0.03: 1.98, 2.01)
    exact_entry(
        "deriv.x0.exact",
        t("deriv.x0.exact", var=var),
        ("deriv.x0",),
        low,
        high,
        (x0,),
        container=exact,
    )
    return x0


def _views(
    fn: Function,
    result: DerivativeResult,
    order: int,
    points: int,
    low: float,
    high: float,
    x0: float,
) -> None:
    """The tabs at x0: the inspector, the Taylor polynomial, the formulas, the code, the cost."""
    views = ("inspector", "taylor", "symbolic", "code", "cost")
    tabs = lazy_tabs({v: t(f"deriv.tab.{v}") for v in views}, "deriv.tab")
    if not (tabs["code"].open or tabs["cost"].open):  # the other three show its rows
        # the Taylor tab needs neither sympy nor autograd, the formulas need only sympy
        columns = {
            "sympy": tabs["inspector"].open or tabs["symbolic"].open,
            "autograd": tabs["inspector"].open,
        }
        try:
            inspection = inspect(
                fn.text,
                float(x0),
                order,
                who=session_id(),
                sympy_column=columns["sympy"],
                autograd_column=columns["autograd"],
            )
        except HogradError as err:
            show_error(err)
            return
        if inspection.sympy_working or inspection.autograd_working:
            background_poll(fn.text, float(x0), order, **columns)

    if tabs["inspector"].open:
        with tabs["inspector"]:
            _inspector_tab(fn, inspection, order, x0)

    if tabs["taylor"].open:
        with tabs["taylor"]:
            _taylor_tab(fn, result, inspection, order, x0)

    if tabs["symbolic"].open:
        with tabs["symbolic"]:
            _symbolic_tab(fn, inspection, order)

    if tabs["code"].open:
        with tabs["code"]:
            _code_tab(fn, order, x0, (low, high, points))

    if tabs["cost"].open:
        with tabs["cost"]:
            _cost_tab(fn, order, (low, high, points))


def _inspector_tab(fn: Function, inspection: Inspection, order: int, x0: float) -> None:
    """The inspector: every method's f^(k)(x0), where they disagree and why."""
    help_text = t("deriv.inspector.help", fd=MAX_FD_ORDER, rtol=f"{AGREE_RTOL:g}")
    fd_rows = [r for r in inspection.rows[1:] if r.finite_difference is not None]
    if fd_rows and all(r.sympy is not None for r in fd_rows):  # this f's own digits
        digits = ", ".join(agreeing_digits(r.finite_difference, r.sympy) for r in fd_rows)
        help_text += " " + t(
            "deriv.inspector.fd_here", x0=f"{x0:.6g}", digits=digits, k=len(fd_rows)
        )
    with aside("deriv.inspector.help"):  # projected, under the table: the table first
        st.caption(help_text)
    _inspector_table(inspection)
    _notes_and_disagreements(fn, inspection, float(x0))
    _gradchecks(fn.text, float(x0), tuple(r.sympy for r in inspection.rows))
    done = sum(r.sympy is not None for r in inspection.rows) - 1
    if inspection.sympy_working:
        st.info(
            t("deriv.inspector.sympy_working", done=done + 1, total=order + 1),
            icon=":material/hourglass_top:",
        )
    elif inspection.sympy_stopped:
        _sympy_stopped(fn.text, inspection.sympy_stopped, done)
    if inspection.autograd_working:
        st.info(t("deriv.inspector.autograd_working"), icon=":material/hourglass_top:")
    elif inspection.autograd_refused:
        st.warning(error_text(inspection.autograd_refused, lang()))
    elif order > BUDGET.max_order_autograd:
        st.caption(t("deriv.inspector.autograd_limit", limit=BUDGET.max_order_autograd))


def _taylor_tab(
    fn: Function, result: DerivativeResult, inspection: Inspection, order: int, x0: float
) -> None:
    """The Taylor polynomial at x0 over f, and how far it can be trusted."""
    var = result.variable
    view = taylor_view(fn, float(x0), order, result.xs)
    radius = view.radius
    figure = taylor_figure(
        result.xs,
        result.values[0],
        view.polynomial,
        float(x0),
        inspection.rows[0].taylor,
        order,
        var,
        lang(),
        radius=radius.radius,
    )
    chart(figure, key="deriv.taylor")
    st.caption(t("deriv.taylor.caption", n=order, x0=f"{x0:.3g}"))
    fewer = 2 * radius.terms // 3  # the estimates compared: TERMS and 2/3 of them
    shorter, longer = (f"{r:.4g}" for r in radius.estimates or (math.nan, math.nan))
    if radius.why is not None:
        st.info(
            t(
                f"deriv.taylor.{radius.why}",
                x0=f"{x0:.3g}",
                terms=radius.terms,
                fewer=fewer,
                shorter=shorter,
                longer=longer,
            )
        )
    elif np.isinf(radius.radius):
        key = "deriv.taylor.polynomial" if radius.estimated else "deriv.taylor.entire"
        st.info(t(key, terms=radius.terms))
    else:
        st.info(
            t(
                "deriv.taylor.radius",
                r=f"{radius.radius:.4g}",
                terms=radius.terms,
                accuracy=f"{radius.accuracy:.1e}"
                if radius.accuracy < 1e-3
                else f"{radius.accuracy:.2g}",
                low=f"{x0 - radius.radius:.3g}",
                high=f"{x0 + radius.radius:.3g}",
                fewer=fewer,
                shorter=shorter,
            )
        )
    if radius.kinks:
        st.info(t("deriv.taylor.kinks"))


def _symbolic_tab(fn: Function, inspection: Inspection, order: int) -> None:
    """sympy's formulas, f to f⁽⁴⁾, as far as they came."""
    st.caption(t("deriv.symbolic.caption"))
    for r in inspection.rows[: min(order, 4) + 1]:
        label = order_label(r.order)
        if r.latex is not None:
            st.latex(f"{latex_label(r.order)}({_tex(fn)}) = {r.latex}")
        elif r.ops is not None:
            st.write(t("deriv.symbolic.too_big", label=label, ops=f"{r.ops:,}"))
        elif inspection.sympy_working:
            st.write(t("deriv.symbolic.working", label=label))
        elif inspection.sympy_stopped == "time":
            st.write(t("deriv.symbolic.time", label=label))
        else:
            st.write(t("deriv.symbolic.stopped", label=label))


def _code_tab(fn: Function, order: int, x0: float, grid: tuple[float, float, int]) -> None:
    """The PyTorch program of these derivatives, and its downloads."""
    low, high, points = grid
    autograd_order = min(order, BUDGET.max_order_autograd)
    st.caption(t("deriv.code.caption", x0=f"{x0:.6g}"))
    if order > autograd_order:
        st.caption(t("deriv.code.limit", limit=autograd_order, order=order))
    snippet = pytorch_snippet(fn, float(x0), autograd_order)
    derivatives_code(fn, snippet, float(x0), autograd_order, (low, high, points), page="deriv")


def _cost_tab(fn: Function, order: int, grid: tuple[float, float, int]) -> None:
    """What nested autograd and Taylor mode cost over the grid, measured on request."""
    low, high, points = grid
    autograd_order = min(order, BUDGET.max_order_autograd)
    st.caption(t("deriv.cost.caption", points=f"{points:,}", low=f"{low:g}", high=f"{high:g}"))
    if order > autograd_order:
        st.caption(t("deriv.cost.limit", limit=autograd_order, order=order))
    try:
        nodes, _, mb = estimate(fn.text, autograd_order, points)
        st.write(
            t(
                "deriv.cost.estimate",
                order=autograd_order,
                nodes=f"{nodes:,}",
                mb=f"{mb:,.1f}",
                points=f"{points:,}",
            )
        )
        asked = (fn.text, autograd_order, points, low, high)
        if st.button(t("deriv.cost.run"), key="deriv.cost.run") or (
            st.session_state.get("deriv.cost.shown") == asked
        ):
            st.session_state["deriv.cost.shown"] = asked
            profile = measure(*asked)
            chart(cost_figure(profile, lang()), key="deriv.cost.chart")
            st.caption(
                t(
                    "deriv.cost.how",
                    autograd=profile.autograd_runs,
                    taylor=profile.taylor_runs,
                )
            )
    except HogradError as err:
        show_error(err)
    _forward_routes(fn, autograd_order, low, high)


def _forward_routes(fn: Function, order: int, low: float, high: float) -> None:
    """Forward mode or reverse mode for f⁽ⁿ⁾: the four routes' values checked against each
    other, their time and the bytes they save for backward, order by order (on a click)."""
    st.subheader(t("deriv.forward.title"))
    shown = min(order, FORWARD_BUDGET.max_order)
    st.markdown(t("deriv.forward.lead", points=FORWARD_POINTS, jvp=FORWARD_BUDGET.max_order_jvp))
    asked = (fn.text, shown, low, high)
    if not (
        st.button(t("deriv.forward.run"), key="deriv.forward.run")
        or st.session_state.get("deriv.forward.shown") == asked
    ):
        return
    st.session_state["deriv.forward.shown"] = asked
    try:
        costs = forward_routes(*asked)
    except HogradError as err:
        show_error(err)
        return
    chart(forward_figure(costs, lang()), key="deriv.forward.chart")
    reverse = costs.values["reverse"]
    others = [r for r in costs.routes if r != "reverse"]
    rows = {t("deriv.order"): list(range(costs.order + 1))}
    for route in others:
        gap = np.abs(costs.values[route] - reverse)
        scale = np.maximum(np.abs(reverse), 1.0)
        rows[t(ROUTE_KEYS[route])] = [
            "—" if np.isnan(costs.values[route][k]).all() else f"{np.nanmax(gap[k] / scale[k]):.1e}"
            for k in range(costs.order + 1)
        ]
    st.caption(t("deriv.forward.agree"))
    static_table(pd.DataFrame(rows))
    st.caption(t("deriv.forward.how", jvp=FORWARD_BUDGET.max_order_jvp))


def _sympy_stopped(text: str, why: str, done: int) -> None:
    """Why sympy's column ends where it does: a budget, or sympy's own error (shown as it is)."""
    keys = {
        "time": "deriv.inspector.sympy_reason.time",
        "size": "deriv.inspector.sympy_reason.size",
        "memory": "deriv.inspector.sympy_reason.memory",
        "error": "deriv.inspector.sympy_reason.error",
    }
    reason = t(
        keys.get(why, keys["error"]),
        seconds=f"{CHAIN_SECONDS:g}",
        ops=f"{MAX_OPS:,}",
        mb=f"{MEMORY_BYTES // 2**20:,}",
    )
    if done >= 0:
        st.info(t("deriv.inspector.sympy_after", k=done, reason=reason))
    else:
        st.info(t("deriv.inspector.sympy_none", reason=reason))
    if why == "error":
        st.code(sympy_detail(text), language=None)  # Python's words, never markdown


@st.fragment(run_every=POLL)
def background_poll(text: str, x0: float, order: int, *, sympy: bool, autograd: bool) -> None:
    """While sympy or nested autograd works in the background: ask again every ``POLL`` s
    (the browser reruns only this, which draws nothing) and, once both are done, run the page
    again to show their columns; that full run, without this fragment, also ends the
    browser's timer."""
    if not still_working(text, x0, order, sympy=sympy, autograd=autograd, who=session_id()):
        st.rerun()
