"""Derivatives lab: f and every derivative in one chart, a point inspector checked four ways,
the Taylor polynomial, sympy's formulas, the PyTorch code and what each method costs."""

import numpy as np
import pandas as pd
import streamlit as st

from hograd_core import BUDGET, HogradError
from hograd_core.inspector import MAX_FD_ORDER, pytorch_snippet, taylor_polynomial
from hograd_core.language import Function
from hograd_core.nested_autograd import DerivativeResult
from hograd_core.symbolic import MAX_OPS
from hograd_serving.cached import POLL, curves, estimate, inspect, measure, still_working
from hograd_serving.sympy_worker import CHAIN_SECONDS
from hograd_ui.derivative_figures import (
    cost_figure,
    derivatives_figure,
    latex_label,
    order_label,
    taylor_figure,
    undefined_intervals,
)
from hograd_ui.i18n import error_text
from pages._ui import function_box, lang, lazy_tabs, localized_radio, show_error, t

PRESETS = ["x**3", "sin(x)*exp(-x^2)", "tanh(x)", "1/(1+x^2)", "log(1+x^2)", "x*sin(1/x)"]
POINTS = [100, 200, 500, 1000, 2000, 5000]


def _clamp(key: str, low: float, high: float, default: float) -> None:
    """Keep a widget's stored value inside bounds that depend on other widgets."""
    value = st.session_state.get(key, default)
    st.session_state[key] = min(max(value, low), high)


st.title(t("deriv.title"))
st.caption(t("deriv.lead"))
fn = function_box("deriv", t("deriv.function"), PRESETS, stop=False)
formula = st.empty()  # the LaTeX of f, under the box, once the controls are drawn

top_left, top_right = st.columns([3, 2], gap="medium", vertical_alignment="bottom")
method_labels = {m: t(f"deriv.method.{m}") for m in ("taylor", "autograd")}
method = localized_radio(
    t("deriv.method"), method_labels, "deriv.method", container=top_left, horizontal=True,
    help=t("deriv.method.help"),
)  # fmt: skip
separate = top_right.toggle(
    t("deriv.separate"), key="deriv.separate", help=t("deriv.separate.help")
)
max_order = BUDGET.max_order_taylor if method == "taylor" else BUDGET.max_order_autograd
c2, c3, c4 = st.columns([3, 3, 2], gap="large")
_clamp("deriv.order", 0, max_order, 4)
order = c2.slider(t("deriv.order"), 0, max_order, key="deriv.order")
low, high = c3.slider(t("deriv.range"), -10.0, 10.0, (-3.0, 3.0), step=0.25, key="deriv.range")
points = c4.select_slider(t("deriv.points"), POINTS, 1000, key="deriv.points")
if fn is None:  # refused: the error is shown, and the controls above keep their values
    st.stop()
if len(fn.variables) > 1:
    show_error(HogradError("budget.one_variable", names=", ".join(fn.variables)), fn.text)
    st.stop()
var = fn.variables[0] if fn.variables else "x"
formula.latex(f"f({var}) = {fn.latex}")
if low >= high:
    show_error(HogradError("budget.range", low=low, high=high, limit="10"))
    st.stop()

try:
    result = curves(fn.text, low, high, points, order, method)
except HogradError as err:
    show_error(err)
    st.stop()

if not np.isfinite(result.values[0]).any():
    st.error(t("deriv.undefined_everywhere", low=f"{low:g}", high=f"{high:g}"))
    st.stop()

st.plotly_chart(derivatives_figure(result, lang(), separate=separate), key="deriv.chart")
st.caption(t(
    "deriv.computed", order=order, points=f"{points:,}", method=t(f"deriv.method.{method}"),
    ms=f"{result.seconds * 1000:.1f}",
))  # fmt: skip

gaps = undefined_intervals(result.xs, result.values[0])
if gaps:
    where = ", ".join(f"[{a:.3g}, {b:.3g}]" for a, b in gaps[:3])
    if len(gaps) > 3:
        where += " " + t("deriv.gap.more", count=len(gaps) - 3)
    st.warning(t("deriv.gap", where=where), icon=":material/warning:")
bad_orders = [k for k in range(1, order + 1) if result.nonfinite[k] > result.nonfinite[0]]
for k in bad_orders[:3]:
    st.warning(t("deriv.nonfinite", label=order_label(k), count=result.nonfinite[k]))
if result.constant_from is not None and result.constant_from < order:
    k = result.constant_from
    note = t("deriv.constant", k=k, label=order_label(k), var=var, next=k + 1)
    if result.torch_raises_from is not None:
        note += " " + t("deriv.constant.torch", r=result.torch_raises_from)
    st.info(note, icon=":material/info:")


@st.fragment
def point_views(fn: Function, result: DerivativeResult, order: int, points: int) -> None:
    """x0 and the tabs under it. A fragment: dragging x0 or switching tabs reruns only this
    part in the browser (not the controls and the main chart above)."""
    low, high, var = float(result.xs[0]), float(result.xs[-1]), result.variable
    _clamp("deriv.x0", low, high, 0.5)
    x0 = st.slider(t("deriv.x0"), low, high, step=(high - low) / 200, key="deriv.x0")

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
                fn.text, float(x0), order,
                sympy_column=columns["sympy"], autograd_column=columns["autograd"],
            )  # fmt: skip
        except HogradError as err:
            show_error(err)
            return
        if inspection.sympy_working or inspection.autograd_working:
            background_poll(fn.text, float(x0), order, **columns)

    if tabs["inspector"].open:
        with tabs["inspector"]:
            st.caption(t("deriv.inspector.help", fd=MAX_FD_ORDER))
            rows = []
            for r in inspection.rows:
                diff = lambda v: None if v is None or r.sympy is None else abs(v - r.sympy)  # noqa: B023
                rows.append({
                    t("deriv.col.order"): r.order, t("deriv.col.taylor"): r.taylor,
                    t("deriv.col.autograd"): r.autograd, t("deriv.col.sympy"): r.sympy,
                    t("deriv.col.fd"): r.finite_difference, t("deriv.col.diff_taylor"): diff(r.taylor),
                    t("deriv.col.diff_autograd"): diff(r.autograd),
                    t("deriv.col.diff_fd"): diff(r.finite_difference),
                })  # fmt: skip
            frame = pd.DataFrame(rows)
            numbers = {c: st.column_config.NumberColumn(format="%.10g") for c in frame.columns[1:5]}
            errors = {c: st.column_config.NumberColumn(format="%.1e") for c in frame.columns[5:]}
            st.dataframe(
                frame, hide_index=True, key="deriv.table", column_config=numbers | errors,
                placeholder="—",  # not computed: order over a limit, sympy or autograd still going
            )  # fmt: skip
            for r in inspection.rows:
                if (
                    r.autograd is not None
                    and r.sympy is not None
                    and abs(r.autograd - r.sympy) > 1e-8 * max(1.0, abs(r.sympy))
                ):
                    st.warning(
                        t(
                            "deriv.inspector.disagree",
                            k=r.order,
                            auto=f"{r.autograd:.10g}",
                            exact=f"{r.sympy:.10g}",
                        )
                    )
                    break
            done = sum(r.sympy is not None for r in inspection.rows) - 1
            if inspection.sympy_working:
                st.info(
                    t("deriv.inspector.sympy_working", done=done + 1, total=order + 1),
                    icon=":material/hourglass_top:",
                )
            elif inspection.sympy_stopped == "time":
                st.info(t("deriv.inspector.sympy_time", k=done, seconds=f"{CHAIN_SECONDS:g}"))
            elif inspection.sympy_stopped:
                st.info(t("deriv.inspector.sympy_stopped", k=done, ops=f"{MAX_OPS:,}"))
            if inspection.autograd_working:
                st.info(t("deriv.inspector.autograd_working"), icon=":material/hourglass_top:")
            elif inspection.autograd_refused:
                st.warning(error_text(inspection.autograd_refused, lang()))
            elif order > BUDGET.max_order_autograd:
                st.caption(t("deriv.inspector.autograd_limit", limit=BUDGET.max_order_autograd))

    if tabs["taylor"].open:
        with tabs["taylor"]:
            n = order
            xs = result.xs
            poly = taylor_polynomial(fn, float(x0), n, xs)
            f0 = inspection.rows[0].taylor
            st.plotly_chart(
                taylor_figure(xs, result.values[0], poly, float(x0), f0, n, var, lang()),
                key="deriv.taylor",
            )
            st.caption(t("deriv.taylor.caption", n=n, x0=f"{x0:.3g}"))

    if tabs["symbolic"].open:
        with tabs["symbolic"]:
            st.caption(t("deriv.symbolic.caption"))
            for r in inspection.rows[: min(order, 4) + 1]:
                label = order_label(r.order)
                if r.latex is not None:
                    st.latex(f"{latex_label(r.order)}({var}) = {r.latex}")
                elif r.ops is not None:
                    st.write(t("deriv.symbolic.too_big", label=label, ops=f"{r.ops:,}"))
                elif inspection.sympy_working:
                    st.write(t("deriv.symbolic.working", label=label))
                elif inspection.sympy_stopped == "time":
                    st.write(t("deriv.symbolic.time", label=label))
                else:
                    st.write(t("deriv.symbolic.stopped", label=label))

    if tabs["code"].open:
        with tabs["code"]:
            st.caption(t("deriv.code.caption", x0=f"{x0:.6g}"))
            st.code(
                pytorch_snippet(fn, float(x0), min(order, BUDGET.max_order_autograd)),
                language="python",
            )

    if tabs["cost"].open:
        with tabs["cost"]:
            cost_order = min(order, BUDGET.max_order_autograd)
            st.caption(t("deriv.cost.caption", points=f"{points:,}"))
            try:
                nodes, _, mb = estimate(fn.text, cost_order, points)
                st.write(
                    t(
                        "deriv.cost.estimate",
                        order=cost_order,
                        nodes=f"{nodes:,}",
                        mb=f"{mb:,.1f}",
                        points=f"{points:,}",
                    )
                )
                if st.button(t("deriv.cost.run"), key="deriv.cost.run") or st.session_state.get(
                    "deriv.cost.shown"
                ) == (fn.text, cost_order, points):
                    st.session_state["deriv.cost.shown"] = (fn.text, cost_order, points)
                    profile = measure(fn.text, cost_order, points)
                    st.plotly_chart(cost_figure(profile, lang()), key="deriv.cost.chart")
            except HogradError as err:
                show_error(err)


@st.fragment(run_every=POLL)
def background_poll(text: str, x0: float, order: int, *, sympy: bool, autograd: bool) -> None:
    """While sympy or nested autograd works in the background: ask again every ``POLL`` s
    (the browser reruns only this, which draws nothing) and, once both are done, run the page
    again to show their columns; that full run, without this fragment, also ends the
    browser's timer."""
    if not still_working(text, x0, order, sympy=sympy, autograd=autograd):
        st.rerun()


point_views(fn, result, order, points)
