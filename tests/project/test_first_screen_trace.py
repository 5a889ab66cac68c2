"""benchmarks/first_screen_trace.py cuts a traced visit into phases: checked on a trace built
by hand, whose phases are known, and on the main thread only; and it sums a profiled visit's
time by bundle: checked on a profile built by hand."""

from __future__ import annotations

import pytest

from benchmarks.first_screen_trace import analyse, bundle_summary, by_bundle, summary

PAGE = "http://127.0.0.1:8501/hvp"
APP_BUNDLE = "plotly-cartesian-4.1.1.min.js"
MAIN, OTHER_RENDERER, COMPOSITOR = (1, 10), (2, 20), (1, 11)


def _thread(where: tuple[int, int], name: str) -> dict:
    return {
        "name": "thread_name",
        "ph": "M",
        "pid": where[0],
        "tid": where[1],
        "args": {"name": name},
    }


def _x(name: str, ts: float, dur: float, where: tuple[int, int] = MAIN) -> dict:
    return {"name": name, "ph": "X", "ts": ts, "dur": dur, "pid": where[0], "tid": where[1]}


def _instant(name: str, ts: float, **data: str) -> dict:
    return {"name": name, "ph": "I", "ts": ts, "pid": 9, "tid": 9, "args": {"data": data}}


def _trace() -> list[dict]:
    ms = 1000.0  # trace times are microseconds
    # fmt: off
    return [
        _thread(MAIN, "CrRendererMain"),
        _thread(OTHER_RENDERER, "CrRendererMain"),  # a renderer with less work: not the page's
        _thread(COMPOSITOR, "Compositor"),
        _instant("ResourceSendRequest", 1000 * ms, url=PAGE, requestId="doc"),
        _x("RunTask", 1100 * ms, 100 * ms), _x("v8.evaluateModule", 1105 * ms, 90 * ms),
        _instant("WebSocketCreate", 1500 * ms),
        *(_instant("WebSocketReceive", t * ms) for t in (1550, 1600, 1700)),
        _instant("WebSocketReceive", 2450 * ms),  # after a silence: not the first run's
        _instant("ResourceSendRequest", 1800 * ms, url="http://x/static/js/PlotlyChart.a.js",
                 requestId="plotly"),
        _instant("ResourceFinish", 1900 * ms, requestId="plotly"),
        _x("RunTask", 1950 * ms, 300 * ms), _x("v8.evaluateModule", 1951 * ms, 290 * ms),
        _x("RunTask", 2300 * ms, 50 * ms), _x("FunctionCall", 2301 * ms, 40 * ms),
        _x("Layout", 2302 * ms, 5 * ms),  # inside the call: the task is the call's
        _x("RunTask", 2400 * ms, 20 * ms), _x("Layout", 2401 * ms, 18 * ms),
        _x("RunTask", 2450 * ms, 10 * ms),  # nothing traced inside it
        _x("RunTask", 2600 * ms, 400 * ms), _x("FunctionCall", 2601 * ms, 399 * ms),  # after
        _x("RunTask", 1200 * ms, 900 * ms, COMPOSITOR),
        _x("RunTask", 1200 * ms, 50 * ms, OTHER_RENDERER),
    ]
    # fmt: on


def test_the_phases_of_a_known_trace() -> None:
    r = analyse(_trace(), PAGE, settled_ms=1500.0)
    assert r["boot_ms"] == 500.0  # request at 1000 ms, websocket at 1500 ms
    assert r["server_ms"] == 200.0  # the first burst ends at 1700 ms
    assert r["after_ms"] == 800.0  # settled at 2500 ms
    assert r["main_thread_busy_ms"] == 480.0  # the tasks before 2500 ms on the main thread
    assert r["main_thread_ms"] == {
        "evaluate": 400.0,
        "javascript": 50.0,
        "style_layout_paint": 20.0,
        "other": 10.0,
    }
    assert r["plotly_evaluate_ms"] == 290.0  # the longest evaluation after the bundle came in
    assert [t["ms"] for t in r["longest_tasks"]] == [300.0, 100.0, 50.0, 20.0, 10.0]


def test_a_page_without_plotly_reports_none_for_it() -> None:
    events = [e for e in _trace() if "PlotlyChart" not in str(e.get("args"))]
    assert analyse(events, PAGE, settled_ms=1500.0)["plotly_evaluate_ms"] is None


def test_the_apps_own_plotly_bundle_is_found_too() -> None:
    """hograd_ui/parts/chart.js loads static/'s cartesian bundle as a classic script, not a module."""
    events = []
    for e in _trace():
        data = e.get("args", {}).get("data", {})
        if "PlotlyChart" in data.get("url", ""):
            e = {**e, "args": {"data": {**data, "url": "http://x/app/static/" + APP_BUNDLE}}}
        elif e["name"] == "v8.evaluateModule" and e["ts"] > 1900_000:
            e = {**e, "name": "EvaluateScript"}
        events.append(e)
    assert analyse(events, PAGE, settled_ms=1500.0)["plotly_evaluate_ms"] == 290.0
    profile = _profile()
    profile["nodes"][3]["callFrame"]["url"] = "http://x/app/static/" + APP_BUNDLE
    assert "plotly-cartesian-4.1.1.min" in by_bundle(profile)  # named without ".js"


def test_a_trace_without_the_page_request_is_refused() -> None:
    with pytest.raises(ValueError, match="no request for"):
        analyse(_trace(), "http://127.0.0.1:8501/why", settled_ms=1500.0)


def test_the_summary_gives_median_and_range() -> None:
    a = analyse(_trace(), PAGE, settled_ms=1500.0)
    b = analyse(_trace(), PAGE, settled_ms=1700.0)
    c = analyse(_trace(), PAGE, settled_ms=2100.0)
    s = summary([a, b, c])
    assert s["visits"] == 3
    assert s["settled_ms"] == {"median": 1700.0, "min": 1500.0, "max": 2100.0}
    assert s["after_ms"] == {"median": 1000.0, "min": 800.0, "max": 1400.0}
    # settled at 2700 and 3100 ms: the task at 2600 ms is inside
    assert s["main_thread_busy_ms"] == {"median": 880.0, "min": 480.0, "max": 880.0}


def _profile() -> dict:
    """A V8 CPU profile: nodes with call frames, the node each sample caught, and the
    microseconds before each sample (given here in ms)."""
    base = "http://127.0.0.1:8501/static/js/"
    frames = {
        1: ("(root)", ""),
        2: ("(program)", ""),
        3: ("(idle)", ""),
        4: ("", base + "PlotlyChart.D9Z0_fxz.js"),  # a bundle's top level: no function name
        5: ("bBox", base + "PlotlyChart.D9Z0_fxz.js"),
        6: ("Ho", base + "react-dom.Dzbslgj4.js"),
        7: ("appendChild", ""),  # native, called from JavaScript
        8: ("t.insert", base + "emotion-styled.browser.esm.DdOkyKg_.js"),
        9: ("(garbage collector)", ""),
    }
    nodes = [
        {
            "id": i,
            "callFrame": {
                "functionName": f,
                "url": u,
                "scriptId": "0",
                "lineNumber": 0,
                "columnNumber": 0,
            },
        }
        for i, (f, u) in frames.items()
    ]
    samples = [
        (4, 300),
        (5, 200),
        (4, 100),
        (6, 150),
        (2, 80),
        (3, 500),
        (7, 20),
        (8, 40),
        (9, 10),
        (6, 50),
    ]
    return {
        "nodes": nodes,
        "samples": [n for n, _ in samples],
        "timeDeltas": [ms * 1000 for _, ms in samples],
    }


def test_a_profile_is_summed_by_bundle_without_its_hash() -> None:
    got = by_bundle(_profile())
    assert got == {
        "(idle)": 500.0,
        "PlotlyChart": 600.0,
        "react-dom": 200.0,
        "(program)": 80.0,
        "emotion-styled.browser.esm": 40.0,
        "(native)": 20.0,
        "(garbage collector)": 10.0,
    }
    assert list(got)[:2] == ["PlotlyChart", "(idle)"]  # largest first
    assert sum(got.values()) == 1450.0  # every sample counted once


def test_the_bundle_summary_leaves_idle_out_and_counts_a_missing_bundle_as_zero() -> None:
    a = by_bundle(_profile())
    b = {k: v for k, v in a.items() if k != "PlotlyChart"}  # a page without a chart
    s = bundle_summary([a, a, b], top=3)
    assert list(s) == ["PlotlyChart", "react-dom", "(program)"]
    assert s["PlotlyChart"] == {"median": 600.0, "min": 0.0, "max": 600.0}
    assert "(idle)" not in bundle_summary([a])
