"""The graph page with a function of several variables: the Hessian-vector product's
double-backward graph (issue 15, point 3), in English and Chinese, under AppTest."""

from __future__ import annotations

import math

import pytest

from hograd_core import parse
from hograd_core.cpp_code import hvp_graph_cpp
from hograd_core.hvp_graph import hvp_graph
from hograd_labs.graph.figures import hvp_dot
from tests.app.test_graph_page import open_graph, rerun
from tests.app.test_links import open_link

SEED = "w1**2*sin(w2)"


def several(lang: str = "en", text: str = SEED):
    at = open_graph(lang)
    at.text_input(key="graph.fn").set_value(text)
    return rerun(at)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_seed_example_draws_the_hvp_graph(lang: str) -> None:
    at = several(lang)
    expected = hvp_graph(parse(SEED), [1.0, math.pi / 2], [0.5, 1.0])
    charts = at.get("graphviz_chart")
    assert charts[0].proto.spec == hvp_dot(expected, lang, min_width=420.0)
    text = " ".join(m.value for m in at.markdown)
    assert "w = (1, 1.5708)" in text and "v = (0.5, 1)" in text
    assert "∇f = (2, 0)" in text and "H v = (1, -1)" in text
    assert at.text_input(key="graphvars.point").value == "1, pi/2"
    assert at.text_input(key="graphvars.vector").value == "0.5, 1"
    # the flag lab says why it is not run; the classic cases still are
    info = " ".join(i.value for i in at.info)
    assert ("one variable" if lang == "en" else "单变量") in info
    assert expected.code.rstrip("\n") in [c.value for c in at.code]
    # beside it, its C++ twin (tests/cpp compiles it and compares the output)
    program = hvp_graph_cpp(
        parse(SEED),
        expected.point,
        expected.vector,
        False,
        expected.reaches,
        "hograd_hvp_graph_w1_2_sin_w2",
    )
    assert program.rstrip("\n") in [c.value for c in at.code if c.language == "cpp"]
    assert not any("point" in e.value or "vector" in e.value for e in at.error)


def test_record_toggle_adds_the_second_backward() -> None:
    at = several()
    at.toggle(key="graphvars.record").set_value(True)
    rerun(at)
    expected = hvp_graph(parse(SEED), "1, pi/2", "0.5, 1", record_second=True)
    assert at.get("graphviz_chart")[0].proto.spec == hvp_dot(expected, "en", min_width=420.0)
    assert "AddBackward0" in at.get("graphviz_chart")[0].proto.spec  # recorded Hv's graph


@pytest.mark.parametrize(
    ("lang", "point", "says"),
    [
        ("en", "1, x", "point: 'x' is not a number."),
        ("en", "1, 2, 3", "point: expected 2 numbers (one per variable: w1, w2), got 3."),
        ("zh", "1, x", "'x'"),
        ("en", "1, 1e7", "at most 1e6"),
    ],
)
def test_bad_lists_are_refused_with_a_reason(lang: str, point: str, says: str) -> None:
    at = several(lang)
    at.text_input(key="graphvars.point").set_value(point)
    rerun(at)
    assert any(says in e.value for e in at.error), [e.value for e in at.error]
    assert len(at.get("graphviz_chart")) == 1  # only the classic case's drawing


def test_three_variables_and_back_to_one() -> None:
    at = several(text="x*y*z")
    at.text_input(key="graphvars.point").set_value("1, 2, 3")
    at.text_input(key="graphvars.vector").set_value("1, 0, 0")
    rerun(at)
    expected = hvp_graph(parse("x*y*z"), [1, 2, 3], [1, 0, 0])
    assert expected.hvp == (0.0, 3.0, 2.0)  # H e1 = (0, z, y)
    assert at.get("graphviz_chart")[0].proto.spec == hvp_dot(expected, "en", min_width=420.0)
    at.text_input(key="graph.fn").set_value("x**3")
    rerun(at)
    assert len(at.get("graphviz_chart")) == 5  # the one-variable page is back, flag lab too


BIG = "*".join(f"tanh(sin({v})*exp({v}))" for v in "abcdfgh")  # 7 variables (e is Euler's)


def test_a_graph_over_the_drawing_limit_is_summarised() -> None:
    at = several(text=BIG)
    at.text_input(key="graphvars.point").set_value(",".join(["0.5"] * 7))
    at.text_input(key="graphvars.vector").set_value(",".join(["1"] * 7))
    at.toggle(key="graphvars.record").set_value(True)
    rerun(at)
    expected = hvp_graph(parse(BIG), [0.5] * 7, [1.0] * 7, record_second=True)
    assert not expected.graph.drawable  # 811 nodes, more than 400
    assert len(at.get("graphviz_chart")) == 1  # only the classic case's drawing
    warning = " ".join(w.value for w in at.warning)
    assert f"{len(expected.graph.nodes):,} nodes, more than 400" in warning
    table = at.dataframe[0].value
    assert list(table.columns)[0] == "type" and table["total"].sum() == expected.graph.counts[0]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_projected_the_graph_is_drawn_to_fit_and_its_saved_tensors_on_request(lang: str) -> None:
    """Issue 38: in presentation mode the H v graph is drawn left to right, tight, without
    its saved tensors (the caption says so and names the switch), its inputs folded into the
    row; the switch brings the saved tensors back. Outside the mode the page draws them, as
    it always did, and says they are drawn."""
    at = open_link("pages/graph.py", {"present": "1", "graph.fn": SEED}, lang)
    expected = hvp_graph(parse(SEED), [1.0, math.pi / 2], [0.5, 1.0])
    spec = at.get("graphviz_chart")[0].proto.spec
    assert spec == hvp_dot(expected, lang, saved=False, direction="LR", tight=True)
    assert at.toggle(key="graphvars.saved.present").value is False
    hidden = "leaves saved tensors out" if lang == "en" else "图中没有画出保存的张量"
    captions = " ".join(c.value for c in at.caption)
    assert hidden in captions and "11" in captions
    assert not at.header  # the heading goes; its lead is in the row's Explanation
    lead = "f has 2 variables" if lang == "en" else "f 有 2 个变量"
    assert any(lead in m.value for m in at.markdown)
    at.toggle(key="graphvars.saved.present").set_value(True)
    rerun(at)
    spec = at.get("graphviz_chart")[0].proto.spec
    assert spec == hvp_dot(expected, lang, saved=True, direction="LR", tight=True)
    assert hidden not in " ".join(c.value for c in at.caption)
    linked = open_link(
        "pages/graph.py", {"present": "1", "graph.fn": SEED, "graphvars.saved.present": "true"}
    )
    assert linked.toggle(key="graphvars.saved.present").value is True  # a link carries it

    at = open_link("pages/graph.py", {"graph.fn": SEED}, lang)
    assert at.toggle(key="graphvars.saved").value is True
    assert at.get("graphviz_chart")[0].proto.spec == hvp_dot(expected, lang, min_width=420.0)
    at.toggle(key="graphvars.saved").set_value(False)
    rerun(at)
    assert at.get("graphviz_chart")[0].proto.spec == hvp_dot(
        expected, lang, min_width=420.0, saved=False
    )
    assert hidden in " ".join(c.value for c in at.caption)
