"""The graph page under AppTest: the graph pass by pass, every toggle combination of the flag
lab, every classic case, in English and Chinese. Charts are read from their protos."""

from __future__ import annotations

import itertools
import math
import re
import time

import pytest
from streamlit.testing.v1 import AppTest

from hograd_core import parse
from hograd_core.flaglab.cases import CASES, run_case
from hograd_core.flaglab.flags import ACTIONS, FlagSettings, run_flags
from hograd_labs.graph.cached import dot_available
from hograd_ui.tensor_drawing import PASS_COLOURS, flag_dot
from tests.app.charts import chart_elements, figure_of
from tests.app.conftest import APP, open_page
from tests.apptest import APP_TEST_CEILING

PAGE = "pages/graph.py"


#: The flag lab's and the gallery's expanders that draw only while open (lazy_expander).
FOLDED = (
    "graph.growth.open",
    "graph.tv.open",
    "graph.flag.code",
    "graph.case.code",
    "graphvars.code",
)


def open_graph(lang: str = "en", unfold: bool = True) -> AppTest:
    """The page with torchviz's view and the two scripts unfolded, or as a link opens it."""
    at = open_page(lang=lang)
    for key in FOLDED if unfold else ():
        at.session_state[key] = True
    at.switch_page(PAGE)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def rerun(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


FLAG_DRAWINGS = 4  # the flag lab's run with create_graph=False and =True, torchviz's, the case's


def dot(at: AppTest) -> str:
    """The graph of the page's first part (drawn before the flag lab's two drawings)."""
    charts = at.get("graphviz_chart")
    assert len(charts) == 1 + FLAG_DRAWINGS
    return charts[0].proto.spec


def graph_drawn(at: AppTest) -> bool:
    return len(at.get("graphviz_chart")) == 1 + FLAG_DRAWINGS


def fills(source: str) -> set[str]:
    return set(re.findall(r'fillcolor="(#[0-9a-f]{6})"', source))


def outlined(source: str) -> set[str]:
    """Fill colours of the nodes drawn with the thick outline of the newest pass."""
    return {
        m.group(1) for m in re.finditer(r'fillcolor="(#[0-9a-f]{6})"[^\]]*penwidth=3\.5', source)
    }


def codes(at: AppTest) -> list[str]:
    return [c.value for c in at.code]


# ---- the graph ------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_page_draws_the_graph_of_order_two(lang: str) -> None:
    at = open_graph(lang)
    assert at.title[0].value == (
        "Double-backward graph lab" if lang == "en" else "二次反向传播计算图实验室"
    )
    source = dot(at)
    assert fills(source) == set(PASS_COLOURS[:3])  # forward, 1st and 2nd backward
    assert outlined(source) == {PASS_COLOURS[2]}
    assert '"d2y/dx2 = 4.2"' in source  # 6x at 0.7
    legend = at.get("html")[0].proto.body
    assert ("2nd backward pass: 3 nodes" if lang == "en" else "第 2 次反向传播：3 个节点") in legend
    spec = figure_of(chart_elements(at)[0])
    assert [trace["y"] for trace in spec["data"]][0] == [2, 5, 8, 11, 11, 11, 11]
    markdown = " ".join(m.value for m in at.markdown)
    assert (
        "not grown since order 3" if lang == "en" else "从第 3 阶起计算图就没有再增长"
    ) in markdown
    assert ("**4** of them on its longest path" if lang == "en" else "经过**4** 个") in markdown


def test_step_through_orders_zero_to_three() -> None:
    at = open_graph()
    at.button(key="graph.prev").click()
    rerun(at)
    at.button(key="graph.prev").click()
    rerun(at)
    assert at.slider(key="graph.order").value == 0
    assert at.button(key="graph.prev").disabled
    seen = [fills(dot(at))]
    for order in (1, 2, 3):
        at.button(key="graph.next").click()
        rerun(at)
        assert at.slider(key="graph.order").value == order
        source = dot(at)
        seen.append(fills(source))
        assert outlined(source) == {PASS_COLOURS[order]}, order  # the new nodes stand out
    assert seen == [set(PASS_COLOURS[: k + 1]) for k in range(4)]
    at.toggle(key="graph.highlight").set_value(False)
    assert outlined(dot(rerun(at))) == set()


def test_saved_tensors_and_layout() -> None:
    at = open_graph()
    before = dot(at)
    at.toggle(key="graph.saved").set_value(True)
    at.segmented_control(key="graph.direction.en").set_value("LR")
    source = dot(rerun(at))
    assert "rankdir=LR" in source and "rankdir=TB" in before
    assert "style=dashed" in source and '"self = 0.7"' in source  # pow saved x


def test_an_empty_direction_keeps_the_last_one() -> None:
    """The control is required (the browser cannot clear it), but a client can send an empty
    choice; the page keeps the last direction instead of failing (the load benchmark's client
    found it)."""
    at = open_graph()
    at.segmented_control(key="graph.direction.en").set_value("LR")
    rerun(at)
    at.segmented_control(key="graph.direction.en").set_value(None)
    rerun(at)
    assert not at.exception and "rankdir=LR" in dot(at)


def test_direction_case_and_variant_survive_a_language_switch() -> None:
    at = open_graph("en")
    case = "inplace"
    variant = list(CASES[case].variants)[1]
    at.segmented_control(key="graph.direction.en").set_value("LR")
    at.selectbox(key="graph.case.en").set_value(case)
    rerun(at)
    at.segmented_control(key=f"graph.variant.{case}.en").set_value(variant)
    rerun(at)
    at.radio(key="lang").set_value("zh")  # the sidebar's switch, as a reader uses it
    rerun(at)
    direction = at.segmented_control(key="graph.direction.zh")
    assert direction.value == "LR" and "rankdir=LR" in dot(at)
    assert [o.content for o in direction.proto.options] == ["从上到下", "从左到右"]
    assert at.selectbox(key="graph.case.zh").value == case
    assert at.segmented_control(key=f"graph.variant.{case}.zh").value == variant
    assert run_case(case, variant).transcript() in codes(at)  # the variant's run is shown


def test_preset_tanh_growth_is_stated_from_the_measured_numbers() -> None:
    at = open_graph()
    at.pills(key="graph.preset").set_value("tanh(x)")
    rerun(at)
    assert at.text_input(key="graph.fn").value == "tanh(x)"
    assert "TanhBackwardBackward0" in dot(at)
    markdown = " ".join(m.value for m in at.markdown)
    # nodes 2, 3, 7, 16, 37, 88, 217 (tests/core/test_graph_growth.py checks them)
    assert "grew by 21, 51, 129 nodes per order (×2.31, ×2.38, ×2.47)" in markdown, markdown
    assert "orders 0 to 6: 2, 3, 6, 9, 14, 22, 34." in markdown  # the depth
    assert "about" not in markdown.split("How the graph grows")[-1]
    spec = figure_of(chart_elements(at)[0])
    assert spec["data"][0]["y"] == [2, 3, 7, 16, 37, 88, 217]
    assert spec["data"][1]["y"] == [2, 3, 6, 9, 14, 22, 34]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_busy_server_is_said_plainly(lang: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from hograd_serving import cached
    from hograd_serving.gate import BusyError
    from hograd_ui.i18n import tr
    from hograd_ui.parts import ui

    def busy(*args: object) -> None:
        raise BusyError("budget.busy", slots=2)

    monkeypatch.setattr(cached, "case_for", busy)
    at = open_graph(lang)
    expected = "The server is busy; try again in a few seconds." if lang == "en" else "服务器正忙"
    assert any(expected in w.value for w in at.warning)
    assert not any("heavy computations" in e.value for e in at.error)
    again = tr("app.busy.again", lang, seconds=f"{ui.BUSY_AGAIN:g}", tries=ui.BUSY_TRIES)
    assert again in [c.value for c in at.caption]  # the page asks again by itself (a fragment)
    # ten automatic tries in the last minute: it stops asking and says how to ask again
    at.session_state["app.busy.tries"] = [time.monotonic()] * ui.BUSY_TRIES
    at.run()
    captions = [c.value for c in at.caption]
    assert tr("app.busy.gave_up", lang, tries=ui.BUSY_TRIES) in captions and again not in captions


def graph_files(at: AppTest) -> list:
    """The drawing's DOT and SVG buttons (the scripts' .py buttons further down are not)."""
    return [
        b
        for b in at.get("download_button")
        if b.proto.label.startswith(("Download DOT", "Download SVG"))
    ]


def test_too_large_graph_is_summarised_not_drawn() -> None:
    at = open_graph()
    at.text_input(key="graph.fn").set_value("sin(x)*exp(-x**2)")
    at.slider(key="graph.order").set_value(5)
    rerun(at)
    assert not graph_drawn(at) and not graph_files(at)
    assert any("more than the 400 that are drawn" in w.value for w in at.warning)
    table = at.dataframe[0].value  # the summary by node type, opened
    assert int(table["total"].sum()) == 511
    assert chart_elements(at)  # the growth chart is still there


def test_saved_tensors_can_make_a_graph_too_large() -> None:
    at = open_graph()
    at.pills(key="graph.preset").set_value("tanh(x)")
    at.slider(key="graph.order").set_value(6)
    rerun(at)
    assert graph_drawn(at)  # 225 nodes
    at.toggle(key="graph.saved").set_value(True)
    rerun(at)
    assert not graph_drawn(at)  # 420 with the saved tensors
    assert any("Show saved tensors" in c.value for c in at.caption)


def test_constant_derivative_note_and_downloads() -> None:
    at = open_graph()
    at.text_input(key="graph.fn").set_value("2*x")
    rerun(at)
    assert any("From order 1 on, the derivative has no `grad_fn`" in i.value for i in at.info)
    assert '"d2y/dx2 = 0\\n(no grad_fn)"' in dot(at) or "(no grad_fn)" in dot(at)
    assert len(graph_files(at)) == (2 if dot_available() else 1)


ELEVEN = "+".join(f"a{i}" for i in range(11))  # the page takes up to 10 variables


@pytest.mark.parametrize(
    ("text", "message"), [("x+", "function"), (ELEVEN, "more than 10 different variables")]
)
def test_bad_functions_are_refused(text: str, message: str) -> None:
    at = open_graph()
    at.text_input(key="graph.fn").set_value(text)
    rerun(at)
    assert at.error and message in at.error[0].value
    assert not at.get("graphviz_chart") and not chart_elements(at)
    if text == "x+":
        assert text in codes(at)  # what was typed is echoed as code, never as markdown


# ---- the flag lab ---------------------------------------------------------------------------

CASE_RAISES = run_case(next(iter(CASES))).raised
SHOWN = [
    (action, cg, rg, z, au, mg)
    for action, cg, rg, z in itertools.product(
        ACTIONS, [False, True], ["None", "True", "False"], [False, True]
    )
    for au, mg in (
        [(False, False)] if action == "backward" else itertools.product([False, True], repeat=2)
    )
]


def set_flags(at: AppTest, action: str, cg: bool, rg: str, z: bool, au: bool, mg: bool) -> None:
    at.radio(key=f"graph.flag.action.{at.session_state['lang']}").set_value(action)
    at.toggle(key="graph.flag.create_graph").set_value(cg)
    at.segmented_control(key="graph.flag.retain_graph").set_value(rg)
    at.toggle(key="graph.flag.unused").set_value(z)
    if action != "backward":  # disabled (and ignored) for .backward()
        at.toggle(key="graph.flag.allow_unused").set_value(au)
        at.toggle(key="graph.flag.materialize").set_value(mg)


def test_every_toggle_combination_shown_in_english() -> None:
    at = open_graph("en")
    fn = parse("x**3")
    assert len(SHOWN) == 108
    for action, cg, rg, z, au, mg in SHOWN:
        set_flags(at, action, cg, rg, z, au, mg)
        rerun(at)
        settings = FlagSettings(
            cg, {"None": None, "True": True, "False": False}[rg], au, mg, z, action
        )
        expected = run_flags(fn, 0.7, settings)
        assert expected.transcript() in codes(at), settings
        assert expected.snippet.rstrip("\n") in codes(at)
        # error boxes: the flag lab's, then the classic case's (its first variant raises)
        assert len(at.error) == expected.raised + CASE_RAISES, settings
        if expected.raised:
            assert expected.steps[-1].error_type in at.error[0].value


def test_toggle_combinations_in_chinese() -> None:
    at = open_graph("zh")
    fn = parse("x**3")
    for action, cg, rg in itertools.product(ACTIONS, [False, True], ["None", "True", "False"]):
        set_flags(at, action, cg, rg, True, True, False)
        rerun(at)
        settings = FlagSettings(
            cg,
            {"None": None, "True": True, "False": False}[rg],
            action != "backward",
            False,
            True,
            action,
        )
        expected = run_flags(fn, 0.7, settings)
        assert expected.transcript() in codes(at)
        why = [i.value for i in at.info if i.value.startswith("**原因：**")]
        assert why and re.search(r"[\u4e00-\u9fff]", why[0])


def test_backward_twice_shows_the_warning_and_disables_the_grad_flags() -> None:
    at = open_graph()
    set_flags(at, "backward", True, "None", False, False, False)
    rerun(at)
    assert at.toggle(key="graph.flag.allow_unused").disabled
    assert any("reference cycle" in c for c in codes(at))
    assert any("x.grad" in c and "AddBackward0" in c for c in codes(at))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_flag_lab_draws_the_run_with_and_without_create_graph(lang: str) -> None:
    at = open_graph(lang)
    at.text_input(key="graph.fn").set_value("x**3")
    set_flags(at, "next", False, "None", False, False, False)
    rerun(at)
    charts = [c.proto.spec for c in at.get("graphviz_chart")]
    off, on = charts[1], charts[2]
    fn = parse("x**3")
    expected_off = flag_dot(run_flags(fn, 0.7, FlagSettings(create_graph=False)).drawing, lang)
    expected_on = flag_dot(run_flags(fn, 0.7, FlagSettings(create_graph=True)).drawing, lang)
    assert off == expected_off and on == expected_on
    assert "(no grad_fn)" in off and "MulBackward0" in on and "MulBackward0" not in off
    changed = " ".join(m.value for m in at.markdown)
    assert (
        "added **3** backward functions" if lang == "en" else "新增了 **3** 个反向函数"
    ) in changed
    assert ("**8** bytes" if lang == "en" else "**8** 字节") in changed
    # torchviz's view of the same tensors, and the line that makes it
    assert "make_dot((y, dy), params={'x': x}, show_attrs=False, show_saved=False)" in "".join(
        codes(at)
    )
    assert "PowBackward0" in charts[3]
    at.toggle(key="graph.tv.saved").set_value(True)
    rerun(at)  # the first call (retain_graph defaults to False) freed PowBackward0's x
    assert len(at.get("graphviz_chart")) == 4  # torchviz's view replaced by PyTorch's error
    assert any("second time" in c for c in codes(at))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_second_call_is_explained_from_the_real_graph(lang: str) -> None:
    at = open_graph(lang)
    at.text_input(key="graph.fn").set_value("x + 1")
    set_flags(at, "again", False, "False", False, False, False)
    rerun(at)
    why = [i.value for i in at.info if i.value.startswith(("**Why.**", "**原因：**"))]
    assert "AddBackward0, AccumulateGrad" in why[0] and "{" not in why[0], why
    assert ("saved none" if lang == "en" else "什么都没保存") in why[0]
    at.text_input(key="graph.fn").set_value("x**3")
    rerun(at)
    why = [i.value for i in at.info if i.value.startswith(("**Why.**", "**原因：**"))]
    assert "PowBackward0 (self)" in why[0] and "{" not in why[0], why


def test_action_survives_a_language_switch() -> None:
    at = open_graph("en")
    at.radio(key="graph.flag.action.en").set_value("again")
    rerun(at)
    at.radio(key="lang").set_value("zh")  # the sidebar's switch, as a reader uses it
    rerun(at)
    assert at.radio(key="graph.flag.action.zh").value == "again"


# ---- the classic cases ----------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_case_and_variant(lang: str) -> None:
    at = open_graph(lang)
    for case, spec in CASES.items():
        at.selectbox(key=f"graph.case.{lang}").set_value(case)
        rerun(at)
        for variant in spec.variants:
            at.segmented_control(key=f"graph.variant.{case}.{lang}").set_value(variant)
            rerun(at)
            expected = run_case(case, variant)
            assert expected.transcript() in codes(at), (case, variant)
            assert expected.snippet.rstrip("\n") in codes(at)
            for message in expected.warnings:
                assert message in codes(at)
            # the picture of what the script did: the last chart, from the real objects
            assert at.get("graphviz_chart")[-1].proto.spec == flag_dot(expected.drawing, lang)


def test_widget_keys_are_namespaced() -> None:
    at = open_graph()
    # app.py's: the language, the links, the lesson's progress, the session's name; the
    # frame's (hograd_ui/parts/frame.py: the script that folds the controls on a phone)
    app_keys = ("links.", "progress.", "app.", "frame.")
    keys = [k for k in at.session_state if k != "lang" and not k.startswith(app_keys)]
    assert keys and all(k.startswith(("graph.", "graphvars.")) for k in keys), keys


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_folded_parts_are_computed_only_when_opened(lang: str) -> None:
    """The growth chart, torchviz's view, the scripts and the tables are in expanders that
    send nothing while closed (hograd_ui/parts/ui.py, lazy_expander): a deep link draws four graphs,
    not five, no chart and no code of theirs. Opened, each shows what it holds; a link that
    sets torchviz's toggles opens its expander, and the growth chart's is in the link."""
    at = open_graph(lang, unfold=False)
    assert len(at.get("graphviz_chart")) == FLAG_DRAWINGS  # the graph, 2 flag runs, the case
    assert not any("make_dot" in c for c in codes(at))
    assert not any(c.startswith("import torch") for c in codes(at))  # the scripts: folded
    assert not at.dataframe  # the growth table and the summary: folded
    assert not chart_elements(at)  # the growth chart: folded, its numbers said in words
    assert "graph.growth.open" not in at.query_params
    for key in (*FOLDED, "graph.table"):
        at.session_state[key] = True
    rerun(at)
    assert len(at.get("graphviz_chart")) == 1 + FLAG_DRAWINGS
    assert sum("make_dot" in c for c in codes(at)) == 1
    assert sum(c.startswith("import torch") for c in codes(at)) == 2
    assert len(at.dataframe) == 1  # the growth table (the summary stays folded while drawn)
    assert len(chart_elements(at)) == 1  # the growth chart
    linked = AppTest.from_file(
        APP, default_timeout=APP_TEST_CEILING
    )  # a new browser, opened on the link
    linked.query_params.update(
        {"lang": lang, "graph.tv.saved": "true", "graph.growth.open": "true"}
    )
    linked.switch_page(PAGE)
    rerun(linked)
    assert linked.toggle(key="graph.tv.saved").value  # drawn: the expander is open
    assert sum("show_saved=True" in c for c in codes(linked)) == 1
    assert len(chart_elements(linked)) == 1 and linked.query_params["graph.growth.open"]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(
    ("text", "x"), [("\u22120.5", -0.5), ("－0.5", -0.5), ("pi/4", math.pi / 4), ("2", 2.0)]
)
def test_the_flag_labs_x_is_typed_exactly(text: str, x: float, lang: str) -> None:
    """The flag lab runs at the x typed, sign and all (the browser's number box reads "−0.5"
    with U+2212 as 0.5): its script builds that x (issue 36, item 15)."""
    at = open_graph(lang, unfold=False)
    at.text_input(key="graph.x0.exact").input(text).run()
    assert not at.exception
    assert at.number_input(key="graph.x0").value == x
    assert any(f"torch.tensor({x!r}" in c for c in codes(at)), codes(at)


# ---- C++ tabs (issue 41) ---------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_flag_lab_and_the_cases_have_a_cpp_tab_beside_the_python(lang: str) -> None:
    """Beside each script, its LibTorch twin (tested to print the same in
    tests/cpp/test_cpp_flaglab.py), with the caption in the page's language."""
    from hograd_core.flaglab.cpp import flag_cpp
    from hograd_ui.i18n import tr

    at = open_graph(lang)
    set_flags(at, "next", True, "None", True, False, True)
    rerun(at)
    fn = parse("x**3")
    flags = run_flags(
        fn, 0.7, FlagSettings(create_graph=True, unused_input=True, materialize_grads=True)
    )
    case = run_case(next(iter(CASES)))
    for outcome, function in ((flags, fn), (case, None)):
        program = flag_cpp(outcome.snippet, function).rstrip("\n")
        assert program in codes(at)
    labels = [tab.label for tab in at.tabs]
    assert labels.count(tr("downloads.tab.cpp", lang)) >= 2
    caption = tr("graph.flag.cpp.caption", lang, name="hograd_flag_lab")
    assert sum(c.value == caption for c in at.caption) == 2


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_order_graphs_code_in_python_and_cpp(lang: str) -> None:
    """Under the growth, the calls that build the order graph (issue 41): the inspector's
    script at the page's x0 and order, and beside it its C++ twin (tests/cpp compiles the twin
    and compares the printed lines)."""
    from hograd_core.cpp_code import derivatives_cpp
    from hograd_core.inspector import pytorch_snippet
    from hograd_ui.i18n import tr

    at = open_page(lang=lang)
    at.session_state["graph.code"] = True
    at.switch_page(PAGE)
    rerun(at)
    fn, x0, order = (
        parse(at.text_input(key="graph.fn").value),
        0.7,
        at.slider(key="graph.order").value,
    )
    x0 = float(at.session_state["graph.x0"]) if "graph.x0" in at.session_state else x0
    codes = {(c.language, c.value) for c in at.code}
    name = "hograd_graph_x_3"
    assert ("python", pytorch_snippet(fn, x0, order).rstrip("\n")) in codes
    assert ("cpp", derivatives_cpp(fn, x0, order, name).rstrip("\n")) in codes
    assert tr("graph.code.caption", lang, order=order) in [c.value for c in at.caption]
